//! Small-file compaction of one append bucket (Java `BucketedAppendCompactManager` /
//! `AppendCompactCoordinator`): files below the target size, in sequence order, rewritten into
//! target-size files.

use std::sync::Arc;

use futures::StreamExt;

use super::{as_compacted, output_writer};
use crate::catalog::Table;
use crate::read::TableRead;
use crate::scan::{DataSplit, Split};
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
    let mut small: Vec<DataFileMeta> = files.into_iter().filter(|f| f.file_size < target).collect();
    small.sort_by_key(|f| (f.min_sequence_number, f.file_name.clone()));
    let min_files = usize::try_from(table.options().compaction_min_file_num).unwrap_or(0);
    let needed = if full { 2 } else { min_files.max(2) };
    if small.len() < needed {
        return Ok(None);
    }
    let first_seq = small.first().map_or(0, |f| f.min_sequence_number);
    let files_split = DataSplit {
        deletion_files: vec![None; small.len()],
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
