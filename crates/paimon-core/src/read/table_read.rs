//! [`TableRead`]: splits → a stream of Arrow record batches.
//!
//! Files (and merged splits) are read concurrently, bounded by the read's concurrency, in spawned
//! tasks that feed bounded channels, so memory stays bounded by (units in flight × channel depth
//! × batch size). By default batches come out as soon as any unit has one (no order across
//! units); [`TableRead::with_preserve_order`] keeps the plan's order at the cost of parallelism. Dropping the
//! stream stops the tasks. The residual predicate is applied to every batch; columns it needs
//! beyond the projection are read and dropped afterwards.
//!
//! Predicate pushdown (Java `MergeFileSplitRead` pushes only key filters into merged readers,
//! `docs/format.md` "Merge-on-read"): files read raw skip Parquet row groups by the whole
//! predicate. Files
//! of merged splits use only the conjuncts that reference nothing but primary-key columns
//! (every version of a key has the same key values, so a key failing them fails after the
//! merge too): (a) Parquet row groups are skipped by them, and (b) each sorted run is filtered
//! by them before merging, so a key group is never merged from a partial set of versions (a
//! skipped row group can hold versions of keys whose other versions sit in kept groups). The
//! whole predicate is still applied after the merge. A conjunct touching a non-key column is
//! never pushed below the merge: it could drop a key's latest version and resurrect an older
//! one. [`TableRead::metrics`] counts what was skipped.
//!
//! Selective Parquet reads ([`TableRead::with_selective`], on by default) use the same
//! predicate per file (whole for raw files, key conjuncts for merged ones): pages that cannot
//! match are skipped by the page index (`super::page_index`); in primary-key tables a predicate
//! bounding the leading key column is answered by a binary search of that column in each file
//! (`super::key_search`: raw files and each sorted run of a merge alike, as every data file is
//! sorted by key); and a likely selective predicate is decoded first so the other columns are
//! decoded only for the rows that pass, when the file shows it is selective (`super::late`; for
//! a merged file this filters each sorted run by its key conjuncts, which the run filter above
//! does anyway).
//!
//! Data-file indexes (`super::file_index`, `file-index.read.enabled`, on by default): a file read
//! raw has its index (embedded, else its `*.index` extra file) evaluated against the whole
//! predicate when it is opened; a file none of whose rows can match (after the deletion
//! vector) is not opened, and a bitmap answer narrows the row selection. Files of merged splits
//! are not narrowed (a value predicate below the merge could resurrect stale versions).

use std::collections::BTreeSet;
use std::num::NonZeroUsize;
use std::sync::Arc;

use arrow_array::{Array, RecordBatch};
use arrow_schema::SchemaRef;
use futures::stream::{self, BoxStream};
use futures::{StreamExt, TryStreamExt};
use tokio::sync::mpsc;

use crate::arrow::arrow_schema;
use crate::catalog::Table;
use crate::expr::{filter_batch, BoundPredicate};
use crate::mergetree::{LevelBatch, MergeFunction, MergePlan, SortMerge};
use crate::read::evolution::as_view;
use crate::read::file_index::IndexedFile;
use crate::read::file_reader::{open_data_file, DataFileRead, SelectiveRead};
use crate::read::format::FileFormat;
use crate::read::metrics::{ReadMetrics, ReadMetricsSnapshot};
use crate::read::row_group_pruning::row_group_filter;
use crate::scan::{DataSplit, Split};
use crate::spec::types::DataField;
use crate::{Error, Result};

mod file_extras;

/// Batches buffered per file in flight.
const CHANNEL_DEPTH: usize = 2;

