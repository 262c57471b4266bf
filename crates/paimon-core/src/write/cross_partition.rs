//! Cross-partition updates: primary-key tables with `bucket = -1` whose primary key lacks a
//! partition field (Java `BucketMode.KEY_DYNAMIC`: `GlobalIndexAssigner`, `IndexBootstrap`,
//! `BucketAssigner`, the `ExistingProcessor`s, Paimon 2.0), as one writer task (one assigner
//! owning every bucket).
//!
//! Before the first row, the key index (trimmed primary key → (partition, bucket)) is
//! bootstrapped from the latest snapshot: every split's trimmed primary-key and partition
//! columns are read (merged, every level; `cross-partition-upsert.bootstrap-parallelism`
//! splits at once; with `cross-partition-upsert.index-ttl`, buckets whose files are all older
//! than the TTL are left out) and each key counts in its bucket. Then, per row in arrival
//! order:
//!
//! - a known key in the same partition goes to its bucket;
//! - a known key in another partition is handled by the merge engine: `deduplicate` writes a
//!   `-D` of the new row with the old partition's values into the old (partition, bucket)
//!   (its bucket count drops by one) and the row as a new key; `partial-update` and
//!   `aggregation` write the row into the old partition and bucket (the partition values are
//!   replaced); `first-row` drops the row;
//! - a new key takes the first bucket (ascending ids) of its partition holding fewer than
//!   `dynamic-bucket.target-row-num` keys, else the smallest unused bucket id.
//!
//! The index lives as long as the writer, so later commits of the same writer see its keys.
//! Java's bulk-load shortcut for an empty table (only the last row of a key is written at all)
//! is not taken; reads return the same rows. No `HASH` index files are written (Java writes
//! them for `HASH_DYNAMIC` only).

use std::collections::{BTreeMap, HashMap};

use arrow_array::{Array, ArrayRef, Int8Array, RecordBatch, UInt32Array};
use arrow_cast::cast;
use arrow_row::{RowConverter, Rows, SortField};
use arrow_schema::{DataType as ArrowType, SchemaRef};
use arrow_select::interleave::interleave;
use arrow_select::take::take;
use futures::{StreamExt, TryStreamExt};

use super::route::{Partition, Router};
use super::row_kind::RowKind;
use crate::catalog::Table;
use crate::spec::manifest::DataFileMeta;
use crate::spec::options::{MergeEngine, DELETION_VECTORS_MERGE_ON_READ};
use crate::{Error, Result};

/// Trimmed primary key (arrow-row bytes) → (partition id, bucket).
type KeyIndex = HashMap<Box<[u8]>, (u32, i32)>;

/// What happens to a row whose key lives in another partition (Java `ExistingProcessor`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Existing {
    /// `deduplicate`: retract the old row, write the new one (`DeleteExistingProcessor`).
    Delete,
    /// `partial-update`, `aggregation`: write into the old partition (`UseOldExistingProcessor`).
    UseOld,
    /// `first-row`: drop the new row (`SkipNewExistingProcessor`).
    SkipNew,
}

/// One partition the index knows: its row and directory, and its values as one-row arrays
/// (to set a row's partition columns).
#[derive(Debug)]
struct PartInfo {
    partition: Partition,
    values: Vec<ArrayRef>,
}

/// Rows of a batch after assignment: the batch to route (rows may be added, dropped or moved
/// to another partition), their kinds, partition groups and buckets.
#[derive(Debug)]
pub(crate) struct Assigned {
    pub batch: RecordBatch,
    pub kinds: Int8Array,
    pub partition_ids: Vec<usize>,
    pub partitions: Vec<Partition>,
    pub buckets: Vec<i32>,
}

