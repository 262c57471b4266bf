//! `t$audit_log` (Java `AuditLogTable`, batch read): the table's rows with a first column
//! `rowkind` (`+I`, `-U`, `+U`, `-D`).
//!
//! Append tables: every row is `+I`. Primary-key tables: the merged rows of a read that keeps
//! deletions, as Java's audit log reads (`forceKeepDelete`,
//! [`TableRead::with_keep_delete`](paimon_core::TableRead::with_keep_delete)), each with the
//! row kind of the merged record (the library's `_VALUE_KIND` metadata column: the latest
//! version for `deduplicate`, `+I` for merged partial-update and aggregation rows, see
//! [`TableRead::with_metadata`](paimon_core::TableRead::with_metadata)). A key whose merged
//! record is a retraction shows as that `-D` (or `-U`) row, with the values it carries, until
//! a compaction into the highest level drops it.

use std::fmt;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Int8Type, Schema, SchemaRef};
use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{internal_err, DataFusionError, Result, Statistics};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown, TableType};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties, StatisticsArgs,
};
use futures::StreamExt;
use paimon_core::spec::schema::TableSchema;
use paimon_core::Table;

use crate::filter::classify;
use crate::table::{KindRead, PaimonTableProvider};

/// The row kind column's name (Java `SpecialFields.ROW_KIND`).
pub const ROW_KIND: &str = "rowkind";

/// Java's short string of a row kind byte.
fn kind_text(kind: i8) -> &'static str {
    match kind {
        0 => "+I",
        1 => "-U",
        2 => "+U",
        3 => "-D",
        _ => "?",
    }
}

/// How the audit log of a table with `schema` takes `filters`: those on table columns as the
/// table does ([`classify`]), those on `rowkind` stay above the scan.
pub(crate) fn pushdown(
    filters: &[&Expr],
    schema: &TableSchema,
) -> Vec<TableProviderFilterPushDown> {
    filters
        .iter()
        .map(|f| {
            if AuditLogProvider::refers_to_row_kind(f) {
                TableProviderFilterPushDown::Unsupported
            } else {
                classify(f, schema).pushdown
            }
        })
        .collect()
}

/// `t$audit_log` as a DataFusion table: `rowkind`, then the table's columns.
#[derive(Debug)]
pub struct AuditLogProvider {
    inner: PaimonTableProvider,
    schema: SchemaRef,
}

impl AuditLogProvider {
    /// The audit log of `table`, named `name` (`db.t$audit_log`) in plans and errors.
    pub fn try_new(table: Table, name: &str) -> Result<Self> {
        let inner = PaimonTableProvider::try_new(table, name)?;
        let mut fields = vec![Arc::new(Field::new(ROW_KIND, DataType::Utf8, false))];
        fields.extend(inner.schema().fields().iter().cloned());
        Ok(AuditLogProvider {
            inner,
            schema: Arc::new(Schema::new(fields)),
        })
    }

    fn refers_to_row_kind(e: &Expr) -> bool {
        e.column_refs().iter().any(|c| c.name == ROW_KIND)
    }
}

#[async_trait]
impl TableProvider for AuditLogProvider {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::View
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        Ok(pushdown(filters, self.inner.table().schema()))
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let all: Vec<usize> = (0..self.schema.fields().len()).collect();
        let projection = projection.unwrap_or(&all).clone();
        // Output positions: `None` = the row kind, `Some(i)` = column `i` of the inner scan.
        let mut table_projection = Vec::new();
        let mut layout = Vec::new();
        for p in &projection {
            if *p == 0 {
                layout.push(None);
            } else {
                layout.push(Some(table_projection.len()));
                table_projection.push(p - 1);
            }
        }
        let pk = self.inner.table().schema().has_primary_key();
        let need_kind = pk && layout.contains(&None);
        let filters: Vec<Expr> = filters
            .iter()
            .filter(|f| !Self::refers_to_row_kind(f))
            .cloned()
            .collect();
        let input = self
            .inner
            .scan_with_kind(
                state,
                Some(&table_projection),
                &filters,
                limit,
                KindRead {
                    row_kind: need_kind,
                    keep_delete: pk,
                },
            )
            .await?;
        let schema = Arc::new(self.schema.project(&projection)?);
        Ok(Arc::new(RowKindExec::new(input, schema, layout, need_kind)))
    }
}

