//! Snapshot expiration and orphan clean-up on copies of Java fixture tables: retained snapshots
//! and tags read exactly as before, files only expired snapshots used are gone, a crash at any
//! delete leaves the table readable and a rerun finishes, orphans older than the threshold go.
//! An expired copy is left in `target/expired` (with a `tables.json`) for pypaimon
//! (`scripts/check-reencoded.py target/expired`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use paimon_core::commit::{CommitChanges, TableCommit};
use paimon_core::spec::manifest::{
    decode_index_manifest, decode_manifest, decode_manifest_list, FileKind, ManifestEntry,
};
use paimon_core::spec::snapshot::CommitKind;
use paimon_core::{SnapshotSelector, Table};

use crate::common::{copy_dir, java_table, java_table_copy, json_rows, render};
use crate::fault_store::FailingStore;

const PK_DV: &str = "parquet/pk_09";
/// A deletion-vector table pypaimon 2.1.0 reads (it cannot read `pk_09`'s 0.9 manifests).
const DV_NAME: &str = "pk_table_scan_and_read_dv";
const DV_PYPAIMON: &str = "parquet/pk_table_scan_and_read_dv";

/// Rows of snapshot `id` (or a tag), sorted.
async fn rows_at(table: &Table, at: SnapshotSelector) -> paimon_core::Result<Vec<String>> {
    let scan = table.scan().with_snapshot(at).build()?;
    let plan = scan.plan().await?;
    Ok(render(&json_rows(&scan.reader(), plan.splits).await?))
}

/// Every snapshot id present, ascending.
fn snapshot_ids(root: &Path) -> Vec<i64> {
    let mut ids: Vec<i64> = std::fs::read_dir(root.join("snapshot"))
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_prefix("snapshot-").and_then(|s| s.parse().ok())
        })
        .collect();
    ids.sort_unstable();
    ids
}

/// Relative paths of every file under `root`.
fn all_files(root: &Path) -> BTreeSet<PathBuf> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeSet<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, root, out);
            } else {
                out.insert(p.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(root, root, &mut out);
    out
}

/// File names a snapshot's read needs: data files and deletion-vector files of its plan.
async fn plan_files(table: &Table, at: SnapshotSelector) -> BTreeSet<String> {
    let plan = table
        .scan()
        .with_snapshot(at)
        .build()
        .unwrap()
        .plan()
        .await
        .unwrap();
    let mut out = BTreeSet::new();
    for s in &plan.splits {
        let d = s.as_data();
        for f in &d.files {
            out.insert(f.file_name.clone());
        }
        for dv in d.deletion_files.iter().flatten() {
            out.insert(dv.path.rsplit('/').next().unwrap().to_string());
        }
    }
    out
}

/// Data and index file names live in snapshot `id`, decoded from its manifests directly
/// (independent of expiration's own bookkeeping): adds minus deletes per file identity.
fn live_names(root: &Path, id: i64) -> BTreeSet<String> {
    let read = |name: &str| std::fs::read(root.join("manifest").join(name)).unwrap();
    let snap: serde_json::Value = serde_json::from_slice(
        &std::fs::read(root.join(format!("snapshot/snapshot-{id}"))).unwrap(),
    )
    .unwrap();
    let mut count: BTreeMap<(Vec<u8>, i32, i32, String), i32> = BTreeMap::new();
    for key in ["baseManifestList", "deltaManifestList"] {
        let list = snap[key].as_str().unwrap();
        for m in decode_manifest_list(&read(list), list).unwrap() {
            for e in decode_manifest(&read(&m.file_name), &m.file_name).unwrap() {
                let k = (e.partition, e.bucket, e.file.level, e.file.file_name);
                *count.entry(k).or_default() += if e.kind == FileKind::Add { 1 } else { -1 };
            }
        }
    }
    let mut out: BTreeSet<String> = count
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(k, _)| k.3)
        .collect();
    if let Some(im) = snap["indexManifest"].as_str() {
        for e in decode_index_manifest(&read(im), im).unwrap() {
            out.insert(e.file_name);
        }
    }
    out
}

fn file_names(files: &BTreeSet<PathBuf>) -> BTreeSet<String> {
    files
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect()
}

async fn rows_by_snapshot(table: &Table, ids: &[i64]) -> BTreeMap<i64, Vec<String>> {
    let mut out = BTreeMap::new();
    for &id in ids {
        out.insert(id, rows_at(table, SnapshotSelector::Id(id)).await.unwrap());
    }
    out
}

