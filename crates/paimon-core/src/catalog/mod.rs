//! Finding tables: the filesystem catalog (`<warehouse>/<db>.db/<table>`) and table loading.
//!
//! Mirrors Java `org.apache.paimon.catalog.FileSystemCatalog` (Paimon 2.0).

mod snapshot_manager;
mod table;

pub use snapshot_manager::SnapshotManager;
pub use table::{absolute_location, Table};

use std::collections::HashMap;

use crate::io::{join, FileIO};
use crate::{Error, Result};

const DB_SUFFIX: &str = ".db";

/// A `database.table` name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Identifier {
    /// Database name.
    pub database: String,
    /// Table name.
    pub table: String,
}

impl Identifier {
    /// Parses `db.table`.
    pub fn parse(s: &str) -> Result<Identifier> {
        match s.split_once('.') {
            Some((d, t)) if !d.is_empty() && !t.is_empty() => Ok(Identifier {
                database: d.to_string(),
                table: t.to_string(),
            }),
            _ => Err(Error::invalid_argument(format!(
                "'{s}' is not a table identifier: expected database.table"
            ))),
        }
    }
}

impl std::fmt::Display for Identifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.database, self.table)
    }
}

/// The filesystem catalog: databases are `<name>.db` directories of the warehouse.
#[derive(Debug, Clone)]
pub struct FileSystemCatalog {
    warehouse: String,
    io: FileIO,
}

impl FileSystemCatalog {
    /// A catalog over `warehouse` with storage `options`.
    pub fn new(warehouse: &str, options: HashMap<String, String>) -> Result<Self> {
        Ok(FileSystemCatalog {
            warehouse: absolute_location(warehouse)?,
            io: FileIO::new(options),
        })
    }

    /// The warehouse root.
    pub fn warehouse(&self) -> &str {
        &self.warehouse
    }

    /// Database names, sorted.
    pub async fn list_databases(&self) -> Result<Vec<String>> {
        let entries = self.io.list(&self.warehouse).await?;
        Ok(entries
            .into_iter()
            .filter(|e| e.is_dir)
            .filter_map(|e| e.name.strip_suffix(DB_SUFFIX).map(str::to_string))
            .collect())
    }

    /// Table names of `database` (directories holding a `schema/` directory), sorted.
    pub async fn list_tables(&self, database: &str) -> Result<Vec<String>> {
        let db = join(&self.warehouse, &format!("{database}{DB_SUFFIX}"));
        let entries = self.io.list(&db).await?;
        if entries.is_empty() && !self.list_databases().await?.iter().any(|d| d == database) {
            return Err(
                Error::not_found(format!("database '{database}' does not exist"))
                    .with_context("warehouse", self.warehouse.clone()),
            );
        }
        let mut out = Vec::new();
        for e in entries.into_iter().filter(|e| e.is_dir) {
            let schema_dir = join(&join(&db, &e.name), "schema");
            if !self.io.list(&schema_dir).await?.is_empty() {
                out.push(e.name);
            }
        }
        Ok(out)
    }

    /// The location of a table.
    pub fn table_location(&self, id: &Identifier) -> String {
        join(
            &join(&self.warehouse, &format!("{}{DB_SUFFIX}", id.database)),
            &id.table,
        )
    }

    /// Loads a table.
    pub async fn get_table(&self, id: &Identifier) -> Result<Table> {
        let loc = self.table_location(id);
        Table::open_with(self.io.clone(), &loc, &HashMap::new())
            .await
            .map_err(|e| {
                if e.kind() == crate::ErrorKind::NotFound {
                    Error::not_found(format!("table '{id}' does not exist"))
                        .with_context("location", loc.clone())
                } else {
                    e
                }
            })
    }
}
