//! Tests of exact literal conversion.

use super::*;
use crate::ErrorKind;

fn ty(kind: TypeKind) -> DataType {
    DataType::nullable(kind)
}

fn ok(lit: Literal, kind: TypeKind) -> Datum {
    convert_literal(&lit, &ty(kind.clone()))
        .unwrap_or_else(|e| panic!("{lit} into {kind:?}: {e}"))
        .unwrap()
}

fn err(lit: Literal, kind: TypeKind) -> String {
    let e = convert_literal(&lit, &ty(kind.clone())).expect_err(&format!("{lit} into {kind:?}"));
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    e.to_string()
}

fn num(s: &str) -> Literal {
    Literal::Number(s.into())
}

fn dec(unscaled: i128, precision: u32, scale: u32) -> Datum {
    Datum::Decimal(Decimal {
        unscaled,
        precision,
        scale,
    })
}

#[test]
fn integers_are_exact_and_range_checked() {
    assert_eq!(ok(num("42"), TypeKind::Int), Datum::Int(42));
    assert_eq!(ok(num("-3"), TypeKind::TinyInt), Datum::TinyInt(-3));
    assert_eq!(ok(num("1.0"), TypeKind::Int), Datum::Int(1));
    assert_eq!(ok(num("1.000"), TypeKind::SmallInt), Datum::SmallInt(1));
    assert_eq!(ok(num("1e3"), TypeKind::BigInt), Datum::BigInt(1000));
    assert_eq!(ok(num("+7"), TypeKind::Int), Datum::Int(7));
    assert_eq!(ok(num("-0.0"), TypeKind::Int), Datum::Int(0));
    assert_eq!(
        ok(
            num("250e-2"),
            TypeKind::Decimal {
                precision: 3,
                scale: 1
            }
        ),
        dec(25, 3, 1)
    );
    assert!(err(num("150e-2"), TypeKind::Int).contains("not an integer"));
    assert_eq!(ok(num("-128"), TypeKind::TinyInt), Datum::TinyInt(-128));
    assert_eq!(
        ok(num("9223372036854775807"), TypeKind::BigInt),
        Datum::BigInt(i64::MAX)
    );
    assert!(err(num("1.5"), TypeKind::Int).contains("not an integer"));
    assert!(err(num("128"), TypeKind::TinyInt).contains("out of range"));
    assert!(err(num("2147483648"), TypeKind::Int).contains("out of range"));
    assert!(err(num("9223372036854775808"), TypeKind::BigInt).contains("out of range"));
    assert!(err(num("1e40"), TypeKind::BigInt).contains("out of range"));
    assert!(err(num("1e999999999"), TypeKind::BigInt).contains("exponent"));
    err(num("12abc"), TypeKind::Int);
    err(num("."), TypeKind::Int);
    err(num("1.5"), TypeKind::VarChar(10));
    err(num("1"), TypeKind::Boolean);
    err(num("1"), TypeKind::Date);
}

#[test]
fn decimals_rescale_exactly_or_fail() {
    let d = |p, s| TypeKind::Decimal {
        precision: p,
        scale: s,
    };
    assert_eq!(ok(num("1.2"), d(10, 2)), dec(120, 10, 2));
    assert_eq!(ok(num("1.200"), d(10, 2)), dec(120, 10, 2));
    assert_eq!(ok(num("-3"), d(5, 0)), dec(-3, 5, 0));
    assert_eq!(ok(num("12.5e-1"), d(4, 2)), dec(125, 4, 2));
    assert_eq!(ok(num("99999999.99"), d(10, 2)), dec(9_999_999_999, 10, 2));
    assert_eq!(
        ok(num("12345678901234567890.123456789012345678"), d(38, 18)),
        dec(12_345_678_901_234_567_890_123_456_789_012_345_678, 38, 18)
    );
    assert!(err(num("0.123"), d(10, 2)).contains("not exact"));
    assert!(err(num("9999999999"), d(10, 2)).contains("precision 10"));
    assert!(err(num("100"), d(4, 2)).contains("precision 4"));
    assert_eq!(ok(Literal::string(" 1.5 "), d(3, 1)), dec(15, 3, 1));
    assert_eq!(ok(Literal::Typed(dec(12, 3, 1)), d(10, 2)), dec(120, 10, 2));
    err(Literal::Typed(Datum::Double(1.5)), d(10, 2));
}

#[test]
fn floats_parse_and_reject_overflow() {
    assert_eq!(ok(num("1.5"), TypeKind::Double), Datum::Double(1.5));
    assert_eq!(ok(num("1e3"), TypeKind::Float), Datum::Float(1000.0));
    assert_eq!(ok(num("0.1"), TypeKind::Float), Datum::Float(0.1f32));
    assert_eq!(ok(num("-2"), TypeKind::Double), Datum::Double(-2.0));
    assert!(err(num("1e400"), TypeKind::Double).contains("overflows"));
    assert!(err(num("1e39"), TypeKind::Float).contains("overflows"));
    err(num("inf"), TypeKind::Double);
    match ok(Literal::string("NaN"), TypeKind::Double) {
        Datum::Double(v) => assert!(v.is_nan()),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        ok(Literal::string("-Infinity"), TypeKind::Float),
        Datum::Float(f32::NEG_INFINITY)
    );
    assert_eq!(
        ok(Literal::Typed(Datum::Float(0.5)), TypeKind::Double),
        Datum::Double(0.5)
    );
    assert_eq!(
        ok(Literal::Typed(Datum::Double(0.5)), TypeKind::Float),
        Datum::Float(0.5)
    );
    assert!(err(Literal::Typed(Datum::Double(0.1)), TypeKind::Float).contains("not exact"));
    assert_eq!(
        ok(Literal::Typed(Datum::Int(3)), TypeKind::Double),
        Datum::Double(3.0)
    );
}

