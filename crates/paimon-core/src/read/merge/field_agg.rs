//! One field's aggregate function applied record by record: `agg`, `aggReversed`, `retract`.
//!
//! Mirrors Java `org.apache.paimon.mergetree.compact.aggregate.FieldAggregator` and its
//! `Field*Agg` subclasses plus `FieldIgnoreRetractAgg` (Paimon 2.0), as used by
//! `PartialUpdateMergeFunction` (aggregates inside sequence groups) and, for `collect` and
//! `merge_map`, by `AggregateMergeFunction`. Accumulators are [`Cell`]s: an input cell is kept
//! by reference where the Java function returns one of its arguments, and only computed
//! results (sums, collections, …) allocate a one-row array.
//!
//! Semantics (`acc` = accumulator, `in` = input, both nullable):
//! - `primary-key`, `last_value`: `in`; retract: `in` / null.
//! - `last_non_null_value`: `in` unless null; retract: null if `in` is non-null, else `acc`.
//! - `first_value` / `first_non_null_value`: the first (non-null) input since [`FieldAgg::reset`].
//! - `min`, `max`, `sum`, `product`, `bool_and`, `bool_or`, `merge_map`, `collect`: a null side
//!   yields the other side. `sum`/`product` use Java's exact integer arithmetic (overflow is an
//!   error, as Java's `ArithmeticException`); DECIMAL results that exceed the precision are null
//!   (Java `Decimal.fromBigDecimal`). `sum` retracts by subtracting (a null `acc` gives `-in`),
//!   `product` by dividing.
//! - `listagg`: joins with the delimiter, skipping blank sides.
//! - `aggReversed(acc, in)` = `agg(in, acc)`, except `collect` (= `agg(acc, in)`).
//! - Retracting a function without a retract is an error naming the field, unless
//!   `fields.<f>.ignore-retract = true` (then `acc` is kept).

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
};
use arrow_array::{
    Array, ArrayRef, BooleanArray, Decimal128Array, Float32Array, Float64Array, Int16Array,
    Int32Array, Int64Array, Int8Array, StringArray,
};
use arrow_cast::cast;
use arrow_ord::ord::make_comparator;
use arrow_schema::{DataType as ArrowType, SortOptions};

use super::aggregate::AggFunction;
use super::collection_agg::{self as coll, Picked};
use super::output::{Cell, Pool};
use crate::{Error, Result};

/// A non-null value: an array and a row of it.
pub type Val<'a> = (&'a dyn Array, usize);

/// The value of `cell` in column `c`, `None` when null.
pub fn value<'a>(cell: &'a Cell, pool: &'a Pool, c: usize) -> Result<Option<Val<'a>>> {
    let (a, i): (&dyn Array, usize) = match cell {
        Cell::Null => return Ok(None),
        Cell::At(src, row) => (pool.column(*src, c)?.as_ref(), *row),
        Cell::Value(a) => (a.as_ref(), 0),
    };
    Ok((!a.is_null(i)).then_some((a, i)))
}

/// One field's aggregate function with its per-key state.
#[derive(Debug, Clone)]
pub struct FieldAgg {
    func: AggFunction,
    ignore_retract: bool,
    name: String,
    initialized: bool,
}

enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

impl FieldAgg {
    /// The aggregator of field `name`.
    pub fn new(func: AggFunction, ignore_retract: bool, name: &str) -> Self {
        FieldAgg {
            func,
            ignore_retract,
            name: name.to_string(),
            initialized: false,
        }
    }

    /// The function.
    pub fn function(&self) -> &AggFunction {
        &self.func
    }

    /// Clears per-key state (Java `FieldAggregator#reset`).
    pub fn reset(&mut self) {
        self.initialized = false;
    }

