//! Finding, creating, altering and dropping tables: the filesystem catalog
//! (`<warehouse>/<db>.db/<table>`), table loading, [`Schema`] and [`SchemaChange`].
//!
//! Mirrors Java `org.apache.paimon.catalog.FileSystemCatalog` and `AbstractCatalog` (Paimon
//! 2.0), with their messages.

mod schema;
mod schema_change;
mod schema_commit;
mod snapshot_manager;
mod table;

pub use schema::{
    highest_field_id, reassign_field_ids, Schema, SchemaBuilder, PARTITION_OPTION,
    PRIMARY_KEY_OPTION,
};
pub use schema_change::{apply_changes, AlterContext, Move, SchemaChange};
pub use snapshot_manager::SnapshotManager;
pub use table::{absolute_location, Table};

use std::collections::HashMap;

use crate::io::{join, FileIO};
use crate::{Error, ErrorKind, Result};

const DB_SUFFIX: &str = ".db";
/// Java's system database, which cannot be created or dropped.
const SYSTEM_DATABASE: &str = "sys";

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

    fn database_location(&self, database: &str) -> String {
        join(&self.warehouse, &format!("{database}{DB_SUFFIX}"))
    }

    /// Whether `database` exists (a `<name>.db` directory of the warehouse).
    pub async fn database_exists(&self, database: &str) -> Result<bool> {
        Ok(self.list_databases().await?.iter().any(|d| d == database))
    }

    /// Whether the table has a schema file.
    pub async fn table_exists(&self, id: &Identifier) -> Result<bool> {
        let snapshots = SnapshotManager::new(self.io.clone(), &self.table_location(id), None);
        Ok(!snapshots.schema_ids().await?.is_empty())
    }

    /// Creates the `<name>.db` directory (Java `createDatabase`). An existing database is an
    /// [`ErrorKind::AlreadyExists`] error unless `ignore_if_exists`. On object stores, which
    /// have no directories, the database appears with its first table.
    pub async fn create_database(&self, database: &str, ignore_if_exists: bool) -> Result<()> {
        check_not_system(database)?;
        if self.database_exists(database).await? {
            if ignore_if_exists {
                return Ok(());
            }
            return Err(Error::new(
                ErrorKind::AlreadyExists,
                format!("Database {database} already exists."),
            )
            .with_context("warehouse", self.warehouse.clone()));
        }
        self.io.create_dir(&self.database_location(database)).await
    }

    /// Drops a database (Java `dropDatabase`): a database with tables needs `cascade`, which
    /// drops them; a missing one is [`ErrorKind::NotFound`] unless `ignore_if_not_exists`.
    pub async fn drop_database(
        &self,
        database: &str,
        ignore_if_not_exists: bool,
        cascade: bool,
    ) -> Result<()> {
        check_not_system(database)?;
        if !self.database_exists(database).await? {
            if ignore_if_not_exists {
                return Ok(());
            }
            return Err(database_not_found(database));
        }
        let tables = self.list_tables(database).await?;
        if !cascade && !tables.is_empty() {
            return Err(
                Error::invalid_argument(format!("Database {database} is not empty."))
                    .with_context("tables", tables.join(",")),
            );
        }
        self.io.delete_dir(&self.database_location(database)).await
    }

    /// Creates a table from `schema` and loads it (Java `createTable`): the database must
    /// exist; an existing table is [`ErrorKind::AlreadyExists`] unless `ignore_if_exists`
    /// (then the existing table is returned). The schema is validated before anything is
    /// written; `schema/schema-0` is created only if absent.
    pub async fn create_table(
        &self,
        id: &Identifier,
        schema: Schema,
        ignore_if_exists: bool,
    ) -> Result<Table> {
        check_identifier(id)?;
        if !self.database_exists(&id.database).await? {
            return Err(database_not_found(&id.database));
        }
        if self.table_exists(id).await? {
            if ignore_if_exists {
                return self.get_table(id).await;
            }
            return Err(Error::new(
                ErrorKind::AlreadyExists,
                format!("Table {id} already exists."),
            )
            .with_context("location", self.table_location(id)));
        }
        let loc = self.table_location(id);
        schema_commit::create_schema(&self.io, &loc, &schema)
            .await
            .map_err(|e| e.with_context("identifier", id.to_string()))?;
        self.get_table(id).await
    }

    /// Drops a table and its directory (Java `dropTable`); a missing table is
    /// [`ErrorKind::NotFound`] unless `ignore_if_not_exists`.
    pub async fn drop_table(&self, id: &Identifier, ignore_if_not_exists: bool) -> Result<()> {
        check_identifier(id)?;
        if !self.table_exists(id).await? {
            if ignore_if_not_exists {
                return Ok(());
            }
            return Err(table_not_found(id));
        }
        self.io.delete_dir(&self.table_location(id)).await
    }

    /// Applies `changes` as one new schema version (Java `alterTable`); a missing table is
    /// [`ErrorKind::NotFound`] unless `ignore_if_not_exists`. Returns the new schema, or `None`
    /// when a missing table was ignored.
    pub async fn alter_table(
        &self,
        id: &Identifier,
        changes: Vec<SchemaChange>,
        ignore_if_not_exists: bool,
    ) -> Result<Option<crate::spec::TableSchema>> {
        check_identifier(id)?;
        if !self.table_exists(id).await? {
            if ignore_if_not_exists {
                return Ok(None);
            }
            return Err(table_not_found(id));
        }
        let loc = self.table_location(id);
        schema_commit::commit_changes(&self.io, &loc, &id.to_string(), &changes)
            .await
            .map(Some)
    }
}

/// A database or table name that stays one directory below its parent.
fn check_name(what: &'static str, name: &str) -> Result<()> {
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\']) {
        return Err(
            Error::invalid_argument(format!("invalid {what} name '{name}'"))
                .with_context(what, name),
        );
    }
    Ok(())
}

fn check_identifier(id: &Identifier) -> Result<()> {
    check_name("database", &id.database)?;
    check_name("table", &id.table)
}

fn check_not_system(database: &str) -> Result<()> {
    check_name("database", database)?;
    if database == SYSTEM_DATABASE {
        return Err(
            Error::invalid_argument("Can't do operation on system database.")
                .with_context("database", database),
        );
    }
    Ok(())
}

fn database_not_found(database: &str) -> Error {
    Error::not_found(format!("Database {database} does not exist."))
        .with_context("database", database)
}

fn table_not_found(id: &Identifier) -> Error {
    Error::not_found(format!("Table {id} does not exist."))
        .with_context("identifier", id.to_string())
}