/// The key index and bucket assigner of one [`TableWrite`](super::TableWrite) on a
/// cross-partition table.
#[derive(Debug)]
pub(crate) struct CrossPartition {
    table: Table,
    existing: Existing,
    /// `ignore-delete`: the retraction of a moved key is dropped by Java's writer too.
    ignore_delete: bool,
    target_row_num: i64,
    /// Positions of the trimmed primary-key columns in the table's columns.
    key_positions: Vec<usize>,
    key_types: Vec<ArrowType>,
    key_converter: RowConverter,
    /// Key → (partition id, bucket); `None` until bootstrapped.
    index: Option<KeyIndex>,
    parts: Vec<PartInfo>,
    part_ids: HashMap<Vec<u8>, u32>,
    /// Keys per bucket of every partition (Java `BucketAssigner`).
    counts: HashMap<u32, BTreeMap<i32, i64>>,
}

impl CrossPartition {
    /// Whether `table` needs cross-partition updates (Java `KEY_DYNAMIC`).
    pub(crate) fn applies(table: &Table) -> bool {
        let schema = table.schema();
        schema.has_primary_key()
            && table.options().bucket == crate::spec::options::BucketMode::Dynamic
            && schema
                .partition_keys
                .iter()
                .any(|p| !schema.primary_keys.contains(p))
    }

    /// The assigner of `table` (batches in the table's column order, `target` types).
    pub(crate) fn new(table: &Table, target: &SchemaRef) -> Result<Self> {
        let schema = table.schema();
        let options = table.options();
        let existing = match options.merge_engine {
            MergeEngine::Deduplicate => Existing::Delete,
            MergeEngine::PartialUpdate | MergeEngine::Aggregation => Existing::UseOld,
            MergeEngine::FirstRow => Existing::SkipNew,
        };
        let key_positions = schema
            .trimmed_primary_keys()
            .iter()
            .map(|k| {
                schema
                    .fields
                    .iter()
                    .position(|f| &f.name == k)
                    .ok_or_else(|| Error::internal(format!("key column '{k}' missing")))
            })
            .collect::<Result<Vec<_>>>()?;
        let key_types: Vec<ArrowType> = key_positions
            .iter()
            .map(|&p| target.field(p).data_type().clone())
            .collect();
        let key_converter =
            RowConverter::new(key_types.iter().cloned().map(SortField::new).collect())?;
        Ok(CrossPartition {
            table: table.clone(),
            existing,
            ignore_delete: options.ignore_delete,
            target_row_num: options.dynamic_bucket_target_row_num,
            key_positions,
            key_types,
            key_converter,
            index: None,
            parts: Vec::new(),
            part_ids: HashMap::new(),
            counts: HashMap::new(),
        })
    }

    /// The id of every group of `partitions`, registering new ones (`columns`: the partition
    /// columns of the rows, `ids`: each row's group).
    fn register(
        &mut self,
        columns: &[ArrayRef],
        ids: &[usize],
        partitions: Vec<Partition>,
    ) -> Result<Vec<u32>> {
        let mut first_row = vec![usize::MAX; partitions.len()];
        for (row, &g) in ids.iter().enumerate() {
            if let Some(slot) = first_row.get_mut(g) {
                if *slot == usize::MAX {
                    *slot = row;
                }
            }
        }
        partitions
            .into_iter()
            .zip(first_row)
            .map(|(partition, row)| {
                if let Some(&id) = self.part_ids.get(&partition.0) {
                    return Ok(id);
                }
                let id = u32::try_from(self.parts.len())
                    .map_err(|_| Error::internal("too many partitions"))?;
                let values = columns.iter().map(|c| c.slice(row, 1)).collect();
                self.part_ids.insert(partition.0.clone(), id);
                self.parts.push(PartInfo { partition, values });
                Ok(id)
            })
            .collect()
    }

    fn keys(&self, columns: &[ArrayRef]) -> Result<Rows> {
        Ok(self.key_converter.convert_columns(columns)?)
    }

