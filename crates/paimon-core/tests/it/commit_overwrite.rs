//! OVERWRITE, manifest merging and exactly-once commits on copies of pypaimon fixture tables
//! (`target/committed/<test>`, read back by pypaimon in `scripts/check-reencoded.py`).

use std::collections::HashMap;

use paimon_core::commit::CommitMessage;
use paimon_core::spec::snapshot::CommitKind;
use paimon_core::ErrorKind;
use serde_json::json;

use crate::commit_util::{
    all_rows, copies, fixture_copy, open, register_for_pypaimon, rows_of, splits,
};

const USER: &str = "paimon-rs-commit-test";

fn without(all: &[String], gone: &[String]) -> Vec<String> {
    let mut left = all.to_vec();
    for g in gone {
        let i = left.iter().position(|x| x == g).unwrap();
        left.remove(i);
    }
    left
}

#[tokio::test]
async fn dynamic_overwrite_replaces_only_the_partitions_written() {
    let Some(path) = fixture_copy("overwrite_dynamic", "pk_partitioned") else {
        return;
    };
    let table = open(&path).await;
    let before = table
        .snapshot_manager()
        .latest_snapshot()
        .await
        .unwrap()
        .unwrap();
    let all = all_rows(&path).await;
    let live = splits(&table, None).await;
    let part = live[0].partition.clone();
    let mine: Vec<_> = live
        .iter()
        .filter(|d| d.partition == part)
        .cloned()
        .collect();
    let old_names: Vec<String> = mine
        .iter()
        .flat_map(|d| d.files.iter().map(|f| f.file_name.clone()))
        .collect();

    // Overwriting one partition with copies of its own files reads the same.
    let snaps = table
        .new_commit()
        .overwrite_messages(&copies(&mine), USER, None)
        .await
        .unwrap();
    assert_eq!(snaps.len(), 1);
    assert_eq!(snaps[0].commit_kind, CommitKind::Overwrite);
    assert_eq!(snaps[0].id, before.id + 1);
    assert_eq!(snaps[0].total_record_count, before.total_record_count);
    assert_eq!(all_rows(&path).await, all);
    let now = splits(&open(&path).await, None).await;
    for d in now.iter().filter(|d| d.partition == part) {
        assert!(d.files.iter().all(|f| !old_names.contains(&f.file_name)));
    }
    let other: usize = now
        .iter()
        .filter(|d| d.partition != part)
        .map(|d| d.files.len())
        .sum();
    let other_before: usize = live
        .iter()
        .filter(|d| d.partition != part)
        .map(|d| d.files.len())
        .sum();
    assert_eq!(other, other_before, "other partitions untouched");

    // No new files: nothing is overwritten, no snapshot.
    let none = table
        .new_commit()
        .overwrite_messages(&[], USER, None)
        .await
        .unwrap();
    assert!(none.is_empty());
    register_for_pypaimon("overwrite_dynamic", "pk_partitioned", json!({}));
}

#[tokio::test]
async fn overwrite_with_files_of_an_earlier_snapshot_restores_that_partition() {
    let Some(path) = fixture_copy("overwrite_earlier", "pk_partitioned") else {
        return;
    };
    let table = open(&path).await;
    let latest = splits(&table, None).await;
    let first = splits(&table, Some(1)).await;
    let part = first[0].partition.clone();
    let old: Vec<_> = first
        .iter()
        .filter(|d| d.partition == part)
        .cloned()
        .collect();
    let cur: Vec<_> = latest
        .iter()
        .filter(|d| d.partition == part)
        .cloned()
        .collect();
    let want = {
        let mut v = without(&all_rows(&path).await, &rows_of(&table, &cur).await);
        v.extend(rows_of(&table, &old).await);
        v.sort();
        v
    };
    table
        .new_commit()
        .overwrite_messages(&copies(&old), USER, None)
        .await
        .unwrap();
    assert_eq!(all_rows(&path).await, want);
}

