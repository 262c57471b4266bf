//! Unit tests of the aggregation engine against Java 2.0 semantics (`AggregateMergeFunction`,
//! `Field*Agg`, `DecimalUtils`, `InternalRowUtils#compare`), through the full sort merge.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Decimal128Type, Float32Type, Int32Type, Int8Type};
use arrow_array::{
    Array, ArrayRef, BooleanArray, Decimal128Array, Float32Array, Int32Array, Int64Array,
    Int8Array, RecordBatch, StringArray,
};
use arrow_schema::{Schema, SchemaRef};
use futures::StreamExt;

use crate::arrow::arrow_schema;
use crate::arrow::RecordBatchStream;
use crate::mergetree::merge_function::DELETE as DELETE_KIND;
use crate::mergetree::{sequence_number_field, value_kind_field, Layout, MergeFunction, SortMerge};
use crate::spec::options::TableOptions;
use crate::spec::types::{DataField, DataType, TypeKind, MAX_LENGTH};

const INSERT: i8 = 0;
const UPDATE_BEFORE_KIND: i8 = 1;

/// One record: `_VALUE_KIND` and one single-row array per value field.
type Rec = (i8, Vec<ArrayRef>);

fn all_fields(values: &[DataField]) -> Vec<DataField> {
    let mut f = vec![DataField::new(0, "k", DataType::not_null(TypeKind::Int))];
    f.extend(values.iter().cloned());
    f.push(sequence_number_field());
    f.push(value_kind_field());
    f
}

fn options(pairs: &[(&str, &str)]) -> TableOptions {
    let mut map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    map.insert("merge-engine".into(), "aggregation".into());
    TableOptions::from_map(&map).unwrap()
}

fn function(pairs: &[(&str, &str)], values: &[DataField]) -> crate::Result<MergeFunction> {
    MergeFunction::new(&options(pairs), &all_fields(values), &[0], &[])
}

/// Merges `recs` of key 1 (each in its own sorted run, in sequence order) and returns the
/// value columns of the result row, `None` when no row is emitted.
async fn merge(
    pairs: &[(&str, &str)],
    values: &[DataField],
    recs: &[Rec],
) -> crate::Result<Option<Vec<ArrayRef>>> {
    let fields = all_fields(values);
    let f = function(pairs, values)?;
    // Nullable in the batches, so that a test can feed a null to a NOT NULL field.
    let schema: SchemaRef = Arc::new(Schema::new(
        arrow_schema(&fields)
            .unwrap()
            .fields()
            .iter()
            .map(|f| f.as_ref().clone().with_nullable(true))
            .collect::<Vec<_>>(),
    ));
    let n = values.len();
    let streams: Vec<RecordBatchStream> = recs
        .iter()
        .enumerate()
        .map(|(i, (kind, cols))| {
            let mut all: Vec<ArrayRef> = vec![Arc::new(Int32Array::from(vec![1]))];
            all.extend(cols.iter().cloned());
            all.push(Arc::new(Int64Array::from(vec![i as i64])));
            all.push(Arc::new(Int8Array::from(vec![*kind])));
            let b = RecordBatch::try_new(schema.clone(), all).unwrap();
            futures::stream::iter(vec![Ok(b)]).boxed()
        })
        .collect();
    let layout = Layout {
        key: vec![0],
        user_seq: vec![],
        user_seq_desc: false,
        seqnum: n + 1,
        kind: n + 2,
    };
    let mut m = SortMerge::new(&schema, layout, f, streams, 16)?;
    let mut out = None;
    while let Some(b) = m.next_batch().await? {
        if b.num_rows() > 0 {
            assert!(out.is_none() && b.num_rows() == 1);
            out = Some(b.columns()[1..=n].to_vec());
        }
    }
    Ok(out)
}

fn field(name: &str, kind: TypeKind) -> DataField {
    DataField::new(1, name, DataType::nullable(kind))
}

fn int(v: Option<i32>) -> ArrayRef {
    Arc::new(Int32Array::from(vec![v]))
}

