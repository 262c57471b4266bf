//! Writing schema files: `schema-0` at CREATE TABLE and `schema-<N+1>` at ALTER TABLE, each
//! created only if absent (the atomic step), as Java `SchemaManager#createTable` /
//! `#commitChanges` do.

use bytes::Bytes;

use super::schema::Schema;
use super::schema_change::{apply_changes, AlterContext, SchemaChange};
use super::snapshot_manager::SnapshotManager;
use crate::io::{join, FileIO};
use crate::spec::options::validate_table_schema;
use crate::spec::schema::TableSchema;
use crate::{Error, ErrorKind, Result};

/// How often ALTER re-reads the latest schema after losing a race.
const MAX_ALTER_ATTEMPTS: usize = 16;

fn schema_path(location: &str, id: i64) -> String {
    join(&join(location, "schema"), &format!("schema-{id}"))
}

fn exists_error(location: &str) -> Error {
    Error::new(
        ErrorKind::AlreadyExists,
        "Schema in filesystem exists, creation is not allowed.",
    )
    .with_context("table", location)
}

/// Validates `schema` and writes it as `schema-0` of the table at `location`; fails with
/// [`ErrorKind::AlreadyExists`] if the table has any schema file. Nothing is written when
/// validation fails.
pub(crate) async fn create_schema(
    io: &FileIO,
    location: &str,
    schema: &Schema,
) -> Result<TableSchema> {
    let snapshots = SnapshotManager::new(io.clone(), location, None);
    if !snapshots.schema_ids().await?.is_empty() {
        return Err(exists_error(location));
    }
    let table_schema = schema.to_table_schema(0);
    validate_table_schema(&table_schema).map_err(|e| e.with_context("table", location))?;
    let json = table_schema.to_json()?;
    match io
        .create_new(&schema_path(location, 0), Bytes::from(json))
        .await
    {
        Err(e) if e.kind() == ErrorKind::AlreadyExists => Err(exists_error(location)),
        other => other.map(|()| table_schema),
    }
}

/// Applies `changes` to the latest schema of the table at `location` and writes the result as
/// the next schema file, starting again from the new latest schema when another writer created
/// that file first. `table` names the table in messages.
pub(crate) async fn commit_changes(
    io: &FileIO,
    location: &str,
    table: &str,
    changes: &[SchemaChange],
) -> Result<TableSchema> {
    for _ in 0..MAX_ALTER_ATTEMPTS {
        let snapshots = SnapshotManager::new(io.clone(), location, None);
        let latest = snapshots.latest_schema().await.map_err(|e| {
            if e.kind() == ErrorKind::NotFound {
                Error::not_found(format!("Table {table} does not exist."))
                    .with_context("location", location)
            } else {
                e
            }
        })?;
        let has_snapshot = snapshots.latest_snapshot_id().await?.is_some();
        let ctx = AlterContext {
            table,
            has_snapshot,
        };
        let next = apply_changes(&latest, changes, ctx)
            .map_err(|e| e.with_context("table", table.to_string()))?;
        let path = schema_path(location, next.id);
        match io.create_new(&path, Bytes::from(next.to_json()?)).await {
            Ok(()) => return Ok(next),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(Error::new(
        ErrorKind::Conflict,
        format!(
            "ALTER TABLE {table} lost the race for the next schema file {MAX_ALTER_ATTEMPTS} times"
        ),
    ))
}
