//! Crash safety: a commit whose storage fails at each of its puts in turn (merged manifest,
//! base list, delta manifest, delta list, index manifest, snapshot, LATEST) leaves the table
//! readable at the previous snapshot with no partial data and no orphan metadata, and a retry
//! succeeds. A snapshot put that fails before writing, or that writes but loses its
//! acknowledgement, is resolved inside the commit without a second snapshot.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::Arc;

use paimon_core::commit::CommitMessage;
use paimon_core::spec::manifest::{decode_manifest_list, FileKind, IndexManifestEntry};
use paimon_core::spec::snapshot::Snapshot;
use paimon_core::Table;

use crate::commit_util::{all_rows, copies, fixture_copy, manifest_files, splits};
use crate::common::copy_dir;
use crate::fault_store::{FailRule, FailingStore};

async fn open_failing(path: &Path, store: &Arc<FailingStore>) -> Table {
    let opts = HashMap::from([("manifest.merge-min-count".to_string(), "2".to_string())]);
    Table::open_with(store.file_io(), path.to_str().unwrap(), &opts)
        .await
        .unwrap()
}

/// A message replacing the first file of the first split by a copy, with a HASH index file
/// for its bucket (so that the commit writes an index manifest too).
async fn message(table: &Table) -> Vec<CommitMessage> {
    let d = splits(table, None).await.remove(0);
    let one = paimon_core::scan::DataSplit {
        files: vec![d.files[0].clone()],
        ..d.clone()
    };
    let mut m = copies(&[one]).remove(0);
    m.deleted_files = vec![d.files[0].clone()];
    m.new_index_files = vec![IndexManifestEntry {
        kind: FileKind::Add,
        partition: d.partition.clone(),
        bucket: d.bucket,
        index_type: "HASH".into(),
        file_name: format!("index-{}-0", uuid::Uuid::new_v4()),
        file_size: 0,
        row_count: 0,
        deletion_vectors: None,
        external_path: None,
        global_index: None,
    }];
    vec![m]
}

/// The manifest-directory files a snapshot references.
fn referenced(table: &Path, s: &Snapshot) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for list in [&s.base_manifest_list, &s.delta_manifest_list] {
        out.insert(list.clone());
        let bytes = std::fs::read(table.join("manifest").join(list)).unwrap();
        for m in decode_manifest_list(&bytes, list).unwrap() {
            out.insert(m.file_name);
        }
    }
    out.extend(s.index_manifest.clone());
    out
}

fn latest_id(table: &Path) -> i64 {
    let mut ids: Vec<i64> = std::fs::read_dir(table.join("snapshot"))
        .unwrap()
        .filter_map(|e| {
            let n = e.unwrap().file_name().into_string().unwrap();
            n.strip_prefix("snapshot-")?.parse().ok()
        })
        .collect();
    ids.sort();
    *ids.last().unwrap()
}