#[tokio::test]
async fn static_overwrite_of_a_partial_partition_spec() {
    let Some(path) = fixture_copy("overwrite_static", "pk_partitioned") else {
        return;
    };
    let stored = open(&path).await;
    let opts = HashMap::from([(
        "dynamic-partition-overwrite".to_string(),
        "false".to_string(),
    )]);
    let table = stored.with_options(&opts).unwrap();
    let before = table
        .snapshot_manager()
        .latest_snapshot()
        .await
        .unwrap()
        .unwrap();
    let live = splits(&table, None).await;
    let (_, region) = live[0]
        .partition_values
        .iter()
        .find(|(k, _)| k == "region")
        .unwrap()
        .clone();
    let region = region.unwrap();
    let gone: Vec<_> = live
        .iter()
        .filter(|d| {
            d.partition_values
                .iter()
                .any(|(k, v)| k == "region" && v.as_deref() == Some(region.as_str()))
        })
        .cloned()
        .collect();
    let gone_rows = rows_of(&table, &gone).await;
    let all = all_rows(&path).await;
    let spec = HashMap::from([("region".to_string(), region.clone())]);

    // A new file outside the spec is refused.
    let outside: Vec<_> = live
        .iter()
        .filter(|d| !gone.iter().any(|g| g.partition == d.partition))
        .take(1)
        .cloned()
        .collect();
    let e = table
        .new_commit()
        .overwrite_messages(&copies(&outside), USER, Some(&spec))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");

    // An empty static overwrite deletes the partitions of the spec.
    let snaps = table
        .new_commit()
        .overwrite_messages(&[], USER, Some(&spec))
        .await
        .unwrap();
    assert_eq!(snaps.len(), 1);
    assert_eq!(snaps[0].commit_kind, CommitKind::Overwrite);
    let removed: i64 = gone
        .iter()
        .flat_map(|d| d.files.iter())
        .map(|f| f.row_count)
        .sum();
    assert_eq!(snaps[0].delta_record_count, Some(-removed));
    assert_eq!(
        snaps[0].total_record_count,
        Some(before.total_record_count.unwrap() - removed)
    );
    assert_eq!(all_rows(&path).await, without(&all, &gone_rows));
    register_for_pypaimon(
        "overwrite_static",
        "pk_partitioned",
        json!({ "region": region }),
    );
}

#[tokio::test]
async fn whole_table_overwrite_of_an_unpartitioned_table() {
    let Some(path) = fixture_copy("overwrite_table", "append_bucketed") else {
        return;
    };
    let table = open(&path).await;
    let live = splits(&table, None).await;
    let keep: Vec<_> = live.iter().filter(|d| d.bucket == 0).cloned().collect();
    let want = rows_of(&table, &keep).await;
    let snaps = table
        .new_commit()
        .overwrite_messages(&copies(&keep), USER, None)
        .await
        .unwrap();
    assert_eq!(snaps[0].commit_kind, CommitKind::Overwrite);
    assert_eq!(all_rows(&path).await, want);
    // Overwriting with nothing empties the table (a snapshot is still written).
    let snaps = table
        .new_commit()
        .overwrite_messages(&[], USER, None)
        .await
        .unwrap();
    assert_eq!(snaps.len(), 1);
    assert_eq!(snaps[0].total_record_count, Some(0));
    assert!(all_rows(&path).await.is_empty());
}

/// One message deleting `d`'s first file and adding a copy of it.
fn replace_first(d: &paimon_core::scan::DataSplit) -> CommitMessage {
    let one = paimon_core::scan::DataSplit {
        files: vec![d.files[0].clone()],
        ..d.clone()
    };
    let mut m = copies(&[one]).remove(0);
    m.deleted_files = vec![d.files[0].clone()];
    m
}

#[tokio::test]
async fn merged_manifests_keep_the_table_readable() {
    let Some(path) = fixture_copy("merged", "append_bucketed") else {
        return;
    };
    let opts = HashMap::from([("manifest.merge-min-count".to_string(), "3".to_string())]);
    let table = open(&path).await.with_options(&opts).unwrap();
    let all = all_rows(&path).await;
    let sm = table.snapshot_manager();
    let mut merged_seen = false;
    for round in 0..6 {
        let live = splits(&table, None).await;
        let d = &live[round % live.len()];
        let prev = sm.latest_snapshot().await.unwrap().unwrap();
        let snaps = table
            .new_commit()
            .commit_messages(&[replace_first(d)], USER)
            .await
            .unwrap();
        assert_eq!(
            snaps[0].commit_kind,
            CommitKind::Overwrite,
            "deletes make it OVERWRITE"
        );
        let s = &snaps[0];
        assert_eq!(s.total_record_count, prev.total_record_count);
        assert_eq!(s.delta_record_count, Some(0));
        let base = list(&path, &s.base_manifest_list);
        let inputs = [
            list(&path, &prev.base_manifest_list),
            list(&path, &prev.delta_manifest_list),
        ]
        .concat();
        if base.iter().any(|m| !inputs.contains(m)) {
            merged_seen = true;
            // Netting removed the ADD/DELETE pairs: fewer entries than the inputs held.
            assert!(base.len() < inputs.len());
        }
        assert_eq!(all_rows(&path).await, all, "round {round}");
    }
    assert!(merged_seen, "some round merged manifests");
    register_for_pypaimon("merged", "append_bucketed", json!({}));
}

