//! Unit tests of computed scalar cells (`Cell::Scalar`): the numeric aggregates produce them
//! without allocating an array per record, `Output` appends them per column and flush, and the
//! comparator fast path orders values exactly like `arrow_ord::ord::make_comparator`.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Decimal128Type, Float32Type, Float64Type, Int64Type, Int8Type};
use arrow_array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, Float32Array,
    Float64Array, Int32Array, Int64Array, Int8Array, LargeStringArray, RecordBatch, StringArray,
    Time32MillisecondArray, Time64MicrosecondArray, TimestampMicrosecondArray,
};
use arrow_ord::ord::make_comparator;
use arrow_schema::{DataType as ArrowType, Field, Schema, SortOptions};

use crate::mergetree::aggregate::AggFunction;
use crate::mergetree::compare::fast_compare;
use crate::mergetree::field_agg::{compare_values, scalar, FieldAgg};
use crate::mergetree::output::{Cell, Output, Pool, Scalar};

/// A pool over one batch of `cols` (all nullable); the batch is source 1.
fn pool(cols: Vec<ArrayRef>) -> Pool {
    let fields: Vec<Field> = cols
        .iter()
        .enumerate()
        .map(|(i, a)| Field::new(format!("c{i}"), a.data_type().clone(), true))
        .collect();
    let schema = Arc::new(Schema::new(fields));
    let mut p = Pool::new(&schema).unwrap();
    assert_eq!(p.push(RecordBatch::try_new(schema, cols).unwrap()), 1);
    p
}

/// Folds rows `0..n` of column `c` of source 1 with `agg`.
fn fold(func: AggFunction, p: &Pool, c: usize, n: usize) -> crate::Result<Cell> {
    let mut agg = FieldAgg::new(func, false, "v");
    let mut acc = Cell::Null;
    for row in 0..n {
        acc = agg.agg(acc, Cell::At(1, row), p, c)?;
    }
    Ok(acc)
}

fn dec(v: Vec<Option<i128>>, p: u8, s: i8) -> ArrayRef {
    Arc::new(
        Decimal128Array::from(v)
            .with_precision_and_scale(p, s)
            .unwrap(),
    )
}

#[test]
fn numeric_aggregates_compute_scalars_of_the_column_type() {
    let p = pool(vec![
        Arc::new(Int8Array::from(vec![Some(100), None, Some(27)])),
        Arc::new(Float32Array::from(vec![
            Some(16_777_216.0),
            Some(1.0),
            None,
        ])),
        dec(vec![Some(150), Some(-25), Some(5)], 5, 2),
        Arc::new(BooleanArray::from(vec![Some(true), None, Some(false)])),
        Arc::new(Int64Array::from(vec![Some(3), Some(-4), Some(5)])),
    ]);
    assert!(matches!(
        fold(AggFunction::Sum, &p, 0, 3).unwrap(),
        Cell::Scalar(Scalar::Int(127))
    ));
    // FLOAT arithmetic in f32: 2^24 + 1 rounds back to 2^24.
    assert!(matches!(
        fold(AggFunction::Sum, &p, 1, 3).unwrap(),
        Cell::Scalar(Scalar::F32(x)) if x == 16_777_216.0
    ));
    assert!(matches!(
        fold(AggFunction::Sum, &p, 2, 3).unwrap(),
        Cell::Scalar(Scalar::Decimal(130))
    ));
    // 1.50 * -0.25 = -0.375 -> -0.38 (HALF_UP), * 0.05 = -0.019 -> -0.02
    assert!(matches!(
        fold(AggFunction::Product, &p, 2, 3).unwrap(),
        Cell::Scalar(Scalar::Decimal(-2))
    ));
    assert!(matches!(
        fold(AggFunction::BoolAnd, &p, 3, 3).unwrap(),
        Cell::Scalar(Scalar::Bool(false))
    ));
    assert!(matches!(
        fold(AggFunction::BoolOr, &p, 3, 3).unwrap(),
        Cell::Scalar(Scalar::Bool(true))
    ));
    assert!(matches!(
        fold(AggFunction::Product, &p, 4, 3).unwrap(),
        Cell::Scalar(Scalar::Int(-60))
    ));
    // A lone non-null input is kept by reference, not computed.
    let mut sum = FieldAgg::new(AggFunction::Sum, false, "v");
    assert!(matches!(
        sum.agg(Cell::Null, Cell::At(1, 0), &p, 0).unwrap(),
        Cell::At(1, 0)
    ));
    // TINYINT overflow is an error, as in Java.
    let acc = fold(AggFunction::Sum, &p, 0, 3).unwrap();
    let err = sum.agg(acc, Cell::At(1, 0), &p, 0).unwrap_err();
    assert!(err.to_string().contains("overflow"), "{err}");
}

