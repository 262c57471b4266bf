//! The values of one `pk-btree` source group in the order a payload takes them
//! ([`crate::index::pk_sorted::build`]): the indexed column of the group's rows as one Arrow
//! array in group-ordinal order (files by name, rows in file order), turned into
//! (key, ordinal) pairs with non-null keys ascending in Java's order (`KeySerializer`'s
//! comparator), equal keys by ordinal, then the nulls by ordinal.
//!
//! Fixed-width columns whose Java order is an integer order (integers, dates, booleans,
//! timestamps, and floats by `Float.compare`) are sorted as one `u128` per row, the order
//! key in the high half and the ordinal in the low half, so a plain integer sort gives the
//! payload order; the key of each row is taken from the array when the payload is written.
//! Other columns (strings, decimals) are sorted as [`Key`]s.

use std::borrow::Cow;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
};
use arrow_array::{Array, ArrayRef, ArrowPrimitiveType, PrimitiveArray};
use arrow_schema::{DataType as ArrowType, TimeUnit};

use super::btree::key::{compare, java_double_bits, java_float_bits};
use super::btree::Key;
use crate::{Error, Result};

/// A group's values sorted for its payload (see the [module docs](self)).
pub(crate) struct PayloadValues {
    column: ArrayRef,
    order: Order,
    /// Ordinals of the null values, ascending.
    nulls: Vec<u64>,
}

enum Order {
    /// `(order key << 64) | ordinal`, ascending; keys read from the column.
    Packed(Vec<u128>),
    /// Non-null keys with their ordinals, ascending by (key, ordinal).
    Keys(Vec<(Key, u64)>),
}

impl PayloadValues {
    /// Sorts `column` (the group's values in ordinal order). `Unsupported` for Arrow types a
    /// payload cannot hold.
    pub(crate) fn sort(column: ArrayRef) -> Result<Self> {
        let mut nulls = Vec::new();
        let order = match packed(&column, &mut nulls) {
            Some(mut keys) => {
                keys.sort_unstable();
                Order::Packed(keys)
            }
            None => {
                let mut keys = Vec::with_capacity(column.len() - column.null_count());
                for (ordinal, key) in keys_of(&column)?.into_iter().enumerate() {
                    match key {
                        Some(k) => keys.push((k, ordinal as u64)),
                        None => nulls.push(ordinal as u64),
                    }
                }
                keys.sort_unstable_by(|a, b| compare(&a.0, &b.0).then(a.1.cmp(&b.1)));
                Order::Keys(keys)
            }
        };
        Ok(PayloadValues {
            column,
            order,
            nulls,
        })
    }

