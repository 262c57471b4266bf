//! One field's aggregate function applied record by record: `agg`, `aggReversed`, `retract`.
//!
//! Mirrors Java `org.apache.paimon.mergetree.compact.aggregate.FieldAggregator` and its
//! `Field*Agg` subclasses plus `FieldIgnoreRetractAgg` (Paimon 2.0), as used by both
//! `AggregateMergeFunction` ([`super::aggregate`]) and `PartialUpdateMergeFunction`
//! (aggregates inside sequence groups). Accumulators are [`Cell`]s: an input cell is kept by
//! reference where the Java function returns one of its arguments; computed numbers and
//! booleans (`sum`, `product`, `bool_and`, `bool_or`) are [`Scalar`]s, computed on the stack
//! and appended to the output without a per-record allocation; only computed strings and
//! collections (`listagg`, `collect`, `merge_map`) allocate a one-row array.
//!
//! Semantics (`acc` = accumulator, `in` = input, both nullable):
//! - `primary-key`, `last_value`: `in`; retract: `in` / null.
//! - `last_non_null_value`: `in` unless null; retract: null if `in` is non-null, else `acc`.
//! - `first_value` / `first_non_null_value`: the first (non-null) input since [`FieldAgg::reset`].
//! - `min`, `max`, `sum`, `product`, `bool_and`, `bool_or`, `merge_map`, `collect`: a null side
//!   yields the other side.
//! - `min`/`max` compare like Java `InternalRowUtils#compare` (`Float.compare` for floats: NaN
//!   above +inf whatever its sign; unsigned bytes for strings/binaries); ties give `in` for
//!   `min`, `acc` for `max`; BOOLEAN and nested types are "incomparable" errors.
//! - `sum`/`product` (`FieldSumAgg`, `FieldProductAgg`): integers use Java's exact arithmetic in
//!   the column's width (overflow is an error, like Java's `ArithmeticException`), FLOAT/DOUBLE
//!   IEEE arithmetic in that width, DECIMAL as in `decimal_op` (`DecimalUtils#add` does not
//!   check the precision of compact decimals; products and quotients round HALF_UP and are null
//!   when wider than the precision). `sum` retracts by subtracting (a null `acc` gives `-in`),
//!   `product` by dividing (integer division truncates; a zero divisor or a non-terminating
//!   DECIMAL quotient is an error, as Java's `BigDecimal#divide`); a null side keeps `acc`.
//! - `listagg` (`FieldListaggAgg`): joins with the delimiter, skipping sides that are blank by
//!   Java's `Character.isWhitespace`; with `distinct`, only tokens of `in` not yet among the
//!   tokens of `acc` are appended (`acc` itself is not de-duplicated).
//! - `aggReversed(acc, in)` = `agg(in, acc)`, except `collect` (= `agg(acc, in)`).
//! - Retracting a function without a retract is an error naming the field, unless
//!   `fields.<f>.ignore-retract = true` (then `acc` is kept).

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
};
use arrow_array::{Array, ArrayRef, StringArray};
use arrow_buffer::i256;
use arrow_cast::cast;
use arrow_schema::DataType as ArrowType;

use super::aggregate::AggFunction;
use super::collection_agg::{self as coll, Picked};
pub use super::compare::compare_values;
use super::compare::java_compare;
use super::output::{Cell, Pool, Scalar};
use crate::spec::partition_path::java_is_whitespace;
use crate::{Error, Result};

/// A non-null value: an array and a row of it.
pub type Val<'a> = (&'a dyn Array, usize);

/// The value of `cell` in column `c`, `None` when null. A computed [`Scalar`] has no array:
/// it only ever accumulates `sum`/`product`/`bool_*`, which read it with [`scalar`].
pub fn value<'a>(cell: &'a Cell, pool: &'a Pool, c: usize) -> Result<Option<Val<'a>>> {
    let (a, i): (&dyn Array, usize) = match cell {
        Cell::Null => return Ok(None),
        Cell::At(src, row) => (pool.column(*src, c)?.as_ref(), *row),
        Cell::Value(a) => (a.as_ref(), 0),
        Cell::Scalar(_) => {
            return Err(Error::internal(format!(
                "computed scalar read as a stored value (column {c})"
            )))
        }
    };
    Ok((!a.is_null(i)).then_some((a, i)))
}