#[test]
fn sum_and_product_retract_on_scalars() {
    let p = pool(vec![
        Arc::new(Int32Array::from(vec![Some(7), Some(2), None])),
        dec(vec![Some(99_999), Some(-99_999), Some(700)], 5, 2),
    ]);
    let mut sum = FieldAgg::new(AggFunction::Sum, false, "v");
    let neg = sum.retract(Cell::Null, Cell::At(1, 0), &p, 0).unwrap();
    assert!(matches!(neg, Cell::Scalar(Scalar::Int(-7))));
    let less = sum.retract(neg, Cell::At(1, 1), &p, 0).unwrap();
    assert!(matches!(less, Cell::Scalar(Scalar::Int(-9))));
    assert!(matches!(
        sum.retract(less, Cell::At(1, 2), &p, 0).unwrap(),
        Cell::Scalar(Scalar::Int(-9))
    ));
    assert!(matches!(
        sum.retract(Cell::Null, Cell::At(1, 2), &p, 0).unwrap(),
        Cell::Null
    ));
    let mut prod = FieldAgg::new(AggFunction::Product, false, "v");
    let acc = Cell::Scalar(Scalar::Int(14));
    assert!(matches!(
        prod.retract(acc, Cell::At(1, 1), &p, 0).unwrap(),
        Cell::Scalar(Scalar::Int(7))
    ));
    // DECIMAL(5, 2): 999.99 / -999.99 = -1.00; a quotient wider than p digits is null.
    assert!(matches!(
        prod.retract(Cell::At(1, 0), Cell::At(1, 1), &p, 1).unwrap(),
        Cell::Scalar(Scalar::Decimal(-100))
    ));
    let wide = Cell::Scalar(Scalar::Decimal(99_999));
    let tiny = Cell::Scalar(Scalar::Decimal(1));
    assert!(matches!(
        prod.retract(wide, tiny, &p, 1).unwrap(),
        Cell::Null
    ));
    // 999.99 / 7.00 does not terminate: an error like Java's BigDecimal#divide.
    assert!(prod.retract(Cell::At(1, 0), Cell::At(1, 2), &p, 1).is_err());
    assert_eq!(scalar(&Cell::At(1, 2), &p, 0).unwrap(), None);
}

#[test]
fn output_appends_scalars_next_to_stored_and_computed_cells() {
    let p = pool(vec![
        Arc::new(Int64Array::from(vec![Some(10), Some(11)])),
        Arc::new(Float64Array::from(vec![Some(0.5), None])),
        Arc::new(Int8Array::from(vec![Some(1), Some(2)])),
    ]);
    let mut out = Output::new(3, true);
    let rows: Vec<[Cell; 3]> = vec![
        [
            Cell::Scalar(Scalar::Int(5)),
            Cell::Scalar(Scalar::F64(1.25)),
            Cell::At(1, 1),
        ],
        [
            Cell::Value(Arc::new(Int64Array::from(vec![7]))),
            Cell::At(1, 0),
            Cell::Scalar(Scalar::Int(-128)),
        ],
        [Cell::At(1, 1), Cell::Null, Cell::Null],
        [
            Cell::Scalar(Scalar::Int(-1)),
            Cell::Scalar(Scalar::F64(f64::NAN)),
            Cell::Scalar(Scalar::Int(127)),
        ],
        [Cell::Null, Cell::At(1, 1), Cell::At(1, 0)],
    ];
    for mut r in rows {
        out.push_cells(&mut r).unwrap();
        assert!(r.iter().all(|c| matches!(c, Cell::Null)));
    }
    let b = out.flush(&p).unwrap();
    assert_eq!(b.num_rows(), 5);
    let c0 = b.column(0).as_primitive::<Int64Type>();
    let got: Vec<Option<i64>> = c0.iter().collect();
    assert_eq!(got, vec![Some(5), Some(7), Some(11), Some(-1), None]);
    let c1 = b.column(1).as_primitive::<Float64Type>();
    assert_eq!(c1.value(0), 1.25);
    assert_eq!(c1.value(1), 0.5);
    assert!(c1.is_null(2) && c1.value(3).is_nan() && c1.is_null(4));
    let c2 = b.column(2).as_primitive::<Int8Type>();
    let got: Vec<Option<i8>> = c2.iter().collect();
    assert_eq!(got, vec![Some(2), Some(-128), None, Some(127), Some(1)]);
    // The buffers are cleared with the flush.
    out.push_cells(&mut [Cell::Scalar(Scalar::Int(3)), Cell::Null, Cell::Null])
        .unwrap();
    let b = out.flush(&p).unwrap();
    assert_eq!(b.column(0).as_primitive::<Int64Type>().value(0), 3);
    assert_eq!(b.num_rows(), 1);
}

