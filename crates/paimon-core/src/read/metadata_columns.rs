//! Per-row metadata columns of a data-file read: the file's path and the row's position in it.
//!
//! Mirrors the metadata columns of Java Paimon's Spark connector
//! (`org.apache.paimon.spark.schema.PaimonMetadataColumn`, Paimon 2.0): `__paimon_file_path`
//! (STRING, id `Integer.MAX_VALUE - 101`) and `__paimon_row_index` (BIGINT, id
//! `Integer.MAX_VALUE - 100`), filled there from `FileRecordIterator#filePath` and
//! `#returnedPosition`. Java core has no such fields in `SpecialFields`; paimon-cpp and
//! pypaimon define none. Divergence: both are NOT NULL here (Spark declares them nullable for
//! outer joins).
//!
//! The position is the 0-based physical row index in the file: it counts every stored row,
//! including rows removed by deletion vectors or outside the requested row ranges (the position
//! space of deletion vectors, `docs/format.md` "Row positions"). The format readers report the file
//! positions of the rows they emit as sorted disjoint ranges; [`MetadataFiller`] turns the next
//! `n` of them into one `Int64Array` per batch (no per-row allocation). The path column is one
//! string array built once per file and sliced per batch.
//!
//! These columns are never read from a file: [`MetadataFiller::split`] removes them from the
//! read fields before the format reader runs and [`MetadataFiller::fill`] inserts them into
//! every batch at their requested positions.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, RecordBatchOptions, StringArray};
use arrow_schema::{FieldRef, Schema};

use crate::arrow::schema::arrow_field;
use crate::spec::row_range::RowRange;
use crate::spec::types::DataField;
use crate::{Error, Result};

use crate::spec::special_fields::{FILE_PATH_ID, ROW_INDEX_ID};

/// Whether `id` is one of the metadata columns filled by [`MetadataFiller`].
pub fn is_metadata_column(id: i32) -> bool {
    id == ROW_INDEX_ID || id == FILE_PATH_ID
}

/// The file positions of the rows a format reader emits, handed out batch by batch.
#[derive(Debug, Clone)]
pub struct RowPositions {
    ranges: Vec<RowRange>,
    index: usize,
    next: u64,
}

impl RowPositions {
    /// Positions covering `ranges` (sorted, disjoint), in order.
    pub fn new(ranges: Vec<RowRange>) -> Self {
        let next = ranges.first().map_or(0, |r| r.start);
        RowPositions {
            ranges,
            index: 0,
            next,
        }
    }

    /// The next `n` positions; an error if fewer remain (the decoder emitted more rows than
    /// it was asked to select).
    pub fn take(&mut self, n: usize) -> Result<Int64Array> {
        // `n` is the length of a batch already decoded, not an untrusted count.
        let mut out: Vec<i64> = Vec::with_capacity(n);
        while out.len() < n {
            let Some(r) = self.ranges.get(self.index) else {
                return Err(Error::internal(format!(
                    "decoder emitted more rows than selected ({} positions missing)",
                    n - out.len()
                )));
            };
            let want = (n - out.len()) as u64;
            let end = r.end.min(self.next.saturating_add(want));
            let (start, end_i) = (to_i64(self.next)?, to_i64(end)?);
            out.extend(start..end_i);
            self.next = end;
            if end >= r.end {
                self.index += 1;
                self.next = self.ranges.get(self.index).map_or(end, |r| r.start);
            }
        }
        Ok(Int64Array::from(out))
    }
}

fn to_i64(v: u64) -> Result<i64> {
    i64::try_from(v).map_err(|_| Error::data_invalid(format!("row position {v} exceeds BIGINT")))
}

/// Where the metadata columns go in a batch of the requested read fields.
#[derive(Debug, Clone)]
pub struct MetadataFiller {
    /// (position in the read fields, field id, Arrow field), ascending by position.
    slots: Vec<(usize, i32, FieldRef)>,
    path: String,
    path_values: Option<StringArray>,
}

impl MetadataFiller {
    /// Splits `read_fields` into the fields to decode from the file and, when any metadata
    /// column is requested, the filler that inserts them (`path` = the file's location).
    pub fn split(read_fields: &[DataField], path: &str) -> Result<(Vec<DataField>, Option<Self>)> {
        let mut slots = Vec::new();
        let mut rest = Vec::with_capacity(read_fields.len());
        for (i, f) in read_fields.iter().enumerate() {
            if is_metadata_column(f.id) {
                slots.push((i, f.id, Arc::new(arrow_field(f)?)));
            } else {
                rest.push(f.clone());
            }
        }
        let filler = (!slots.is_empty()).then(|| MetadataFiller {
            slots,
            path: path.to_string(),
            path_values: None,
        });
        Ok((rest, filler))
    }

