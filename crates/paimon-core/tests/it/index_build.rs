//! `build_pk_btree_index`: payloads built by paimon-rs for the latest snapshot's compacted files
//! are accepted by our planner, narrow point and range queries, never change a query's rows,
//! and hold the same keys, row ids and nulls as the writer's own payload wherever the source
//! group is the same (not the same bytes: Java's sort leaves the row ids of one key unordered).

use std::path::Path;

use paimon_core::commit::build_pk_btree_index;
use paimon_core::index::btree::{BTreeIndexReader, Key, KeyType};
use paimon_core::spec::manifest::decode_index_manifest;
use paimon_core::{SnapshotSelector, Table};

use crate::common::{java_table_copy, json_rows, render};
use crate::pypaimon::pypaimon_fixtures;

const FILTERS: &[&str] = &[
    "score = 42",
    "score = 0",
    "score IN (1, 7, 300)",
    "score < 10",
    "score >= 90 AND score < 95",
    "score IS NULL",
    "score = 3 OR score = 77",
    "score = 5 AND id > 100",
];

async fn rows(table: &Table, snapshot: i64, filter: &str, enabled: bool) -> (usize, Vec<String>) {
    let scan = table
        .scan()
        .with_filter(filter)
        .unwrap()
        .with_snapshot(SnapshotSelector::Id(snapshot))
        .with_option("global-index.enabled", enabled.to_string())
        .build()
        .unwrap();
    let plan = scan.plan().await.unwrap();
    assert!(
        plan.metrics.global_index.payloads_rejected.is_empty(),
        "{:?}",
        plan.metrics.global_index
    );
    let narrowed = plan
        .splits
        .iter()
        .filter(|s| s.as_data().row_ranges.is_some())
        .count();
    (
        narrowed,
        render(&json_rows(&scan.reader(), plan.splits).await.unwrap()),
    )
}

/// The index entries of a snapshot, by the index manifest it names.
async fn index_entries(
    table: &Table,
    snapshot: i64,
) -> Vec<paimon_core::spec::manifest::IndexManifestEntry> {
    let s = table.snapshot_manager().snapshot(snapshot).await.unwrap();
    let name = s.index_manifest.unwrap();
    let p = Path::new(table.location()).join("manifest").join(&name);
    decode_index_manifest(&std::fs::read(p).unwrap(), &name).unwrap()
}

/// Every key with its row ids (sorted) and the null rows of a payload over INT keys.
fn content(bytes: &[u8]) -> (Vec<(Key, Vec<u64>)>, Vec<u64>) {
    let r = BTreeIndexReader::from_bytes("payload", bytes.to_vec().into(), KeyType::Int).unwrap();
    let entries = r
        .entries()
        .unwrap()
        .into_iter()
        .map(|mut e| {
            e.row_ids.sort_unstable();
            (e.key, e.row_ids)
        })
        .collect();
    (entries, r.is_null().unwrap().iter().collect())
}

async fn build_and_check(dir: &Path) -> (usize, usize) {
    let table = Table::open(dir.to_str().unwrap()).await.unwrap();
    let before = table
        .snapshot_manager()
        .latest_snapshot_id()
        .await
        .unwrap()
        .unwrap();
    let report = build_pk_btree_index(&table, "score", "paimon-rs-test")
        .await
        .unwrap();
    assert_eq!(report.snapshot_id, before + 1);
    assert!(
        report.payloads > 0 && report.rows > 0 && report.bytes > 0,
        "{report:?}"
    );
    let table = Table::open(dir.to_str().unwrap()).await.unwrap();
    let mut narrowed = 0;
    for f in FILTERS {
        let (n, on) = rows(&table, report.snapshot_id, f, true).await;
        let (_, off) = rows(&table, report.snapshot_id, f, false).await;
        let (_, earlier) = rows(&table, before, f, false).await;
        assert_eq!(on, off, "{} `{f}`", dir.display());
        assert_eq!(
            on,
            earlier,
            "{} `{f}`: the build changed the data",
            dir.display()
        );
        narrowed += usize::from(n > 0);
    }
    // Payloads over the same sources as one the writer built are the same bytes.
    let old = index_entries(&table, before).await;
    let new = index_entries(&table, report.snapshot_id).await;
    assert_eq!(
        new.iter().filter(|e| e.global_index.is_some()).count(),
        report.payloads
            + old
                .iter()
                .filter(|e| e
                    .global_index
                    .as_ref()
                    .is_some_and(|g| g.index_field_id != 1))
                .count()
    );
    assert_eq!(
        new.iter().filter(|e| e.deletion_vectors.is_some()).count(),
        old.iter().filter(|e| e.deletion_vectors.is_some()).count()
    );
    let mut same = 0;
    for n in new.iter().filter(|e| e.global_index.is_some()) {
        let src = |e: &paimon_core::spec::manifest::IndexManifestEntry| {
            e.global_index.as_ref().and_then(|g| g.source_meta.clone())
        };
        if let Some(o) = old
            .iter()
            .find(|o| o.bucket == n.bucket && src(o).is_some() && src(o) == src(n))
        {
            let read = |e: &paimon_core::spec::manifest::IndexManifestEntry| {
                std::fs::read(Path::new(table.location()).join("index").join(&e.file_name)).unwrap()
            };
            assert_eq!(
                content(&read(n)),
                content(&read(o)),
                "payload {} vs {}",
                n.file_name,
                o.file_name
            );
            same += 1;
        }
    }
    (narrowed, same)
}

#[tokio::test]
async fn payloads_built_for_java_pk_btree_tables() {
    for fmt in ["parquet", "orc"] {
        let (_tmp, dir) = java_table_copy(&format!("{fmt}/pk_btree_e2e"));
        let (narrowed, same) = build_and_check(&dir).await;
        assert!(narrowed >= 4, "{fmt}: {narrowed} filters narrowed");
        assert!(
            same > 0,
            "{fmt}: no payload over the same sources as Java's"
        );
    }
}

/// The pypaimon table indexed by paimon-rs is left in `target/indexed` (with a `tables.json`)
/// for `scripts/check-indexed.py`, which has pypaimon narrow its scans with our payloads.
#[tokio::test]
async fn payloads_built_for_the_pypaimon_table() {
    let Some(root) = pypaimon_fixtures() else {
        return;
    };
    let out = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/indexed");
    let _ = std::fs::remove_dir_all(&out);
    let dir = out.join("warehouse/fixtures.db/pk_dv_btree");
    crate::common::copy_dir(&root.join("warehouse/fixtures.db/pk_dv_btree"), &dir);
    let (narrowed, _) = build_and_check(&dir).await;
    assert!(narrowed >= 4, "{narrowed} filters narrowed");
    let index = serde_json::json!({ "tables": [{
        "table": "fixtures.pk_dv_btree",
        "warehouse": out.join("warehouse").to_str().unwrap(),
        "column": "score",
        "values": [0, 7, 42, 77],
    }]});
    std::fs::write(out.join("tables.json"), index.to_string()).unwrap();
}