#[tokio::test]
async fn full_compaction_drops_deletes_from_the_base_list() {
    let Some(path) = fixture_copy("full_compacted", "append_bucketed") else {
        return;
    };
    let opts = HashMap::from([(
        "manifest.full-compaction-threshold-size".to_string(),
        "1 b".to_string(),
    )]);
    let table = open(&path).await.with_options(&opts).unwrap();
    let all = all_rows(&path).await;
    let live = splits(&table, None).await;
    table
        .new_commit()
        .commit_messages(&[replace_first(&live[0])], USER)
        .await
        .unwrap();
    let snaps = table
        .new_commit()
        .commit_messages(&[replace_first(&live[1])], USER)
        .await
        .unwrap();
    let base = paimon_core::spec::manifest::decode_manifest_list(
        &std::fs::read(path.join("manifest").join(&snaps[0].base_manifest_list)).unwrap(),
        "base",
    )
    .unwrap();
    assert!(!base.is_empty());
    assert!(base.iter().all(|m| m.num_deleted_files == 0), "{base:?}");
    assert_eq!(all_rows(&path).await, all);
    register_for_pypaimon("full_compacted", "append_bucketed", json!({}));
}

/// The manifest names of a manifest list.
fn list(table: &std::path::Path, name: &str) -> Vec<String> {
    let bytes = std::fs::read(table.join("manifest").join(name)).unwrap();
    paimon_core::spec::manifest::decode_manifest_list(&bytes, name)
        .unwrap()
        .into_iter()
        .map(|m| m.file_name)
        .collect()
}

#[tokio::test]
async fn a_retried_commit_is_applied_once() {
    let Some(path) = fixture_copy("exactly_once", "append_unaware") else {
        return;
    };
    let table = open(&path).await;
    let live = splits(&table, None).await;
    let rows: i64 = live
        .iter()
        .flat_map(|d| d.files.iter())
        .map(|f| f.row_count)
        .sum();
    let before = table
        .snapshot_manager()
        .latest_snapshot()
        .await
        .unwrap()
        .unwrap();
    let total = before.total_record_count.unwrap();
    let c = table.new_commit();
    let msgs = copies(&live);
    let s = c
        .commit_messages_with_identifier(5, &msgs, "job-a")
        .await
        .unwrap();
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].commit_identifier, 5);
    assert_eq!(s[0].commit_user, "job-a");
    // The same identifier again, or an older one: nothing committed.
    assert!(c
        .commit_messages_with_identifier(5, &msgs, "job-a")
        .await
        .unwrap()
        .is_empty());
    assert!(c
        .commit_messages_with_identifier(4, &msgs, "job-a")
        .await
        .unwrap()
        .is_empty());
    assert_eq!(
        c.filter_committed("job-a", &[3, 5, 6, 7]).await.unwrap(),
        [6, 7]
    );
    assert_eq!(c.filter_committed("job-b", &[5]).await.unwrap(), [5]);
    // A later identifier, and another user with the same identifier, are committed.
    let more = copies(&live);
    assert_eq!(
        c.commit_messages_with_identifier(6, &more, "job-a")
            .await
            .unwrap()
            .len(),
        1
    );
    let other = copies(&live);
    assert_eq!(
        c.commit_messages_with_identifier(5, &other, "job-b")
            .await
            .unwrap()
            .len(),
        1
    );
    let last = table
        .snapshot_manager()
        .latest_snapshot()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(last.id, before.id + 3);
    assert_eq!(last.total_record_count, Some(total + 3 * rows));
}