#[test]
fn strings_cast_as_sql_would() {
    assert_eq!(
        ok(Literal::string("abc"), TypeKind::VarChar(10)),
        Datum::String("abc".into())
    );
    assert_eq!(
        ok(Literal::string(" a "), TypeKind::Char(3)),
        Datum::String(" a ".into())
    );
    assert_eq!(ok(Literal::string("5"), TypeKind::Int), Datum::Int(5));
    assert_eq!(
        ok(Literal::string(" -5 "), TypeKind::BigInt),
        Datum::BigInt(-5)
    );
    err(Literal::string("5.5"), TypeKind::Int);
    err(Literal::string("five"), TypeKind::Int);
    assert_eq!(
        ok(Literal::string("TRUE"), TypeKind::Boolean),
        Datum::Boolean(true)
    );
    err(Literal::string("yes"), TypeKind::Boolean);
    assert_eq!(
        ok(Literal::string("2024-01-01"), TypeKind::Date),
        Datum::Date(19723)
    );
    assert_eq!(
        ok(Literal::string("1969-12-31"), TypeKind::Date),
        Datum::Date(-1)
    );
    err(Literal::string("2024-02-30"), TypeKind::Date);
    err(Literal::string("2024-01-01 10:00:00"), TypeKind::Date);
    assert_eq!(
        ok(Literal::string("ab"), TypeKind::VarBinary(10)),
        Datum::Binary(b"ab".to_vec())
    );
    assert_eq!(
        ok(Literal::string("10:00:01.5"), TypeKind::Time(3)),
        Datum::Time(36_001_500)
    );
    err(Literal::string("10:00:01.5"), TypeKind::Time(0));
    err(Literal::string("10:00:01.0001"), TypeKind::Time(9));
    err(Literal::string("x"), TypeKind::Variant);
    err(Literal::Boolean(true), TypeKind::Int);
    assert_eq!(
        ok(Literal::Boolean(false), TypeKind::Boolean),
        Datum::Boolean(false)
    );
    assert_eq!(
        convert_literal(&Literal::Null, &ty(TypeKind::Int)).unwrap(),
        None
    );
}

fn ts(millis: i64, nanos: u32) -> Timestamp {
    Timestamp { millis, nanos }
}

#[test]
fn timestamps_keep_precision_or_fail() {
    let base = 1_704_103_200_000; // 2024-01-01 10:00:00 UTC
    assert_eq!(
        ok(
            Literal::Timestamp("2024-01-01 10:00:00.123456".into()),
            TypeKind::Timestamp(6)
        ),
        Datum::Timestamp(ts(base + 123, 456_000))
    );
    assert_eq!(
        ok(
            Literal::Timestamp("2024-01-01T10:00:00.123456789".into()),
            TypeKind::Timestamp(9)
        ),
        Datum::Timestamp(ts(base + 123, 456_789))
    );
    assert_eq!(
        ok(
            Literal::Timestamp("2024-01-01 10:00".into()),
            TypeKind::Timestamp(0)
        ),
        Datum::Timestamp(ts(base, 0))
    );
    // Trailing zeros beyond the precision are exact.
    assert_eq!(
        ok(
            Literal::Timestamp("2024-01-01 10:00:00.120000".into()),
            TypeKind::Timestamp(2)
        ),
        Datum::Timestamp(ts(base + 120, 0))
    );
    assert!(err(
        Literal::Timestamp("2024-01-01 10:00:00.123456".into()),
        TypeKind::Timestamp(3)
    )
    .contains("more fraction digits than precision 3"));
    err(
        Literal::Timestamp("2024-01-01 10:00:00.1234567891".into()),
        TypeKind::Timestamp(9),
    );
    err(
        Literal::Timestamp("2024-01-01 25:00:00".into()),
        TypeKind::Timestamp(3),
    );
    err(
        Literal::Timestamp("2024-01-01 10:00:00+08:00".into()),
        TypeKind::Timestamp(3),
    );
    // LTZ: the literal is UTC.
    assert_eq!(
        ok(
            Literal::string("2024-01-01 10:00:00.5"),
            TypeKind::LocalZonedTimestamp(3)
        ),
        Datum::LocalZonedTimestamp(ts(base + 500, 0))
    );
    // Before the epoch: millis floor, nanos positive.
    assert_eq!(
        ok(
            Literal::Timestamp("1969-12-31 23:59:59.999999".into()),
            TypeKind::Timestamp(6)
        ),
        Datum::Timestamp(ts(-1, 999_000))
    );
    // DATE <-> TIMESTAMP.
    assert_eq!(
        ok(Literal::Date("2024-01-01".into()), TypeKind::Timestamp(3)),
        Datum::Timestamp(ts(1_704_067_200_000, 0))
    );
    assert_eq!(
        ok(
            Literal::Timestamp("2024-01-01 00:00:00".into()),
            TypeKind::Date
        ),
        Datum::Date(19723)
    );
    err(
        Literal::Timestamp("2024-01-01 00:00:01".into()),
        TypeKind::Date,
    );
    err(Literal::Date("2024-01-01".into()), TypeKind::VarChar(10));
    assert_eq!(
        ok(
            Literal::Typed(Datum::Timestamp(ts(5, 1))),
            TypeKind::Timestamp(9)
        ),
        Datum::Timestamp(ts(5, 1))
    );
    err(
        Literal::Typed(Datum::Timestamp(ts(5, 1))),
        TypeKind::Timestamp(6),
    );
}
