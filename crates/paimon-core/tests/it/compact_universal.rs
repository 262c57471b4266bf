//! Universal compaction of primary-key tables without deletion vectors (`table.compact()`
//! without `full`, Java `UniversalCompaction` + `MergeTreeCompactTask`): random workloads of
//! upserts, deletes, partial updates and aggregates with compactions at random points read
//! as the model after every step; a fixed workload shows an upgrade (same file, new level),
//! retractions kept below the highest level and dropped at the top.

use std::collections::BTreeMap;

use arrow_array::RecordBatch;
use futures::TryStreamExt;
use paimon_core::spec::manifest::DataFileMeta;
use paimon_core::{RowKind, Table};
use proptest::prelude::*;
use serde_json::{json, Value};

use crate::write::{batch, create_table, render_sorted};

/// `(id, a, b, delete)`.
type Row = (i32, Option<String>, Option<i64>, bool);
type Model = BTreeMap<i32, (Option<String>, Option<i64>)>;

#[derive(Debug, Clone, Copy)]
enum Engine {
    Deduplicate,
    PartialUpdate,
    Aggregation,
}

#[derive(Debug, Clone)]
enum Step {
    Write(Vec<Row>),
    Compact { full: bool },
}

fn apply(model: &mut Model, engine: Engine, rows: &[Row]) {
    for (id, a, b, delete) in rows {
        match engine {
            Engine::Deduplicate if *delete => {
                model.remove(id);
            }
            Engine::Deduplicate => {
                model.insert(*id, (a.clone(), *b));
            }
            Engine::PartialUpdate => {
                let slot = model.entry(*id).or_insert((None, None));
                slot.0 = a.clone().or(slot.0.take());
                slot.1 = b.or(slot.1);
            }
            Engine::Aggregation => {
                let slot = model.entry(*id).or_insert((None, None));
                slot.0 = a.clone().or(slot.0.take());
                if let Some(b) = b {
                    slot.1 = Some(slot.1.unwrap_or(0) + b);
                }
            }
        }
    }
}

fn model_rows(t: &Table, model: &Model) -> Vec<String> {
    if model.is_empty() {
        return Vec::new();
    }
    let lines: Vec<Value> = model
        .iter()
        .map(|(id, (a, b))| json!({"id": id, "a": a, "b": b}))
        .collect();
    render_sorted(t, &[batch(t, &lines)])
}

async fn table(name: &str, engine: Engine, extra: &[(&str, &str)]) -> Table {
    let mut options = vec![("bucket", "2"), ("target-file-size", "2 kb")];
    options.extend_from_slice(extra);
    match engine {
        Engine::Deduplicate => {}
        Engine::PartialUpdate => options.push(("merge-engine", "partial-update")),
        Engine::Aggregation => {
            options.push(("merge-engine", "aggregation"));
            options.push(("fields.b.aggregate-function", "sum"));
        }
    }
    create_table(
        name,
        &[("id", "INT NOT NULL"), ("a", "STRING"), ("b", "BIGINT")],
        &[],
        &["id"],
        &options,
    )
    .await
}

async fn write_rows(t: &Table, rows: &[Row]) {
    let lines: Vec<Value> = rows
        .iter()
        .map(|(id, a, b, _)| json!({"id": id, "a": a, "b": b}))
        .collect();
    let kinds: Vec<RowKind> = rows
        .iter()
        .map(|r| match r.3 {
            true => RowKind::Delete,
            false => RowKind::Insert,
        })
        .collect();
    let t = Table::open(t.location()).await.unwrap();
    let mut write = t
        .new_write()
        .with_option("write-only", "true")
        .build()
        .unwrap();
    write
        .write_with_kinds(&batch(&t, &lines), &kinds)
        .await
        .unwrap();
    let messages = write.prepare_commit().await.unwrap();
    t.new_commit()
        .commit_messages(&messages, write.commit_user())
        .await
        .unwrap();
}

async fn read(t: &Table) -> Vec<String> {
    let t = Table::open(t.location()).await.unwrap();
    let batches: Vec<RecordBatch> = t
        .scan()
        .build()
        .unwrap()
        .to_arrow()
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    render_sorted(&t, &batches)
}

/// Live files of the latest snapshot.
pub(crate) async fn live_files(t: &Table) -> Vec<DataFileMeta> {
    let plan = crate::common::merge_on_read_plan(t).await;
    plan.splits
        .iter()
        .flat_map(|s| s.as_data().files.clone())
        .collect()
}

