//! [`TableWrite`]: Arrow batches in, [`CommitMessage`]s out (Java `TableWriteImpl` over
//! `AbstractFileStoreWrite`): one writer per (partition, bucket), created on its first row.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::{Array, Int8Array, RecordBatch};
use arrow_schema::SchemaRef;

use super::conform::conform;
use super::cross_partition::CrossPartition;
use super::dynamic_bucket::DynamicBuckets;
use super::file_index::IndexPlan;
use super::file_writer::{FileSeries, FileSpec, RollingWriter};
use super::kv_layout::KvLayout;
use super::kv_merge::BufferMerge;
use super::kv_writer::KvWriter;
use super::parallel_flush::{buffers_to_free, flush_writers, FlushJob};
use super::parquet::parquet_schema;
use super::postpone;
use super::restore::{next_sequence_numbers, NextSequence};
use super::route::{bucket_dir, Routed, Router};
use super::route_ahead::{self, with_kinds, RouteAhead};
use super::row_kind::{kind_array, kinds_from_column, RowKind, RowKindFilter};
use super::spill::SpillFiles;
use super::stats::{StatsCollector, StatsColumn, StatsOrigin};
use super::support::check_supported;
use crate::arrow::schema::arrow_schema;
use crate::blocking::default_parallelism;
use crate::catalog::Table;
use crate::commit::CommitMessage;
use crate::compact::on_write::CompactOnWrite;
use crate::spec::manifest::DataFileMeta;
use crate::spec::options::{BucketMode, FileFormat};
use crate::{Error, Result};

/// The writer of one (partition, bucket).
enum BucketWriter {
    Append(RollingWriter),
    Kv(KvWriter),
    /// Postpone bucket: key-value rows in arrival order, unsorted and unmerged, sequence
    /// number -1 (Java `PostponeBucketWriter`).
    Postpone(RollingWriter),
}

/// Writes Arrow record batches into a table's data files and prepares the commit messages.
///
/// ```no_run
/// # async fn demo(batch: arrow_array::RecordBatch) -> paimon_core::Result<()> {
/// let table = paimon_core::Table::open("/warehouse/demo.db/orders").await?;
/// let mut write = table.new_write().with_commit_user("loader").build()?;
/// write.write(&batch).await?; // columns by name, checked against the table
/// let messages = write.prepare_commit().await?;
/// table.new_commit().commit_messages(&messages, write.commit_user()).await?;
/// # Ok(())
/// # }
/// ```
pub struct TableWrite {
    table: Table,
    commit_user: String,
    /// Arrow schema of the table columns (the schema batches are conformed to).
    target: SchemaRef,
    router: Arc<Router>,
    /// The last batch of a fixed-bucket table, routed on another core until the next call.
    ahead: RouteAhead,
    spec: Arc<FileSpec>,
    /// File settings of postpone-bucket writers (`None` unless `bucket = -2`).
    postpone_spec: Option<Arc<FileSpec>>,
    kv: Option<Arc<KvLayout>>,
    merge: Option<Arc<BufferMerge>>,
    writers: BTreeMap<BucketKey, BucketWriter>,
    restored: Option<NextSequence>,
    /// Bucket assignment and `HASH` index of dynamic-bucket primary-key tables.
    dynamic: Option<DynamicBuckets>,
    /// The key index of cross-partition tables (dynamic buckets, key without the partition).
    cross: Option<CrossPartition>,
    /// Where write buffers spill (`None`: the system temp dir).
    spill_dir: Option<PathBuf>,
    /// Rows dropped before the buffer (`ignore-delete`, `ignore-update-before`).
    kind_filter: Option<RowKindFilter>,
    /// Bucket directories of the writers (compaction on write writes there too).
    bucket_dirs: BTreeMap<(Vec<u8>, i32), String>,
    /// Compaction at `prepare_commit` unless `write-only` ([`crate::compact::on_write`]).
    compaction: CompactOnWrite,
    /// Primary-key bucket flushes run at once (`parallel_flush`; 1: one after another).
    flush_parallelism: usize,
    /// Set while bucket writers are out of `writers` for a flush; still set afterwards only
    /// when that flush never finished (its future dropped, or a task cancelled): the writer's
    /// sequence numbers are then unknown and every later call fails.
    flushing: bool,
    /// Set when the parts of a batch routed ahead could not all be buffered (an error, or a
    /// call cancelled while buffering them): rows of an accepted batch are missing, so every
    /// later call fails.
    lost_rows: bool,
}

