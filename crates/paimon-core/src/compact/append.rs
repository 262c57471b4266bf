//! Small-file compaction of one append bucket (Java `BucketedAppendCompactManager` /
//! `AppendCompactCoordinator`): files below the target size, in sequence order, rewritten into
//! target-size files. With deletion vectors (Java `AppendCompactCoordinator` with DVs) a file
//! whose vector deletes more than `compaction.delete-ratio-threshold` of its rows (or of
//! unknown cardinality) is compacted too, even alone; inputs are read with their vectors
//! applied, so the deleted rows are dropped (the caller retires the vectors).

use std::sync::Arc;

use futures::StreamExt;

use super::{as_compacted, output_writer};
use crate::catalog::Table;
use crate::read::TableRead;
use crate::scan::{DataSplit, DeletionFile, Split};
use crate::spec::manifest::DataFileMeta;
use crate::write::file_writer::FileSpec;
use crate::Result;

/// Compacts the small files among `files` (every live file of the bucket of `split`);
/// returns (before, after), or `None` when there are too few of them.
pub(super) async fn compact_bucket(
    table: &Table,
    spec: &Arc<FileSpec>,
    split: &DataSplit,
    files: Vec<DataFileMeta>,
    full: bool,
) -> Result<Option<(Vec<DataFileMeta>, Vec<DataFileMeta>)>> {
    let target = i64::try_from(spec.target_size).unwrap_or(i64::MAX);
    let ratio = table.options().compaction.delete_ratio_threshold;
    let deletion = |f: &DataFileMeta| -> Option<DeletionFile> {
        let i = split
            .files
            .iter()
            .position(|x| x.file_name == f.file_name)?;
        split.deletion_files.get(i).cloned().flatten()
    };
    let too_deleted = |f: &DataFileMeta| {
        deletion(f).is_some_and(|d| {
            d.cardinality
                .is_none_or(|c| c as f64 > f.row_count as f64 * ratio)
        })
    };
    let mut small: Vec<DataFileMeta> = files
        .into_iter()
        .filter(|f| f.file_size < target || too_deleted(f))
        .collect();
    small.sort_by_key(|f| (f.min_sequence_number, f.file_name.clone()));
    let min_files = usize::try_from(table.options().compaction_min_file_num).unwrap_or(0);
    let needed = if full { 2 } else { min_files.max(2) };
    if small.len() < needed && !small.iter().any(too_deleted) {
        return Ok(None);
    }
    let first_seq = small.first().map_or(0, |f| f.min_sequence_number);
    let files_split = DataSplit {
        deletion_files: small.iter().map(deletion).collect(),
        files: small.clone(),
        raw_convertible: true,
        row_ranges: None,
        ..split.clone()
    };
    let read = TableRead::new(table).with_preserve_order(true);
    let mut batches = read.read(vec![Split::Data(files_split)])?;
    let mut writer = output_writer(spec, split, first_seq);
    while let Some(batch) = batches.next().await {
        let batch = batch?;
        if batch.num_rows() > 0 {
            writer.write(&batch).await?;
        }
    }
    let after = as_compacted(writer.flush().await?, 0);
    Ok(Some((small, after)))
}