    /// `agg(acc, input)` of column `c`.
    pub fn agg(&mut self, acc: Cell, input: Cell, pool: &Pool, c: usize) -> Result<Cell> {
        let a = value(&acc, pool, c)?;
        let i = value(&input, pool, c)?;
        let picked = match &self.func {
            AggFunction::Keep | AggFunction::LastValue => Picked::Input,
            AggFunction::LastNonNull => pick(i.is_none()),
            AggFunction::FirstValue => {
                let first = !self.initialized;
                self.initialized = true;
                pick(!first)
            }
            AggFunction::FirstNonNull => {
                let first = !self.initialized && i.is_some();
                self.initialized |= first;
                pick(!first)
            }
            AggFunction::ListAgg(delim) => listagg(a, i, delim)?,
            AggFunction::Collect { distinct } => coll::collect_agg(dtype(a, i), a, i, *distinct)?,
            AggFunction::MergeMap => coll::merge_map_agg(dtype(a, i), a, i)?,
            f => match (a, i) {
                (None, _) => Picked::Input,
                (_, None) => Picked::Acc,
                (Some(a), Some(i)) => binary(f, a, i)?,
            },
        };
        Ok(resolve(picked, acc, input))
    }

    /// `aggReversed(acc, input)`: the input is older than the accumulator.
    pub fn agg_reversed(&mut self, acc: Cell, input: Cell, pool: &Pool, c: usize) -> Result<Cell> {
        if matches!(self.func, AggFunction::Collect { .. }) {
            self.agg(acc, input, pool, c)
        } else {
            self.agg(input, acc, pool, c)
        }
    }

    /// `retract(acc, input)` of column `c`.
    pub fn retract(&mut self, acc: Cell, input: Cell, pool: &Pool, c: usize) -> Result<Cell> {
        if self.ignore_retract {
            return Ok(acc);
        }
        let a = value(&acc, pool, c)?;
        let i = value(&input, pool, c)?;
        let picked = match &self.func {
            AggFunction::Keep => Picked::Input,
            AggFunction::LastValue => Picked::Null,
            AggFunction::LastNonNull => {
                if i.is_some() {
                    Picked::Null
                } else {
                    Picked::Acc
                }
            }
            AggFunction::Sum => match (a, i) {
                (None, None) => Picked::Null,
                (None, Some(i)) => Picked::Value(negate(i)?),
                (Some(_), None) => Picked::Acc,
                (Some(a), Some(i)) => Picked::Value(arith(a, i, Op::Sub)?),
            },
            AggFunction::Product => match (a, i) {
                (Some(a), Some(i)) => Picked::Value(arith(a, i, Op::Div)?),
                _ => Picked::Acc,
            },
            AggFunction::Collect { .. } => coll::collect_retract(dtype(a, i), a, i)?,
            AggFunction::MergeMap => coll::merge_map_retract(dtype(a, i), a, i)?,
            f => {
                return Err(Error::unsupported(format!(
                    "Aggregate function '{}' does not support retraction, If you allow this \
                     function to ignore retraction messages, you can configure \
                     'fields.${{field_name}}.ignore-retract'='true'.",
                    f.name()
                ))
                .with_context("field", self.name.clone()))
            }
        };
        Ok(resolve(picked, acc, input))
    }
}

fn pick(keep_acc: bool) -> Picked {
    if keep_acc {
        Picked::Acc
    } else {
        Picked::Input
    }
}

fn resolve(p: Picked, acc: Cell, input: Cell) -> Cell {
    match p {
        Picked::Null => Cell::Null,
        Picked::Acc => acc,
        Picked::Input => input,
        Picked::Value(v) => Cell::Value(v),
    }
}

fn dtype<'a>(a: Option<Val<'a>>, i: Option<Val<'a>>) -> &'a ArrowType {
    a.or(i).map(|v| v.0.data_type()).unwrap_or(&ArrowType::Null)
}

