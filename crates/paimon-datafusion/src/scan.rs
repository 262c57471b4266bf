//! [`PaimonScanExec`]: the node that reads planned splits, one DataFusion partition per group.
//!
//! Splits are planned in [`TableProvider::scan`](datafusion::catalog::TableProvider::scan)
//! (planning time: the partition count and the statistics are needed before execution),
//! bin-packed by bytes into at most `target_partitions` groups and held as split rows by the
//! node's child, an in-memory source ([`crate::wire`]). `execute(i)` reads the splits of child
//! partition `i` with paimon-core's [`TableRead`]. No output ordering and
//! no hash partitioning are claimed: Paimon buckets are not DataFusion hash partitions.

use std::any::Any;
use std::fmt;
use std::num::NonZeroUsize;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use arrow::record_batch::{RecordBatch, RecordBatchOptions};
use datafusion::common::stats::Precision;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{internal_err, ColumnStatistics, DataFusionError, Result, Statistics};
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::datasource::source::DataSourceExec;
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
use paimon_core::{FileIO, Split, TableRead};
use serde::{Deserialize, Serialize};
use tokio::sync::OnceCell;

use crate::error::to_df_error;
use crate::wire::{decode_split_rows, encode_split_rows, split_rows_schema, ReadWire};

/// What a scan node shows in `EXPLAIN`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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

/// Where scans execute, carried by a session configuration as an extension
/// ([`SessionConfig::with_extension`](datafusion::prelude::SessionConfig::with_extension)):
/// a [`PaimonScanExec`] executed in such a session also counts the splits it reads under the
/// metric `splits_read@<name>`. A distributed engine that collects operator metrics per task
/// (Ballista's scheduler does, `GetJobMetrics`) thereby tells which executor read how many
/// splits; Ballista's executors are given one by their config producer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadSite {
    name: String,
}

impl ReadSite {
    /// The prefix of the per-site split counter (`splits_read@<name>`).
    pub const METRIC_PREFIX: &'static str = "splits_read@";

    /// A site named `name` (an executor id).
    pub fn new(name: impl Into<String>) -> Self {
        ReadSite { name: name.into() }
    }

    /// The site's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The name of this site's split counter.
    pub fn metric_name(&self) -> String {
        format!("{}{}", Self::METRIC_PREFIX, self.name)
    }
}

/// Reads groups of Paimon splits, one group per output partition.
///
/// The splits are not held by the node but by its one child, an in-memory source of split
/// rows ([`crate::wire`]) with one partition per group: `execute(i)` reads the splits arriving
/// from child partition `i`. A distributed engine that narrows a task's plan to some
/// partitions (Ballista narrows in-memory sources, not unknown leaves) thereby narrows the
/// splits too, and every split is read by exactly one task.
#[derive(Debug)]
pub struct PaimonScanExec {
    description: ScanDescription,
    wire: Arc<ReadWire>,
    read: ReadSource,
    input: Arc<dyn ExecutionPlan>,
    schema: SchemaRef,
    /// The read produces one column that is dropped (DataFusion asked for none).
    drop_columns: bool,
    exact_rows: bool,
    /// Per output column statistics, as given (unknown when empty).
    columns: Vec<ColumnStatistics>,
    /// Splits and files held by the input.
    counts: (usize, usize),
    statistics: Arc<Statistics>,
    properties: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

/// Where a node's [`TableRead`] comes from: built by the planning process, or opened from
/// the [`ReadWire`] on first use (a node decoded in another process).
#[derive(Debug, Clone)]
enum ReadSource {
    Ready(Arc<TableRead>),
    Lazy {
        io: FileIO,
        read: Arc<OnceCell<TableRead>>,
    },
}

impl ReadSource {
    async fn get(&self, wire: &ReadWire) -> Result<TableRead> {
        match self {
            ReadSource::Ready(r) => Ok(r.as_ref().clone()),
            ReadSource::Lazy { io, read } => read
                .get_or_try_init(|| wire.open(io.clone()))
                .await
                .cloned(),
        }
    }

    /// The read's counters, once there is a read.
    fn metrics(&self) -> Option<paimon_core::read::ReadMetricsSnapshot> {
        match self {
            ReadSource::Ready(r) => Some(r.metrics()),
            ReadSource::Lazy { read, .. } => read.get().map(TableRead::metrics),
        }
    }
}

impl PaimonScanExec {
    /// A scan node reading `splits` with `read` (built from `wire`), in at most
    /// `target_partitions` groups, with the output described by `output`.
    pub fn try_new(
        description: ScanDescription,
        read: TableRead,
        wire: ReadWire,
        splits: Vec<Split>,
        target_partitions: usize,
        output: ScanOutput,
    ) -> Result<Self> {
        let groups = group_splits(splits, target_partitions);
        let input = split_source(&groups)?;
        let splits: Vec<Split> = groups.into_iter().flatten().collect();
        Ok(Self::assemble(
            description,
            Arc::new(wire),
            ReadSource::Ready(Arc::new(read)),
            input,
            &splits,
            output,
        ))
    }

