//! [`PaimonScanExec`]: the leaf that reads planned splits, one DataFusion partition per group.
//!
//! Splits are planned in [`TableProvider::scan`](datafusion::catalog::TableProvider::scan)
//! (planning time: the partition count and the statistics are needed before execution) and held
//! here as serialisable [`Split`]s, bin-packed by bytes into at most `target_partitions`
//! groups. `execute(i)` reads group `i` with paimon-core's [`TableRead`]. No output ordering and
//! no hash partitioning are claimed: Paimon buckets are not DataFusion hash partitions.

use std::fmt;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use arrow::record_batch::{RecordBatch, RecordBatchOptions};
use datafusion::common::stats::Precision;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{internal_err, ColumnStatistics, DataFusionError, Result, Statistics};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::metrics::{
    BaselineMetrics, Count, ExecutionPlanMetricsSet, Metric, MetricBuilder, MetricValue, MetricsSet,
};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties, StatisticsArgs,
};
use futures::{StreamExt, TryStreamExt};
use paimon_core::{Split, TableRead};

use crate::error::to_df_error;

/// What a scan node shows in `EXPLAIN`.
#[derive(Debug, Clone, Default)]
pub struct ScanDescription {
    /// `db.table`.
    pub table: String,
    /// The snapshot read (`None`: the table has no snapshot).
    pub snapshot_id: Option<i64>,
    /// Output column names.
    pub projection: Vec<String>,
    /// The predicate pushed into the scan, as text.
    pub predicate: Option<String>,
    /// The limit pushed into the scan.
    pub limit: Option<usize>,
    /// Planning counters (manifests and files read or pruned, by reason), shown in
    /// `EXPLAIN` when non-zero and reported by `EXPLAIN ANALYZE`.
    pub pruning: Vec<(String, u64)>,
}

/// The planning counters of `m` worth showing, by name.
pub fn pruning_counters(m: &paimon_core::ScanMetrics) -> Vec<(String, u64)> {
    let g = &m.global_index;
    [
        ("manifests", m.manifests_total),
        (
            "manifests_pruned_by_partition",
            m.manifests_skipped_by_partition,
        ),
        ("manifests_pruned_by_bucket", m.manifests_skipped_by_bucket),
        ("live_files", m.live_files),
        ("files_pruned_by_partition", m.files_skipped_by_partition),
        ("files_pruned_by_bucket", m.files_skipped_by_bucket),
        ("files_pruned_by_stats", m.files_skipped_by_stats),
        ("files_pruned_by_level", m.files_skipped_by_level),
        ("files_pruned_by_file_index", m.file_index.files_skipped),
        ("files_narrowed_by_global_index", g.files_narrowed),
        ("files_dropped_by_global_index", g.files_dropped),
        ("files_planned", m.files_planned),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// The output of a scan node.
#[derive(Debug, Clone)]
pub struct ScanOutput {
    /// The output schema.
    pub schema: SchemaRef,
    /// The read's columns are dropped: batches carry only a row count (DataFusion asked for
    /// no column).
    pub drop_columns: bool,
    /// The splits' row counts are exactly the rows the node emits.
    pub exact_rows: bool,
    /// Per output column statistics (unknown when empty).
    pub columns: Vec<ColumnStatistics>,
}

/// Reads groups of Paimon splits, one group per output partition.
#[derive(Debug)]
pub struct PaimonScanExec {
    description: ScanDescription,
    read: TableRead,
    groups: Vec<Vec<Split>>,
    schema: SchemaRef,
    /// The read produces one column that is dropped (DataFusion asked for none).
    drop_columns: bool,
    statistics: Arc<Statistics>,
    properties: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

impl PaimonScanExec {
    /// A scan node reading `splits` with `read`, in at most `target_partitions` groups, with
    /// the output described by `output`.
    pub fn new(
        description: ScanDescription,
        read: TableRead,
        splits: Vec<Split>,
        target_partitions: usize,
        output: ScanOutput,
    ) -> Self {
        let ScanOutput {
            schema,
            drop_columns,
            exact_rows,
            columns,
        } = output;
        let mut statistics = statistics_of(&splits, &schema, exact_rows, description.limit);
        if columns.len() == schema.fields().len() {
            statistics.column_statistics = columns;
        }
        let statistics = Arc::new(statistics);
        let groups = group_splits(splits, target_partitions);
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(schema.clone()),
            Partitioning::UnknownPartitioning(groups.len()),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        let metrics = ExecutionPlanMetricsSet::new();
        for (name, n) in &description.pruning {
            MetricBuilder::new(&metrics)
                .global_counter(name.clone())
                .add(usize::try_from(*n).unwrap_or(usize::MAX));
        }
        PaimonScanExec {
            description,
            read,
            groups,
            schema,
            drop_columns,
            statistics,
            properties,
            metrics,
        }
    }

    /// The split groups, one per output partition.
    pub fn groups(&self) -> &[Vec<Split>] {
        &self.groups
    }

    /// What the node shows in `EXPLAIN`.
    pub fn description(&self) -> &ScanDescription {
        &self.description
    }
}

fn split_bytes(s: &Split) -> i64 {
    s.as_data().files.iter().map(|f| f.file_size).sum()
}

/// Bin-packs splits by bytes into `min(splits, target_partitions)` groups (at least one).
pub fn group_splits(mut splits: Vec<Split>, target_partitions: usize) -> Vec<Vec<Split>> {
    let n = splits.len().min(target_partitions).max(1);
    splits.sort_by_key(|s| std::cmp::Reverse(split_bytes(s)));
    let mut groups: Vec<(i64, Vec<Split>)> = (0..n).map(|_| (0, Vec::new())).collect();
    for s in splits {
        let bytes = split_bytes(&s);
        if let Some(g) = groups.iter_mut().min_by_key(|(b, _)| *b) {
            g.0 += bytes;
            g.1.push(s);
        }
    }
    groups.into_iter().map(|(_, g)| g).collect()
}

fn statistics_of(
    splits: &[Split],
    schema: &SchemaRef,
    exact_rows: bool,
    limit: Option<usize>,
) -> Statistics {
    let rows: i64 = splits.iter().map(|s| s.as_data().row_count()).sum();
    let bytes: i64 = splits.iter().map(split_bytes).sum();
    let rows = usize::try_from(rows).unwrap_or(0);
    let mut stats = Statistics::new_unknown(schema);
    stats.num_rows = match limit {
        Some(l) => Precision::Inexact(rows.min(l)),
        None if exact_rows => Precision::Exact(rows),
        None => Precision::Inexact(rows),
    };
    stats.total_byte_size = Precision::Inexact(usize::try_from(bytes).unwrap_or(0));
    stats
}

impl DisplayAs for PaimonScanExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let d = &self.description;
        let splits: usize = self.groups.iter().map(Vec::len).sum();
        let files: usize = self
            .groups
            .iter()
            .flatten()
            .map(|s| s.as_data().files.len())
            .sum();
        write!(f, "PaimonScanExec: table={}", d.table)?;
        match d.snapshot_id {
            Some(id) => write!(f, ", snapshot={id}")?,
            None => write!(f, ", snapshot=none")?,
        }
        write!(
            f,
            ", partitions={}, splits={splits}, files={files}, projection=[{}]",
            self.groups.len(),
            d.projection.join(", ")
        )?;
        if let Some(p) = &d.predicate {
            write!(f, ", predicate={p}")?;
        }
        if let Some(l) = d.limit {
            write!(f, ", limit={l}")?;
        }
        let pruned: Vec<String> = d
            .pruning
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(k, n)| format!("{k}={n}"))
            .collect();
        if !pruned.is_empty() {
            write!(f, ", pruning=[{}]", pruned.join(", "))?;
        }
        Ok(())
    }
}