fn binary(f: &AggFunction, a: Val<'_>, i: Val<'_>) -> Result<Picked> {
    Ok(match f {
        AggFunction::Min | AggFunction::Max => {
            let cmp = make_comparator(a.0, i.0, SortOptions::default())?;
            let acc_smaller = cmp(a.1, i.1).is_lt();
            pick((*f == AggFunction::Min) == acc_smaller)
        }
        AggFunction::Sum => Picked::Value(arith(a, i, Op::Add)?),
        AggFunction::Product => Picked::Value(arith(a, i, Op::Mul)?),
        AggFunction::BoolAnd | AggFunction::BoolOr => {
            let (x, y) = (boolean(a)?, boolean(i)?);
            let r = if *f == AggFunction::BoolAnd {
                x && y
            } else {
                x || y
            };
            Picked::Value(Arc::new(BooleanArray::from(vec![r])))
        }
        other => {
            return Err(Error::internal(format!(
                "aggregate {} has no binary form",
                other.name()
            )))
        }
    })
}

fn boolean(v: Val<'_>) -> Result<bool> {
    v.0.as_boolean_opt()
        .map(|b| b.value(v.1))
        .ok_or_else(|| Error::unsupported("bool_and/bool_or need a BOOLEAN field"))
}

fn string(v: Option<Val<'_>>) -> Result<Option<String>> {
    let Some((a, i)) = v else { return Ok(None) };
    let s = cast(&a.slice(i, 1), &ArrowType::Utf8)?;
    Ok(s.as_string::<i32>()
        .iter()
        .next()
        .flatten()
        .map(str::to_string))
}

fn listagg(a: Option<Val<'_>>, i: Option<Val<'_>>, delim: &str) -> Result<Picked> {
    let blank = |s: &Option<String>| s.as_deref().is_none_or(|s| s.trim().is_empty());
    let (sa, si) = (string(a)?, string(i)?);
    if blank(&si) {
        return Ok(Picked::Acc);
    }
    if blank(&sa) {
        return Ok(Picked::Input);
    }
    let joined = format!(
        "{}{delim}{}",
        sa.unwrap_or_default(),
        si.unwrap_or_default()
    );
    let arr: ArrayRef = Arc::new(StringArray::from(vec![joined]));
    Ok(Picked::Value(cast(&arr, dtype(a, i))?))
}

fn overflow(t: &ArrowType) -> Error {
    Error::data_invalid(format!("{t} overflow in sum/product aggregation"))
}

/// Exact integer arithmetic in the width of `t` (Java `Math.*Exact` and the byte/short checks).
fn int_op(t: &ArrowType, x: i64, y: i64, op: &Op) -> Result<i64> {
    let r = match op {
        Op::Add => x.checked_add(y),
        Op::Sub => x.checked_sub(y),
        Op::Mul => x.checked_mul(y),
        Op::Div if y == 0 => {
            return Err(Error::data_invalid("division by zero in product retract"))
        }
        Op::Div => x.checked_div(y),
    }
    .ok_or_else(|| overflow(t))?;
    let (lo, hi) = match t {
        ArrowType::Int8 => (i8::MIN as i64, i8::MAX as i64),
        ArrowType::Int16 => (i16::MIN as i64, i16::MAX as i64),
        ArrowType::Int32 => (i32::MIN as i64, i32::MAX as i64),
        _ => (i64::MIN, i64::MAX),
    };
    if r < lo || r > hi {
        return Err(overflow(t));
    }
    Ok(r)
}

fn int_value(v: Val<'_>) -> Option<i64> {
    let (a, i) = v;
    Some(match a.data_type() {
        ArrowType::Int8 => a.as_primitive::<Int8Type>().value(i) as i64,
        ArrowType::Int16 => a.as_primitive::<Int16Type>().value(i) as i64,
        ArrowType::Int32 => a.as_primitive::<Int32Type>().value(i) as i64,
        ArrowType::Int64 => a.as_primitive::<Int64Type>().value(i),
        _ => return None,
    })
}

fn int_array(t: &ArrowType, r: i64) -> ArrayRef {
    // The value was range-checked for `t` by `int_op`.
    match t {
        ArrowType::Int8 => Arc::new(Int8Array::from(vec![r as i8])),
        ArrowType::Int16 => Arc::new(Int16Array::from(vec![r as i16])),
        ArrowType::Int32 => Arc::new(Int32Array::from(vec![r as i32])),
        _ => Arc::new(Int64Array::from(vec![r])),
    }
}

