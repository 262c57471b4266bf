//! Bucket functions: which fixed bucket a bucket-key row belongs to.
//!
//! Mirrors Java `org.apache.paimon.bucket.BucketFunction` and its implementations
//! `DefaultBucketFunction`, `ModBucketFunction`, `HiveBucketFunction` (+ `HiveHasher`), selected by
//! `bucket-function.type` (`CoreOptions.BucketFunctionType`), Paimon 2.0:
//!
//! - `default`: `abs(row.hashCode() % n)` with Java's truncating `%`;
//! - `mod`: one INT/BIGINT key, `floorMod(value, n)`; a null key reads as 0 (the zeroed slot);
//! - `hive`: `h = 31 * h + hash(field)` over the fields, `(h & i32::MAX) % n`, with Hive's
//!   per-type hashes (signed-byte string hash, `BigDecimal.hashCode` after Hive normalisation).
//!
//! Divergence: Java's hive function throws a `NullPointerException` for a decimal with more than
//! 38 integer digits; here that is a `DataInvalid` error.

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use std::fmt;
use std::str::FromStr;

use crate::spec::binary_row::BinaryRow;
use crate::spec::datum::{Datum, Decimal};
use crate::spec::types::{DataType, TypeKind};
use crate::{Error, Result};

/// The `bucket-function.type` option (Java `CoreOptions.BucketFunctionType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BucketFunctionType {
    /// `default`: MurmurHash of the bucket-key row.
    #[default]
    Default,
    /// `mod`: the single integer key modulo the bucket count.
    Mod,
    /// `hive`: Hive-compatible hash of the key fields.
    Hive,
}

impl FromStr for BucketFunctionType {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "default" => Ok(BucketFunctionType::Default),
            "mod" => Ok(BucketFunctionType::Mod),
            "hive" => Ok(BucketFunctionType::Hive),
            _ => Err(
                Error::invalid_argument(format!("unknown bucket function type '{s}'"))
                    .with_context("expected", "default | mod | hive"),
            ),
        }
    }
}

impl fmt::Display for BucketFunctionType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BucketFunctionType::Default => "default",
            BucketFunctionType::Mod => "mod",
            BucketFunctionType::Hive => "hive",
        })
    }
}

/// A bucket function of one kind over bucket keys of known types.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketFunction {
    kind: BucketFunctionType,
    key_types: Vec<DataType>,
}

/// Key types the `hive` function can hash (Java `HiveHasher`).
pub(crate) fn hive_supports(t: &DataType) -> bool {
    matches!(
        t.kind,
        TypeKind::Boolean
            | TypeKind::TinyInt
            | TypeKind::SmallInt
            | TypeKind::Int
            | TypeKind::BigInt
            | TypeKind::Float
            | TypeKind::Double
            | TypeKind::Char(_)
            | TypeKind::VarChar(_)
            | TypeKind::Binary(_)
            | TypeKind::VarBinary(_)
            | TypeKind::Decimal { .. }
            | TypeKind::Date
    )
}

impl BucketFunction {
    /// A bucket function of `kind` for keys of `key_types` (bucket-key order).
    ///
    /// `mod` needs exactly one INT or BIGINT key (`InvalidArgument`); `hive` rejects types Hive
    /// cannot hash, such as TIMESTAMP, TIME and nested types (`Unsupported`).
    pub fn new(kind: BucketFunctionType, key_types: Vec<DataType>) -> Result<Self> {
        match kind {
            BucketFunctionType::Default => {}
            BucketFunctionType::Mod => {
                if key_types.len() != 1 {
                    return Err(Error::invalid_argument(
                        "MOD bucket function requires exactly one bucket key field",
                    )
                    .with_context("found", key_types.len().to_string()));
                }
                if !matches!(
                    key_types.first().map(|t| &t.kind),
                    Some(TypeKind::Int | TypeKind::BigInt)
                ) {
                    return Err(Error::invalid_argument(
                        "MOD bucket function requires an INT or BIGINT bucket key",
                    )
                    .with_context("found", format_types(&key_types)));
                }
            }
            BucketFunctionType::Hive => {
                if let Some(t) = key_types.iter().find(|t| !hive_supports(t)) {
                    return Err(Error::unsupported(format!(
                        "HIVE bucket function: unsupported field type {t}"
                    )));
                }
            }
        }
        Ok(BucketFunction { kind, key_types })
    }