    /// The (key, ordinal) pairs in payload order (`None`: a null value); sorted keys are
    /// lent, packed ones read from the column.
    pub(crate) fn iter(&self) -> Box<dyn Iterator<Item = (Option<Cow<'_, Key>>, u64)> + '_> {
        let nulls = self.nulls.iter().map(|&o| (None, o));
        match &self.order {
            Order::Keys(keys) => Box::new(
                keys.iter()
                    .map(|(k, o)| (Some(Cow::Borrowed(k)), *o))
                    .chain(nulls),
            ),
            Order::Packed(keys) => {
                let key_at = key_reader(&self.column);
                Box::new(
                    keys.iter()
                        .map(move |&p| {
                            let ordinal = p as u64;
                            (key_at(ordinal as usize).map(Cow::Owned), ordinal)
                        })
                        .chain(nulls),
                )
            }
        }
    }
}

/// The packed (order key, ordinal) of every non-null value of a fixed-width column whose
/// Java order is an integer order, the null ordinals pushed to `nulls`; `None` for other
/// types (`nulls` untouched).
fn packed(column: &ArrayRef, nulls: &mut Vec<u64>) -> Option<Vec<u128>> {
    /// Signed values in unsigned order.
    fn signed(v: i64) -> u64 {
        (v as u64) ^ (1 << 63)
    }
    Some(match column.data_type() {
        ArrowType::Int8 => pack::<Int8Type>(column, nulls, |v| signed(i64::from(v))),
        ArrowType::Int16 => pack::<Int16Type>(column, nulls, |v| signed(i64::from(v))),
        ArrowType::Int32 => pack::<Int32Type>(column, nulls, |v| signed(i64::from(v))),
        ArrowType::Date32 => pack::<Date32Type>(column, nulls, |v| signed(i64::from(v))),
        ArrowType::Int64 => pack::<Int64Type>(column, nulls, signed),
        ArrowType::Timestamp(TimeUnit::Millisecond, _) => {
            pack::<TimestampMillisecondType>(column, nulls, signed)
        }
        ArrowType::Timestamp(TimeUnit::Microsecond, _) => {
            pack::<TimestampMicrosecondType>(column, nulls, signed)
        }
        ArrowType::Timestamp(TimeUnit::Nanosecond, _) => {
            pack::<TimestampNanosecondType>(column, nulls, signed)
        }
        ArrowType::Float32 => pack::<Float32Type>(column, nulls, |v| {
            u64::from(total_order_u32(java_float_bits(v)))
        }),
        ArrowType::Float64 => {
            pack::<Float64Type>(column, nulls, |v| total_order_u64(java_double_bits(v)))
        }
        ArrowType::Boolean => {
            let a = column.as_boolean();
            let mut keys = Vec::with_capacity(a.len() - a.null_count());
            for (i, v) in a.iter().enumerate() {
                match v {
                    Some(v) => keys.push((u128::from(v) << 64) | i as u128),
                    None => nulls.push(i as u64),
                }
            }
            keys
        }
        _ => return None,
    })
}

/// IEEE-754 bits (NaN canonical) in `Float.compare` order: −0.0 before 0.0, NaN last.
fn total_order_u32(bits: u32) -> u32 {
    match bits & (1 << 31) {
        0 => bits | (1 << 31),
        _ => !bits,
    }
}

/// [`total_order_u32`] for `Double.compare`.
fn total_order_u64(bits: u64) -> u64 {
    match bits & (1 << 63) {
        0 => bits | (1 << 63),
        _ => !bits,
    }
}

fn pack<T: ArrowPrimitiveType>(
    column: &ArrayRef,
    nulls: &mut Vec<u64>,
    order: impl Fn(T::Native) -> u64,
) -> Vec<u128> {
    let a: &PrimitiveArray<T> = column.as_primitive();
    let entry = |i: usize, v: T::Native| (u128::from(order(v)) << 64) | i as u128;
    if a.null_count() == 0 {
        return a
            .values()
            .iter()
            .enumerate()
            .map(|(i, &v)| entry(i, v))
            .collect();
    }
    let mut keys = Vec::with_capacity(a.len() - a.null_count());
    for (i, v) in a.iter().enumerate() {
        match v {
            Some(v) => keys.push(entry(i, v)),
            None => nulls.push(i as u64),
        }
    }
    keys
}

/// Reads the key of a non-null row of a column [`packed`] accepts (`None` for a null row or
/// another type, which [`PayloadValues`] never asks for).
fn key_reader(column: &ArrayRef) -> Box<dyn Fn(usize) -> Option<Key> + '_> {
    macro_rules! prim {
        ($t:ty, $f:expr) => {{
            let a = column.as_primitive::<$t>();
            Box::new(move |i| a.is_valid(i).then(|| $f(a.value(i))))
        }};
    }
    match column.data_type() {
        ArrowType::Int8 => prim!(Int8Type, Key::TinyInt),
        ArrowType::Int16 => prim!(Int16Type, Key::SmallInt),
        ArrowType::Int32 => prim!(Int32Type, Key::Int),
        ArrowType::Date32 => prim!(Date32Type, Key::Int),
        ArrowType::Int64 => prim!(Int64Type, Key::BigInt),
        ArrowType::Float32 => prim!(Float32Type, Key::Float),
        ArrowType::Float64 => prim!(Float64Type, Key::Double),
        ArrowType::Timestamp(TimeUnit::Millisecond, _) => {
            prim!(TimestampMillisecondType, |v: i64| timestamp(
                i128::from(v) * 1_000_000
            ))
        }
        ArrowType::Timestamp(TimeUnit::Microsecond, _) => {
            prim!(TimestampMicrosecondType, |v: i64| timestamp(
                i128::from(v) * 1_000
            ))
        }
        ArrowType::Timestamp(TimeUnit::Nanosecond, _) => {
            prim!(TimestampNanosecondType, |v: i64| timestamp(i128::from(v)))
        }
        ArrowType::Boolean => {
            let a = column.as_boolean();
            Box::new(move |i| a.is_valid(i).then(|| Key::Boolean(a.value(i))))
        }
        _ => Box::new(|_| None),
    }
}