fn arith(a: Val<'_>, b: Val<'_>, op: Op) -> Result<ArrayRef> {
    let t = a.0.data_type().clone();
    if let (Some(x), Some(y)) = (int_value(a), int_value(b)) {
        return Ok(int_array(&t, int_op(&t, x, y, &op)?));
    }
    match &t {
        ArrowType::Float32 => {
            let x = a.0.as_primitive::<Float32Type>().value(a.1);
            let y = b.0.as_primitive::<Float32Type>().value(b.1);
            let r = match op {
                Op::Add => x + y,
                Op::Sub => x - y,
                Op::Mul => x * y,
                Op::Div => x / y,
            };
            Ok(Arc::new(Float32Array::from(vec![r])))
        }
        ArrowType::Float64 => {
            let x = a.0.as_primitive::<Float64Type>().value(a.1);
            let y = b.0.as_primitive::<Float64Type>().value(b.1);
            let r = match op {
                Op::Add => x + y,
                Op::Sub => x - y,
                Op::Mul => x * y,
                Op::Div => x / y,
            };
            Ok(Arc::new(Float64Array::from(vec![r])))
        }
        ArrowType::Decimal128(p, s) => {
            let x = a.0.as_primitive::<Decimal128Type>().value(a.1);
            let y = b.0.as_primitive::<Decimal128Type>().value(b.1);
            let r = decimal_op(x, y, *s, &op);
            decimal_array(r, *p, *s)
        }
        other => Err(Error::unsupported(format!(
            "sum/product over {other} is not supported"
        ))),
    }
}

/// `a / b` rounded half away from zero (Java `RoundingMode.HALF_UP`).
fn div_half_up(a: i128, b: i128) -> Option<i128> {
    if b == 0 {
        return None;
    }
    let q = a.checked_div(b)?;
    let r = a.checked_rem(b)?;
    let twice = r.checked_abs()?.checked_mul(2)?;
    if twice >= b.checked_abs()? {
        q.checked_add(if (a < 0) != (b < 0) { -1 } else { 1 })
    } else {
        Some(q)
    }
}

fn decimal_op(x: i128, y: i128, s: i8, op: &Op) -> Option<i128> {
    let f = 10i128.checked_pow(u32::try_from(s).ok()?)?;
    match op {
        Op::Add => x.checked_add(y),
        Op::Sub => x.checked_sub(y),
        Op::Mul => div_half_up(x.checked_mul(y)?, f),
        Op::Div => div_half_up(x.checked_mul(f)?, y),
    }
}

/// A DECIMAL(p, s) one-row array; null when the value does not fit `p` digits.
fn decimal_array(v: Option<i128>, p: u8, s: i8) -> Result<ArrayRef> {
    let limit = 10i128.checked_pow(u32::from(p));
    let v = v.filter(|v| limit.is_none_or(|l| v.checked_abs().is_some_and(|a| a < l)));
    Ok(Arc::new(
        Decimal128Array::from(vec![v]).with_precision_and_scale(p, s)?,
    ))
}

fn negate(v: Val<'_>) -> Result<ArrayRef> {
    let t = v.0.data_type().clone();
    if let Some(x) = int_value(v) {
        return Ok(int_array(&t, int_op(&t, 0, x, &Op::Sub)?));
    }
    match &t {
        ArrowType::Float32 => Ok(Arc::new(Float32Array::from(vec![-v
            .0
            .as_primitive::<Float32Type>()
            .value(v.1)]))),
        ArrowType::Float64 => Ok(Arc::new(Float64Array::from(vec![-v
            .0
            .as_primitive::<Float64Type>()
            .value(v.1)]))),
        ArrowType::Decimal128(p, s) => {
            let x = v.0.as_primitive::<Decimal128Type>().value(v.1);
            decimal_array(x.checked_neg(), *p, *s)
        }
        other => Err(Error::unsupported(format!(
            "sum over {other} is not supported"
        ))),
    }
}
