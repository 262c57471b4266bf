//! Tests of `BinaryRow` decoding and encoding: hand-built golden bytes, Java-written manifest
//! rows, Java `BigInteger.toByteArray` vectors, and malformed input.

use super::writer::decimal_to_be_bytes;
use super::*;
use crate::test_util::hex;
use crate::test_util::java_fixtures;
use crate::ErrorKind;
use apache_avro::types::Value;
use std::path::Path;

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

fn ts(millis: i64, nanos: u32) -> Timestamp {
    Timestamp { millis, nanos }
}

/// Encodes one value, checks the row bytes, and decodes it back.
fn golden(ty: &str, value: Option<Datum>, row_hex: &str) {
    let types = [t(ty)];
    let row = BinaryRow::encode(std::slice::from_ref(&value), &types).unwrap();
    assert_eq!(row.row_bytes(), hex(row_hex).as_slice(), "{ty} {value:?}");
    assert_eq!(row.decode(&types).unwrap(), vec![value.clone()], "{ty}");
    let back = BinaryRow::from_serialized(&row.serialize()).unwrap();
    assert_eq!(back, row);
    assert_eq!(back.arity(), 1);
}

const HEADER: &str = "0000000000000000";
const NULL0: &str = "0001000000000000";

#[test]
fn golden_fixed_width_types() {
    let cases: Vec<(&str, Datum, &str)> = vec![
        ("BOOLEAN", Datum::Boolean(true), "0100000000000000"),
        ("BOOLEAN", Datum::Boolean(false), "0000000000000000"),
        ("TINYINT", Datum::TinyInt(-1), "ff00000000000000"),
        ("SMALLINT", Datum::SmallInt(-2), "feff000000000000"),
        ("INT", Datum::Int(0x0102_0304), "0403020100000000"),
        ("INT", Datum::Int(-1), "ffffffff00000000"),
        ("DATE", Datum::Date(19723), "0b4d000000000000"),
        ("TIME(3)", Datum::Time(3_600_000), "80ee360000000000"),
        ("BIGINT", Datum::BigInt(-2), "feffffffffffffff"),
        ("FLOAT", Datum::Float(1.5), "0000c03f00000000"),
        ("FLOAT", Datum::Float(-0.0), "0000008000000000"),
        ("DOUBLE", Datum::Double(1.5), "000000000000f83f"),
        ("DECIMAL(10, 2)", dec(12345, 10, 2), "3930000000000000"),
        ("DECIMAL(18, 0)", dec(-1, 18, 0), "ffffffffffffffff"),
        (
            "TIMESTAMP(3)",
            Datum::Timestamp(ts(1000, 0)),
            "e803000000000000",
        ),
        (
            "TIMESTAMP(0)",
            Datum::Timestamp(ts(-1000, 0)),
            "18fcffffffffffff",
        ),
        (
            "TIMESTAMP(3) WITH LOCAL TIME ZONE",
            Datum::LocalZonedTimestamp(ts(2, 0)),
            "0200000000000000",
        ),
    ];
    for (ty, v, slot) in cases {
        golden(ty, Some(v), &format!("{HEADER}{slot}"));
        // A null compact value: null bit set, slot zero, no variable part.
        golden(ty, None, &format!("{NULL0}0000000000000000"));
    }
}

