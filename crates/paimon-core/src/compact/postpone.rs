//! Postpone-bucket compaction (`bucket = -2`; Java 2.0 `CompactAction` on a postpone table:
//! `PostponeBucketCompactSplitSource`, `RemovePostponeBucketFilesOperator`,
//! `PostponeBucketCommittableRewriter`).
//!
//! Every partition with files in `bucket-postpone` gets a bucket count: the `_TOTAL_BUCKETS` of
//! its live files in real buckets, else `postpone.default-bucket-num`. Its postpone files are
//! replayed in creation order (each file's rows in order, with their row kinds) through a
//! fixed-bucket writer of the table with `bucket` set to that count: rows routed by the bucket
//! function, sequence numbers continued from the real buckets, buffers sorted and merged, and
//! (unless `write-only`) compacted as every write is. The written files become the
//! `compact_after` of their bucket (files written and compacted away in the same run are
//! deleted), the postpone files the `compact_before` of bucket -2, all in one `COMPACT`
//! snapshot; `_TOTAL_BUCKETS` of the new files is the partition's bucket count. Batch reads
//! then return the rows.

use std::collections::{BTreeMap, HashMap, HashSet};

use arrow_array::{Array, Int8Array, RecordBatch};
use arrow_select::concat::concat_batches;
use futures::TryStreamExt;

use super::{BucketCompaction, CompactReport};
use crate::catalog::Table;
use crate::commit::CommitMessage;
use crate::io::join;
use crate::read::file_reader::{read_data_file, DataFileRead};
use crate::scan::entry_merge::EntryMerger;
use crate::scan::manifest_reader::ManifestReader;
use crate::spec::binary_row::BinaryRow;
use crate::spec::manifest::{DataFileMeta, ManifestEntry};
use crate::spec::partition_path::partition_path;
use crate::spec::special_fields::value_kind_field;
use crate::write::kv_layout::KvLayout;
use crate::write::route::{bucket_dir, POSTPONE_BUCKET};
use crate::{Error, Result};

/// The postpone files and the known bucket count of one partition.
#[derive(Default)]
struct PartitionFiles {
    postpone: Vec<DataFileMeta>,
    total_buckets: Option<i32>,
}

/// The latest snapshot's live entries (every bucket, postpone included).
async fn live_entries(table: &Table) -> Result<Vec<ManifestEntry>> {
    let Some(snapshot) = table.snapshot_manager().latest_snapshot().await? else {
        return Ok(Vec::new());
    };
    let reader = ManifestReader::new(table.file_io().clone(), table.location());
    let mut metas = reader.manifest_list(&snapshot.base_manifest_list).await?;
    metas.extend(reader.manifest_list(&snapshot.delta_manifest_list).await?);
    let mut merger = EntryMerger::new();
    for meta in &metas {
        for e in reader.manifest(&meta.file_name).await? {
            merger.push(e)?;
        }
    }
    Ok(merger.into_live())
}

/// The relative directory of a serialized partition row.
fn partition_dir(table: &Table, partition: &[u8]) -> Result<String> {
    let fields = table.schema().partition_fields()?;
    let row = BinaryRow::from_serialized(partition)?;
    let values = fields
        .iter()
        .enumerate()
        .map(|(i, f)| row.get(i, &f.data_type))
        .collect::<Result<Vec<_>>>()?;
    let options = table.options();
    partition_path(
        &fields,
        &values,
        &options.partition_default_name,
        options.partition_legacy_name,
    )
}

/// The rows of one postpone file as table columns, and their row kinds.
async fn read_postpone_file(
    table: &Table,
    dir: &str,
    file: &DataFileMeta,
) -> Result<Option<(RecordBatch, Int8Array)>> {
    let file_schema = table.snapshot_manager().schema(file.schema_id).await?;
    let layout = KvLayout::new(&file_schema, table.options())?;
    let location = match &file.external_path {
        Some(p) => p.clone(),
        None => join(dir, &file.file_name),
    };
    let mut read_fields = table.schema().fields.clone();
    read_fields.push(value_kind_field());
    let mut read = DataFileRead::new(location.clone(), layout.fields.clone(), read_fields)?;
    read.file_size = u64::try_from(file.file_size).ok();
    let batches: Vec<RecordBatch> = read_data_file(table.file_io(), read)
        .await?
        .try_collect()
        .await?;
    let Some(first) = batches.first() else {
        return Ok(None);
    };
    let all = concat_batches(&first.schema(), &batches)?;
    let n = all.num_columns() - 1;
    let kinds = all
        .column(n)
        .as_any()
        .downcast_ref::<Int8Array>()
        .cloned()
        .ok_or_else(|| {
            Error::data_invalid("_VALUE_KIND is not TINYINT").with_context("file", location)
        })?;
    let values = all.project(&(0..n).collect::<Vec<_>>())?;
    Ok(Some((values, kinds)))
}