/// The keys of a column [`packed`] does not take (decimals, strings); `Unsupported` for a
/// type a payload cannot hold.
fn keys_of(array: &ArrayRef) -> Result<Vec<Option<Key>>> {
    Ok(match array.data_type() {
        ArrowType::Decimal128(_, _) => array
            .as_primitive::<Decimal128Type>()
            .iter()
            .map(|v| v.map(Key::Decimal))
            .collect(),
        ArrowType::Utf8 => array
            .as_string::<i32>()
            .iter()
            .map(|v| v.map(|s| Key::String(s.as_bytes().to_vec())))
            .collect(),
        ArrowType::LargeUtf8 => array
            .as_string::<i64>()
            .iter()
            .map(|v| v.map(|s| Key::String(s.as_bytes().to_vec())))
            .collect(),
        other => {
            return Err(Error::unsupported(format!(
                "building a pk-btree payload over a column of Arrow type {other}"
            )))
        }
    })
}

/// A timestamp key from epoch nanoseconds.
fn timestamp(nanos: i128) -> Key {
    let millis = nanos.div_euclid(1_000_000);
    Key::Timestamp {
        millis: millis as i64,
        nanos_of_milli: nanos.rem_euclid(1_000_000) as i32,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{
        BooleanArray, Date32Array, Decimal128Array, Float32Array, Float64Array, Int16Array,
        Int32Array, Int64Array, Int8Array, StringArray, TimestampMicrosecondArray,
        TimestampMillisecondArray, TimestampNanosecondArray,
    };

    use super::*;

    /// Every value of `column` as a key, converted one type at a time (the builder's conversion
    /// before the packed sort, kept as the oracle).
    fn oracle_keys(column: &ArrayRef) -> Vec<Option<Key>> {
        let key_at = key_reader(column);
        match column.data_type() {
            ArrowType::Decimal128(_, _) | ArrowType::Utf8 | ArrowType::LargeUtf8 => {
                keys_of(column).unwrap()
            }
            ArrowType::Timestamp(unit, _) => {
                let nanos_per = match unit {
                    TimeUnit::Millisecond => 1_000_000,
                    TimeUnit::Microsecond => 1_000,
                    _ => 1,
                };
                let a = arrow_cast::cast(column, &ArrowType::Int64).unwrap();
                a.as_primitive::<Int64Type>()
                    .iter()
                    .map(|v| {
                        v.map(|v| {
                            let nanos = i128::from(v) * nanos_per;
                            Key::Timestamp {
                                millis: nanos.div_euclid(1_000_000) as i64,
                                nanos_of_milli: nanos.rem_euclid(1_000_000) as i32,
                            }
                        })
                    })
                    .collect()
            }
            _ => (0..column.len()).map(key_at).collect(),
        }
    }

    /// The order the payload builder has always used: every key converted, sorted by Java's
    /// comparator with the ordinal as tie-break, nulls last by ordinal.
    fn reference(column: &ArrayRef) -> Vec<(Option<Key>, u64)> {
        let mut v: Vec<(Option<Key>, u64)> = oracle_keys(column)
            .into_iter()
            .enumerate()
            .map(|(i, k)| (k, i as u64))
            .collect();
        v.sort_by(|a, b| {
            match (&a.0, &b.0) {
                (Some(x), Some(y)) => compare(x, y),
                (None, None) => std::cmp::Ordering::Equal,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (Some(_), None) => std::cmp::Ordering::Less,
            }
            .then(a.1.cmp(&b.1))
        });
        v
    }

    /// Keys compared by their serialized identity (NaN payloads, −0.0).
    fn canonical(v: Vec<(Option<Key>, u64)>) -> Vec<(Option<String>, u64)> {
        v.into_iter()
            .map(|(k, o)| {
                let k = k.map(|k| match k {
                    Key::Float(f) => format!("f{:x}", java_float_bits(f)),
                    Key::Double(d) => format!("d{:x}", java_double_bits(d)),
                    other => format!("{other:?}"),
                });
                (k, o)
            })
            .collect()
    }

    fn check(column: ArrayRef) {
        let values = PayloadValues::sort(column.clone()).unwrap();
        let got: Vec<_> = values
            .iter()
            .map(|(k, o)| (k.map(Cow::into_owned), o))
            .collect();
        assert_eq!(got.len(), column.len());
        assert_eq!(
            canonical(got),
            canonical(reference(&column)),
            "{:?}",
            column.data_type()
        );
    }

    /// A small deterministic generator.
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            self.0 >> 11
        }
    }

    #[test]
    fn every_type_sorts_as_the_key_comparator_does() {
        let mut g = Lcg(7);
        for round in 0..40 {
            let n = (g.next() % 300) as usize;
            let null = |g: &mut Lcg| round % 3 == 0 && g.next() % 5 == 0;
            // Few distinct values, so ties (ordinal order) are common.
            let ints = |g: &mut Lcg| -> Vec<Option<i64>> {
                (0..n)
                    .map(|_| match null(g) {
                        true => None,
                        false => Some(match g.next() % 4 {
                            0 => i64::MIN + (g.next() % 3) as i64,
                            1 => i64::MAX - (g.next() % 3) as i64,
                            _ => (g.next() % 21) as i64 - 10,
                        }),
                    })
                    .collect()
            };
            let v = ints(&mut g);
            check(Arc::new(Int64Array::from(v.clone())));
            check(Arc::new(Int8Array::from(
                v.iter().map(|x| x.map(|x| x as i8)).collect::<Vec<_>>(),
            )));
            check(Arc::new(Int16Array::from(
                v.iter().map(|x| x.map(|x| x as i16)).collect::<Vec<_>>(),
            )));
            check(Arc::new(Int32Array::from(
                v.iter().map(|x| x.map(|x| x as i32)).collect::<Vec<_>>(),
            )));
            check(Arc::new(Date32Array::from(
                v.iter().map(|x| x.map(|x| x as i32)).collect::<Vec<_>>(),
            )));
            let ts: Vec<Option<i64>> = v.iter().map(|x| x.map(|x| x / 4)).collect();
            check(Arc::new(TimestampMillisecondArray::from(ts.clone())));
            check(Arc::new(TimestampMicrosecondArray::from(ts.clone())));
            check(Arc::new(TimestampNanosecondArray::from(ts)));
            check(Arc::new(BooleanArray::from(
                v.iter().map(|x| x.map(|x| x % 2 == 0)).collect::<Vec<_>>(),
            )));
            check(Arc::new(Decimal128Array::from(
                v.iter().map(|x| x.map(i128::from)).collect::<Vec<_>>(),
            )));
            check(Arc::new(StringArray::from(
                v.iter()
                    .map(|x| x.map(|x| format!("s{}", x.rem_euclid(7))))
                    .collect::<Vec<_>>(),
            )));
            let specials = [
                0.0,
                -0.0,
                f64::NAN,
                -f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::MIN_POSITIVE,
                -1.5,
                2.5,
            ];
            let d: Vec<Option<f64>> = (0..n)
                .map(|_| match null(&mut g) {
                    true => None,
                    false => Some(specials[(g.next() % specials.len() as u64) as usize]),
                })
                .collect();
            check(Arc::new(Float64Array::from(d.clone())));
            check(Arc::new(Float32Array::from(
                d.iter().map(|x| x.map(|x| x as f32)).collect::<Vec<_>>(),
            )));
        }
    }

    #[test]
    fn floats_follow_java_compare() {
        let a: ArrayRef = Arc::new(Float64Array::from(vec![
            f64::NAN,
            0.0,
            -0.0,
            f64::INFINITY,
            -1.0,
        ]));
        let values = PayloadValues::sort(a).unwrap();
        let ordinals: Vec<u64> = values.iter().map(|(_, o)| o).collect();
        assert_eq!(ordinals, vec![4, 2, 1, 3, 0]);
    }

    #[test]
    fn unsupported_types_are_refused() {
        let a: ArrayRef = Arc::new(arrow_array::BinaryArray::from(vec![&b"x"[..]]));
        let e = PayloadValues::sort(a).err().unwrap();
        assert!(e.to_string().contains("Arrow type Binary"), "{e}");
    }
}