/// Bucket writer key: (serialized partition, bucket).
type BucketKey = (Vec<u8>, i32);

impl std::fmt::Debug for TableWrite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableWrite")
            .field("table", &self.table.location())
            .field("commit_user", &self.commit_user)
            .field("writers", &self.writers.len())
            .finish_non_exhaustive()
    }
}

/// The statistics columns of every table column, at `offset` in the written batches.
fn value_stats(table: &Table, offset: usize, source: StatsOrigin) -> Result<StatsCollector> {
    let options = table.options();
    let fields = &table.schema().fields;
    let modes = fields
        .iter()
        .map(|f| options.stats_mode_of(&f.name))
        .collect::<Result<Vec<_>>>()?;
    let columns: Vec<StatsColumn<'_>> = fields
        .iter()
        .zip(modes)
        .enumerate()
        .map(|(i, (field, mode))| StatsColumn {
            field,
            position: offset + i,
            mode,
        })
        .collect();
    Ok(StatsCollector::new(
        &columns,
        options.metadata_stats_dense_store,
        source,
    ))
}

/// The settings every data file of `table`'s writers shares (`kv`: the primary-key layout).
fn file_spec(table: &Table, kv: Option<&Arc<KvLayout>>) -> Result<Arc<FileSpec>> {
    let schema = table.schema();
    let options = table.options().clone();
    let target = arrow_schema(&schema.fields)?;
    // Parquet and ORC footers keep no bounds for some types, ORC pads CHAR (see `stats`).
    let source = match options.file_format {
        FileFormat::Parquet => StatsOrigin::Parquet,
        FileFormat::Orc => StatsOrigin::Orc,
        _ => StatsOrigin::Values,
    };
    let fields = match kv {
        None => schema.fields.clone(),
        Some(kv) => kv.fields.clone(),
    };
    let (file_schema, value_stats, key_stats, key) = match kv {
        None => (
            parquet_schema(&target, &schema.fields),
            value_stats(table, 0, source)?,
            None,
            None,
        ),
        Some(kv) => {
            let key_fields: Vec<_> = kv.fields.iter().take(kv.file_key.positions.len()).collect();
            let key_mode = postpone::key_stats_mode(&options);
            let key_columns: Vec<StatsColumn<'_>> = key_fields
                .iter()
                .zip(&kv.file_key.positions)
                .map(|(field, &position)| StatsColumn {
                    field,
                    position,
                    mode: key_mode,
                })
                .collect();
            (
                kv.schema.clone(),
                value_stats(table, kv.value_offset(), source)?,
                Some(StatsCollector::new(&key_columns, false, source)),
                Some(kv.file_key.clone()),
            )
        }
    };
    Ok(Arc::new(FileSpec {
        io: table.file_io().clone(),
        options: options.clone(),
        schema_id: schema.id,
        schema: file_schema,
        file_index: IndexPlan::new(&options, &fields)?,
        fields,
        value_stats,
        key_stats,
        key,
        target_size: options.target_file_size(schema.has_primary_key()).bytes(),
    }))
}

