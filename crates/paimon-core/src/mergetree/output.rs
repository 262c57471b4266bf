//! Assembling merged rows into record batches without per-row allocation.
//!
//! Plays the role of Java's `KeyValue` reuse in `SortMergeReader`: instead of copying values,
//! every output cell is an index `(source, row)` into a pool of decoded batches, into a
//! per-column buffer of computed scalars (sums, products, … : no allocation per row, the
//! buffer becomes one array per flush) or into a small per-column list of computed arrays
//! (collections, strings); a flush gathers them with `arrow_select::interleave`. Whole-row engines (deduplicate, first-row) use one index list
//! for all columns; per-column engines (partial-update, aggregation) one list per column.

use std::sync::Arc;

use arrow_array::types::{
    ArrowPrimitiveType, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
};
use arrow_array::{
    new_null_array, Array, ArrayRef, BooleanArray, Decimal128Array, PrimitiveArray, RecordBatch,
    RecordBatchOptions,
};
use arrow_schema::{DataType as ArrowType, Field, Schema, SchemaRef};
use arrow_select::interleave::interleave;

use crate::{Error, Result};

/// Sources at or above this index refer to computed values of one column.
pub const COMPUTED: usize = 1 << 48;

/// The source of cells held in the per-column scalar buffer (the row is the buffer index).
pub const SCALARS: usize = usize::MAX;

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

    /// The Arrow type of column `c`.
    pub fn data_type(&self, c: usize) -> Result<&ArrowType> {
        self.schema
            .fields()
            .get(c)
            .map(|f| f.data_type())
            .ok_or_else(|| Error::internal(format!("merge pool has no column {c}")))
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
    scalars: Vec<Vec<Scalar>>,
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
            scalars: vec![Vec::new(); if per_column { ncols } else { 0 }],
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
    /// computed scalar or one-value array. The cells are left null.
    pub fn push_cells(&mut self, cells: &mut [Cell]) -> Result<()> {
        if !self.per_column || cells.len() != self.columns.len() {
            return Err(Error::internal("per-column output used with a row layout"));
        }
        let targets = self
            .columns
            .iter_mut()
            .zip(&mut self.computed)
            .zip(&mut self.scalars);
        for (((col, comp), scalars), cell) in targets.zip(cells) {
            match std::mem::replace(cell, Cell::Null) {
                Cell::Null => col.push((Pool::NULL, 0)),
                Cell::At(src, row) => col.push((src, row)),
                Cell::Scalar(v) => {
                    scalars.push(v);
                    col.push((SCALARS, scalars.len() - 1));
                }
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
                let scalars = self.scalars.get(c).map(Vec::as_slice).unwrap_or_default();
                let scalars = match scalars.is_empty() {
                    true => None,
                    false => Some(scalar_array(pool.data_type(c)?, scalars)?),
                };
                let comp = self.computed.get(c).map(Vec::as_slice).unwrap_or_default();
                let base = pool.batches.len();
                let comp_base = base + usize::from(scalars.is_some());
                arrays.extend(scalars.as_deref());
                arrays.extend(comp.iter().map(|a| a.as_ref()));
                let idx = self
                    .columns
                    .get_mut(c)
                    .ok_or_else(|| Error::internal("output column missing"))?;
                if comp_base > base || !comp.is_empty() {
                    for (src, _) in idx.iter_mut() {
                        if *src == SCALARS {
                            *src = base;
                        } else if *src >= COMPUTED {
                            *src = comp_base + (*src - COMPUTED);
                        }
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
        self.scalars.iter_mut().for_each(Vec::clear);
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
    /// A computed scalar of the column's type (no allocation).
    Scalar(Scalar),
    /// A computed one-row array (collections, strings).
    Value(ArrayRef),
}

/// A computed non-null value of a numeric or boolean column; the column's Arrow type says
/// how it is stored (and [`Output`] appends it to a buffer, not to an array of its own).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// A TINYINT / SMALLINT / INT / BIGINT, already range-checked for the column's width.
    Int(i64),
    /// A FLOAT.
    F32(f32),
    /// A DOUBLE.
    F64(f64),
    /// The unscaled value of a DECIMAL.
    Decimal(i128),
    /// A BOOLEAN.
    Bool(bool),
}

fn mismatch(t: &ArrowType, v: &Scalar) -> Error {
    Error::internal(format!("computed {v:?} does not fit a {t} column"))
}

/// The values of `values`, each converted by `f` (a mismatch is an internal error).
fn each<N>(t: &ArrowType, values: &[Scalar], f: impl Fn(&Scalar) -> Option<N>) -> Result<Vec<N>> {
    values
        .iter()
        .map(|s| f(s).ok_or_else(|| mismatch(t, s)))
        .collect()
}

fn ints<T: ArrowPrimitiveType>(t: &ArrowType, values: &[Scalar]) -> Result<ArrayRef>
where
    T::Native: TryFrom<i64>,
{
    let v = each(t, values, |s| match s {
        Scalar::Int(x) => T::Native::try_from(*x).ok(),
        _ => None,
    })?;
    Ok(Arc::new(PrimitiveArray::<T>::from_iter_values(v)))
}

/// One array of type `t` holding `values` (one per flush and column).
fn scalar_array(t: &ArrowType, values: &[Scalar]) -> Result<ArrayRef> {
    Ok(match t {
        ArrowType::Int8 => ints::<Int8Type>(t, values)?,
        ArrowType::Int16 => ints::<Int16Type>(t, values)?,
        ArrowType::Int32 => ints::<Int32Type>(t, values)?,
        ArrowType::Int64 => ints::<Int64Type>(t, values)?,
        ArrowType::Float32 => Arc::new(PrimitiveArray::<Float32Type>::from(each(
            t,
            values,
            |s| match s {
                Scalar::F32(x) => Some(*x),
                _ => None,
            },
        )?)),
        ArrowType::Float64 => Arc::new(PrimitiveArray::<Float64Type>::from(each(
            t,
            values,
            |s| match s {
                Scalar::F64(x) => Some(*x),
                _ => None,
            },
        )?)),
        ArrowType::Decimal128(p, s) => {
            let v = each(t, values, |v| match v {
                Scalar::Decimal(x) => Some(*x),
                _ => None,
            })?;
            Arc::new(Decimal128Array::from(v).with_precision_and_scale(*p, *s)?)
        }
        ArrowType::Boolean => Arc::new(BooleanArray::from(each(t, values, |s| match s {
            Scalar::Bool(b) => Some(*b),
            _ => None,
        })?)),
        other => {
            return Err(Error::internal(format!(
                "computed scalar in a {other} column"
            )))
        }
    })
}

#[cfg(test)]
#[path = "scalar_tests.rs"]
mod scalar_tests;
