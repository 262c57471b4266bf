//! Arrow values as [`Datum`]s: the few values per file or per row that end up in `BinaryRow`s
//! (partition rows, bucket keys, `_MIN_KEY`/`_MAX_KEY`, statistics bounds).
//!
//! Arrays follow the project's Paimon → Arrow mapping ([`crate::arrow`]); a batch has been
//! checked against the table schema before any value is taken, so a mismatch here is an
//! internal error.

use arrow_arith::aggregate::{max, max_boolean, min, min_boolean};
use arrow_array::cast::AsArray;
use arrow_array::types::{
    ArrowPrimitiveType, Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type,
    Int64Type, Int8Type, Time32MillisecondType, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType,
};
use arrow_array::{Array, PrimitiveArray};
use arrow_schema::TimeUnit;

use super::byte_bounds::byte_bounds;
use crate::arrow::schema::timestamp_unit;
use crate::spec::datum::{Datum, Decimal, Timestamp};
use crate::spec::types::{DataType, TypeKind};
use crate::{Error, Result};

fn mismatch(t: &DataType, array: &dyn Array) -> Error {
    Error::internal(format!(
        "column of type {t} holds an Arrow {} array",
        array.data_type()
    ))
}

fn prim<'a, T: ArrowPrimitiveType>(
    array: &'a dyn Array,
    t: &DataType,
) -> Result<&'a PrimitiveArray<T>> {
    array
        .as_primitive_opt::<T>()
        .ok_or_else(|| mismatch(t, array))
}

fn timestamp(v: i64, precision: u32) -> Result<Timestamp> {
    match timestamp_unit(precision) {
        TimeUnit::Millisecond => Ok(Timestamp {
            millis: v,
            nanos: 0,
        }),
        TimeUnit::Microsecond => Ok(Timestamp::from_micros(v)),
        _ => Timestamp::from_nanos(i128::from(v))
            .ok_or_else(|| Error::invalid_argument("timestamp out of range")),
    }
}

fn timestamp_at(array: &dyn Array, row: usize, t: &DataType, p: u32) -> Result<Timestamp> {
    let v = match timestamp_unit(p) {
        TimeUnit::Millisecond => prim::<TimestampMillisecondType>(array, t)?.value(row),
        TimeUnit::Microsecond => prim::<TimestampMicrosecondType>(array, t)?.value(row),
        _ => prim::<TimestampNanosecondType>(array, t)?.value(row),
    };
    timestamp(v, p)
}

/// The value at `row` of `array` (a column of Paimon type `t`); `None` when null.
///
/// Atomic types only: nested values never reach a `BinaryRow` key or bound.
pub(crate) fn datum_at(array: &dyn Array, row: usize, t: &DataType) -> Result<Option<Datum>> {
    if array.is_null(row) {
        return Ok(None);
    }
    use TypeKind as K;
    Ok(Some(match &t.kind {
        K::Boolean => Datum::Boolean(
            array
                .as_boolean_opt()
                .ok_or_else(|| mismatch(t, array))?
                .value(row),
        ),
        K::TinyInt => Datum::TinyInt(prim::<Int8Type>(array, t)?.value(row)),
        K::SmallInt => Datum::SmallInt(prim::<Int16Type>(array, t)?.value(row)),
        K::Int => Datum::Int(prim::<Int32Type>(array, t)?.value(row)),
        K::BigInt => Datum::BigInt(prim::<Int64Type>(array, t)?.value(row)),
        K::Float => Datum::Float(prim::<Float32Type>(array, t)?.value(row)),
        K::Double => Datum::Double(prim::<Float64Type>(array, t)?.value(row)),
        K::Decimal { precision, scale } => Datum::Decimal(Decimal {
            unscaled: prim::<Decimal128Type>(array, t)?.value(row),
            precision: *precision,
            scale: *scale,
        }),
        K::Char(_) | K::VarChar(_) => Datum::String(
            array
                .as_string_opt::<i32>()
                .ok_or_else(|| mismatch(t, array))?
                .value(row)
                .to_string(),
        ),
        K::Binary(_) | K::VarBinary(_) | K::Blob => Datum::Binary(
            array
                .as_binary_opt::<i32>()
                .ok_or_else(|| mismatch(t, array))?
                .value(row)
                .to_vec(),
        ),
        K::Date => Datum::Date(prim::<Date32Type>(array, t)?.value(row)),
        K::Time(_) => Datum::Time(prim::<Time32MillisecondType>(array, t)?.value(row)),
        K::Timestamp(p) => Datum::Timestamp(timestamp_at(array, row, t, *p)?),
        K::LocalZonedTimestamp(p) => Datum::LocalZonedTimestamp(timestamp_at(array, row, t, *p)?),
        _ => {
            return Err(Error::unsupported(format!(
                "a value of type {t} cannot be a key, partition value or statistic"
            )))
        }
    }))
}

