//! [`PaimonTableProvider`]: one Paimon table as a DataFusion [`TableProvider`].
//!
//! `scan` classifies the filters with [`classify`] (the same answer
//! `supports_filters_pushdown` gave), builds a paimon-core scan (projection, predicate, limit,
//! the session's batch size and `paimon.*` time-travel options), plans it and returns a
//! [`PaimonScanExec`] over the planned splits.

use std::sync::Arc;

use arrow::datatypes::{Schema, SchemaRef};
use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::{not_impl_err, Result};
use datafusion::datasource::sink::DataSinkExec;
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown, TableType};
use datafusion::physical_plan::ExecutionPlan;
use paimon_core::spec::types::DataField;
use paimon_core::{Predicate, Table};

use crate::error::to_df_error;
use crate::filter::classify;
use crate::options::PaimonOptions;
use crate::scan::{pruning_counters, PaimonScanExec, ScanDescription, ScanOutput};
use crate::sink::{CommitIdentity, PaimonSink};
use crate::stats::column_statistics;
use crate::wire::ReadWire;

/// The row kind metadata column of primary-key tables.
const VALUE_KIND: &str = "_VALUE_KIND";

/// Row kinds in a scan of a primary-key table (the audit log's read).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct KindRead {
    /// The merged record's row kind (`_VALUE_KIND`, TINYINT) as an extra last output column.
    pub row_kind: bool,
    /// Keys whose merged record is a retraction kept (Java `forceKeepDelete`).
    pub keep_delete: bool,
}

/// A Paimon table read through DataFusion. Its columns are the latest schema's, as Arrow
/// fields (Paimon field ids in the field metadata).
#[derive(Debug, Clone)]
pub struct PaimonTableProvider {
    table: Table,
    name: String,
    schema: SchemaRef,
}

impl PaimonTableProvider {
    /// A provider over `table`, named `name` (`db.table`) in errors and plans.
    pub fn try_new(table: Table, name: impl Into<String>) -> Result<Self> {
        let name = name.into();
        let schema = provider_schema(&table.schema().fields).map_err(|e| to_df_error(e, &name))?;
        Ok(PaimonTableProvider {
            table,
            name,
            schema,
        })
    }

    /// The table read.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The name shown in plans and errors.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// The Arrow schema a provider shows for a table's `fields`: top-level strings and binaries as
/// views (`Utf8View`, `BinaryView`), as DataFusion's own Parquet source reads them; the scans
/// decode them so ([`paimon_core::TableRead::with_string_views`]).
pub(crate) fn provider_schema(fields: &[DataField]) -> paimon_core::Result<SchemaRef> {
    Ok(paimon_core::arrow::view_schema(
        &paimon_core::arrow::arrow_schema(fields)?,
    ))
}

/// The settings of one scan, derived from DataFusion's arguments.
struct ScanRequest {
    columns: Vec<String>,
    drop_columns: bool,
    schema: SchemaRef,
    predicate: Option<Predicate>,
    all_exact: bool,
}

impl PaimonTableProvider {
    fn request(
        &self,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        row_kind: bool,
    ) -> Result<ScanRequest> {
        let mut schema = match projection {
            Some(p) => Arc::new(self.schema.project(p)?),
            None => self.schema.clone(),
        };
        let mut columns: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
        if row_kind {
            // The merged record's row kind (`_VALUE_KIND`), last.
            columns.push(VALUE_KIND.to_string());
            let kind = self
                .table
                .schema()
                .project(&[VALUE_KIND.to_string()])
                .and_then(|f| paimon_core::arrow::arrow_schema(&f))
                .map_err(|e| to_df_error(e, &self.name))?;
            let mut fields: Vec<_> = schema.fields().iter().cloned().collect();
            fields.extend(kind.fields().iter().cloned());
            schema = Arc::new(Schema::new(fields));
        }
        let drop_columns = columns.is_empty();
        if drop_columns {
            // DataFusion wants only row counts: read the first column and drop it.
            if let Some(f) = self.table.schema().fields.first() {
                columns.push(f.name.clone());
            }
        }
        let mut all_exact = true;
        let mut predicates = Vec::new();
        for f in filters {
            let c = classify(f, self.table.schema());
            all_exact &= c.pushdown == TableProviderFilterPushDown::Exact;
            predicates.extend(c.predicate);
        }
        let predicate = predicates.into_iter().reduce(Predicate::and);
        Ok(ScanRequest {
            columns,
            drop_columns,
            schema: if drop_columns {
                Arc::new(Schema::empty())
            } else {
                schema
            },
            predicate,
            all_exact,
        })
    }
}

#[async_trait]
impl TableProvider for PaimonTableProvider {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
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
            .map(|f| classify(f, self.table.schema()).pushdown)
            .collect())
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.scan_with_kind(state, projection, filters, limit, KindRead::default())
            .await
    }

    async fn insert_into(
        &self,
        _state: &dyn Session,
        input: Arc<dyn ExecutionPlan>,
        insert_op: InsertOp,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.insert_as(input, insert_op, CommitIdentity::fresh())
    }
}