/// Expires all but the latest `keep` snapshots of a copy of fixture `rel` and checks the
/// result; returns the copy.
async fn expire_and_check(rel: &str, keep: i64) -> (tempfile::TempDir, PathBuf) {
    let (tmp, root) = java_table_copy(rel);
    let table = Table::open(root.to_str().unwrap()).await.unwrap();
    let ids = snapshot_ids(&root);
    let latest = *ids.last().unwrap();
    assert_eq!(ids, (1..=latest).collect::<Vec<_>>());
    let first_kept = latest - keep + 1;
    let before = rows_by_snapshot(&table, &ids).await;
    let files_before = all_files(&root);
    let mut expired_only = BTreeSet::new();
    for id in 1..first_kept {
        expired_only.extend(live_names(&root, id));
    }
    let mut retained = BTreeSet::new();
    for id in first_kept..=latest {
        retained.extend(live_names(&root, id));
        retained.extend(plan_files(&table, SnapshotSelector::Id(id)).await);
    }
    let expired_only: BTreeSet<String> = expired_only.difference(&retained).cloned().collect();
    assert!(
        !expired_only.is_empty(),
        "fixture must have files only old snapshots use"
    );

    let report = table
        .expire_snapshots()
        .retain_min(i32::try_from(keep).unwrap())
        .retain_max(i32::try_from(keep).unwrap())
        .older_than(Duration::ZERO)
        .execute()
        .await
        .unwrap();
    assert_eq!(
        report.expired_snapshots,
        (1..first_kept).collect::<Vec<_>>()
    );
    assert!(report.data_files_deleted > 0 && report.manifest_files_deleted > 0);
    assert!(report.unreadable.is_empty());
    assert_eq!(
        snapshot_ids(&root),
        (first_kept..=latest).collect::<Vec<_>>()
    );
    let earliest = std::fs::read_to_string(root.join("snapshot/EARLIEST")).unwrap();
    assert_eq!(earliest.trim(), first_kept.to_string());

    let table = Table::open(root.to_str().unwrap()).await.unwrap();
    for id in first_kept..=latest {
        let now = rows_at(&table, SnapshotSelector::Id(id)).await.unwrap();
        assert_eq!(
            now, before[&id],
            "snapshot {id} reads differently after expiration"
        );
    }
    let left = file_names(&all_files(&root));
    for f in &retained {
        assert!(
            left.contains(f),
            "{f} is used by a retained snapshot but was deleted"
        );
    }
    for f in &expired_only {
        assert!(
            !left.contains(f),
            "{f} is only used by expired snapshots but was kept"
        );
    }
    assert!(files_before.len() > all_files(&root).len());
    // Nothing more to do: a second run deletes nothing.
    let again = table
        .expire_snapshots()
        .retain_min(i32::try_from(keep).unwrap())
        .older_than(Duration::ZERO)
        .execute()
        .await
        .unwrap();
    assert!(again.expired_snapshots.is_empty());

    (tmp, root)
}

#[tokio::test]
async fn expire_keeps_retained_snapshots_and_deletes_the_rest() {
    expire_and_check(PK_DV, 3).await;
    // Deletion-vector index files kept in the bucket directories; ORC data.
    expire_and_check("parquet/pk_dv_index_in_data_no_external", 1).await;
    expire_and_check("orc/pk_table_scan_and_read_dv", 3).await;
    let (_tmp, root) = expire_and_check(DV_PYPAIMON, 2).await;
    // Left for pypaimon (`scripts/check-reencoded.py target/expired`): the expired copy against
    // the Java original.
    let warehouse = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/expired");
    let _ = std::fs::remove_dir_all(&warehouse);
    copy_dir(&root, &warehouse.join(format!("{DV_NAME}.db/{DV_NAME}")));
    let original = Path::new(&java_table(DV_PYPAIMON))
        .ancestors()
        .nth(2)
        .unwrap()
        .to_path_buf();
    let index = serde_json::json!({ "tables": [{
        "table": format!("{DV_NAME}.{DV_NAME}"),
        "original": original.canonicalize().unwrap(),
        "rewritten": warehouse.canonicalize().unwrap(),
    }] });
    std::fs::write(warehouse.join("tables.json"), index.to_string()).unwrap();
}

