//! Tests of [`BucketSelector`]: paimon-cpp's `bucket_select_converter_test` cases rewritten,
//! Java's IN/OR/partition-aware extensions, and the ±0.0 decision.

use super::*;
use crate::expr::{parse_predicate, BoundField};
use crate::spec::datum::{Decimal, Timestamp};
use crate::ErrorKind;

fn ty(kind: TypeKind) -> DataType {
    DataType::nullable(kind)
}

fn dec(precision: u32, scale: u32) -> TypeKind {
    TypeKind::Decimal { precision, scale }
}

/// A table with `fields` (ids in order), bucket keys and partition keys by name.
fn schema(fields: &[(&str, TypeKind)], keys: &[&str], parts: &[&str]) -> TableSchema {
    let fields: Vec<DataField> = fields
        .iter()
        .enumerate()
        .map(|(i, (n, k))| DataField::new(i as i32, *n, ty(k.clone())))
        .collect();
    let mut options = crate::spec::schema::SchemaOptions::new();
    options.insert("bucket".to_string(), "4".to_string());
    options.insert("bucket-key".to_string(), keys.join(","));
    TableSchema {
        version: 3,
        id: 0,
        highest_field_id: fields.len() as i32,
        fields,
        partition_keys: parts.iter().map(|s| s.to_string()).collect(),
        primary_keys: vec![],
        options,
        comment: None,
        time_millis: 0,
    }
}

fn leaf(s: &TableSchema, name: &str, op: LeafOp) -> BoundPredicate {
    let f = s.field(name).unwrap();
    BoundPredicate::leaf(
        BoundField {
            id: f.id,
            name: f.name.clone(),
            data_type: f.data_type.clone(),
        },
        op,
    )
}

fn eq(s: &TableSchema, name: &str, v: Datum) -> BoundPredicate {
    leaf(s, name, LeafOp::Eq(v))
}

fn sel(s: &TableSchema, f: BucketFunctionType, p: &BoundPredicate) -> BucketSelector {
    BucketSelector::try_new(s, f, p).unwrap().unwrap()
}

/// Sorted selected buckets of an unpartitioned table.
fn buckets(s: &TableSchema, f: BucketFunctionType, p: &BoundPredicate, n: i32) -> Option<Vec<i32>> {
    let mut sel = sel(s, f, p);
    let set = sel.select(&[], &[], n)?;
    let mut v: Vec<i32> = set.iter().copied().collect();
    v.sort_unstable();
    Some(v)
}

/// The bucket `f` assigns to the key row `values` of `types` among `n`.
fn expected(f: BucketFunctionType, types: &[TypeKind], values: &[Datum], n: i32) -> i32 {
    let types: Vec<DataType> = types.iter().map(|k| ty(k.clone())).collect();
    let values: Vec<Option<Datum>> = values.iter().cloned().map(Some).collect();
    let row = BinaryRow::encode(&values, &types).unwrap();
    BucketFunction::new(f, types)
        .unwrap()
        .bucket(&row, n)
        .unwrap()
}

const D: BucketFunctionType = BucketFunctionType::Default;
const HIVE: BucketFunctionType = BucketFunctionType::Hive;

/// One key `k` of `kind`, `k = v`, compared with the function applied to the same row.
fn single_key(kind: TypeKind, v: Datum, n: i32) {
    let s = schema(&[("k", kind.clone()), ("v", TypeKind::Int)], &["k"], &[]);
    let want = expected(D, &[kind], std::slice::from_ref(&v), n);
    assert_eq!(
        buckets(&s, D, &eq(&s, "k", v.clone()), n),
        Some(vec![want]),
        "{v:?}"
    );
}

#[test]
fn single_string_equal_default() {
    single_key(
        TypeKind::VarChar(i32::MAX as u32),
        Datum::String("hello_world".into()),
        8,
    );
}

#[test]
fn primitive_key_types() {
    single_key(TypeKind::Boolean, Datum::Boolean(true), 17);
    single_key(TypeKind::TinyInt, Datum::TinyInt(-12), 17);
    single_key(TypeKind::SmallInt, Datum::SmallInt(1234), 17);
    single_key(TypeKind::Int, Datum::Int(42), 10);
    single_key(TypeKind::BigInt, Datum::BigInt(123_456_789), 16);
    single_key(TypeKind::Float, Datum::Float(1.25), 17);
    single_key(TypeKind::Double, Datum::Double(-123.5), 17);
    single_key(TypeKind::Date, Datum::Date(19_000), 17);
    single_key(
        TypeKind::VarBinary(100),
        Datum::Binary(vec![1, 2, 3, 4, 5, 6, 7, 8, 9]),
        17,
    );
}