/// An overwrite with an identifier is applied once per user and identifier (a retried
/// `INSERT OVERWRITE` task): the second call commits nothing; without an identifier it commits
/// with the batch identifier, unchecked, as before.
#[tokio::test]
async fn a_retried_overwrite_is_applied_once() {
    let Some(path) = fixture_copy("exactly_once_overwrite", "append_unaware") else {
        return;
    };
    let table = open(&path).await;
    let live = splits(&table, None).await;
    let before = table
        .snapshot_manager()
        .latest_snapshot()
        .await
        .unwrap()
        .unwrap();
    let c = table.new_commit();
    let s = c
        .overwrite_messages_with_identifier(7, &copies(&live), "job-o", None)
        .await
        .unwrap();
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].commit_kind, CommitKind::Overwrite);
    assert_eq!(
        (s[0].commit_user.as_str(), s[0].commit_identifier),
        ("job-o", 7)
    );
    assert_eq!(s[0].id, before.id + 1);
    assert_eq!(s[0].total_record_count, before.total_record_count);
    let again = c
        .overwrite_messages_with_identifier(7, &copies(&live), "job-o", None)
        .await
        .unwrap();
    assert!(again.is_empty(), "{again:?}");
    let unchecked = c
        .overwrite_messages(&copies(&live), "job-o", None)
        .await
        .unwrap();
    assert_eq!(unchecked.len(), 1);
    assert_eq!(unchecked[0].commit_identifier, i64::MAX);
    assert_eq!(unchecked[0].id, before.id + 2);
}

#[tokio::test]
async fn first_snapshot_fields_and_hints_are_javas() {
    let Some(path) = fixture_copy("fresh", "append_unaware") else {
        return;
    };
    let source = open(&path).await;
    let live = splits(&source, None).await;
    let rows: i64 = live
        .iter()
        .flat_map(|d| d.files.iter())
        .map(|f| f.row_count)
        .sum();
    let want = all_rows(&path).await;
    // The same data files, but no snapshot and no manifest yet.
    std::fs::remove_dir_all(path.join("snapshot")).unwrap();
    std::fs::remove_dir_all(path.join("manifest")).unwrap();
    let msgs: Vec<CommitMessage> = live
        .iter()
        .map(|d| {
            let mut m = CommitMessage::new(d.partition.clone(), d.bucket, d.total_buckets);
            m.new_files = d.files.clone();
            m
        })
        .collect();
    let table = open(&path).await;
    assert!(table
        .new_commit()
        .commit_messages(&[], USER)
        .await
        .unwrap()
        .is_empty());
    let s = table
        .new_commit()
        .commit_messages(&msgs, USER)
        .await
        .unwrap()
        .remove(0);
    assert_eq!((s.id, s.version, s.schema_id), (1, 3, 0));
    assert_eq!(s.commit_kind, CommitKind::Append);
    assert_eq!(s.commit_identifier, i64::MAX);
    assert_eq!(
        (s.total_record_count, s.delta_record_count),
        (Some(rows), Some(rows))
    );
    assert_eq!(
        (s.next_row_id, s.watermark, s.index_manifest.clone()),
        (Some(0), None, None)
    );
    assert!(list(&path, &s.base_manifest_list).is_empty());
    assert_eq!(list(&path, &s.delta_manifest_list).len(), 1);
    // Exactly Java 2.0's keys, in its order (no changelog, index or watermark keys here).
    let text = std::fs::read_to_string(path.join("snapshot/snapshot-1")).unwrap();
    let keys: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("  \"")?.split('"').next())
        .collect();
    let java = [
        "version",
        "uuid",
        "id",
        "schemaId",
        "baseManifestList",
        "baseManifestListSize",
        "deltaManifestList",
        "deltaManifestListSize",
        "commitUser",
        "commitIdentifier",
        "commitKind",
        "timeMillis",
        "totalRecordCount",
        "deltaRecordCount",
        "nextRowId",
    ];
    assert_eq!(keys, java, "snapshot keys");
    for hint in ["LATEST", "EARLIEST"] {
        assert_eq!(
            std::fs::read_to_string(path.join("snapshot").join(hint)).unwrap(),
            "1"
        );
    }
    assert_eq!(all_rows(&path).await, want);

    // A watermark is kept by later snapshots, which take the larger one.
    let c = table.new_commit();
    let mut changes = paimon_core::commit::CommitChanges::new(vec![], CommitKind::Append, USER);
    changes.watermark = Some(100);
    assert_eq!(c.commit(&changes).await.unwrap().watermark, Some(100));
    changes.watermark = Some(50);
    assert_eq!(c.commit(&changes).await.unwrap().watermark, Some(100));
    changes.watermark = None;
    let last = c.commit(&changes).await.unwrap();
    assert_eq!((last.id, last.watermark), (4, Some(100)));
    assert_eq!(
        std::fs::read_to_string(path.join("snapshot/EARLIEST")).unwrap(),
        "1"
    );
    register_for_pypaimon("fresh", "append_unaware", json!({}));
}