/// Reads splits of one table.
#[derive(Debug, Clone)]
pub struct TableRead {
    table: Table,
    output: Vec<DataField>,
    /// Output fields plus fields only the predicate needs.
    read_fields: Vec<DataField>,
    predicate: Option<BoundPredicate>,
    /// The conjuncts of `predicate` on primary-key columns only (pushed below merges).
    key_predicate: Option<BoundPredicate>,
    limit: Option<usize>,
    batch_size: usize,
    concurrency: NonZeroUsize,
    preserve_order: bool,
    /// Merged retractions kept (Java `forceKeepDelete`).
    keep_delete: bool,
    /// Page-index pruning and late materialization of Parquet files (see [`SelectiveRead`]).
    selective: bool,
    /// The leading primary-key column (primary-key tables: every data file is sorted by it).
    sorted_key: Option<DataField>,
    /// Top-level string and binary columns as views ([`TableRead::with_string_views`]).
    string_views: bool,
    /// Set by [`TableRead::read`] when it opens one file only (opened on the caller's task,
    /// [`TableRead::spawn_file`]).
    only_file: bool,
    metrics: Arc<ReadMetrics>,
}

/// Which predicate may skip Parquet row groups of one file.
#[derive(Clone, Copy)]
enum RowGroupPruning<'a> {
    /// None.
    Off,
    /// The whole predicate (a file read raw).
    Raw(&'a BoundPredicate),
    /// Primary-key conjuncts only (a file of a merged split).
    Merge(&'a BoundPredicate),
}

impl TableRead {
    /// Reads all columns of `table`'s latest schema (users get a configured read from
    /// [`TableScan::reader`](crate::scan::TableScan::reader)).
    pub(crate) fn new(table: &Table) -> Self {
        let fields = table.schema().fields.clone();
        let schema = table.schema();
        let sorted_key = schema
            .trimmed_primary_keys()
            .first()
            .and_then(|k| schema.fields.iter().find(|f| &f.name == k))
            .cloned();
        let concurrency = NonZeroUsize::new(crate::blocking::default_parallelism())
            .map(|n| n.saturating_mul(NonZeroUsize::MIN.saturating_add(1)))
            .unwrap_or(NonZeroUsize::MIN);
        TableRead {
            table: table.clone(),
            output: fields.clone(),
            read_fields: fields,
            predicate: None,
            key_predicate: None,
            limit: None,
            batch_size: table.options().read_batch_size.get(),
            concurrency,
            preserve_order: false,
            keep_delete: false,
            selective: true,
            sorted_key,
            string_views: false,
            only_file: false,
            metrics: Arc::default(),
        }
    }

    /// The metadata columns this table offers: `_SEQUENCE_NUMBER` and `_VALUE_KIND` for
    /// primary-key tables, then `__paimon_file_path` and `__paimon_row_index` for every table.
    pub fn metadata_fields(&self) -> Vec<DataField> {
        self.table.schema().metadata_fields()
    }

    /// Keeps only `columns`, in that order. Besides table columns, the names of
    /// [`TableRead::metadata_fields`] are accepted.
    pub fn with_projection(self, columns: &[String]) -> Result<Self> {
        let fields = self.table.schema().project(columns)?;
        Ok(self.with_output_fields(fields))
    }

    /// Outputs exactly `fields` (already resolved against the table's schema).
    pub(crate) fn with_output_fields(mut self, fields: Vec<DataField>) -> Self {
        self.output = fields;
        self.update_read_fields();
        self
    }

    /// Applies `predicate` to rows.
    #[must_use]
    pub fn with_predicate(mut self, predicate: Option<BoundPredicate>) -> Self {
        self.predicate = predicate;
        self.update_read_fields();
        self.update_key_predicate();
        self
    }

    /// Adds the metadata columns ([`TableRead::metadata_fields`]) not yet in the output after
    /// the output columns (for debugging):
    ///
    /// - `_SEQUENCE_NUMBER`, `_VALUE_KIND` (row kind byte: 0 `+I`, 2 `+U`; also 1 `-U` and
    ///   3 `-D` with [`TableRead::with_keep_delete`]): primary-key tables;
    /// - `__paimon_file_path` (STRING): the location of the data file the row comes from;
    /// - `__paimon_row_index` (BIGINT): the row's 0-based physical position in that file,
    ///   counting every stored row (rows removed by deletion vectors or row ranges included).
    ///
    /// For a merged row all four describe the record that produced it: the latest version for
    /// `deduplicate`, the first non-retract one for `first-row`. For `partial-update` and
    /// `aggregation` (whose other columns may come from several records) the row is Java's
    /// `getResult`: `_VALUE_KIND` `+I` (`-D` for a deleted row, kept only with
    /// [`TableRead::with_keep_delete`]) and the `_SEQUENCE_NUMBER` of the group's last record
    /// (partial-update: the last one `ignore-delete` did not skip); the file path and row
    /// index are merged as values. A key with a single record is that record.
    pub fn with_metadata(mut self, on: bool) -> Result<Self> {
        if !on {
            return Ok(self);
        }
        for f in self.metadata_fields() {
            if !self.output.iter().any(|o| o.id == f.id) {
                self.output.push(f);
            }
        }
        self.update_read_fields();
        Ok(self)
    }

    /// Stops after `limit` rows.
    #[must_use]
    pub fn with_limit(mut self, limit: Option<usize>) -> Self {
        self.limit = limit;
        self
    }

    /// Emits batches in plan order (less parallel); by default they come as they are ready.
    #[must_use]
    pub fn with_preserve_order(mut self, preserve: bool) -> Self {
        self.preserve_order = preserve;
        self
    }

    /// Keeps deletions (Java `InnerTableRead#forceKeepDelete`, as the audit log reads): a key
    /// whose merged record is a retraction is emitted as that record (`_VALUE_KIND` 1 `-U` or
    /// 3 `-D`) instead of being dropped, and so is a lone retract record. Files read raw hold
    /// no retractions (a raw-readable split's files have no delete rows), so only merged
    /// splits change. Off by default.
    #[must_use]
    pub fn with_keep_delete(mut self, keep: bool) -> Self {
        self.keep_delete = keep;
        self
    }

    /// Turns selective Parquet reads on (the default) or off: pages skipped by the page index,
    /// key-sorted lookups in primary-key tables, and late materialization (predicate columns
    /// decoded first, the others only for the rows that pass), all by the predicate that may be
    /// evaluated on each file (the whole predicate for files read raw, the primary-key
    /// conjuncts for files of merged splits).
    /// Results are the same either way; off reads whole column chunks of the kept row groups.
    #[must_use]
    pub fn with_selective(mut self, on: bool) -> Self {
        self.selective = on;
        self
    }

    /// Sets how many files are decoded at once.
    #[must_use]
    pub fn with_concurrency(mut self, n: NonZeroUsize) -> Self {
        self.concurrency = n;
        self
    }

    /// Sets the batch size.
    #[must_use]
    pub fn with_batch_size(mut self, n: NonZeroUsize) -> Self {
        self.batch_size = n.get();
        self
    }

    /// Counters of skipped row groups and rows (shared with clones, cumulative).
    pub fn metrics(&self) -> ReadMetricsSnapshot {
        self.metrics.snapshot()
    }

    /// The conjuncts of the predicate that reference only primary-key columns, if any.
    pub fn key_predicate(&self) -> Option<&BoundPredicate> {
        self.key_predicate.as_ref()
    }

    fn update_key_predicate(&mut self) {
        let schema = self.table.schema();
        let keys: BTreeSet<i32> = match schema.fields_of(&schema.primary_keys) {
            Ok(f) if !f.is_empty() => f.iter().map(|f| f.id).collect(),
            _ => {
                self.key_predicate = None;
                return;
            }
        };
        let conjuncts = self
            .predicate
            .iter()
            .flat_map(BoundPredicate::split_and)
            .filter(|c| c.references_only(&keys));
        self.key_predicate = match BoundPredicate::and_all(conjuncts) {
            BoundPredicate::AlwaysTrue => None,
            p => Some(p),
        };
    }

    fn update_read_fields(&mut self) {
        let mut fields = self.output.clone();
        if let Some(p) = &self.predicate {
            for id in p.field_ids() {
                if !fields.iter().any(|f| f.id == id) {
                    if let Some(f) = self.table.schema().field_by_id(id) {
                        fields.push(f.clone());
                    }
                }
            }
        }
        self.read_fields = fields;
    }

    /// The Paimon fields of the batches this read produces.
    pub fn output_fields(&self) -> &[DataField] {
        &self.output
    }

    /// Outputs top-level STRING and BYTES columns as `Utf8View` / `BinaryView` instead of
    /// `Utf8` / `Binary` (off by default), as SQL engines read Parquet strings: scans of
    /// Parquet files read without a merge decode them straight into views, which refer to the
    /// page's bytes instead of copying them; everything else (merged rows, point reads, ORC,
    /// Avro, evolved columns, metadata columns) is converted after decoding.
    #[must_use]
    pub fn with_string_views(mut self, on: bool) -> Self {
        self.string_views = on;
        self
    }

    /// The schema of the batches this read produces.
    pub fn schema(&self) -> Result<SchemaRef> {
        let schema = arrow_schema(&self.output)?;
        Ok(if self.string_views {
            crate::arrow::view_schema(&schema)
        } else {
            schema
        })
    }

    /// Reads `splits` in order.
    ///
    /// Append splits and raw-readable primary-key splits are read file by file; other
    /// primary-key splits go through merge-on-read ([`crate::mergetree`]), one task per split,
    /// each of its sorted runs decoded ahead on a task of its own (decoding overlaps merging).
    pub fn read(&self, splits: Vec<Split>) -> Result<BoxStream<'static, Result<RecordBatch>>> {
        let pk = self.table.schema().has_primary_key();
        let merge_plan = if pk {
            Some(Arc::new(MergePlan::new(
                self.table.schema(),
                self.table.options(),
                &self.read_fields,
            )?))
        } else {
            None
        };
        let out_schema = self.schema()?;
        let views = self.string_views;
        let mut units: Vec<Unit> = Vec::new();
        for s in splits {
            let Split::Data(d) = s;
            match &merge_plan {
                Some(plan) if !d.is_raw_readable() => {
                    units.push(Unit::Merge(Arc::new(d), plan.clone()));
                }
                _ => {
                    let d = Arc::new(d);
                    units.extend((0..d.files.len()).map(|i| Unit::File(d.clone(), i)));
                }
            }
        }
        let mut this = self.clone();
        this.only_file = matches!(units.as_slice(), [Unit::File(..)]);
        let this = Arc::new(this);
        let reader = this.clone();
        let opened = stream::iter(units).map(move |u| {
            let reader = reader.clone();
            async move {
                match u {
                    Unit::File(split, i) => reader.spawn_file(split, i).await,
                    Unit::Merge(split, plan) => reader.spawn_merge(split, plan).await,
                }
            }
        });
        let n = this.concurrency.get();
        let batches: BoxStream<'static, Result<RecordBatch>> = if this.preserve_order {
            // In plan order: later units decode ahead only as far as their channels allow.
            opened.buffered(n).try_flatten().boxed()
        } else {
            // Up to `n` units decode fully in parallel; batches come out as they are ready.
            opened
                .then(|open| async move {
                    match open.await {
                        Ok(s) => s,
                        Err(e) => stream::once(async move { Err(e) }).boxed(),
                    }
                })
                .flatten_unordered(n)
                .boxed()
        };
        let projected = batches.and_then(move |b| {
            let out_schema = out_schema.clone();
            async move {
                let cols = b
                    .columns()
                    .get(..out_schema.fields().len())
                    .unwrap_or_default()
                    .iter()
                    .zip(out_schema.fields())
                    .map(|(c, f)| {
                        if views && c.data_type() != f.data_type() {
                            // A merged string column where views are wanted.
                            as_view(c.clone())
                        } else {
                            Ok(c.clone())
                        }
                    })
                    .collect::<Result<Vec<_>>>()?;
                Ok(RecordBatch::try_new(out_schema, cols)?)
            }
        });
        Ok(apply_limit(projected.boxed(), self.limit))
    }

    /// Spawns the merge of one split; returns the receiving end as a stream.
    async fn spawn_merge(
        self: Arc<Self>,
        split: Arc<DataSplit>,
        plan: Arc<MergePlan>,
    ) -> Result<BoxStream<'static, Result<RecordBatch>>> {
        let (tx, rx) = mpsc::channel::<Result<RecordBatch>>(CHANNEL_DEPTH);
        tokio::spawn(async move {
            let result = self.run_merge(&split, &plan, &tx).await;
            if let Err(e) = result {
                let _ = tx.send(Err(e)).await;
            }
        });
        Ok(tokio_stream_from(rx))
    }

    async fn run_merge(
        self: &Arc<Self>,
        split: &Arc<DataSplit>,
        plan: &Arc<MergePlan>,
        tx: &mpsc::Sender<Result<RecordBatch>>,
    ) -> Result<()> {
        let schema = arrow_schema(&plan.fields)?;
        for section in plan.sections(&split.files) {
            let runs = section
                .into_iter()
                .map(|run| {
                    let this = self.clone();
                    let split = split.clone();
                    let plan = plan.clone();
                    stream::iter(run)
                        .then(move |i| {
                            let this = this.clone();
                            let split = split.clone();
                            let plan = plan.clone();
                            async move {
                                let level = split.files.get(i).map_or(-1, |f| f.level);
                                let batches = this.open_run_file(&split, i, &plan).await?;
                                Ok::<_, Error>(
                                    batches.map_ok(move |batch| LevelBatch { batch, level }),
                                )
                            }
                        })
                        .try_flatten()
                        .boxed()
                })
                .map(decode_ahead)
                .collect();
            let function = MergeFunction::new(
                self.table.options(),
                &plan.fields,
                &plan.all_keys,
                &plan.layout.user_seq,
            )?;
            let mut merge = SortMerge::with_levels(
                &schema,
                plan.layout.clone(),
                function,
                runs,
                self.batch_size,
            )?
            .with_lookup(plan.lookup)
            .with_keep_retracts(self.keep_delete);
            while let Some(b) = merge.next_batch().await? {
                let cols = b
                    .columns()
                    .get(..self.read_fields.len())
                    .unwrap_or_default()
                    .to_vec();
                let fields: Vec<_> = b
                    .schema()
                    .fields()
                    .iter()
                    .take(self.read_fields.len())
                    .cloned()
                    .collect();
                let b = RecordBatch::try_new(Arc::new(arrow_schema::Schema::new(fields)), cols)?;
                let b = self.filter(b)?;
                if b.num_rows() > 0 && tx.send(Ok(b)).await.is_err() {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// Spawns the decoding of one file; returns the receiving end as a stream.
    ///
    /// The read's only file is opened on the caller's task instead (footer, page index, key
    /// search and the point read of a lookup): the caller only waits for it, and every hand-over
    /// between threads adds a thread's wake-up to a lookup's time. Its batches are still decoded
    /// on a task of their own, unless they are decoded already (a point read's).
    async fn spawn_file(
        self: Arc<Self>,
        split: Arc<DataSplit>,
        index: usize,
    ) -> Result<BoxStream<'static, Result<RecordBatch>>> {
        if self.only_file {
            let (s, in_memory) = self.open_file(&split, index).await?;
            if in_memory {
                let filtered = s
                    .map(move |b| b.and_then(|b| self.filter(b)))
                    .try_filter(|b| futures::future::ready(b.num_rows() > 0));
                return Ok(filtered.boxed());
            }
            let (tx, rx) = mpsc::channel::<Result<RecordBatch>>(CHANNEL_DEPTH);
            tokio::spawn(self.forward(s, tx));
            return Ok(tokio_stream_from(rx));
        }
        let (tx, rx) = mpsc::channel::<Result<RecordBatch>>(CHANNEL_DEPTH);
        tokio::spawn(async move {
            match self.open_file(&split, index).await {
                Ok((s, _)) => self.forward(s, tx).await,
                Err(e) => {
                    let _ = tx.send(Err(e)).await;
                }
            }
        });
        Ok(tokio_stream_from(rx))
    }

    /// Sends the batches of `s` (filtered, empty ones left out) to `tx` until it ends, fails or
    /// the receiver is gone.
    async fn forward(
        self: Arc<Self>,
        mut s: BoxStream<'static, Result<RecordBatch>>,
        tx: mpsc::Sender<Result<RecordBatch>>,
    ) {
        while let Some(item) = s.next().await {
            let item = item.and_then(|b| self.filter(b));
            let stop = item.is_err();
            match item {
                Ok(b) if b.num_rows() == 0 => continue,
                other => {
                    if tx.send(other).await.is_err() || stop {
                        return;
                    }
                }
            }
        }
    }

    fn filter(&self, batch: RecordBatch) -> Result<RecordBatch> {
        match &self.predicate {
            None => Ok(batch),
            Some(p) => {
                let mask = filter_batch(p, &batch, &self.read_fields)?;
                if mask.null_count() == 0 && mask.true_count() == batch.num_rows() {
                    return Ok(batch);
                }
                Ok(arrow_select::filter::filter_record_batch(&batch, &mask)?)
            }
        }
    }

    async fn open_file(
        &self,
        split: &DataSplit,
        index: usize,
    ) -> Result<(BoxStream<'static, Result<RecordBatch>>, bool)> {
        let pruning = self
            .predicate
            .as_ref()
            .map_or(RowGroupPruning::Off, RowGroupPruning::Raw);
        self.open_file_as(split, index, &self.read_fields, pruning, self.string_views)
            .await
    }

    /// Opens file `index` of `split` as part of a sorted run of `plan`: row groups are pruned
    /// and rows filtered by the key predicate only.
    async fn open_run_file(
        &self,
        split: &DataSplit,
        index: usize,
        plan: &Arc<MergePlan>,
    ) -> Result<BoxStream<'static, Result<RecordBatch>>> {
        let Some(keys) = self.key_predicate.clone() else {
            return Ok(self
                .open_file_as(split, index, &plan.fields, RowGroupPruning::Off, false)
                .await?
                .0);
        };
        let (batches, _) = self
            .open_file_as(
                split,
                index,
                &plan.fields,
                RowGroupPruning::Merge(&keys),
                false,
            )
            .await?;
        let (plan, metrics) = (plan.clone(), self.metrics.clone());
        Ok(batches
            .map(move |b| {
                let b = b?;
                let mask = filter_batch(&keys, &b, &plan.fields)?;
                let kept = mask.true_count();
                if kept == b.num_rows() {
                    return Ok(b);
                }
                metrics.add_rows_dropped_before_merge((b.num_rows() - kept) as u64);
                Ok(arrow_select::filter::filter_record_batch(&b, &mask)?)
            })
            .boxed())
    }

    /// Opens file `index` of `split` decoding `fields`, skipping Parquet row groups by
    /// `pruning`; `string_views`: string and binary columns as views. With the batches, whether
    /// they are decoded already (held in memory).
    async fn open_file_as(
        &self,
        split: &DataSplit,
        index: usize,
        fields: &[DataField],
        pruning: RowGroupPruning<'_>,
        string_views: bool,
    ) -> Result<(BoxStream<'static, Result<RecordBatch>>, bool)> {
        let file = split
            .files
            .get(index)
            .ok_or_else(|| Error::internal("file index out of range"))?;
        let location = split.file_location(file);
        let file_schema = self.table.snapshot_manager().schema(file.schema_id).await?;
        let deleted_rows = match split.deletion_files.get(index).and_then(Option::as_ref) {
            Some(df) => Some(Arc::new(
                self.load_deletion_vector(df, file.row_count).await?,
            )),
            None => None,
        };
        let mut row_ranges = split
            .row_ranges
            .as_ref()
            .and_then(|r| r.get(index).cloned().flatten());
        if let RowGroupPruning::Raw(p) = pruning {
            let file = IndexedFile {
                location: &location,
                meta: file,
                fields: &file_schema.fields,
            };
            match self
                .apply_file_index(file, p, row_ranges, deleted_rows.as_deref())
                .await?
            {
                Some(ranges) => row_ranges = ranges,
                None => return Ok((stream::empty().boxed(), true)),
            }
        }
        let read = DataFileRead {
            location: location.clone(),
            file_size: u64::try_from(file.file_size).ok(),
            format: FileFormat::from_file_name(&file.file_name)?,
            file_fields: file_schema.fields.clone(),
            read_fields: fields.to_vec(),
            batch_size: self.batch_size,
            row_ranges,
            deleted_rows,
            // A file read raw (no merge) may skip row groups by any column: its rows are
            // independent of each other. Merged files only by key columns (a value column
            // could skip a key's latest version and resurrect a stale one).
            row_group_filter: self.row_group_filter(pruning, &file_schema.fields),
            selective: self.selective_read(pruning),
            string_views,
        };
        open_data_file(self.table.file_io(), read).await
    }

    fn row_group_filter(
        &self,
        pruning: RowGroupPruning<'_>,
        file_fields: &[DataField],
    ) -> Option<crate::read::RowGroupFilter> {
        let (p, merge) = match pruning {
            RowGroupPruning::Off => return None,
            RowGroupPruning::Raw(p) => (p, false),
            RowGroupPruning::Merge(p) => (p, true),
        };
        let f = row_group_filter(p, file_fields, &self.table.schema().fields)?;
        Some(self.metrics.counting(f, merge))
    }

    fn selective_read(&self, pruning: RowGroupPruning<'_>) -> Option<SelectiveRead> {
        let predicate = match pruning {
            _ if !self.selective => return None,
            RowGroupPruning::Off => return None,
            RowGroupPruning::Raw(p) | RowGroupPruning::Merge(p) => p,
        };
        Some(SelectiveRead {
            predicate: predicate.clone(),
            current_fields: self.table.schema().fields.clone().into(),
            late_materialization: true,
            sorted_key: self.sorted_key.clone(),
            metrics: self.metrics.clone(),
        })
    }
}

/// One unit of reading work: a file read raw, or a split merged.
enum Unit {
    File(Arc<DataSplit>, usize),
    Merge(Arc<DataSplit>, Arc<MergePlan>),
}

/// Decodes a sorted run on its own task, a few batches ahead of the merge consuming it.
fn decode_ahead<T: Send + 'static>(
    mut run: BoxStream<'static, Result<T>>,
) -> BoxStream<'static, Result<T>> {
    let (tx, rx) = mpsc::channel::<Result<T>>(CHANNEL_DEPTH);
    tokio::spawn(async move {
        while let Some(item) = run.next().await {
            let stop = item.is_err();
            if tx.send(item).await.is_err() || stop {
                return;
            }
        }
    });
    tokio_stream_from(rx)
}

fn tokio_stream_from<T: Send + 'static>(
    mut rx: mpsc::Receiver<Result<T>>,
) -> BoxStream<'static, Result<T>> {
    stream::poll_fn(move |cx| rx.poll_recv(cx)).boxed()
}

fn apply_limit(
    s: BoxStream<'static, Result<RecordBatch>>,
    limit: Option<usize>,
) -> BoxStream<'static, Result<RecordBatch>> {
    let Some(limit) = limit else { return s };
    s.scan(0usize, move |seen, item| {
        let out = match item {
            Err(e) => Some(Err(e)),
            Ok(_) if *seen >= limit => None,
            Ok(b) => {
                let take = (limit - *seen).min(b.num_rows());
                *seen += take;
                Some(Ok(b.slice(0, take)))
            }
        };
        futures::future::ready(out)
    })
    .boxed()
}
