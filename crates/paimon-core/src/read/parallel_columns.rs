//! Column-parallel decoding of a tiny Parquet selection (a point lookup's few rows).
//!
//! One arrow-rs reader decodes its columns one after another. For a selection of a handful of
//! rows that is all decompression: each column's dictionary and data page (often ~1 MB each)
//! must be decompressed whole to get one value out. Decoding every projected top-level column
//! in its own task lets those pages decompress on every core; the per-column batches are then
//! zipped back into exactly the batches one reader would give (same row selection and batch
//! size, so the same batch boundaries in every column).

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{FieldRef, Schema};
use futures::TryStreamExt;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, RowSelection};
use parquet::arrow::{ParquetRecordBatchStreamBuilder, ProjectionMask};
use std::sync::Arc;

use super::parquet::{parquet_error, FileIoParquetReader};
use crate::{Error, Result};

/// What to decode: the file, its kept row groups and the selected rows in them.
pub(crate) struct ColumnJob {
    /// A reader of the file (cloned per column).
    pub(crate) reader: FileIoParquetReader,
    /// The file's metadata.
    pub(crate) meta: ArrowReaderMetadata,
    /// Row groups to decode.
    pub(crate) row_groups: Vec<usize>,
    /// Rows selected in them.
    pub(crate) selection: RowSelection,
    /// Batch size of the read.
    pub(crate) batch_size: usize,
    /// The file, for errors.
    pub(crate) location: String,
}

/// Decodes the top-level columns `roots` of `job` each in its own task and zips the results:
/// the batches a single reader projecting `roots` would return. `None` when the per-column
/// batches disagree in count or length, or there is only one column (the caller then decodes
/// with one reader).
pub(crate) async fn decode(job: ColumnJob, roots: &[usize]) -> Result<Option<Vec<RecordBatch>>> {
    if roots.len() < 2 {
        return Ok(None);
    }
    let mut roots = roots.to_vec();
    // One reader returns columns in file order, whatever order the mask was built from.
    roots.sort_unstable();
    roots.dedup();
    let tasks: Vec<_> = roots
        .iter()
        .map(|&root| {
            let mask = ProjectionMask::roots(job.meta.parquet_schema(), [root]);
            let builder = ParquetRecordBatchStreamBuilder::new_with_metadata(
                job.reader.clone(),
                job.meta.clone(),
            )
            .with_projection(mask)
            .with_batch_size(job.batch_size.max(1))
            .with_row_groups(job.row_groups.clone())
            .with_row_selection(job.selection.clone());
            let loc = job.location.clone();
            tokio::spawn(async move {
                let stream = builder.build().map_err(|e| parquet_error(e, &loc))?;
                stream
                    .try_collect::<Vec<RecordBatch>>()
                    .await
                    .map_err(|e| parquet_error(e, &loc))
            })
        })
        .collect();
    let mut columns = Vec::with_capacity(tasks.len());
    for t in futures::future::join_all(tasks).await {
        let batches = t.map_err(|e| {
            Error::internal(format!("column decode task failed: {e}"))
                .with_context("file", job.location.clone())
        })??;
        columns.push(batches);
    }
    Ok(zip(columns))
}

/// Batch `i` of the result holds batch `i` of every column, side by side; `None` when the
/// columns do not agree on batch count and lengths.
fn zip(columns: Vec<Vec<RecordBatch>>) -> Option<Vec<RecordBatch>> {
    let first = columns.first()?;
    let lengths: Vec<usize> = first.iter().map(RecordBatch::num_rows).collect();
    let agree = columns.iter().all(|c| {
        c.len() == lengths.len() && c.iter().zip(&lengths).all(|(b, n)| b.num_rows() == *n)
    });
    if !agree {
        return None;
    }
    (0..lengths.len())
        .map(|i| {
            let mut fields: Vec<FieldRef> = Vec::new();
            let mut arrays: Vec<ArrayRef> = Vec::new();
            for c in &columns {
                let b = &c[i];
                fields.extend(b.schema().fields().iter().cloned());
                arrays.extend(b.columns().iter().cloned());
            }
            let options = RecordBatchOptions::new().with_row_count(Some(lengths[i]));
            RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), arrays, &options).ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Int32Array, StringArray};
    use arrow_schema::{DataType, Field};

    fn batch(name: &str, values: ArrayRef) -> RecordBatch {
        let f = Field::new(name, values.data_type().clone(), true);
        RecordBatch::try_new(Arc::new(Schema::new(vec![f])), vec![values]).unwrap()
    }

    #[test]
    fn zips_columns_batch_by_batch() {
        let a = vec![
            batch("a", Arc::new(Int32Array::from(vec![1, 2]))),
            batch("a", Arc::new(Int32Array::from(vec![3]))),
        ];
        let b = vec![
            batch("b", Arc::new(StringArray::from(vec!["x", "y"]))),
            batch("b", Arc::new(StringArray::from(vec!["z"]))),
        ];
        let out = zip(vec![a, b]).unwrap();
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].num_rows(), 2);
        assert_eq!(out[1].schema().field(1).name(), "b");
        assert_eq!(out[1].schema().field(1).data_type(), &DataType::Utf8);
    }

    #[test]
    fn disagreeing_columns_are_refused() {
        let a = vec![batch("a", Arc::new(Int32Array::from(vec![1, 2])))];
        let b = vec![batch("b", Arc::new(Int32Array::from(vec![1])))];
        assert!(zip(vec![a, b]).is_none());
        let c = vec![];
        let d = vec![batch("d", Arc::new(Int32Array::from(vec![1])))];
        assert!(zip(vec![c, d]).is_none());
    }
}