#[tokio::test]
async fn a_compaction_of_an_overwritten_partition_conflicts() {
    let Some(path) = fixture_copy("overwrite_then_compact", "pk_partitioned") else {
        return;
    };
    let table = open(&path).await;
    let live = splits(&table, None).await;
    let d = live[0].clone();
    // A compaction planned on the current files of one bucket ...
    let mut compact = CommitMessage::new(d.partition.clone(), d.bucket, d.total_buckets);
    compact.compact_before = d.files.clone();
    compact.compact_after = copies(std::slice::from_ref(&d)).remove(0).new_files;
    // ... loses its inputs to an overwrite of the partition committed first.
    let mine: Vec<_> = live
        .iter()
        .filter(|x| x.partition == d.partition)
        .cloned()
        .collect();
    table
        .new_commit()
        .overwrite_messages(&copies(&mine), USER, None)
        .await
        .unwrap();
    let before = table.snapshot_manager().latest_snapshot_id().await.unwrap();
    let e = table
        .new_commit()
        .commit_messages(&[compact], USER)
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Conflict, "{e}");
    let text = e.to_string();
    assert!(text.contains("File deletion conflicts detected"), "{text}");
    assert!(
        text.contains(&d.files[0].file_name) || d.files.iter().any(|f| text.contains(&f.file_name)),
        "{text}"
    );
    assert!(text.contains("dt="), "names the partition: {text}");
    assert!(text.contains(&format!("bucket: {}", d.bucket)), "{text}");
    assert_eq!(
        table.snapshot_manager().latest_snapshot_id().await.unwrap(),
        before
    );
}

#[tokio::test]
async fn overwrite_upgrades_disjoint_level_zero_files_to_the_max_level() {
    // A primary-key table without retraction rows (a raw read of an upgraded file is exact).
    let Some(path) = fixture_copy("overwrite_upgrade", "schema_evolved") else {
        return;
    };
    let table = open(&path).await;
    let live = splits(&table, None).await;
    // One level-0 file per bucket: trivially key-disjoint, so upgraded.
    let mut firsts: Vec<paimon_core::scan::DataSplit> = Vec::new();
    for d in &live {
        if firsts.iter().all(|f| f.bucket != d.bucket) {
            firsts.push(paimon_core::scan::DataSplit {
                files: vec![d.files[0].clone()],
                ..d.clone()
            });
        }
    }
    assert!(firsts.iter().all(|d| d.files[0].level == 0));
    let want = rows_of(&table, &firsts).await;
    let s = table
        .new_commit()
        .overwrite_messages(&copies(&firsts), USER, None)
        .await
        .unwrap();
    assert_eq!(s[0].commit_kind, CommitKind::Overwrite);
    let max = table.options().num_levels() - 1;
    let now = splits(&open(&path).await, None).await;
    assert_eq!(
        now.iter().map(|d| d.files.len()).sum::<usize>(),
        firsts.len()
    );
    for d in &now {
        assert!(d.files.iter().all(|f| f.level == max), "{:?}", d.files);
    }
    assert_eq!(all_rows(&path).await, want);
}

#[tokio::test]
async fn drop_partitions_and_truncate() {
    let Some(path) = fixture_copy("drop_partitions", "pk_partitioned") else {
        return;
    };
    let table = open(&path).await;
    let live = splits(&table, None).await;
    let value = |d: &paimon_core::scan::DataSplit, k: &str| {
        d.partition_values
            .iter()
            .find(|(n, _)| n == k)
            .unwrap()
            .1
            .clone()
            .unwrap()
    };
    let (dt, region) = (value(&live[0], "dt"), value(&live[0], "region"));
    let gone: Vec<_> = live
        .iter()
        .filter(|d| value(d, "dt") == dt && value(d, "region") == region)
        .cloned()
        .collect();
    let want = without(&all_rows(&path).await, &rows_of(&table, &gone).await);
    let spec = HashMap::from([("dt".to_string(), dt), ("region".to_string(), region)]);
    let c = table.new_commit();
    assert!(c.drop_partitions(&[], USER).await.is_err());
    let s = c
        .drop_partitions(std::slice::from_ref(&spec), USER)
        .await
        .unwrap();
    assert_eq!(s.commit_kind, CommitKind::Overwrite);
    assert_eq!(all_rows(&path).await, want);
    register_for_pypaimon(
        "drop_partitions",
        "pk_partitioned",
        json!({ "dt": spec["dt"], "region": spec["region"] }),
    );
}