#[test]
fn timestamp_millis_and_micros_precision() {
    let ts = Timestamp {
        millis: 1_700_000_000_123,
        nanos: 0,
    };
    single_key(TypeKind::Timestamp(3), Datum::Timestamp(ts), 17);
    let ts6 = Timestamp {
        millis: 1_700_000_000_123,
        nanos: 456_000,
    };
    single_key(TypeKind::Timestamp(6), Datum::Timestamp(ts6), 17);
    single_key(
        TypeKind::LocalZonedTimestamp(9),
        Datum::LocalZonedTimestamp(ts6),
        17,
    );
    // A literal finer than the key's precision cannot equal a stored value: no pruning.
    let s = schema(&[("k", TypeKind::Timestamp(3))], &["k"], &[]);
    assert_eq!(
        buckets(&s, D, &eq(&s, "k", Datum::Timestamp(ts6)), 17),
        None
    );
}

#[test]
fn decimal_keys_compact_and_not() {
    let d = |unscaled, precision, scale| {
        Datum::Decimal(Decimal {
            unscaled,
            precision,
            scale,
        })
    };
    single_key(dec(10, 2), d(12_345, 10, 2), 17);
    single_key(dec(20, 4), d(-1_127_890_415_250_471_875, 20, 4), 17);
    single_key(dec(38, 10), d(i128::MAX / 10, 38, 10), 17);
}

#[test]
fn multi_key_and_predicate() {
    let s = schema(
        &[("id", TypeKind::Int), ("name", TypeKind::VarChar(10))],
        &["id", "name"],
        &[],
    );
    let p = BoundPredicate::and_all([
        eq(&s, "id", Datum::Int(100)),
        eq(&s, "name", Datum::String("test".into())),
    ]);
    let want = expected(
        D,
        &[TypeKind::Int, TypeKind::VarChar(10)],
        &[Datum::Int(100), Datum::String("test".into())],
        5,
    );
    assert_eq!(buckets(&s, D, &p, 5), Some(vec![want]));
    // MissingBucketKeyReturnsNullopt.
    assert_eq!(buckets(&s, D, &eq(&s, "id", Datum::Int(100)), 5), None);
}

#[test]
fn non_equality_and_unsupported_shapes_do_not_prune() {
    let s = schema(&[("k", TypeKind::Int), ("j", TypeKind::Int)], &["k"], &[]);
    assert_eq!(
        buckets(&s, D, &leaf(&s, "k", LeafOp::Gt(Datum::Int(1))), 8),
        None
    );
    assert_eq!(buckets(&s, D, &leaf(&s, "k", LeafOp::IsNull), 8), None);
    let ne = leaf(&s, "k", LeafOp::NotIn(vec![Datum::Int(1), Datum::Int(2)]));
    assert_eq!(buckets(&s, D, &ne, 8), None);
    // OR across different fields.
    let or = BoundPredicate::or_all([eq(&s, "k", Datum::Int(1)), eq(&s, "j", Datum::Int(2))]);
    assert_eq!(buckets(&s, D, &or, 8), None);
}

#[test]
fn or_and_in_on_one_key_select_every_candidate() {
    // C++ gives no bucket for OR; Java (and this reader) select each candidate's bucket.
    let s = schema(&[("k", TypeKind::Int)], &["k"], &[]);
    let b = |v: i32| expected(D, &[TypeKind::Int], &[Datum::Int(v)], 100);
    let mut want = vec![b(1), b(2), b(3)];
    want.sort_unstable();
    want.dedup();
    let or = BoundPredicate::or_all([
        eq(&s, "k", Datum::Int(1)),
        leaf(&s, "k", LeafOp::In(vec![Datum::Int(2), Datum::Int(3)])),
    ]);
    assert_eq!(buckets(&s, D, &or, 100), Some(want));
    // Values are intersected across conjuncts.
    let and = BoundPredicate::and_all([
        leaf(&s, "k", LeafOp::In(vec![Datum::Int(1), Datum::Int(2)])),
        eq(&s, "k", Datum::Int(2)),
    ]);
    assert_eq!(buckets(&s, D, &and, 100), Some(vec![b(2)]));
    let empty = BoundPredicate::And(vec![eq(&s, "k", Datum::Int(1)), eq(&s, "k", Datum::Int(2))]);
    assert_eq!(buckets(&s, D, &empty, 100), Some(vec![]));
}