fn dec(v: Option<i128>, p: u8, s: i8) -> ArrayRef {
    Arc::new(
        Decimal128Array::from(vec![v])
            .with_precision_and_scale(p, s)
            .unwrap(),
    )
}

fn string(v: Option<&str>) -> ArrayRef {
    Arc::new(StringArray::from(vec![v]))
}

fn int_of(a: &ArrayRef) -> Option<i32> {
    let a = a.as_primitive::<Int32Type>();
    a.is_valid(0).then(|| a.value(0))
}

fn dec_of(a: &ArrayRef) -> Option<i128> {
    let a = a.as_primitive::<Decimal128Type>();
    a.is_valid(0).then(|| a.value(0))
}

fn str_of(a: &ArrayRef) -> Option<String> {
    let a = a.as_string::<i32>();
    a.is_valid(0).then(|| a.value(0).to_string())
}

async fn one(pairs: &[(&str, &str)], f: &DataField, recs: &[Rec]) -> crate::Result<ArrayRef> {
    let row = merge(pairs, std::slice::from_ref(f), recs).await?;
    Ok(row.expect("a row").remove(0))
}

fn ins(a: ArrayRef) -> Rec {
    (INSERT, vec![a])
}

fn ret(a: ArrayRef) -> Rec {
    (UPDATE_BEFORE_KIND, vec![a])
}

fn del(a: ArrayRef) -> Rec {
    (DELETE_KIND, vec![a])
}

#[tokio::test]
async fn integer_sum_and_product_overflow_fail_like_java() {
    let sum = [("fields.v.aggregate-function", "sum")];
    let prod = [("fields.v.aggregate-function", "product")];
    let f = field("v", TypeKind::Int);
    let err = one(&sum, &f, &[ins(int(Some(i32::MAX))), ins(int(Some(1)))])
        .await
        .unwrap_err();
    assert!(err.to_string().contains("overflow"), "{err}");
    let err = one(
        &prod,
        &f,
        &[ins(int(Some(1 << 16))), ins(int(Some(1 << 16)))],
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("overflow"), "{err}");
    // TINYINT: Java checks the byte range (`addExactByte`).
    let t = field("v", TypeKind::TinyInt);
    let tiny = |v: i8| -> ArrayRef { Arc::new(Int8Array::from(vec![v])) };
    assert!(one(&sum, &t, &[ins(tiny(100)), ins(tiny(100))])
        .await
        .is_err());
    let got = one(&sum, &t, &[ins(tiny(100)), ins(tiny(27))])
        .await
        .unwrap();
    assert_eq!(got.as_primitive::<Int8Type>().value(0), 127);
    // No overflow: exact result; a retract of a null accumulator negates.
    let got = one(&sum, &f, &[ret(int(Some(5))), ret(int(Some(3)))])
        .await
        .unwrap();
    assert_eq!(int_of(&got), Some(-8));
    let err = one(&sum, &f, &[ret(int(Some(i32::MIN))), ret(int(None))])
        .await
        .unwrap_err();
    assert!(err.to_string().contains("overflow"), "{err}");
}

#[tokio::test]
async fn float_sum_uses_float_arithmetic() {
    let sum = [("fields.v.aggregate-function", "sum")];
    let f = field("v", TypeKind::Float);
    let fl = |v: f32| -> ArrayRef { Arc::new(Float32Array::from(vec![v])) };
    // In f32, 2^24 + 1 rounds back to 2^24 each time; an f64 accumulator would give 2^24 + 2.
    let got = one(
        &sum,
        &f,
        &[ins(fl(16_777_216.0)), ins(fl(1.0)), ins(fl(1.0))],
    )
    .await
    .unwrap();
    assert_eq!(got.as_primitive::<Float32Type>().value(0), 16_777_216.0);
}

