//! Unit tests of partial-update sequence groups, aggregates inside partial-update, `collect`,
//! `merge_map`, through the full sort merge.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{
    ArrayRef, Int32Array, Int64Array, Int8Array, ListArray, MapArray, RecordBatch, StringArray,
    StructArray,
};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::DataType as ArrowType;
use futures::StreamExt;
use serde_json::{json, Value};

use super::*;
use crate::arrow::arrow_schema;
use crate::arrow::RecordBatchStream;
use crate::render::batch_to_json_rows;
use crate::spec::types::TypeKind;

/// One record: key, a, b, s1, c, s2, arr, m, kind, sequence number.
#[derive(Clone, Default)]
struct R {
    k: i32,
    a: Option<i32>,
    b: Option<i32>,
    s1: Option<i64>,
    c: Option<i32>,
    s2: Option<i64>,
    arr: Option<Vec<Option<i32>>>,
    m: Option<Vec<(i32, Option<&'static str>)>>,
    kind: i8,
    seq: i64,
}

fn rec(k: i32, seq: i64) -> R {
    R {
        k,
        seq,
        ..R::default()
    }
}

fn fields() -> Vec<DataField> {
    let int = || DataType::nullable(TypeKind::Int);
    let big = || DataType::nullable(TypeKind::BigInt);
    vec![
        DataField::new(0, "k", DataType::not_null(TypeKind::Int)),
        DataField::new(1, "a", int()),
        DataField::new(2, "b", int()),
        DataField::new(3, "s1", big()),
        DataField::new(4, "c", int()),
        DataField::new(5, "s2", big()),
        DataField::new(
            6,
            "arr",
            DataType::nullable(TypeKind::Array(Box::new(int()))),
        ),
        DataField::new(
            7,
            "m",
            DataType::nullable(TypeKind::Map(
                Box::new(DataType::not_null(TypeKind::Int)),
                Box::new(DataType::nullable(TypeKind::VarChar(i32::MAX as u32))),
            )),
        ),
        sequence_number_field(),
        value_kind_field(),
    ]
}

fn list_array(dt: &ArrowType, rows: &[R]) -> ArrayRef {
    let ArrowType::List(f) = dt else { panic!() };
    let lens = rows.iter().map(|r| r.arr.as_ref().map_or(0, Vec::len));
    let values: Int32Array = rows
        .iter()
        .flat_map(|r| r.arr.clone().unwrap_or_default())
        .collect();
    let nulls = NullBuffer::from_iter(rows.iter().map(|r| r.arr.is_some()));
    Arc::new(
        ListArray::try_new(
            f.clone(),
            OffsetBuffer::from_lengths(lens),
            Arc::new(values),
            Some(nulls),
        )
        .unwrap(),
    )
}

fn map_array(dt: &ArrowType, rows: &[R]) -> ArrayRef {
    let ArrowType::Map(f, sorted) = dt else {
        panic!()
    };
    let ArrowType::Struct(kv) = f.data_type() else {
        panic!()
    };
    let entries: Vec<(i32, Option<&str>)> = rows
        .iter()
        .flat_map(|r| r.m.clone().unwrap_or_default())
        .collect();
    let keys: Int32Array = entries.iter().map(|e| Some(e.0)).collect();
    let values: StringArray = entries.iter().map(|e| e.1).collect();
    let s = StructArray::try_new(kv.clone(), vec![Arc::new(keys), Arc::new(values)], None).unwrap();
    let lens = rows.iter().map(|r| r.m.as_ref().map_or(0, Vec::len));
    let nulls = NullBuffer::from_iter(rows.iter().map(|r| r.m.is_some()));
    Arc::new(
        MapArray::try_new(
            f.clone(),
            OffsetBuffer::from_lengths(lens),
            s,
            Some(nulls),
            *sorted,
        )
        .unwrap(),
    )
}

fn batch(rows: &[R]) -> RecordBatch {
    let schema = arrow_schema(&fields()).unwrap();
    let cols: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.k))),
        Arc::new(Int32Array::from_iter(rows.iter().map(|r| r.a))),
        Arc::new(Int32Array::from_iter(rows.iter().map(|r| r.b))),
        Arc::new(Int64Array::from_iter(rows.iter().map(|r| r.s1))),
        Arc::new(Int32Array::from_iter(rows.iter().map(|r| r.c))),
        Arc::new(Int64Array::from_iter(rows.iter().map(|r| r.s2))),
        list_array(schema.field(6).data_type(), rows),
        map_array(schema.field(7).data_type(), rows),
        Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.seq))),
        Arc::new(Int8Array::from_iter_values(rows.iter().map(|r| r.kind))),
    ];
    RecordBatch::try_new(schema, cols).unwrap()
}

