//! Time travel for the system tables that list a snapshot's contents (`t$files`,
//! `t$manifests`, `t$partitions`, `t$buckets`): Java's read the snapshot the table's dynamic
//! options choose (`scan.snapshot-id`, `scan.tag-name`, `scan.timestamp-millis`); here the
//! session's `paimon.*` options ([`PaimonOptions`]) at scan time. Without them the table built
//! at lookup (latest snapshot) is scanned.

use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::Result;
use datafusion::logical_expr::{Expr, TableType};
use datafusion::physical_plan::ExecutionPlan;
use paimon_core::spec::snapshot::Snapshot;
use paimon_core::Table;

use super::{live_plan, memory_table, TravelOptions};
use crate::options::PaimonOptions;

/// A system table kind that honours time travel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Kind(&'static str);

impl Kind {
    /// The kind of `name` (lower case) if it honours time travel.
    pub(super) fn of(name: &str) -> Option<Kind> {
        ["files", "manifests", "partitions", "buckets"]
            .into_iter()
            .find(|k| *k == name)
            .map(Kind)
    }
}

/// A system table rebuilt at scan time for the session's time-travel options.
#[derive(Debug)]
pub(super) struct TravelTable {
    table: Table,
    kind: Kind,
    name: String,
    latest: Arc<dyn TableProvider>,
}

impl TravelTable {
    /// `latest`: the system table `kind` of `table` at its latest snapshot.
    pub(super) fn new(
        table: Table,
        kind: Kind,
        name: &str,
        latest: Arc<dyn TableProvider>,
    ) -> Self {
        TravelTable {
            table,
            kind,
            name: name.to_string(),
            latest,
        }
    }
}

#[async_trait]
impl TableProvider for TravelTable {
    fn schema(&self) -> SchemaRef {
        self.latest.schema()
    }

    fn table_type(&self) -> TableType {
        TableType::View
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let travel: TravelOptions = state
            .config_options()
            .extensions
            .get::<PaimonOptions>()
            .map(|o| o.table_options().clone())
            .unwrap_or_default();
        if travel.is_empty() {
            return self.latest.scan(state, projection, filters, limit).await;
        }
        let chosen = memory_table(&self.table, self.kind.0, &self.name, &travel).await?;
        chosen.scan(state, projection, filters, limit).await
    }
}

/// The snapshot a scan of `table` with the time-travel options `travel` reads (`None`: the
/// table has no snapshot); the scan's own resolution, so errors and precedence are the same.
pub(super) async fn chosen_snapshot(
    table: &Table,
    travel: &TravelOptions,
) -> paimon_core::Result<Option<Snapshot>> {
    let sm = table.snapshot_manager();
    if travel.is_empty() {
        return sm.latest_snapshot().await;
    }
    match live_plan(table, travel).await?.snapshot_id {
        Some(id) => sm.snapshot(id).await.map(Some),
        None => Ok(None),
    }
}