impl PaimonTableProvider {
    /// The plan of an `INSERT` of `input` committing as `identity` (fixed here, at planning:
    /// every execution of the plan commits as the same user, at most once).
    pub(crate) fn insert_as(
        &self,
        input: Arc<dyn ExecutionPlan>,
        insert_op: InsertOp,
        identity: CommitIdentity,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let overwrite = match insert_op {
            InsertOp::Append => false,
            InsertOp::Overwrite => true,
            InsertOp::Replace => {
                return not_impl_err!(
                    "REPLACE INTO is not supported for paimon table {}",
                    self.name
                )
            }
        };
        let sink = PaimonSink::new(
            self.table.clone(),
            self.name.clone(),
            self.schema.clone(),
            overwrite,
            identity,
        );
        Ok(Arc::new(DataSinkExec::new(input, Arc::new(sink), None)))
    }

    /// [`TableProvider::scan`] with the row kinds `kinds` asks for.
    pub(crate) async fn scan_with_kind(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
        kinds: KindRead,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let req = self.request(projection, filters, kinds.row_kind)?;
        let err = |e| to_df_error(e, &self.name);
        let config = state.config_options();
        let options = config
            .extensions
            .get::<PaimonOptions>()
            .map(|o| o.table_options().clone())
            .unwrap_or_default();
        // DataFusion pushes a limit only when every filter was answered Exact.
        let limit = limit.filter(|_| req.all_exact);
        let wire = ReadWire {
            location: self.table.location().to_string(),
            name: self.name.clone(),
            schema_id: self.table.schema().id,
            options,
            columns: req.columns.clone(),
            predicate: req.predicate.clone(),
            limit,
            batch_size: Some(config.execution.batch_size.into()),
            keep_delete: kinds.keep_delete,
        };
        let builder = wire.scan_builder(&self.table)?;
        let scan = builder.build().map_err(err)?;
        let plan = scan.plan().await.map_err(err)?;
        let exact_rows = req.all_exact && self.rows_exact(&plan.splits);
        let columns = match self.table.schema().project(&req.columns) {
            Ok(fields) if !req.drop_columns => {
                let exact = exact_rows && limit.is_none();
                column_statistics(&self.table, &plan.splits, &fields, &req.schema, exact).await
            }
            _ => Vec::new(),
        };
        let description = ScanDescription {
            table: self.name.clone(),
            snapshot_id: plan.snapshot_id,
            projection: if req.drop_columns {
                Vec::new()
            } else {
                req.columns.clone()
            },
            predicate: req.predicate.as_ref().map(ToString::to_string),
            limit,
            pruning: pruning_counters(&plan.metrics),
        };
        Ok(Arc::new(PaimonScanExec::try_new(
            description,
            scan.reader()
                .with_keep_delete(wire.keep_delete)
                .with_string_views(true),
            wire,
            plan.splits,
            config.execution.target_partitions,
            ScanOutput {
                schema: req.schema,
                drop_columns: req.drop_columns,
                exact_rows,
                columns,
            },
        )?))
    }

    /// Whether the splits' row counts are exactly the rows read: an append table, no deletion
    /// vectors and no row ranges. Primary-key row counts are before merging, never exact.
    fn rows_exact(&self, splits: &[paimon_core::Split]) -> bool {
        !self.table.schema().has_primary_key()
            && splits.iter().all(|s| {
                let d = s.as_data();
                d.deletion_files.iter().all(Option::is_none) && d.row_ranges.is_none()
            })
    }
}
