//! A Ballista cluster of separate processes on loopback: `paimon-scheduler` and two
//! `paimon-executor`s started by the test, a client submitting with `remote_context`. Unlike
//! standalone mode, the scheduler and executors share nothing with the client but the plan
//! bytes, so missing codecs, options or storage setup fail here.
//!
//! - `separate_processes_equal_local` (here): queries, time travel, Java fixtures and system
//!   tables equal local DataFusion; splits per executor from the scheduler's job metrics;
//! - `insert`: `INSERT INTO` / `INSERT OVERWRITE` committed by an executor, equal to local;
//! - `retry` (feature `failpoints`): a scan task that fails once is retried, rows exact; a
//!   sink task that fails once after its commit is retried without committing twice;
//! - `cli` (feature `ballista`): `paimon sql --ballista df://…`, the CLI's own command.

#[path = "../common/mod.rs"]
mod common;

#[cfg(feature = "ballista")]
mod cli;
mod insert;
#[cfg(feature = "failpoints")]
mod retry;

// The CLI's `sql` command refers to `crate::output`: its sources compiled into this test
// (`cli`), as the CLI's binary is built by the root workspace.
#[cfg(feature = "ballista")]
#[path = "../../../paimon-cli/src/output.rs"]
mod output;
#[cfg(feature = "ballista")]
#[path = "../../../paimon-cli/src/commands/sql.rs"]
mod sql;

use ballista_core::serde::protobuf::operator_metric::Metric;
use common::cluster::{collect_with_job, Cluster};

/// Two executors of two task slots each, a scheduler, 8 split groups: every query equals
/// local DataFusion and the library's read (counts included: no task reads another's splits),
/// the splits of a query are read by both executors, each exactly once, as the scheduler's
/// job metrics (folded from the executors' task reports) say and the executors' logs agree,
/// and `SET paimon.scan_snapshot_id` reaches the remote scheduler.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn separate_processes_equal_local() {
    let dir = tempfile::tempdir().unwrap();
    let warehouse = dir.path().join("warehouse");
    let table = common::write_orders(&warehouse).await;
    let cluster = Cluster::start(dir.path(), 2, &[]);
    let ctx = cluster.context(8, &warehouse).await;
    let local = common::local_ctx(&warehouse).await;

    // One query first: the splits the executors report in the job's metrics are the planned
    // splits, each read once, and both executors read some.
    let planned = common::planned_splits(&table).await;
    assert!(planned >= 8, "{planned} splits");
    let q = "SELECT count(*), sum(v) FROM paimon.dist.orders";
    let (batches, job) = collect_with_job(&ctx, q).await;
    assert_eq!(common::render(&batches), common::sql(&local, q).await);
    let per_executor = paimon_ballista::splits_read_per_executor(&cluster.url(), &job)
        .await
        .unwrap();
    let ids: Vec<&String> = per_executor.keys().collect();
    assert_eq!(ids, ["executor-0", "executor-1"], "{per_executor:?}");
    assert_eq!(
        per_executor.values().sum::<u64>(),
        planned as u64,
        "splits read per executor: {per_executor:?}"
    );
    assert!(
        per_executor.values().all(|n| *n > 0),
        "splits read per executor: {per_executor:?}"
    );
    // Planning counters are the scheduler's: in the scan's description, not reported by
    // the tasks (each would add them again, multiplying them in the job's metrics).
    let metrics = paimon_ballista::job_metrics(&cluster.url(), &job)
        .await
        .unwrap();
    let scans: Vec<_> = metrics
        .stages
        .iter()
        .flat_map(|s| &s.operators)
        .filter(|o| o.operator_type == "PaimonScanExec")
        .collect();
    assert!(!scans.is_empty(), "no scan in the job's metrics");
    for scan in scans {
        assert!(
            scan.operator_desc.contains("files_planned="),
            "{}",
            scan.operator_desc
        );
        let planning: Vec<&str> = scan
            .metrics
            .iter()
            .filter_map(|m| match &m.metric {
                Some(Metric::Count(c)) if c.name.starts_with("files_") => Some(c.name.as_str()),
                _ => None,
            })
            .collect();
        assert!(
            planning.is_empty(),
            "planning counters from tasks: {planning:?}"
        );
    }
    // The executors' logs of that query agree.
    let logged = cluster.splits_logged("dist.orders");
    let logged: std::collections::BTreeMap<String, u64> = logged.into_iter().collect();
    assert_eq!(logged, per_executor, "logged vs metrics");
    let (rows, sum) = common::library_count_sum(&table, None).await;
    assert_eq!(common::sql_count_sum(&ctx).await, (rows, sum));

    common::check_against_local(&ctx, &local, &table).await;
    drop(cluster);
}
