//! BTree keys: serialization and Java's ordering
//! (`org.apache.paimon.globalindex.KeySerializer`, Paimon 2.0).
//!
//! | type | bytes | order |
//! |------|-------|-------|
//! | TINYINT | 1 | signed |
//! | SMALLINT | `i16 LE` | signed |
//! | INT, DATE, TIME | `i32 LE` | signed |
//! | BIGINT | `i64 LE` | signed |
//! | BOOLEAN | 1 byte, `1` = true (any other byte reads as false) | false < true |
//! | FLOAT | `i32 LE` of `Float.floatToIntBits` (NaN canonical) | `Float.compare` |
//! | DOUBLE | `i64 LE` of `Double.doubleToLongBits` | `Double.compare` |
//! | DECIMAL p ≤ 18 | unscaled `i64 LE` | numeric |
//! | DECIMAL p > 18 | unscaled `BigInteger#toByteArray` (big-endian two's complement) | numeric |
//! | CHAR, VARCHAR | UTF-8 bytes | unsigned bytewise (`BinaryString#compareTo`) |
//! | TIMESTAMP(_LTZ) p ≤ 3 | millis `i64 LE` | (millis, nanos) |
//! | TIMESTAMP(_LTZ) p > 3 | millis `i64 LE` + `varint32` nano-of-millisecond | (millis, nanos) |
//!
//! `Float.compare` orders −0.0 before 0.0 and NaN after everything (NaN equals NaN), so an
//! index lookup of 0.0 does not find −0.0.

use std::cmp::Ordering;

use crate::index::sst::{read_varint32, write_varint};
use crate::spec::bytes::ByteReader;
use crate::spec::types::{DataType, TypeKind};
use crate::{Error, Result};

/// A key type the Java key serializer supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyType {
    /// `TINYINT`
    TinyInt,
    /// `SMALLINT`
    SmallInt,
    /// `INT`, `DATE` (days) and `TIME` (millis of day).
    Int,
    /// `BIGINT`
    BigInt,
    /// `BOOLEAN`
    Boolean,
    /// `FLOAT`
    Float,
    /// `DOUBLE`
    Double,
    /// `DECIMAL(p, s)`
    Decimal {
        /// Precision, 1..=38.
        precision: u32,
    },
    /// `CHAR`, `VARCHAR`, `STRING`
    String,
    /// `TIMESTAMP(p)`, `TIMESTAMP_LTZ(p)`
    Timestamp {
        /// Fractional-second digits.
        precision: u32,
    },
}

/// One key value. Decimals are unscaled (the scale is the column's); DATE and TIME are `Int`.
#[derive(Debug, Clone, PartialEq)]
pub enum Key {
    /// `TINYINT`
    TinyInt(i8),
    /// `SMALLINT`
    SmallInt(i16),
    /// `INT`, `DATE`, `TIME`
    Int(i32),
    /// `BIGINT`
    BigInt(i64),
    /// `BOOLEAN`
    Boolean(bool),
    /// `FLOAT`
    Float(f32),
    /// `DOUBLE`
    Double(f64),
    /// `DECIMAL`, unscaled.
    Decimal(i128),
    /// `CHAR` / `VARCHAR` UTF-8 bytes.
    String(Vec<u8>),
    /// `TIMESTAMP` / `TIMESTAMP_LTZ`.
    Timestamp {
        /// Epoch milliseconds.
        millis: i64,
        /// Nanoseconds within the millisecond, 0..=999_999.
        nanos_of_milli: i32,
    },
}

impl KeyType {
    /// The key type of a column type; BINARY, VARBINARY and nested types are `Unsupported`
    /// (as in Java's `KeySerializer#create`).
    pub fn from_data_type(t: &DataType) -> Result<Self> {
        Ok(match &t.kind {
            TypeKind::TinyInt => Self::TinyInt,
            TypeKind::SmallInt => Self::SmallInt,
            TypeKind::Int | TypeKind::Date | TypeKind::Time(_) => Self::Int,
            TypeKind::BigInt => Self::BigInt,
            TypeKind::Boolean => Self::Boolean,
            TypeKind::Float => Self::Float,
            TypeKind::Double => Self::Double,
            TypeKind::Decimal { precision, .. } => Self::Decimal {
                precision: *precision,
            },
            TypeKind::Char(_) | TypeKind::VarChar(_) => Self::String,
            TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => {
                Self::Timestamp { precision: *p }
            }
            other => {
                return Err(Error::unsupported(format!(
                    "type {other:?} is not supported by the BTree global index"
                )))
            }
        })
    }

