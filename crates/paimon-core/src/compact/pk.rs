//! Full compaction of one primary-key bucket (Java `MergeTreeCompactRewriter#rewrite` with
//! `dropDelete = true`, output at the highest level).

use std::collections::BTreeSet;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, Int8Type};
use arrow_array::RecordBatch;
use futures::StreamExt;

use super::index::WrittenValues;
use super::{as_compacted, output_writer};
use crate::catalog::Table;
use crate::read::TableRead;
use crate::scan::{DataSplit, Split};
use crate::spec::manifest::DataFileMeta;
use crate::spec::special_fields::{sequence_number_field, value_kind_field};
use crate::write::file_writer::FileSpec;
use crate::write::kv_layout::KvLayout;
use crate::{Error, Result};

/// Sorted runs of a bucket as Java's `Levels` counts them: each level-0 file, plus each
/// non-empty level above 0.
fn sorted_runs(files: &[DataFileMeta]) -> usize {
    let level0 = files.iter().filter(|f| f.level == 0).count();
    let upper: BTreeSet<i32> = files
        .iter()
        .filter(|f| f.level > 0)
        .map(|f| f.level)
        .collect();
    level0 + upper.len()
}

/// Compacts `files` (every live file of the bucket of `split`, which holds them with their
/// deletion files and is merged on read) into files at the top level;
/// returns (before, after), or `None` when the bucket needs no compaction. The indexed values
/// of the written rows are recorded in `written`.
pub(super) async fn compact_bucket(
    table: &Table,
    (spec, kv, written): (&Arc<FileSpec>, &Arc<KvLayout>, &mut WrittenValues),
    split: &DataSplit,
    files: Vec<DataFileMeta>,
    full: bool,
) -> Result<Option<(Vec<DataFileMeta>, Vec<DataFileMeta>)>> {
    let options = table.options();
    let max_level = options.num_levels() - 1;
    if max_level < 1 {
        return Err(Error::data_invalid("num-levels must be at least 2")
            .with_context("option", "num-levels"));
    }
    // A single top-level file is rewritten when it carries a deletion vector (Java PR #5638).
    let single_top = matches!(files.as_slice(), [f] if f.level == max_level)
        && split.deletion_files.iter().all(Option::is_none);
    if files.is_empty() || single_top {
        return Ok(None);
    }
    let trigger = usize::try_from(options.num_sorted_run_compaction_trigger).unwrap_or(1);
    if !full && sorted_runs(&files) < trigger.max(1) {
        return Ok(None);
    }
    let schema = table.schema();
    let mut fields = schema.fields.clone();
    fields.push(sequence_number_field());
    fields.push(value_kind_field());
    let read = TableRead::new(table)
        .with_output_fields(fields)
        .with_preserve_order(true);
    let mut batches = read.read(vec![Split::Data(split.clone())])?;
    let mut writer = output_writer(spec, split, 0);
    let n = schema.fields.len();
    let values_schema = crate::arrow::arrow_schema(&schema.fields)?;
    while let Some(batch) = batches.next().await {
        let batch = batch?;
        if batch.num_rows() == 0 {
            continue;
        }
        written.record(&batch)?;
        writer
            .write(&kv_file_batch(&batch, n, &values_schema, kv)?)
            .await?;
    }
    let after = as_compacted(writer.flush().await?, max_level);
    Ok(Some((files, after)))
}

/// A merged batch (table columns, then `_SEQUENCE_NUMBER` and `_VALUE_KIND` at `n` and `n + 1`)
/// in the key-value file layout. The merge gave merged rows the kind and sequence number of
/// Java's `getResult` (partial-update and aggregation rows are `+I`).
pub(super) fn kv_file_batch(
    batch: &RecordBatch,
    n: usize,
    values_schema: &arrow_schema::SchemaRef,
    kv: &KvLayout,
) -> Result<RecordBatch> {
    let column = |i: usize| {
        batch
            .columns()
            .get(i)
            .cloned()
            .ok_or_else(|| Error::internal("merged system column missing"))
    };
    let seq = column(n)?.as_primitive::<Int64Type>().clone();
    let kinds = column(n + 1)?.as_primitive::<Int8Type>().clone();
    let values = RecordBatch::try_new(
        values_schema.clone(),
        batch
            .columns()
            .get(..n)
            .ok_or_else(|| Error::internal("merged batch lacks table columns"))?
            .to_vec(),
    )?;
    kv.file_batch(&values, seq, kinds)
}
