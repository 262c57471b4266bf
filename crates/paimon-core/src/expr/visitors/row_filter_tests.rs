//! Tests of the Arrow residual filter: every op on every type group, with nulls, checked
//! against explicit expectations and against the scalar oracle [`LeafOp::eval`].

use arrow_array::{LargeStringArray, StringViewArray};
use arrow_schema::{Field, Schema, TimeUnit};

use super::*;
use crate::expr::bound::BoundField;
use crate::expr::parse_predicate;
use crate::spec::datum::Decimal;
use crate::ErrorKind;

fn batch_of(cols: Vec<ArrayRef>) -> RecordBatch {
    let fields: Vec<Field> = cols
        .iter()
        .enumerate()
        .map(|(i, c)| Field::new(format!("c{i}"), c.data_type().clone(), true))
        .collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), cols).unwrap()
}

fn mask(b: &BooleanArray) -> Vec<bool> {
    assert_eq!(b.null_count(), 0);
    b.iter().map(|v| v.unwrap()).collect()
}

/// Runs `op` on one column and checks it against the scalar oracle; returns the mask.
fn check(kind: TypeKind, col: ArrayRef, values: &[Option<Datum>], op: LeafOp) -> Vec<bool> {
    let field = DataField::new(5, "x", DataType::nullable(kind));
    let bound = BoundField {
        id: 5,
        name: "x".into(),
        data_type: field.data_type.clone(),
    };
    let pred = BoundPredicate::leaf(bound, op.clone());
    let got = mask(&filter_batch(&pred, &batch_of(vec![col]), &[field]).unwrap());
    let want: Vec<bool> = values
        .iter()
        .map(|v| op.eval(v.as_ref()).unwrap())
        .collect();
    assert_eq!(got, want, "{op:?} on {values:?}");
    got
}

/// All comparison ops with `lit` plus the null tests, each checked against the oracle.
fn check_all_ops(
    kind: TypeKind,
    col: ArrayRef,
    values: &[Option<Datum>],
    lit: Datum,
    other: Datum,
) {
    let ops = [
        LeafOp::Eq(lit.clone()),
        LeafOp::NotEq(lit.clone()),
        LeafOp::Lt(lit.clone()),
        LeafOp::LtEq(lit.clone()),
        LeafOp::Gt(lit.clone()),
        LeafOp::GtEq(lit.clone()),
        LeafOp::In(vec![lit.clone(), other.clone()]),
        LeafOp::NotIn(vec![lit, other]),
        LeafOp::IsNull,
        LeafOp::IsNotNull,
    ];
    for op in ops {
        check(kind.clone(), col.clone(), values, op);
    }
}

#[test]
fn integers_with_nulls() {
    let vals = [Some(1), None, Some(3), Some(-2), Some(3)];
    let datums: Vec<_> = vals.iter().map(|v| v.map(Datum::Int)).collect();
    let col: ArrayRef = Arc::new(Int32Array::from(vals.to_vec()));
    assert_eq!(
        check(
            TypeKind::Int,
            col.clone(),
            &datums,
            LeafOp::Eq(Datum::Int(3))
        ),
        [false, false, true, false, true]
    );
    assert_eq!(
        check(
            TypeKind::Int,
            col.clone(),
            &datums,
            LeafOp::NotEq(Datum::Int(3))
        ),
        [true, false, false, true, false]
    );
    assert_eq!(
        check(
            TypeKind::Int,
            col.clone(),
            &datums,
            LeafOp::NotIn(vec![Datum::Int(1), Datum::Int(3)])
        ),
        [false, false, false, true, false]
    );
    check_all_ops(TypeKind::Int, col, &datums, Datum::Int(1), Datum::Int(-2));
    let big: ArrayRef = Arc::new(Int64Array::from(vec![Some(i64::MAX), None, Some(0)]));
    let bd = [Some(Datum::BigInt(i64::MAX)), None, Some(Datum::BigInt(0))];
    check_all_ops(
        TypeKind::BigInt,
        big,
        &bd,
        Datum::BigInt(0),
        Datum::BigInt(7),
    );
    let tiny: ArrayRef = Arc::new(Int8Array::from(vec![Some(-128), None, Some(5)]));
    let td = [Some(Datum::TinyInt(-128)), None, Some(Datum::TinyInt(5))];
    check_all_ops(
        TypeKind::TinyInt,
        tiny,
        &td,
        Datum::TinyInt(5),
        Datum::TinyInt(0),
    );
    let small: ArrayRef = Arc::new(Int16Array::from(vec![Some(300), None]));
    let sd = [Some(Datum::SmallInt(300)), None];
    check_all_ops(
        TypeKind::SmallInt,
        small,
        &sd,
        Datum::SmallInt(300),
        Datum::SmallInt(1),
    );
}