#[tokio::test]
async fn product_retract_divides_like_java() {
    let prod = [("fields.v.aggregate-function", "product")];
    let f = field("v", TypeKind::Int);
    let recs = [ins(int(Some(2))), ins(int(Some(7))), ret(int(Some(3)))];
    // 14 / 3 = 4 (Java integer division truncates).
    assert_eq!(int_of(&one(&prod, &f, &recs).await.unwrap()), Some(4));
    // Null accumulator or null input: the accumulator.
    let recs = [ret(int(Some(3))), ins(int(Some(5)))];
    assert_eq!(int_of(&one(&prod, &f, &recs).await.unwrap()), Some(5));
    let recs = [ins(int(Some(2))), ret(int(Some(0)))];
    assert!(one(&prod, &f, &recs).await.is_err());
    // ignore-retract keeps the accumulator.
    let ign = [
        ("fields.v.aggregate-function", "product"),
        ("fields.v.ignore-retract", "TRUE"),
    ];
    let recs = [ins(int(Some(2))), ins(int(Some(7))), ret(int(Some(3)))];
    assert_eq!(int_of(&one(&ign, &f, &recs).await.unwrap()), Some(14));
}

#[tokio::test]
async fn decimal_product_retract_is_exact_or_fails() {
    let prod = [("fields.v.aggregate-function", "product")];
    let f = field(
        "v",
        TypeKind::Decimal {
            precision: 5,
            scale: 2,
        },
    );
    let d = |v: i128| ins(dec(Some(v), 5, 2));
    let r = |v: i128| ret(dec(Some(v), 5, 2));
    // 1.00 / 8.00 = 0.125 exactly, rounded HALF_UP to 0.13.
    let got = one(&prod, &f, &[d(100), r(800)]).await.unwrap();
    assert_eq!(dec_of(&got), Some(13));
    // 3.00 / 9.00 does not terminate: Java's BigDecimal.divide throws.
    let err = one(&prod, &f, &[d(300), r(900)]).await.unwrap_err();
    assert!(err.to_string().contains("Non-terminating"), "{err}");
    let err = one(&prod, &f, &[d(300), r(0)]).await.unwrap_err();
    assert!(err.to_string().contains("Division by zero"), "{err}");
    // 0.05 * 0.05 = 0.0025 rounds HALF_UP to 0.00 (0.005 would give 0.01).
    let got = one(&prod, &f, &[d(5), d(5)]).await.unwrap();
    assert_eq!(dec_of(&got), Some(0));
    let got = one(&prod, &f, &[d(10), d(5)]).await.unwrap();
    assert_eq!(dec_of(&got), Some(1));
    // 999.00 * 2.00 exceeds DECIMAL(5, 2): null (Decimal.fromBigDecimal).
    let got = one(&prod, &f, &[d(99900), d(200)]).await.unwrap();
    assert_eq!(dec_of(&got), None);
}

#[tokio::test]
async fn decimal_product_is_exact_beyond_i128_intermediates() {
    let prod = [("fields.v.aggregate-function", "product")];
    let f = field(
        "v",
        TypeKind::Decimal {
            precision: 38,
            scale: 10,
        },
    );
    // 1e10 * 1e10 = 1e20; the unscaled intermediate 1e40 does not fit an i128.
    let e20 = 10i128.pow(20);
    let got = one(
        &prod,
        &f,
        &[ins(dec(Some(e20), 38, 10)), ins(dec(Some(e20), 38, 10))],
    )
    .await
    .unwrap();
    assert_eq!(dec_of(&got), Some(10i128.pow(30)));
    // and the division back
    let got = one(
        &prod,
        &f,
        &[
            ins(dec(Some(10i128.pow(30)), 38, 10)),
            ret(dec(Some(e20), 38, 10)),
        ],
    )
    .await
    .unwrap();
    assert_eq!(dec_of(&got), Some(e20));
}

