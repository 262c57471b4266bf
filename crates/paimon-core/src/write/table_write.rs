//! [`TableWrite`]: Arrow batches in, [`CommitMessage`]s out (Java `TableWriteImpl` over
//! `AbstractFileStoreWrite`): one writer per (partition, bucket), created on its first row.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_array::{Array, Int8Array, RecordBatch};
use arrow_schema::SchemaRef;
use arrow_select::take::take;

use super::conform::conform;
use super::file_index::IndexPlan;
use super::file_writer::{FileSpec, RollingWriter};
use super::kv_layout::KvLayout;
use super::kv_merge::BufferMerge;
use super::kv_writer::KvWriter;
use super::parquet::parquet_schema;
use super::restore::{next_sequence_numbers, NextSequence};
use super::route::{Routed, Router};
use super::row_kind::{kind_array, kinds_from_column, RowKind};
use super::stats::{StatsCollector, StatsColumn};
use super::support::check_supported;
use crate::arrow::schema::arrow_schema;
use crate::catalog::Table;
use crate::commit::CommitMessage;
use crate::compact::on_write::CompactOnWrite;
use crate::io::join;
use crate::mergetree::merge_function::is_retract;
use crate::spec::options::{BucketMode, FileFormat, MergeEngine, StatsMode};
use crate::{Error, Result};

/// The writer of one (partition, bucket).
enum BucketWriter {
    Append(RollingWriter),
    Kv(KvWriter),
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
    router: Router,
    spec: Arc<FileSpec>,
    kv: Option<Arc<KvLayout>>,
    merge: Option<Arc<BufferMerge>>,
    writers: BTreeMap<(Vec<u8>, i32), BucketWriter>,
    restored: Option<NextSequence>,
    /// Bucket directories of the writers (compaction on write writes there too).
    bucket_dirs: BTreeMap<(Vec<u8>, i32), String>,
    /// Compaction at `prepare_commit` unless `write-only` ([`crate::compact::on_write`]).
    compaction: CompactOnWrite,
}

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
fn value_stats(table: &Table, offset: usize, parquet: bool) -> Result<StatsCollector> {
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
        parquet,
    ))
}

