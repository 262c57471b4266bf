//! Spilling primary-key write buffers (`write-buffer-spillable`): a small `write-buffer-size`
//! with many rows gives the same rows as writing without spilling and as a model, one level-0
//! sorted run per bucket instead of one per buffer-full, and no spill files left behind (after
//! a commit, after a failed flush, after a dropped writer).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use paimon_core::spec::manifest::DataFileMeta;
use paimon_core::Table;
use serde_json::{json, Value};

use crate::fault_store::{FailRule, FailingStore};
use crate::write::{batch, create_table, read_sorted, render_sorted, save_expected};

const FIELDS: &[(&str, &str)] = &[
    ("id", "INT NOT NULL"),
    ("a", "STRING"),
    ("b", "BIGINT"),
    ("ts", "INT"),
];

/// Input row `i` (of `n`): keys repeat across the whole input, `ts` is not monotonic, and `a`
/// / `b` are null in alternating rows (partial-update fills them from different rows).
fn line(i: i64) -> Value {
    let id = (i * 7919) % 1500;
    let ts = (i * 31) % 97;
    let a = (i % 3 != 0).then(|| format!("a{i}"));
    let b = (i % 4 != 1).then_some(i);
    json!({"id": id, "a": a, "b": b, "ts": ts})
}

/// The expected rows: per key, the engine's merge of its input rows in arrival order
/// (deduplicate with `sequence.field = ts`: the largest `ts`, the later row on ties).
fn model(engine: &str, n: i64) -> Vec<Value> {
    let mut rows: BTreeMap<i64, Value> = BTreeMap::new();
    for i in 0..n {
        let new = line(i);
        let id = new["id"].as_i64().unwrap();
        let merged = match (engine, rows.get(&id)) {
            (_, None) => new,
            ("deduplicate", Some(old)) => {
                if new["ts"].as_i64() >= old["ts"].as_i64() {
                    new
                } else {
                    old.clone()
                }
            }
            ("partial-update", Some(old)) => {
                let mut m = old.clone();
                for k in ["a", "b", "ts"] {
                    if !new[k].is_null() {
                        m[k] = new[k].clone();
                    }
                }
                m
            }
            (_, Some(old)) => {
                // aggregation: b sum, a last non-null, ts max.
                let mut m = old.clone();
                if !new["a"].is_null() {
                    m["a"] = new["a"].clone();
                }
                m["b"] = match (old["b"].as_i64(), new["b"].as_i64()) {
                    (Some(x), Some(y)) => json!(x + y),
                    (x, y) => json!(x.or(y)),
                };
                m["ts"] = json!(old["ts"].as_i64().max(new["ts"].as_i64()));
                m
            }
        };
        rows.insert(id, merged);
    }
    rows.into_values().collect()
}

fn engine_options(engine: &str) -> Vec<(&'static str, &'static str)> {
    match engine {
        "deduplicate" => vec![("sequence.field", "ts")],
        "partial-update" => vec![("merge-engine", "partial-update")],
        _ => vec![
            ("merge-engine", "aggregation"),
            ("fields.b.aggregate-function", "sum"),
            ("fields.ts.aggregate-function", "max"),
        ],
    }
}

/// Writes rows `0..n` in batches of 400 into a new table and commits once; returns the files.
async fn write_table(
    name: &str,
    engine: &str,
    extra: &[(&str, &str)],
    spill_dir: &Path,
    n: i64,
) -> (Table, Vec<DataFileMeta>) {
    let mut options = vec![("bucket", "2"), ("write-buffer-size", "32 kb")];
    options.extend(engine_options(engine));
    options.extend(extra.iter().copied());
    let t = create_table(name, FIELDS, &[], &["id"], &options).await;
    let mut write = t
        .new_write()
        .with_commit_user("spill")
        .with_spill_dir(spill_dir)
        .build()
        .unwrap();
    let lines: Vec<Value> = (0..n).map(line).collect();
    let mut spilled = false;
    for chunk in lines.chunks(400) {
        write.write(&batch(&t, chunk)).await.unwrap();
        spilled |= count_files(spill_dir) > 0;
    }
    let spillable = !extra.contains(&("write-buffer-spillable", "false"));
    assert_eq!(spilled, spillable, "{name}: spill files while writing");
    let messages = write.prepare_commit().await.unwrap();
    assert_eq!(count_files(spill_dir), 0, "{name}: spill files left");
    t.new_commit()
        .commit_messages(&messages, write.commit_user())
        .await
        .unwrap();
    let files = messages.into_iter().flat_map(|m| m.new_files).collect();
    (t, files)
}