#[test]
fn cartesian_product_is_capped_at_1000() {
    let s = schema(
        &[("a", TypeKind::Int), ("b", TypeKind::Int)],
        &["a", "b"],
        &[],
    );
    let ints = |n: i32| LeafOp::In((0..n).map(Datum::Int).collect());
    let p = |na, nb| BoundPredicate::and_all([leaf(&s, "a", ints(na)), leaf(&s, "b", ints(nb))]);
    assert!(
        buckets(&s, D, &p(40, 25), 7).is_some(),
        "1000 rows are allowed"
    );
    assert_eq!(buckets(&s, D, &p(40, 26), 7), None);
    let one = schema(&[("k", TypeKind::Int)], &["k"], &[]);
    assert_eq!(buckets(&one, D, &leaf(&one, "k", ints(1001)), 7), None);
}

#[test]
fn mod_bucket_function() {
    let s = schema(&[("k", TypeKind::Int)], &["k"], &[]);
    let m = BucketFunctionType::Mod;
    assert_eq!(
        buckets(&s, m, &eq(&s, "k", Datum::Int(42)), 7),
        Some(vec![0])
    );
    assert_eq!(
        buckets(&s, m, &eq(&s, "k", Datum::Int(-3)), 7),
        Some(vec![4])
    );
    let s = schema(&[("k", TypeKind::BigInt)], &["k"], &[]);
    let v = Datum::BigInt(-4_294_967_297);
    assert_eq!(
        buckets(&s, m, &eq(&s, "k", v), 7),
        Some(vec![(-4_294_967_297i64).rem_euclid(7) as i32])
    );
}

#[test]
fn null_literal_and_null_predicate() {
    let s = schema(&[("k", TypeKind::Int)], &["k"], &[]);
    // `k = NULL` binds to AlwaysFalse: no row can match, so no bucket is needed.
    let p = parse_predicate("k = NULL").unwrap().bind(&s).unwrap();
    assert_eq!(p, BoundPredicate::AlwaysFalse);
    assert_eq!(buckets(&s, D, &p, 8), Some(vec![]));
    // No predicate at all: no selector.
    let o = TableOptions::from_map(&s.options).unwrap();
    assert!(BucketSelector::for_table(&s, &o, None).unwrap().is_none());
}

#[test]
fn activation_follows_bucket_mode() {
    let mut s = schema(&[("k", TypeKind::Int)], &["k"], &[]);
    let p = eq(&s, "k", Datum::Int(1));
    let on = |s: &TableSchema| {
        let o = TableOptions::from_map(&s.options).unwrap();
        BucketSelector::for_table(s, &o, Some(&p))
            .unwrap()
            .is_some()
    };
    assert!(on(&s));
    for (mode, want) in [("-1", false), ("-2", true), ("3", true)] {
        s.options.insert("bucket".into(), mode.into());
        assert_eq!(on(&s), want, "bucket = {mode}");
    }
    s.options
        .insert("bucket-function.type".into(), "hive".into());
    let o = TableOptions::from_map(&s.options).unwrap();
    let sel = BucketSelector::for_table(&s, &o, Some(&p))
        .unwrap()
        .unwrap();
    assert_eq!(sel.function_type(), HIVE);
    // No bucket keys: no selector.
    s.options.shift_remove("bucket-key");
    assert!(BucketSelector::try_new(&s, D, &p).unwrap().is_none());
}

#[test]
fn and_with_extra_predicate_still_works() {
    let s = schema(
        &[("id", TypeKind::Int), ("value", TypeKind::Int)],
        &["id"],
        &[],
    );
    let p = BoundPredicate::and_all([
        eq(&s, "id", Datum::Int(42)),
        leaf(&s, "value", LeafOp::Gt(Datum::Int(100))),
    ]);
    let want = expected(D, &[TypeKind::Int], &[Datum::Int(42)], 9);
    assert_eq!(buckets(&s, D, &p, 9), Some(vec![want]));
}