    /// A node decoded in another process: `input` is the (possibly narrowed) split-row
    /// source; the read is opened from `wire` through `io` when first executed.
    pub fn from_wire(
        description: ScanDescription,
        wire: ReadWire,
        io: FileIO,
        input: Arc<dyn ExecutionPlan>,
        output: ScanOutput,
    ) -> Result<Self> {
        let read = ReadSource::Lazy {
            io,
            read: Arc::default(),
        };
        let splits: Vec<Split> = split_groups_of(&input, &wire.name)?
            .into_iter()
            .flatten()
            .collect();
        Ok(Self::assemble(
            description,
            Arc::new(wire),
            read,
            input,
            &splits,
            output,
        ))
    }

    /// The node over `input`, which holds `splits`: statistics and counts are theirs.
    fn assemble(
        description: ScanDescription,
        wire: Arc<ReadWire>,
        read: ReadSource,
        input: Arc<dyn ExecutionPlan>,
        splits: &[Split],
        output: ScanOutput,
    ) -> Self {
        let counts = (
            splits.len(),
            splits.iter().map(|s| s.as_data().files.len()).sum(),
        );
        let mut statistics =
            statistics_of(splits, &output.schema, output.exact_rows, description.limit);
        if output.columns.len() == output.schema.fields().len() {
            statistics.column_statistics = output.columns.clone();
        }
        let partitions = input.properties().output_partitioning().partition_count();
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(output.schema.clone()),
            Partitioning::UnknownPartitioning(partitions),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        let metrics = ExecutionPlanMetricsSet::new();
        // Planning counters are metrics of the process that planned (for `EXPLAIN ANALYZE`).
        // A node decoded elsewhere (a distributed task) shows them in its description only:
        // every task reporting them would multiply them in the job's metrics.
        if matches!(read, ReadSource::Ready(_)) {
            for (name, n) in &description.pruning {
                MetricBuilder::new(&metrics)
                    .global_counter(name.clone())
                    .add(usize::try_from(*n).unwrap_or(usize::MAX));
            }
        }
        PaimonScanExec {
            description,
            wire,
            read,
            input,
            schema: output.schema,
            drop_columns: output.drop_columns,
            exact_rows: output.exact_rows,
            columns: output.columns,
            counts,
            statistics: Arc::new(statistics),
            properties,
            metrics,
        }
    }

    /// The split groups, one per output partition (decoded from the child's split rows).
    pub fn groups(&self) -> Result<Vec<Vec<Split>>> {
        split_groups_of(&self.input, &self.wire.name)
    }

    /// What the node shows in `EXPLAIN`.
    pub fn description(&self) -> &ScanDescription {
        &self.description
    }

    /// The read settings (what a codec ships).
    pub fn wire(&self) -> &ReadWire {
        &self.wire
    }

