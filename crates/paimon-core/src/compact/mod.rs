//! Compaction: `table.compact()` → [`CompactBuilder`] → [`CompactReport`], and compaction on
//! write (`on_write`, from `TableWrite::prepare_commit` unless `write-only`).
//!
//! Primary-key tables, `full` (Java `FullCompactTrigger` / `MergeTreeCompactRewriter`, `pk`):
//! every live file of a (partition, bucket) merged by the table's engine through the read
//! path's k-way merge ([`crate::mergetree`]), retractions dropped, written at level
//! `num-levels - 1` with `_FILE_SOURCE = COMPACT`, sequence numbers kept. Buckets already a
//! single top-level file (without a deletion vector) are skipped.
//!
//! Primary-key tables, not `full`: Java 2.0's universal pick (`universal`) and
//! `MergeTreeCompactTask` (`rewrite`: upgrades without rewriting, retractions kept below the
//! highest non-empty level); deletion-vector and first-row tables get lookup compaction
//! (`lookup`): level-0 files move up, deletion vectors mark the superseded rows of higher
//! levels (first-row: keys already above are dropped).
//!
//! Append tables (Java `AppendCompactCoordinator`): the files of a bucket smaller than the
//! target file size (or with a deletion vector over `compaction.delete-ratio-threshold`) are
//! rewritten in sequence order, vectors applied, into target-size files when there are at
//! least `compaction.min.file-num` of them (any number with [`CompactBuilder::full`]); the
//! inputs' vectors are retired (`index`).
//!
//! Primary-key tables with deletion vectors are read merged on read (level 0 included,
//! deletion vectors applied); a compacted bucket's deletion-vector file and `pk-btree`
//! payloads are updated in the same snapshot (`index`).
//!
//! Postpone-bucket tables (`bucket = -2`, `postpone`): the rows of `bucket-postpone` are
//! moved into real buckets (the partition's bucket count, else `postpone.default-bucket-num`)
//! in one `COMPACT` snapshot.
//!
//! Not supported (clear `Unsupported` errors, mostly from the writer's own checks): changelog
//! producers other than `none`.

mod append;
mod index;
mod key_list;
mod key_set;
mod lookup;
pub(crate) mod on_write;
mod parallel;
mod pk;
mod postpone;
mod rewrite;
pub(crate) mod universal;
mod vectors;

use std::collections::{BTreeMap, HashMap};
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::sync::Arc;

use crate::catalog::Table;
use crate::commit::CommitMessage;
use crate::scan::{DataSplit, Split};
use crate::spec::manifest::DataFileMeta;
use crate::write::file_writer::FileSpec;
use crate::write::kv_layout::KvLayout;
use crate::Result;

use index::{IndexChanges, WrittenValues};

/// Rows of `files` (a bound of what compacting them writes).
fn rows_of(files: &[DataFileMeta]) -> u64 {
    files
        .iter()
        .map(|f| u64::try_from(f.row_count).unwrap_or(0))
        .sum()
}

/// `_FILE_SOURCE` of files written by compaction (Java `FileSource.COMPACT`).
pub const FILE_SOURCE_COMPACT: i8 = 1;

/// Configures one compaction of a table (see the [module docs](self)).
#[derive(Debug, Clone)]
pub struct CompactBuilder {
    table: Table,
    partitions: Option<Vec<HashMap<String, String>>>,
    bucket: Option<i32>,
    full: bool,
    commit_user: Option<String>,
    parallelism: Option<NonZeroUsize>,
    spill_dir: Option<PathBuf>,
}

/// What one bucket's compaction did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketCompaction {
    /// Partition column names and values as strings (`None` = null).
    pub partition_values: Vec<(String, Option<String>)>,
    /// Bucket id.
    pub bucket: i32,
    /// Files replaced.
    pub files_before: usize,
    /// Files written.
    pub files_after: usize,
    /// Rows written.
    pub rows_after: i64,
}