#[test]
fn golden_strings_and_binaries() {
    // Inline: data bytes, zeros, byte 7 = 0x80 | len.
    golden(
        "STRING",
        Some(Datum::String("abc".into())),
        "0000000000000000 6162630000000083",
    );
    golden(
        "STRING",
        Some(Datum::String(String::new())),
        "0000000000000000 0000000000000080",
    );
    golden(
        "CHAR(7)",
        Some(Datum::String("abcdefg".into())),
        "0000000000000000 6162636465666787",
    );
    golden(
        "BYTES",
        Some(Datum::Binary(vec![1, 2, 3, 4, 5, 6, 7])),
        "0000000000000000 0102030405060787",
    );
    // Out of line: (offset << 32) | len, data at offset 16, zero padding to 8.
    golden(
        "STRING",
        Some(Datum::String("hello world!".into())),
        "0000000000000000 0c00000010000000 68656c6c6f20776f 726c642100000000",
    );
    golden(
        "VARBINARY(20)",
        Some(Datum::Binary((1..=16).collect())),
        "0000000000000000 1000000010000000 0102030405060708 090a0b0c0d0e0f10",
    );
    golden("STRING", None, &format!("{NULL0}0000000000000000"));
    golden("BYTES", None, &format!("{NULL0}0000000000000000"));
    // Non-ASCII text is UTF-8: "é" = c3 a9.
    golden(
        "STRING",
        Some(Datum::String("é".into())),
        "0000000000000000 c3a9000000000082",
    );
}

#[test]
fn golden_non_compact_decimal_and_timestamp() {
    // DECIMAL(20, 2) -1: one byte ff in a 16-byte reservation at offset 16.
    golden(
        "DECIMAL(20, 2)",
        Some(dec(-1, 20, 2)),
        "0000000000000000 0100000010000000 ff00000000000000 0000000000000000",
    );
    // Zero is one byte 00 (BigInteger.ZERO.toByteArray()).
    golden(
        "DECIMAL(38, 10)",
        Some(dec(0, 38, 10)),
        "0000000000000000 0100000010000000 0000000000000000 0000000000000000",
    );
    golden(
        "DECIMAL(38, 0)",
        Some(dec(10i128.pow(37), 38, 0)),
        "0000000000000000 1000000010000000 0785ee10d5da46d9 00f436a000000000",
    );
    golden(
        "DECIMAL(38, 0)",
        Some(dec(-(10i128.pow(37)), 38, 0)),
        "0000000000000000 1000000010000000 f87a11ef2a25b926 ff0bc96000000000",
    );
    // Null non-compact decimal still reserves 16 zero bytes; slot = offset << 32.
    golden(
        "DECIMAL(20, 2)",
        None,
        &format!("{NULL0} 0000000010000000 0000000000000000 0000000000000000"),
    );
    // TIMESTAMP(6): slot = (offset << 32) | nanoOfMillisecond, millis at offset.
    golden(
        "TIMESTAMP(6)",
        Some(Datum::Timestamp(ts(1, 500))),
        "0000000000000000 f401000010000000 0100000000000000",
    );
    golden(
        "TIMESTAMP(9) WITH LOCAL TIME ZONE",
        Some(Datum::LocalZonedTimestamp(ts(-1, 999_999))),
        "0000000000000000 3f420f0010000000 ffffffffffffffff",
    );
    golden(
        "TIMESTAMP(9)",
        None,
        &format!("{NULL0} 0000000010000000 0000000000000000"),
    );
}

#[test]
fn golden_multi_field_layout() {
    // Variable data is appended in field order; nulls reserve only for non-compact types.
    let types = [
        t("STRING"),
        t("DECIMAL(38, 0)"),
        t("INT"),
        t("TIMESTAMP(6)"),
        t("STRING"),
    ];
    let values = vec![
        Some(Datum::String("abcdefghi".into())),
        None,
        Some(Datum::Int(7)),
        Some(Datum::Timestamp(ts(5, 6))),
        Some(Datum::String("xy".into())),
    ];
    let row = BinaryRow::encode(&values, &types).unwrap();
    let expected = hex("0002000000000000 \
         0900000030000000 0000000040000000 0700000000000000 0600000050000000 7879000000000082 \
         6162636465666768 6900000000000000 \
         0000000000000000 0000000000000000 \
         0500000000000000");
    assert_eq!(row.row_bytes(), expected.as_slice());
    assert_eq!(row.decode(&types).unwrap(), values);
    assert!(row.is_null_at(1).unwrap());
    assert!(!row.is_null_at(0).unwrap());
}