fn function(options: &[(&str, &str)]) -> crate::Result<MergeFunction> {
    let map: HashMap<String, String> = options
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let opts = TableOptions::from_map(&map).unwrap();
    MergeFunction::new(&opts, &fields(), &[0], &[])
}

/// Merges runs (one record per run, so every record of a key meets the merge function) and
/// renders the user columns as JSON.
async fn merge(options: &[(&str, &str)], runs: Vec<Vec<R>>) -> crate::Result<Vec<Value>> {
    let f = function(options)?;
    let schema = arrow_schema(&fields()).unwrap();
    let streams: Vec<RecordBatchStream> = runs
        .iter()
        .map(|r| futures::stream::iter(vec![Ok(batch(r))]).boxed())
        .collect();
    let layout = Layout {
        key: vec![0],
        user_seq: vec![],
        user_seq_desc: false,
        seqnum: 8,
        kind: 9,
    };
    let mut m = SortMerge::new(&schema, layout, f, streams, 16)?;
    let mut out = Vec::new();
    while let Some(b) = m.next_batch().await? {
        for mut row in batch_to_json_rows(&b, &fields())? {
            row.remove("_SEQUENCE_NUMBER");
            row.remove("_VALUE_KIND");
            out.push(Value::Object(row));
        }
    }
    Ok(out)
}

/// [`merge`] with every record in a run of its own, in order.
async fn merge_each(options: &[(&str, &str)], records: Vec<R>) -> crate::Result<Vec<Value>> {
    merge(options, records.into_iter().map(|r| vec![r]).collect()).await
}

fn pick(rows: &[Value], cols: &[&str]) -> Vec<Value> {
    rows.iter()
        .map(|r| Value::Array(cols.iter().map(|c| r[*c].clone()).collect()))
        .collect()
}

const GROUPS: [(&str, &str); 3] = [
    ("merge-engine", "partial-update"),
    ("fields.s1.sequence-group", "a"),
    ("fields.s2.sequence-group", "c"),
];

#[tokio::test]
async fn sequence_groups_update_by_their_own_order() {
    let r1 = R {
        a: Some(1),
        b: Some(1),
        s1: Some(10),
        c: Some(1),
        s2: Some(5),
        ..rec(1, 1)
    };
    // Older s1: group (a) untouched; newer s2: c updated; b (no group) overwritten.
    let r2 = R {
        a: Some(2),
        b: Some(2),
        s1: Some(5),
        c: Some(2),
        s2: Some(6),
        ..rec(1, 2)
    };
    // Tie on s1 updates a, even to null; null s2 skips its group; null b keeps b.
    let r3 = R {
        a: None,
        s1: Some(10),
        c: Some(9),
        ..rec(1, 3)
    };
    let got = merge_each(&GROUPS, vec![r1, r2, r3]).await.unwrap();
    assert_eq!(
        pick(&got, &["k", "a", "b", "s1", "c", "s2"]),
        vec![json!([1, null, 2, 10, 2, 6])]
    );
}

#[tokio::test]
async fn multi_field_sequence_compares_lexicographically_with_null_lowest() {
    let opts = [
        ("merge-engine", "partial-update"),
        ("fields.s1,s2.sequence-group", "a"),
    ];
    let r1 = R {
        a: Some(1),
        s1: Some(1),
        ..rec(1, 1)
    };
    let r2 = R {
        a: Some(2),
        s1: Some(1),
        s2: Some(0),
        ..rec(1, 2)
    };
    let r3 = R {
        a: Some(3),
        s1: Some(0),
        s2: Some(9),
        ..rec(1, 3)
    };
    // (1, null) < (1, 0): a null sequence field is the lowest value.
    let r4 = R {
        a: Some(4),
        s1: Some(1),
        ..rec(1, 4)
    };
    let got = merge_each(&opts, vec![r1, r2, r3, r4]).await.unwrap();
    assert_eq!(pick(&got, &["a", "s1", "s2"]), vec![json!([2, 1, 0])]);
}

