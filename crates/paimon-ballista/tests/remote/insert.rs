//! `INSERT INTO` / `INSERT OVERWRITE` of Paimon tables through the cluster: the sink runs on
//! an executor (its log line is in an executor's log, not the client's), and the table it
//! leaves equals the one the same statements leave when run by local DataFusion.

use std::path::Path;

use paimon_core::Table;

use crate::common::{self, cluster::Cluster};

/// Primary key `(dt, id)`, partitioned by `dt`, 2 buckets: the columns of `dist.orders`.
pub const TARGET_DDL: &str = "(dt STRING NOT NULL, id BIGINT NOT NULL, k INT, v DOUBLE, s STRING) \
     WITH ('primary-key' = 'dt,id', 'partition' = 'dt', 'bucket' = '2')";

/// Creates `dist.<name>` with columns and options `ddl` (through a local session: DDL runs
/// where it is planned) and returns it.
pub async fn create_table(warehouse: &Path, name: &str, ddl: &str) -> Table {
    let local = common::local_ctx(warehouse).await;
    let q = format!("CREATE TABLE paimon.dist.{name} {ddl}");
    paimon_datafusion::ddl::sql(&local, &q)
        .await
        .unwrap_or_else(|e| panic!("{q}: {e}"))
        .collect()
        .await
        .unwrap_or_else(|e| panic!("{q}: {e}"));
    let dir = warehouse.join(format!("dist.db/{name}"));
    Table::open(dir.to_str().unwrap()).await.unwrap()
}

/// The latest snapshot id of `table` (0 when it has none).
pub async fn latest_snapshot(table: &Table) -> i64 {
    table
        .snapshot_manager()
        .latest_snapshot_id()
        .await
        .unwrap()
        .unwrap_or(0)
}

/// Sink lines (`paimon sink: committed`) of `table` in `logs`.
pub fn sink_lines(logs: &str, table: &str) -> usize {
    let needle = format!("table={table} ");
    logs.lines()
        .filter(|l| l.contains("paimon sink: committed") && l.contains(&needle))
        .count()
}

/// An `INSERT INTO ... SELECT` and an `INSERT OVERWRITE` of one partition through the cluster
/// report the counts local DataFusion reports, leave the rows local DataFusion leaves in a
/// twin table, one snapshot per statement, and were committed by an executor.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn insert_through_cluster_equals_local() {
    let dir = tempfile::tempdir().unwrap();
    let warehouse = dir.path().join("warehouse");
    common::write_orders(&warehouse).await;
    let targets = [
        create_table(&warehouse, "remote_t", TARGET_DDL).await,
        create_table(&warehouse, "local_t", TARGET_DDL).await,
    ];
    let cluster = Cluster::start(dir.path(), 2, &[]);
    let ctx = cluster.context(8, &warehouse).await;
    let local = common::local_ctx(&warehouse).await;

    let statements = [
        "INSERT INTO paimon.dist.{t} SELECT * FROM paimon.dist.orders WHERE id < 2500",
        "INSERT OVERWRITE paimon.dist.{t} SELECT dt, id, k, v + 1, s FROM paimon.dist.orders \
         WHERE dt = 'a' AND id >= 1000",
    ];
    for (i, s) in statements.iter().enumerate() {
        let remote = common::sql(&ctx, &s.replace("{t}", "remote_t")).await;
        let here = common::sql(&local, &s.replace("{t}", "local_t")).await;
        assert_eq!(remote, here, "{s}");
        for t in &targets {
            assert_eq!(latest_snapshot(t).await, i as i64 + 1, "{s}");
        }
    }
    assert_eq!(
        common::sql(&ctx, "SELECT count(*) FROM paimon.dist.remote_t").await,
        ["2250"]
    );
    let remote = common::sql(&local, "SELECT * FROM paimon.dist.remote_t").await;
    let here = common::sql(&local, "SELECT * FROM paimon.dist.local_t").await;
    assert_eq!(remote.len(), 2250);
    assert_eq!(remote, here);
    assert_eq!(
        sink_lines(&cluster.executor_logs(), "dist.remote_t"),
        2,
        "the executors did not commit both statements"
    );
    drop(cluster);
}