#[tokio::test]
async fn time_retention_and_min_are_respected() {
    let (_tmp, root) = java_table_copy(PK_DV);
    let table = Table::open(root.to_str().unwrap()).await.unwrap();
    // Default retention (min 10) keeps all 8.
    let r = table.expire_snapshots().execute().await.unwrap();
    assert!(r.expired_snapshots.is_empty());
    // Every snapshot younger than the retention time: nothing goes, whatever min says.
    let t4 = table
        .snapshot_manager()
        .snapshot(4)
        .await
        .unwrap()
        .time_millis;
    let r = table
        .expire_snapshots()
        .retain_min(1)
        .older_than(Duration::from_secs(3600))
        .now_millis(t4 + 1000)
        .execute()
        .await
        .unwrap();
    // (The fixture's snapshots were committed within seconds, so all are within the hour.)
    assert!(r.expired_snapshots.is_empty(), "{r:?}");
    // Zero retention time, limit 2: two at a time.
    let r = table
        .expire_snapshots()
        .retain_min(1)
        .older_than(Duration::ZERO)
        .max_deletes(2)
        .execute()
        .await
        .unwrap();
    assert_eq!(r.expired_snapshots, vec![1, 2]);
    assert_eq!(snapshot_ids(&root), (3..=8).collect::<Vec<_>>());
    // A retain max of 2 expires beyond the max even when young.
    let r = table
        .expire_snapshots()
        .retain_min(1)
        .retain_max(2)
        .older_than(Duration::from_secs(1_000_000_000))
        .execute()
        .await
        .unwrap();
    assert_eq!(r.expired_snapshots, vec![3, 4, 5, 6]);
    assert!(table
        .expire_snapshots()
        .retain_min(0)
        .execute()
        .await
        .is_err());
}

#[tokio::test]
async fn tagged_snapshot_files_are_kept() {
    let (_tmp, root) = java_table_copy(PK_DV);
    std::fs::create_dir_all(root.join("tag")).unwrap();
    std::fs::copy(root.join("snapshot/snapshot-2"), root.join("tag/tag-t2")).unwrap();
    let table = Table::open(root.to_str().unwrap()).await.unwrap();
    let tag = SnapshotSelector::Tag("t2".into());
    let before = rows_at(&table, tag.clone()).await.unwrap();
    let mut tag_files = plan_files(&table, tag.clone()).await;
    tag_files.extend(live_names(&root, 2));

    // An unreadable tag stops everything: nothing is deleted.
    std::fs::write(root.join("tag/tag-broken"), b"{not json").unwrap();
    let files = all_files(&root);
    let expire = table
        .expire_snapshots()
        .retain_min(1)
        .older_than(Duration::ZERO);
    assert!(expire.execute().await.is_err());
    assert_eq!(all_files(&root), files);
    std::fs::remove_file(root.join("tag/tag-broken")).unwrap();

    let r = table
        .expire_snapshots()
        .retain_min(1)
        .older_than(Duration::ZERO)
        .execute()
        .await
        .unwrap();
    assert_eq!(r.expired_snapshots, (1..=7).collect::<Vec<_>>());
    assert!(r.data_files_deleted > 0);
    let left = file_names(&all_files(&root));
    for f in &tag_files {
        assert!(left.contains(f), "{f} is used by tag t2 but was deleted");
    }
    let table = Table::open(root.to_str().unwrap()).await.unwrap();
    assert_eq!(rows_at(&table, tag).await.unwrap(), before);
}