/// Whether `cell` is null in column `c`.
fn is_null(cell: &Cell, pool: &Pool, c: usize) -> Result<bool> {
    Ok(match cell {
        Cell::Null => true,
        Cell::At(src, row) => pool.column(*src, c)?.is_null(*row),
        Cell::Value(a) => a.is_null(0),
        Cell::Scalar(_) => false,
    })
}

/// The value of `cell` in column `c` as a [`Scalar`] (numeric and boolean columns), `None`
/// when null.
pub fn scalar(cell: &Cell, pool: &Pool, c: usize) -> Result<Option<Scalar>> {
    let (a, i): (&dyn Array, usize) = match cell {
        Cell::Null => return Ok(None),
        Cell::Scalar(s) => return Ok(Some(*s)),
        Cell::At(src, row) => (pool.column(*src, c)?.as_ref(), *row),
        Cell::Value(a) => (a.as_ref(), 0),
    };
    if a.is_null(i) {
        return Ok(None);
    }
    Ok(Some(match a.data_type() {
        ArrowType::Int8 => Scalar::Int(a.as_primitive::<Int8Type>().value(i).into()),
        ArrowType::Int16 => Scalar::Int(a.as_primitive::<Int16Type>().value(i).into()),
        ArrowType::Int32 => Scalar::Int(a.as_primitive::<Int32Type>().value(i).into()),
        ArrowType::Int64 => Scalar::Int(a.as_primitive::<Int64Type>().value(i)),
        ArrowType::Float32 => Scalar::F32(a.as_primitive::<Float32Type>().value(i)),
        ArrowType::Float64 => Scalar::F64(a.as_primitive::<Float64Type>().value(i)),
        ArrowType::Decimal128(..) => Scalar::Decimal(a.as_primitive::<Decimal128Type>().value(i)),
        ArrowType::Boolean => Scalar::Bool(a.as_boolean().value(i)),
        other => {
            return Err(Error::unsupported(format!(
                "sum/product over {other} is not supported"
            )))
        }
    }))
}