#[test]
fn wide_rows_use_two_null_words() {
    // 57 fields need 8 + 57 bits: two null words (W = 16).
    assert_eq!(null_bits_size(56), Some(8));
    assert_eq!(null_bits_size(57), Some(16));
    let types = vec![t("INT"); 57];
    let mut values: Vec<Option<Datum>> = (0..57).map(|i| Some(Datum::Int(i))).collect();
    values[56] = None;
    let row = BinaryRow::encode(&values, &types).unwrap();
    assert_eq!(row.row_bytes().len(), 16 + 57 * 8);
    assert_eq!(row.row_bytes()[8], 1, "field 56 null bit is bit 64");
    assert_eq!(row.row_bytes()[16 + 8 * 3], 3);
    assert_eq!(row.decode(&types).unwrap(), values);
}

#[test]
fn empty_row_and_serialized_form() {
    let e = BinaryRow::empty();
    assert_eq!(e.serialize(), vec![0u8; 12]);
    assert_eq!(BinaryRow::from_serialized(&[0u8; 12]).unwrap(), e);
    assert_eq!(BinaryRow::encode(&[], &[]).unwrap(), e);
    assert_eq!(e.decode(&[]).unwrap(), vec![]);
    let row = BinaryRow::encode(&[Some(Datum::Int(10))], &[t("INT")]).unwrap();
    assert_eq!(
        row.serialize(),
        hex("00000001 0000000000000000 0a00000000000000")
    );
    // Arity must match the types.
    assert_eq!(row.decode(&[]).unwrap_err().kind(), ErrorKind::DataInvalid);
    assert_eq!(
        row.is_null_at(1).unwrap_err().kind(),
        ErrorKind::InvalidArgument
    );
}

#[test]
fn hash_code_matches_java_goldens() {
    // paimon-cpp default_bucket_function_test ("verified with Java"): single-field rows.
    let f = |v: f32| BinaryRow::encode(&[Some(Datum::Float(v))], &[t("FLOAT")]).unwrap();
    let d = |v: f64| BinaryRow::encode(&[Some(Datum::Double(v))], &[t("DOUBLE")]).unwrap();
    assert_eq!(f(f32::from_bits(0x7fc0_0000)).hash_code(), -2_039_172_089);
    assert_eq!(f(f32::INFINITY).hash_code(), 2_139_216_202);
    assert_eq!(f(f32::NEG_INFINITY).hash_code(), -106_221_671);
    assert_eq!(f(0.0).hash_code(), -300_363_099);
    assert_eq!(f(-0.0).hash_code(), 916_225_219);
    assert_eq!(
        d(f64::from_bits(0x7ff8_0000_0000_0000)).hash_code(),
        -1_323_214_697
    );
    assert_eq!(d(f64::INFINITY).hash_code(), -1_556_713_404);
    assert_eq!(d(f64::NEG_INFINITY).hash_code(), -2_079_171_840);
    assert_eq!(d(0.0).hash_code(), -300_363_099);
    assert_eq!(d(-0.0).hash_code(), 302_122_119);
}

