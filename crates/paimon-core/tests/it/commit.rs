//! `TableCommit` on real tables: files removed and added back through new snapshots, with
//! conflicts detected and concurrent commits serialised by the create-if-absent snapshot file.
//! The committed copy is left in `target/committed/removed_and_added` (registered in
//! `target/committed/tables-removed_and_added.json`) for pypaimon to read
//! (`scripts/check-reencoded.py`).

use std::path::Path;

use paimon_core::commit::{CommitChanges, TableCommit, BATCH_COMMIT_IDENTIFIER};
use paimon_core::spec::manifest::{FileKind, ManifestEntry};
use paimon_core::spec::snapshot::CommitKind;
use paimon_core::{ErrorKind, Split, Table};
use serde_json::json;

use crate::commit_util::{fixture_copy, register_for_pypaimon};
use crate::common::{json_rows, read_rows, render, Query};

/// The live files of `table` as entries of `kind`, those of buckets in `buckets` only.
async fn entries(
    table: &Table,
    buckets: &[i32],
    kind: FileKind,
) -> (Vec<ManifestEntry>, Vec<Split>) {
    let plan = table.scan().build().unwrap().plan().await.unwrap();
    let mut out = Vec::new();
    let mut splits = Vec::new();
    for s in plan.splits {
        let d = s.as_data();
        if !buckets.contains(&d.bucket) {
            continue;
        }
        for f in &d.files {
            out.push(ManifestEntry {
                kind,
                partition: d.partition.clone(),
                bucket: d.bucket,
                total_buckets: d.total_buckets,
                file: f.clone(),
            });
        }
        splits.push(s.clone());
    }
    (out, splits)
}

fn changes(entries: Vec<ManifestEntry>, kind: CommitKind) -> CommitChanges {
    let c = CommitChanges::new(entries, kind, "paimon-rs-test");
    assert_eq!(c.commit_identifier, BATCH_COMMIT_IDENTIFIER);
    c
}

fn without(all: &[String], removed: &[String]) -> Vec<String> {
    let mut left = all.to_vec();
    for r in removed {
        let i = left.iter().position(|x| x == r).unwrap();
        left.remove(i);
    }
    left
}

async fn open(path: &Path) -> Table {
    Table::open(path.to_str().unwrap()).await.unwrap()
}

#[tokio::test]
async fn files_removed_and_added_back_through_snapshots() {
    let Some(copy) = fixture_copy("removed_and_added", "append_bucketed") else {
        return;
    };
    let path = copy.to_str().unwrap().to_string();
    let table = open(&copy).await;
    let before = table
        .snapshot_manager()
        .latest_snapshot()
        .await
        .unwrap()
        .unwrap();
    let all = read_rows(&path, Query::default()).await;

    // Remove the files of buckets 0 and 1: their rows disappear, nothing else.
    let (removed, splits) = entries(&table, &[0, 1], FileKind::Delete).await;
    assert!(!removed.is_empty());
    let gone = render(
        &json_rows(&table.scan().build().unwrap().reader(), splits.clone())
            .await
            .unwrap(),
    );
    let s = TableCommit::new(&table)
        .commit(&changes(removed.clone(), CommitKind::Overwrite))
        .await
        .unwrap();
    assert_eq!(s.id, before.id + 1);
    assert_eq!(
        s.total_record_count,
        Some(before.total_record_count.unwrap() - gone.len() as i64)
    );
    assert_eq!(
        table.snapshot_manager().latest_snapshot_id().await.unwrap(),
        Some(s.id)
    );
    let latest_hint = std::fs::read_to_string(copy.join("snapshot/LATEST")).unwrap();
    assert_eq!(latest_hint, s.id.to_string());
    assert_eq!(
        read_rows(&path, Query::default()).await,
        without(&all, &gone)
    );
    // The snapshot before is still readable (time travel).
    let q = Query {
        snapshot: Some(before.id),
        ..Query::default()
    };
    assert_eq!(read_rows(&path, q).await, all);

    // Deleting them again is a conflict, and leaves no snapshot and no stray manifest.
    let manifests = std::fs::read_dir(copy.join("manifest")).unwrap().count();
    let e = TableCommit::new(&table)
        .commit(&changes(removed.clone(), CommitKind::Overwrite))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Conflict, "{e}");
    assert_eq!(
        std::fs::read_dir(copy.join("manifest")).unwrap().count(),
        manifests
    );
    assert_eq!(
        table.snapshot_manager().latest_snapshot_id().await.unwrap(),
        Some(s.id)
    );

    // Two concurrent commits add copies of the files back (new names, as a writer would
    // write them: Paimon never re-adds a deleted file), one bucket each: both land, one after
    // the other, and the table reads as at the start.
    let copy_of = |e: &ManifestEntry| {
        let split = splits
            .iter()
            .map(Split::as_data)
            .find(|d| d.bucket == e.bucket)
            .unwrap();
        let from = split.file_location(&e.file);
        let mut file = e.file.clone();
        file.file_name = format!(
            "data-{}-copy.parquet",
            e.file.file_name.trim_end_matches(".parquet")
        );
        std::fs::copy(&from, split.bucket_path.clone() + "/" + &file.file_name).unwrap();
        ManifestEntry {
            kind: FileKind::Add,
            file,
            ..e.clone()
        }
    };
    let add = |b: i32| {
        removed
            .iter()
            .filter(|e| e.bucket == b)
            .map(copy_of)
            .collect::<Vec<_>>()
    };
    let (c0, c1) = (
        changes(add(0), CommitKind::Append),
        changes(add(1), CommitKind::Append),
    );
    let (w0, w1) = (TableCommit::new(&table), TableCommit::new(&table));
    let (a, b) = tokio::join!(w0.commit(&c0), w1.commit(&c1));
    let mut ids = [a.unwrap().id, b.unwrap().id];
    ids.sort();
    assert_eq!(ids, [s.id + 1, s.id + 2]);
    assert_eq!(read_rows(&path, Query::default()).await, all);
    let last = open(&copy)
        .await
        .snapshot_manager()
        .latest_snapshot()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(last.total_record_count, before.total_record_count);

    register_for_pypaimon("removed_and_added", "append_bucketed", json!({}));
}
