//! Routing the rows of a batch to their (partition, bucket) writers (Java
//! `FixedBucketRowKeyExtractor`, `InternalRowPartitionComputer`).
//!
//! Partitions are grouped through arrow-row keys of the partition columns (one `BinaryRow`
//! and directory name per distinct partition, not per row). Buckets of fixed-bucket tables
//! come from the table's bucket function over the bucket-key `BinaryRow`, the same function
//! the reader's bucket pruning uses; that row is encoded per row into one reused buffer, or,
//! for the default function over fixed-width key fields, hashed column by column
//! (`write::key_hash`).
//! Bucket-unaware append tables write everything to bucket 0, postpone-bucket tables to bucket
//! -2 (`bucket-postpone`). Dynamic-bucket tables get the hash code of each row's trimmed
//! primary key (`key_hashes`); `write::dynamic_bucket` turns those into buckets and `group`
//! splits the batch.

use std::collections::HashMap;

use arrow_array::{ArrayRef, RecordBatch, UInt32Array};
use arrow_row::{RowConverter, SortField};
use arrow_select::take::take_record_batch;

use super::datum::datum_at;
use super::key_hash::FixedWidthKey;
use crate::bucket::{BucketFunction, BucketFunctionType};
use crate::catalog::Table;
use crate::hash::FastHashMap;
use crate::io::join;
use crate::spec::binary_row::writer::encode_into;
use crate::spec::binary_row::BinaryRow;
use crate::spec::options::{BucketFunctionKind, BucketMode};
use crate::spec::partition_path::partition_path;
use crate::spec::types::{DataField, DataType};
use crate::{Error, Result};

/// Bucket id of the postpone bucket (Java `BucketMode.POSTPONE_BUCKET`).
pub(crate) const POSTPONE_BUCKET: i32 = -2;

/// A partition: serialized `BinaryRow` and relative directory.
pub(crate) type Partition = (Vec<u8>, String);

/// The directory of bucket `bucket` of partition directory `partition_dir` (Java
/// `FileStorePathFactory#bucketPath`: `[data-file.path-directory/]<partition>bucket-<b>`, the
/// postpone bucket as `bucket-postpone`).
pub(crate) fn bucket_dir(table: &Table, partition_dir: &str, bucket: i32) -> String {
    let mut dir = table.location().to_string();
    if let Some(d) = &table.options().data_file_path_directory {
        dir = join(&dir, d);
    }
    let name = match bucket {
        POSTPONE_BUCKET => "bucket-postpone".to_string(),
        b => format!("bucket-{b}"),
    };
    join(&dir, &format!("{partition_dir}{name}"))
}

/// Rows of one (partition, bucket) of a batch.
#[derive(Debug)]
pub(crate) struct Routed {
    /// Serialized partition `BinaryRow`.
    pub partition: Vec<u8>,
    /// Relative partition directory (`k=v/`, empty when unpartitioned).
    pub partition_dir: String,
    /// Bucket id.
    pub bucket: i32,
    /// The rows, in arrival order.
    pub batch: RecordBatch,
    /// Their positions in the routed batch (`None` = the whole batch).
    pub rows: Option<UInt32Array>,
}

/// How a table's rows are routed.
#[derive(Debug)]
pub(crate) struct Router {
    partition_fields: Vec<DataField>,
    partition_positions: Vec<usize>,
    default_name: String,
    legacy_name: bool,
    bucket: Option<FixedBucket>,
    /// Trimmed primary-key columns of a dynamic-bucket table (their `BinaryRow` hash decides
    /// the bucket).
    key: Option<KeyRow>,
    postpone: bool,
}

#[derive(Debug)]
struct KeyRow {
    positions: Vec<usize>,
    types: Vec<DataType>,
}

#[derive(Debug)]
struct FixedBucket {
    positions: Vec<usize>,
    types: Vec<DataType>,
    function: BucketFunction,
    count: i32,
    /// The column-wise hasher when the function is the default one and every bucket-key field
    /// is fixed-width.
    fast: Option<FixedWidthKey>,
}

fn positions(fields: &[DataField], all: &[DataField]) -> Result<Vec<usize>> {
    fields
        .iter()
        .map(|f| {
            all.iter()
                .position(|x| x.id == f.id)
                .ok_or_else(|| Error::internal(format!("column '{}' missing", f.name)))
        })
        .collect()
}