#[tokio::test]
async fn decimal_sum_precision_overflow_follows_decimal_utils() {
    let sum = [("fields.v.aggregate-function", "sum")];
    // Compact precision (<= 18): Java adds the unscaled longs without a precision check.
    let f = field(
        "v",
        TypeKind::Decimal {
            precision: 5,
            scale: 2,
        },
    );
    let recs = [ins(dec(Some(99_999), 5, 2)), ins(dec(Some(1), 5, 2))];
    assert_eq!(dec_of(&one(&sum, &f, &recs).await.unwrap()), Some(100_000));
    let recs = [ins(dec(Some(-99_999), 5, 2)), ret(dec(Some(1), 5, 2))];
    assert_eq!(dec_of(&one(&sum, &f, &recs).await.unwrap()), Some(-100_000));
    // Non-compact precision: BigDecimal with a precision check, null on overflow.
    let f = field(
        "v",
        TypeKind::Decimal {
            precision: 20,
            scale: 2,
        },
    );
    let max = 10i128.pow(20) - 1;
    let recs = [ins(dec(Some(max), 20, 2)), ins(dec(Some(1), 20, 2))];
    assert_eq!(dec_of(&one(&sum, &f, &recs).await.unwrap()), None);
    let recs = [ins(dec(Some(max - 1), 20, 2)), ins(dec(Some(1), 20, 2))];
    assert_eq!(dec_of(&one(&sum, &f, &recs).await.unwrap()), Some(max));
}

#[tokio::test]
async fn ignore_delete_does_not_change_the_aggregation_merge() {
    // Java drops retracts at write time (`TableWriteImpl` + `RowKindFilter`); retracts that
    // are in the files are still aggregated on read.
    let opts = [
        ("fields.v.aggregate-function", "sum"),
        ("ignore-delete", "true"),
    ];
    let f = field("v", TypeKind::Int);
    let recs = [ins(int(Some(5))), del(int(Some(3)))];
    assert_eq!(int_of(&one(&opts, &f, &recs).await.unwrap()), Some(2));
    // A group of retracts only still yields a (+I) row.
    let recs = [ret(int(Some(5))), ret(int(Some(3)))];
    assert_eq!(int_of(&one(&opts, &f, &recs).await.unwrap()), Some(-8));
}

#[tokio::test]
async fn remove_record_on_delete_reinitialises_from_the_delete_record() {
    let opts = [
        ("fields.v.aggregate-function", "sum"),
        ("aggregation.remove-record-on-delete", "true"),
    ];
    let f = field("v", TypeKind::Int);
    // Java `initRow`: the row restarts from the values of the -D record.
    let recs = [ins(int(Some(5))), del(int(Some(7))), ins(int(Some(3)))];
    assert_eq!(int_of(&one(&opts, &f, &recs).await.unwrap()), Some(10));
    let recs = [ins(int(Some(5))), del(int(Some(7)))];
    assert!(merge(&opts, std::slice::from_ref(&f), &recs)
        .await
        .unwrap()
        .is_none());
    // -U is an ordinary retract.
    let recs = [ins(int(Some(5))), ret(int(Some(7)))];
    assert_eq!(int_of(&one(&opts, &f, &recs).await.unwrap()), Some(-2));
    // A non-nullable field may not be null in the delete record.
    let nn = DataField::new(1, "v", DataType::not_null(TypeKind::Int));
    let recs = [ins(int(Some(5))), del(int(None))];
    let err = merge(&opts, &[nn], &recs).await.unwrap_err();
    assert!(err.to_string().contains("can not be null"), "{err}");
    // ignore-retract conflicts with remove-record-on-delete.
    let mut o = opts.to_vec();
    o.push(("fields.v.ignore-retract", "true"));
    let err = function(&o, &[f]).unwrap_err();
    assert!(err.to_string().contains("conflicting behavior"), "{err}");
}

#[tokio::test]
async fn listagg_skips_blanks_and_supports_distinct() {
    let f = field("v", TypeKind::VarChar(MAX_LENGTH));
    let s = |v: &str| ins(string(Some(v)));
    let plain = [("fields.v.aggregate-function", "listagg")];
    let recs = [s("a"), s(" \t"), ins(string(None)), s("b"), s("")];
    assert_eq!(
        str_of(&one(&plain, &f, &recs).await.unwrap()).as_deref(),
        Some("a,b")
    );
    // A non-breaking space is not whitespace for Java's Character.isWhitespace.
    let recs = [s("a"), s("\u{a0}")];
    assert_eq!(
        str_of(&one(&plain, &f, &recs).await.unwrap()).as_deref(),
        Some("a,\u{a0}")
    );
    let distinct = [
        ("fields.v.aggregate-function", "listagg"),
        ("fields.v.distinct", "true"),
        ("fields.v.list-agg-delimiter", ";"),
    ];
    let recs = [s("a;b;a"), s("b;c;;c"), s("a")];
    // The accumulator itself is not de-duplicated; new tokens are added once.
    assert_eq!(
        str_of(&one(&distinct, &f, &recs).await.unwrap()).as_deref(),
        Some("a;b;a;c")
    );
    // A lone record is emitted unchanged (ReducerMergeFunctionWrapper).
    assert_eq!(
        str_of(&one(&distinct, &f, &[s("x;x")]).await.unwrap()).as_deref(),
        Some("x;x")
    );
}

