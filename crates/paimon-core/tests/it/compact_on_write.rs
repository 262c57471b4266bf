//! Compaction on write (`write-only = false`, Java's default): `prepare_commit` compacts the
//! written buckets as Java's batch writer does, and the commit makes an `APPEND` and a
//! `COMPACT` snapshot. Deletion-vector and first-row tables are written directly: their
//! level-0 files are compacted away at each commit, so batch reads (which skip level 0)
//! return the model's rows after every commit.
//!
//! The final tables stay under `target/written/warehouse/written.db/on_write_*` with their
//! expected rows, so `scripts/check-written.py` has pypaimon read them.

use std::collections::BTreeMap;
use std::path::Path;

use arrow_array::RecordBatch;
use futures::TryStreamExt;
use paimon_core::spec::snapshot::CommitKind;
use paimon_core::{RowKind, Table};
use proptest::prelude::*;
use serde_json::{json, Value};

use crate::compact_universal::live_files;
use crate::write::{batch, create_table, render_sorted, save_expected};

/// `(id, a, b, delete)`.
type Row = (i32, Option<String>, Option<i64>, bool);
type Model = BTreeMap<i32, (Option<String>, Option<i64>)>;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Engine {
    Deduplicate,
    PartialUpdate,
    Aggregation,
    FirstRow,
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
            Engine::FirstRow => {
                model.entry(*id).or_insert((a.clone(), *b));
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
    render_sorted(t, &[model_batch(t, model)])
}

fn model_batch(t: &Table, model: &Model) -> RecordBatch {
    let lines: Vec<Value> = model
        .iter()
        .map(|(id, (a, b))| json!({"id": id, "a": a, "b": b}))
        .collect();
    batch(t, &lines)
}

async fn table(name: &str, engine: Engine, extra: &[(&str, &str)]) -> Table {
    let mut options = vec![("bucket", "2"), ("target-file-size", "2 kb")];
    options.extend_from_slice(extra);
    match engine {
        Engine::Deduplicate => {}
        Engine::FirstRow => options.push(("merge-engine", "first-row")),
        Engine::PartialUpdate => options.push(("merge-engine", "partial-update")),
        Engine::Aggregation => {
            options.push(("merge-engine", "aggregation"));
            options.push(("fields.b.aggregate-function", "sum"));
        }
    }
    let t = create_table(
        name,
        &[("id", "INT NOT NULL"), ("a", "STRING"), ("b", "BIGINT")],
        &[],
        &["id"],
        &options,
    )
    .await;
    let _ = std::fs::remove_file(Path::new(t.location()).with_extension("expected.parquet"));
    t
}

/// Writes and commits `rows`; returns the kinds of the snapshots the commit made.
async fn write_rows(t: &Table, rows: &[Row], options: &[(&str, &str)]) -> Vec<CommitKind> {
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
    let mut builder = t.new_write().with_commit_user("on-write");
    for (k, v) in options {
        builder = builder.with_option(*k, *v);
    }
    let mut write = builder.build().unwrap();
    write
        .write_with_kinds(&batch(&t, &lines), &kinds)
        .await
        .unwrap();
    let messages = write.prepare_commit().await.unwrap();
    let snapshots = t
        .new_commit()
        .commit_messages(&messages, write.commit_user())
        .await
        .unwrap();
    snapshots.iter().map(|s| s.commit_kind).collect()
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

async fn run(name: &str, engine: Engine, extra: &[(&str, &str)], writes: &[Vec<Row>]) {
    let t = table(name, engine, extra).await;
    let mut model = Model::new();
    for rows in writes {
        let kinds = write_rows(&t, rows, &[]).await;
        apply(&mut model, engine, rows);
        // Readers of these tables skip level 0: every commit compacts it away.
        assert_eq!(
            kinds,
            vec![CommitKind::Append, CommitKind::Compact],
            "{name}"
        );
        let files = live_files(&t).await;
        assert!(files.iter().all(|f| f.level > 0), "{name}: {files:?}");
        assert_eq!(
            read(&t).await,
            model_rows(&t, &model),
            "{name} after {rows:?}"
        );
    }
    // pypaimon 2.1.0 decodes only 32-bit vectors.
    let bitmap64 = extra.contains(&("deletion-vectors.bitmap64", "true"));
    if !model.is_empty() && !bitmap64 {
        save_expected(&t, &[model_batch(&t, &model)]);
    }
}

fn writes(deletes: bool) -> impl Strategy<Value = Vec<Vec<Row>>> {
    let row = (
        0i32..50,
        prop::option::of("[a-z]{1,8}"),
        prop::option::of(-100i64..100),
        prop::bool::weighted(if deletes { 0.25 } else { 0.0 }),
    );
    prop::collection::vec(prop::collection::vec(row, 1..60), 1..7)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn dv(bitmap64: bool) -> Vec<(&'static str, &'static str)> {
    let mut o = vec![("deletion-vectors.enabled", "true")];
    if bitmap64 {
        o.push(("deletion-vectors.bitmap64", "true"));
    }
    o
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4, ..ProptestConfig::default() })]

    #[test]
    fn dv_tables_written_directly_deduplicate(w in writes(true), b64 in any::<bool>()) {
        runtime().block_on(run("on_write_dv_dedup", Engine::Deduplicate, &dv(b64), &w));
    }

    #[test]
    fn dv_tables_written_directly_partial_update(w in writes(false), b64 in any::<bool>()) {
        runtime().block_on(run("on_write_dv_partial", Engine::PartialUpdate, &dv(b64), &w));
    }

    #[test]
    fn dv_tables_written_directly_aggregation(w in writes(false), b64 in any::<bool>()) {
        runtime().block_on(run("on_write_dv_agg", Engine::Aggregation, &dv(b64), &w));
    }

    #[test]
    fn first_row_tables_written_directly(w in writes(false)) {
        runtime().block_on(run("on_write_first_row", Engine::FirstRow, &[], &w));
    }
}