impl TableWrite {
    pub(crate) fn new(
        table: Table,
        commit_user: String,
        spill_dir: Option<PathBuf>,
    ) -> Result<Self> {
        check_supported(&table)?;
        let schema = table.schema().clone();
        let options = table.options().clone();
        let target = arrow_schema(&schema.fields)?;
        let kv = match schema.has_primary_key() {
            true => Some(Arc::new(KvLayout::new(&schema, &options)?)),
            false => None,
        };
        let spec = file_spec(&table, kv.as_ref())?;
        // Postpone writers use Java's postpone file options; compaction of real buckets (the
        // `file_spec` below) uses the table's.
        let postpone_spec = match (&kv, options.bucket) {
            (Some(kv), BucketMode::Postpone) => Some(file_spec(
                &postpone::file_options(table.clone(), &commit_user)?,
                Some(kv),
            )?),
            _ => None,
        };
        let merge = match &kv {
            Some(kv) => Some(Arc::new(BufferMerge::new(&schema, options.clone(), kv)?)),
            None => None,
        };
        let kind_filter = RowKindFilter::of(&options);
        let router = Router::new(&table)?;
        let cross = match CrossPartition::applies(&table) {
            true => Some(CrossPartition::new(&table, &target)?),
            false => None,
        };
        let dynamic = match router.is_dynamic() && cross.is_none() {
            true => Some(DynamicBuckets::new(&table)?),
            false => None,
        };
        Ok(TableWrite {
            router: Arc::new(router),
            ahead: RouteAhead::default(),
            dynamic,
            cross,
            merge,
            table,
            commit_user,
            target,
            spec,
            postpone_spec,
            kv,
            writers: BTreeMap::new(),
            restored: None,
            spill_dir: spill_dir.clone(),
            kind_filter,
            bucket_dirs: BTreeMap::new(),
            compaction: CompactOnWrite::new(spill_dir),
            flush_parallelism: default_parallelism(),
            flushing: false,
            lost_rows: false,
        })
    }

    /// How many primary-key buckets flush at once (see [`WriteBuilder::with_flush_parallelism`](super::WriteBuilder::with_flush_parallelism)).
    pub(crate) fn set_flush_parallelism(&mut self, n: usize) {
        self.flush_parallelism = n.max(1);
    }

    /// The file settings of this table's data files (compaction writes through them).
    pub(crate) fn file_spec(&self) -> Arc<FileSpec> {
        self.spec.clone()
    }

    /// The primary-key file layout (`None` for append tables).
    pub(crate) fn kv_layout(&self) -> Option<Arc<KvLayout>> {
        self.kv.clone()
    }

    /// The commit user to pass to [`TableCommit::commit_messages`](crate::commit::TableCommit::commit_messages).
    pub fn commit_user(&self) -> &str {
        &self.commit_user
    }

