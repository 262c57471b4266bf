//! [`RemoteTableProvider`]: a Paimon table rebuilt from a logical plan's bytes in another
//! process (a Ballista scheduler), without I/O until it is scanned.
//!
//! A logical codec decodes synchronously, but opening a table reads its schema files. The
//! provider is therefore built from what the client shipped ([`TableWire`]: location, name and
//! the client's table schema, which answers `schema` and `supports_filters_pushdown` exactly as
//! the client's provider did); the table is opened on the first `scan` or `insert_into`,
//! through the decoding process's own [`FileIO`], and must still have the shipped schema.
//! An `INSERT` planned there commits as the identity the client put in the wire.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::{exec_err, DataFusionError, Result};
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown, TableType};
use datafusion::physical_plan::ExecutionPlan;
use futures::future::BoxFuture;
use paimon_core::spec::schema::TableSchema;
use paimon_core::{FileIO, Table};
use serde::{Deserialize, Serialize};
use tokio::sync::OnceCell;

use crate::error::to_df_error;
use crate::filter::classify;
use crate::sink::CommitIdentity;
use crate::table::{provider_schema, PaimonTableProvider};

/// What identifies a table provider across processes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableWire {
    /// Table root location (a local path or URL; never credentials).
    pub location: String,
    /// `db.table`, for errors and plans.
    pub name: String,
    /// The table schema the client planned with, as Paimon's schema JSON.
    pub schema_json: String,
    /// The commit identity of an `INSERT` into this table planned from this wire: fixed by the
    /// client when it encodes its plan, so the decoding side's planning (and every retried
    /// task of the plan it makes) commits as that identity, at most once. `None`: a fresh one
    /// when planned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<CommitIdentity>,
}

impl TableWire {
    /// The wire of a client-side provider.
    pub fn of(provider: &PaimonTableProvider) -> Result<Self> {
        let table = provider.table();
        let schema_json = table
            .schema()
            .to_json()
            .map_err(|e| to_df_error(e, provider.name()))?;
        Ok(TableWire {
            location: table.location().to_string(),
            name: provider.name().to_string(),
            schema_json,
            commit: Some(CommitIdentity::fresh()),
        })
    }
}

/// A table provider decoded from a [`TableWire`] (see the module doc).
#[derive(Debug, Clone)]
pub struct RemoteTableProvider {
    wire: TableWire,
    schema: Arc<TableSchema>,
    arrow_schema: SchemaRef,
    io: FileIO,
    opened: Arc<OnceCell<PaimonTableProvider>>,
}

impl RemoteTableProvider {
    /// A provider over `wire`, opened through `io` when first scanned.
    pub fn try_new(wire: TableWire, io: FileIO) -> Result<Self> {
        let schema = TableSchema::from_json_bytes(wire.schema_json.as_bytes())
            .map_err(|e| to_df_error(e, &wire.name))?;
        let arrow_schema =
            provider_schema(&schema.fields).map_err(|e| to_df_error(e, &wire.name))?;
        Ok(RemoteTableProvider {
            wire,
            schema: Arc::new(schema),
            arrow_schema,
            io,
            opened: Arc::default(),
        })
    }

    /// What the provider was decoded from.
    pub fn wire(&self) -> &TableWire {
        &self.wire
    }

    async fn provider(&self) -> Result<&PaimonTableProvider> {
        self.opened
            .get_or_try_init(|| open(self.wire.clone(), self.schema.id, self.io.clone()))
            .await
    }
}

/// Opens the table of `wire` and checks it still has schema `schema_id`.
fn open(
    wire: TableWire,
    schema_id: i64,
    io: FileIO,
) -> BoxFuture<'static, Result<PaimonTableProvider>> {
    Box::pin(async move {
        let table = Table::open_with(io, &wire.location, &HashMap::new())
            .await
            .map_err(|e| to_df_error(e, &wire.name))?;
        if table.schema().id != schema_id {
            return exec_err!(
                "paimon table {}: planned with schema {schema_id}, but the latest schema is now {}",
                wire.name,
                table.schema().id
            );
        }
        PaimonTableProvider::try_new(table, wire.name)
    })
}

#[async_trait]
impl TableProvider for RemoteTableProvider {
    fn schema(&self) -> SchemaRef {
        self.arrow_schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        Ok(filters
            .iter()
            .map(|f| classify(f, &self.schema).pushdown)
            .collect())
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>, DataFusionError> {
        self.provider()
            .await?
            .scan(state, projection, filters, limit)
            .await
    }

    /// The sink plan, committing as the identity the client shipped (see [`TableWire`]).
    async fn insert_into(
        &self,
        _state: &dyn Session,
        input: Arc<dyn ExecutionPlan>,
        insert_op: InsertOp,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let identity = self
            .wire
            .commit
            .clone()
            .unwrap_or_else(CommitIdentity::fresh);
        self.provider().await?.insert_as(input, insert_op, identity)
    }
}
