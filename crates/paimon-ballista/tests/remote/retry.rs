//! A scan task that fails once is retried by Ballista, and the retry neither loses nor
//! duplicates rows (feature `failpoints`: the executors run with
//! `PAIMON_DATAFUSION_FAIL_SCAN_ONCE`, so the first scan partition to run fails with a storage
//! error after emitting its first batch). An `INSERT` sink task that fails once right after
//! its commit (`PAIMON_DATAFUSION_FAIL_SINK_ONCE`) is retried and does not commit again.

use paimon_datafusion::failpoint::{FAIL_SCAN_ONCE, FAIL_SINK_ONCE};

use crate::common::{self, cluster::collect_with_job, cluster::Cluster};
use crate::insert;

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
    let planned = common::planned_splits(&table).await;

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

/// An `INSERT` whose sink task fails once right after its commit, with a storage error (which
/// Ballista retries): the retried task runs the same plan, so it commits as the same user and
/// identifier, and the library's exactly-once check finds the first commit. The statement
/// reports the input's row count; the (append) table holds the input rows once: count and sum
/// equal the input's, no row twice, exactly one new snapshot; the executors' logs show the
/// failed attempt, one commit and one skipped commit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retried_sink_task_commits_once() {
    let dir = tempfile::tempdir().unwrap();
    let warehouse = dir.path().join("warehouse");
    let orders = common::write_orders(&warehouse).await;
    let ddl = "(dt STRING, id BIGINT, k INT, v DOUBLE, s STRING)";
    let target = insert::create_table(&warehouse, "appended", ddl).await;
    let before = insert::latest_snapshot(&target).await;
    let marker = dir.path().join("fail-sink-once");
    let cluster = Cluster::start(dir.path(), 2, &[(FAIL_SINK_ONCE, marker.to_str().unwrap())]);
    let ctx = cluster.context(8, &warehouse).await;

    let q = "INSERT INTO paimon.dist.appended SELECT * FROM paimon.dist.orders";
    let (batches, _job) = collect_with_job(&ctx, q).await;
    assert!(marker.exists(), "the failpoint did not fire");
    assert_eq!(common::render(&batches), [common::TOTAL.to_string()]);
    let want = common::library_count_sum(&orders, None).await;
    let got = common::sql_count_sum_of(&ctx, "v", "paimon.dist.appended").await;
    assert_eq!(
        got, want,
        "count and sum of the inserted table vs the input"
    );
    let dup = common::sql(
        &ctx,
        "SELECT id, count(*) FROM paimon.dist.appended GROUP BY id HAVING count(*) > 1",
    )
    .await;
    assert!(dup.is_empty(), "duplicated rows: {dup:?}");
    assert_eq!(insert::latest_snapshot(&target).await, before + 1);

    let logs = cluster.executor_logs();
    let lines = |needle: &str| logs.lines().filter(|l| l.contains(needle)).count();
    assert_eq!(lines("paimon sink: failpoint"), 1, "{logs}");
    assert_eq!(insert::sink_lines(&logs, "dist.appended"), 1, "{logs}");
    assert_eq!(lines("paimon sink: already committed"), 1, "{logs}");
    drop(cluster);
}

/// `INSERT OVERWRITE` under the same failpoint: the retried task does not overwrite again
/// (one new `OVERWRITE` snapshot, the statement's count right, the table holds the input).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retried_overwrite_task_commits_once() {
    let dir = tempfile::tempdir().unwrap();
    let warehouse = dir.path().join("warehouse");
    common::write_orders(&warehouse).await;
    let ddl = "(dt STRING, id BIGINT, k INT, v DOUBLE, s STRING)";
    let target = insert::create_table(&warehouse, "replaced", ddl).await;
    let local = common::local_ctx(&warehouse).await;
    common::sql(
        &local,
        "INSERT INTO paimon.dist.replaced SELECT * FROM paimon.dist.orders",
    )
    .await;
    let before = insert::latest_snapshot(&target).await;
    let marker = dir.path().join("fail-sink-once");
    let cluster = Cluster::start(dir.path(), 2, &[(FAIL_SINK_ONCE, marker.to_str().unwrap())]);
    let ctx = cluster.context(8, &warehouse).await;

    let q = "INSERT OVERWRITE paimon.dist.replaced SELECT * FROM paimon.dist.orders WHERE id < 100";
    let (batches, _job) = collect_with_job(&ctx, q).await;
    assert!(marker.exists(), "the failpoint did not fire");
    assert_eq!(common::render(&batches), ["100"]);
    let latest = insert::latest_snapshot(&target).await;
    assert_eq!(latest, before + 1, "one new snapshot");
    let kind = target
        .snapshot_manager()
        .snapshot(latest)
        .await
        .unwrap()
        .commit_kind;
    assert_eq!(kind, paimon_core::spec::snapshot::CommitKind::Overwrite);
    let got = common::sql(
        &ctx,
        "SELECT count(*), min(id), max(id) FROM paimon.dist.replaced",
    )
    .await;
    assert_eq!(got, ["100, 0, 99"]);
    let logs = cluster.executor_logs();
    assert_eq!(insert::sink_lines(&logs, "dist.replaced"), 1, "{logs}");
    drop(cluster);
}