/// A computed result: null for `None`.
fn computed(v: Option<Scalar>) -> Cell {
    v.map_or(Cell::Null, Cell::Scalar)
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

    /// Clears per-key state (Java `FieldAggregator#reset`).
    pub fn reset(&mut self) {
        self.initialized = false;
    }

    /// `agg(acc, input)` of column `c`.
    pub fn agg(&mut self, acc: Cell, input: Cell, pool: &Pool, c: usize) -> Result<Cell> {
        match self.func {
            AggFunction::Count => return count(acc, input, pool, c, 1),
            // The common functions need no value, at most the input's null bit.
            AggFunction::Keep | AggFunction::LastValue => return Ok(input),
            AggFunction::LastNonNull => {
                return Ok(if is_null(&input, pool, c)? {
                    acc
                } else {
                    input
                });
            }
            _ => {}
        }
        if matches!(
            self.func,
            AggFunction::Sum | AggFunction::Product | AggFunction::BoolAnd | AggFunction::BoolOr
        ) {
            // A null side yields the other side.
            let Some(a) = scalar(&acc, pool, c)? else {
                return Ok(input);
            };
            let Some(i) = scalar(&input, pool, c)? else {
                return Ok(acc);
            };
            return Ok(computed(numeric(&self.func, pool.data_type(c)?, a, i)?));
        }
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
            AggFunction::ListAgg {
                delimiter,
                distinct,
            } => listagg(a, i, delimiter, *distinct)?,
            AggFunction::Collect { distinct } => coll::collect_agg(dtype(a, i), a, i, *distinct)?,
            AggFunction::MergeMap => coll::merge_map_agg(dtype(a, i), a, i)?,
            f => match (a, i) {
                (None, _) => Picked::Input,
                (_, None) => Picked::Acc,
                (Some(a), Some(i)) => min_max(f, a, i)?,
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

    /// Whether [`FieldAgg::retract`] succeeds (the function has a retract, or
    /// `fields.<f>.ignore-retract`).
    pub fn supports_retract(&self) -> bool {
        self.ignore_retract
            || matches!(
                self.func,
                AggFunction::Sum
                    | AggFunction::Product
                    | AggFunction::Count
                    | AggFunction::Keep
                    | AggFunction::LastValue
                    | AggFunction::LastNonNull
                    | AggFunction::Collect { .. }
                    | AggFunction::MergeMap
            )
    }

    /// Java's error for retracting a function without a retract.
    pub fn no_retract_error(&self) -> Error {
        Error::unsupported(format!(
            "Aggregate function '{}' does not support retraction, If you allow this function \
             to ignore retraction messages, you can configure \
             'fields.${{field_name}}.ignore-retract'='true'.",
            self.func.name()
        ))
        .with_context("field", self.name.clone())
    }

    /// `retract(acc, input)` of column `c`.
    pub fn retract(&mut self, acc: Cell, input: Cell, pool: &Pool, c: usize) -> Result<Cell> {
        if self.ignore_retract {
            return Ok(acc);
        }
        if matches!(self.func, AggFunction::Sum | AggFunction::Product) {
            return self.retract_numeric(acc, input, pool, c);
        }
        if matches!(self.func, AggFunction::Count) {
            return count(acc, input, pool, c, -1);
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
            AggFunction::Collect { .. } => coll::collect_retract(dtype(a, i), a, i)?,
            AggFunction::MergeMap => coll::merge_map_retract(dtype(a, i), a, i)?,
            _ => return Err(self.no_retract_error()),
        };
        Ok(resolve(picked, acc, input))
    }

    /// `retract` of `sum` (subtract; a null `acc` gives `-in`) and `product` (divide).
    fn retract_numeric(&self, acc: Cell, input: Cell, pool: &Pool, c: usize) -> Result<Cell> {
        let t = pool.data_type(c)?;
        let (a, i) = (scalar(&acc, pool, c)?, scalar(&input, pool, c)?);
        Ok(match (&self.func, a, i) {
            (AggFunction::Sum, None, None) => Cell::Null,
            (AggFunction::Sum, None, Some(i)) => computed(negate(t, i)?),
            (AggFunction::Sum, Some(a), Some(i)) => computed(arith(t, a, i, Op::Sub)?),
            (AggFunction::Product, Some(a), Some(i)) => computed(arith(t, a, i, Op::Div)?),
            _ => acc,
        })
    }
}

/// Java 0.8 `FieldCountAgg#agg` (`step` 1) and `#retract` (`step` -1): a null accumulator
/// becomes 0 (null input) or `step`; a null input keeps the accumulator; otherwise the
/// accumulator moves by `step`, wrapping in the column's width as Java's casts do.
fn count(acc: Cell, input: Cell, pool: &Pool, c: usize, step: i64) -> Result<Cell> {
    let (a, i) = (scalar(&acc, pool, c)?, scalar(&input, pool, c)?);
    let n = match (a, i) {
        (None, None) => 0,
        (None, Some(_)) => step,
        (Some(_), None) => return Ok(acc),
        (Some(Scalar::Int(a)), Some(_)) => a.wrapping_add(step),
        (Some(other), _) => {
            return Err(Error::internal(format!(
                "count accumulator is not an integer: {other:?}"
            )))
        }
    };
    let wrapped = match pool.data_type(c)? {
        ArrowType::Int8 => i64::from(n as i8),
        ArrowType::Int16 => i64::from(n as i16),
        ArrowType::Int32 => i64::from(n as i32),
        _ => n,
    };
    Ok(Cell::Scalar(Scalar::Int(wrapped)))
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

fn min_max(f: &AggFunction, a: Val<'_>, i: Val<'_>) -> Result<Picked> {
    match f {
        AggFunction::Min | AggFunction::Max => {
            let acc_smaller = java_compare(a, i)?.is_lt();
            Ok(pick((*f == AggFunction::Min) == acc_smaller))
        }
        other => Err(Error::internal(format!(
            "aggregate {} has no binary form",
            other.name()
        ))),
    }
}

/// `sum`, `product`, `bool_and`, `bool_or` of two non-null values of a column of type `t`;
/// `None` is a null result (a DECIMAL too wide for its precision).
fn numeric(f: &AggFunction, t: &ArrowType, a: Scalar, i: Scalar) -> Result<Option<Scalar>> {
    match (f, a, i) {
        (AggFunction::Sum, a, i) => arith(t, a, i, Op::Add),
        (AggFunction::Product, a, i) => arith(t, a, i, Op::Mul),
        (AggFunction::BoolAnd, Scalar::Bool(x), Scalar::Bool(y)) => Ok(Some(Scalar::Bool(x && y))),
        (AggFunction::BoolOr, Scalar::Bool(x), Scalar::Bool(y)) => Ok(Some(Scalar::Bool(x || y))),
        (AggFunction::BoolAnd | AggFunction::BoolOr, ..) => {
            Err(Error::unsupported("bool_and/bool_or need a BOOLEAN field"))
        }
        (other, ..) => Err(Error::internal(format!(
            "aggregate {} is not numeric",
            other.name()
        ))),
    }
}

/// The string of a value: borrowed from a STRING array, cast otherwise.
fn string(v: Option<Val<'_>>) -> Result<Option<Cow<'_, str>>> {
    let Some((a, i)) = v else { return Ok(None) };
    if let Some(s) = a.as_string_opt::<i32>() {
        return Ok(Some(Cow::Borrowed(s.value(i))));
    }
    let s = cast(&a.slice(i, 1), &ArrowType::Utf8)?;
    Ok(s.as_string::<i32>()
        .iter()
        .next()
        .flatten()
        .map(|s| Cow::Owned(s.to_string())))
}

/// Java `StringUtils.isBlank`: every char is [`java_is_whitespace`].
fn java_blank(s: &str) -> bool {
    s.chars().all(java_is_whitespace)
}

/// Java `BinaryStringUtils#splitByWholeSeparatorPreserveAllTokens`: empty tokens between
/// separators are kept, a trailing separator adds none, an empty separator means `" "`.
fn split_tokens<'a>(s: &'a str, sep: &str) -> Vec<&'a str> {
    let sep = if sep.is_empty() { " " } else { sep };
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        match rest.split_once(sep) {
            Some((token, tail)) => {
                out.push(token);
                rest = tail;
            }
            None => {
                out.push(rest);
                break;
            }
        }
    }
    out
}

/// Java `FieldListaggAgg#agg`.
fn listagg(a: Option<Val<'_>>, i: Option<Val<'_>>, delim: &str, distinct: bool) -> Result<Picked> {
    let (sa, si) = (string(a)?, string(i)?);
    let Some(si) = si.filter(|s| !java_blank(s)) else {
        return Ok(Picked::Acc);
    };
    let Some(sa) = sa.filter(|s| !java_blank(s)) else {
        return Ok(Picked::Input);
    };
    let mut joined = String::with_capacity(sa.len() + delim.len() + si.len());
    joined.push_str(&sa);
    if distinct {
        let mut seen: HashSet<&str> = split_tokens(&sa, delim).into_iter().collect();
        let mut added = false;
        for token in split_tokens(&si, delim) {
            if java_blank(token) || !seen.insert(token) {
                continue;
            }
            joined.push_str(delim);
            joined.push_str(token);
            added = true;
        }
        if !added {
            return Ok(Picked::Acc);
        }
    } else {
        joined.push_str(delim);
        joined.push_str(&si);
    }
    let arr: ArrayRef = Arc::new(StringArray::from_iter_values([joined]));
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

fn float_op<F>(x: F, y: F, op: Op) -> F
where
    F: std::ops::Add<Output = F>
        + std::ops::Sub<Output = F>
        + std::ops::Mul<Output = F>
        + std::ops::Div<Output = F>,
{
    match op {
        Op::Add => x + y,
        Op::Sub => x - y,
        Op::Mul => x * y,
        Op::Div => x / y,
    }
}

/// `a op b` in a column of type `t` (integers exact in its width, floats IEEE in its width,
/// decimals as [`decimal_op`]); `None` is a null result.
fn arith(t: &ArrowType, a: Scalar, b: Scalar, op: Op) -> Result<Option<Scalar>> {
    use ArrowType as T;
    Ok(match (t, a, b) {
        (T::Int8 | T::Int16 | T::Int32 | T::Int64, Scalar::Int(x), Scalar::Int(y)) => {
            Some(Scalar::Int(int_op(t, x, y, &op)?))
        }
        (T::Float32, Scalar::F32(x), Scalar::F32(y)) => Some(Scalar::F32(float_op(x, y, op))),
        (T::Float64, Scalar::F64(x), Scalar::F64(y)) => Some(Scalar::F64(float_op(x, y, op))),
        (T::Decimal128(p, s), Scalar::Decimal(x), Scalar::Decimal(y)) => {
            decimal_op(x, y, *p, *s, &op)?.map(Scalar::Decimal)
        }
        _ => {
            return Err(Error::unsupported(format!(
                "sum/product over {t} is not supported"
            )))
        }
    })
}

/// Whether `|v| < 10^p`, i.e. `v` fits DECIMAL(p, _) (Java `BigDecimal#precision() <= p`).
fn fits(v: i128, p: u8) -> bool {
    10u128
        .checked_pow(u32::from(p))
        .is_none_or(|l| v.unsigned_abs() < l)
}

/// `n / d` rounded half away from zero (Java `RoundingMode.HALF_UP`); `d` is non-zero.
fn div_half_up(n: i256, d: i256) -> Option<i256> {
    let q = n.checked_div(d)?;
    let r = n.checked_rem(d)?;
    let twice = r.checked_abs()?.checked_mul(i256::from_i128(2))?;
    if twice >= d.checked_abs()? {
        let step = if n.is_negative() != d.is_negative() {
            i256::MINUS_ONE
        } else {
            i256::ONE
        };
        q.checked_add(step)
    } else {
        Some(q)
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Whether `x / y` (`y` non-zero) has a finite decimal expansion: Java's exact
/// `BigDecimal#divide(BigDecimal)` throws otherwise.
fn terminates(x: i128, y: i128) -> bool {
    let (a, b) = (x.unsigned_abs(), y.unsigned_abs());
    let mut d = b / gcd(a, b).max(1);
    for f in [2, 5] {
        while d % f == 0 {
            d /= f;
        }
    }
    d == 1
}

/// DECIMAL(p, s) arithmetic on unscaled values, as Java does it; `Ok(None)` is a null result.
/// - `+`/`-` (`DecimalUtils#add`/`subtract`): for p <= 18 (compact) the unscaled longs are
///   added exactly *without* a precision check; on long overflow, and for p > 18, the exact
///   result is null when it does not fit p digits.
/// - `*` (`FieldProductAgg`): the exact product rounded HALF_UP to scale s, null when it does
///   not fit p digits.
/// - `/` (product retract): the exact quotient (an error when it is non-terminating or the
///   divisor is zero, like `BigDecimal#divide`), rounded HALF_UP to s, null when too wide.
fn decimal_op(x: i128, y: i128, p: u8, s: i8, op: &Op) -> Result<Option<i128>> {
    let exact = |v: Option<i128>| v.filter(|v| fits(*v, p));
    let pow = i256::from_i128(10).checked_pow(u32::try_from(s).unwrap_or(0));
    let (big_x, big_y) = (i256::from_i128(x), i256::from_i128(y));
    Ok(match op {
        Op::Add | Op::Sub => {
            let add = matches!(op, Op::Add);
            if p <= 18 {
                if let (Ok(a), Ok(b)) = (i64::try_from(x), i64::try_from(y)) {
                    let r = if add {
                        a.checked_add(b)
                    } else {
                        a.checked_sub(b)
                    };
                    if let Some(r) = r {
                        return Ok(Some(i128::from(r)));
                    }
                }
            }
            exact(if add {
                x.checked_add(y)
            } else {
                x.checked_sub(y)
            })
        }
        Op::Mul => exact(
            pow.and_then(|f| div_half_up(big_x.checked_mul(big_y)?, f))
                .and_then(i256::to_i128),
        ),
        Op::Div => {
            if y == 0 {
                return Err(Error::data_invalid(if x == 0 {
                    "Division undefined in product retract"
                } else {
                    "Division by zero in product retract"
                }));
            }
            if !terminates(x, y) {
                return Err(Error::data_invalid(
                    "Non-terminating decimal expansion; no exact representable decimal result \
                     (product retract)",
                ));
            }
            exact(
                pow.and_then(|f| div_half_up(big_x.checked_mul(f)?, big_y))
                    .and_then(i256::to_i128),
            )
        }
    })
}

/// `-v` in a column of type `t` (sum retract of a null accumulator); `None` is a null
/// result.
fn negate(t: &ArrowType, v: Scalar) -> Result<Option<Scalar>> {
    use ArrowType as T;
    Ok(match (t, v) {
        (T::Int8 | T::Int16 | T::Int32 | T::Int64, Scalar::Int(x)) => {
            Some(Scalar::Int(int_op(t, 0, x, &Op::Sub)?))
        }
        (T::Float32, Scalar::F32(x)) => Some(Scalar::F32(-x)),
        (T::Float64, Scalar::F64(x)) => Some(Scalar::F64(-x)),
        // `Decimal.fromBigDecimal(negate)`: null when it does not fit p digits.
        (T::Decimal128(p, _), Scalar::Decimal(x)) => x
            .checked_neg()
            .filter(|v| fits(*v, *p))
            .map(Scalar::Decimal),
        _ => return Err(Error::unsupported(format!("sum over {t} is not supported"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_arithmetic_matches_java() {
        // DECIMAL(5, 2): compact, so sums are not precision-checked (Java `DecimalUtils#add`).
        assert_eq!(
            decimal_op(99_999, 1, 5, 2, &Op::Add).unwrap(),
            Some(100_000)
        );
        assert_eq!(
            decimal_op(i64::MAX as i128, 1, 5, 2, &Op::Add).unwrap(),
            None
        );
        // DECIMAL(19, 0) is not compact: checked.
        let max19 = 10i128.pow(19) - 1;
        assert_eq!(decimal_op(max19, 1, 19, 0, &Op::Add).unwrap(), None);
        assert_eq!(
            decimal_op(max19, 1, 19, 0, &Op::Sub).unwrap(),
            Some(max19 - 1)
        );
        // HALF_UP rounding, away from zero for negatives.
        assert_eq!(decimal_op(15, 10, 5, 2, &Op::Mul).unwrap(), Some(2)); // 0.15*0.10=0.015
        assert_eq!(decimal_op(-15, 10, 5, 2, &Op::Mul).unwrap(), Some(-2));
        assert_eq!(decimal_op(14, 10, 5, 2, &Op::Mul).unwrap(), Some(1)); // 0.014
        assert_eq!(decimal_op(-100, 800, 5, 2, &Op::Div).unwrap(), Some(-13)); // -0.125
        assert_eq!(decimal_op(0, 300, 5, 2, &Op::Div).unwrap(), Some(0));
        assert!(decimal_op(100, 300, 5, 2, &Op::Div).is_err());
        assert!(decimal_op(0, 0, 5, 2, &Op::Div).is_err());
        // a quotient wider than the precision is null
        assert_eq!(decimal_op(99_999, 1, 5, 2, &Op::Div).unwrap(), None);
    }

    #[test]
    fn terminating_quotients() {
        assert!(terminates(1, 8));
        assert!(terminates(3, 6));
        assert!(terminates(7, 1_000));
        assert!(terminates(-1, 40));
        assert!(!terminates(1, 3));
        assert!(!terminates(5, 15));
        assert!(terminates(i128::MIN, -1));
    }

    #[test]
    fn tokens_and_whitespace_follow_java() {
        assert_eq!(split_tokens("a,,b", ","), vec!["a", "", "b"]);
        assert_eq!(split_tokens(",a,", ","), vec!["", "a"]);
        assert_eq!(split_tokens("", ","), Vec::<&str>::new());
        assert_eq!(split_tokens("a b", ""), vec!["a", "b"]);
        assert_eq!(split_tokens("a::b", "::"), vec!["a", "b"]);
        for c in [
            ' ', '\t', '\n', '\u{b}', '\u{1f}', '\u{2003}', '\u{3000}', '\u{2028}',
        ] {
            assert!(java_is_whitespace(c), "{c:?}");
        }
        for c in ['\u{a0}', '\u{2007}', '\u{202f}', '\u{85}', 'x', '\u{200b}'] {
            assert!(!java_is_whitespace(c), "{c:?}");
        }
        assert!(java_blank(""));
        assert!(!java_blank(" x "));
    }
}