    /// The function's kind.
    pub fn kind(&self) -> BucketFunctionType {
        self.kind
    }

    /// The bucket-key types.
    pub fn key_types(&self) -> &[DataType] {
        &self.key_types
    }

    /// The default function's bucket of a key whose `BinaryRow` hash code is `hash`, among
    /// `num_buckets` (> 0) buckets: `abs(hash % n)` with Java's truncating remainder.
    pub(crate) fn default_bucket(hash: i32, num_buckets: i32) -> i32 {
        (hash % num_buckets).abs()
    }

    /// The bucket of `key` among `num_buckets` buckets, in `[0, num_buckets)`.
    pub fn bucket(&self, key: &BinaryRow, num_buckets: i32) -> Result<i32> {
        if num_buckets <= 0 {
            return Err(Error::invalid_argument(
                "bucket count must be positive for a bucket function",
            )
            .with_context("found", num_buckets.to_string()));
        }
        if self.kind != BucketFunctionType::Default && key.arity() != self.key_types.len() {
            return Err(Error::invalid_argument(
                "bucket-key row arity does not match the bucket key types",
            )
            .with_context("expected", self.key_types.len().to_string())
            .with_context("found", key.arity().to_string()));
        }
        match self.kind {
            BucketFunctionType::Default => Ok(Self::default_bucket(key.hash_code(), num_buckets)),
            BucketFunctionType::Mod => self.mod_bucket(key, num_buckets),
            BucketFunctionType::Hive => Ok((self.hive_row_hash(key)? & i32::MAX) % num_buckets),
        }
    }

    fn mod_bucket(&self, key: &BinaryRow, n: i32) -> Result<i32> {
        let value = match self.key_types.first() {
            Some(t) => key.get(0, t)?,
            None => None,
        };
        let bucket = match value {
            // Java reads the zeroed slot of a null key: 0.
            None => 0,
            Some(Datum::Int(v)) => v.rem_euclid(n),
            // |result| < n, so the narrowing is exact.
            Some(Datum::BigInt(v)) => v.rem_euclid(i64::from(n)) as i32,
            Some(other) => {
                return Err(Error::internal(format!(
                    "MOD bucket function read a non-integer key {other:?}"
                )))
            }
        };
        Ok(bucket)
    }

    fn hive_row_hash(&self, key: &BinaryRow) -> Result<i32> {
        let mut hash = 0i32;
        for (pos, t) in self.key_types.iter().enumerate() {
            let field = match t.kind {
                // Strings hash their stored bytes, not a re-encoded lossy decoding.
                TypeKind::Char(_)
                | TypeKind::VarChar(_)
                | TypeKind::Binary(_)
                | TypeKind::VarBinary(_) => key.get_bytes(pos)?.map_or(0, hive_hash_bytes),
                _ => hive_hash(key.get(pos, t)?.as_ref())?,
            };
            hash = hash.wrapping_mul(31).wrapping_add(field);
        }
        Ok(hash)
    }
}

