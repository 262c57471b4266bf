//! Assembling merged rows into record batches without per-row allocation.
//!
//! Plays the role of Java's `KeyValue` reuse in `SortMergeReader`: instead of copying values,
//! every output cell is an index `(source, row)` into a pool of decoded batches (or into a
//! small per-column list of computed values); a flush gathers them with
//! `arrow_select::interleave`. Whole-row engines (deduplicate, first-row) use one index list
//! for all columns; per-column engines (partial-update, aggregation) one list per column.

use std::sync::Arc;

use arrow_array::{new_null_array, Array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{Field, Schema, SchemaRef};
use arrow_select::interleave::interleave;

use crate::{Error, Result};

/// Sources at or above this index refer to computed values of one column.
pub const COMPUTED: usize = 1 << 48;

/// The pool of batches that output indices refer to. Source 0 is always a one-row all-null
/// batch (for cells that merge to null).
#[derive(Debug)]
pub struct Pool {
    batches: Vec<RecordBatch>,
    schema: SchemaRef,
}

impl Pool {
    /// A pool for batches of `schema` (all of its fields are made nullable).
    pub fn new(schema: &SchemaRef) -> Result<Self> {
        let fields: Vec<Field> = schema
            .fields()
            .iter()
            .map(|f| f.as_ref().clone().with_nullable(true))
            .collect();
        let schema = Arc::new(Schema::new(fields));
        let nulls = schema
            .fields()
            .iter()
            .map(|f| new_null_array(f.data_type(), 1))
            .collect();
        let null_row = RecordBatch::try_new(schema.clone(), nulls)?;
        Ok(Pool {
            batches: vec![null_row],
            schema,
        })
    }

    /// The source index of the all-null row.
    pub const NULL: usize = 0;

    /// Adds a batch; returns its source index.
    pub fn push(&mut self, batch: RecordBatch) -> usize {
        self.batches.push(batch);
        self.batches.len() - 1
    }

    /// The batch of source `i`.
    pub fn get(&self, i: usize) -> Option<&RecordBatch> {
        self.batches.get(i)
    }

    /// Column `c` of source `src`.
    pub fn column(&self, src: usize, c: usize) -> Result<&ArrayRef> {
        self.batches
            .get(src)
            .and_then(|b| b.columns().get(c))
            .ok_or_else(|| Error::internal(format!("merge pool has no column {c} of {src}")))
    }

    /// Keeps only the null row and the sources `keep` (in order); returns their new indices.
    pub fn retain(&mut self, keep: &[usize]) -> Vec<usize> {
        let mut next: Vec<RecordBatch> = self.batches.iter().take(1).cloned().collect();
        let mut out = Vec::with_capacity(keep.len());
        for &k in keep {
            match self.batches.get(k) {
                Some(b) => {
                    next.push(b.clone());
                    out.push(next.len() - 1);
                }
                None => out.push(Pool::NULL),
            }
        }
        self.batches = next;
        out
    }
}

/// Output cell indices waiting for a flush.
#[derive(Debug)]
pub struct Output {
    per_column: bool,
    rows: Vec<(usize, usize)>,
    columns: Vec<Vec<(usize, usize)>>,
    computed: Vec<Vec<ArrayRef>>,
    len: usize,
}

impl Output {
    /// An empty output of `ncols` columns.
    pub fn new(ncols: usize, per_column: bool) -> Self {
        Output {
            per_column,
            rows: Vec::new(),
            columns: vec![Vec::new(); if per_column { ncols } else { 0 }],
            computed: vec![Vec::new(); if per_column { ncols } else { 0 }],
            len: 0,
        }
    }

    /// Rows waiting.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no rows wait.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Emits row `row` of source `src` unchanged.
    pub fn push_row(&mut self, src: usize, row: usize) {
        if self.per_column {
            for c in &mut self.columns {
                c.push((src, row));
            }
        } else {
            self.rows.push((src, row));
        }
        self.len += 1;
    }

    /// Emits a row assembled per column: `cells[c]` is the source cell of column `c`, or a
    /// computed one-value array.
    pub fn push_cells(&mut self, cells: &mut [Cell]) -> Result<()> {
        if !self.per_column || cells.len() != self.columns.len() {
            return Err(Error::internal("per-column output used with a row layout"));
        }
        for ((col, comp), cell) in self.columns.iter_mut().zip(&mut self.computed).zip(cells) {
            match std::mem::replace(cell, Cell::Null) {
                Cell::Null => col.push((Pool::NULL, 0)),
                Cell::At(src, row) => col.push((src, row)),
                Cell::Value(a) => {
                    comp.push(a);
                    col.push((COMPUTED + comp.len() - 1, 0));
                }
            }
        }
        self.len += 1;
        Ok(())
    }

    /// Gathers the waiting rows into one batch of the pool's schema and clears them.
    pub fn flush(&mut self, pool: &Pool) -> Result<RecordBatch> {
        let n = pool.schema.fields().len();
        let mut cols = Vec::with_capacity(n);
        for c in 0..n {
            let mut arrays: Vec<&dyn Array> =
                pool.batches.iter().map(|b| b.column(c).as_ref()).collect();
            let col = if self.per_column {
                let comp = self.computed.get(c).map(Vec::as_slice).unwrap_or_default();
                arrays.extend(comp.iter().map(|a| a.as_ref()));
                let base = pool.batches.len();
                let idx = self
                    .columns
                    .get_mut(c)
                    .ok_or_else(|| Error::internal("output column missing"))?;
                for (src, _) in idx.iter_mut() {
                    if *src >= COMPUTED {
                        *src = base + (*src - COMPUTED);
                    }
                }
                interleave(&arrays, idx)?
            } else {
                interleave(&arrays, &self.rows)?
            };
            cols.push(col);
        }
        self.rows.clear();
        self.columns.iter_mut().for_each(Vec::clear);
        self.computed.iter_mut().for_each(Vec::clear);
        let rows = self.len;
        self.len = 0;
        let options = RecordBatchOptions::new().with_row_count(Some(rows));
        Ok(RecordBatch::try_new_with_options(
            pool.schema.clone(),
            cols,
            &options,
        )?)
    }
}

/// One merged cell.
#[derive(Debug, Clone, Default)]
pub enum Cell {
    /// Null.
    #[default]
    Null,
    /// The value at `(source, row)` of the same column.
    At(usize, usize),
    /// A computed one-row array.
    Value(ArrayRef),
}
