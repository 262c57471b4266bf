//! A Ballista cluster of separate processes on loopback: `paimon-scheduler` and
//! `paimon-executor`s (ids `executor-0`, `executor-1`, ...) started as child processes, killed
//! when the [`Cluster`] is dropped, each logging to a file of the given directory.

use std::collections::HashMap;
use std::fs::File;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use arrow::array::RecordBatch;
use paimon_datafusion::datafusion::physical_plan::collect;
use paimon_datafusion::datafusion::prelude::SessionContext;

/// The running processes; killed on drop, passing or not.
pub struct Cluster {
    children: Vec<Child>,
    /// The scheduler's address.
    pub scheduler: SocketAddr,
    /// Executor ids, in start order.
    pub executors: Vec<String>,
    /// Executor log files, in start order.
    pub logs: Vec<PathBuf>,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for c in &mut self.children {
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

fn log_file(dir: &Path, name: &str) -> (PathBuf, File) {
    let path = dir.join(name);
    let file = File::create(&path).unwrap();
    (path, file)
}

impl Cluster {
    /// A scheduler and `executors` executors of two task slots each, logging into `dir`;
    /// `executor_env` is set on the executors only.
    pub fn start(dir: &Path, executors: usize, executor_env: &[(&str, &str)]) -> Cluster {
        let scheduler: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
        let mut cluster = Cluster {
            children: Vec::new(),
            scheduler,
            executors: Vec::new(),
            logs: Vec::new(),
        };
        let (_, scheduler_log) = log_file(dir, "scheduler.log");
        cluster.children.push(
            Command::new(env!("CARGO_BIN_EXE_paimon-scheduler"))
                .args(["--bind", &scheduler.to_string()])
                .env("RUST_LOG", "info")
                .stdout(Stdio::null())
                .stderr(scheduler_log)
                .spawn()
                .unwrap(),
        );
        wait_listening(scheduler, "scheduler");
        let mut addresses = Vec::new();
        for i in 0..executors {
            let (port, grpc) = (free_port(), free_port());
            let id = format!("executor-{i}");
            let work = dir.join(&id);
            std::fs::create_dir_all(&work).unwrap();
            let (path, log) = log_file(dir, &format!("{id}.log"));
            cluster.logs.push(path);
            let mut command = Command::new(env!("CARGO_BIN_EXE_paimon-executor"));
            command
                .args(["--scheduler", &scheduler.to_string()])
                .args(["--executor-id", &id])
                .args(["--host", "127.0.0.1"])
                .args(["--port", &port.to_string()])
                .args(["--grpc-port", &grpc.to_string()])
                .args(["--concurrent-tasks", "2"])
                .args(["--work-dir", work.to_str().unwrap()])
                .env("RUST_LOG", "paimon_datafusion=info,paimon_ballista=info")
                .stdout(Stdio::null())
                .stderr(log);
            for (k, v) in executor_env {
                command.env(k, v);
            }
            cluster.children.push(command.spawn().unwrap());
            cluster.executors.push(id);
            addresses.push(SocketAddr::from(([127, 0, 0, 1], port)));
        }
        for a in &addresses {
            wait_listening(*a, "executor");
        }
        cluster
    }

    /// The scheduler's URL (`df://host:port`).
    pub fn url(&self) -> String {
        format!("df://{}", self.scheduler)
    }

    /// A client session of this cluster with `target_partitions`, the warehouse registered as
    /// catalog `paimon` and the Java fixtures as `java`.
    pub async fn context(&self, target_partitions: usize, warehouse: &Path) -> SessionContext {
        let config = paimon_ballista::session_config(&HashMap::new())
            .with_target_partitions(target_partitions);
        let ctx = paimon_ballista::remote_context(&self.url(), config)
            .await
            .unwrap();
        super::register(&ctx, warehouse).await;
        ctx
    }

    /// Splits of `table` each executor's log reports having read (`paimon scan: reading
    /// splits` lines of `paimon_datafusion`), by executor id.
    pub fn splits_logged(&self, table: &str) -> HashMap<String, u64> {
        let needle = format!("table={table} ");
        self.executors
            .iter()
            .zip(&self.logs)
            .map(|(id, log)| {
                let n = std::fs::read_to_string(log)
                    .unwrap()
                    .lines()
                    .filter(|l| l.contains("paimon scan: reading splits") && l.contains(&needle))
                    .map(|l| {
                        l.rsplit("splits=")
                            .next()
                            .unwrap()
                            .trim()
                            .parse::<u64>()
                            .unwrap()
                    })
                    .sum();
                (id.clone(), n)
            })
            .collect()
    }

    /// The executors' logs, concatenated.
    pub fn executor_logs(&self) -> String {
        self.logs
            .iter()
            .map(|l| std::fs::read_to_string(l).unwrap())
            .collect()
    }
}

/// Runs `q` on `ctx` (a Ballista client session): its batches and the scheduler's job id.
pub async fn collect_with_job(ctx: &SessionContext, q: &str) -> (Vec<RecordBatch>, String) {
    let df = ctx.sql(q).await.unwrap_or_else(|e| panic!("{q}: {e}"));
    let plan = df
        .create_physical_plan()
        .await
        .unwrap_or_else(|e| panic!("{q}: {e}"));
    let batches = collect(plan.clone(), ctx.task_ctx())
        .await
        .unwrap_or_else(|e| panic!("{q}: {e}"));
    let job = paimon_ballista::job_id(&plan).unwrap_or_else(|| panic!("{q}: no Ballista job"));
    (batches, job)
}