impl Router {
    /// The router of `table` (batches in table column order).
    pub(crate) fn new(table: &Table) -> Result<Self> {
        let schema = table.schema();
        let options = table.options();
        let partition_fields = schema.partition_fields()?;
        let partition_positions = positions(&partition_fields, &schema.fields)?;
        let bucket = match options.bucket {
            BucketMode::Fixed(n) => {
                let key_fields = schema.fields_of(&schema.bucket_keys())?;
                let types: Vec<DataType> = key_fields.iter().map(|f| f.data_type.clone()).collect();
                let kind = match options.bucket_function {
                    BucketFunctionKind::Default => BucketFunctionType::Default,
                    BucketFunctionKind::Mod => BucketFunctionType::Mod,
                    BucketFunctionKind::Hive => BucketFunctionType::Hive,
                };
                let fast = match kind {
                    BucketFunctionType::Default => FixedWidthKey::new(&types),
                    _ => None,
                };
                Some(FixedBucket {
                    positions: positions(&key_fields, &schema.fields)?,
                    function: BucketFunction::new(kind, types.clone())?,
                    types,
                    fast,
                    count: i32::try_from(n.get()).unwrap_or(i32::MAX),
                })
            }
            _ => None,
        };
        let key = match (options.bucket, schema.has_primary_key()) {
            (BucketMode::Dynamic, true) => {
                let fields = schema.fields_of(&schema.trimmed_primary_keys())?;
                Some(KeyRow {
                    positions: positions(&fields, &schema.fields)?,
                    types: fields.iter().map(|f| f.data_type.clone()).collect(),
                })
            }
            _ => None,
        };
        Ok(Router {
            partition_fields,
            partition_positions,
            default_name: options.partition_default_name.clone(),
            legacy_name: options.partition_legacy_name,
            bucket,
            key,
            postpone: options.bucket == BucketMode::Postpone,
        })
    }

    /// The `_TOTAL_BUCKETS` of written files (-1 for bucket-unaware and dynamic-bucket tables,
    /// -2 for postpone-bucket tables).
    pub(crate) fn total_buckets(&self) -> i32 {
        match (&self.bucket, self.postpone) {
            (Some(b), _) => b.count,
            (None, true) => POSTPONE_BUCKET,
            (None, false) => -1,
        }
    }

    /// Whether buckets come from the dynamic-bucket index ([`Router::key_hashes`] +
    /// [`Router::group`]) instead of [`Router::route`].
    pub(crate) fn is_dynamic(&self) -> bool {
        self.key.is_some()
    }

    /// Java `BinaryRow#hashCode` of every row's trimmed primary key (dynamic-bucket tables).
    pub(crate) fn key_hashes(&self, batch: &RecordBatch) -> Result<Vec<i32>> {
        let k = self
            .key
            .as_ref()
            .ok_or_else(|| Error::internal("key hashes of a table without dynamic buckets"))?;
        let columns: Vec<&ArrayRef> = k.positions.iter().map(|&p| batch.column(p)).collect();
        let mut values = Vec::with_capacity(columns.len());
        let mut key = BinaryRow::empty();
        (0..batch.num_rows())
            .map(|row| {
                values.clear();
                for (c, t) in columns.iter().zip(&k.types) {
                    values.push(datum_at(c.as_ref(), row, t)?);
                }
                encode_into(&values, &k.types, &mut key)?;
                Ok(key.hash_code())
            })
            .collect()
    }

    /// The partition of every row: group ids and, per group, (serialized row, directory).
    pub(crate) fn partitions(&self, batch: &RecordBatch) -> Result<(Vec<usize>, Vec<Partition>)> {
        let columns: Vec<ArrayRef> = self
            .partition_positions
            .iter()
            .map(|&p| batch.column(p).clone())
            .collect();
        self.partitions_of(&columns, batch.num_rows())
    }

    /// The positions of the partition columns in the table's columns.
    pub(crate) fn partition_positions(&self) -> &[usize] {
        &self.partition_positions
    }