fn format_types(types: &[DataType]) -> String {
    types
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Hive's hash of one value (Java `HiveBucketFunction#computeHash` / `HiveHasher`); null is 0.
///
/// Errors for TIMESTAMP/TIME values (unsupported by Hive hashing) and for decimals Hive cannot
/// represent (more than 38 integer digits).
pub fn hive_hash(value: Option<&Datum>) -> Result<i32> {
    let Some(value) = value else { return Ok(0) };
    Ok(match value {
        Datum::Boolean(b) => i32::from(*b),
        Datum::TinyInt(v) => i32::from(*v),
        Datum::SmallInt(v) => i32::from(*v),
        Datum::Int(v) | Datum::Date(v) => *v,
        Datum::BigInt(v) => hive_hash_long(*v),
        Datum::Float(v) => {
            if *v == 0.0 {
                0
            } else {
                java_float_to_int_bits(*v)
            }
        }
        Datum::Double(v) => {
            if *v == 0.0 {
                0
            } else {
                hive_hash_long(java_double_to_long_bits(*v))
            }
        }
        Datum::String(s) => hive_hash_bytes(s.as_bytes()),
        Datum::Binary(b) => hive_hash_bytes(b),
        Datum::Decimal(d) => hive_hash_decimal(d)?,
        Datum::Time(_) | Datum::Timestamp(_) | Datum::LocalZonedTimestamp(_) => {
            return Err(Error::unsupported(format!(
                "HIVE bucket function: unsupported value {value:?}"
            )))
        }
    })
}

/// Java `Long.hashCode`: `(int) (v ^ (v >>> 32))`.
fn hive_hash_long(v: i64) -> i32 {
    (v ^ ((v as u64) >> 32) as i64) as i32
}

/// Java `Float.floatToIntBits`: raw bits with every NaN canonicalised to `0x7fc00000`.
fn java_float_to_int_bits(v: f32) -> i32 {
    if v.is_nan() {
        0x7fc0_0000
    } else {
        v.to_bits() as i32
    }
}

/// Java `Double.doubleToLongBits`: raw bits with every NaN canonicalised.
fn java_double_to_long_bits(v: f64) -> i64 {
    if v.is_nan() {
        0x7ff8_0000_0000_0000
    } else {
        v.to_bits() as i64
    }
}

/// Hive's byte hash: `r = 31 * r + b` over the bytes read as signed.
pub fn hive_hash_bytes(bytes: &[u8]) -> i32 {
    bytes.iter().fold(0i32, |r, b| {
        r.wrapping_mul(31).wrapping_add(i32::from(*b as i8))
    })
}

const HIVE_MAX_PRECISION: i64 = 38;

fn pow10(n: u32) -> Option<i128> {
    10i128.checked_pow(n)
}

fn digit_count(v: u128) -> i64 {
    let mut n = 1;
    let mut x = v / 10;
    while x > 0 {
        n += 1;
        x /= 10;
    }
    n
}

/// Strips trailing zeros; zero becomes 0 with scale 0; a negative scale becomes 0 (Hive `trim`).
fn hive_trim(mut unscaled: i128, mut scale: i64) -> (i128, i64) {
    if unscaled == 0 {
        return (0, 0);
    }
    while unscaled % 10 == 0 {
        unscaled /= 10;
        scale -= 1;
    }
    if scale < 0 {
        // The value had these zeros before stripping, so this cannot overflow.
        let f = u32::try_from(-scale).ok().and_then(pow10).unwrap_or(1);
        unscaled = unscaled.saturating_mul(f);
        scale = 0;
    }
    (unscaled, scale)
}

/// Hive decimal normalisation (`HiveDecimal.normalize(bd, allowRounding = true)`), then Java
/// `BigDecimal.hashCode()` = `31 * BigInteger.hashCode(unscaled) + scale`.
pub fn hive_hash_decimal(d: &Decimal) -> Result<i32> {
    let (mut unscaled, mut scale) = hive_trim(d.unscaled, i64::from(d.scale));
    let int_digits = digit_count(unscaled.unsigned_abs()) - scale;
    if int_digits > HIVE_MAX_PRECISION {
        return Err(Error::data_invalid(format!(
            "HIVE bucket function: decimal {d} has more than 38 integer digits"
        )));
    }
    let max_scale = HIVE_MAX_PRECISION
        .min(HIVE_MAX_PRECISION - int_digits)
        .min(scale);
    if scale > max_scale {
        // HALF_UP rounding to `max_scale`.
        let drop = u32::try_from(scale - max_scale).unwrap_or(u32::MAX);
        let f = pow10(drop).unwrap_or(i128::MAX);
        let (q, r) = (unscaled / f, unscaled % f);
        let round_up = r.unsigned_abs().saturating_mul(2) >= f.unsigned_abs();
        let q = if round_up { q + unscaled.signum() } else { q };
        (unscaled, scale) = hive_trim(q, max_scale);
    }
    let h = big_integer_hash(unscaled);
    // Scale lies in 0..=38 here.
    Ok(h.wrapping_mul(31).wrapping_add(scale as i32))
}

/// Java `BigInteger.hashCode()`: fold the magnitude's 32-bit words (most significant first,
/// leading zero words skipped) with `h = 31 * h + word`, then multiply by the signum.
fn big_integer_hash(v: i128) -> i32 {
    let mag = v.unsigned_abs();
    let words = [
        (mag >> 96) as u32,
        (mag >> 64) as u32,
        (mag >> 32) as u32,
        mag as u32,
    ];
    let h = words
        .iter()
        .skip_while(|w| **w == 0)
        .fold(0i32, |h, w| h.wrapping_mul(31).wrapping_add(*w as i32));
    h.wrapping_mul(v.signum() as i32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::datum::Timestamp;
    use crate::ErrorKind;

    fn t(s: &str) -> DataType {
        DataType::from_json(&serde_json::Value::String(s.into())).unwrap()
    }

    fn dec(unscaled: i128, precision: u32, scale: u32) -> Datum {
        Datum::Decimal(Decimal {
            unscaled,
            precision,
            scale,
        })
    }

    /// The bucket of a row of `values` typed `types` under `kind`.
    fn bucket(kind: BucketFunctionType, types: &[&str], values: Vec<Option<Datum>>, n: i32) -> i32 {
        let types: Vec<DataType> = types.iter().map(|s| t(s)).collect();
        let row = BinaryRow::encode(&values, &types).unwrap();
        BucketFunction::new(kind, types)
            .unwrap()
            .bucket(&row, n)
            .unwrap()
    }

    #[test]
    fn type_names_parse_and_print() {
        assert_eq!(
            "default".parse::<BucketFunctionType>().unwrap(),
            BucketFunctionType::Default
        );
        assert_eq!(
            "MOD".parse::<BucketFunctionType>().unwrap(),
            BucketFunctionType::Mod
        );
        assert_eq!(
            "Hive".parse::<BucketFunctionType>().unwrap(),
            BucketFunctionType::Hive
        );
        assert_eq!(
            "murmur".parse::<BucketFunctionType>().unwrap_err().kind(),
            ErrorKind::InvalidArgument
        );
        assert_eq!(BucketFunctionType::Hive.to_string(), "hive");
        assert_eq!(BucketFunctionType::default(), BucketFunctionType::Default);
    }

    #[test]
    fn default_function_matches_java_goldens() {
        use BucketFunctionType::Default as D;
        // paimon-cpp default_bucket_function_test ("verified with Java"), 1000 buckets.
        let f = |v: f32| bucket(D, &["FLOAT"], vec![Some(Datum::Float(v))], 1000);
        let d = |v: f64| bucket(D, &["DOUBLE"], vec![Some(Datum::Double(v))], 1000);
        assert_eq!(f(0.0), 99);
        assert_eq!(f(-0.0), 219);
        assert_eq!(f(f32::from_bits(0x7fc0_0000)), 89);
        assert_eq!(f(f32::INFINITY), 202);
        assert_eq!(f(f32::NEG_INFINITY), 671);
        assert_eq!(d(0.0), 99);
        assert_eq!(d(-0.0), 119);
        assert_eq!(d(f64::NAN), 697);
        assert_eq!(d(f64::INFINITY), 404);
        assert_eq!(d(f64::NEG_INFINITY), 840);
        // abs(hash % n) with Java's truncating remainder: hash -300363099 % 1000 = -99.
        assert_eq!(-300_363_099 % 1000, -99);
    }

    #[test]
    fn mod_function_is_floor_mod() {
        use BucketFunctionType::Mod as M;
        assert_eq!(bucket(M, &["INT"], vec![Some(Datum::Int(42))], 7), 0);
        assert_eq!(bucket(M, &["INT"], vec![Some(Datum::Int(-7))], 5), 3);
        assert_eq!(bucket(M, &["INT"], vec![Some(Datum::Int(i32::MIN))], 10), 2);
        assert_eq!(bucket(M, &["BIGINT"], vec![Some(Datum::BigInt(-1))], 7), 6);
        assert_eq!(
            bucket(M, &["BIGINT"], vec![Some(Datum::BigInt((1 << 40) + 3))], 10),
            9
        );
        // A null key reads the zeroed slot: bucket 0.
        assert_eq!(bucket(M, &["INT"], vec![None], 7), 0);
    }

    #[test]
    fn mod_function_rejects_bad_keys() {
        let e = BucketFunction::new(BucketFunctionType::Mod, vec![t("INT"), t("INT")]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert!(e.message().contains("exactly one bucket key"));
        let e = BucketFunction::new(BucketFunctionType::Mod, vec![t("STRING")]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert!(BucketFunction::new(BucketFunctionType::Mod, vec![]).is_err());
    }

    #[test]
    fn hive_component_hashes() {
        assert_eq!(hive_hash_bytes(b"hello"), 99_162_322);
        assert_eq!(hive_hash_bytes(&[1, 2, 3]), 1026);
        // Signed bytes: 0xff counts as -1.
        assert_eq!(hive_hash_bytes(&[0xff]), -1);
        assert_eq!(hive_hash_bytes("é".as_bytes()), 31 * -61 + -87);
        // 12.3400 normalises to 12.34: 31 * 1234 + 2.
        assert_eq!(hive_hash(Some(&dec(123_400, 10, 4))).unwrap(), 38_256);
        // Java BigDecimal.hashCode: negative compact value, zero, and multi-word magnitudes.
        assert_eq!(hive_hash(Some(&dec(-15, 5, 1))).unwrap(), -464);
        assert_eq!(hive_hash(Some(&dec(0, 5, 3))).unwrap(), 0);
        assert_eq!(hive_hash(Some(&dec(1 << 32, 12, 0))).unwrap(), 961);
        assert_eq!(
            hive_hash(Some(&dec(10i128.pow(20), 21, 0))).unwrap(),
            -1_772_434_232
        );
        assert_eq!(
            hive_hash(Some(&dec(-(10i128.pow(30) + 7), 38, 3))).unwrap(),
            2_043_238_532
        );
        // 1.2, 1.20 and 1.200 hash alike.
        let h = hive_hash(Some(&dec(12, 10, 1))).unwrap();
        assert_eq!(hive_hash(Some(&dec(120, 10, 2))).unwrap(), h);
        assert_eq!(hive_hash(Some(&dec(1200, 20, 3))).unwrap(), h);
        assert_eq!(hive_hash(Some(&Datum::BigInt(1 << 32))).unwrap(), 1);
        assert_eq!(hive_hash(None).unwrap(), 0);
        assert_eq!(hive_hash(Some(&Datum::Float(-0.0))).unwrap(), 0);
        assert_eq!(hive_hash(Some(&Datum::Double(-0.0))).unwrap(), 0);
        assert!(hive_hash(Some(&Datum::Timestamp(Timestamp {
            millis: 0,
            nanos: 0
        })))
        .is_err());
    }

    #[test]
    fn hive_decimal_rounding_past_38_digits() {
        // 39 significant digits with scale 1: rounded HALF_UP to 38 digits, scale 0.
        let v = 10i128.pow(38) + 5; // 10000000000000000000000000000000000000.5
        let rounded = 10i128.pow(37) + 1;
        assert_eq!(
            hive_hash(Some(&dec(v, 38, 1))).unwrap(),
            hive_hash(Some(&dec(rounded, 38, 0))).unwrap()
        );
        // More than 38 integer digits: Hive gives null (Java then throws).
        assert_eq!(
            hive_hash(Some(&dec(10i128.pow(38), 38, 0)))
                .unwrap_err()
                .kind(),
            ErrorKind::DataInvalid
        );
    }

    #[test]
    fn hive_function_matches_java_goldens() {
        use BucketFunctionType::Hive as H;
        let row = vec![
            Some(Datum::Int(7)),
            Some(Datum::String("hello".into())),
            Some(Datum::Binary(vec![1, 2, 3])),
            Some(dec(123_400, 10, 4)),
        ];
        let types = ["INT", "STRING", "BYTES", "DECIMAL(10, 4)"];
        assert_eq!(bucket(H, &types, row, 8), 1);
        assert_eq!(bucket(H, &types, vec![None, None, None, None], 8), 0);
        assert_eq!(bucket(H, &["INT"], vec![Some(Datum::Int(42))], 5), 2);
        let nan_f = f32::from_bits(0x7fc0_1234);
        assert_eq!(
            bucket(H, &["FLOAT"], vec![Some(Datum::Float(nan_f))], 1000),
            344
        );
        assert_eq!(
            bucket(H, &["FLOAT"], vec![Some(Datum::Float(f32::NAN))], 1000),
            344
        );
        let nan_d = f64::from_bits(0x7ff8_0000_0000_0001);
        assert_eq!(
            bucket(H, &["DOUBLE"], vec![Some(Datum::Double(nan_d))], 1000),
            360
        );
        assert_eq!(
            bucket(H, &["TINYINT"], vec![Some(Datum::TinyInt(-1))], 1000),
            647
        );
        assert_eq!(
            bucket(H, &["TINYINT"], vec![Some(Datum::TinyInt(-128))], 1000),
            520
        );
        assert_eq!(
            bucket(H, &["SMALLINT"], vec![Some(Datum::SmallInt(1234))], 1000),
            234
        );
        assert_eq!(
            bucket(H, &["SMALLINT"], vec![Some(Datum::SmallInt(-1))], 1000),
            647
        );
        assert_eq!(bucket(H, &["INT"], vec![Some(Datum::Int(-1))], 128), 127);
        assert_eq!(
            bucket(H, &["INT"], vec![Some(Datum::Int(i32::MIN))], 128),
            0
        );
        assert_eq!(
            bucket(H, &["BIGINT"], vec![Some(Datum::BigInt(1 << 32))], 128),
            1
        );
        assert_eq!(
            bucket(H, &["BIGINT"], vec![Some(Datum::BigInt(i64::MAX))], 128),
            0
        );
        assert_eq!(
            bucket(H, &["BIGINT"], vec![Some(Datum::BigInt(-1))], 128),
            0
        );
        // (31 * 7 + hash("a")) & MAX % 10, by hand: 31 * 7 + 97 = 314.
        let two = vec![Some(Datum::Int(7)), Some(Datum::String("a".into()))];
        assert_eq!(bucket(H, &["INT", "STRING"], two, 10), 4);
        assert_eq!(
            bucket(H, &["DATE"], vec![Some(Datum::Date(19723))], 100),
            23
        );
    }

    #[test]
    fn hive_rejects_unsupported_types() {
        for ty in [
            "TIMESTAMP(3)",
            "TIMESTAMP(6) WITH LOCAL TIME ZONE",
            "TIME(0)",
        ] {
            let e = BucketFunction::new(BucketFunctionType::Hive, vec![t(ty)]).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Unsupported, "{ty}");
            assert!(e.message().contains("unsupported field type"));
        }
    }

    #[test]
    fn bad_bucket_counts_and_arity() {
        let f = BucketFunction::new(BucketFunctionType::Default, vec![t("INT")]).unwrap();
        let row = BinaryRow::encode(&[Some(Datum::Int(1))], &[t("INT")]).unwrap();
        for n in [0, -1, -2] {
            assert_eq!(
                f.bucket(&row, n).unwrap_err().kind(),
                ErrorKind::InvalidArgument
            );
        }
        assert!((0..3).contains(&f.bucket(&row, 3).unwrap()));
        let h = BucketFunction::new(BucketFunctionType::Hive, vec![t("INT"), t("INT")]).unwrap();
        assert_eq!(
            h.bucket(&row, 3).unwrap_err().kind(),
            ErrorKind::InvalidArgument
        );
        assert_eq!(h.key_types().len(), 2);
        assert_eq!(h.kind(), BucketFunctionType::Hive);
    }
}