#[test]
fn floats_with_nan_and_signed_zero() {
    let vals = [
        Some(1.5),
        None,
        Some(f64::NAN),
        Some(-0.0),
        Some(0.0),
        Some(f64::NEG_INFINITY),
    ];
    let datums: Vec<_> = vals.iter().map(|v| v.map(Datum::Double)).collect();
    let col: ArrayRef = Arc::new(Float64Array::from(vals.to_vec()));
    // NaN is the largest value and equal to itself (Java order); -0.0 < 0.0.
    assert_eq!(
        check(
            TypeKind::Double,
            col.clone(),
            &datums,
            LeafOp::Gt(Datum::Double(100.0))
        ),
        [false, false, true, false, false, false]
    );
    assert_eq!(
        check(
            TypeKind::Double,
            col.clone(),
            &datums,
            LeafOp::Eq(Datum::Double(f64::NAN))
        ),
        [false, false, true, false, false, false]
    );
    assert_eq!(
        check(
            TypeKind::Double,
            col.clone(),
            &datums,
            LeafOp::Lt(Datum::Double(0.0))
        ),
        [false, false, false, true, false, true]
    );
    for lit in [0.0, -0.0, f64::NAN, 1.5] {
        check_all_ops(
            TypeKind::Double,
            col.clone(),
            &datums,
            Datum::Double(lit),
            Datum::Double(9.0),
        );
    }
    let fvals = [Some(0.1f32), None, Some(f32::NAN)];
    let fd: Vec<_> = fvals.iter().map(|v| v.map(Datum::Float)).collect();
    let fcol: ArrayRef = Arc::new(Float32Array::from(fvals.to_vec()));
    check_all_ops(
        TypeKind::Float,
        fcol,
        &fd,
        Datum::Float(0.1),
        Datum::Float(f32::NAN),
    );
}

fn dec(unscaled: i128, scale: u32) -> Datum {
    Datum::Decimal(Decimal {
        unscaled,
        precision: 10,
        scale,
    })
}

#[test]
fn decimals_including_other_column_scale() {
    let kind = TypeKind::Decimal {
        precision: 10,
        scale: 2,
    };
    let raw = [Some(120i128), None, Some(-5), Some(99_999)];
    let datums: Vec<_> = raw.iter().map(|v| v.map(|u| dec(u, 2))).collect();
    let col: ArrayRef = Arc::new(
        Decimal128Array::from(raw.to_vec())
            .with_precision_and_scale(10, 2)
            .unwrap(),
    );
    check_all_ops(kind.clone(), col, &datums, dec(120, 2), dec(-5, 2));
    // A file column stored as DECIMAL(12, 3): 1.200 equals the literal 1.20.
    let wide: ArrayRef = Arc::new(
        Decimal128Array::from(vec![Some(1200i128), Some(1205), None])
            .with_precision_and_scale(12, 3)
            .unwrap(),
    );
    let field = DataField::new(1, "d", DataType::nullable(kind));
    let pred = parse_predicate("d = 1.2")
        .unwrap()
        .bind_fields(std::slice::from_ref(&field))
        .unwrap();
    let got = filter_batch(
        &pred,
        &batch_of(vec![wide.clone()]),
        std::slice::from_ref(&field),
    )
    .unwrap();
    assert_eq!(mask(&got), [true, false, false]);
    let pred = parse_predicate("d > 1.2")
        .unwrap()
        .bind_fields(std::slice::from_ref(&field))
        .unwrap();
    let got = filter_batch(&pred, &batch_of(vec![wide]), &[field]).unwrap();
    assert_eq!(mask(&got), [false, true, false]);
}