impl TableWrite {
    pub(crate) fn new(table: Table, commit_user: String) -> Result<Self> {
        check_supported(&table)?;
        let schema = table.schema().clone();
        let options = table.options().clone();
        let target = arrow_schema(&schema.fields)?;
        // Parquet and ORC footers keep no bounds for some types (see `stats`).
        let parquet = matches!(options.file_format, FileFormat::Parquet | FileFormat::Orc);
        let kv = match schema.has_primary_key() {
            true => Some(Arc::new(KvLayout::new(&schema, &options)?)),
            false => None,
        };
        let fields = match &kv {
            None => schema.fields.clone(),
            Some(kv) => kv.fields.clone(),
        };
        let fields_for_index = fields.clone();
        let (file_schema, value_stats, key_stats, key) = match &kv {
            None => (
                parquet_schema(&target, &schema.fields),
                value_stats(&table, 0, parquet)?,
                None,
                None,
            ),
            Some(kv) => {
                let key_fields: Vec<_> =
                    kv.fields.iter().take(kv.file_key.positions.len()).collect();
                let key_columns: Vec<StatsColumn<'_>> = key_fields
                    .iter()
                    .zip(&kv.file_key.positions)
                    .map(|(field, &position)| StatsColumn {
                        field,
                        position,
                        mode: StatsMode::Truncate(128),
                    })
                    .collect();
                (
                    kv.schema.clone(),
                    value_stats(&table, kv.value_offset(), parquet)?,
                    Some(StatsCollector::new(&key_columns, false, parquet)),
                    Some(kv.file_key.clone()),
                )
            }
        };
        let spec = Arc::new(FileSpec {
            io: table.file_io().clone(),
            options: options.clone(),
            schema_id: schema.id,
            schema: file_schema,
            fields,
            value_stats,
            key_stats,
            key,
            target_size: options.target_file_size(schema.has_primary_key()).bytes(),
            file_index: IndexPlan::new(&options, &fields_for_index)?,
        });
        let merge = match (&kv, options.merge_engine) {
            (
                Some(kv),
                MergeEngine::PartialUpdate | MergeEngine::Aggregation | MergeEngine::FirstRow,
            ) => Some(Arc::new(BufferMerge::new(&schema, options.clone(), kv)?)),
            _ => None,
        };
        Ok(TableWrite {
            router: Router::new(&table)?,
            merge,
            table,
            commit_user,
            target,
            spec,
            kv,
            writers: BTreeMap::new(),
            restored: None,
            bucket_dirs: BTreeMap::new(),
            compaction: CompactOnWrite::default(),
        })
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

    async fn write_kinds(&mut self, batch: &RecordBatch, kinds: Int8Array) -> Result<()> {
        // Null keys first: a NOT NULL key column would otherwise fail with the generic message.
        self.check_keys(batch, &kinds)?;
        let batch = conform(batch, &self.table.schema().fields, &self.target)?;
        if batch.num_rows() == 0 {
            return Ok(());
        }
        for part in self.router.route(&batch)? {
            let part_kinds = match &part.rows {
                None => kinds.clone(),
                Some(rows) => kinds_for(&kinds, rows)?,
            };
            self.write_part(part, part_kinds).await?;
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
        if self.merge.is_some() && kinds.values().iter().any(|k| is_retract(*k)) {
            return Err(Error::unsupported(format!(
                "writing -U/-D rows into a '{}' table is not supported yet",
                self.table.options().merge_engine
            )));
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
            let mut dir = self.table.location().to_string();
            if let Some(d) = &self.table.options().data_file_path_directory {
                dir = join(&dir, d);
            }
            let dir = join(
                &dir,
                &format!("{}bucket-{}", part.partition_dir, part.bucket),
            );
            self.bucket_dirs.insert(key.clone(), dir.clone());
            let files = RollingWriter::new(self.spec.clone(), dir, next_seq);
            let writer = match &self.kv {
                None => BucketWriter::Append(files),
                Some(kv) => {
                    let options = self.table.options();
                    let limit =
                        usize::try_from(options.write_buffer_size.bytes()).unwrap_or(usize::MAX);
                    BucketWriter::Kv(KvWriter::new(
                        kv.clone(),
                        self.merge.clone(),
                        files,
                        next_seq,
                        options.ignore_delete,
                        limit,
                    ))
                }
            };
            self.writers.insert(key.clone(), writer);
        }
        self.writers
            .get_mut(&key)
            .ok_or_else(|| Error::internal("bucket writer missing"))
    }

    /// Java `startingMaxSequenceNumber` + 1: 0 for bucket-unaware tables, else one more than
    /// the live maximum of the bucket.
    async fn starting_sequence(&mut self, key: &(Vec<u8>, i32)) -> Result<i64> {
        if !matches!(self.table.options().bucket, BucketMode::Fixed(_)) {
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
        match self.writer(&part).await? {
            BucketWriter::Append(files) => files.write(&part.batch).await,
            BucketWriter::Kv(kv) => kv.write(part.batch, kinds).await,
        }
    }

    /// Flushes every writer and returns one [`CommitMessage`] per (partition, bucket) with new
    /// files. The writer stays usable: later writes continue the sequence numbers and file
    /// counters (Java keeps writers across commits).
    ///
    /// Unless `write-only` is set, primary-key buckets with new files are then compacted as
    /// Java's batch writer does ([`crate::compact::on_write`]): the messages also carry the
    /// compaction (committed as an `APPEND` and a `COMPACT` snapshot).
    pub async fn prepare_commit(&mut self) -> Result<Vec<CommitMessage>> {
        let total = self.router.total_buckets();
        let mut out = Vec::new();
        for ((partition, bucket), writer) in &mut self.writers {
            let files = match writer {
                BucketWriter::Append(files) => files.flush().await?,
                BucketWriter::Kv(kv) => kv.prepare_commit().await?,
            };
            if files.is_empty() {
                continue;
            }
            let mut message = CommitMessage::new(partition.clone(), *bucket, total);
            message.new_files = files;
            out.push(message);
        }
        if let (Some(kv), false) = (&self.kv, self.table.options().compaction.write_only) {
            self.compaction
                .compact(&self.table, (&self.spec, kv), &self.bucket_dirs, &mut out)
                .await?;
        }
        Ok(out)
    }
}

/// The kinds of one routed part, in the part's row order.
fn kinds_for(kinds: &Int8Array, rows: &arrow_array::UInt32Array) -> Result<Int8Array> {
    let taken = take(kinds, rows, None)?;
    taken
        .as_any()
        .downcast_ref::<Int8Array>()
        .cloned()
        .ok_or_else(|| Error::internal("row kinds are not Int8"))
}
