//! Bucket assignment for fixed-bucket tables: the row hash and the bucket functions.
//!
//! Mirrors Java `org.apache.paimon.bucket` (`BucketFunction`, `DefaultBucketFunction`,
//! `ModBucketFunction`, `HiveBucketFunction`, `HiveHasher`), Paimon 2.0. The row hash
//! (`MurmurHashUtils`) lives in [`crate::hash`], shared with `BinaryRow::hash_code`. The
//! bucket-key row itself is a [`BinaryRow`](crate::spec::binary_row::BinaryRow) built with
//! [`BinaryRow::encode`](crate::spec::binary_row::BinaryRow::encode).

pub mod function;
pub(crate) mod selector;

pub use function::{BucketFunction, BucketFunctionType};
pub(crate) use selector::BucketSelector;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::binary_row::BinaryRow;
    use crate::spec::datum::{Datum, Decimal, Timestamp};
    use crate::spec::types::DataType;
    use crate::test_util::java_fixtures;
    use serde_json::Value;

    fn t(s: &str) -> DataType {
        DataType::from_json(&Value::String(s.into())).unwrap()
    }

    /// One array element of a fixture line: a string literal or the raw text of anything else.
    #[derive(Debug)]
    enum Tok {
        Str(String),
        Raw(String),
    }

    /// Splits `[a, "b, c", null],` into its elements. Numbers are kept as text so that floats
    /// are parsed with Rust's correctly rounded parser (the fixture strings contain no escapes).
    fn tokens(line: &str) -> Vec<Tok> {
        let body = line.trim().trim_end_matches(',');
        let body = body.strip_prefix('[').unwrap().strip_suffix(']').unwrap();
        let mut out = Vec::new();
        let mut rest = body.trim_start();
        while !rest.is_empty() {
            if let Some(r) = rest.strip_prefix('"') {
                let end = r.find('"').unwrap();
                out.push(Tok::Str(r[..end].to_string()));
                rest = &r[end + 1..];
            } else {
                let end = rest.find(',').unwrap_or(rest.len());
                out.push(Tok::Raw(rest[..end].trim().to_string()));
                rest = &rest[end..];
            }
            rest = rest.trim_start().trim_start_matches(',').trim_start();
        }
        out
    }

    /// A fixture element as a datum of `ty` (formats in the fixtures README).
    fn datum(tok: &Tok, ty: &DataType) -> Option<Datum> {
        use crate::spec::types::TypeKind as K;
        let text = match tok {
            Tok::Raw(r) if r == "null" => return None,
            Tok::Raw(r) | Tok::Str(r) => r.as_str(),
        };
        let int = || text.parse::<i64>().unwrap();
        Some(match &ty.kind {
            K::Boolean => Datum::Boolean(text.parse().unwrap()),
            K::TinyInt => Datum::TinyInt(int() as i8),
            K::SmallInt => Datum::SmallInt(int() as i16),
            K::Int => Datum::Int(int() as i32),
            K::BigInt => Datum::BigInt(int()),
            K::Float => Datum::Float(text.parse().unwrap()),
            K::Double => Datum::Double(text.parse().unwrap()),
            K::Date => Datum::Date(int() as i32),
            K::Timestamp(_) => Datum::Timestamp(Timestamp::from_nanos(i128::from(int())).unwrap()),
            K::Decimal { precision, scale } => {
                let (neg, body) = text.strip_prefix('-').map_or((false, text), |b| (true, b));
                let (i, f) = body.split_once('.').unwrap_or((body, ""));
                let digits = format!("{i}{f:0<w$}", w = *scale as usize);
                let u: i128 = digits.parse().unwrap();
                Datum::Decimal(Decimal {
                    unscaled: if neg { -u } else { u },
                    precision: *precision,
                    scale: *scale,
                })
            }
            K::VarChar(_) => Datum::String(text.into()),
            K::VarBinary(_) => Datum::Binary(text.as_bytes().to_vec()),
            other => panic!("type {other:?} not in fixtures"),
        })
    }

    /// Checks every line of a Java bucket-id vector file; returns the number of rows.
    fn check_vectors(file: &str, types: &[DataType]) -> usize {
        let text = std::fs::read_to_string(java_fixtures().join(file)).unwrap();
        let f = BucketFunction::new(BucketFunctionType::Default, types.to_vec()).unwrap();
        let mut n = 0;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let arr = tokens(line);
            assert_eq!(arr.len(), types.len() + 1, "{line}");
            let values: Vec<Option<Datum>> =
                arr.iter().zip(types).map(|(v, ty)| datum(v, ty)).collect();
            let row = BinaryRow::encode(&values, types).unwrap();
            let Tok::Raw(expected) = &arr[types.len()] else {
                panic!("{line}")
            };
            let expected: i32 = expected.parse().unwrap();
            assert_eq!(f.bucket(&row, 12345).unwrap(), expected, "line {n}: {line}");
            n += 1;
        }
        n
    }

    #[test]
    fn java_bucket_ids_primary_key_table() {
        let types: Vec<DataType> = [
            "BOOLEAN",
            "TINYINT",
            "SMALLINT",
            "INT",
            "BIGINT",
            "FLOAT",
            "DOUBLE",
            "DATE",
            "TIMESTAMP(9)",
            "DECIMAL(30, 20)",
            "STRING",
            "BYTES",
        ]
        .iter()
        .map(|s| t(s))
        .collect();
        assert_eq!(check_vectors("record_for_bucket_id.data", &types), 5000);
    }

    #[test]
    fn java_bucket_ids_with_nulls() {
        let types: Vec<DataType> = [
            "BOOLEAN",
            "TINYINT",
            "SMALLINT",
            "INT",
            "BIGINT",
            "FLOAT",
            "DOUBLE",
            "DATE",
            "TIMESTAMP(9)",
            "DECIMAL(5, 2)",
            "DECIMAL(30, 2)",
            "STRING",
            "BYTES",
        ]
        .iter()
        .map(|s| t(s))
        .collect();
        assert_eq!(
            check_vectors("record_with_null_for_bucket_id.data", &types),
            5000
        );
    }
}
