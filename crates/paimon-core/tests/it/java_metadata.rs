//! Metadata of Java-written tables: snapshots, plans, errors.

use paimon_core::catalog::Table;
use paimon_core::scan::SnapshotSelector;
use paimon_core::ErrorKind;

use crate::common::{open_java, plan, Query};

#[tokio::test]
async fn plan_counts_match_snapshot_record_counts() {
    for rel in [
        "parquet/append_09",
        "orc/append_09",
        "parquet/append_table_with_alter_table",
    ] {
        let table = open_java(rel).await;
        for s in table.snapshot_manager().snapshots().await.unwrap() {
            let p = plan(
                &table,
                &Query {
                    snapshot: Some(s.id),
                    ..Query::default()
                },
            )
            .await;
            let rows: i64 = p.splits.iter().map(|s| s.as_data().row_count()).sum();
            assert_eq!(Some(rows), s.total_record_count, "{rel} snapshot {}", s.id);
        }
    }
}

#[tokio::test]
async fn partition_and_bucket_pruning_metrics() {
    let table = open_java("parquet/append_09").await;
    let all = plan(&table, &Query::default()).await;
    let p = plan(
        &table,
        &Query {
            filter: Some("f1 = 20"),
            ..Query::default()
        },
    )
    .await;
    assert!(p.metrics.files_skipped_by_partition > 0);
    assert!(p
        .splits
        .iter()
        .all(|s| s.as_data().bucket_path.contains("f1=20")));
    assert!(p.metrics.files_planned < all.metrics.files_planned);
    let ctx = table.scan().with_bucket_filter(0).build().unwrap();
    let b = ctx.plan().await.unwrap();
    assert!(b.splits.iter().all(|s| s.as_data().bucket == 0));
    assert!(b.metrics.files_skipped_by_bucket > 0);
}

#[tokio::test]
async fn missing_snapshot_and_tag_are_clear_errors() {
    let table = open_java("parquet/append_09").await;
    let ctx = table
        .scan()
        .with_snapshot(SnapshotSelector::Id(42))
        .build()
        .unwrap();
    let e = ctx.plan().await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert!(e.to_string().contains("snapshot 42"), "{e}");
    let ctx = table
        .scan()
        .with_snapshot(SnapshotSelector::Tag("nope".into()))
        .build()
        .unwrap();
    assert_eq!(ctx.plan().await.unwrap_err().kind(), ErrorKind::NotFound);
    let e = Table::open("/nonexistent/table").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
}

#[tokio::test]
async fn splits_survive_serde() {
    let table = open_java("parquet/append_09").await;
    let p = plan(&table, &Query::default()).await;
    let json = serde_json::to_string(&p.splits).unwrap();
    let back: Vec<paimon_core::scan::Split> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, p.splits);
}