    /// [`Router::partitions`] of `rows` rows given their partition columns (in partition-key
    /// order).
    pub(crate) fn partitions_of(
        &self,
        columns: &[ArrayRef],
        rows: usize,
    ) -> Result<(Vec<usize>, Vec<Partition>)> {
        if self.partition_fields.is_empty() {
            let empty = BinaryRow::empty().serialize();
            return Ok((vec![0; rows], vec![(empty, String::new())]));
        }
        let converter = RowConverter::new(
            columns
                .iter()
                .map(|c| SortField::new(c.data_type().clone()))
                .collect(),
        )?;
        let keys = converter.convert_columns(columns)?;
        let mut seen: HashMap<&[u8], usize> = HashMap::new();
        let mut groups = Vec::new();
        let mut ids = Vec::with_capacity(rows);
        for (row, key) in keys.iter().enumerate() {
            let next = seen.len();
            let id = *seen.entry(key.data()).or_insert(next);
            if id == next {
                groups.push(self.partition_of(columns, row)?);
            }
            ids.push(id);
        }
        Ok((ids, groups))
    }

    fn partition_of(&self, columns: &[ArrayRef], row: usize) -> Result<Partition> {
        let values = columns
            .iter()
            .zip(&self.partition_fields)
            .map(|(c, f)| datum_at(c.as_ref(), row, &f.data_type))
            .collect::<Result<Vec<_>>>()?;
        let types: Vec<DataType> = self
            .partition_fields
            .iter()
            .map(|f| f.data_type.clone())
            .collect();
        let bytes = BinaryRow::encode(&values, &types)?.serialize();
        let dir = partition_path(
            &self.partition_fields,
            &values,
            &self.default_name,
            self.legacy_name,
        )?;
        Ok((bytes, dir))
    }

    /// The bucket of every row.
    pub(crate) fn buckets(&self, batch: &RecordBatch) -> Result<Vec<i32>> {
        let Some(b) = &self.bucket else {
            let bucket = if self.postpone { POSTPONE_BUCKET } else { 0 };
            return Ok(vec![bucket; batch.num_rows()]);
        };
        let columns: Vec<&ArrayRef> = b.positions.iter().map(|&p| batch.column(p)).collect();
        if let Some(codes) = b
            .fast
            .as_ref()
            .and_then(|f| f.hash_codes(&columns, batch.num_rows()))
        {
            return Ok(codes
                .iter()
                .map(|h| BucketFunction::default_bucket(*h, b.count))
                .collect());
        }
        // One value vector and one row buffer for all rows (string values still allocate).
        let mut values = Vec::with_capacity(columns.len());
        let mut key = BinaryRow::empty();
        (0..batch.num_rows())
            .map(|row| {
                values.clear();
                for (c, t) in columns.iter().zip(&b.types) {
                    values.push(datum_at(c.as_ref(), row, t)?);
                }
                encode_into(&values, &b.types, &mut key)?;
                b.function.bucket(&key, b.count)
            })
            .collect()
    }

    /// Splits `batch` into its (partition, bucket) parts.
    pub(crate) fn route(&self, batch: &RecordBatch) -> Result<Vec<Routed>> {
        let (partition_ids, partitions) = self.partitions(batch)?;
        let buckets = self.buckets(batch)?;
        Self::group(batch, &partition_ids, partitions, &buckets)
    }

    /// Splits `batch` by the partition group and bucket of each row.
    pub(crate) fn group(
        batch: &RecordBatch,
        partition_ids: &[usize],
        partitions: Vec<Partition>,
        buckets: &[i32],
    ) -> Result<Vec<Routed>> {
        if partitions.len() == 1 && buckets.iter().all(|b| Some(b) == buckets.first()) {
            let (partition, partition_dir) = partitions.into_iter().next().unwrap_or_default();
            return Ok(vec![Routed {
                partition,
                partition_dir,
                bucket: buckets.first().copied().unwrap_or(0),
                batch: batch.clone(),
                rows: None,
            }]);
        }
        let (mut groups, order) = row_groups(partition_ids, partitions.len(), buckets);
        order
            .into_iter()
            .map(|(p, b)| {
                let rows = UInt32Array::from(groups.take(p, b));
                let (partition, partition_dir) = partitions
                    .get(p)
                    .cloned()
                    .ok_or_else(|| Error::internal("partition group missing"))?;
                Ok(Routed {
                    partition,
                    partition_dir,
                    bucket: b,
                    batch: take_record_batch(batch, &rows)?,
                    rows: Some(rows),
                })
            })
            .collect()
    }
}

/// The row positions of each (partition group, bucket) of a batch.
enum RowGroups {
    /// Buckets `0..buckets` of every partition group, at `partition * buckets + bucket`.
    Dense { rows: Vec<Vec<u32>>, buckets: usize },
    /// Any other buckets (dynamic, postpone, or too many groups for a table).
    Sparse(FastHashMap<(usize, i32), Vec<u32>>),
}