#[test]
fn encode_rejects_mismatched_values() {
    let err = |v: Datum, ty: &str| BinaryRow::encode(&[Some(v)], &[t(ty)]).unwrap_err().kind();
    assert_eq!(err(Datum::BigInt(1), "INT"), ErrorKind::InvalidArgument);
    assert_eq!(
        err(Datum::String("a".into()), "BYTES"),
        ErrorKind::InvalidArgument
    );
    assert_eq!(
        err(
            Datum::Timestamp(ts(0, 0)),
            "TIMESTAMP(3) WITH LOCAL TIME ZONE"
        ),
        ErrorKind::InvalidArgument
    );
    // Wrong scale, or more digits than the precision allows.
    assert_eq!(
        err(dec(1, 10, 3), "DECIMAL(10, 2)"),
        ErrorKind::InvalidArgument
    );
    assert_eq!(
        err(dec(1000, 3, 0), "DECIMAL(3, 0)"),
        ErrorKind::InvalidArgument
    );
    assert_eq!(
        err(Datum::Timestamp(ts(0, 1_000_000)), "TIMESTAMP(9)"),
        ErrorKind::InvalidArgument
    );
    let arr = DataType::from_json(&serde_json::json!({"type": "ARRAY", "element": "INT"})).unwrap();
    let e = BinaryRow::encode(&[Some(Datum::Int(1))], &[arr]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    assert!(BinaryRow::encode(&[None], &[]).is_err());
    // A compact timestamp keeps only the millis, like Java.
    let row = BinaryRow::encode(&[Some(Datum::Timestamp(ts(7, 5)))], &[t("TIMESTAMP(3)")]).unwrap();
    assert_eq!(
        row.get(0, &t("TIMESTAMP(3)")).unwrap(),
        Some(Datum::Timestamp(ts(7, 0)))
    );
}

#[test]
fn big_integer_to_byte_array() {
    assert_eq!(decimal_to_be_bytes(0), vec![0]);
    assert_eq!(decimal_to_be_bytes(127), vec![0x7f]);
    assert_eq!(decimal_to_be_bytes(128), vec![0x00, 0x80]);
    assert_eq!(decimal_to_be_bytes(-128), vec![0x80]);
    assert_eq!(decimal_to_be_bytes(-129), vec![0xff, 0x7f]);
    assert_eq!(decimal_to_be_bytes(i128::MIN).len(), 16);
}

/// Parses a decimal string such as `-12.5` into an unscaled value at `scale`.
fn parse_unscaled(text: &str, scale: u32) -> i128 {
    let (neg, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text),
    };
    let (int_part, frac) = body.split_once('.').unwrap_or((body, ""));
    assert!(frac.len() <= scale as usize, "{text}");
    let digits = format!("{int_part}{frac:0<width$}", width = scale as usize);
    let v: i128 = digits.parse().unwrap();
    if neg {
        -v
    } else {
        v
    }
}

#[test]
fn non_compact_decimal_bytes_match_java_big_integer() {
    let data = std::fs::read(java_fixtures().join("decimal_bytes.data")).unwrap();
    let mut r = ByteReader::new(&data, "decimal_bytes.data");
    let types = [t("DECIMAL(29, 29)")];
    let mut count = 0;
    while !r.is_empty() {
        let n = r.i32_be().unwrap() as usize;
        let text = std::str::from_utf8(r.take(n).unwrap()).unwrap().to_string();
        let n = r.i32_be().unwrap() as usize;
        let java = r.take(n).unwrap().to_vec();
        // The text is the unscaled value (digits of the DECIMAL(29, 29) value after "0.").
        let unscaled = if text.contains('.') {
            parse_unscaled(&text, 29)
        } else {
            text.parse::<i128>().unwrap()
        };
        assert_eq!(decimal_to_be_bytes(unscaled), java, "{text}");
        // The row holds exactly those bytes at its reservation and reads back the value.
        let v = Some(dec(unscaled, 29, 29));
        let row = BinaryRow::encode(std::slice::from_ref(&v), &types).unwrap();
        assert_eq!(&row.row_bytes()[16..16 + java.len()], java.as_slice());
        assert_eq!(row.decode(&types).unwrap(), vec![v]);
        count += 1;
    }
    assert_eq!(count, 2000);
}

/// Every bytes field (`_PARTITION`, `_MIN_KEY`, stats rows, ...) of a Java-written Avro manifest,
/// keyed by its field path.
fn manifest_bytes(path: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(v: &Value, name: &str, out: &mut Vec<(String, Vec<u8>)>) {
        match v {
            Value::Record(fields) => {
                for (k, f) in fields {
                    walk(f, &format!("{name}.{k}"), out)
                }
            }
            Value::Union(_, inner) => walk(inner, name, out),
            Value::Bytes(b) => out.push((name.to_string(), b.clone())),
            _ => {}
        }
    }
    let reader = apache_avro::Reader::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut out = Vec::new();
    for v in reader {
        walk(&v.unwrap(), "", &mut out);
    }
    out
}