    /// Reads the latest snapshot's keys into the index (Java `IndexBootstrap`).
    async fn bootstrap(&mut self, router: &Router) -> Result<()> {
        let schema = self.table.schema().clone();
        let partition_keys = schema.partition_keys.clone();
        let key_names = schema.trimmed_primary_keys();
        let mut columns = key_names.clone();
        columns.extend(partition_keys.iter().cloned());
        let options = self.table.options();
        let mut builder = self.table.scan().select(columns)?;
        if options.deletion_vectors_enabled {
            // Every level holds keys (Java `withLevelFilter(level -> true)`).
            builder = builder.with_option(DELETION_VECTORS_MERGE_ON_READ, "true");
        }
        let scan = builder.build()?;
        let mut splits = scan.plan().await?.splits;
        if let Some(ttl) = options.cross_partition.index_ttl {
            let ttl = i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
            let now = chrono::Local::now()
                .naive_local()
                .and_utc()
                .timestamp_millis();
            splits.retain(|s| within_ttl(&s.as_data().files, ttl, now));
        }
        let read = scan.reader();
        let parallelism = options.cross_partition.bootstrap_parallelism.max(1);
        let mut batches = futures::stream::iter(splits.into_iter().map(|split| {
            let bucket = split.as_data().bucket;
            let stream = read.read(vec![split]);
            async move {
                let batches: Vec<RecordBatch> = stream?.try_collect().await?;
                Ok::<_, Error>((bucket, batches))
            }
        }))
        .buffer_unordered(parallelism);
        let mut index = HashMap::new();
        while let Some(next) = batches.next().await {
            let (bucket, read) = next?;
            for batch in read {
                self.bootstrap_batch(router, &mut index, &batch, bucket, &key_names)?;
            }
        }
        self.index = Some(index);
        Ok(())
    }

    fn bootstrap_batch(
        &mut self,
        router: &Router,
        index: &mut KeyIndex,
        batch: &RecordBatch,
        bucket: i32,
        key_names: &[String],
    ) -> Result<()> {
        let schema = self.table.schema().clone();
        let column = |name: &String, ty: Option<&ArrowType>| -> Result<ArrayRef> {
            let c = batch
                .column_by_name(name)
                .ok_or_else(|| Error::internal(format!("bootstrap column '{name}' missing")))?;
            match ty {
                Some(t) if c.data_type() != t => Ok(cast(c, t)?),
                _ => Ok(c.clone()),
            }
        };
        let key_columns = key_names
            .iter()
            .zip(&self.key_types)
            .map(|(n, t)| column(n, Some(t)))
            .collect::<Result<Vec<_>>>()?;
        let part_columns = schema
            .partition_keys
            .iter()
            .map(|n| column(n, None))
            .collect::<Result<Vec<_>>>()?;
        let (ids, partitions) = router.partitions_of(&part_columns, batch.num_rows())?;
        let part_ids = self.register(&part_columns, &ids, partitions)?;
        let keys = self.keys(&key_columns)?;
        for (row, g) in ids.iter().enumerate() {
            let pid = part_ids
                .get(*g)
                .copied()
                .ok_or_else(|| Error::internal("partition group missing"))?;
            let key: Box<[u8]> = keys.row(row).as_ref().into();
            if index.insert(key, (pid, bucket)).is_some() {
                // Java's bulk load fails on a duplicate key the same way.
                return Err(Error::data_invalid(
                    "a primary key of this cross-partition table is stored in two buckets \
                     (written by more than one job?)",
                )
                .with_context("table", self.table.location().to_string())
                .with_context("bucket", bucket.to_string()));
            }
            *self
                .counts
                .entry(pid)
                .or_default()
                .entry(bucket)
                .or_insert(0) += 1;
        }
        Ok(())
    }

    fn assign_bucket(&mut self, pid: u32) -> i32 {
        assign(&mut self.counts, pid, self.target_row_num)
    }