    /// Serializes `key`, which must be of this type (`InvalidArgument` otherwise).
    pub fn serialize(&self, key: &Key) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.serialize_into(key, &mut out)?;
        Ok(out)
    }

    /// Appends the serialized `key` (of this type, else `InvalidArgument`) to `out`.
    pub fn serialize_into(&self, key: &Key, out: &mut Vec<u8>) -> Result<()> {
        match (self, key) {
            (Self::TinyInt, Key::TinyInt(v)) => out.extend_from_slice(&v.to_le_bytes()),
            (Self::SmallInt, Key::SmallInt(v)) => out.extend_from_slice(&v.to_le_bytes()),
            (Self::Int, Key::Int(v)) => out.extend_from_slice(&v.to_le_bytes()),
            (Self::BigInt, Key::BigInt(v)) => out.extend_from_slice(&v.to_le_bytes()),
            (Self::Boolean, Key::Boolean(v)) => out.push(u8::from(*v)),
            (Self::Float, Key::Float(v)) => {
                out.extend_from_slice(&java_float_bits(*v).to_le_bytes())
            }
            (Self::Double, Key::Double(v)) => {
                out.extend_from_slice(&java_double_bits(*v).to_le_bytes())
            }
            (Self::Decimal { precision }, Key::Decimal(v)) if *precision <= 18 => {
                let v = i64::try_from(*v).map_err(|_| {
                    Error::invalid_argument(format!("decimal {v} exceeds precision {precision}"))
                })?;
                out.extend_from_slice(&v.to_le_bytes());
            }
            (Self::Decimal { .. }, Key::Decimal(v)) => {
                out.extend_from_slice(&big_integer_bytes(*v))
            }
            (Self::String, Key::String(v)) => out.extend_from_slice(v),
            (
                Self::Timestamp { precision },
                Key::Timestamp {
                    millis,
                    nanos_of_milli,
                },
            ) => {
                out.extend_from_slice(&millis.to_le_bytes());
                if *precision > 3 {
                    write_varint(out, u64::from(*nanos_of_milli as u32));
                }
            }
            _ => {
                return Err(Error::invalid_argument(format!(
                    "key {key:?} is not of BTree key type {self:?}"
                )))
            }
        }
        Ok(())
    }

    /// Deserializes stored key bytes; a wrong width or malformed bytes are `DataInvalid`.
    /// (Java reads fixed-width keys at offset 0 and ignores extra bytes; we require the exact
    /// width.)
    pub fn deserialize(&self, bytes: &[u8]) -> Result<Key> {
        let mut r = ByteReader::new(bytes, "BTree key");
        let key = match self {
            Self::TinyInt => Key::TinyInt(i8::from_le_bytes(r.array()?)),
            Self::SmallInt => Key::SmallInt(r.i16_le()?),
            Self::Int => Key::Int(r.i32_le()?),
            Self::BigInt => Key::BigInt(r.i64_le()?),
            Self::Boolean => Key::Boolean(r.u8()? == 1),
            Self::Float => Key::Float(f32::from_bits(r.u32_le()?)),
            Self::Double => Key::Double(f64::from_bits(r.u64_le()?)),
            Self::Decimal { precision } if *precision <= 18 => Key::Decimal(r.i64_le()?.into()),
            Self::Decimal { .. } => {
                let b = r.take(bytes.len())?;
                Key::Decimal(
                    from_big_integer_bytes(b)
                        .ok_or_else(|| r.invalid("decimal unscaled value wider than 16 bytes"))?,
                )
            }
            Self::String => Key::String(r.take(bytes.len())?.to_vec()),
            Self::Timestamp { precision } => {
                let millis = r.i64_le()?;
                let nanos = if *precision > 3 {
                    let n = read_varint32(&mut r)?;
                    if n > 999_999 {
                        return Err(r
                            .invalid("nano-of-millisecond out of range")
                            .with_context("found", n.to_string()));
                    }
                    n as i32
                } else {
                    0
                };
                Key::Timestamp {
                    millis,
                    nanos_of_milli: nanos,
                }
            }
        };
        if !r.is_empty() {
            return Err(r
                .invalid(format!(
                    "{} extra bytes after a {self:?} key",
                    r.remaining()
                ))
                .with_context("length", bytes.len().to_string()));
        }
        Ok(key)
    }

    /// Compares stored key bytes with a key of this type, in Java's order.
    pub fn compare_stored(&self, stored: &[u8], key: &Key) -> Result<Ordering> {
        if let (Self::String, Key::String(k)) = (self, key) {
            return Ok(stored.cmp(k.as_slice()));
        }
        Ok(compare(&self.deserialize(stored)?, key))
    }
}

