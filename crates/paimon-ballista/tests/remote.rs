//! A Ballista cluster of separate processes on loopback: `paimon-scheduler` and two
//! `paimon-executor`s started by the test, a client submitting with `remote_context`. Unlike
//! standalone mode, the scheduler and executors share nothing with the client but the plan
//! bytes, so missing codecs, options or storage setup fail here.

mod common;

use std::collections::HashMap;
use std::fs::File;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Child processes killed when the test ends, passing or not.
struct Cluster(Vec<Child>);

impl Drop for Cluster {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn wait_listening(addr: SocketAddr, what: &str) {
    let start = Instant::now();
    while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{what} did not listen on {addr}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Splits of `table` each executor log reports having read (`paimon scan: reading splits`
/// lines of `paimon_datafusion`), one entry per log.
fn splits_read(logs: &[PathBuf], table: &str) -> Vec<usize> {
    let needle = format!("table={table} ");
    logs.iter()
        .map(|log| {
            std::fs::read_to_string(log)
                .unwrap()
                .lines()
                .filter(|l| l.contains("paimon scan: reading splits") && l.contains(&needle))
                .map(|l| {
                    let n = l.rsplit("splits=").next().unwrap();
                    n.trim().parse::<usize>().unwrap()
                })
                .sum()
        })
        .collect()
}

fn log_file(dir: &Path, name: &str) -> (PathBuf, File) {
    let path = dir.join(name);
    let file = File::create(&path).unwrap();
    (path, file)
}

/// Two executors of two task slots each, a scheduler, 8 split groups: every query equals
/// local DataFusion and the library's read (counts included: no task reads another's splits),
/// the splits of a query are read by both executors, each exactly once, and `SET
/// paimon.scan_snapshot_id` reaches the remote scheduler.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn separate_processes_equal_local() {
    let dir = tempfile::tempdir().unwrap();
    let warehouse = dir.path().join("warehouse");
    let table = common::write_orders(&warehouse).await;

    let scheduler: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    let mut cluster = Cluster(Vec::new());
    let (_, scheduler_log) = log_file(dir.path(), "scheduler.log");
    cluster.0.push(
        Command::new(env!("CARGO_BIN_EXE_paimon-scheduler"))
            .args(["--bind", &scheduler.to_string()])
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(scheduler_log)
            .spawn()
            .unwrap(),
    );
    wait_listening(scheduler, "scheduler");
    let mut executors = Vec::new();
    let mut logs = Vec::new();
    for i in 0..2 {
        let (port, grpc) = (free_port(), free_port());
        let work = dir.path().join(format!("executor-{i}"));
        std::fs::create_dir_all(&work).unwrap();
        let (path, log) = log_file(dir.path(), &format!("executor-{i}.log"));
        logs.push(path);
        cluster.0.push(
            Command::new(env!("CARGO_BIN_EXE_paimon-executor"))
                .args(["--scheduler", &scheduler.to_string()])
                .args(["--host", "127.0.0.1"])
                .args(["--port", &port.to_string()])
                .args(["--grpc-port", &grpc.to_string()])
                .args(["--concurrent-tasks", "2"])
                .args(["--work-dir", work.to_str().unwrap()])
                .env("RUST_LOG", "paimon_datafusion=info,paimon_ballista=info")
                .stdout(Stdio::null())
                .stderr(log)
                .spawn()
                .unwrap(),
        );
        executors.push(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    for e in &executors {
        wait_listening(*e, "executor");
    }

    let config = paimon_ballista::session_config(&HashMap::new()).with_target_partitions(8);
    let ctx = paimon_ballista::remote_context(&format!("df://{scheduler}"), config)
        .await
        .unwrap();
    common::register(&ctx, &warehouse).await;
    let local = common::local_ctx(&warehouse).await;

    // One query first: its splits, counted in the executors' logs, are the planned splits,
    // each read once, and both executors read some.
    let planned = table
        .scan()
        .build()
        .unwrap()
        .plan()
        .await
        .unwrap()
        .splits
        .len();
    assert!(planned >= 8, "{planned} splits");
    let (rows, sum) = common::library_count_sum(&table, None).await;
    assert_eq!(common::sql_count_sum(&ctx).await, (rows, sum));
    let per_executor = splits_read(&logs, "dist.orders");
    assert_eq!(
        per_executor.iter().sum::<usize>(),
        planned,
        "splits read per executor: {per_executor:?}"
    );
    assert!(
        per_executor.iter().all(|n| *n > 0),
        "splits read per executor: {per_executor:?}"
    );

    common::check_against_local(&ctx, &local, &table).await;
    drop(cluster);
}