    /// Assigns every row of `batch` (table columns, target types) a (partition, bucket) as
    /// Java's `GlobalIndexAssigner#processInput` does, adding retractions of moved keys.
    pub(crate) async fn assign(
        &mut self,
        router: &Router,
        batch: &RecordBatch,
        kinds: &Int8Array,
    ) -> Result<Assigned> {
        if self.index.is_none() {
            self.bootstrap(router).await?;
        }
        let part_columns: Vec<ArrayRef> = router
            .partition_positions()
            .iter()
            .map(|&p| batch.column(p).clone())
            .collect();
        let (ids, partitions) = router.partitions_of(&part_columns, batch.num_rows())?;
        let row_parts = self.register(&part_columns, &ids, partitions)?;
        let key_columns: Vec<ArrayRef> = self
            .key_positions
            .iter()
            .map(|&p| batch.column(p).clone())
            .collect();
        let keys = self.keys(&key_columns)?;
        let mut index = self.index.take().unwrap_or_default();
        // Output rows: (source row, partition id, bucket, kind).
        let mut out: Vec<(u32, u32, i32, i8)> = Vec::with_capacity(batch.num_rows());
        let mut moved = false;
        for (row, g) in ids.iter().enumerate() {
            let pid = row_parts
                .get(*g)
                .copied()
                .ok_or_else(|| Error::internal("partition group missing"))?;
            let kind = kinds.value(row);
            let key = keys.row(row);
            let src = row as u32;
            match index.get(key.as_ref()).copied() {
                Some((old, bucket)) if old == pid => out.push((src, pid, bucket, kind)),
                Some((old, bucket)) => {
                    moved = true;
                    match self.existing {
                        Existing::Delete => {
                            if !self.ignore_delete {
                                out.push((src, old, bucket, RowKind::Delete.to_byte()));
                            }
                            if let Some(c) =
                                self.counts.get_mut(&old).and_then(|m| m.get_mut(&bucket))
                            {
                                *c -= 1;
                            }
                            let b = self.assign_bucket(pid);
                            index.insert(key.as_ref().into(), (pid, b));
                            out.push((src, pid, b, kind));
                        }
                        Existing::UseOld => out.push((src, old, bucket, kind)),
                        Existing::SkipNew => {}
                    }
                }
                None => {
                    let b = self.assign_bucket(pid);
                    index.insert(key.as_ref().into(), (pid, b));
                    out.push((src, pid, b, kind));
                }
            }
        }
        self.index = Some(index);
        self.assembled(router, batch, kinds, out, moved)
    }

    /// The routed form of the assigned rows: the batch as it came when no row moved, else a
    /// new batch with each row's partition columns set from its partition.
    fn assembled(
        &self,
        router: &Router,
        batch: &RecordBatch,
        kinds: &Int8Array,
        out: Vec<(u32, u32, i32, i8)>,
        moved: bool,
    ) -> Result<Assigned> {
        // Partitions of this batch's output, numbered locally.
        let mut local: HashMap<u32, usize> = HashMap::new();
        let mut used: Vec<u32> = Vec::new();
        let partition_ids: Vec<usize> = out
            .iter()
            .map(|&(_, pid, _, _)| {
                *local.entry(pid).or_insert_with(|| {
                    used.push(pid);
                    used.len() - 1
                })
            })
            .collect();
        let partitions = used
            .iter()
            .map(|&pid| self.part(pid).map(|p| p.partition.clone()))
            .collect::<Result<Vec<_>>>()?;
        let buckets: Vec<i32> = out.iter().map(|o| o.2).collect();
        if !moved {
            return Ok(Assigned {
                batch: batch.clone(),
                kinds: kinds.clone(),
                partition_ids,
                partitions,
                buckets,
            });
        }
        let rows = UInt32Array::from(out.iter().map(|o| o.0).collect::<Vec<_>>());
        let positions = router.partition_positions();
        let mut columns = Vec::with_capacity(batch.num_columns());
        for (c, column) in batch.columns().iter().enumerate() {
            match positions.iter().position(|&p| p == c) {
                None => columns.push(take(column.as_ref(), &rows, None)?),
                Some(k) => {
                    let values =
                        used.iter()
                            .map(|&pid| {
                                let v =
                                    self.part(pid)?.values.get(k).ok_or_else(|| {
                                        Error::internal("partition value missing")
                                    })?;
                                match v.data_type() == column.data_type() {
                                    true => Ok(v.clone()),
                                    false => Ok(cast(v, column.data_type())?),
                                }
                            })
                            .collect::<Result<Vec<ArrayRef>>>()?;
                    let refs: Vec<&dyn Array> = values.iter().map(|v| v.as_ref()).collect();
                    let picks: Vec<(usize, usize)> =
                        partition_ids.iter().map(|&l| (l, 0)).collect();
                    columns.push(interleave(&refs, &picks)?);
                }
            }
        }
        Ok(Assigned {
            batch: RecordBatch::try_new(batch.schema(), columns)?,
            kinds: Int8Array::from(out.iter().map(|o| o.3).collect::<Vec<_>>()),
            partition_ids,
            partitions,
            buckets,
        })
    }

