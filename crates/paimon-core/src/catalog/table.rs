//! [`Table`]: one loaded Paimon table: where it lives, its latest schema and typed options.

use std::collections::HashMap;
use std::sync::Arc;

use super::snapshot_manager::SnapshotManager;
use crate::io::FileIO;
use crate::spec::options::TableOptions;
use crate::spec::schema::TableSchema;
use crate::{Error, Result};

/// A loaded table. Cheap to clone; immutable (scan-time option overrides make a new `Table`).
#[derive(Debug, Clone)]
pub struct Table {
    location: String,
    name: String,
    io: FileIO,
    schema: Arc<TableSchema>,
    options: Arc<TableOptions>,
    snapshots: SnapshotManager,
}

/// Makes a local path absolute and leaves URLs (`scheme:…`) alone.
pub fn absolute_location(path: &str) -> Result<String> {
    let has_scheme = path
        .split_once(':')
        .is_some_and(|(s, _)| s.len() > 1 && s.chars().all(|c| c.is_ascii_alphanumeric()));
    if has_scheme {
        return Ok(path.trim_end_matches('/').to_string());
    }
    let abs = std::path::absolute(path).map_err(|e| {
        Error::invalid_argument(format!("cannot resolve path: {e}")).with_context("path", path)
    })?;
    let s = abs
        .to_str()
        .ok_or_else(|| Error::invalid_argument("path is not UTF-8").with_context("path", path))?;
    Ok(s.trim_end_matches('/').to_string())
}

impl Table {
    /// Opens the table at `location` (a local directory or a URL).
    pub async fn open(location: &str) -> Result<Table> {
        Self::open_with(FileIO::default(), location, &HashMap::new()).await
    }

    /// Creates a table at `location` (no catalog) from `schema` and opens it: the schema is
    /// validated, then written as `schema/schema-0` only if the table has no schema yet
    /// (otherwise [`ErrorKind::AlreadyExists`](crate::ErrorKind::AlreadyExists)).
    pub async fn create(location: &str, schema: super::Schema) -> Result<Table> {
        Self::create_with(FileIO::default(), location, schema).await
    }

    /// [`Table::create`] with a given `FileIO`.
    pub async fn create_with(io: FileIO, location: &str, schema: super::Schema) -> Result<Table> {
        let location = absolute_location(location)?;
        super::schema_commit::create_schema(&io, &location, &schema).await?;
        Self::open_with(io, &location, &HashMap::new()).await
    }

    /// Applies `changes` to this table's latest schema as one new schema file (ALTER TABLE
    /// without a catalog) and returns the table reopened with it.
    pub async fn alter(&self, changes: &[super::SchemaChange]) -> Result<Table> {
        super::schema_commit::commit_changes(&self.io, &self.location, &self.full_name(), changes)
            .await?;
        Self::open_with(self.io.clone(), &self.location, &HashMap::new()).await
    }

    /// Opens a table with a given `FileIO` and dynamic options overriding the stored ones.
    pub async fn open_with(
        io: FileIO,
        location: &str,
        overrides: &HashMap<String, String>,
    ) -> Result<Table> {
        let location = absolute_location(location)?;
        let snapshots = SnapshotManager::new(io.clone(), &location, None);
        let schema = snapshots.latest_schema().await?;
        let options = TableOptions::from_map(&schema.options)
            .map_err(|e| e.with_context("table", location.clone()))?;
        let options = if overrides.is_empty() {
            options
        } else {
            options.with_overrides(overrides)?
        };
        let name = location.rsplit('/').next().unwrap_or_default().to_string();
        Ok(Table {
            location,
            name,
            io,
            schema,
            options: Arc::new(options),
            snapshots,
        })
    }

    /// This table with `overrides` applied on top of its options (Java dynamic options).
    pub fn with_options(&self, overrides: &HashMap<String, String>) -> Result<Table> {
        let mut t = self.clone();
        t.options = Arc::new(self.options.with_overrides(overrides)?);
        Ok(t)
    }

    /// `db.table` when the table sits in a `<db>.db` directory (Java
    /// `Identifier#fromPath`), else its location.
    pub fn full_name(&self) -> String {
        let mut parts = self.location.rsplit('/');
        let (table, parent) = (parts.next(), parts.next());
        match (table, parent.and_then(|p| p.strip_suffix(".db"))) {
            (Some(t), Some(db)) if !t.is_empty() && !db.is_empty() => format!("{db}.{t}"),
            _ => self.location.clone(),
        }
    }

    /// Table root location.
    pub fn location(&self) -> &str {
        &self.location
    }
    /// The table's directory name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Storage access.
    pub fn file_io(&self) -> &FileIO {
        &self.io
    }
    /// The latest schema.
    pub fn schema(&self) -> &Arc<TableSchema> {
        &self.schema
    }
    /// Typed options (stored options plus overrides).
    pub fn options(&self) -> &Arc<TableOptions> {
        &self.options
    }
    /// Snapshot, tag and schema access.
    pub fn snapshot_manager(&self) -> &SnapshotManager {
        &self.snapshots
    }

    /// Starts a scan of this table: filter, columns, snapshot, options and limit are set on
    /// the returned builder, and the built [`TableScan`](crate::scan::TableScan) plans and reads
    /// with all of them.
    ///
    /// ```no_run
    /// # async fn demo() -> paimon_core::Result<()> {
    /// let table = paimon_core::Table::open("/warehouse/demo.db/orders").await?;
    /// let plan = table.scan().with_filter("id = 42")?.build()?.plan().await?;
    /// println!("{} splits", plan.splits.len());
    /// # Ok(())
    /// # }
    /// ```
    pub fn scan(&self) -> crate::scan::TableScanBuilder {
        crate::scan::TableScanBuilder::new(self.clone())
    }

    /// Starts a write into this table: commit user and option overrides are set on the
    /// returned builder; its [`TableWrite`](crate::write::TableWrite) takes Arrow batches and
    /// prepares the commit messages for [`Table::new_commit`].
    pub fn new_write(&self) -> crate::write::WriteBuilder {
        crate::write::WriteBuilder::new(self.clone())
    }

    /// A committer for this table: `table.new_commit().commit_messages(&messages, user)`
    /// publishes what writers prepared as new snapshots.
    pub fn new_commit(&self) -> crate::commit::TableCommit {
        crate::commit::TableCommit::new(self)
    }
}
