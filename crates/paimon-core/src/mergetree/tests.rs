//! Property tests of the sort merge against a model map, for every merge engine.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type};
use arrow_array::{Array, ArrayRef, Int32Array, Int64Array, Int8Array, RecordBatch};
use futures::StreamExt;
use proptest::prelude::*;

use super::*;
use crate::arrow::arrow_schema;
use crate::arrow::RecordBatchStream;
use crate::spec::types::TypeKind;

/// (key, value, retract, sequence number)
pub(super) type Rec = (i32, Option<i64>, bool, i64);

pub(super) fn fields() -> Vec<DataField> {
    vec![
        DataField::new(0, "k", DataType::not_null(TypeKind::Int)),
        DataField::new(1, "v", DataType::nullable(TypeKind::BigInt)),
        sequence_number_field(),
        value_kind_field(),
    ]
}

pub(super) fn layout() -> Layout {
    Layout {
        key: vec![0],
        user_seq: vec![],
        user_seq_desc: false,
        seqnum: 2,
        kind: 3,
    }
}

pub(super) fn run_stream(recs: Vec<Rec>, chunk: usize) -> RecordBatchStream {
    let schema = arrow_schema(&fields()).unwrap();
    let batches: Vec<crate::Result<RecordBatch>> = recs
        .chunks(chunk.max(1))
        .map(|c| {
            let cols: Vec<ArrayRef> = vec![
                Arc::new(Int32Array::from_iter_values(c.iter().map(|r| r.0))),
                Arc::new(Int64Array::from_iter(c.iter().map(|r| r.1))),
                Arc::new(Int64Array::from_iter_values(c.iter().map(|r| r.3))),
                Arc::new(Int8Array::from_iter_values(c.iter().map(|r| {
                    if r.2 {
                        3
                    } else {
                        0
                    }
                }))),
            ];
            Ok(RecordBatch::try_new(schema.clone(), cols).unwrap())
        })
        .collect();
    futures::stream::iter(batches).boxed()
}

async fn merge(
    runs: &[Vec<Rec>],
    options: &[(&str, &str)],
    batch: usize,
) -> Vec<(i32, Option<i64>)> {
    let map: HashMap<String, String> = options
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let opts = TableOptions::from_map(&map).unwrap();
    let function = MergeFunction::new(&opts, &fields(), &[0], &[]).unwrap();
    let schema = arrow_schema(&fields()).unwrap();
    let streams = runs.iter().map(|r| run_stream(r.clone(), batch)).collect();
    let mut m = SortMerge::new(&schema, layout(), function, streams, batch).unwrap();
    let mut out = Vec::new();
    while let Some(b) = m.next_batch().await.unwrap() {
        assert!(b.num_rows() <= batch.max(1));
        let k = b.column(0).as_primitive::<Int32Type>();
        let v = b.column(1).as_primitive::<Int64Type>();
        for i in 0..b.num_rows() {
            out.push((k.value(i), v.is_valid(i).then(|| v.value(i))));
        }
    }
    out
}

/// The expected rows: per key, records sorted by sequence number, then the engine's rule.
fn model(runs: &[Vec<Rec>], engine: &str) -> Vec<(i32, Option<i64>)> {
    let mut by_key: BTreeMap<i32, Vec<Rec>> = BTreeMap::new();
    for r in runs.iter().flatten() {
        by_key.entry(r.0).or_default().push(*r);
    }
    let mut out = Vec::new();
    for (k, mut recs) in by_key {
        recs.sort_by_key(|r| r.3);
        if recs.len() == 1 {
            if !recs[0].2 {
                out.push((k, recs[0].1));
            }
            continue;
        }
        if let Some(v) = engine_value(&recs, engine) {
            out.push((k, v));
        }
    }
    out
}

/// What `engine` makes of the records of one key (ascending; no lone-record shortcut):
/// `None` when no row is emitted.
pub(super) fn engine_value(recs: &[Rec], engine: &str) -> Option<Option<i64>> {
    let adds: Vec<&Rec> = recs.iter().filter(|r| !r.2).collect();
    match engine {
        "deduplicate" => recs.last().filter(|r| !r.2).map(|r| r.1),
        "first-row" => adds.first().map(|r| r.1),
        // Java initialises the row from a leading retract (even with ignore-delete).
        "partial-update" => (!adds.is_empty()).then(|| {
            let base = if recs[0].2 { recs[0].1 } else { None };
            adds.iter().rev().find_map(|r| r.1).or(base)
        }),
        _ => {
            let vals: Vec<i64> = recs
                .iter()
                .filter_map(|r| r.1.map(|v| if r.2 { -v } else { v }))
                .collect();
            Some((!vals.is_empty()).then(|| vals.iter().sum()))
        }
    }
}

