//! Dynamic buckets of primary-key tables with `bucket = -1` (Java `HashBucketAssigner`,
//! `PartitionIndex`, `DynamicBucketIndexMaintainer`, as one writer task: one assigner owning
//! every bucket).
//!
//! On first use of a partition, every `HASH` index file of that partition in the latest
//! snapshot's index manifest is read: each stored key hash maps to its bucket, and each bucket
//! counts its hashes. A row's key hash (the trimmed primary key's `BinaryRow` hash code) then
//! goes to the bucket that already holds it; a new hash to the first bucket (ascending ids)
//! holding fewer than `dynamic-bucket.target-row-num` keys (full buckets are dropped from the
//! candidates); else to the smallest unused bucket id, unless `dynamic-bucket.max-buckets` is
//! reached, then to a random existing bucket. The in-memory index lives as long as the writer,
//! so later commits of the same writer keep every key in its bucket.
//!
//! Every touched (partition, bucket) keeps the set of its key hashes (restored from its `HASH`
//! file, plus every written key); at `prepare_commit` the set of every bucket written since the
//! last commit is written as a complete new `HASH` file (Java writes one only when a new key
//! arrived; writing it for every written bucket keeps the index whole when the messages are
//! committed as an OVERWRITE, which deletes the partition's previous entries) (`index/index-<uuid>-<n>`, or the bucket directory with
//! `index-file-in-data-file-dir`) and handed to the commit as an ADD index entry, which
//! replaces the bucket's previous entry in the index manifest (`commit::index_merge`).
//!
//! Cross-partition updates (a primary key without every partition column) keep a global key
//! index instead (`write::cross_partition`).

use std::collections::{BTreeMap, HashMap, HashSet};

use bytes::Bytes;

use super::route::{bucket_dir, Partition};
use crate::catalog::Table;
use crate::index::hash_index::{decode_hashes, encode_hashes, HASH_INDEX};
use crate::io::join;
use crate::scan::manifest_reader::ManifestReader;
use crate::spec::manifest::{FileKind, IndexManifestEntry};
use crate::{Error, Result};

/// Bucket ids are Java shorts: at most `Short.MAX_VALUE` buckets (ids `0..=32766`).
const MAX_DYNAMIC_BUCKETS: i32 = i16::MAX as i32;

/// The key → bucket index of one partition (Java `PartitionIndex`).
#[derive(Debug, Default)]
struct PartitionIndex {
    hash_to_bucket: HashMap<i32, i32>,
    /// Buckets that may take new keys, with their key counts (ascending ids: Java's
    /// `HashMap<Integer, Long>` iterates small dense ids in this order).
    non_full: BTreeMap<i32, i64>,
    /// Every bucket of the partition, in the order they became known.
    total: Vec<i32>,
    total_set: HashSet<i32>,
}

/// The key hashes of one (partition, bucket) (Java `DynamicBucketIndexMaintainer`).
#[derive(Debug)]
struct BucketHashes {
    partition_dir: String,
    hashes: HashSet<i32>,
    modified: bool,
}

/// The dynamic-bucket assigner and index maintainer of one [`TableWrite`](super::TableWrite).
#[derive(Debug)]
pub(crate) struct DynamicBuckets {
    table: Table,
    target_row_num: i64,
    max_buckets: i32,
    /// Largest bucket assigned so far in any partition (Java `HashBucketAssigner#maxBucketId`).
    max_bucket_id: i32,
    /// The `HASH` entries of the latest snapshot, read on first use.
    snapshot_index: Option<Vec<IndexManifestEntry>>,
    partitions: HashMap<Vec<u8>, PartitionIndex>,
    buckets: BTreeMap<(Vec<u8>, i32), BucketHashes>,
    /// Index file names: `index-<uuid>-<counter>` (Java `IndexPathFactory`).
    uuid: String,
    counter: u64,
}

impl DynamicBuckets {
    /// The assigner of `table` (a dynamic-bucket primary-key table); checks
    /// `dynamic-bucket.max-buckets` as Java does.
    pub(crate) fn new(table: &Table) -> Result<Self> {
        let options = table.options();
        let max_buckets = options.dynamic_bucket_max_buckets;
        if max_buckets != -1 && !(1..=MAX_DYNAMIC_BUCKETS).contains(&max_buckets) {
            return Err(Error::invalid_argument(format!(
                "'dynamic-bucket.max-buckets' must be -1 or between 1 and {MAX_DYNAMIC_BUCKETS}, but was {max_buckets}."
            ))
            .with_context("option", "dynamic-bucket.max-buckets"));
        }
        Ok(DynamicBuckets {
            table: table.clone(),
            target_row_num: options.dynamic_bucket_target_row_num,
            max_buckets,
            max_bucket_id: 0,
            snapshot_index: None,
            partitions: HashMap::new(),
            buckets: BTreeMap::new(),
            uuid: uuid::Uuid::new_v4().to_string(),
            counter: 0,
        })
    }