    /// The output: schema, dropped columns, exactness of the splits' row counts, column
    /// statistics.
    pub fn output(&self) -> ScanOutput {
        ScanOutput {
            schema: self.schema.clone(),
            drop_columns: self.drop_columns,
            exact_rows: self.exact_rows,
            columns: self.columns.clone(),
        }
    }
}

/// The in-memory source of split rows: one partition (one batch) per group.
fn split_source(groups: &[Vec<Split>]) -> Result<Arc<dyn ExecutionPlan>> {
    let partitions = groups
        .iter()
        .map(|g| encode_split_rows(g).map(|b| vec![b]))
        .collect::<Result<Vec<_>>>()?;
    let exec: Arc<dyn ExecutionPlan> =
        MemorySourceConfig::try_new_exec(&partitions, split_rows_schema(), None)?;
    Ok(exec)
}

/// The split groups held by a split-row source, one per partition.
fn split_groups_of(input: &Arc<dyn ExecutionPlan>, table: &str) -> Result<Vec<Vec<Split>>> {
    let source = input.downcast_ref::<DataSourceExec>().and_then(|e| {
        let source: &dyn Any = e.data_source().as_ref();
        source.downcast_ref::<MemorySourceConfig>()
    });
    let Some(source) = source else {
        return internal_err!("PaimonScanExec of {table}: the input is not a split-row source");
    };
    source
        .partitions()
        .iter()
        .map(|p| {
            let mut splits = Vec::new();
            for b in p {
                splits.extend(decode_split_rows(b, table)?);
            }
            Ok(splits)
        })
        .collect()
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
        let (splits, files) = self.counts;
        write!(f, "PaimonScanExec: table={}", d.table)?;
        match d.snapshot_id {
            Some(id) => write!(f, ", snapshot={id}")?,
            None => write!(f, ", snapshot=none")?,
        }
        write!(
            f,
            ", partitions={}, splits={splits}, files={files}, projection=[{}]",
            self.properties.output_partitioning().partition_count(),
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
        vec![&self.input]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn benefits_from_input_partitioning(&self) -> Vec<bool> {
        vec![false]
    }

    fn maintains_input_order(&self) -> Vec<bool> {
        vec![false]
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let [input] = <[_; 1]>::try_from(children).map_err(|c| {
            DataFusionError::Internal(format!(
                "PaimonScanExec takes one child (its split rows), got {}",
                c.len()
            ))
        })?;
        if Arc::ptr_eq(&input, &self.input) {
            return Ok(self);
        }
        // A new child may hold fewer splits (a distributed task's share): row counts are
        // recomputed from its splits, column statistics given for all splits become bounds.
        let splits: Vec<Split> = split_groups_of(&input, &self.wire.name)?
            .into_iter()
            .flatten()
            .collect();
        let mut output = self.output();
        output.columns = output
            .columns
            .into_iter()
            .map(ColumnStatistics::to_inexact)
            .collect();
        let node = Self::assemble(
            self.description.clone(),
            self.wire.clone(),
            self.read.clone(),
            input,
            &splits,
            output,
        );
        Ok(Arc::new(node))
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let partitions = self.properties.output_partitioning().partition_count();
        if partition >= partitions {
            return internal_err!(
                "PaimonScanExec of {} has no partition {partition} (of {partitions})",
                self.description.table
            );
        }
        let site = context.session_config().get_extension::<ReadSite>();
        let rows = self.input.execute(partition, context)?;
        let source = self.read.clone();
        let wire = self.wire.clone();
        let schema = self.schema.clone();
        let drop_columns = self.drop_columns;
        let baseline = BaselineMetrics::new(&self.metrics, partition);
        let mut splits_read =
            vec![MetricBuilder::new(&self.metrics).counter("splits_read", partition)];
        if let Some(site) = site {
            splits_read
                .push(MetricBuilder::new(&self.metrics).counter(site.metric_name(), partition));
        }
        let stream = futures::stream::once(async move {
            let batches: Vec<RecordBatch> = rows.try_collect().await?;
            let mut splits = Vec::new();
            for b in &batches {
                splits.extend(decode_split_rows(b, &wire.name)?);
            }
            for c in &splits_read {
                c.add(splits.len());
            }
            tracing::info!(
                table = %wire.name,
                partition,
                splits = splits.len(),
                "paimon scan: reading splits"
            );
            let read = source
                .get(&wire)
                .await?
                .with_concurrency(files_in_flight(&wire.location, partitions));
            let table = wire.name.clone();
            let inner = read.read(splits).map_err(|e| to_df_error(e, &table))?;
            Ok::<_, DataFusionError>(inner.map_err(move |e| to_df_error(e, &table)))
        })
        .try_flatten()
        .map(move |batch| {
            let b = batch.and_then(|b| conform(b, &schema, drop_columns))?;
            baseline.record_output(b.num_rows());
            Ok(b)
        });
        #[cfg(feature = "failpoints")]
        if crate::failpoint::claim(&self.description.table, partition) {
            let stream = crate::failpoint::fail_after_first(stream, self.description.table.clone());
            return Ok(Box::pin(RecordBatchStreamAdapter::new(
                self.schema.clone(),
                stream,
            )));
        }
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            self.schema.clone(),
            stream,
        )))
    }

    /// Planning counters, output rows and splits read per partition (also as
    /// `splits_read@<site>` under a session carrying a [`ReadSite`]), and the read's counters
    /// (row groups and pages skipped, rows filtered, key searches, file indexes) summed over
    /// partitions.
    fn metrics(&self) -> Option<MetricsSet> {
        let mut set = self.metrics.clone_inner();
        let Some(r) = self.read.metrics() else {
            return Some(set);
        };
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

/// Files each of a scan's `partitions` decodes at once: about one per core in all for a table
/// on local disk, twice that on an object store (where a file's fetch waits on the network).
/// DataFusion runs the partitions side by side, so more would only hold more decoded pages
/// in memory: on two cores a full scan of the 3M-row benchmark table ran about 20% faster with
/// one file per partition than with four (fewer fresh buffers faulted in).
fn files_in_flight(location: &str, partitions: usize) -> NonZeroUsize {
    let cores = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
    let per_partition = cores.div_ceil(partitions.max(1));
    let per_partition = if paimon_core::io::is_local_location(location) {
        per_partition
    } else {
        per_partition.saturating_mul(2)
    };
    NonZeroUsize::new(per_partition).unwrap_or(NonZeroUsize::MIN)
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

#[cfg(test)]
mod tests {
    use super::files_in_flight;

    #[test]
    fn about_one_file_per_core_on_local_disk_two_on_object_stores() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(files_in_flight("/wh/db.db/t", cores).get(), 1);
        assert_eq!(files_in_flight("file:///wh/db.db/t", 1).get(), cores);
        assert_eq!(files_in_flight("s3://b/wh/db.db/t", cores).get(), 2);
        assert_eq!(files_in_flight("/wh/db.db/t", 0).get(), cores);
        assert_eq!(files_in_flight("/wh/db.db/t", usize::MAX).get(), 1);
    }
}