#[test]
fn hive_bucket_function_with_decimal() {
    let s = schema(&[("i", TypeKind::Int), ("d", dec(10, 2))], &["i", "d"], &[]);
    let d = Datum::Decimal(Decimal {
        unscaled: 12_345,
        precision: 10,
        scale: 2,
    });
    let p = BoundPredicate::and_all([eq(&s, "i", Datum::Int(7)), eq(&s, "d", d.clone())]);
    let want = expected(HIVE, &[TypeKind::Int, dec(10, 2)], &[Datum::Int(7), d], 11);
    assert_eq!(buckets(&s, HIVE, &p, 11), Some(vec![want]));
    // Java HiveBucketFunctionTest: INT 42 with 5 buckets is bucket 2.
    let s = schema(&[("k", TypeKind::Int)], &["k"], &[]);
    assert_eq!(
        buckets(&s, HIVE, &eq(&s, "k", Datum::Int(42)), 5),
        Some(vec![2])
    );
}

fn decimal(unscaled: i128, precision: u32, scale: u32) -> Datum {
    Datum::Decimal(Decimal {
        unscaled,
        precision,
        scale,
    })
}

#[test]
fn rescales_decimal_literals_exactly() {
    for precision in [10, 20] {
        for f in [D, HIVE] {
            let s = schema(&[("d", dec(precision, 2))], &["d"], &[]);
            let stored = expected(f, &[dec(precision, 2)], &[decimal(120, precision, 2)], 17);
            for lit in [decimal(12, 2, 1), decimal(1200, 4, 3), decimal(120, 38, 2)] {
                assert_eq!(
                    buckets(&s, f, &eq(&s, "d", lit.clone()), 17),
                    Some(vec![stored]),
                    "{lit:?} {f} p{precision}"
                );
            }
        }
    }
}

#[test]
fn inexact_decimal_conversion_does_not_prune() {
    let s = schema(&[("d", dec(10, 2))], &["d"], &[]);
    // 0.123 would need rounding; 9999999999 does not fit DECIMAL(10, 2).
    for lit in [decimal(123, 3, 3), decimal(9_999_999_999, 10, 0)] {
        assert_eq!(
            buckets(&s, D, &eq(&s, "d", lit.clone()), 17),
            None,
            "{lit:?}"
        );
    }
    // One bad literal in an IN list disables the conjunct's pruning too.
    let p = leaf(
        &s,
        "d",
        LeafOp::In(vec![decimal(120, 10, 2), decimal(123, 3, 3)]),
    );
    assert_eq!(buckets(&s, D, &p, 17), None);
}

#[test]
fn literal_type_conversion_must_be_exact() {
    let big = ty(TypeKind::BigInt);
    let int = ty(TypeKind::Int);
    assert_eq!(to_key_datum(Datum::Int(5), &big), Some(Datum::BigInt(5)));
    assert_eq!(to_key_datum(Datum::BigInt(5), &int), Some(Datum::Int(5)));
    assert_eq!(to_key_datum(Datum::BigInt(1 << 40), &int), None);
    let float = ty(TypeKind::Float);
    assert_eq!(
        to_key_datum(Datum::Double(0.5), &float),
        Some(Datum::Float(0.5))
    );
    assert_eq!(to_key_datum(Datum::Double(0.1), &float), None);
    assert_eq!(
        to_key_datum(Datum::Int(3), &ty(dec(5, 2))),
        Some(decimal(300, 5, 2))
    );
    assert_eq!(to_key_datum(Datum::String("1".into()), &int), None);
    assert_eq!(to_key_datum(Datum::Int(1), &ty(TypeKind::VarChar(5))), None);
    // An unconvertible literal disables pruning.
    let s = schema(&[("k", TypeKind::Int)], &["k"], &[]);
    assert_eq!(
        buckets(&s, D, &eq(&s, "k", Datum::BigInt(1 << 40)), 8),
        None
    );
    assert_eq!(
        buckets(&s, D, &eq(&s, "k", Datum::String("x".into())), 8),
        None
    );
}