/// Adds the `rowkind` column to the batches of a table scan: from its last column
/// (`_VALUE_KIND`) when `from_kind`, else `+I` for every row.
#[derive(Debug)]
pub(crate) struct RowKindExec {
    input: Arc<dyn ExecutionPlan>,
    schema: SchemaRef,
    layout: Vec<Option<usize>>,
    from_kind: bool,
    properties: Arc<PlanProperties>,
}

impl RowKindExec {
    /// The node over `input` (a scan of the table) producing `schema`; `layout` places each
    /// output column (`None`: the row kind, `Some(i)`: input column `i`); the row kind comes
    /// from the input's last column when `from_kind`, else every row is `+I`.
    pub(crate) fn new(
        input: Arc<dyn ExecutionPlan>,
        schema: SchemaRef,
        layout: Vec<Option<usize>>,
        from_kind: bool,
    ) -> Self {
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(schema.clone()),
            input.properties().partitioning.clone(),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        RowKindExec {
            input,
            schema,
            layout,
            from_kind,
            properties,
        }
    }

    /// The output schema, layout and row-kind source (what a codec ships; see [`Self::new`]).
    #[cfg(feature = "proto")]
    pub(crate) fn parts(&self) -> (&SchemaRef, &[Option<usize>], bool) {
        (&self.schema, &self.layout, self.from_kind)
    }
}

impl DisplayAs for RowKindExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "PaimonRowKindExec")
    }
}

/// The output batch of `batch` (an input batch) for `layout`.
fn with_row_kind(
    batch: &RecordBatch,
    schema: &SchemaRef,
    layout: &[Option<usize>],
    from_kind: bool,
) -> Result<RecordBatch> {
    let n = batch.num_rows();
    let kinds: ArrayRef = if from_kind {
        let Some(col) = batch.columns().last() else {
            return internal_err!("audit log scan batch has no row kind column");
        };
        let Some(kinds) = col.as_primitive_opt::<Int8Type>() else {
            return internal_err!(
                "audit log row kind column is {}, not TINYINT",
                col.data_type()
            );
        };
        Arc::new(StringArray::from_iter_values((0..n).map(|i| {
            kind_text(if kinds.is_null(i) { 0 } else { kinds.value(i) })
        })))
    } else {
        Arc::new(StringArray::from_iter_values(std::iter::repeat_n("+I", n)))
    };
    let mut columns = Vec::with_capacity(layout.len());
    for l in layout {
        match l {
            None => columns.push(kinds.clone()),
            Some(i) => match batch.columns().get(*i) {
                Some(c) => columns.push(c.clone()),
                None => return internal_err!("audit log scan batch lacks column {i}"),
            },
        }
    }
    let options = arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(n));
    RecordBatch::try_new_with_options(schema.clone(), columns, &options)
        .map_err(DataFusionError::from)
}

impl ExecutionPlan for RowKindExec {
    fn name(&self) -> &str {
        "PaimonRowKindExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        match <[_; 1]>::try_from(children) {
            Ok([input]) => Ok(Arc::new(RowKindExec::new(
                input,
                self.schema.clone(),
                self.layout.clone(),
                self.from_kind,
            ))),
            Err(_) => internal_err!("PaimonRowKindExec has one child"),
        }
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let input = self.input.execute(partition, context)?;
        let schema = self.schema.clone();
        let layout = self.layout.clone();
        let from_kind = self.from_kind;
        let stream =
            input.map(move |b| b.and_then(|b| with_row_kind(&b, &schema, &layout, from_kind)));
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            self.schema.clone(),
            stream,
        )))
    }

    fn statistics_from_inputs(
        &self,
        _input_stats: &[Arc<Statistics>],
        _args: &StatisticsArgs,
    ) -> Result<Arc<Statistics>> {
        Ok(Arc::new(Statistics::new_unknown(&self.schema)))
    }
}
