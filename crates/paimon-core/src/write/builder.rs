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
}

impl WriteBuilder {
    /// A builder for writing into `table`.
    pub fn new(table: Table) -> Self {
        WriteBuilder {
            table,
            commit_user: None,
            options: HashMap::new(),
            spill_dir: None,
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

    /// Validates the table and options (unsupported layouts fail here) and returns the writer.
    pub fn build(self) -> Result<TableWrite> {
        let table = match self.options.is_empty() {
            true => self.table,
            false => self.table.with_options(&self.options)?,
        };
        let user = self
            .commit_user
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        TableWrite::new(table, user, self.spill_dir)
    }
}
