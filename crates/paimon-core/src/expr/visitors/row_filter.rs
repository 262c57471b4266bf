//! Exact evaluation of a bound predicate on an Arrow record batch (the residual filter).
//!
//! Plays the role of Java `org.apache.paimon.predicate.Predicate#test(InternalRow)` applied
//! after reading, vectorised with arrow kernels (`arrow_ord::cmp`, `arrow_arith::boolean`) over
//! whole columns, as iceberg-rust's `arrow/reader/row_filter.rs` does. Semantics are SQL's: a
//! null operand makes a comparison unknown and the row is dropped; the returned mask has no
//! nulls (unknown = false), which is exact because bound predicates have no `NOT` node.
//! Floats use the IEEE total order of arrow (equal to Java's `Double.compare` for canonical
//! NaN: NaN is the largest value, -0.0 < 0.0).
//!
//! Columns are found by field id: `fields[i]` is the Paimon field of batch column `i`. A column
//! whose Arrow type differs from the field type's canonical mapping (`Utf8View`, another
//! timestamp unit or decimal scale, ...) is compared exactly: the literal is cast to the
//! column's type when that round-trips, otherwise the column is cast to the literal's type.

use std::sync::Arc;

use arrow_arith::boolean;
use arrow_array::cast::AsArray;
use arrow_array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, Float32Array,
    Float64Array, Int16Array, Int32Array, Int64Array, Int8Array, RecordBatch, Scalar, StringArray,
    Time32MillisecondArray, TimestampMicrosecondArray, TimestampMillisecondArray,
    TimestampNanosecondArray,
};
use arrow_buffer::BooleanBuffer;
use arrow_cast::cast::{cast_with_options, CastOptions};
use arrow_schema::DataType as ArrowType;

use crate::expr::bound::{BoundField, BoundPredicate, LeafOp};
use crate::expr::visitors::{visit, BoundPredicateVisitor};
use crate::spec::datum::{Datum, Timestamp};
use crate::spec::types::{DataField, DataType, TypeKind};
use crate::{Error, Result};

/// The rows of `batch` that satisfy `pred`, as a mask without nulls.
///
/// `fields[i]` is the Paimon field of column `i`; a predicate field id missing from `fields`
/// is an `InvalidArgument` error.
pub fn filter_batch(
    pred: &BoundPredicate,
    batch: &RecordBatch,
    fields: &[DataField],
) -> Result<BooleanArray> {
    if fields.len() != batch.num_columns() {
        return Err(Error::invalid_argument(format!(
            "row filter got {} fields for a batch of {} columns",
            fields.len(),
            batch.num_columns()
        )));
    }
    visit(pred, &mut RowFilter { batch, fields })
}

struct RowFilter<'a> {
    batch: &'a RecordBatch,
    fields: &'a [DataField],
}