/// Moves the rows of every postpone file into real buckets and commits one `COMPACT`
/// snapshot (see the [module docs](self)).
pub(crate) async fn compact(table: &Table, user: &str) -> Result<CompactReport> {
    let mut partitions: BTreeMap<Vec<u8>, PartitionFiles> = BTreeMap::new();
    for e in live_entries(table).await? {
        let slot = partitions.entry(e.partition.clone()).or_default();
        match e.bucket {
            POSTPONE_BUCKET => slot.postpone.push(e.file),
            b if b >= 0 => slot.total_buckets = Some(e.total_buckets),
            _ => {}
        }
    }
    partitions.retain(|_, p| !p.postpone.is_empty());
    let default_buckets = table.options().postpone_default_bucket_num;
    // One fixed-bucket writer per bucket count.
    let mut writers = BTreeMap::new();
    let mut messages = Vec::new();
    let mut report = CompactReport::default();
    for (partition, mut files) in partitions {
        let n = files.total_buckets.unwrap_or(default_buckets);
        if n <= 0 {
            return Err(Error::invalid_argument(format!(
                "postpone compaction needs a positive bucket number, got {n}"
            ))
            .with_context("option", "postpone.default-bucket-num"));
        }
        let write = match writers.entry(n) {
            std::collections::btree_map::Entry::Occupied(o) => o.into_mut(),
            std::collections::btree_map::Entry::Vacant(v) => {
                let bucket = HashMap::from([("bucket".to_string(), n.to_string())]);
                let fixed = table.with_options(&bucket)?;
                v.insert(fixed.new_write().with_commit_user(user).build()?)
            }
        };
        // Java replays the files in creation order (then as listed).
        files.postpone.sort_by_key(|f| f.creation_time);
        let dir = bucket_dir(table, &partition_dir(table, &partition)?, POSTPONE_BUCKET);
        for file in &files.postpone {
            if let Some((batch, kinds)) = read_postpone_file(table, &dir, file).await? {
                write.write_kind_bytes(&batch, kinds).await?;
            }
        }
        let mut removal = CommitMessage::new(partition, POSTPONE_BUCKET, POSTPONE_BUCKET);
        removal.compact_before = files.postpone;
        messages.push(removal);
    }
    for write in writers.values_mut() {
        for m in write.prepare_commit().await? {
            messages.push(as_compaction(table, m).await?);
        }
    }
    for m in &messages {
        if m.bucket >= 0 {
            report.buckets.push(BucketCompaction {
                partition_values: Vec::new(),
                bucket: m.bucket,
                files_before: m.compact_before.len(),
                files_after: m.compact_after.len(),
                rows_after: m.compact_after.iter().map(|f| f.row_count).sum(),
            });
        }
    }
    if messages.is_empty() {
        return Ok(report);
    }
    let snapshots = table.new_commit().commit_messages(&messages, user).await?;
    report.snapshot_id = snapshots.last().map(|s| s.id);
    Ok(report)
}

/// Java `PostponeBucketCommittableRewriter`: a writer's message as a compaction only — new
/// files become `compact_after`, files both written and compacted away in this run are
/// deleted from storage and dropped from both lists.
async fn as_compaction(table: &Table, mut m: CommitMessage) -> Result<CommitMessage> {
    let new: HashSet<String> = m.new_files.iter().map(|f| f.file_name.clone()).collect();
    let (gone, before): (Vec<DataFileMeta>, Vec<DataFileMeta>) =
        std::mem::take(&mut m.compact_before)
            .into_iter()
            .partition(|f| new.contains(&f.file_name));
    let gone_names: HashSet<&str> = gone.iter().map(|f| f.file_name.as_str()).collect();
    let mut after: Vec<DataFileMeta> = std::mem::take(&mut m.new_files)
        .into_iter()
        .filter(|f| !gone_names.contains(f.file_name.as_str()))
        .collect();
    after.append(&mut m.compact_after);
    if !gone.is_empty() {
        let dir = bucket_dir(table, &partition_dir(table, &m.partition)?, m.bucket);
        for f in &gone {
            let path = match &f.external_path {
                Some(p) => p.clone(),
                None => join(&dir, &f.file_name),
            };
            table.file_io().delete(&path).await?;
        }
    }
    m.compact_before = before;
    m.compact_after = after;
    Ok(m)
}