#[tokio::test]
async fn retracts_null_their_group_when_not_older() {
    let ins = |k| R {
        a: Some(1),
        b: Some(1),
        s1: Some(1),
        c: Some(1),
        s2: Some(1),
        ..rec(k, 1)
    };
    // Key 1: a -D with s1 = 2 nulls group s1 (a), keeps c; the row survives.
    let del = R {
        a: Some(7),
        s1: Some(2),
        kind: 3,
        ..rec(1, 2)
    };
    // Key 2: an older -U changes nothing.
    let old = R {
        a: Some(7),
        s1: Some(0),
        c: Some(1),
        s2: Some(0),
        kind: 1,
        ..rec(2, 2)
    };
    // Key 3: a leading retract initialises the row; the insert then fills it.
    let lead = R {
        a: Some(5),
        b: Some(5),
        s1: Some(1),
        kind: 1,
        ..rec(3, 1)
    };
    let after = R {
        c: Some(3),
        s2: Some(3),
        ..rec(3, 2)
    };
    let got = merge(
        &GROUPS,
        vec![vec![ins(1), ins(2), lead], vec![del, old, after]],
    )
    .await
    .unwrap();
    assert_eq!(
        pick(&got, &["k", "a", "b", "s1", "c", "s2"]),
        vec![
            json!([1, null, 1, 2, 1, 1]),
            json!([2, 1, 1, 1, 1, 1]),
            json!([3, null, 5, 1, 3, 3]),
        ]
    );
}

#[tokio::test]
async fn remove_record_on_sequence_group() {
    let mut opts = GROUPS.to_vec();
    opts.push(("partial-update.remove-record-on-sequence-group", "s1"));
    let ins = |k| R {
        a: Some(1),
        s1: Some(1),
        c: Some(1),
        s2: Some(1),
        ..rec(k, 1)
    };
    let del = |k| R {
        a: Some(9),
        b: Some(9),
        s1: Some(2),
        c: Some(7),
        kind: 3,
        ..rec(k, 2)
    };
    // Key 2: an insert after the delete starts from the delete record's values (Java).
    let again = R {
        s1: Some(3),
        ..rec(2, 3)
    };
    // Key 3: a -D of group s2 only (s1 null) does not remove the row.
    let del_s2 = R {
        c: Some(4),
        s2: Some(2),
        kind: 3,
        ..rec(3, 2)
    };
    let got = merge(
        &opts,
        vec![
            vec![ins(1), ins(2), ins(3)],
            vec![del(1), del(2), del_s2],
            vec![again],
        ],
    )
    .await
    .unwrap();
    assert_eq!(
        pick(&got, &["k", "a", "b", "s1", "c", "s2"]),
        vec![
            json!([2, null, 9, 3, 7, null]),
            json!([3, 1, null, 1, null, 2])
        ]
    );
}

#[tokio::test]
async fn aggregates_inside_sequence_groups() {
    let mut opts = GROUPS.to_vec();
    opts.push(("fields.a.aggregate-function", "sum"));
    opts.push(("fields.c.aggregate-function", "first_value"));
    let r1 = R {
        a: Some(1),
        s1: Some(1),
        c: Some(5),
        s2: Some(1),
        ..rec(1, 1)
    };
    // Older s1: sum still adds (aggReversed); newer s2: first_value keeps 5.
    let r2 = R {
        a: Some(2),
        s1: Some(0),
        c: Some(3),
        s2: Some(2),
        ..rec(1, 2)
    };
    // -U of a: sum subtracts (even for the same sequence).
    let r3 = R {
        a: Some(1),
        s1: Some(1),
        kind: 1,
        ..rec(1, 3)
    };
    let got = merge_each(&opts, vec![r1.clone(), r2, r3]).await.unwrap();
    assert_eq!(
        pick(&got, &["a", "s1", "c", "s2"]),
        vec![json!([2, 1, 5, 2])]
    );
    // first_value cannot retract: the Java error, naming the field.
    let r4 = R {
        c: Some(5),
        s2: Some(3),
        kind: 1,
        ..rec(1, 4)
    };
    let err = merge_each(&opts, vec![r1, r4]).await.unwrap_err();
    assert!(
        err.to_string().contains("does not support retraction"),
        "{err}"
    );
    assert!(err.to_string().contains('c'), "{err}");
}

#[test]
fn partial_update_validation_mirrors_java() {
    let pu = ("merge-engine", "partial-update");
    let err = |o: &[(&str, &str)]| function(o).unwrap_err().to_string();
    // An aggregate outside any sequence group.
    assert!(err(&[pu, ("fields.b.aggregate-function", "sum")])
        .contains("Must use sequence group for aggregation functions but not found for field b"));
    // The default function applies to every non-group field.
    let mut o = GROUPS.to_vec();
    o.push(("fields.default-aggregate-function", "max"));
    assert!(err(&o).contains("not found for field b"));
    // last_non_null_value needs no group.
    assert!(function(&[
        pu,
        ("fields.default-aggregate-function", "last_non_null_value")
    ])
    .is_ok());
    assert!(err(&[pu, ("fields.s1.sequence-group", "k")]).contains("primary key field 'k'"));
    assert!(err(&[
        pu,
        ("fields.s1.sequence-group", "a"),
        ("fields.s2.sequence-group", "a")
    ])
    .contains("defined repeatedly"));
    let mut o = GROUPS.to_vec();
    o.push(("partial-update.remove-record-on-delete", "true"));
    assert!(err(&o).contains("conflicting behavior"));
    let mut o = GROUPS.to_vec();
    o.push(("partial-update.remove-record-on-sequence-group", "a"));
    assert!(err(&o).contains("must be part of sequence groups"));
    assert!(err(&[
        pu,
        ("ignore-delete", "true"),
        ("partial-update.remove-record-on-delete", "true")
    ])
    .contains("conflicting behavior"));
}