/// All BinaryRows of the data-file manifests of a fixture table, by field path.
pub(crate) fn table_rows(table: &str) -> Vec<(String, BinaryRow)> {
    let dir = java_fixtures().join(table).join("manifest");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_str().unwrap();
            n.starts_with("manifest-") && !n.starts_with("manifest-list-")
        })
        .collect();
    paths.sort();
    assert!(!paths.is_empty());
    let mut out = Vec::new();
    for p in paths {
        for (name, bytes) in manifest_bytes(&p) {
            let row = BinaryRow::from_serialized(&bytes).unwrap();
            // Encoding back what we decoded is checked by the callers with the right types.
            assert_eq!(row.serialize(), bytes);
            out.push((name, row));
        }
    }
    out
}

/// Decodes `row` with `types`, checks that encoding the values gives the same bytes.
fn round_trip(row: &BinaryRow, types: &[DataType]) -> Vec<Option<Datum>> {
    let values = row.decode(types).unwrap();
    let again = BinaryRow::encode(&values, types).unwrap();
    assert_eq!(again.row_bytes(), row.row_bytes(), "{values:?}");
    values
}

#[test]
fn java_manifest_rows_append_complex_data() {
    let table = "parquet/append_complex_data.db/append_complex_data";
    let stats_types: Vec<DataType> = [
        "INT",
        "INT",
        "DATE",
        "TIMESTAMP(9)",
        "DECIMAL(23, 5)",
        "BYTES",
    ]
    .iter()
    .map(|s| t(s))
    .collect();
    let mut stats = Vec::new();
    let mut partitions = std::collections::BTreeSet::new();
    for (name, row) in table_rows(table) {
        match name.as_str() {
            "._PARTITION" => match round_trip(&row, &[t("INT")])[0] {
                Some(Datum::Int(v)) => {
                    partitions.insert(v);
                }
                ref other => panic!("partition {other:?}"),
            },
            "._FILE._VALUE_STATS._MIN_VALUES" | "._FILE._VALUE_STATS._MAX_VALUES" => {
                stats.push(round_trip(&row, &stats_types))
            }
            // Append tables: empty key rows and key stats.
            _ => assert_eq!(row, BinaryRow::empty(), "{name}"),
        }
    }
    assert_eq!(partitions.into_iter().collect::<Vec<_>>(), vec![10, 20]);
    // Snapshot 1, partition 10: f3 in {1234, 19909}, f5 in {123456789987654321.45678, 12.30000};
    // TIMESTAMP(9) and BYTES have no stats (null, with a reservation for the timestamp).
    let min = vec![
        Some(Datum::Int(10)),
        Some(Datum::Int(1)),
        Some(Datum::Date(1234)),
        None,
        Some(dec(1_230_000, 23, 5)),
        None,
    ];
    let max = vec![
        Some(Datum::Int(10)),
        Some(Datum::Int(1)),
        Some(Datum::Date(19909)),
        None,
        Some(dec(12_345_678_998_765_432_145_678, 23, 5)),
        None,
    ];
    assert!(stats.contains(&min), "{stats:?}");
    assert!(stats.contains(&max), "{stats:?}");
    // Snapshot 2, partition 20: one row (20, 0, -100, null, -0.00000, get).
    let p20 = vec![
        Some(Datum::Int(20)),
        Some(Datum::Int(0)),
        Some(Datum::Date(-100)),
        None,
        Some(dec(0, 23, 5)),
        None,
    ];
    assert!(stats.contains(&p20), "{stats:?}");
}

