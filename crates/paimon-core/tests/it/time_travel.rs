//! Snapshot selection: by id, by timestamp, by tag.

use paimon_core::catalog::Table;
use paimon_core::scan::SnapshotSelector;
use paimon_core::ErrorKind;

use crate::common::{java_table_copy, open_java};

async fn plan_at(
    table: &Table,
    s: SnapshotSelector,
) -> paimon_core::Result<paimon_core::scan::Plan> {
    table.scan().with_snapshot(s).build()?.plan().await
}

#[tokio::test]
async fn timestamp_selects_the_latest_snapshot_at_or_before() {
    let table = open_java("parquet/append_09").await;
    let snaps = table.snapshot_manager().snapshots().await.unwrap();
    for s in &snaps {
        let p = plan_at(&table, SnapshotSelector::TimestampMillis(s.time_millis))
            .await
            .unwrap();
        // Snapshots committed in the same millisecond resolve to the last of them.
        let expected = snaps
            .iter()
            .filter(|x| x.time_millis <= s.time_millis)
            .map(|x| x.id)
            .max();
        assert_eq!(p.snapshot_id, expected);
    }
    let first = snaps[0].time_millis;
    let e = plan_at(&table, SnapshotSelector::TimestampMillis(first - 1))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
}

#[tokio::test]
async fn tags_read_as_their_snapshot() {
    // Tables share manifests and data by path: copy everything, then tag snapshot 2.
    let (_dir, t) = java_table_copy("parquet/append_09");
    std::fs::create_dir_all(t.join("tag")).unwrap();
    let snap2 = std::fs::read_to_string(t.join("snapshot/snapshot-2")).unwrap();
    let tagged = snap2.trim_end().trim_end_matches('}').to_string()
        + ",\n  \"tagCreateTime\" : [ 2025, 8, 21, 14, 37, 43, 12000000 ],\n  \"tagTimeRetained\" : 86400.000000000\n}";
    std::fs::write(t.join("tag/tag-release"), tagged).unwrap();
    let table = Table::open(t.to_str().unwrap()).await.unwrap();
    let p = plan_at(&table, SnapshotSelector::Tag("release".into()))
        .await
        .unwrap();
    assert_eq!(p.snapshot_id, Some(2));
    let rows: i64 = p.splits.iter().map(|s| s.as_data().row_count()).sum();
    assert_eq!(rows, 9);
    let e = plan_at(&table, SnapshotSelector::Tag("nope".into()))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert!(e.to_string().contains("release"), "known tags listed: {e}");
}