/// What [`CompactBuilder::execute`] did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CompactReport {
    /// The `COMPACT` snapshot written (`None` when nothing needed compaction).
    pub snapshot_id: Option<i64>,
    /// The buckets compacted.
    pub buckets: Vec<BucketCompaction>,
    /// Sorted runs the `pk-btree` payload builds spilled to local disk: 0 when every
    /// level's values fit in the builds' share of `write-buffer-size`.
    pub index_sort_spills: usize,
}

impl CompactBuilder {
    /// A compaction of every bucket of `table` (not forced to be full).
    pub fn new(table: Table) -> Self {
        CompactBuilder {
            table,
            partitions: None,
            bucket: None,
            full: false,
            commit_user: None,
            parallelism: None,
            spill_dir: None,
        }
    }

    /// Compacts only these partitions (column name → value string, as in
    /// [`TableScanBuilder::with_partition_filter`](crate::scan::TableScanBuilder::with_partition_filter)).
    #[must_use]
    pub fn with_partitions(mut self, partitions: Vec<HashMap<String, String>>) -> Self {
        self.partitions = Some(partitions);
        self
    }

    /// Compacts only `bucket`.
    #[must_use]
    pub fn with_bucket(mut self, bucket: i32) -> Self {
        self.bucket = Some(bucket);
        self
    }

    /// Forces a full compaction of every selected bucket (see the [module docs](self)).
    #[must_use]
    pub fn full(mut self, full: bool) -> Self {
        self.full = full;
        self
    }

    /// The commit user recorded in the snapshot (default: a random UUID).
    #[must_use]
    pub fn with_commit_user(mut self, user: impl Into<String>) -> Self {
        self.commit_user = Some(user.into());
        self
    }

    /// Buckets compacted at once (default: twice the available cores). A bucket's compaction
    /// hands batches between the runtime's decode tasks and its own thread (merge, encode,
    /// payloads) and waits on its file reads and writes; with one bucket per core the cores
    /// sat idle for about a tenth of a full compaction, which a second bucket per core fills.
    /// Each bucket holds an output row group, an input row group per sorted run and the
    /// batches decoded ahead, so memory grows with this number (the `pk-btree` payload sorts
    /// share `write-buffer-size` whatever it is).
    #[must_use]
    pub fn with_parallelism(mut self, n: NonZeroUsize) -> Self {
        self.parallelism = Some(n);
        self
    }