impl BoundPredicateVisitor for RowFilter<'_> {
    type Output = BooleanArray;

    fn always_true(&mut self) -> Result<BooleanArray> {
        Ok(BooleanArray::new(
            BooleanBuffer::new_set(self.batch.num_rows()),
            None,
        ))
    }

    fn always_false(&mut self) -> Result<BooleanArray> {
        Ok(BooleanArray::new(
            BooleanBuffer::new_unset(self.batch.num_rows()),
            None,
        ))
    }

    fn and(&mut self, children: Vec<BooleanArray>) -> Result<BooleanArray> {
        fold(children, boolean::and, || self.always_true())
    }

    fn or(&mut self, children: Vec<BooleanArray>) -> Result<BooleanArray> {
        fold(children, boolean::or, || self.always_false())
    }

    fn leaf(&mut self, field: &BoundField, op: &LeafOp) -> Result<BooleanArray> {
        let col = self.column(field)?;
        let mask = match op {
            LeafOp::IsNull => boolean::is_null(col.as_ref())?,
            LeafOp::IsNotNull => boolean::is_not_null(col.as_ref())?,
            LeafOp::Eq(v) => compare(&col, v, field, arrow_ord::cmp::eq)?,
            LeafOp::NotEq(v) => compare(&col, v, field, arrow_ord::cmp::neq)?,
            LeafOp::Lt(v) => compare(&col, v, field, arrow_ord::cmp::lt)?,
            LeafOp::LtEq(v) => compare(&col, v, field, arrow_ord::cmp::lt_eq)?,
            LeafOp::Gt(v) => compare(&col, v, field, arrow_ord::cmp::gt)?,
            LeafOp::GtEq(v) => compare(&col, v, field, arrow_ord::cmp::gt_eq)?,
            LeafOp::In(vs) => {
                let masks = vs
                    .iter()
                    .map(|v| compare(&col, v, field, arrow_ord::cmp::eq))
                    .collect::<Result<Vec<_>>>()?;
                fold(masks, boolean::or, || self.always_false())?
            }
            LeafOp::NotIn(vs) => {
                let masks = vs
                    .iter()
                    .map(|v| compare(&col, v, field, arrow_ord::cmp::neq))
                    .collect::<Result<Vec<_>>>()?;
                fold(masks, boolean::and, || {
                    boolean::is_not_null(col.as_ref()).map_err(Into::into)
                })?
            }
            LeafOp::StartsWith(p) => starts_with(&col, p, false)?,
            LeafOp::NotStartsWith(p) => starts_with(&col, p, true)?,
        };
        Ok(null_to_false(mask))
    }
}

impl RowFilter<'_> {
    fn column(&self, field: &BoundField) -> Result<ArrayRef> {
        self.fields
            .iter()
            .position(|f| f.id == field.id)
            .and_then(|i| self.batch.columns().get(i).cloned())
            .ok_or_else(|| {
                Error::invalid_argument(format!(
                    "row filter references field '{}' (id {}) that is not in the batch",
                    field.name, field.id
                ))
                .with_context("field_id", field.id.to_string())
            })
    }
}

fn fold(
    masks: Vec<BooleanArray>,
    op: fn(
        &BooleanArray,
        &BooleanArray,
    ) -> std::result::Result<BooleanArray, arrow_schema::ArrowError>,
    empty: impl FnOnce() -> Result<BooleanArray>,
) -> Result<BooleanArray> {
    let mut it = masks.into_iter();
    let Some(mut acc) = it.next() else {
        return empty();
    };
    for m in it {
        acc = op(&acc, &m)?;
    }
    Ok(acc)
}

fn null_to_false(mask: BooleanArray) -> BooleanArray {
    if mask.null_count() == 0 {
        mask
    } else {
        arrow_select::filter::prep_null_mask_filter(&mask)
    }
}

type CmpKernel = fn(
    &dyn arrow_array::Datum,
    &dyn arrow_array::Datum,
) -> std::result::Result<BooleanArray, arrow_schema::ArrowError>;

fn compare(
    col: &ArrayRef,
    lit: &Datum,
    field: &BoundField,
    kernel: CmpKernel,
) -> Result<BooleanArray> {
    let lit = literal_array(lit, &field.data_type)?;
    let (col, lit) = align(col, lit)?;
    Ok(kernel(&col, &Scalar::new(lit))?)
}

fn strict() -> CastOptions<'static> {
    CastOptions {
        safe: false,
        ..Default::default()
    }
}

/// Makes column and literal the same Arrow type without losing exactness.
fn align(col: &ArrayRef, lit: ArrayRef) -> Result<(ArrayRef, ArrayRef)> {
    if col.data_type() == lit.data_type() {
        return Ok((col.clone(), lit));
    }
    if let Ok(in_col_type) = cast_with_options(&lit, col.data_type(), &strict()) {
        let back = cast_with_options(&in_col_type, lit.data_type(), &strict());
        if matches!(&back, Ok(b) if b.to_data() == lit.to_data()) {
            return Ok((col.clone(), in_col_type));
        }
    }
    let col = cast_with_options(col, lit.data_type(), &strict()).map_err(|e| {
        Error::invalid_argument(format!(
            "cannot compare a column of Arrow type {} with a {} literal: {e}",
            col.data_type(),
            lit.data_type()
        ))
    })?;
    Ok((col, lit))
}