#[test]
fn output_builds_decimal_float_and_boolean_scalars() {
    let p = pool(vec![
        dec(vec![Some(1)], 7, 3),
        Arc::new(Float32Array::from(vec![Some(1.5)])),
        Arc::new(BooleanArray::from(vec![Some(true)])),
    ]);
    let mut out = Output::new(3, true);
    out.push_cells(&mut [
        Cell::Scalar(Scalar::Decimal(-12_345)),
        Cell::Scalar(Scalar::F32(-0.0)),
        Cell::Scalar(Scalar::Bool(false)),
    ])
    .unwrap();
    out.push_cells(&mut [Cell::At(1, 0), Cell::At(1, 0), Cell::At(1, 0)])
        .unwrap();
    let b = out.flush(&p).unwrap();
    assert_eq!(b.column(0).data_type(), &ArrowType::Decimal128(7, 3));
    let d = b.column(0).as_primitive::<Decimal128Type>();
    assert_eq!((d.value(0), d.value(1)), (-12_345, 1));
    let f = b.column(1).as_primitive::<Float32Type>();
    assert!(f.value(0).is_sign_negative() && f.value(0) == 0.0);
    assert_eq!(f.value(1), 1.5);
    let bools = b.column(2).as_boolean();
    assert!(!bools.value(0) && bools.value(1));
}

#[test]
fn a_scalar_of_the_wrong_kind_is_an_error_not_a_panic() {
    let p = pool(vec![Arc::new(Int8Array::from(vec![Some(1)]))]);
    let mut out = Output::new(1, true);
    out.push_cells(&mut [Cell::Scalar(Scalar::Int(300))])
        .unwrap();
    assert!(out.flush(&p).is_err());
    let mut out = Output::new(1, true);
    out.push_cells(&mut [Cell::Scalar(Scalar::F64(1.0))])
        .unwrap();
    assert!(out.flush(&p).is_err());
    let p = pool(vec![Arc::new(StringArray::from(vec![Some("x")]))]);
    let mut out = Output::new(1, true);
    out.push_cells(&mut [Cell::Scalar(Scalar::Bool(true))])
        .unwrap();
    assert!(out.flush(&p).is_err());
}

/// Every pair of non-null rows of `a`: the fast path agrees with `make_comparator`.
fn agrees(a: ArrayRef) {
    assert!(
        fast_compare((a.as_ref(), 0), (a.as_ref(), 0)).is_some(),
        "{} has no fast path",
        a.data_type()
    );
    let cmp = make_comparator(a.as_ref(), a.as_ref(), SortOptions::default()).unwrap();
    for i in 0..a.len() {
        for j in 0..a.len() {
            let x = (a.as_ref(), i);
            let y = (a.as_ref(), j);
            assert_eq!(
                fast_compare(x, y),
                Some(cmp(i, j)),
                "{} {i} {j}",
                a.data_type()
            );
            assert_eq!(compare_values(x, y).unwrap(), cmp(i, j));
        }
    }
}

#[test]
fn fast_compare_orders_like_make_comparator() {
    agrees(Arc::new(Int8Array::from(vec![-128, 0, 127, -1])));
    agrees(Arc::new(Int32Array::from(vec![i32::MIN, 0, i32::MAX, 5])));
    agrees(Arc::new(Int64Array::from(vec![i64::MIN, 0, i64::MAX, -5])));
    agrees(Arc::new(Date32Array::from(vec![-1, 0, 19_000])));
    agrees(dec(vec![Some(-10), Some(0), Some(99_999)], 5, 2));
    agrees(Arc::new(Float32Array::from(vec![
        f32::NAN,
        -f32::NAN,
        -0.0,
        0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1.5,
    ])));
    agrees(Arc::new(Float64Array::from(vec![
        f64::NAN,
        -0.0,
        0.0,
        -2.5,
    ])));
    agrees(Arc::new(Time32MillisecondArray::from(vec![
        0, 86_399_999, 5,
    ])));
    agrees(Arc::new(Time64MicrosecondArray::from(vec![0, 3, 1])));
    agrees(Arc::new(
        TimestampMicrosecondArray::from(vec![-1, 0, 1_700_000_000_000_000]).with_timezone("UTC"),
    ));
    agrees(Arc::new(StringArray::from(vec![
        "", "a", "é", "z", "ab", "\u{ffff}",
    ])));
    agrees(Arc::new(LargeStringArray::from(vec!["b", "a", "é"])));
    agrees(Arc::new(BinaryArray::from_vec(vec![
        &b""[..],
        &b"\xff"[..],
        &b"\x01"[..],
        &b"\x01\x00"[..],
    ])));
    // Types without a fast path still compare, through make_comparator.
    let bools: ArrayRef = Arc::new(BooleanArray::from(vec![true, false]));
    assert_eq!(fast_compare((bools.as_ref(), 0), (bools.as_ref(), 1)), None);
    assert!(compare_values((bools.as_ref(), 0), (bools.as_ref(), 1))
        .unwrap()
        .is_gt());
}