#[test]
fn java_manifest_rows_timestamp_precisions() {
    let table = "parquet/append_with_multiple_ts_precision_and_timezone.db/\
                 append_with_multiple_ts_precision_and_timezone";
    let types: Vec<DataType> = (0..8)
        .map(|i| {
            let p = [0, 3, 6, 9][i % 4];
            if i < 4 {
                t(&format!("TIMESTAMP({p})"))
            } else {
                t(&format!("TIMESTAMP({p}) WITH LOCAL TIME ZONE"))
            }
        })
        .collect();
    let (mut min, mut max) = (None, None);
    for (name, row) in table_rows(table) {
        match name.as_str() {
            "._FILE._VALUE_STATS._MIN_VALUES" => min = Some(round_trip(&row, &types)),
            "._FILE._VALUE_STATS._MAX_VALUES" => max = Some(round_trip(&row, &types)),
            _ => assert_eq!(row, BinaryRow::empty(), "{name}"),
        }
    }
    let w = |m, n| Some(Datum::Timestamp(ts(m, n)));
    let l = |m, n| Some(Datum::LocalZonedTimestamp(ts(m, n)));
    // README rows; precision-9 columns carry no stats in this file.
    assert_eq!(
        min.unwrap(),
        vec![
            w(1000, 0),
            w(1, 0),
            w(0, 1000),
            None,
            l(2000, 0),
            l(2, 0),
            l(0, 2000),
            None
        ]
    );
    assert_eq!(
        max.unwrap(),
        vec![
            w(5000, 0),
            w(5, 0),
            w(0, 1000),
            None,
            l(6000, 0),
            l(4, 0),
            l(0, 6000),
            None
        ]
    );
}

#[test]
fn java_manifest_rows_primary_key_table() {
    let table = "parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor";
    let key_types = [t("STRING NOT NULL"), t("INT NOT NULL")];
    let value_types = [t("STRING"), t("INT"), t("INT"), t("DOUBLE")];
    let (mut keys, mut stats) = (Vec::new(), Vec::new());
    for (name, row) in table_rows(table) {
        match name.as_str() {
            "._PARTITION" => {
                let v = round_trip(&row, &[t("INT NOT NULL")]);
                assert!(matches!(v[0], Some(Datum::Int(10 | 20))), "{v:?}");
            }
            "._FILE._MIN_KEY" | "._FILE._MAX_KEY" => keys.push(round_trip(&row, &key_types)),
            "._FILE._KEY_STATS._MIN_VALUES" | "._FILE._KEY_STATS._MAX_VALUES" => {
                round_trip(&row, &key_types);
            }
            _ => stats.push(round_trip(&row, &value_types)),
        }
    }
    let s = |v: &str| Some(Datum::String(v.into()));
    // First commit, partition 10 bucket 1: keys "Alice" .. "Two roads ..." (104 bytes, out of line).
    let long = "Two roads diverged in a wood, and I took the one less traveled by, \
                And that has made all the difference.";
    assert!(keys.contains(&vec![s("Alice"), Some(Datum::Int(1))]));
    assert!(keys.contains(&vec![s(long), Some(Datum::Int(1))]));
    assert!(keys.contains(&vec![s("Tony"), Some(Datum::Int(0))]));
    // Value stats of that file: string max truncated to 16 chars with the last one incremented.
    assert!(stats.contains(&vec![
        s("Alice"),
        Some(Datum::Int(10)),
        Some(Datum::Int(1)),
        Some(Datum::Double(11.0))
    ]));
    assert!(stats.contains(&vec![
        s("Two roads diverh"),
        Some(Datum::Int(10)),
        Some(Datum::Int(1)),
        Some(Datum::Double(11.1))
    ]));
}

#[test]
fn every_strict_prefix_is_an_error() {
    let types = [
        t("INT"),
        t("DECIMAL(20, 2)"),
        t("TIMESTAMP(9)"),
        t("STRING"),
    ];
    let row = BinaryRow::encode(
        &[
            Some(Datum::Int(1)),
            Some(dec(-123_456, 20, 2)),
            Some(Datum::Timestamp(ts(3, 4))),
            Some(Datum::String("a string longer than seven".into())),
        ],
        &types,
    )
    .unwrap();
    let bytes = row.serialize();
    for n in 0..bytes.len() {
        let res = BinaryRow::from_serialized(&bytes[..n]).and_then(|r| r.decode(&types));
        assert!(res.is_err(), "prefix of {n} bytes decoded");
    }
    assert!(BinaryRow::from_serialized(&bytes)
        .and_then(|r| r.decode(&types))
        .is_ok());
}