/// Java's order of two keys of the same type (`KeySerializer#createComparator`). Keys of
/// different variants order by variant (never happens for one file).
pub fn compare(a: &Key, b: &Key) -> Ordering {
    match (a, b) {
        (Key::TinyInt(x), Key::TinyInt(y)) => x.cmp(y),
        (Key::SmallInt(x), Key::SmallInt(y)) => x.cmp(y),
        (Key::Int(x), Key::Int(y)) => x.cmp(y),
        (Key::BigInt(x), Key::BigInt(y)) => x.cmp(y),
        (Key::Boolean(x), Key::Boolean(y)) => x.cmp(y),
        (Key::Float(x), Key::Float(y)) => java_float_compare(*x, *y),
        (Key::Double(x), Key::Double(y)) => java_double_compare(*x, *y),
        (Key::Decimal(x), Key::Decimal(y)) => x.cmp(y),
        (Key::String(x), Key::String(y)) => x.cmp(y),
        (
            Key::Timestamp {
                millis: m1,
                nanos_of_milli: n1,
            },
            Key::Timestamp {
                millis: m2,
                nanos_of_milli: n2,
            },
        ) => m1.cmp(m2).then(n1.cmp(n2)),
        _ => variant(a).cmp(&variant(b)),
    }
}

fn variant(k: &Key) -> u8 {
    match k {
        Key::TinyInt(_) => 0,
        Key::SmallInt(_) => 1,
        Key::Int(_) => 2,
        Key::BigInt(_) => 3,
        Key::Boolean(_) => 4,
        Key::Float(_) => 5,
        Key::Double(_) => 6,
        Key::Decimal(_) => 7,
        Key::String(_) => 8,
        Key::Timestamp { .. } => 9,
    }
}

/// `Float.floatToIntBits`: every NaN becomes `0x7fc00000`.
pub fn java_float_bits(v: f32) -> u32 {
    if v.is_nan() {
        0x7fc0_0000
    } else {
        v.to_bits()
    }
}

/// `Double.doubleToLongBits`: every NaN becomes `0x7ff8000000000000`.
pub fn java_double_bits(v: f64) -> u64 {
    if v.is_nan() {
        0x7ff8_0000_0000_0000
    } else {
        v.to_bits()
    }
}

/// `Float.compare`.
pub fn java_float_compare(a: f32, b: f32) -> Ordering {
    if a < b {
        Ordering::Less
    } else if a > b {
        Ordering::Greater
    } else {
        (java_float_bits(a) as i32).cmp(&(java_float_bits(b) as i32))
    }
}

/// `Double.compare`.
pub fn java_double_compare(a: f64, b: f64) -> Ordering {
    if a < b {
        Ordering::Less
    } else if a > b {
        Ordering::Greater
    } else {
        (java_double_bits(a) as i64).cmp(&(java_double_bits(b) as i64))
    }
}

/// `BigInteger#toByteArray`: minimal big-endian two's complement (at least one byte).
fn big_integer_bytes(v: i128) -> Vec<u8> {
    let b = v.to_be_bytes();
    let mut start = 0;
    while start < 15 {
        let (head, next) = (b[start], b[start + 1]);
        let redundant = (head == 0x00 && next & 0x80 == 0) || (head == 0xff && next & 0x80 != 0);
        if !redundant {
            break;
        }
        start += 1;
    }
    b[start..].to_vec()
}