#[tokio::test]
async fn a_failure_at_each_put_leaves_the_previous_snapshot_and_a_retry_succeeds() {
    let Some(src) = fixture_copy("crash_source", "append_bucketed") else {
        return;
    };
    let want = all_rows(&src).await;
    let tmp = tempfile::tempdir().unwrap();

    // A clean commit, recording its puts.
    let probe = tmp.path().join("probe");
    copy_dir(&src, &probe);
    let store = FailingStore::local();
    let table = open_failing(&probe, &store).await;
    let msgs = message(&table).await;
    store.set_rule(FailRule::Never);
    table
        .new_commit()
        .commit_messages(&msgs, "u")
        .await
        .unwrap();
    let puts = store.puts.lock().unwrap().clone();
    let names: Vec<&str> = puts.iter().map(|p| p.rsplit('/').next().unwrap()).collect();
    let is_manifest = |n: &&&str| n.starts_with("manifest-") && !n.starts_with("manifest-list-");
    assert_eq!(
        names.iter().filter(is_manifest).count(),
        2,
        "merged + delta: {names:?}"
    );
    let lists = names
        .iter()
        .filter(|n| n.starts_with("manifest-list-"))
        .count();
    assert_eq!(lists, 2, "{names:?}");
    assert!(
        names.iter().any(|n| n.starts_with("index-manifest-")),
        "{names:?}"
    );
    // The fixture has no EARLIEST hint: it is written after LATEST.
    assert_eq!(
        names[names.len() - 3..],
        ["snapshot-4", "LATEST", "EARLIEST"]
    );

    for (step, name) in names.iter().enumerate() {
        let path = tmp.path().join(format!("step-{step}"));
        copy_dir(&src, &path);
        let store = FailingStore::local();
        let table = open_failing(&path, &store).await;
        let msgs = message(&table).await;
        let before = latest_id(&path);
        let files_before: BTreeSet<String> = manifest_files(&path).into_iter().collect();
        store.set_rule(FailRule::Nth(step));
        let result = table.new_commit().commit_messages(&msgs, "u").await;
        let files_after: BTreeSet<String> = manifest_files(&path).into_iter().collect();
        if name.starts_with("snapshot-") || *name == "LATEST" || *name == "EARLIEST" {
            // Publish failures are resolved inside the commit; a lost hint is only a hint.
            let s = result.unwrap_or_else(|e| panic!("step {step} ({name}): {e}"));
            assert_eq!(s[0].id, before + 1, "step {step}");
            assert_eq!(latest_id(&path), before + 1);
            let new: BTreeSet<String> = files_after.difference(&files_before).cloned().collect();
            assert_eq!(new, referenced(&path, &s[0]), "step {step}: orphans left");
        } else {
            let e = result.expect_err(name);
            assert!(e.to_string().contains("injected failure"), "{e}");
            assert_eq!(latest_id(&path), before, "step {step} ({name})");
            assert_eq!(
                files_after, files_before,
                "step {step} ({name}): orphans left"
            );
            assert_eq!(all_rows(&path).await, want);
            let s = table
                .new_commit()
                .commit_messages(&msgs, "u")
                .await
                .unwrap();
            assert_eq!(s[0].id, before + 1);
        }
        assert_eq!(all_rows(&path).await, want, "step {step} ({name})");
    }
}

#[tokio::test]
async fn a_lost_acknowledgement_of_the_snapshot_is_recognised() {
    let Some(src) = fixture_copy("crash_ack", "append_bucketed") else {
        return;
    };
    let want = all_rows(&src).await;
    let store = FailingStore::local();
    let table = open_failing(&src, &store).await;
    let msgs = message(&table).await;
    let before = latest_id(&src);
    store.set_rule(FailRule::Matching {
        pattern: "/snapshot/snapshot-".into(),
        after_write: true,
    });
    let s = table
        .new_commit()
        .commit_messages(&msgs, "u")
        .await
        .unwrap();
    assert_eq!(s[0].id, before + 1);
    assert_eq!(latest_id(&src), before + 1, "exactly one new snapshot");
    let snapshot_puts = store
        .puts
        .lock()
        .unwrap()
        .iter()
        .filter(|p| p.contains("/snapshot/snapshot-"))
        .count();
    assert_eq!(snapshot_puts, 1, "no second attempt");
    assert_eq!(all_rows(&src).await, want);
}

#[tokio::test]
async fn a_publish_that_keeps_failing_gives_up_after_the_retries_without_orphans() {
    let Some(src) = fixture_copy("crash_give_up", "append_bucketed") else {
        return;
    };
    let want = all_rows(&src).await;
    let store = FailingStore::local();
    let opts = HashMap::from([
        ("commit.max-retries".to_string(), "2".to_string()),
        ("commit.min-retry-wait".to_string(), "1 ms".to_string()),
    ]);
    let table = Table::open_with(store.file_io(), src.to_str().unwrap(), &opts)
        .await
        .unwrap();
    let msgs = message(&table).await;
    let before = latest_id(&src);
    let files_before = manifest_files(&src);
    store.set_rule(FailRule::Always("/snapshot/snapshot-".into()));
    let e = table
        .new_commit()
        .commit_messages(&msgs, "u")
        .await
        .unwrap_err();
    assert_eq!(e.kind(), paimon_core::ErrorKind::Conflict, "{e}");
    assert!(e.to_string().contains("with 2 retries"), "{e}");
    let attempts = store
        .puts
        .lock()
        .unwrap()
        .iter()
        .filter(|p| p.contains("/snapshot/snapshot-"))
        .count();
    assert_eq!(attempts, 3, "one attempt and two retries");
    assert_eq!(latest_id(&src), before);
    assert_eq!(
        manifest_files(&src),
        files_before,
        "every attempt's files removed"
    );
    assert_eq!(all_rows(&src).await, want);
}