#[test]
fn malformed_rows_are_errors_not_panics() {
    // Negative arity, huge arity, short fixed part, size not a multiple of 8.
    assert!(BinaryRow::from_serialized(&hex("ffffffff 0000000000000000")).is_err());
    assert!(BinaryRow::from_serialized(&hex("7fffffff 0000000000000000")).is_err());
    assert!(BinaryRow::from_serialized(&hex("00000001 0000000000000000")).is_err());
    assert!(BinaryRow::from_bytes(0, vec![0; 9]).is_err());
    let s = [t("STRING")];
    // Out-of-line string pointing past the end: offset 16, length 9 in a 24-byte row.
    let row = BinaryRow::from_bytes(1, hex("0000000000000000 0900000010000000 0000000000000000"))
        .unwrap();
    assert_eq!(row.decode(&s).unwrap_err().kind(), ErrorKind::DataInvalid);
    // Offset + length overflowing.
    let row = BinaryRow::from_bytes(1, hex("0000000000000000 ffffffffffffff7f")).unwrap();
    assert!(row.decode(&s).is_err());
    // Decimal with 0 or 17 bytes; timestamp nanos out of range; timestamp past the end.
    let row = BinaryRow::from_bytes(
        1,
        hex("0000000000000000 0000000010000000 0000000000000000 0000000000000000"),
    )
    .unwrap();
    assert!(row.decode(&[t("DECIMAL(20, 2)")]).is_err());
    let row = BinaryRow::from_bytes(
        1,
        hex("0000000000000000 1100000010000000 0000000000000000 0000000000000000"),
    )
    .unwrap();
    assert!(row.decode(&[t("DECIMAL(20, 2)")]).is_err());
    let row = BinaryRow::from_bytes(1, hex("0000000000000000 40420f0010000000 0000000000000000"))
        .unwrap();
    assert!(row.decode(&[t("TIMESTAMP(9)")]).is_err());
    let row = BinaryRow::from_bytes(1, hex("0000000000000000 0000000018000000 0000000000000000"))
        .unwrap();
    assert!(row.decode(&[t("TIMESTAMP(9)")]).is_err());
    // Nested types are not supported (but a null one reads as null).
    let row = BinaryRow::from_bytes(1, hex("0000000000000000 0000000000000000")).unwrap();
    assert_eq!(
        row.decode(&[t("STRING")]).unwrap(),
        vec![Some(Datum::String(String::new()))]
    );
    let arr = DataType::from_json(&serde_json::json!({"type": "ARRAY", "element": "INT"})).unwrap();
    assert_eq!(
        row.decode(std::slice::from_ref(&arr)).unwrap_err().kind(),
        ErrorKind::Unsupported
    );
    let null_row = BinaryRow::from_bytes(1, hex("0001000000000000 0000000000000000")).unwrap();
    assert_eq!(null_row.decode(&[arr]).unwrap(), vec![None]);
}

#[test]
fn decoding_arbitrary_bytes_never_panics() {
    use proptest::prelude::*;
    let all = [
        "BOOLEAN",
        "TINYINT",
        "SMALLINT",
        "INT",
        "BIGINT",
        "FLOAT",
        "DOUBLE",
        "DATE",
        "TIME(0)",
        "DECIMAL(10, 2)",
        "DECIMAL(30, 4)",
        "STRING",
        "BYTES",
        "TIMESTAMP(3)",
        "TIMESTAMP(9)",
        "TIMESTAMP(6) WITH LOCAL TIME ZONE",
    ];
    let types: Vec<DataType> = all.iter().map(|s| t(s)).collect();
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    runner
        .run(
            &(
                proptest::collection::vec(any::<u8>(), 0..200),
                proptest::collection::vec(0..all.len(), 0..6),
            ),
            |(bytes, picks)| {
                let tys: Vec<DataType> = picks.iter().map(|i| types[*i].clone()).collect();
                // A plausible arity and a word-aligned body, so most inputs reach the decoder.
                let mut buf = (tys.len() as i32).to_be_bytes().to_vec();
                buf.extend_from_slice(&bytes[..bytes.len() / 8 * 8]);
                let _ = BinaryRow::from_serialized(&bytes);
                if let Ok(row) = BinaryRow::from_serialized(&buf) {
                    let _ = row.decode(&tys);
                    for (i, ty) in tys.iter().enumerate() {
                        let _ = row.get(i, ty);
                    }
                    let _ = row.hash_code();
                }
                Ok(())
            },
        )
        .unwrap();
}