/// Files (not directories) under `dir`, recursively.
fn count_files(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| match e.path().is_dir() {
                    true => count_files(&e.path()),
                    false => 1,
                })
                .sum()
        })
        .unwrap_or(0)
}

#[tokio::test]
async fn spilled_buffers_merge_into_one_level0_run_per_bucket() {
    let n = 12_000;
    for engine in ["deduplicate", "partial-update", "aggregation"] {
        let dir = tempfile::tempdir().unwrap();
        let name = format!("spill_{}", engine.replace('-', "_"));
        let (spilled, files) = write_table(&name, engine, &[], dir.path(), n).await;
        let (plain, plain_files) = write_table(
            &format!("{name}_off"),
            engine,
            &[("write-buffer-spillable", "false")],
            dir.path(),
            n,
        )
        .await;
        let expected = batch(&spilled, &model(engine, n));
        let want = render_sorted(&spilled, std::slice::from_ref(&expected));
        save_expected(&spilled, &[expected]);
        let got = read_sorted(Path::new(spilled.location())).await;
        assert_eq!(got.len(), 1500, "{engine}");
        assert_eq!(got, want, "{engine}: spilled table vs model");
        assert_eq!(
            read_sorted(Path::new(plain.location())).await,
            want,
            "{engine}: unspilled table vs model"
        );
        // One sorted run per bucket: each key once, in 2 files (no rolling at 128 mb).
        assert_eq!(files.len(), 2, "{engine}: {} files", files.len());
        assert_eq!(files.iter().map(|f| f.row_count).sum::<i64>(), 1500);
        assert!(files.iter().all(|f| f.level == 0));
        // Without spilling every buffer-full became a level-0 run of its own.
        assert!(
            plain_files.len() > 10,
            "{engine}: {} unspilled files",
            plain_files.len()
        );
    }
}

#[tokio::test]
async fn one_more_run_than_the_fan_in_flushes_level0_files_instead() {
    let dir = tempfile::tempdir().unwrap();
    let n = 12_000;
    let (t, files) = write_table(
        "spill_fan_in",
        "deduplicate",
        &[("local-sort.max-num-file-handles", "3")],
        dir.path(),
        n,
    )
    .await;
    let want = render_sorted(&t, &[batch(&t, &model("deduplicate", n))]);
    assert_eq!(read_sorted(Path::new(t.location())).await, want);
    // At most 2 spilled runs + the buffer per merge: more runs than with unlimited handles,
    // fewer than without spilling.
    assert!(files.len() > 2, "{} files", files.len());
}

#[tokio::test]
async fn spill_files_are_removed_after_a_failed_flush_and_a_dropped_writer() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = vec![("bucket", "2"), ("write-buffer-size", "32 kb")];
    options.extend(engine_options("partial-update"));
    let t = create_table("spill_failing", FIELDS, &[], &["id"], &options).await;
    let store = FailingStore::local();
    let failing = Table::open_with(store.file_io(), t.location(), &HashMap::new())
        .await
        .unwrap();
    let lines: Vec<Value> = (0..8000).map(line).collect();
    // A data-file put fails at the final merge: an error, and no spill file left.
    let mut write = failing
        .new_write()
        .with_spill_dir(dir.path())
        .build()
        .unwrap();
    for chunk in lines.chunks(400) {
        write.write(&batch(&t, chunk)).await.unwrap();
    }
    assert!(count_files(dir.path()) > 0);
    store.set_rule(FailRule::Always("bucket-".into()));
    assert!(write.prepare_commit().await.is_err());
    assert_eq!(count_files(dir.path()), 0);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    // A writer dropped before its commit removes its spill directories.
    store.set_rule(FailRule::Never);
    let mut write = failing
        .new_write()
        .with_spill_dir(dir.path())
        .build()
        .unwrap();
    for chunk in lines.chunks(400) {
        write.write(&batch(&t, chunk)).await.unwrap();
    }
    assert!(count_files(dir.path()) > 0);
    drop(write);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