    /// The bucket of every row, given each row's partition group (`partition_ids` into
    /// `partitions`) and key hash; every key hash is recorded in its bucket's index.
    pub(crate) async fn assign(
        &mut self,
        partition_ids: &[usize],
        partitions: &[Partition],
        hashes: &[i32],
    ) -> Result<Vec<i32>> {
        for (partition, dir) in partitions {
            if !self.partitions.contains_key(partition) {
                let index = self.load_partition(partition, dir).await?;
                self.partitions.insert(partition.clone(), index);
            }
        }
        let mut out = Vec::with_capacity(hashes.len());
        for (&pid, &hash) in partition_ids.iter().zip(hashes) {
            let (partition, dir) = partitions
                .get(pid)
                .ok_or_else(|| Error::internal("partition group missing"))?;
            let index = self
                .partitions
                .get_mut(partition)
                .ok_or_else(|| Error::internal("partition index missing"))?;
            let bucket = index.assign(
                hash,
                self.target_row_num,
                self.max_buckets,
                self.max_bucket_id,
            )?;
            self.max_bucket_id = self.max_bucket_id.max(bucket);
            let slot = self
                .buckets
                .entry((partition.clone(), bucket))
                .or_insert_with(|| BucketHashes {
                    partition_dir: dir.clone(),
                    hashes: HashSet::new(),
                    modified: false,
                });
            slot.hashes.insert(hash);
            // Every bucket written gets a new file, also when all its keys were known (Java:
            // only with new keys): an OVERWRITE commit deletes the partition's HASH entries,
            // and the writer cannot know how its messages will be committed.
            slot.modified = true;
            out.push(bucket);
        }
        Ok(out)
    }

    /// The latest snapshot's `HASH` entries.
    async fn snapshot_index(&mut self) -> Result<&[IndexManifestEntry]> {
        if self.snapshot_index.is_none() {
            let mut entries = Vec::new();
            let latest = self.table.snapshot_manager().latest_snapshot().await?;
            if let Some(name) = latest.and_then(|s| s.index_manifest) {
                let reader =
                    ManifestReader::new(self.table.file_io().clone(), self.table.location());
                entries = reader.index_manifest(&name).await?;
                entries.retain(|e| e.index_type == HASH_INDEX && e.kind == FileKind::Add);
            }
            self.snapshot_index = Some(entries);
        }
        Ok(self.snapshot_index.as_deref().unwrap_or_default())
    }

    /// Reads the partition's `HASH` files (Java `PartitionIndex#loadIndex`) and restores
    /// each bucket's hash set.
    async fn load_partition(&mut self, partition: &[u8], dir: &str) -> Result<PartitionIndex> {
        let files: Vec<IndexManifestEntry> = self
            .snapshot_index()
            .await?
            .iter()
            .filter(|e| e.partition == partition)
            .cloned()
            .collect();
        let mut index = PartitionIndex::default();
        let mut counts: BTreeMap<i32, i64> = BTreeMap::new();
        for e in &files {
            if !(0..MAX_DYNAMIC_BUCKETS).contains(&e.bucket) {
                return Err(Error::data_invalid(format!(
                    "dynamic bucket id must be between 0 and {}, but was {}",
                    MAX_DYNAMIC_BUCKETS - 1,
                    e.bucket
                ))
                .with_context("index file", e.file_name.clone()));
            }
            let path = self.index_path(e, dir);
            let bytes = self.table.file_io().read(&path).await?;
            let hashes = decode_hashes(&bytes, &path)?;
            *counts.entry(e.bucket).or_insert(0) += hashes.len() as i64;
            for &h in &hashes {
                index.hash_to_bucket.insert(h, e.bucket);
            }
            let slot = self
                .buckets
                .entry((partition.to_vec(), e.bucket))
                .or_insert_with(|| BucketHashes {
                    partition_dir: dir.to_string(),
                    hashes: HashSet::new(),
                    modified: false,
                });
            slot.hashes.extend(hashes);
        }
        for (bucket, count) in counts {
            index.non_full.insert(bucket, count);
            index.total.push(bucket);
            index.total_set.insert(bucket);
        }
        Ok(index)
    }

    /// Where index file `e` of partition directory `dir` lives.
    fn index_path(&self, e: &IndexManifestEntry, dir: &str) -> String {
        match &e.external_path {
            Some(p) => p.clone(),
            None => join(&self.index_dir(dir, e.bucket), &e.file_name),
        }
    }

    fn index_dir(&self, partition_dir: &str, bucket: i32) -> String {
        match self.table.options().index_file_in_data_file_dir {
            true => bucket_dir(&self.table, partition_dir, bucket),
            false => join(self.table.location(), "index"),
        }
    }

