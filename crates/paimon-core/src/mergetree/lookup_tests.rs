//! Lookup mode (Java `LookupMergeFunction`) against a model: a key group of several records
//! is merged from its records of level <= 0 plus only its record of the lowest level >= 1.

use std::collections::{BTreeMap, HashMap};

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type};
use arrow_array::Array;
use futures::{StreamExt, TryStreamExt};
use proptest::prelude::*;

use super::tests::{engine_value, fields, layout, run_stream, Rec};
use super::*;
use crate::arrow::arrow_schema;

/// Merges `runs` (each with its level) in lookup mode or not.
async fn merge(
    runs: &[(i32, Vec<Rec>)],
    options: &[(&str, &str)],
    lookup: bool,
) -> Vec<(i32, Option<i64>)> {
    let map: HashMap<String, String> = options
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let opts = TableOptions::from_map(&map).unwrap();
    let function = MergeFunction::new(&opts, &fields(), &[0], &[]).unwrap();
    let schema = arrow_schema(&fields()).unwrap();
    let streams = runs
        .iter()
        .map(|(level, r)| {
            let level = *level;
            run_stream(r.clone(), 3)
                .map_ok(move |batch| LevelBatch { batch, level })
                .boxed()
        })
        .collect();
    let mut m = SortMerge::with_levels(&schema, layout(), function, streams, 4)
        .unwrap()
        .with_lookup(lookup);
    let mut out = Vec::new();
    while let Some(b) = m.next_batch().await.unwrap() {
        let k = b.column(0).as_primitive::<Int32Type>();
        let v = b.column(1).as_primitive::<Int64Type>();
        for i in 0..b.num_rows() {
            out.push((k.value(i), v.is_valid(i).then(|| v.value(i))));
        }
    }
    out
}

/// The model: per key, records by sequence number; a lone record unchanged (retracts
/// dropped); else the engine over level <= 0 records plus the first lowest-level >= 1 one.
fn model(runs: &[(i32, Vec<Rec>)], engine: &str) -> Vec<(i32, Option<i64>)> {
    let mut by_key: BTreeMap<i32, Vec<(i32, Rec)>> = BTreeMap::new();
    for (level, run) in runs {
        for r in run {
            by_key.entry(r.0).or_default().push((*level, *r));
        }
    }
    let mut out = Vec::new();
    for (k, mut recs) in by_key {
        recs.sort_by_key(|(_, r)| r.3);
        if let [(_, r)] = recs.as_slice() {
            if !r.2 {
                out.push((k, r.1));
            }
            continue;
        }
        let high = recs.iter().filter(|(l, _)| *l > 0).map(|(l, _)| *l).min();
        let mut seen_high = false;
        let chosen: Vec<Rec> = recs
            .iter()
            .filter(|(l, _)| {
                if *l <= 0 {
                    return true;
                }
                let pick = Some(*l) == high && !seen_high;
                seen_high |= pick;
                pick
            })
            .map(|(_, r)| *r)
            .collect();
        if let Some(v) = engine_value(&chosen, engine) {
            out.push((k, v));
        }
    }
    out
}

fn levelled_runs() -> impl Strategy<Value = Vec<(i32, Vec<Rec>)>> {
    proptest::collection::vec(
        (
            -1i32..6,
            proptest::collection::btree_map(
                0i32..30,
                (proptest::option::of(-50i64..50), any::<bool>(), 0i64..1000),
                0..20,
            ),
        ),
        1..6,
    )
    .prop_map(|runs| {
        runs.into_iter()
            .enumerate()
            .map(|(i, (level, m))| {
                let recs = m
                    .into_iter()
                    .map(|(k, (v, del, s))| (k, v, del, s * 8 + i as i64))
                    .collect();
                (level, recs)
            })
            .collect()
    })
}

const ENGINES: [(&str, &[(&str, &str)]); 3] = [
    ("deduplicate", &[]),
    (
        "partial-update",
        &[
            ("merge-engine", "partial-update"),
            ("ignore-delete", "true"),
        ],
    ),
    (
        "aggregation",
        &[
            ("merge-engine", "aggregation"),
            ("fields.v.aggregate-function", "sum"),
        ],
    ),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn lookup_merge_equals_model(runs in levelled_runs()) {
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        for (engine, opts) in ENGINES {
            let got = rt.block_on(merge(&runs, opts, true));
            prop_assert_eq!(got, model(&runs, engine), "{}", engine);
        }
    }
}

/// A sum whose key sits on levels 5, 3 and 0: lookup mode adds only level 3 (the merged
/// state lookup compaction wrote) and level 0; merging every level double-counts level 5.
#[tokio::test]
async fn deeper_levels_are_shadowed_by_the_lowest_high_level() {
    let runs = vec![
        (5, vec![(1, Some(10), false, 1), (2, Some(7), false, 2)]),
        (3, vec![(1, Some(15), false, 5)]),
        (0, vec![(1, Some(3), false, 9)]),
    ];
    let agg: &[(&str, &str)] = &[
        ("merge-engine", "aggregation"),
        ("fields.v.aggregate-function", "sum"),
    ];
    assert_eq!(
        merge(&runs, agg, true).await,
        vec![(1, Some(18)), (2, Some(7))]
    );
    assert_eq!(
        merge(&runs, agg, false).await,
        vec![(1, Some(28)), (2, Some(7))]
    );
    // Two high levels without level 0: the engine still sees one record (a retract at
    // level 2 is summed, as Java's inner function is called without the lone-record
    // shortcut).
    let runs = vec![
        (4, vec![(1, Some(10), false, 1)]),
        (2, vec![(1, Some(4), true, 3)]),
    ];
    assert_eq!(merge(&runs, agg, true).await, vec![(1, Some(-4))]);
}