#[test]
fn factories_check_types_like_java() {
    let err = |o: &[(&str, &str)], f: DataField| function(o, &[f]).unwrap_err().to_string();
    let listagg = [("fields.v.aggregate-function", "listagg")];
    assert!(err(&listagg, field("v", TypeKind::Int))
        .contains("Data type for list agg column must be 'VarCharType'"));
    assert!(err(&listagg, field("v", TypeKind::VarChar(10)))
        .contains("must be STRING (unbounded VARCHAR), but was VARCHAR(10)"));
    let sum = [("fields.v.aggregate-function", "sum")];
    assert!(err(&sum, field("v", TypeKind::VarChar(MAX_LENGTH)))
        .contains("Data type for sum column must be 'NumericType'"));
    let prod = [("fields.v.aggregate-function", "product")];
    assert!(err(&prod, field("v", TypeKind::Boolean))
        .contains("Data type for product column must be 'NumericType'"));
    let band = [("fields.v.aggregate-function", "bool_and")];
    assert!(err(&band, field("v", TypeKind::Int))
        .contains("Data type for bool and column must be 'BooleanType'"));
    let bor = [("fields.v.aggregate-function", "bool_or")];
    assert!(err(&bor, field("v", TypeKind::Int))
        .contains("Data type for bool or column must be 'BooleanType'"));
    // The legacy name of first_non_null_value.
    let legacy = [("fields.v.aggregate-function", "first_not_null_value")];
    assert!(function(&legacy, &[field("v", TypeKind::Int)]).is_ok());
}

#[tokio::test]
async fn min_max_compare_like_java() {
    let max = [("fields.v.aggregate-function", "max")];
    let min = [("fields.v.aggregate-function", "min")];
    let f = field("v", TypeKind::Float);
    let fl = |v: f32| ins(Arc::new(Float32Array::from(vec![v])));
    // Float.compare: every NaN (whatever its sign bit) is above +inf.
    let neg_nan = f32::from_bits(0xffc0_0000);
    let got = one(&max, &f, &[fl(1.0), fl(neg_nan)]).await.unwrap();
    assert!(got.as_primitive::<Float32Type>().value(0).is_nan());
    let got = one(&min, &f, &[fl(neg_nan), fl(f32::NEG_INFINITY)])
        .await
        .unwrap();
    assert_eq!(
        got.as_primitive::<Float32Type>().value(0),
        f32::NEG_INFINITY
    );
    // -0.0 < 0.0
    let got = one(&min, &f, &[fl(0.0), fl(-0.0)]).await.unwrap();
    assert!(got
        .as_primitive::<Float32Type>()
        .value(0)
        .is_sign_negative());
    // Strings by unsigned UTF-8 bytes, decimals numerically.
    let s = field("v", TypeKind::VarChar(MAX_LENGTH));
    let recs = [ins(string(Some("é"))), ins(string(Some("z")))];
    assert_eq!(
        str_of(&one(&max, &s, &recs).await.unwrap()).as_deref(),
        Some("é")
    );
    let d = field(
        "v",
        TypeKind::Decimal {
            precision: 5,
            scale: 2,
        },
    );
    let recs = [ins(dec(Some(-500), 5, 2)), ins(dec(Some(20), 5, 2))];
    assert_eq!(dec_of(&one(&min, &d, &recs).await.unwrap()), Some(-500));
    // BOOLEAN is not comparable in Java (`InternalRowUtils.compare`).
    let b = field("v", TypeKind::Boolean);
    let bo = |v: bool| ins(Arc::new(BooleanArray::from(vec![v])));
    let err = one(&max, &b, &[bo(true), bo(false)]).await.unwrap_err();
    assert!(err.to_string().contains("Incomparable type"), "{err}");
    // but a null side never compares
    let recs = [bo(true), ins(Arc::new(BooleanArray::from(vec![None])))];
    assert!(one(&max, &b, &recs).await.is_ok());
}

