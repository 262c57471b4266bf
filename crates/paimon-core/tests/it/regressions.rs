//! End-to-end regressions of bugs seen in a peer reader (apache/paimon-rust):
//!
//! * manifest entries merged by an identity without the level (fixed there without a numbered PR):
//!   a compaction that only upgrades a file commits DELETE(file, level 0) + ADD(file, level 5) of
//!   the same name (Java `FileEntry#mergeEntries` identity includes the level). Java-written
//!   fixture and pypaimon tables from `scripts/gen-regression-tables.py`.
//! * PR #785: Java 64-bit deletion vectors, whose magic is little-endian and whose
//!   recorded length `f2` counts the size prefix and CRC (Java `Bitmap64DeletionVector`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use paimon_core::catalog::Table;
use paimon_core::ErrorKind;

use crate::common::{
    generated_tables, java_table, java_table_copy, plan, read_rows, rows, tables_index,
    try_count_rows, Query,
};
use crate::dv64::{rewrite_as_bitmap64, F2};

fn at(snapshot: i64) -> Query<'static> {
    Query {
        snapshot: Some(snapshot),
        ..Query::default()
    }
}

/// Every (file name → levels it is planned at) of a snapshot; a name planned twice shows twice.
async fn planned_levels(path: &str, snapshot: i64) -> BTreeMap<String, Vec<i32>> {
    let table = Table::open(path).await.unwrap();
    let mut out: BTreeMap<String, Vec<i32>> = BTreeMap::new();
    for split in plan(&table, &at(snapshot)).await.splits {
        for f in &split.as_data().files {
            out.entry(f.file_name.clone()).or_default().push(f.level);
        }
    }
    out
}

/// The Java fixture's COMPACT snapshot 3 upgrades the single file of partition f1=20 (Java
/// order: DELETE(level 0) then ADD(level 5) in one manifest).
#[tokio::test]
async fn java_upgrade_keeps_the_file_at_its_new_level() {
    let t = java_table("parquet/pk_table_scan_and_read_mor");
    let upgraded = "data-7c66dfe2-bec3-4fc2-a952-2d17d6ae91bb-0.parquet";
    assert_eq!(planned_levels(&t, 2).await[upgraded], vec![0]);
    assert_eq!(planned_levels(&t, 3).await[upgraded], vec![5]);
    let got = read_rows(&t, at(3)).await;
    assert_eq!(got, read_rows(&t, at(2)).await);
    assert_eq!(got.len(), 8);
    for name in ["Lucy, 20, 1, 14.1", "Paul, 20, 1, 18.1"] {
        assert_eq!(got.iter().filter(|r| *r == name).count(), 1, "{name}");
    }
}

/// `target/regression-tables` (or `$PAIMON_REGRESSION_TABLES`), or `None` (a failure under
/// CI) when `scripts/gen-regression-tables.py` has not been run.
fn regression_tables() -> Option<PathBuf> {
    generated_tables(
        "PAIMON_REGRESSION_TABLES",
        "regression-tables",
        "tables.json",
        "regression tables",
        "run scripts/test.sh",
    )
}

/// pypaimon tables whose COMPACT snapshot 3 upgrades file A from level 0 to 5, with the ADD
/// before the DELETE (`upgrade_add_first`) and after it (`upgrade_delete_first`). A merger
/// netting by name alone drops A or rejects "added twice"; then ids 0..4 vanish.
#[tokio::test]
async fn pypaimon_upgrade_in_both_entry_orders() {
    let Some(dir) = regression_tables() else {
        return;
    };
    let tables = tables_index(&dir);
    assert_eq!(tables.len(), 2);
    for t in &tables {
        let path = dir.join(t["path"].as_str().unwrap());
        let path = path.to_str().unwrap();
        let file = t["upgraded_file"].as_str().unwrap();
        let snapshots = t["snapshots"].as_object().unwrap();
        assert_eq!(snapshots.len(), 3);
        for (s, want) in snapshots {
            let s: i64 = s.parse().unwrap();
            let ctx = format!("{} @{s}", t["name"]);
            let want_rows: Vec<String> = want["rows"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap().to_string())
                .collect();
            // Exactly once each: a file planned twice would duplicate ids 0..4.
            assert_eq!(read_rows(path, at(s)).await, rows_of(&want_rows), "{ctx}");
            let level = want["upgraded_file_level"].as_i64().unwrap() as i32;
            let levels = planned_levels(path, s).await;
            assert_eq!(levels.get(file), Some(&vec![level]), "{ctx}");
            assert_eq!(levels.len(), if s == 1 { 1 } else { 2 }, "{ctx}");
        }
    }
}