#[test]
fn decode_of_encode_is_identity() {
    use proptest::prelude::*;
    let ty_names = [
        "BOOLEAN",
        "TINYINT",
        "SMALLINT",
        "INT",
        "BIGINT",
        "FLOAT",
        "DOUBLE",
        "DATE",
        "TIME(3)",
        "DECIMAL(18, 4)",
        "DECIMAL(38, 6)",
        "STRING",
        "BYTES",
        "TIMESTAMP(3)",
        "TIMESTAMP(9)",
        "TIMESTAMP(6) WITH LOCAL TIME ZONE",
    ];
    let types: Vec<DataType> = ty_names.iter().map(|s| t(s)).collect();
    // One value of type index `k`, built from random raw material.
    let value = |k: usize, i: i64, wide: i128, s: &str, nanos: u32| -> Datum {
        match k {
            0 => Datum::Boolean(i & 1 == 1),
            1 => Datum::TinyInt(i as i8),
            2 => Datum::SmallInt(i as i16),
            3 => Datum::Int(i as i32),
            4 => Datum::BigInt(i),
            5 => Datum::Float(f32::from_bits(i as u32)),
            6 => Datum::Double(f64::from_bits(i as u64)),
            7 => Datum::Date(i as i32),
            8 => Datum::Time(i as i32),
            9 => dec(i128::from(i) % 10i128.pow(18), 18, 4),
            10 => dec(wide % 10i128.pow(38), 38, 6),
            11 => Datum::String(s.to_string()),
            12 => Datum::Binary(s.as_bytes().to_vec()),
            13 => Datum::Timestamp(ts(i, 0)),
            14 => Datum::Timestamp(ts(i, nanos % 1_000_000)),
            _ => Datum::LocalZonedTimestamp(ts(i, nanos % 1_000_000)),
        }
    };
    let field = (
        0..types.len(),
        any::<i64>(),
        any::<i128>(),
        ".{0,20}",
        any::<u32>(),
        any::<bool>(),
    );
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    runner
        .run(&proptest::collection::vec(field, 0..70), |fields| {
            let tys: Vec<DataType> = fields.iter().map(|f| types[f.0].clone()).collect();
            let values: Vec<Option<Datum>> = fields
                .iter()
                .map(|(k, i, w, s, n, null)| (!null).then(|| value(*k, *i, *w, s, *n)))
                .collect();
            let row = BinaryRow::encode(&values, &tys).unwrap();
            prop_assert_eq!(row.row_bytes().len() % 8, 0);
            let back = BinaryRow::from_serialized(&row.serialize()).unwrap();
            let decoded = back.decode(&tys).unwrap();
            // Compare floats by bits (NaN payloads are kept, -0.0 stays -0.0).
            let bits = |v: &Option<Datum>| match v {
                Some(Datum::Float(f)) => Some(Datum::Int(f.to_bits() as i32)),
                Some(Datum::Double(f)) => Some(Datum::BigInt(f.to_bits() as i64)),
                other => other.clone(),
            };
            let a: Vec<_> = values.iter().map(bits).collect();
            let b: Vec<_> = decoded.iter().map(bits).collect();
            prop_assert_eq!(a, b);
            prop_assert_eq!(BinaryRow::encode(&decoded, &tys).unwrap(), row);
            Ok(())
        })
        .unwrap();
}