    /// Local directory under which the `pk-btree` payload builds spill sorted runs when a
    /// level's values exceed their share of `write-buffer-size` (default: the system temp
    /// dir). Each build uses a private directory inside it, removed when the build ends.
    pub fn with_spill_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.spill_dir = Some(dir.into());
        self
    }

    /// Compacts the selected buckets of the latest snapshot and commits one `COMPACT`
    /// snapshot. A concurrent change to a compacted bucket fails the commit with a conflict.
    pub async fn execute(self) -> Result<CompactReport> {
        let user = self
            .commit_user
            .clone()
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        if self.table.schema().has_primary_key()
            && self.table.options().bucket == crate::spec::options::BucketMode::Postpone
        {
            if self.partitions.is_some() || self.bucket.is_some() {
                return Err(crate::Error::unsupported(
                    "postpone-bucket compaction of selected partitions or buckets",
                ));
            }
            return postpone::compact(&self.table, &user).await;
        }
        let source = source_table(&self.table)?;
        let writer = source.new_write().with_commit_user(&user).build()?;
        let spec = writer.file_spec();
        let kv = writer.kv_layout();
        let (snapshot_id, buckets) = self.buckets(&source).await?;
        let parallelism = self.parallelism.map_or_else(
            || crate::blocking::default_parallelism().saturating_mul(2),
            NonZeroUsize::get,
        );
        let index = match kv.is_some() || self.table.options().deletion_vectors_enabled {
            true => Some(
                IndexChanges::new(
                    &self.table,
                    snapshot_id,
                    parallelism,
                    self.spill_dir.as_deref(),
                )
                .await?,
            ),
            false => None,
        };
        let cx = Arc::new(BucketCx {
            source,
            spec,
            kv,
            index,
            full: self.full,
        });
        let mut report = CompactReport::default();
        let mut messages = Vec::new();
        let kept_cx = cx.clone();
        for (bucket, message) in parallel::run(cx, buckets, parallelism)
            .await?
            .into_iter()
            .flatten()
        {
            report.buckets.push(bucket);
            messages.push(message);
        }
        report.index_sort_spills = kept_cx.index.as_ref().map_or(0, IndexChanges::sort_spills);
        if messages.is_empty() {
            return Ok(report);
        }
        let snapshots = self
            .table
            .new_commit()
            .commit_messages(&messages, &user)
            .await?;
        report.snapshot_id = snapshots.last().map(|s| s.id);
        Ok(report)
    }

    /// The planned snapshot and the live files of each selected (partition, bucket), as one
    /// split per bucket (files with their deletion files).
    pub(crate) async fn buckets(
        &self,
        source: &Table,
    ) -> Result<(Option<i64>, Vec<(DataSplit, Vec<DataFileMeta>)>)> {
        let mut scan = source.scan().with_option("global-index.enabled", "false");
        if let Some(p) = &self.partitions {
            scan = scan.with_partition_filter(p.clone());
        }
        if let Some(b) = self.bucket {
            scan = scan.with_bucket_filter(b);
        }
        let plan = scan.build()?.plan().await?;
        let mut groups: BTreeMap<(Vec<u8>, i32), DataSplit> = BTreeMap::new();
        for s in plan.splits {
            let Split::Data(d) = s;
            match groups.entry((d.partition.clone(), d.bucket)) {
                std::collections::btree_map::Entry::Vacant(v) => {
                    v.insert(d);
                }
                std::collections::btree_map::Entry::Occupied(mut o) => {
                    let g = o.get_mut();
                    g.files.extend(d.files);
                    g.deletion_files.extend(d.deletion_files);
                }
            }
        }
        let buckets = groups
            .into_values()
            .map(|mut d| {
                d.raw_convertible = false;
                d.row_ranges = None;
                let files = d.files.clone();
                (d, files)
            })
            .collect();
        Ok((plan.snapshot_id, buckets))
    }
}

/// What every bucket's compaction of one [`CompactBuilder::execute`] shares.
struct BucketCx {
    /// The table as compaction reads it ([`source_table`]).
    source: Table,
    /// Settings of the written files.
    spec: Arc<FileSpec>,
    /// The key-value layout (primary-key tables).
    kv: Option<Arc<KvLayout>>,
    /// Index state and payload builders (primary-key and deletion-vector tables).
    index: Option<IndexChanges>,
    /// [`CompactBuilder::full`].
    full: bool,
}

impl BucketCx {
    /// Compacts one bucket: its report line and commit message, `None` when nothing changed.
    async fn compact(
        &self,
        split: DataSplit,
        files: Vec<DataFileMeta>,
    ) -> Result<Option<(BucketCompaction, CommitMessage)>> {
        let source = &self.source;
        let max_level = source.options().num_levels() - 1;
        let mut picker = new_picker(source.options());
        let lookup = self.kv.is_some() && !self.full && lookup_compaction(source.options());
        let message = |before: Vec<DataFileMeta>, after: Vec<DataFileMeta>| {
            let mut m =
                CommitMessage::new(split.partition.clone(), split.bucket, split.total_buckets);
            m.compact_before = before;
            m.compact_after = after;
            m
        };
        let mut written = match &self.index {
            Some(index) => index.recorder(&source.schema().fields, rows_of(&split.files)),
            None => WrittenValues::default(),
        };
        if let (true, Some(kv), Some(index)) = (lookup, &self.kv, &self.index) {
            let out =
                lookup::compact_bucket(source, &self.spec, kv, &split, &mut picker, &mut written)
                    .await?;
            let Some(out) = out else { return Ok(None) };
            let line = BucketCompaction::of(&split, &out.before, &out.after);
            let mut m = message(out.before, out.after);
            let levels = (out.level, &out.changed_levels);
            index
                .apply_lookup(&mut m, &split, levels, out.dv_entry, Some(written))
                .await?;
            return Ok(Some((line, m)));
        }
        if let (false, Some(kv), Some(index)) = (self.full, &self.kv, &self.index) {
            let Some(job) = rewrite::plan_job(source, &split, &mut picker) else {
                return Ok(None);
            };
            let output = rewrite::Output {
                spec: &self.spec,
                kv,
            };
            let (before, after) = rewrite::compact_unit(source, &output, &job).await?;
            let line = BucketCompaction::of(&split, &before, &after);
            let mut changed: std::collections::BTreeSet<i32> =
                before.iter().map(|f| f.level).collect();
            changed.insert(job.output_level);
            let mut m = message(before, after);
            index
                .apply_lookup(&mut m, &split, (job.output_level, &changed), None, None)
                .await?;
            return Ok(Some((line, m)));
        }
        let out = match &self.kv {
            Some(kv) => {
                let output = (&self.spec, kv, &mut written);
                pk::compact_bucket(source, output, &split, files, self.full).await?
            }
            None => append::compact_bucket(source, &self.spec, &split, files, self.full).await?,
        };
        let Some((before, after)) = out else {
            return Ok(None);
        };
        let line = BucketCompaction::of(&split, &before, &after);
        let mut m = message(before, after);
        match (&self.index, &self.kv) {
            (Some(index), Some(_)) => index.apply(&mut m, &split, max_level, written).await?,
            (Some(index), None) => index.apply_append_dv(&mut m, &split, source).await?,
            (None, _) => {}
        }
        Ok(Some((line, m)))
    }
}

