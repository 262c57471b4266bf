//! The primary-key global index (pk-btree) read path end to end: Java 2.0-written tables and
//! the pypaimon `pk_dv_btree` table; indexed reads equal reads with
//! `global-index.enabled = false`, the plan narrows where payloads are valid, bad payloads fall
//! back.

use paimon_core::scan::{Plan, SnapshotSelector};
use paimon_core::Table;

use crate::common::*;

const FILTERS: &[&str] = &[
    "score = 0",
    "score = 5",
    "score IN (1, 3, 7)",
    "score < 3",
    "score <= 3",
    "score > 7",
    "score >= 8",
    "score BETWEEN 2 AND 4",
    "score IS NULL",
    "score IS NOT NULL",
    "score = 0 AND id <= 1500",
    "score = 0 OR tag = 'keep'",
    "score = 1 OR score = 2",
    "score = 0 AND tag = 'keep'",
    "score > 5 AND id < 300",
    "score = 42",
    "score <> 3",
    "score NOT IN (0, 1)",
];

/// Plans and reads `filter` at `snapshot`, with the index on or off.
async fn run(path: &str, snapshot: i64, filter: &str, enabled: bool) -> (Plan, Vec<String>) {
    let table = Table::open(path).await.unwrap();
    let scan = table
        .scan()
        .with_filter(filter)
        .unwrap()
        .with_snapshot(SnapshotSelector::Id(snapshot))
        .with_option("global-index.enabled", enabled.to_string())
        .build()
        .unwrap();
    let plan = scan.plan().await.unwrap();
    let rows = json_rows(&scan.reader(), plan.splits.clone())
        .await
        .unwrap();
    (plan, render(&rows))
}

fn narrowed(plan: &Plan) -> usize {
    plan.splits
        .iter()
        .filter(|s| s.as_data().row_ranges.is_some())
        .count()
}

async fn snapshots(path: &str) -> Vec<i64> {
    let table = Table::open(path).await.unwrap();
    let latest = table
        .snapshot_manager()
        .latest_snapshot()
        .await
        .unwrap()
        .unwrap()
        .id;
    (1..=latest).collect()
}

/// Every filter at every snapshot: same rows with and without the index; returns the number of
/// (snapshot, filter) pairs whose plan was narrowed, per snapshot.
async fn same_rows_everywhere(path: &str, filters: &[&str]) -> Vec<(i64, usize)> {
    let mut out = Vec::new();
    for s in snapshots(path).await {
        let mut n = 0;
        for f in filters {
            let (on_plan, on) = run(path, s, f, true).await;
            let (off_plan, off) = run(path, s, f, false).await;
            assert_eq!(on, off, "{path} snapshot {s} `{f}`");
            assert_eq!(narrowed(&off_plan), 0);
            assert_eq!(off_plan.metrics.global_index.skipped, "disabled");
            n += usize::from(narrowed(&on_plan) > 0);
        }
        out.push((s, n));
    }
    out
}

#[tokio::test]
async fn java_pk_btree_e2e_parquet_and_orc() {
    for fmt in ["parquet", "orc"] {
        let path = java_table(&format!("{fmt}/pk_btree_e2e"));
        let narrowed = same_rows_everywhere(&path, FILTERS).await;
        // Snapshots 2, 3 and 5 have valid payloads (C++ HistoricalSnapshotsMixedFilesAndDisabledIndex).
        for s in [2, 3, 5] {
            let n = narrowed.iter().find(|(id, _)| *id == s).unwrap().1;
            assert!(n > 0, "{fmt} snapshot {s} never narrowed: {narrowed:?}");
        }
    }
}

#[tokio::test]
async fn java_pk_btree_e2e_plans() {
    let path = java_table("parquet/pk_btree_e2e");
    // Snapshot 2: only indexed splits, 200 rows selected by `score = 0`.
    let (plan, rows) = run(&path, 2, "score = 0", true).await;
    let m = &plan.metrics.global_index;
    assert_eq!(m.skipped, "");
    assert!(m.payloads_accepted >= 1, "{m:?}");
    assert_eq!(m.payloads_opened, 1, "{m:?}");
    assert_eq!(m.rows_selected, 200, "{m:?}");
    assert_eq!(rows.len(), 200);
    for s in &plan.splits {
        let d = s.as_data();
        assert_eq!(d.files.len(), 1);
        let ranges = d.row_ranges.as_ref().unwrap()[0].as_ref().unwrap();
        assert!(ranges.iter().all(|r| r.end <= d.files[0].row_count as u64));
    }
    // Snapshot 3: the unindexed APPEND-source file is read whole.
    let (plan, _) = run(&path, 3, "score = 0", true).await;
    assert!(narrowed(&plan) > 0);
    assert!(plan.splits.iter().any(|s| s.as_data().row_ranges.is_none()));
    // Snapshot 4: the expected rows with the deletion vectors and the residual predicate.
    let (_, rows) = run(&path, 4, "score = 0 AND id <= 1500", true).await;
    assert_eq!(rows.len(), 148, "{rows:?}");
    assert!(!rows.iter().any(|r| r.starts_with("10, ")));
    // An OR with an unindexed column is not narrowed.
    let (plan, _) = run(&path, 2, "score = 0 OR tag = 'keep'", true).await;
    assert_eq!(narrowed(&plan), 0);
    assert_eq!(plan.metrics.global_index.skipped, "no indexed predicate");
    // An empty result drops every file.
    let (plan, rows) = run(&path, 2, "score = 42", true).await;
    assert!(rows.is_empty());
    assert!(plan.splits.is_empty(), "{:?}", plan.metrics.global_index);
}

#[tokio::test]
async fn java_pk_btree_source_meta_orc() {
    let path = java_table("orc/pk_btree_source_meta");
    let table = Table::open(&path).await.unwrap();
    let cols = column_names(&table);
    let score = cols.iter().find(|c| *c == "score").cloned();
    let Some(score) = score else {
        panic!("no score column in {cols:?}");
    };
    let filters: Vec<String> = ["= 1", "IN (1, 2)", "> 1", "IS NULL", "IS NOT NULL"]
        .iter()
        .map(|f| format!("{score} {f}"))
        .collect();
    let refs: Vec<&str> = filters.iter().map(String::as_str).collect();
    let narrowed = same_rows_everywhere(&path, &refs).await;
    assert!(narrowed.iter().any(|(_, n)| *n > 0), "{narrowed:?}");
}

#[tokio::test]
async fn corrupt_payload_and_source_meta_fall_back() {
    let (_tmp, dir) = java_table_copy("parquet/pk_btree_e2e");
    let path = dir.to_str().unwrap().to_string();
    let (_, want) = run(&path, 2, "score = 0", false).await;
    // Corrupt every payload file: reads fall back and still answer correctly.
    for e in std::fs::read_dir(dir.join("index")).unwrap() {
        let p = e.unwrap().path();
        let mut bytes = std::fs::read(&p).unwrap();
        // Deletion-vector files start with version byte 1; payloads are everything else.
        if bytes.first() != Some(&1) {
            let n = bytes.len();
            for b in &mut bytes[n.saturating_sub(52)..] {
                *b ^= 0x5a;
            }
            std::fs::write(&p, bytes).unwrap();
        }
    }
    let (plan, got) = run(&path, 2, "score = 0", true).await;
    assert_eq!(got, want);
    assert_eq!(narrowed(&plan), 0, "{:?}", plan.metrics.global_index);
}
