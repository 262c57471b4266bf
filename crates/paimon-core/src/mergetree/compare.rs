//! Comparisons of two non-null values of one column: Java `InternalRowUtils#compare` (for
//! `min`/`max` aggregates) and the `arrow_ord` order (for sequence fields), the latter without
//! building a boxed comparator per call.

use std::cmp::Ordering;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    ArrowPrimitiveType, Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type,
    Int64Type, Int8Type, Time32MillisecondType, Time32SecondType, Time64MicrosecondType,
    Time64NanosecondType, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType,
};
use arrow_ord::ord::make_comparator;
use arrow_schema::{DataType as ArrowType, SortOptions, TimeUnit};

use super::field_agg::Val;
use crate::{Error, Result};

/// Java `Float.compare` / `Double.compare` (an `f32` widens exactly): all NaNs are equal and
/// above +inf, -0.0 < 0.0.
fn java_float_cmp(x: f64, y: f64) -> Ordering {
    match (x.is_nan(), y.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => x.total_cmp(&y),
    }
}

/// Java `InternalRowUtils#compare` of two non-null values of one column: numbers, dates,
/// times and timestamps by value, strings and binaries by unsigned bytes; other types (e.g.
/// BOOLEAN, ARRAY) are "incomparable" errors, as in Java.
pub(super) fn java_compare(a: Val<'_>, b: Val<'_>) -> Result<Ordering> {
    let t = a.0.data_type();
    match t {
        ArrowType::Float32 | ArrowType::Float64 => {}
        _ => {
            if let Some(o) = fast_compare(a, b) {
                return Ok(o);
            }
        }
    }
    match t {
        ArrowType::Float32 => Ok(java_float_cmp(
            f64::from(a.0.as_primitive::<Float32Type>().value(a.1)),
            f64::from(b.0.as_primitive::<Float32Type>().value(b.1)),
        )),
        ArrowType::Float64 => Ok(java_float_cmp(
            a.0.as_primitive::<Float64Type>().value(a.1),
            b.0.as_primitive::<Float64Type>().value(b.1),
        )),
        ArrowType::Int8
        | ArrowType::Int16
        | ArrowType::Int32
        | ArrowType::Int64
        | ArrowType::Decimal128(..)
        | ArrowType::Date32
        | ArrowType::Time32(_)
        | ArrowType::Time64(_)
        | ArrowType::Timestamp(..)
        | ArrowType::Utf8
        | ArrowType::LargeUtf8
        | ArrowType::Utf8View
        | ArrowType::Binary
        | ArrowType::LargeBinary
        | ArrowType::BinaryView
        | ArrowType::FixedSizeBinary(_) => {
            Ok(make_comparator(a.0, b.0, SortOptions::default())?(a.1, b.1))
        }
        other => Err(Error::unsupported(format!(
            "Incomparable type: {other} (min/max)"
        ))),
    }
}

fn primitive<T: ArrowPrimitiveType>(a: Val<'_>, b: Val<'_>) -> Option<Ordering>
where
    T::Native: Ord,
{
    let x = a.0.as_primitive_opt::<T>()?.value(a.1);
    let y = b.0.as_primitive_opt::<T>()?.value(b.1);
    Some(x.cmp(&y))
}

fn float<T: ArrowPrimitiveType>(a: Val<'_>, b: Val<'_>) -> Option<Ordering> {
    let x = a.0.as_primitive_opt::<T>()?.value(a.1);
    let y = b.0.as_primitive_opt::<T>()?.value(b.1);
    Some(arrow_array::ArrowNativeTypeOp::compare(x, y))
}

/// Two non-null values of one column compared exactly as `arrow_ord::ord::make_comparator`
/// with default options would (floats by IEEE total order, strings and binaries by bytes),
/// without building a boxed comparator per call; `None` for the types it does not cover.
pub fn fast_compare(a: Val<'_>, b: Val<'_>) -> Option<Ordering> {
    use ArrowType as T;
    match a.0.data_type() {
        T::Int8 => primitive::<Int8Type>(a, b),
        T::Int16 => primitive::<Int16Type>(a, b),
        T::Int32 => primitive::<Int32Type>(a, b),
        T::Int64 => primitive::<Int64Type>(a, b),
        T::Date32 => primitive::<Date32Type>(a, b),
        T::Decimal128(..) => primitive::<Decimal128Type>(a, b),
        T::Float32 => float::<Float32Type>(a, b),
        T::Float64 => float::<Float64Type>(a, b),
        T::Time32(TimeUnit::Second) => primitive::<Time32SecondType>(a, b),
        T::Time32(TimeUnit::Millisecond) => primitive::<Time32MillisecondType>(a, b),
        T::Time64(TimeUnit::Microsecond) => primitive::<Time64MicrosecondType>(a, b),
        T::Time64(TimeUnit::Nanosecond) => primitive::<Time64NanosecondType>(a, b),
        T::Timestamp(TimeUnit::Second, _) => primitive::<TimestampSecondType>(a, b),
        T::Timestamp(TimeUnit::Millisecond, _) => primitive::<TimestampMillisecondType>(a, b),
        T::Timestamp(TimeUnit::Microsecond, _) => primitive::<TimestampMicrosecondType>(a, b),
        T::Timestamp(TimeUnit::Nanosecond, _) => primitive::<TimestampNanosecondType>(a, b),
        T::Utf8 => {
            let (x, y) = (a.0.as_string_opt::<i32>()?, b.0.as_string_opt::<i32>()?);
            Some(x.value(a.1).as_bytes().cmp(y.value(b.1).as_bytes()))
        }
        T::LargeUtf8 => {
            let (x, y) = (a.0.as_string_opt::<i64>()?, b.0.as_string_opt::<i64>()?);
            Some(x.value(a.1).as_bytes().cmp(y.value(b.1).as_bytes()))
        }
        T::Binary => {
            let (x, y) = (a.0.as_binary_opt::<i32>()?, b.0.as_binary_opt::<i32>()?);
            Some(x.value(a.1).cmp(y.value(b.1)))
        }
        _ => None,
    }
}

/// `make_comparator` order of two non-null values of one column (the fast path when it
/// covers the type).
pub fn compare_values(a: Val<'_>, b: Val<'_>) -> Result<Ordering> {
    match fast_compare(a, b) {
        Some(o) => Ok(o),
        None => Ok(make_comparator(a.0, b.0, SortOptions::default())?(a.1, b.1)),
    }
}