fn runs_strategy() -> impl Strategy<Value = Vec<Vec<Rec>>> {
    proptest::collection::vec(
        proptest::collection::btree_map(
            0i32..40,
            (proptest::option::of(-50i64..50), any::<bool>(), 0i64..1000),
            0..25,
        ),
        1..5,
    )
    .prop_map(|runs| {
        runs.into_iter()
            .enumerate()
            .map(|(i, m)| {
                m.into_iter()
                    .map(|(k, (v, del, s))| (k, v, del, s * 8 + i as i64))
                    .collect()
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn merge_equals_model_for_every_engine(runs in runs_strategy(), batch in 1usize..6) {
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let cases: [(&str, Vec<(&str, &str)>); 4] = [
            ("deduplicate", vec![]),
            ("first-row", vec![("merge-engine", "first-row"), ("ignore-delete", "true")]),
            ("partial-update", vec![("merge-engine", "partial-update"), ("ignore-delete", "true")]),
            ("aggregation", vec![("merge-engine", "aggregation"), ("fields.v.aggregate-function", "sum")]),
        ];
        for (engine, opts) in cases {
            let got = rt.block_on(merge(&runs, &opts, batch));
            prop_assert_eq!(got, model(&runs, engine), "{}", engine);
        }
    }
}

#[tokio::test]
async fn retracts_and_unsupported_aggregates() {
    let runs = vec![vec![(1, Some(5), false, 1)], vec![(1, Some(7), true, 2)]];
    // partial-update without ignore-delete rejects a retract
    let map: HashMap<String, String> =
        [("merge-engine".to_string(), "partial-update".to_string())].into();
    let opts = TableOptions::from_map(&map).unwrap();
    let f = MergeFunction::new(&opts, &fields(), &[0], &[]).unwrap();
    let schema = arrow_schema(&fields()).unwrap();
    let streams = runs.iter().map(|r| run_stream(r.clone(), 4)).collect();
    let mut m = SortMerge::new(&schema, layout(), f, streams, 4).unwrap();
    assert!(m.next_batch().await.is_err());
    // remove-record-on-delete deletes the row
    let got = merge(
        &runs,
        &[
            ("merge-engine", "partial-update"),
            ("partial-update.remove-record-on-delete", "true"),
        ],
        4,
    )
    .await;
    assert!(got.is_empty());
    let map: HashMap<String, String> = [
        ("merge-engine".to_string(), "aggregation".to_string()),
        (
            "fields.v.aggregate-function".to_string(),
            "hll_sketch".to_string(),
        ),
    ]
    .into();
    let err = MergeFunction::new(&TableOptions::from_map(&map).unwrap(), &fields(), &[0], &[])
        .unwrap_err();
    assert!(err
        .to_string()
        .contains("unsupported aggregate function 'hll_sketch'"));
    // max / listagg-free selection functions
    let runs = vec![
        vec![(1, Some(5), false, 1)],
        vec![(1, None, false, 2)],
        vec![(1, Some(3), false, 3)],
    ];
    for (f, want) in [
        ("max", Some(5)),
        ("min", Some(3)),
        ("first_value", Some(5)),
        ("last_value", Some(3)),
        ("product", Some(15)),
    ] {
        let got = merge(
            &runs,
            &[
                ("merge-engine", "aggregation"),
                ("fields.v.aggregate-function", f),
            ],
            4,
        )
        .await;
        assert_eq!(got, vec![(1, want)], "{f}");
    }
}

/// A single BIGINT key is compared as `i64` values (no `arrow-row`): order by value across
/// negative and wide values, a null key first, equal keys merged, stretches split at the
/// other run's head.
#[tokio::test]
async fn bigint_key_orders_by_value_with_null_first() {
    let fields = vec![
        DataField::new(0, "k", DataType::nullable(TypeKind::BigInt)),
        DataField::new(1, "v", DataType::nullable(TypeKind::BigInt)),
        sequence_number_field(),
        value_kind_field(),
    ];
    let schema = arrow_schema(&fields).unwrap();
    let batch = |keys: Vec<Option<i64>>, vals: Vec<i64>, seq: i64| {
        let n = keys.len();
        let cols: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(keys)),
            Arc::new(Int64Array::from(vals)),
            Arc::new(Int64Array::from(vec![seq; n])),
            Arc::new(Int8Array::from(vec![0i8; n])),
        ];
        let b: crate::Result<RecordBatch> = Ok(RecordBatch::try_new(schema.clone(), cols).unwrap());
        futures::stream::iter(vec![b]).boxed()
    };
    let wide = 1i64 << 40;
    let a = batch(
        vec![None, Some(-5), Some(3), Some(wide)],
        vec![1, 2, 3, 4],
        1,
    );
    let b = batch(
        vec![Some(-7), Some(3), Some(4), Some(wide + 1)],
        vec![5, 6, 7, 8],
        2,
    );
    let opts = TableOptions::from_map(&HashMap::new()).unwrap();
    let function = MergeFunction::new(&opts, &fields, &[0], &[]).unwrap();
    let mut m = SortMerge::new(&schema, layout(), function, vec![a, b], 16).unwrap();
    let mut out = Vec::new();
    while let Some(b) = m.next_batch().await.unwrap() {
        let k = b.column(0).as_primitive::<Int64Type>();
        let v = b.column(1).as_primitive::<Int64Type>();
        for i in 0..b.num_rows() {
            out.push((k.is_valid(i).then(|| k.value(i)), v.value(i)));
        }
    }
    let expected = vec![
        (None, 1),
        (Some(-7), 5),
        (Some(-5), 2),
        (Some(3), 6),
        (Some(4), 7),
        (Some(wide), 4),
        (Some(wide + 1), 8),
    ];
    assert_eq!(out, expected);
}