#[tokio::test]
async fn first_and_last_values_with_retracts() {
    let f = field("v", TypeKind::Int);
    let lnn = [("fields.v.aggregate-function", "last_non_null_value")];
    // last_non_null_value: a retract of a non-null value nulls, of null keeps.
    let recs = [ins(int(Some(1))), ret(int(Some(9)))];
    assert_eq!(int_of(&one(&lnn, &f, &recs).await.unwrap()), None);
    let recs = [ins(int(Some(1))), ret(int(None))];
    assert_eq!(int_of(&one(&lnn, &f, &recs).await.unwrap()), Some(1));
    let lv = [("fields.v.aggregate-function", "last_value")];
    let recs = [ins(int(Some(1))), ret(int(Some(9))), ins(int(None))];
    assert_eq!(int_of(&one(&lv, &f, &recs).await.unwrap()), None);
    // first_value cannot retract unless ignore-retract is set.
    let fv = [("fields.v.aggregate-function", "first_value")];
    let recs = [ins(int(None)), ins(int(Some(2))), ret(int(Some(3)))];
    let err = one(&fv, &f, &recs).await.unwrap_err();
    assert!(
        err.to_string().contains("does not support retraction"),
        "{err}"
    );
    let fv = [
        ("fields.v.aggregate-function", "first_value"),
        ("fields.v.ignore-retract", "true"),
    ];
    assert_eq!(int_of(&one(&fv, &f, &recs).await.unwrap()), None);
    let fnn = [
        ("fields.v.aggregate-function", "first_non_null_value"),
        ("fields.v.ignore-retract", "true"),
    ];
    assert_eq!(int_of(&one(&fnn, &f, &recs).await.unwrap()), Some(2));
}

#[tokio::test]
async fn count_follows_java_08_field_count_agg() {
    let count = [("fields.v.aggregate-function", "count")];
    let f = field("v", TypeKind::Int);
    // First record non-null: 1, then +1 per non-null record; nulls keep the count.
    let got = one(
        &count,
        &f,
        &[ins(int(Some(42))), ins(int(None)), ins(int(Some(7)))],
    )
    .await
    .unwrap();
    assert_eq!(int_of(&got), Some(2));
    // A null first record starts at 0; a retract subtracts one.
    let got = one(
        &count,
        &f,
        &[ins(int(None)), ins(int(None)), ret(int(Some(3)))],
    )
    .await
    .unwrap();
    assert_eq!(int_of(&got), Some(-1));
    // A retract of a non-null into a null accumulator gives -1; a null retract keeps it.
    let got = one(&count, &f, &[ret(int(Some(1))), ret(int(None))])
        .await
        .unwrap();
    assert_eq!(int_of(&got), Some(-1));
    // Java's casts wrap (`(byte) (acc + 1)`), no overflow error.
    let t = field("v", TypeKind::TinyInt);
    let tiny = |v: Option<i8>| -> ArrayRef { Arc::new(Int8Array::from(vec![v])) };
    let mut recs = vec![ins(tiny(Some(1)))];
    recs.extend((0..127).map(|_| ins(tiny(Some(9)))));
    let got = one(&count, &t, &recs).await.unwrap();
    assert_eq!(got.as_primitive::<Int8Type>().value(0), i8::MIN);
    // Only integer columns.
    let err = one(&count, &field("v", TypeKind::Double), &[ins(int(Some(1)))])
        .await
        .unwrap_err();
    assert!(err.to_string().contains("count column"), "{err}");
}