    fn part(&self, pid: u32) -> Result<&PartInfo> {
        self.parts
            .get(pid as usize)
            .ok_or_else(|| Error::internal("partition id missing"))
    }
}

/// Java `BucketAssigner#assignBucket` with one assigner: the first bucket (ascending ids) of
/// partition `pid` holding fewer than `target` keys, else the smallest unused id.
fn assign(counts: &mut HashMap<u32, BTreeMap<i32, i64>>, pid: u32, target: i64) -> i32 {
    let map = counts.entry(pid).or_default();
    if let Some((&b, count)) = map.iter_mut().find(|(_, c)| **c < target) {
        *count += 1;
        return b;
    }
    let b = (0..).find(|b| !map.contains_key(b)).unwrap_or(0);
    map.insert(b, 1);
    b
}

/// Java `IndexBootstrap#filterSplit`: a split stays while one of its files is younger than
/// the TTL (creation times are local wall-clock millis, as `now`).
fn within_ttl(files: &[DataFileMeta], ttl: i64, now: i64) -> bool {
    files
        .iter()
        .any(|f| f.creation_time.is_none_or(|t| now <= t.saturating_add(ttl)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_fill_in_ascending_order_and_reopen_after_a_move() {
        let mut counts: BTreeMap<i32, i64> = BTreeMap::new();
        counts.insert(1, 2);
        counts.insert(3, 1);
        // Java `BucketAssigner`: the first bucket below the target, else the smallest unused id.
        let next = |counts: &mut BTreeMap<i32, i64>| -> i32 {
            let mut c = HashMap::from([(0u32, std::mem::take(counts))]);
            let b = assign(&mut c, 0, 2);
            *counts = c.remove(&0).unwrap_or_default();
            b
        };
        assert_eq!(next(&mut counts), 3);
        assert_eq!(next(&mut counts), 0);
        assert_eq!(next(&mut counts), 0);
        assert_eq!(next(&mut counts), 2);
        counts.insert(1, 1); // a key moved out of bucket 1
        assert_eq!(next(&mut counts), 1);
        assert_eq!(counts, BTreeMap::from([(0, 2), (1, 2), (2, 1), (3, 2)]));
    }

    #[test]
    fn ttl_keeps_splits_with_one_young_file() {
        use crate::commit::test_support::file;
        let at = |t: Option<i64>| {
            let mut f = file("f", 1, 0, 0, 0);
            f.creation_time = t;
            f
        };
        // now = 1000, ttl = 100: a file created at 900 or later is young.
        assert!(within_ttl(&[at(Some(500)), at(Some(900))], 100, 1000));
        assert!(!within_ttl(&[at(Some(500)), at(Some(899))], 100, 1000));
        assert!(within_ttl(&[at(None)], 100, 1000));
    }
}