async fn run(name: &str, engine: Engine, extra: &[(&str, &str)], steps: &[Step]) -> Vec<i32> {
    let t = table(name, engine, extra).await;
    let mut model = Model::new();
    let mut seen_levels = Vec::new();
    for step in steps {
        match step {
            Step::Write(rows) => {
                write_rows(&t, rows).await;
                apply(&mut model, engine, rows);
            }
            Step::Compact { full } => {
                let t = Table::open(t.location()).await.unwrap();
                t.compact().full(*full).execute().await.unwrap();
                seen_levels.extend(live_files(&t).await.iter().map(|f| f.level));
            }
        }
        assert_eq!(
            read(&t).await,
            model_rows(&t, &model),
            "{name} after {step:?}"
        );
    }
    seen_levels.sort_unstable();
    seen_levels.dedup();
    seen_levels
}

fn steps(deletes: bool) -> impl Strategy<Value = Vec<Step>> {
    let row = (
        0i32..60,
        prop::option::of("[a-z]{1,8}"),
        prop::option::of(-100i64..100),
        prop::bool::weighted(if deletes { 0.25 } else { 0.0 }),
    );
    let step = prop_oneof![
        4 => prop::collection::vec(row, 1..80).prop_map(Step::Write),
        3 => Just(Step::Compact { full: false }),
        1 => Just(Step::Compact { full: true }),
    ];
    prop::collection::vec(step, 3..14)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn picking(trigger: u8, force_up: bool) -> Vec<(&'static str, &'static str)> {
    let trigger = match trigger {
        0 => "1",
        1 => "2",
        _ => "3",
    };
    vec![
        ("num-sorted-run.compaction-trigger", trigger),
        (
            "compaction.force-up-level-0",
            if force_up { "true" } else { "false" },
        ),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    #[test]
    fn universal_compaction_deduplicate(s in steps(true), tr in 0u8..3, up in any::<bool>()) {
        runtime().block_on(run("compact_universal_dedup", Engine::Deduplicate, &picking(tr, up), &s));
    }

    #[test]
    fn universal_compaction_partial_update(s in steps(false), tr in 0u8..3, up in any::<bool>()) {
        runtime().block_on(run("compact_universal_partial", Engine::PartialUpdate, &picking(tr, up), &s));
    }

    #[test]
    fn universal_compaction_aggregation(s in steps(false), tr in 0u8..3, up in any::<bool>()) {
        runtime().block_on(run("compact_universal_agg", Engine::Aggregation, &picking(tr, up), &s));
    }
}

/// Upgrade, retractions kept below the top level, then dropped at the top.
#[tokio::test]
async fn universal_compaction_upgrades_and_keeps_deletes_below_the_top() {
    let name = "compact_universal_fixed";
    let t = table(
        name,
        Engine::Deduplicate,
        &[("bucket", "1"), ("compaction.force-up-level-0", "true")],
    )
    .await;
    let big: Vec<Row> = (0..400)
        .map(|i| {
            (
                i,
                Some(format!("value-{i:05}-{}", i * 7919 % 1000)),
                Some(i64::from(i)),
                false,
            )
        })
        .collect();
    write_rows(&t, &big).await;
    let first = live_files(&t).await;
    assert_eq!(first.len(), 1);
    // A single large level-0 file without deletes goes to the top level as it is.
    t.compact().execute().await.unwrap();
    let up = live_files(&t).await;
    assert_eq!(up.len(), 1);
    assert_eq!(
        (up[0].file_name.as_str(), up[0].level),
        (first[0].file_name.as_str(), 5)
    );
    assert_eq!(up[0].file_source, first[0].file_source);
    // Deletes merged from two overlapping level-0 files into level 4 (below the top) are
    // kept as -D records.
    let deletes_a: [Row; 2] = [(3, None, None, true), (7, None, None, true)];
    let deletes_b: [Row; 2] = [(3, None, None, true), (9, None, None, true)];
    write_rows(&t, &deletes_a).await;
    write_rows(&t, &deletes_b).await;
    let mut model = Model::new();
    apply(&mut model, Engine::Deduplicate, &big);
    apply(&mut model, Engine::Deduplicate, &deletes_a);
    apply(&mut model, Engine::Deduplicate, &deletes_b);
    let t = Table::open(t.location()).await.unwrap();
    t.compact().execute().await.unwrap();
    let files = live_files(&t).await;
    let mid: Vec<&DataFileMeta> = files.iter().filter(|f| f.level == 4).collect();
    assert_eq!(mid.len(), 1, "{files:?}");
    assert_eq!(mid[0].delete_row_count, Some(3));
    assert_eq!(mid[0].file_source, Some(1), "merged, not upgraded");
    assert_eq!(read(&t).await, model_rows(&t, &model));
    // A full compaction drops them.
    t.compact().full(true).execute().await.unwrap();
    let files = live_files(&t).await;
    assert!(files
        .iter()
        .all(|f| f.level == 5 && f.delete_row_count == Some(0)));
    assert_eq!(files.iter().map(|f| f.row_count).sum::<i64>(), 397);
    assert_eq!(read(&t).await, model_rows(&t, &model));
}