impl ExecutionPlan for PaimonScanExec {
    fn name(&self) -> &str {
        "PaimonScanExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        Vec::new()
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
        if children.is_empty() {
            Ok(self)
        } else {
            internal_err!("PaimonScanExec has no children")
        }
    }

    fn execute(
        &self,
        partition: usize,
        _context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let Some(group) = self.groups.get(partition) else {
            return internal_err!(
                "PaimonScanExec of {} has no partition {partition}",
                self.description.table
            );
        };
        let read = self.read.clone();
        let splits = group.clone();
        let table = self.description.table.clone();
        let schema = self.schema.clone();
        let drop_columns = self.drop_columns;
        let baseline = BaselineMetrics::new(&self.metrics, partition);
        let stream = futures::stream::once(async move {
            let inner = read.read(splits).map_err(|e| to_df_error(e, &table))?;
            Ok::<_, DataFusionError>(inner.map_err(move |e| to_df_error(e, &table)))
        })
        .try_flatten()
        .map(move |batch| {
            let b = batch.and_then(|b| conform(b, &schema, drop_columns))?;
            baseline.record_output(b.num_rows());
            Ok(b)
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            self.schema.clone(),
            stream,
        )))
    }

    /// Planning counters, output rows per partition, and the read's counters (row groups and
    /// pages skipped, rows filtered, key searches, file indexes) summed over partitions.
    fn metrics(&self) -> Option<MetricsSet> {
        let mut set = self.metrics.clone_inner();
        let r = self.read.metrics();
        for (name, n) in [
            (
                "row_groups_skipped",
                r.raw_row_groups_skipped + r.merge_row_groups_skipped,
            ),
            ("pages_skipped", r.pages_skipped),
            ("page_rows_skipped", r.page_rows_skipped),
            ("rows_filtered", r.rows_filtered),
            ("rows_dropped_before_merge", r.rows_dropped_before_merge),
            ("key_search_rows_skipped", r.key_search_rows_skipped),
            ("file_index_files_skipped", r.file_index_files_skipped),
            ("file_index_rows_skipped", r.file_index_rows_skipped),
        ] {
            let count = Count::new();
            count.add(usize::try_from(n).unwrap_or(usize::MAX));
            set.push(Arc::new(Metric::new(
                MetricValue::Count {
                    name: name.into(),
                    count,
                },
                None,
            )));
        }
        Some(set)
    }

    fn statistics_from_inputs(
        &self,
        _input_stats: &[Arc<Statistics>],
        args: &StatisticsArgs,
    ) -> Result<Arc<Statistics>> {
        match args.partition() {
            None => Ok(self.statistics.clone()),
            Some(_) => Ok(Arc::new(Statistics::new_unknown(&self.schema))),
        }
    }
}

/// Gives a batch of the read exactly the node's schema.
fn conform(batch: RecordBatch, schema: &SchemaRef, drop_columns: bool) -> Result<RecordBatch> {
    let columns = if drop_columns {
        Vec::new()
    } else {
        batch.columns().to_vec()
    };
    let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    RecordBatch::try_new_with_options(schema.clone(), columns, &options)
        .map_err(DataFusionError::from)
}