#[test]
fn nan_does_not_prune() {
    let s = schema(
        &[("f", TypeKind::Float), ("d", TypeKind::Double)],
        &["f"],
        &[],
    );
    assert_eq!(
        buckets(&s, D, &eq(&s, "f", Datum::Float(f32::NAN)), 8),
        None
    );
    let payload = f32::from_bits(0x7fc0_0001);
    assert_eq!(
        buckets(&s, HIVE, &eq(&s, "f", Datum::Float(payload)), 8),
        None
    );
    let s = schema(&[("d", TypeKind::Double)], &["d"], &[]);
    assert_eq!(
        buckets(&s, D, &eq(&s, "d", Datum::Double(f64::NAN)), 8),
        None
    );
    let p = leaf(
        &s,
        "d",
        LeafOp::In(vec![Datum::Double(1.0), Datum::Double(f64::NAN)]),
    );
    assert_eq!(buckets(&s, D, &p, 8), None);
}

#[test]
fn signed_zeros_select_both_buckets() {
    // Java golden hashes (paimon-cpp default_bucket_function_test) at 1000 buckets.
    let f = |v: f32| expected(D, &[TypeKind::Float], &[Datum::Float(v)], 1000);
    let d = |v: f64| expected(D, &[TypeKind::Double], &[Datum::Double(v)], 1000);
    assert_eq!((f(0.0), f(-0.0)), (99, 219));
    assert_eq!((d(0.0), d(-0.0)), (99, 119));
    assert_eq!(
        (
            f(f32::INFINITY),
            f(f32::NEG_INFINITY),
            f(f32::from_bits(0x7fc0_0000))
        ),
        (202, 671, 89)
    );
    assert_eq!(
        (d(f64::INFINITY), d(f64::NEG_INFINITY), d(f64::NAN)),
        (404, 840, 697)
    );
    let s = schema(&[("f", TypeKind::Float)], &["f"], &[]);
    for z in [0.0f32, -0.0] {
        assert_eq!(
            buckets(&s, D, &eq(&s, "f", Datum::Float(z)), 1000),
            Some(vec![99, 219])
        );
    }
    let s = schema(&[("d", TypeKind::Double)], &["d"], &[]);
    for z in [0.0f64, -0.0] {
        assert_eq!(
            buckets(&s, D, &eq(&s, "d", Datum::Double(z)), 1000),
            Some(vec![99, 119])
        );
    }
    // Hive hashes both zeros to 0.
    assert_eq!(
        buckets(&s, HIVE, &eq(&s, "d", Datum::Double(-0.0)), 1000),
        Some(vec![0])
    );
}

#[test]
fn unsupported_field_type_is_an_error() {
    let s = schema(
        &[
            ("a", TypeKind::Array(Box::new(ty(TypeKind::Int)))),
            ("k", TypeKind::Int),
        ],
        &["a"],
        &[],
    );
    let p = eq(&s, "k", Datum::Int(1));
    let e = BucketSelector::try_new(&s, D, &p).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    assert!(e.to_string().contains("unsupported field type"), "{e}");
}

#[test]
fn mod_with_multiple_keys_is_an_error() {
    let s = schema(
        &[("a", TypeKind::Int), ("b", TypeKind::Int)],
        &["a", "b"],
        &[],
    );
    let e = BucketSelector::try_new(&s, BucketFunctionType::Mod, &eq(&s, "a", Datum::Int(1)))
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("MOD bucket function requires exactly one bucket key field"),
        "{e}"
    );
}

#[test]
fn each_entry_total_bucket_count_is_used() {
    let s = schema(&[("rowkey", TypeKind::VarChar(100))], &["rowkey"], &[]);
    let key = Datum::String("key".into());
    let mut sel = sel(&s, D, &eq(&s, "rowkey", key.clone()));
    for n in [2, 4, 8, 17] {
        let want = expected(D, &[TypeKind::VarChar(100)], std::slice::from_ref(&key), n);
        let got = sel.select(&[], &[], n).unwrap();
        assert_eq!(
            got.iter().copied().collect::<Vec<_>>(),
            vec![want],
            "total {n}"
        );
    }
    // Nonpositive counts keep every bucket.
    assert!(sel.select(&[], &[], 0).is_none());
    assert!(sel.select(&[], &[], -1).is_none());
}