    /// Writes `batch` as insertions (`+I`), or with the kinds of the `rowkind.field` column
    /// when the table sets that option.
    ///
    /// The batch must hold every table column by name with the table's Arrow type
    /// ([`crate::arrow::schema`]) and no nulls in NOT NULL columns; a mismatch is
    /// `InvalidArgument` naming the column, and nothing of the batch is written.
    ///
    /// In a fixed-bucket table a batch of 4,096 rows or more is split into its buckets on
    /// another core after this returns, while the caller prepares the next batch; its rows are
    /// buffered at the start of the next call (or of `prepare_commit`), which returns any
    /// failure doing so and leaves this `TableWrite` unusable (every later call fails: write
    /// the rows again with a new one).
    pub async fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let kinds = match &self.table.options().rowkind_field {
            Some(name) => kinds_from_column(batch, name)?,
            None => Int8Array::from(vec![0i8; batch.num_rows()]),
        };
        self.write_kinds(batch, kinds).await
    }

    /// Writes `batch` with one [`RowKind`] per row (`-U`/`-D` retract the key's previous
    /// version in primary-key tables; append tables accept `+I` only).
    pub async fn write_with_kinds(&mut self, batch: &RecordBatch, kinds: &[RowKind]) -> Result<()> {
        if kinds.len() != batch.num_rows() {
            return Err(Error::invalid_argument(format!(
                "{} row kinds for a batch of {} rows",
                kinds.len(),
                batch.num_rows()
            )));
        }
        self.write_kinds(batch, kind_array(kinds)).await
    }

    /// [`TableWrite::write_with_kinds`] with the kinds as `_VALUE_KIND` bytes (postpone
    /// compaction replays files through it).
    pub(crate) async fn write_kind_bytes(
        &mut self,
        batch: &RecordBatch,
        kinds: Int8Array,
    ) -> Result<()> {
        self.write_kinds(batch, kinds).await
    }

    async fn write_kinds(&mut self, batch: &RecordBatch, kinds: Int8Array) -> Result<()> {
        self.check_usable()?;
        self.buffer_routed().await?;
        // Java `TableWriteImpl`: rows of ignored kinds never reach a writer.
        let filtered = match &self.kind_filter {
            Some(f) => f.apply(batch, &kinds)?,
            None => None,
        };
        let (batch, kinds) = match &filtered {
            Some((b, k)) => (b, k.clone()),
            None => (batch, kinds),
        };
        // Null keys first: a NOT NULL key column would otherwise fail with the generic message.
        self.check_keys(batch, &kinds)?;
        let batch = conform(batch, &self.table.schema().fields, &self.target)?;
        let (batch, kinds) = postpone::drop_ignored_retracts(&self.table, batch, kinds)?;
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let parts = match (&mut self.dynamic, &mut self.cross) {
            (_, Some(cross)) => {
                let a = cross.assign(&self.router, &batch, &kinds).await?;
                if a.batch.num_rows() == 0 {
                    return Ok(());
                }
                let parts = Router::group(&a.batch, &a.partition_ids, a.partitions, &a.buckets)?;
                with_kinds(parts, &a.kinds)?
            }
            (None, None) => {
                if RouteAhead::applies(batch.num_rows(), self.flush_parallelism) {
                    return self.ahead.start(self.router.clone(), batch, kinds);
                }
                route_ahead::route(&self.router, &batch, &kinds)?
            }
            (Some(dynamic), None) => {
                let (ids, partitions) = self.router.partitions(&batch)?;
                let hashes = self.router.key_hashes(&batch)?;
                let buckets = dynamic.assign(&ids, &partitions, &hashes).await?;
                with_kinds(Router::group(&batch, &ids, partitions, &buckets)?, &kinds)?
            }
        };
        for (part, part_kinds) in parts {
            self.write_part(part, part_kinds).await?;
        }
        self.free_memory().await
    }

    /// Buffers the parts of the batch routed ahead, if any (see [`route_ahead`]). Any failure
    /// leaves this writer unusable (`lost_rows`): that batch's write already returned.
    async fn buffer_routed(&mut self) -> Result<()> {
        let Some(joined) = self.ahead.take().await else {
            return Ok(());
        };
        // Set before anything can fail or panic: the batch is out of `ahead` now.
        self.lost_rows = true;
        for (part, kinds) in route_ahead::parts(joined)? {
            self.write_part(part, kinds).await?;
        }
        self.free_memory().await?;
        self.lost_rows = false;
        Ok(())
    }

    /// Java's shared write-buffer pool: while the buffers of all buckets hold
    /// `write-buffer-size` or more, the largest frees its memory (spill or level-0 files).
    /// The buckets that loop would free, one after another, are freed together.
    async fn free_memory(&mut self) -> Result<()> {
        let limit =
            usize::try_from(self.table.options().write_buffer_size.bytes()).unwrap_or(usize::MAX);
        let sizes: Vec<(BucketKey, usize)> = self
            .writers
            .iter()
            .filter_map(|(key, w)| match w {
                BucketWriter::Kv(kv) => Some((key.clone(), kv.buffered_bytes())),
                _ => None,
            })
            .collect();
        let chosen = buffers_to_free(sizes, limit);
        if chosen.is_empty() {
            return Ok(());
        }
        self.flush_kv(chosen, FlushJob::Memory).await.map(|_| ())
    }

    /// Runs `job` on the primary-key writers of `keys` (`parallel_flush`) and puts them back;
    /// the files each returned, or the first error in `keys` order.
    async fn flush_kv(
        &mut self,
        keys: Vec<BucketKey>,
        job: FlushJob,
    ) -> Result<BTreeMap<BucketKey, Vec<DataFileMeta>>> {
        let mut taken = Vec::with_capacity(keys.len());
        for key in keys {
            match self.writers.remove(&key) {
                Some(BucketWriter::Kv(kv)) => taken.push((key, kv)),
                Some(other) => {
                    self.writers.insert(key, other);
                }
                None => {}
            }
        }
        self.flushing = true;
        let flushed = flush_writers(taken, job, self.flush_parallelism).await;
        let mut lost = false;
        let mut files = BTreeMap::new();
        let mut first_error = None;
        for (key, writer, result) in flushed {
            match writer {
                Some(w) => {
                    self.writers.insert(key.clone(), BucketWriter::Kv(w));
                }
                None => lost = true,
            }
            match result {
                Ok(f) => {
                    files.insert(key, f);
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        self.flushing = lost;
        match first_error {
            Some(e) => Err(e),
            None => Ok(files),
        }
    }

    /// Fails once a flush lost a bucket writer (see `flushing`) or rows of a routed batch
    /// were lost (`lost_rows`).
    fn check_usable(&self) -> Result<()> {
        if self.flushing {
            return Err(Error::internal(
                "an earlier flush of this TableWrite did not finish (cancelled); \
                 its buckets' state is unknown: build a new TableWrite and write the rows again",
            ));
        }
        if self.lost_rows {
            return Err(Error::internal(
                "rows of a batch this TableWrite accepted could not be buffered (see the error \
                 an earlier call returned): build a new TableWrite and write the rows again",
            ));
        }
        Ok(())
    }

    /// Primary-key columns must have no nulls; append tables take insertions only.
    fn check_keys(&self, batch: &RecordBatch, kinds: &Int8Array) -> Result<()> {
        let schema = self.table.schema();
        if !schema.has_primary_key() {
            if kinds.values().iter().any(|k| *k != 0) {
                return Err(Error::invalid_argument(
                    "an append table (no primary key) accepts only +I rows",
                ));
            }
            return Ok(());
        }
        if let Some(m) = &self.merge {
            m.check_retracts(kinds)?;
        }
        for name in &schema.primary_keys {
            let nulls = batch.column_by_name(name).map_or(0, |c| c.null_count());
            if nulls > 0 {
                return Err(Error::invalid_argument(format!(
                    "primary-key column '{name}' has {nulls} null value(s)"
                ))
                .with_context("column", name.clone()));
            }
        }
        Ok(())
    }

    async fn writer(&mut self, part: &Routed) -> Result<&mut BucketWriter> {
        let key = (part.partition.clone(), part.bucket);
        if !self.writers.contains_key(&key) {
            let next_seq = self.starting_sequence(&key).await?;
            let dir = bucket_dir(&self.table, &part.partition_dir, part.bucket);
            self.bucket_dirs.insert(key.clone(), dir.clone());
            let writer = match (&self.kv, &self.postpone_spec) {
                (None, _) => {
                    BucketWriter::Append(RollingWriter::new(self.spec.clone(), dir, next_seq))
                }
                (Some(_), Some(spec)) => {
                    BucketWriter::Postpone(RollingWriter::new(spec.clone(), dir, next_seq))
                }
                (Some(kv), None) => {
                    let merge = self
                        .merge
                        .clone()
                        .ok_or_else(|| Error::internal("primary-key table without a merge"))?;
                    let options = self.table.options().write_buffer.clone();
                    let spill = options.spillable.then(|| {
                        SpillFiles::new(self.spill_dir.clone(), options.spill_compression)
                    });
                    BucketWriter::Kv(KvWriter::new(
                        kv.clone(),
                        merge,
                        FileSeries::new(self.spec.clone(), dir, next_seq),
                        next_seq,
                        spill,
                        options,
                    ))
                }
            };
            self.writers.insert(key.clone(), writer);
        }
        self.writers
            .get_mut(&key)
            .ok_or_else(|| Error::internal("bucket writer missing"))
    }

    /// Java `startingMaxSequenceNumber` + 1: 0 for bucket-unaware and postpone-bucket tables
    /// (previous files ignored), else one more than the live maximum of the bucket (fixed and
    /// dynamic buckets).
    async fn starting_sequence(&mut self, key: &(Vec<u8>, i32)) -> Result<i64> {
        let restore = match self.table.options().bucket {
            BucketMode::Fixed(_) => true,
            BucketMode::Dynamic => self.dynamic.is_some() || self.cross.is_some(),
            BucketMode::Postpone => false,
        };
        if !restore {
            return Ok(0);
        }
        if self.restored.is_none() {
            self.restored = Some(next_sequence_numbers(&self.table).await?);
        }
        Ok(self
            .restored
            .as_ref()
            .and_then(|r| r.get(key).copied())
            .unwrap_or(0))
    }

    async fn write_part(&mut self, part: Routed, kinds: Int8Array) -> Result<()> {
        let layout = self.kv.clone();
        match self.writer(&part).await? {
            BucketWriter::Append(files) => files.write(&part.batch).await,
            BucketWriter::Kv(kv) => kv.write(part.batch, kinds),
            BucketWriter::Postpone(files) => {
                let layout = layout.ok_or_else(|| Error::internal("postpone without a key"))?;
                files
                    .write(&postpone::file_batch(&layout, &part.batch, kinds)?)
                    .await
            }
        }
    }

    /// Flushes every writer and returns one [`CommitMessage`] per (partition, bucket) with new
    /// files. The writer stays usable: later writes continue the sequence numbers and file
    /// counters (Java keeps writers across commits). On an error every bucket's buffered and
    /// spilled rows are discarded (their spill files removed) and the files a primary-key
    /// bucket wrote since the last call are left out of every later message (they stay on
    /// storage, uncommitted): write the rows again.
    ///
    /// Primary-key buckets are flushed concurrently (see
    /// [`WriteBuilder::with_flush_parallelism`](super::WriteBuilder::with_flush_parallelism));
    /// the error of a failed bucket is returned after the others have finished.
    ///
    /// Unless `write-only` is set, primary-key buckets with new files are then compacted as
    /// Java's batch writer does ([`crate::compact::on_write`]): the messages also carry the
    /// compaction (committed as an `APPEND` and a `COMPACT` snapshot). Postpone-bucket tables
    /// are not compacted on write (Java compacts them by a separate job).
    pub async fn prepare_commit(&mut self) -> Result<Vec<CommitMessage>> {
        self.check_usable()?;
        let result = self.flush_all().await;
        if result.is_err() {
            for w in self.writers.values_mut() {
                if let BucketWriter::Kv(kv) = w {
                    kv.discard();
                }
            }
        }
        result
    }

    async fn flush_all(&mut self) -> Result<Vec<CommitMessage>> {
        self.buffer_routed().await?;
        let total = self.router.total_buckets();
        let mut index = match &mut self.dynamic {
            Some(d) => d.prepare_commit().await?,
            None => BTreeMap::new(),
        };
        let kv_keys: Vec<BucketKey> = self
            .writers
            .iter()
            .filter(|(_, w)| matches!(w, BucketWriter::Kv(_)))
            .map(|(key, _)| key.clone())
            .collect();
        let mut kv_files = self.flush_kv(kv_keys, FlushJob::Commit).await?;
        let mut out = Vec::new();
        for ((partition, bucket), writer) in &mut self.writers {
            let files = match writer {
                BucketWriter::Append(files) | BucketWriter::Postpone(files) => {
                    files.flush().await?
                }
                BucketWriter::Kv(_) => kv_files
                    .remove(&(partition.clone(), *bucket))
                    .unwrap_or_default(),
            };
            let index_file = index.remove(&(partition.clone(), *bucket));
            if files.is_empty() && index_file.is_none() {
                continue;
            }
            let mut message = CommitMessage::new(partition.clone(), *bucket, total);
            message.new_files = files;
            message.new_index_files.extend(index_file);
            out.push(message);
        }
        // Index changes of buckets without a writer (keys noted, rows dropped).
        for ((partition, bucket), e) in index {
            let mut message = CommitMessage::new(partition, bucket, total);
            message.new_index_files.push(e);
            out.push(message);
        }
        let compact = !self.table.options().compaction.write_only && self.postpone_spec.is_none();
        if let (Some(kv), true) = (&self.kv, compact) {
            self.compaction
                .compact(
                    &self.table,
                    (&self.spec, kv),
                    &self.bucket_dirs,
                    &mut out,
                    self.flush_parallelism,
                )
                .await?;
        }
        Ok(out)
    }
}