/// Minimum and maximum of the non-null values of `array` (Arrow aggregate kernels); `None`
/// when every value is null or the type has no order statistics (nested types).
pub(crate) fn min_max(array: &dyn Array, t: &DataType) -> Result<Option<(Datum, Datum)>> {
    use TypeKind as K;
    fn pair<T: ArrowPrimitiveType>(
        a: &PrimitiveArray<T>,
        f: impl Fn(T::Native) -> Result<Datum>,
    ) -> Result<Option<(Datum, Datum)>> {
        match (min(a), max(a)) {
            (Some(lo), Some(hi)) => Ok(Some((f(lo)?, f(hi)?))),
            _ => Ok(None),
        }
    }
    match &t.kind {
        K::Boolean => {
            let a = array.as_boolean_opt().ok_or_else(|| mismatch(t, array))?;
            Ok(min_boolean(a)
                .zip(max_boolean(a))
                .map(|(lo, hi)| (Datum::Boolean(lo), Datum::Boolean(hi))))
        }
        K::TinyInt => pair(prim::<Int8Type>(array, t)?, |v| Ok(Datum::TinyInt(v))),
        K::SmallInt => pair(prim::<Int16Type>(array, t)?, |v| Ok(Datum::SmallInt(v))),
        K::Int => pair(prim::<Int32Type>(array, t)?, |v| Ok(Datum::Int(v))),
        K::BigInt => pair(prim::<Int64Type>(array, t)?, |v| Ok(Datum::BigInt(v))),
        K::Float => pair(prim::<Float32Type>(array, t)?, |v| Ok(Datum::Float(v))),
        K::Double => pair(prim::<Float64Type>(array, t)?, |v| Ok(Datum::Double(v))),
        K::Decimal { precision, scale } => pair(prim::<Decimal128Type>(array, t)?, |v| {
            Ok(Datum::Decimal(Decimal {
                unscaled: v,
                precision: *precision,
                scale: *scale,
            }))
        }),
        K::Date => pair(prim::<Date32Type>(array, t)?, |v| Ok(Datum::Date(v))),
        K::Time(_) => pair(prim::<Time32MillisecondType>(array, t)?, |v| {
            Ok(Datum::Time(v))
        }),
        K::Timestamp(p) | K::LocalZonedTimestamp(p) => {
            let ltz = matches!(t.kind, K::LocalZonedTimestamp(_));
            let wrap = |v: i64| -> Result<Datum> {
                let ts = timestamp(v, *p)?;
                Ok(match ltz {
                    true => Datum::LocalZonedTimestamp(ts),
                    false => Datum::Timestamp(ts),
                })
            };
            match timestamp_unit(*p) {
                TimeUnit::Millisecond => pair(prim::<TimestampMillisecondType>(array, t)?, wrap),
                TimeUnit::Microsecond => pair(prim::<TimestampMicrosecondType>(array, t)?, wrap),
                _ => pair(prim::<TimestampNanosecondType>(array, t)?, wrap),
            }
        }
        K::Char(_) | K::VarChar(_) => {
            let a = array
                .as_string_opt::<i32>()
                .ok_or_else(|| mismatch(t, array))?;
            Ok(byte_bounds(a).map(|(lo, hi)| {
                (
                    Datum::String(a.value(lo).into()),
                    Datum::String(a.value(hi).into()),
                )
            }))
        }
        K::Binary(_) | K::VarBinary(_) | K::Blob => {
            let a = array
                .as_binary_opt::<i32>()
                .ok_or_else(|| mismatch(t, array))?;
            Ok(byte_bounds(a).map(|(lo, hi)| {
                (
                    Datum::Binary(a.value(lo).to_vec()),
                    Datum::Binary(a.value(hi).to_vec()),
                )
            }))
        }
        _ => Ok(None),
    }
}