impl RowGroups {
    /// Takes the rows of (`partition`, `bucket`) out.
    fn take(&mut self, partition: usize, bucket: i32) -> Vec<u32> {
        match self {
            RowGroups::Dense { rows, buckets } => usize::try_from(bucket)
                .ok()
                .and_then(|b| rows.get_mut(partition * *buckets + b))
                .map(std::mem::take)
                .unwrap_or_default(),
            RowGroups::Sparse(map) => map.remove(&(partition, bucket)).unwrap_or_default(),
        }
    }
}

/// At most this many (partition, bucket) slots are laid out densely.
const DENSE_SLOTS: usize = 1 << 16;

/// Groups the rows by (partition group, bucket): the groups and their first-seen order. Buckets
/// in `0..n` with few partition groups index a table directly (no hashing per row).
fn row_groups(
    partition_ids: &[usize],
    partitions: usize,
    buckets: &[i32],
) -> (RowGroups, Vec<(usize, i32)>) {
    let mut order = Vec::new();
    let max = buckets.iter().copied().max().unwrap_or(0);
    let min = buckets.iter().copied().min().unwrap_or(0);
    let width = usize::try_from(max).map_or(0, |m| m + 1);
    let in_range = partition_ids.iter().all(|p| *p < partitions);
    if min >= 0 && in_range && partitions.saturating_mul(width) <= DENSE_SLOTS {
        let mut rows = vec![Vec::new(); partitions * width];
        for (row, (p, b)) in partition_ids.iter().zip(buckets).enumerate() {
            // In bounds: `b` is in `0..width` and `p` in `0..partitions` (checked above).
            let slot = &mut rows[p * width + *b as usize];
            if slot.is_empty() {
                order.push((*p, *b));
            }
            slot.push(row as u32);
        }
        return (
            RowGroups::Dense {
                rows,
                buckets: width,
            },
            order,
        );
    }
    let mut map: FastHashMap<(usize, i32), Vec<u32>> = FastHashMap::default();
    for (row, (p, b)) in partition_ids.iter().zip(buckets).enumerate() {
        let rows = map.entry((*p, *b)).or_insert_with(|| {
            order.push((*p, *b));
            Vec::new()
        });
        rows.push(row as u32);
    }
    (RowGroups::Sparse(map), order)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every group's rows in first-seen order, taken out of `groups`.
    fn contents(
        ids: &[usize],
        partitions: usize,
        buckets: &[i32],
    ) -> Vec<((usize, i32), Vec<u32>)> {
        let (mut groups, order) = row_groups(ids, partitions, buckets);
        order
            .into_iter()
            .map(|(p, b)| ((p, b), groups.take(p, b)))
            .collect()
    }

    #[test]
    fn dense_and_sparse_groupings_agree() {
        let ids = [0, 1, 0, 1, 0, 2];
        let buckets = [3, 0, 3, 1, 0, 3];
        let want = vec![
            ((0, 3), vec![0, 2]),
            ((1, 0), vec![1]),
            ((1, 1), vec![3]),
            ((0, 0), vec![4]),
            ((2, 3), vec![5]),
        ];
        let (dense, _) = row_groups(&ids, 3, &buckets);
        assert!(matches!(dense, RowGroups::Dense { .. }));
        assert_eq!(contents(&ids, 3, &buckets), want);
        // The postpone bucket (-2) and dynamic buckets beyond the dense table go through a map.
        let negative = [-2, 0, -2, 1, 0, -2];
        let (sparse, _) = row_groups(&ids, 3, &negative);
        assert!(matches!(sparse, RowGroups::Sparse(_)));
        let got = contents(&ids, 3, &negative);
        assert_eq!(got[0], ((0, -2), vec![0, 2]));
        assert_eq!(got.len(), 5);
        let huge = [i32::MAX, 0, 1, 1, 0, i32::MAX];
        let (sparse, _) = row_groups(&ids, 3, &huge);
        assert!(matches!(sparse, RowGroups::Sparse(_)));
        assert_eq!(contents(&ids, 3, &huge)[0], ((0, i32::MAX), vec![0]));
        // A partition id outside the group count never indexes the table.
        let (sparse, _) = row_groups(&[0, 5], 1, &[0, 0]);
        assert!(matches!(sparse, RowGroups::Sparse(_)));
    }
}