/// Inverse of [`big_integer_bytes`] for up to 16 bytes (any sign-extended width).
fn from_big_integer_bytes(b: &[u8]) -> Option<i128> {
    if b.is_empty() || b.len() > 16 {
        return None;
    }
    let fill = if b[0] & 0x80 != 0 { 0xff } else { 0 };
    let mut buf = [fill; 16];
    buf[16 - b.len()..].copy_from_slice(b);
    Some(i128::from_be_bytes(buf))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_float_order() {
        let mut v = [
            f32::NAN,
            1.0,
            -0.0,
            0.0,
            f32::NEG_INFINITY,
            f32::INFINITY,
            -1.0,
        ];
        v.sort_by(|a, b| java_float_compare(*a, *b));
        let bits: Vec<u32> = v.iter().map(|f| f.to_bits()).collect();
        let want: Vec<u32> = [
            f32::NEG_INFINITY,
            -1.0,
            -0.0,
            0.0,
            1.0,
            f32::INFINITY,
            f32::NAN,
        ]
        .iter()
        .map(|f| f.to_bits())
        .collect();
        assert_eq!(bits, want);
        assert_eq!(java_float_compare(f32::NAN, -f32::NAN), Ordering::Equal);
        assert_eq!(java_double_compare(-0.0, 0.0), Ordering::Less);
        assert_eq!(
            java_double_compare(f64::NAN, f64::INFINITY),
            Ordering::Greater
        );
        assert_eq!(
            KeyType::Float.serialize(&Key::Float(-f32::NAN)).unwrap(),
            [0, 0, 0xc0, 0x7f]
        );
    }

    #[test]
    fn round_trips_every_type() {
        let cases = [
            (KeyType::TinyInt, Key::TinyInt(-3), 1),
            (KeyType::SmallInt, Key::SmallInt(-300), 2),
            (KeyType::Int, Key::Int(-7), 4),
            (KeyType::BigInt, Key::BigInt(1 << 40), 8),
            (KeyType::Boolean, Key::Boolean(true), 1),
            (KeyType::Float, Key::Float(-9.27), 4),
            (KeyType::Double, Key::Double(1e300), 8),
            (KeyType::Decimal { precision: 10 }, Key::Decimal(-12345), 8),
            (KeyType::Decimal { precision: 38 }, Key::Decimal(-128), 1),
            (KeyType::Decimal { precision: 38 }, Key::Decimal(128), 2),
            (
                KeyType::Decimal { precision: 38 },
                Key::Decimal(i128::MIN),
                16,
            ),
            (KeyType::String, Key::String("héllo".into()), 6),
            (
                KeyType::Timestamp { precision: 3 },
                Key::Timestamp {
                    millis: -5,
                    nanos_of_milli: 0,
                },
                8,
            ),
            (
                KeyType::Timestamp { precision: 9 },
                Key::Timestamp {
                    millis: 1_700_000_000_000,
                    nanos_of_milli: 999_999,
                },
                11,
            ),
        ];
        for (t, k, len) in cases {
            let b = t.serialize(&k).unwrap();
            assert_eq!(b.len(), len, "{k:?}");
            assert_eq!(t.deserialize(&b).unwrap(), k);
            assert_eq!(t.compare_stored(&b, &k).unwrap(), Ordering::Equal);
        }
        assert_eq!(big_integer_bytes(0), [0]);
        assert_eq!(big_integer_bytes(-1), [0xff]);
        assert_eq!(big_integer_bytes(255), [0, 0xff]);
        assert!(KeyType::Int.deserialize(&[1, 2, 3]).is_err());
        assert!(KeyType::Int.deserialize(&[1, 2, 3, 4, 5]).is_err());
        assert!(KeyType::Decimal { precision: 38 }.deserialize(&[]).is_err());
        assert!(KeyType::Int.serialize(&Key::BigInt(1)).is_err());
        assert!(KeyType::Decimal { precision: 5 }
            .serialize(&Key::Decimal(i128::MAX))
            .is_err());
    }

    #[test]
    fn orders() {
        let s = |x: &str| Key::String(x.as_bytes().to_vec());
        assert_eq!(compare(&s("a"), &s("aa")), Ordering::Less);
        assert_eq!(compare(&s("aaaa"), &s("b")), Ordering::Less);
        assert_eq!(compare(&s("z"), &s("é")), Ordering::Less, "unsigned bytes");
        let t = |m, n| Key::Timestamp {
            millis: m,
            nanos_of_milli: n,
        };
        assert_eq!(compare(&t(1, 5), &t(1, 6)), Ordering::Less);
        assert_eq!(compare(&t(-1, 999), &t(0, 0)), Ordering::Less);
        assert_eq!(
            compare(&Key::Boolean(false), &Key::Boolean(true)),
            Ordering::Less
        );
        assert_eq!(
            compare(&Key::Decimal(-129), &Key::Decimal(128)),
            Ordering::Less
        );
        let st = KeyType::String;
        assert_eq!(st.compare_stored(b"b", &s("a")).unwrap(), Ordering::Greater);
    }
}