#[test]
fn partition_columns_are_resolved_per_partition() {
    let s = schema(
        &[("dt", TypeKind::VarChar(10)), ("k", TypeKind::Int)],
        &["k"],
        &["dt"],
    );
    let dt = |v: &str| eq(&s, "dt", Datum::String(v.into()));
    let p = BoundPredicate::or_all([
        BoundPredicate::and_all([dt("a"), eq(&s, "k", Datum::Int(1))]),
        BoundPredicate::and_all([dt("b"), eq(&s, "k", Datum::Int(2))]),
    ]);
    let b = |v: i32| expected(D, &[TypeKind::Int], &[Datum::Int(v)], 64);
    assert_ne!(b(1), b(2), "test needs distinct buckets");
    let mut sel = sel(&s, D, &p);
    let part = |v: &str| {
        let values = vec![Some(Datum::String(v.into()))];
        let bytes = BinaryRow::encode(&values, &[ty(TypeKind::VarChar(10))]).unwrap();
        (bytes.serialize(), values)
    };
    let pick = |sel: &mut BucketSelector, v: &str| {
        let (bytes, values) = part(v);
        let mut out: Vec<i32> = sel
            .select(&bytes, &values, 64)
            .unwrap()
            .iter()
            .copied()
            .collect();
        out.sort_unstable();
        out
    };
    assert_eq!(pick(&mut sel, "a"), vec![b(1)]);
    assert_eq!(pick(&mut sel, "b"), vec![b(2)]);
    assert_eq!(pick(&mut sel, "c"), Vec::<i32>::new());
    let mut both = vec![b(1), b(2)];
    both.sort_unstable();
    let mut any: Vec<i32> = sel
        .select_any_partition(64)
        .unwrap()
        .iter()
        .copied()
        .collect();
    any.sort_unstable();
    assert_eq!(any, both);
}

#[test]
fn historical_schema_compatibility() {
    let cur = schema(
        &[
            ("k", TypeKind::VarChar(100)),
            ("v", TypeKind::Int),
            ("extra", TypeKind::Int),
        ],
        &["k"],
        &[],
    );
    let p = eq(&cur, "k", Datum::String("key".into()));
    let sel = sel(&cur, D, &p);
    // An unrelated column added later: compatible.
    let old = schema(
        &[("k", TypeKind::VarChar(100)), ("v", TypeKind::Int)],
        &["k"],
        &[],
    );
    assert!(sel.compatible_with(&old));
    // Renamed key, same id and type: compatible.
    let renamed = schema(
        &[("k_old", TypeKind::VarChar(100)), ("v", TypeKind::Int)],
        &["k_old"],
        &[],
    );
    assert!(sel.compatible_with(&renamed));
    // Key type differs (STRING vs BINARY): incompatible.
    let binary = schema(
        &[("k", TypeKind::VarBinary(100)), ("v", TypeKind::Int)],
        &["k"],
        &[],
    );
    assert!(!sel.compatible_with(&binary));
    // Key is another field id.
    let other = schema(
        &[("v", TypeKind::Int), ("k", TypeKind::VarChar(100))],
        &["k"],
        &[],
    );
    assert!(!sel.compatible_with(&other));
    // Another bucket function, or another number of keys.
    let mut hive = old.clone();
    hive.options
        .insert("bucket-function.type".into(), "hive".into());
    assert!(!sel.compatible_with(&hive));
    let two = schema(
        &[("k", TypeKind::VarChar(100)), ("v", TypeKind::Int)],
        &["k", "v"],
        &[],
    );
    assert!(!sel.compatible_with(&two));
}

#[test]
fn cross_scale_decimal_query_row_differs_but_selection_is_exact() {
    // paimon-cpp PreservesCrossScaleDecimalMatch: the raw query row 1.2 (scale 1) hashes
    // elsewhere than the stored 1.20; rescaling makes the selection keep the stored file.
    let s = schema(&[("d", dec(10, 2))], &["d"], &[]);
    let raw = expected(D, &[dec(2, 1)], &[decimal(12, 2, 1)], 17);
    let stored = expected(D, &[dec(10, 2)], &[decimal(120, 10, 2)], 17);
    assert_ne!(raw, stored);
    assert_eq!(
        buckets(&s, D, &eq(&s, "d", decimal(12, 2, 1)), 17),
        Some(vec![stored])
    );
}