fn starts_with(col: &ArrayRef, prefix: &str, negate: bool) -> Result<BooleanArray> {
    let test = |s: Option<&str>| s.map(|s| s.starts_with(prefix) != negate);
    Ok(match col.data_type() {
        ArrowType::Utf8 => col.as_string::<i32>().iter().map(test).collect(),
        ArrowType::LargeUtf8 => col.as_string::<i64>().iter().map(test).collect(),
        ArrowType::Utf8View => col.as_string_view().iter().map(test).collect(),
        _ => {
            let c = cast_with_options(col, &ArrowType::Utf8, &strict())?;
            c.as_string::<i32>().iter().map(test).collect()
        }
    })
}

/// A one-element array holding `d` in the canonical Arrow type of `ty`.
fn literal_array(d: &Datum, ty: &DataType) -> Result<ArrayRef> {
    let mismatch = || {
        Error::internal(format!(
            "bound literal {d} does not match its field type {ty}"
        ))
    };
    Ok(match (d, &ty.kind) {
        (Datum::Boolean(v), _) => Arc::new(BooleanArray::from(vec![*v])),
        (Datum::TinyInt(v), _) => Arc::new(Int8Array::from(vec![*v])),
        (Datum::SmallInt(v), _) => Arc::new(Int16Array::from(vec![*v])),
        (Datum::Int(v), _) => Arc::new(Int32Array::from(vec![*v])),
        (Datum::BigInt(v), _) => Arc::new(Int64Array::from(vec![*v])),
        (Datum::Float(v), _) => Arc::new(Float32Array::from(vec![*v])),
        (Datum::Double(v), _) => Arc::new(Float64Array::from(vec![*v])),
        (Datum::Decimal(dec), _) => {
            let scale = i8::try_from(dec.scale).map_err(|_| mismatch())?;
            let precision = u8::try_from(dec.precision).map_err(|_| mismatch())?;
            Arc::new(
                Decimal128Array::from(vec![dec.unscaled])
                    .with_precision_and_scale(precision, scale)?,
            )
        }
        (Datum::String(s), _) => Arc::new(StringArray::from(vec![s.as_str()])),
        (Datum::Binary(b), _) => Arc::new(BinaryArray::from_vec(vec![b.as_slice()])),
        (Datum::Date(v), _) => Arc::new(Date32Array::from(vec![*v])),
        (Datum::Time(v), _) => Arc::new(Time32MillisecondArray::from(vec![*v])),
        (Datum::Timestamp(ts), TypeKind::Timestamp(p)) => timestamp_array(*ts, *p, None)?,
        (Datum::LocalZonedTimestamp(ts), TypeKind::LocalZonedTimestamp(p)) => {
            timestamp_array(*ts, *p, Some("UTC"))?
        }
        _ => return Err(mismatch()),
    })
}

fn timestamp_array(ts: Timestamp, precision: u32, tz: Option<&str>) -> Result<ArrayRef> {
    let out_of_range = || {
        Error::invalid_argument(format!(
            "timestamp literal {ts:?} is out of range for TIMESTAMP({precision})"
        ))
    };
    let arr: ArrayRef = if precision <= 3 {
        Arc::new(TimestampMillisecondArray::from(vec![ts.millis]).with_timezone_opt(tz))
    } else if precision <= 6 {
        let micros = ts
            .millis
            .checked_mul(1000)
            .and_then(|m| m.checked_add(i64::from(ts.nanos / 1000)))
            .ok_or_else(out_of_range)?;
        Arc::new(TimestampMicrosecondArray::from(vec![micros]).with_timezone_opt(tz))
    } else {
        let nanos = i64::try_from(ts.to_nanos()).map_err(|_| out_of_range())?;
        Arc::new(TimestampNanosecondArray::from(vec![nanos]).with_timezone_opt(tz))
    };
    Ok(arr)
}

#[cfg(test)]
#[path = "row_filter_tests.rs"]
mod tests;