#[test]
fn strings_in_every_arrow_layout() {
    let vals = [
        Some("abc"),
        None,
        Some("abd"),
        Some(""),
        Some("é"),
        Some("ab"),
    ];
    let datums: Vec<_> = vals
        .iter()
        .map(|v| v.map(|s| Datum::String(s.into())))
        .collect();
    let layouts: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(vals.to_vec())),
        Arc::new(LargeStringArray::from(vals.to_vec())),
        Arc::new(StringViewArray::from(vals.to_vec())),
    ];
    let kind = TypeKind::VarChar(100);
    for col in layouts {
        let s = |v: &str| Datum::String(v.into());
        check_all_ops(kind.clone(), col.clone(), &datums, s("abc"), s("é"));
        assert_eq!(
            check(
                kind.clone(),
                col.clone(),
                &datums,
                LeafOp::StartsWith("ab".into())
            ),
            [true, false, true, false, false, true]
        );
        assert_eq!(
            check(
                kind.clone(),
                col.clone(),
                &datums,
                LeafOp::NotStartsWith("ab".into())
            ),
            [false, false, false, true, true, false]
        );
        // Byte order: "é" (0xC3..) sorts after "z".
        assert_eq!(
            check(kind.clone(), col, &datums, LeafOp::Gt(s("z"))),
            [false, false, false, false, true, false]
        );
    }
}

#[test]
fn dates_times_booleans_binaries() {
    let dv = [Some(19723), None, Some(-1)];
    let dd: Vec<_> = dv.iter().map(|v| v.map(Datum::Date)).collect();
    let dcol: ArrayRef = Arc::new(Date32Array::from(dv.to_vec()));
    check_all_ops(
        TypeKind::Date,
        dcol,
        &dd,
        Datum::Date(19723),
        Datum::Date(0),
    );
    let tv = [Some(1000), None, Some(86_399_999)];
    let tdat: Vec<_> = tv.iter().map(|v| v.map(Datum::Time)).collect();
    let tcol: ArrayRef = Arc::new(Time32MillisecondArray::from(tv.to_vec()));
    check_all_ops(
        TypeKind::Time(3),
        tcol,
        &tdat,
        Datum::Time(1000),
        Datum::Time(5),
    );
    let bv = [Some(true), None, Some(false)];
    let bd: Vec<_> = bv.iter().map(|v| v.map(Datum::Boolean)).collect();
    let bcol: ArrayRef = Arc::new(BooleanArray::from(bv.to_vec()));
    check_all_ops(
        TypeKind::Boolean,
        bcol,
        &bd,
        Datum::Boolean(true),
        Datum::Boolean(true),
    );
    let yv: [Option<&[u8]>; 3] = [Some(b"\x0a\x0b"), None, Some(b"")];
    let yd: Vec<_> = yv
        .iter()
        .map(|v| v.map(|b| Datum::Binary(b.to_vec())))
        .collect();
    let ycol: ArrayRef = Arc::new(BinaryArray::from(yv.to_vec()));
    check_all_ops(
        TypeKind::VarBinary(10),
        ycol,
        &yd,
        Datum::Binary(vec![10, 11]),
        Datum::Binary(vec![]),
    );
}

fn ts(millis: i64, nanos: u32) -> Timestamp {
    Timestamp { millis, nanos }
}

#[test]
fn timestamps_in_every_unit() {
    let vals = [
        Some(ts(1_000, 123_000)),
        None,
        Some(ts(-1, 999_000)),
        Some(ts(1_000, 0)),
    ];
    let datums: Vec<_> = vals.iter().map(|v| v.map(Datum::Timestamp)).collect();
    let micros: Vec<Option<i64>> = vals.iter().map(|v| v.map(|t| t.to_micros())).collect();
    let col: ArrayRef = Arc::new(TimestampMicrosecondArray::from(micros.clone()));
    let lit = Datum::Timestamp(ts(1_000, 123_000));
    check_all_ops(
        TypeKind::Timestamp(6),
        col,
        &datums,
        lit.clone(),
        Datum::Timestamp(ts(-1, 999_000)),
    );
    // The same values read as nanoseconds: the literal is cast to the column's unit.
    let nanos: Vec<Option<i64>> = micros.iter().map(|v| v.map(|m| m * 1000)).collect();
    let ncol: ArrayRef = Arc::new(TimestampNanosecondArray::from(nanos));
    check_all_ops(
        TypeKind::Timestamp(6),
        ncol,
        &datums,
        lit.clone(),
        lit.clone(),
    );
    // A millisecond column against a microsecond literal: the column is widened, not the
    // literal truncated, so 1.000s <> 1.000123s.
    let mvals = [Some(1_000i64), None, Some(999)];
    let md: Vec<_> = mvals
        .iter()
        .map(|v| v.map(|m| Datum::Timestamp(ts(m, 0))))
        .collect();
    let mcol: ArrayRef = Arc::new(TimestampMillisecondArray::from(mvals.to_vec()));
    assert_eq!(
        check(
            TypeKind::Timestamp(6),
            mcol.clone(),
            &md,
            LeafOp::Eq(lit.clone())
        ),
        [false, false, false]
    );
    assert_eq!(
        check(TypeKind::Timestamp(6), mcol, &md, LeafOp::Lt(lit)),
        [true, false, true]
    );
    // LTZ columns carry a UTC time zone.
    let lv = [Some(5i64), None];
    let ld: Vec<_> = lv
        .iter()
        .map(|v| v.map(|m| Datum::LocalZonedTimestamp(ts(m, 0))))
        .collect();
    let lcol: ArrayRef =
        Arc::new(TimestampMillisecondArray::from(lv.to_vec()).with_timezone("UTC"));
    check_all_ops(
        TypeKind::LocalZonedTimestamp(3),
        lcol,
        &ld,
        Datum::LocalZonedTimestamp(ts(5, 0)),
        Datum::LocalZonedTimestamp(ts(4, 0)),
    );
    assert!(matches!(
        TimestampMillisecondArray::from(vec![0])
            .with_timezone("UTC")
            .data_type(),
        ArrowType::Timestamp(TimeUnit::Millisecond, Some(_))
    ));
}