#[tokio::test]
async fn crash_at_any_delete_leaves_the_table_readable_and_a_rerun_finishes() {
    let (_tmp, pristine) = java_table_copy(PK_DV);
    let table = Table::open(pristine.to_str().unwrap()).await.unwrap();
    let before = rows_by_snapshot(&table, &(1..=8).collect::<Vec<_>>()).await;
    let mut fail_at = 1;
    loop {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("pk_09");
        copy_dir(&pristine, &root);
        let location = root.to_str().unwrap();
        let store = FailingStore::local();
        store.fail_delete(fail_at);
        let io = store.file_io();
        let failing = Table::open_with(io, location, &Default::default())
            .await
            .unwrap();
        let expire = |t: &Table| {
            t.expire_snapshots()
                .retain_min(3)
                .older_than(Duration::ZERO)
        };
        let crashed = expire(&failing).execute().await.is_err();
        // Whatever happened, every retained snapshot reads as before.
        let table = Table::open(location).await.unwrap();
        for id in 6..=8 {
            let now = rows_at(&table, SnapshotSelector::Id(id)).await;
            assert_eq!(
                now.unwrap(),
                before[&id],
                "snapshot {id}, failing delete #{fail_at}"
            );
        }
        let latest = rows_at(&table, SnapshotSelector::Latest).await.unwrap();
        assert_eq!(latest, before[&8]);
        if !crashed {
            break;
        }
        // A rerun without failures finishes the job.
        expire(&table).execute().await.unwrap();
        assert_eq!(
            snapshot_ids(&root),
            vec![6, 7, 8],
            "failing delete #{fail_at}"
        );
        let mut reference = tempfile::tempdir().unwrap().keep();
        reference.push("pk_09");
        copy_dir(&pristine, &reference);
        let clean = Table::open(reference.to_str().unwrap()).await.unwrap();
        expire(&clean).execute().await.unwrap();
        assert_eq!(
            all_files(&root),
            all_files(&reference),
            "rerun after failing delete #{fail_at} left different files"
        );
        let _ = std::fs::remove_dir_all(reference.parent().unwrap());
        fail_at += 1;
    }
    assert!(
        fail_at > 10,
        "expected many deletes, crashed only {fail_at} times"
    );
}

#[tokio::test]
async fn orphans_older_than_the_threshold_are_removed() {
    let (_tmp, root) = java_table_copy(PK_DV);
    let bucket = root.join("f1=10/bucket-0");
    let some_data = std::fs::read_dir(&bucket)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "parquet"))
        .unwrap();
    let stray_data = bucket.join("data-stray-failed-commit-0.parquet");
    std::fs::copy(&some_data, &stray_data).unwrap();
    let stray_manifest = root.join("manifest/manifest-stray-0");
    std::fs::write(&stray_manifest, b"unreferenced").unwrap();
    let stray_elsewhere = root.join("README-not-paimon");
    std::fs::write(&stray_elsewhere, b"x").unwrap();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let threshold = chrono::Utc::now().timestamp_millis();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let young = bucket.join("data-stray-young-0.parquet");
    std::fs::copy(&some_data, &young).unwrap();

    let table = Table::open(root.to_str().unwrap()).await.unwrap();
    let before = rows_by_snapshot(&table, &(1..=8).collect::<Vec<_>>()).await;
    let files = all_files(&root);
    let dry = table
        .remove_orphan_files()
        .older_than_millis(threshold)
        .dry_run(true)
        .execute()
        .await
        .unwrap();
    assert_eq!(dry.orphans.len(), 2, "{:?}", dry.orphans);
    assert_eq!(all_files(&root), files, "a dry run deletes nothing");

    let r = table
        .remove_orphan_files()
        .older_than_millis(threshold)
        .execute()
        .await
        .unwrap();
    let mut expected = vec![
        stray_data.to_str().unwrap().to_string(),
        stray_manifest.to_str().unwrap().to_string(),
    ];
    expected.sort();
    let got: Vec<String> = r
        .orphans
        .iter()
        .map(|l| l.trim_start_matches("file://").to_string())
        .collect();
    assert_eq!(got, expected);
    assert!(!stray_data.exists() && !stray_manifest.exists());
    assert!(young.exists() && stray_elsewhere.exists());
    assert_eq!(
        rows_by_snapshot(&table, &(1..=8).collect::<Vec<_>>()).await,
        before
    );
    // The default threshold (a day) finds nothing in fresh files; a future one is refused.
    assert!(table
        .remove_orphan_files()
        .execute()
        .await
        .unwrap()
        .orphans
        .is_empty());
    let future = chrono::Utc::now().timestamp_millis() + 60_000;
    assert!(table
        .remove_orphan_files()
        .older_than_millis(future)
        .execute()
        .await
        .is_err());
}

/// The live files of `table` as entries of `kind`.
async fn live_entries(table: &Table, kind: FileKind) -> Vec<ManifestEntry> {
    let plan = table.scan().build().unwrap().plan().await.unwrap();
    let mut out = Vec::new();
    for s in &plan.splits {
        let d = s.as_data();
        for f in &d.files {
            out.push(ManifestEntry {
                kind,
                partition: d.partition.clone(),
                bucket: d.bucket,
                total_buckets: d.total_buckets,
                file: f.clone(),
            });
        }
    }
    out
}