    /// Whether the row-position column is requested.
    #[cfg(test)]
    pub fn wants_positions(&self) -> bool {
        self.slots.iter().any(|s| s.1 == ROW_INDEX_ID)
    }

    /// `n` copies of the path, from one array grown when a larger batch comes.
    fn path_column(&mut self, n: usize) -> ArrayRef {
        let cached = self.path_values.as_ref().filter(|a| a.len() >= n);
        let values = match cached {
            Some(a) => a.clone(),
            None => {
                let a = StringArray::from_iter_values(std::iter::repeat_n(self.path.as_str(), n));
                self.path_values = Some(a.clone());
                a
            }
        };
        Arc::new(values.slice(0, n))
    }

    /// Inserts the metadata columns into `batch` (a batch of the decoded fields), taking the
    /// row positions from `positions`.
    pub fn fill(
        &mut self,
        batch: RecordBatch,
        positions: &mut RowPositions,
    ) -> Result<RecordBatch> {
        let n = batch.num_rows();
        let schema = batch.schema();
        let mut fields: Vec<FieldRef> = schema.fields().iter().cloned().collect();
        let mut columns = batch.columns().to_vec();
        for (at, id, field) in self.slots.clone() {
            let column: ArrayRef = if id == ROW_INDEX_ID {
                Arc::new(positions.take(n)?)
            } else {
                self.path_column(n)
            };
            if at > columns.len() {
                return Err(Error::internal("metadata column position out of range"));
            }
            fields.insert(at, field);
            columns.insert(at, column);
        }
        let options = RecordBatchOptions::new().with_row_count(Some(n));
        Ok(RecordBatch::try_new_with_options(
            Arc::new(Schema::new(fields)),
            columns,
            &options,
        )?)
    }
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;
    use crate::spec::special_fields::{file_path_field, row_index_field};
    use crate::spec::types::{DataType, TypeKind};

    #[test]
    fn positions_follow_the_ranges_across_batches() {
        let mut p = RowPositions::new(vec![2..5, 7..8, 10..13]);
        assert_eq!(p.take(2).unwrap().values(), &[2, 3]);
        assert_eq!(p.take(3).unwrap().values(), &[4, 7, 10]);
        assert_eq!(p.take(0).unwrap().len(), 0);
        assert_eq!(p.take(2).unwrap().values(), &[11, 12]);
        assert!(p.take(1).is_err());
        let mut open = RowPositions::new(vec![0..u64::MAX]);
        assert_eq!(open.take(3).unwrap().values(), &[0, 1, 2]);
        assert_eq!(open.take(1).unwrap().values(), &[3]);
    }

    #[test]
    fn filler_inserts_columns_at_their_positions() {
        let a = DataField::new(0, "a", DataType::nullable(TypeKind::Int));
        let read = vec![file_path_field(), a.clone(), row_index_field()];
        let (rest, filler) = MetadataFiller::split(&read, "/t/f.parquet").unwrap();
        assert_eq!(rest, vec![a.clone()]);
        let mut filler = filler.unwrap();
        assert!(filler.wants_positions());
        let schema = crate::arrow::arrow_schema(&rest).unwrap();
        let batch = RecordBatch::try_new(
            schema,
            vec![Arc::new(arrow_array::Int32Array::from(vec![5, 6]))],
        )
        .unwrap();
        let mut pos = RowPositions::new(vec![3..4, 9..10]);
        let out = filler.fill(batch, &mut pos).unwrap();
        assert_eq!(
            out.schema().as_ref(),
            crate::arrow::arrow_schema(&read).unwrap().as_ref()
        );
        let paths = out
            .column(0)
            .as_any()
            .downcast_ref::<StringArray>()
            .unwrap();
        assert_eq!(paths.value(1), "/t/f.parquet");
        let idx = out.column(2).as_any().downcast_ref::<Int64Array>().unwrap();
        assert_eq!(idx.values(), &[3, 9]);
        let (none, f) = MetadataFiller::split(&[a], "x").unwrap();
        assert!(f.is_none() && none.len() == 1);
    }
}