#[test]
fn compound_predicates_by_field_id() {
    let fields = vec![
        DataField::new(10, "name", DataType::nullable(TypeKind::VarChar(10))),
        DataField::new(3, "id", DataType::nullable(TypeKind::Int)),
    ];
    let batch = batch_of(vec![
        Arc::new(StringArray::from(vec![
            Some("a"),
            Some("b"),
            None,
            Some("c"),
        ])),
        Arc::new(Int32Array::from(vec![Some(1), None, Some(3), Some(4)])),
    ]);
    let run = |sql: &str| {
        let pred = parse_predicate(sql).unwrap().bind_fields(&fields).unwrap();
        mask(&filter_batch(&pred, &batch, &fields).unwrap())
    };
    assert_eq!(run("id > 1 OR name = 'a'"), [true, false, true, true]);
    assert_eq!(
        run("NOT (id > 1 OR name = 'a')"),
        [false, false, false, false]
    );
    assert_eq!(
        run("NOT (id = 1) AND name IS NOT NULL"),
        [false, false, false, true]
    );
    assert_eq!(
        run("id IS NULL OR name IS NULL"),
        [false, true, true, false]
    );
    assert_eq!(run("TRUE"), [true; 4]);
    assert_eq!(run("id = NULL"), [false; 4]);
    assert_eq!(run("id BETWEEN 1 AND 3"), [true, false, true, false]);
    assert_eq!(
        run("name LIKE 'b%' OR id IN (3, 4)"),
        [false, true, true, true]
    );
    // A field the batch does not hold is an error.
    let other = vec![DataField::new(99, "z", DataType::nullable(TypeKind::Int))];
    let pred = parse_predicate("z = 1")
        .unwrap()
        .bind_fields(&other)
        .unwrap();
    let e = filter_batch(&pred, &batch, &fields).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("'z' (id 99)"), "{e}");
    assert!(filter_batch(&pred, &batch, &fields[..1]).is_err());
}

#[test]
fn schema_evolved_column_types_compare_exactly() {
    // The field is DOUBLE now, the file column is FLOAT: the column is widened.
    let field = DataField::new(0, "f", DataType::nullable(TypeKind::Double));
    let col: ArrayRef = Arc::new(Float32Array::from(vec![Some(0.1f32), Some(0.5), None]));
    let pred = parse_predicate("f = 0.5 OR f < 0.1")
        .unwrap()
        .bind_fields(std::slice::from_ref(&field))
        .unwrap();
    let got = filter_batch(&pred, &batch_of(vec![col]), &[field]).unwrap();
    // 0.1f32 widened is 0.10000000149 > 0.1.
    assert_eq!(mask(&got), [false, true, false]);
    // The field is BIGINT now, the file column INT.
    let field = DataField::new(0, "i", DataType::nullable(TypeKind::BigInt));
    let col: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), Some(7), None]));
    let pred = parse_predicate("i IN (7, 8)")
        .unwrap()
        .bind_fields(std::slice::from_ref(&field))
        .unwrap();
    let got = filter_batch(&pred, &batch_of(vec![col]), &[field]).unwrap();
    assert_eq!(mask(&got), [false, true, false]);
}
