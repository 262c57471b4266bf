//! System tables that travel between processes (a Ballista client, its scheduler and
//! executors): [`SystemTable`] is what a catalog lookup returns, [`SystemWire`] what a logical
//! codec ships, [`RemoteSystemTable`] what the decoding side (the scheduler) rebuilds.
//!
//! The decoded table does no I/O until it is scanned; its scan opens the base table through
//! that process's own [`FileIO`] and builds the system table there, with that side's session
//! options (time travel of `t$files` and friends). In-memory system tables then ship to
//! executors as DataFusion's own in-memory source; the audit log as its scan node under a
//! row-kind node (both encoded by the physical codec).

use std::collections::HashMap;
use std::sync::Arc;

use arrow::datatypes::{Schema, SchemaRef};
use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::{exec_err, Result};
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown, TableType};
use datafusion::physical_plan::ExecutionPlan;
use futures::future::BoxFuture;
use paimon_core::spec::schema::TableSchema;
use paimon_core::{FileIO, Table};
use serde::{Deserialize, Serialize};
use tokio::sync::OnceCell;

use crate::error::to_df_error;

/// The system table kind whose columns are the base table's (plus `rowkind`).
const AUDIT_LOG: &str = "audit_log";

/// How filters on system table `kind` of a table with `schema` are pushed: the audit log's
/// as the table's (`rowkind` stays above), none for the in-memory tables. The same answer on
/// every side of a distributed query.
fn pushdown(
    kind: &str,
    schema: &TableSchema,
    filters: &[&Expr],
) -> Vec<TableProviderFilterPushDown> {
    if kind == AUDIT_LOG {
        crate::audit::pushdown(filters, schema)
    } else {
        vec![TableProviderFilterPushDown::Unsupported; filters.len()]
    }
}

/// Views over the table's data or its listings; the fixed listings are base tables.
fn table_type(kind: &str) -> TableType {
    match kind {
        "snapshots" | "schemas" | "options" | "tags" => TableType::Base,
        _ => TableType::View,
    }
}

/// What identifies a system table across processes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemWire {
    /// The base table's root location (a local path or URL; never credentials).
    pub location: String,
    /// `db.table$kind`, for errors and plans.
    pub name: String,
    /// The kind (`snapshots`, `files`, `audit_log`, ...), lower case.
    pub kind: String,
    /// The base table's schema the client planned with, as Paimon's schema JSON.
    pub schema_json: String,
    /// The system table's columns as the client saw them.
    pub columns: Schema,
}

/// A system table of a base table, as a catalog lookup returns it: `inner` answers; the
/// wrapper makes it recognisable to the logical codec.
#[derive(Debug)]
pub struct SystemTable {
    table: Table,
    name: String,
    kind: String,
    inner: Arc<dyn TableProvider>,
}

impl SystemTable {
    /// System table `kind` (lower case) of `table`, named `name`, answered by `inner`.
    pub(crate) fn new(table: Table, name: &str, kind: &str, inner: Arc<dyn TableProvider>) -> Self {
        SystemTable {
            table,
            name: name.to_string(),
            kind: kind.to_string(),
            inner,
        }
    }

    /// What a codec ships.
    pub fn wire(&self) -> Result<SystemWire> {
        let schema_json = self
            .table
            .schema()
            .to_json()
            .map_err(|e| to_df_error(e, &self.name))?;
        Ok(SystemWire {
            location: self.table.location().to_string(),
            name: self.name.clone(),
            kind: self.kind.clone(),
            schema_json,
            columns: self.inner.schema().as_ref().clone(),
        })
    }
}

#[async_trait]
impl TableProvider for SystemTable {
    fn schema(&self) -> SchemaRef {
        self.inner.schema()
    }

    fn table_type(&self) -> TableType {
        table_type(&self.kind)
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        Ok(pushdown(&self.kind, self.table.schema(), filters))
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.inner.scan(state, projection, filters, limit).await
    }
}

/// A system table decoded from a [`SystemWire`] (see the module doc).
#[derive(Debug)]
pub struct RemoteSystemTable {
    wire: SystemWire,
    schema: SchemaRef,
    table_schema: Arc<TableSchema>,
    io: FileIO,
    opened: OnceCell<Arc<dyn TableProvider>>,
}

impl RemoteSystemTable {
    /// A system table over `wire`, built through `io` when first scanned.
    pub fn try_new(wire: SystemWire, io: FileIO) -> Result<Self> {
        let table_schema = TableSchema::from_json_bytes(wire.schema_json.as_bytes())
            .map_err(|e| to_df_error(e, &wire.name))?;
        Ok(RemoteSystemTable {
            schema: Arc::new(wire.columns.clone()),
            wire,
            table_schema: Arc::new(table_schema),
            io,
            opened: OnceCell::new(),
        })
    }

    /// What the table was decoded from.
    pub fn wire(&self) -> &SystemWire {
        &self.wire
    }
}

/// Opens the base table of `wire` and builds the system table; the audit log's base table
/// must still have schema `schema_id` (its columns are the table's).
fn open(
    wire: SystemWire,
    schema_id: i64,
    io: FileIO,
) -> BoxFuture<'static, Result<Arc<dyn TableProvider>>> {
    Box::pin(async move {
        let table = Table::open_with(io, &wire.location, &HashMap::new())
            .await
            .map_err(|e| to_df_error(e, &wire.name))?;
        if wire.kind == AUDIT_LOG && table.schema().id != schema_id {
            return exec_err!(
                "paimon table {}: planned with schema {schema_id}, but the latest schema is now {}",
                wire.name,
                table.schema().id
            );
        }
        let provider = super::system_table(&table, &wire.kind, &wire.name).await?;
        if provider.schema().fields() != wire.columns.fields() {
            return exec_err!(
                "paimon table {}: its columns differ from those planned with",
                wire.name
            );
        }
        Ok(provider)
    })
}

#[async_trait]
impl TableProvider for RemoteSystemTable {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        table_type(&self.wire.kind)
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        Ok(pushdown(&self.wire.kind, &self.table_schema, filters))
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let provider = self
            .opened
            .get_or_try_init(|| open(self.wire.clone(), self.table_schema.id, self.io.clone()))
            .await?;
        provider.scan(state, projection, filters, limit).await
    }
}