    /// Writes a complete `HASH` file for every bucket whose key set changed since the last
    /// call and returns their ADD entries (by (partition, bucket)).
    pub(crate) async fn prepare_commit(
        &mut self,
    ) -> Result<BTreeMap<(Vec<u8>, i32), IndexManifestEntry>> {
        let mut out = BTreeMap::new();
        let modified: Vec<(Vec<u8>, i32)> = self
            .buckets
            .iter()
            .filter(|(_, b)| b.modified)
            .map(|(k, _)| k.clone())
            .collect();
        for key in modified {
            let Some(b) = self.buckets.get(&key) else {
                continue;
            };
            let bytes = encode_hashes(&b.hashes);
            let rows = b.hashes.len() as i64;
            let file_name = format!("index-{}-{}", self.uuid, self.counter);
            self.counter += 1;
            let path = join(&self.index_dir(&b.partition_dir, key.1), &file_name);
            let size = bytes.len() as i64;
            self.table
                .file_io()
                .write(&path, Bytes::from(bytes))
                .await?;
            if let Some(b) = self.buckets.get_mut(&key) {
                b.modified = false;
            }
            let entry = IndexManifestEntry {
                kind: FileKind::Add,
                partition: key.0.clone(),
                bucket: key.1,
                index_type: HASH_INDEX.to_string(),
                file_name,
                file_size: size,
                row_count: rows,
                deletion_vectors: None,
                external_path: None,
                global_index: None,
            };
            out.insert(key, entry);
        }
        Ok(out)
    }
}

impl PartitionIndex {
    /// Java `PartitionIndex#assign` with one assigner (every bucket is ours).
    fn assign(
        &mut self,
        hash: i32,
        target_row_num: i64,
        max_buckets: i32,
        max_bucket_id: i32,
    ) -> Result<i32> {
        // 1. a key seen before
        if let Some(&b) = self.hash_to_bucket.get(&hash) {
            return Ok(b);
        }
        // 2. the first bucket with room; full ones leave the candidates
        while let Some((&bucket, &count)) = self.non_full.iter().next() {
            if count < target_row_num {
                self.non_full.insert(bucket, count + 1);
                self.hash_to_bucket.insert(hash, bucket);
                return Ok(bucket);
            }
            self.non_full.remove(&bucket);
        }
        // 3. a new bucket: the smallest unused id
        let global_max = if max_buckets == -1 {
            MAX_DYNAMIC_BUCKETS
        } else {
            max_buckets
        } - 1;
        if self.total.is_empty() || max_bucket_id < global_max {
            if let Some(b) = (0..=global_max).find(|b| !self.total_set.contains(b)) {
                self.non_full.insert(b, 1);
                self.total.push(b);
                self.total_set.insert(b);
                self.hash_to_bucket.insert(hash, b);
                return Ok(b);
            }
            if max_buckets == -1 {
                return Err(Error::invalid_argument(format!(
                    "Too more bucket {max_bucket_id}, you should increase target bucket row number {target_row_num}."
                ))
                .with_context("option", "dynamic-bucket.target-row-num"));
            }
        }
        // 4. over the upper bound: a random existing bucket
        let pick = (uuid::Uuid::new_v4().as_u128() % self.total.len().max(1) as u128) as usize;
        let b = self
            .total
            .get(pick)
            .copied()
            .ok_or_else(|| Error::internal("no dynamic bucket to pick"))?;
        self.hash_to_bucket.insert(hash, b);
        Ok(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(buckets: &[(i32, &[i32])]) -> PartitionIndex {
        let mut p = PartitionIndex::default();
        for (b, hashes) in buckets {
            for h in *hashes {
                p.hash_to_bucket.insert(*h, *b);
            }
            p.non_full.insert(*b, hashes.len() as i64);
            p.total.push(*b);
            p.total_set.insert(*b);
        }
        p
    }

    #[test]
    fn known_keys_keep_their_bucket_and_new_ones_fill_the_first_bucket_with_room() {
        let mut p = index(&[(0, &[1, 2, 3]), (1, &[4])]);
        assert_eq!(p.assign(4, 3, -1, 1).unwrap(), 1);
        assert_eq!(p.assign(1, 3, -1, 1).unwrap(), 0);
        // bucket 0 is full (3 keys): it leaves the candidates, bucket 1 takes new keys
        assert_eq!(p.assign(10, 3, -1, 1).unwrap(), 1);
        assert_eq!(p.assign(11, 3, -1, 1).unwrap(), 1);
        assert!(!p.non_full.contains_key(&0));
        // both full: the smallest unused id opens
        assert_eq!(p.assign(12, 3, -1, 1).unwrap(), 2);
        assert_eq!(p.assign(12, 3, -1, 2).unwrap(), 2);
    }

    #[test]
    fn max_buckets_bounds_new_buckets() {
        let mut p = PartitionIndex::default();
        assert_eq!(p.assign(1, 1, 2, 0).unwrap(), 0);
        assert_eq!(p.assign(2, 1, 2, 0).unwrap(), 1);
        // two buckets, both full, max reached: a random existing one, remembered
        let b = p.assign(3, 1, 2, 1).unwrap();
        assert!(b == 0 || b == 1);
        assert_eq!(p.assign(3, 1, 2, 1).unwrap(), b);
        assert_eq!(p.total, vec![0, 1]);
    }
}