fn rows_of(v: &[String]) -> Vec<String> {
    rows(&v.iter().map(String::as_str).collect::<Vec<_>>())
}

/// A tempdir copy of Java fixture `rel` with its deletion vectors rewritten as 64-bit ones.
fn bitmap64_copy(rel: &str, f2: F2) -> (tempfile::TempDir, String, usize) {
    let (tmp, to) = java_table_copy(rel);
    let vectors = rewrite_as_bitmap64(&to, f2);
    (tmp, to.to_str().unwrap().to_string(), vectors)
}

/// Rows of `parquet/pk_table_with_dv_cardinality` per its README (see `java_pk.rs`).
fn cardinality_rows() -> Vec<String> {
    rows(&[
        "Alex, 10, 0, 16.1",
        "Alice, 10, 1, 19.1",
        "Bob, 10, 0, 12.1",
        "David, 10, 0, 17.1",
        "Emily, 10, 0, 13.1",
        "Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference., 10, 1, 11.0",
        "Whether I shall turn out to be the hero of my own life., 10, 0, 19.1",
    ])
}

#[tokio::test]
async fn java_dv_tables_reencoded_as_bitmap64() {
    let (_tmp, t, vectors) = bitmap64_copy("parquet/pk_table_with_dv_cardinality", F2::Whole);
    assert_eq!(vectors, 2);
    let original = java_table("parquet/pk_table_with_dv_cardinality");
    assert_eq!(read_rows(&t, Query::default()).await, cardinality_rows());
    assert_eq!(
        read_rows(&original, Query::default()).await,
        cardinality_rows()
    );
    // The planned deletion files now carry the 64-bit lengths (4 + L + 4).
    let table = Table::open(&t).await.unwrap();
    let p = plan(&table, &Query::default()).await;
    let mut lengths: Vec<i64> = p
        .splits
        .iter()
        .flat_map(|s| s.as_data().deletion_files.iter().flatten())
        .map(|d| d.length)
        .collect();
    lengths.sort();
    // 32-bit L was 22 (one position) and 24 (two); the 64-bit blob adds 8 (count) + 4 (key)
    // to L, and f2 adds the prefix and CRC: 22 + 12 + 8 and 24 + 12 + 8.
    assert_eq!(lengths, vec![42, 44]);

    let (_tmp2, t, vectors) = bitmap64_copy("parquet/pk_table_scan_and_read_dv", F2::Whole);
    assert_eq!(vectors, 2);
    let original = java_table("parquet/pk_table_scan_and_read_dv");
    for s in 1..=6 {
        let want = read_rows(&original, at(s)).await;
        assert_eq!(read_rows(&t, at(s)).await, want, "@{s}");
    }
    // README: after DELETE Tony and UPDATE_AFTER Alice 19.1 (both hidden by the vectors).
    let latest = read_rows(&t, Query::default()).await;
    assert_eq!(latest.len(), 8);
    assert!(latest.contains(&"Alice, 10, 1, 19.1".to_string()));
    assert!(!latest
        .iter()
        .any(|r| r.starts_with("Tony") || r.contains("11.1")));
}

/// PR #785: `f2` in the 32-bit convention (L) for a 64-bit vector, or a range past the blob,
/// is a typed error naming the index file (Java: "Size not match").
#[tokio::test]
async fn bitmap64_with_wrong_recorded_length_is_a_typed_error() {
    for f2 in [F2::L, F2::PastBlob] {
        let (_tmp, t, _) = bitmap64_copy("parquet/pk_table_with_dv_cardinality", f2);
        let e = try_count_rows(&t).await.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::DataInvalid, "{f2:?}: {e}");
        let msg = e.to_string();
        assert!(
            msg.contains("index-62372b7b") && msg.contains("64-bit"),
            "{f2:?}: {msg}"
        );
    }
}