/// The table as compaction reads it: primary-key tables with deletion vectors are merged
/// on read (level 0 included, deletion vectors applied).
fn source_table(table: &Table) -> Result<Table> {
    let options = table.options();
    if !options.deletion_vectors_enabled || options.deletion_vectors_merge_on_read {
        return Ok(table.clone());
    }
    if !table.schema().has_primary_key() {
        return Ok(table.clone());
    }
    let mut o = HashMap::new();
    o.insert(
        "deletion-vectors.merge-on-read".to_string(),
        "true".to_string(),
    );
    table.with_options(&o)
}

impl BucketCompaction {
    fn of(split: &DataSplit, before: &[DataFileMeta], after: &[DataFileMeta]) -> Self {
        BucketCompaction {
            partition_values: split.partition_values.clone(),
            bucket: split.bucket,
            files_before: before.len(),
            files_after: after.len(),
            rows_after: after.iter().map(|f| f.row_count).sum(),
        }
    }
}

/// Whether a primary-key table compacts by lookup (`lookup`): deletion vectors or
/// first-row. Other lookup tables (`force-lookup`) are compacted fully (`rewrite::plan_job`).
fn lookup_compaction(options: &crate::spec::options::TableOptions) -> bool {
    options.deletion_vectors_enabled
        || options.merge_engine == crate::spec::options::MergeEngine::FirstRow
}

/// A picker for one bucket at the current time (local hour for off-peak hours).
fn new_picker(options: &crate::spec::options::TableOptions) -> universal::Picker {
    use chrono::Timelike;
    let now = chrono::Local::now();
    let hour = i32::try_from(now.hour()).unwrap_or(0);
    universal::Picker::new(options, hour, now.timestamp_millis())
}

/// Marks files written by compaction: `level`, `_FILE_SOURCE = COMPACT`.
fn as_compacted(mut files: Vec<DataFileMeta>, level: i32) -> Vec<DataFileMeta> {
    for f in &mut files {
        f.level = level;
        f.file_source = Some(FILE_SOURCE_COMPACT);
    }
    files
}

/// The rolling writer of compaction output into the bucket directory of `split`.
fn output_writer(
    spec: &std::sync::Arc<FileSpec>,
    split: &DataSplit,
    next_seq: i64,
) -> crate::write::file_writer::RollingWriter {
    crate::write::file_writer::RollingWriter::new(spec.clone(), split.bucket_path.clone(), next_seq)
}

impl Table {
    /// Starts a compaction of this table (see [`crate::compact`]).
    pub fn compact(&self) -> CompactBuilder {
        CompactBuilder::new(self.clone())
    }
}