async fn commit(table: &Table, entries: Vec<ManifestEntry>) {
    let changes = CommitChanges::new(entries, CommitKind::Overwrite, "expire-test");
    TableCommit::new(table).commit(&changes).await.unwrap();
}

/// A file deleted in an expired snapshot and added back later is kept (Java would delete it:
/// it only looks at the expired deltas).
#[tokio::test]
async fn a_file_removed_then_added_back_is_kept() {
    let (_tmp, root) = java_table_copy("parquet/append_09");
    let table = Table::open(root.to_str().unwrap()).await.unwrap();
    let all = rows_at(&table, SnapshotSelector::Latest).await.unwrap();
    let mut removed = live_entries(&table, FileKind::Delete).await;
    removed.truncate(1);
    commit(&table, removed.clone()).await;
    let mut added = removed.clone();
    added.iter_mut().for_each(|e| e.kind = FileKind::Add);
    commit(&table, added).await;
    let latest = table
        .snapshot_manager()
        .latest_snapshot_id()
        .await
        .unwrap()
        .unwrap();
    let r = table
        .expire_snapshots()
        .retain_min(1)
        .older_than(Duration::ZERO)
        .execute()
        .await
        .unwrap();
    assert_eq!(r.expired_snapshots, (1..latest).collect::<Vec<_>>());
    let table = Table::open(root.to_str().unwrap()).await.unwrap();
    assert_eq!(
        rows_at(&table, SnapshotSelector::Latest).await.unwrap(),
        all
    );
}

/// Expirations racing commits that remove and re-add files never delete a file a snapshot
/// still uses.
#[tokio::test]
async fn expiration_racing_commits_keeps_every_used_file() {
    let (_tmp, root) = java_table_copy("parquet/append_09");
    let location = root.to_str().unwrap().to_string();
    let table = Table::open(&location).await.unwrap();
    let all = rows_at(&table, SnapshotSelector::Latest).await.unwrap();
    let removed = live_entries(&table, FileKind::Delete).await;
    let mut added = removed.clone();
    added.iter_mut().for_each(|e| e.kind = FileKind::Add);
    let writer = {
        let table = table.clone();
        tokio::spawn(async move {
            for _ in 0..6 {
                commit(&table, removed.clone()).await;
                commit(&table, added.clone()).await;
            }
        })
    };
    let expirer = tokio::spawn(async move {
        for _ in 0..12 {
            let t = Table::open(&location).await.unwrap();
            let _ = t
                .expire_snapshots()
                .retain_min(2)
                .older_than(Duration::ZERO)
                .execute()
                .await
                .unwrap();
        }
    });
    writer.await.unwrap();
    expirer.await.unwrap();
    let table = Table::open(root.to_str().unwrap()).await.unwrap();
    for id in snapshot_ids(&root) {
        let rows = rows_at(&table, SnapshotSelector::Id(id)).await.unwrap();
        assert!(rows == all || rows.is_empty(), "snapshot {id} lost rows");
    }
    assert_eq!(
        rows_at(&table, SnapshotSelector::Latest).await.unwrap(),
        all
    );
}

/// An expired snapshot's manifest list that cannot be decoded is kept and reported; the rest
/// of the expiration goes ahead.
#[tokio::test]
async fn an_undecodable_expired_manifest_is_kept_and_reported() {
    let (_tmp, root) = java_table_copy(PK_DV);
    let snap: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root.join("snapshot/snapshot-1")).unwrap()).unwrap();
    let list = snap["deltaManifestList"].as_str().unwrap().to_string();
    std::fs::write(root.join("manifest").join(&list), b"garbage").unwrap();
    let table = Table::open(root.to_str().unwrap()).await.unwrap();
    let before = rows_by_snapshot(&table, &[6, 7, 8]).await;
    let r = table
        .expire_snapshots()
        .retain_min(3)
        .older_than(Duration::ZERO)
        .execute()
        .await
        .unwrap();
    assert_eq!(r.expired_snapshots, vec![1, 2, 3, 4, 5]);
    assert_eq!(r.unreadable.len(), 1, "{:?}", r.unreadable);
    assert_eq!(r.unreadable[0].file, list);
    assert!(root.join("manifest").join(&list).exists());
    assert_eq!(rows_by_snapshot(&table, &[6, 7, 8]).await, before);
}
