//! A scan task that fails once is retried by Ballista, and the retry neither loses nor
//! duplicates rows (feature `failpoints`: the executors run with
//! `PAIMON_DATAFUSION_FAIL_SCAN_ONCE`, so the first scan partition to run fails with a storage
//! error after emitting its first batch).

use paimon_datafusion::failpoint::FAIL_SCAN_ONCE;

use crate::common::{self, cluster::collect_with_job, cluster::Cluster};

/// The first query's failed task is retried: its rows equal local DataFusion's (no row of
/// the failed attempt's first batch is kept twice, none lost), counts equal the library's
/// read, no key appears twice, and the job's metrics count every split once (the failed
/// attempt's report is not folded in; the logs show it read its splits twice).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retried_scan_task_keeps_rows_exact() {
    let dir = tempfile::tempdir().unwrap();
    let warehouse = dir.path().join("warehouse");
    let table = common::write_orders(&warehouse).await;
    let marker = dir.path().join("fail-once");
    let cluster = Cluster::start(dir.path(), 2, &[(FAIL_SCAN_ONCE, marker.to_str().unwrap())]);
    let ctx = cluster.context(8, &warehouse).await;
    let local = common::local_ctx(&warehouse).await;
    let planned = table
        .scan()
        .build()
        .unwrap()
        .plan()
        .await
        .unwrap()
        .splits
        .len();

    let q = "SELECT * FROM paimon.dist.orders";
    let (batches, job) = collect_with_job(&ctx, q).await;
    assert!(marker.exists(), "the failpoint did not fire");
    let logs = cluster.executor_logs();
    assert!(logs.contains("failpoint"), "no failed task in the logs");
    let rows = common::render(&batches);
    assert_eq!(rows.len(), common::TOTAL as usize);
    assert_eq!(rows, common::sql(&local, q).await);

    let per_executor = paimon_ballista::splits_read_per_executor(&cluster.url(), &job)
        .await
        .unwrap();
    assert_eq!(
        per_executor.values().sum::<u64>(),
        planned as u64,
        "{per_executor:?}"
    );
    let logged: u64 = cluster.splits_logged("dist.orders").values().sum();
    assert!(
        logged > planned as u64,
        "the failed attempt's splits: {logged} logged"
    );

    let dup = common::sql(
        &ctx,
        "SELECT id, count(*) FROM paimon.dist.orders GROUP BY id HAVING count(*) > 1",
    )
    .await;
    assert!(dup.is_empty(), "duplicated rows: {dup:?}");
    let want = common::library_count_sum(&table, None).await;
    assert_eq!(common::sql_count_sum(&ctx).await, want);
    drop(cluster);
}
