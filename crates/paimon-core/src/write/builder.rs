//! [`WriteBuilder`]: `table.new_write()` → commit user and option overrides → [`TableWrite`].

use std::collections::HashMap;
use std::path::PathBuf;

use super::TableWrite;
use crate::catalog::Table;
use crate::Result;

/// Configures a [`TableWrite`]; nothing is read or written until [`TableWrite::write`].
#[derive(Debug, Clone)]
pub struct WriteBuilder {
    table: Table,
    commit_user: Option<String>,
    options: HashMap<String, String>,
    spill_dir: Option<PathBuf>,
    flush_parallelism: Option<usize>,
}

impl WriteBuilder {
    /// A builder for writing into `table`.
    pub fn new(table: Table) -> Self {
        WriteBuilder {
            table,
            commit_user: None,
            options: HashMap::new(),
            spill_dir: None,
            flush_parallelism: None,
        }
    }

    /// The commit user recorded in the snapshots (default: a random UUID, as Java batch
    /// writes use).
    pub fn with_commit_user(mut self, user: impl Into<String>) -> Self {
        self.commit_user = Some(user.into());
        self
    }

    /// A dynamic table option for this write (e.g. `target-file-size`, `write-buffer-size`,
    /// `file.compression`).
    pub fn with_option(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.options.insert(key.into(), value.into());
        self
    }

    /// The local directory under which primary-key write buffers spill their sorted runs
    /// (`write-buffer-spillable`; default: the system temp dir, `TMPDIR`). Each bucket writer
    /// makes a private directory there and removes it after each merge and when dropped.
    pub fn with_spill_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.spill_dir = Some(dir.into());
        self
    }

    /// How many primary-key buckets sort, merge, encode and write their files at once when
    /// [`TableWrite::prepare_commit`] flushes them or a full write buffer frees memory
    /// (default: the available cores; 1: one bucket after another). The files, their rows and
    /// sequence numbers and the commit messages are the same for every value; memory beyond
    /// `write-buffer-size` grows by at most this many buckets' sort copies.
    pub fn with_flush_parallelism(mut self, n: usize) -> Self {
        self.flush_parallelism = Some(n);
        self
    }

    /// Validates the table and options (unsupported layouts fail here) and returns the writer.
    pub fn build(self) -> Result<TableWrite> {
        let table = match self.options.is_empty() {
            true => self.table,
            false => self.table.with_options(&self.options)?,
        };
        let user = self
            .commit_user
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        let mut write = TableWrite::new(table, user, self.spill_dir)?;
        if let Some(n) = self.flush_parallelism {
            write.set_flush_parallelism(n);
        }
        Ok(write)
    }
}