#[tokio::test]
async fn remove_record_on_delete_restarts_from_the_delete_record() {
    let opts = [
        ("merge-engine", "partial-update"),
        ("partial-update.remove-record-on-delete", "true"),
    ];
    let r1 = R {
        a: Some(1),
        b: Some(1),
        ..rec(1, 1)
    };
    let r2 = R {
        a: Some(2),
        b: Some(8),
        kind: 3,
        ..rec(1, 2)
    };
    let r3 = R {
        a: Some(3),
        ..rec(1, 3)
    };
    let got = merge_each(&opts, vec![r1.clone(), r2.clone(), r3])
        .await
        .unwrap();
    assert_eq!(pick(&got, &["a", "b"]), vec![json!([3, 8])]);
    let got = merge_each(&opts, vec![r1, r2]).await.unwrap();
    assert!(got.is_empty());
}

#[tokio::test]
async fn collect_and_merge_map_with_retracts() {
    let opts = [
        ("merge-engine", "aggregation"),
        ("fields.arr.aggregate-function", "collect"),
        ("fields.m.aggregate-function", "merge_map"),
    ];
    let r1 = R {
        arr: Some(vec![Some(1), Some(2)]),
        m: Some(vec![(1, Some("a")), (2, Some("b"))]),
        ..rec(1, 1)
    };
    let r2 = R {
        arr: Some(vec![Some(2), None]),
        m: Some(vec![(2, Some("c")), (3, None)]),
        ..rec(1, 2)
    };
    let r3 = R {
        arr: None,
        m: None,
        ..rec(1, 3)
    };
    let ret = R {
        arr: Some(vec![Some(2), Some(7)]),
        m: Some(vec![(1, Some("x"))]),
        kind: 1,
        ..rec(1, 4)
    };
    let got = merge_each(&opts, vec![r1.clone(), r2.clone(), r3.clone()])
        .await
        .unwrap();
    assert_eq!(
        pick(&got, &["arr", "m"]),
        vec![json!([[1, 2, 2, null], [[1, "a"], [2, "c"], [3, null]]])]
    );
    let got = merge_each(&opts, vec![r1.clone(), r2.clone(), r3, ret.clone()])
        .await
        .unwrap();
    assert_eq!(
        pick(&got, &["arr", "m"]),
        vec![json!([[1, 2, null], [[2, "c"], [3, null]]])]
    );
    let mut distinct = opts.to_vec();
    distinct.push(("fields.arr.distinct", "true"));
    let got = merge_each(&distinct, vec![r1, r2, ret]).await.unwrap();
    assert_eq!(pick(&got, &["arr"]), vec![json!([[1, null]])]);
}

/// A group of retracts only, with `ignore-retract` fields: those fold nothing (null), the
/// others retract from null (found by the random primary-key tables: this used to fail in
/// `interleave` over zero records).
#[tokio::test]
async fn ignored_retracts_only_leave_null_fields() {
    let opts = [
        ("merge-engine", "aggregation"),
        ("fields.a.aggregate-function", "max"),
        ("fields.a.ignore-retract", "true"),
        ("fields.b.aggregate-function", "sum"),
        ("fields.c.aggregate-function", "sum"),
        ("fields.c.ignore-retract", "true"),
    ];
    let r1 = R {
        a: Some(5),
        b: Some(2),
        c: Some(4),
        kind: 3,
        ..rec(1, 1)
    };
    let r2 = R {
        a: Some(7),
        b: Some(3),
        c: Some(1),
        kind: 1,
        ..rec(1, 2)
    };
    let got = merge_each(&opts, vec![r1, r2]).await.unwrap();
    assert_eq!(
        pick(&got, &["k", "a", "b", "c"]),
        vec![json!([1, null, -5, null])]
    );
}

#[test]
fn wrong_types_are_rejected() {
    let err = |o: &[(&str, &str)]| function(o).unwrap_err().to_string();
    let agg = ("merge-engine", "aggregation");
    assert!(err(&[agg, ("fields.a.aggregate-function", "collect")])
        .contains("Data type for collect column must be 'Array'"));
    assert!(err(&[agg, ("fields.arr.aggregate-function", "merge_map")])
        .contains("Data type for merge map column must be 'MAP'"));
}