/// A plain table compacts once it has `num-sorted-run.compaction-trigger` sorted runs;
/// `write-only` keeps every level-0 file.
#[tokio::test]
async fn universal_compaction_on_write_triggers_at_the_run_count() {
    for write_only in [false, true] {
        let name = format!("on_write_trigger_{write_only}");
        let t = table(&name, Engine::Deduplicate, &[("bucket", "1")]).await;
        let options: Vec<(&str, &str)> = match write_only {
            true => vec![("write-only", "true")],
            false => vec![],
        };
        let mut model = Model::new();
        let mut kinds = Vec::new();
        for i in 0..6 {
            let rows: Vec<Row> = (0..20)
                .map(|k| {
                    (
                        k * (i + 1) % 37,
                        Some(format!("w{i}")),
                        Some(i64::from(k)),
                        k % 9 == 4,
                    )
                })
                .collect();
            kinds.push(write_rows(&t, &rows, &options).await);
            apply(&mut model, Engine::Deduplicate, &rows);
            assert_eq!(read(&t).await, model_rows(&t, &model), "{name} write {i}");
        }
        let append = vec![CommitKind::Append];
        let both = vec![CommitKind::Append, CommitKind::Compact];
        let levels: Vec<i32> = live_files(&t).await.iter().map(|f| f.level).collect();
        if write_only {
            assert!(kinds.iter().all(|k| k == &append), "{kinds:?}");
            assert_eq!(levels, vec![0; 6]);
        } else {
            // Four runs, then the fifth triggers (equal sizes: size amplification).
            assert_eq!(kinds[..4], vec![append.clone(); 4]);
            assert_eq!(kinds[4], both);
            assert!(levels.iter().any(|l| *l > 0), "{levels:?}");
        }
    }
}
