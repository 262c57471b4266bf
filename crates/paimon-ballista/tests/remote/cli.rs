//! `paimon sql --ballista df://host:port "..."` against a scheduler and two executors of
//! ours: the CLI's own `sql` command (`crates/paimon-cli/src/commands/sql.rs` and
//! `output.rs`, compiled into this test; the `paimon` binary belongs to the root workspace,
//! where a build with feature `ballista` would compile DataFusion and Ballista once more),
//! driven by the same command-line parsing. Each statement's output file equals the one the
//! command writes without `--ballista` (in process).

use std::path::Path;

use clap::Parser;

use crate::common::{self, cluster::Cluster};
use crate::sql;

/// The `paimon` command line, reduced to its `sql` subcommand.
#[derive(Debug, Parser)]
#[command(name = "paimon")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    Sql(sql::Args),
}

/// Runs `paimon sql WAREHOUSE TEXT --format FORMAT --output OUT [--ballista URL]` and
/// returns what it wrote.
async fn paimon_sql(
    warehouse: &Path,
    text: &str,
    format: &str,
    out: &Path,
    ballista: Option<&str>,
) -> String {
    let mut argv = vec![
        "paimon",
        "sql",
        warehouse.to_str().unwrap(),
        text,
        "--format",
        format,
        "--output",
        out.to_str().unwrap(),
    ];
    if let Some(url) = ballista {
        argv.extend(["--ballista", url]);
    }
    let Command::Sql(args) = Cli::try_parse_from(&argv).unwrap().command;
    sql::run(args)
        .await
        .unwrap_or_else(|e| panic!("paimon sql {text:?} (ballista {ballista:?}): {e}"));
    std::fs::read_to_string(out).unwrap()
}

/// Statements as a user types them (default catalog `paimon`, so `dist.orders` resolves),
/// with the format each is printed in.
const STATEMENTS: &[(&str, &str)] = &[
    (
        "SELECT count(*), sum(v), min(id), max(id) FROM dist.orders",
        "table",
    ),
    (
        "SELECT dt, k, count(*), sum(v) FROM paimon.dist.orders GROUP BY dt, k ORDER BY dt, k",
        "csv",
    ),
    (
        "SELECT * FROM dist.orders WHERE id < 12 OR id >= 2995 ORDER BY id",
        "jsonl",
    ),
    (
        "SET paimon.scan_snapshot_id = 1; SELECT count(*), sum(v) FROM dist.orders",
        "csv",
    ),
    (
        "SELECT a.dt, count(*), sum(b.v) FROM dist.orders a JOIN dist.orders b \
         ON a.id = b.id + 1 AND a.dt <> b.dt GROUP BY a.dt ORDER BY a.dt",
        "csv",
    ),
    (
        "SELECT snapshot_id, commit_kind, total_record_count FROM dist.\"orders$snapshots\" \
         ORDER BY snapshot_id",
        "csv",
    ),
    (
        "SELECT rowkind, count(*) FROM dist.\"orders$audit_log\" GROUP BY rowkind ORDER BY rowkind",
        "csv",
    ),
];

/// Every statement through `--ballista` writes what the in-process run writes; the counts
/// are the library's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paimon_sql_ballista_equals_local() {
    let dir = tempfile::tempdir().unwrap();
    let warehouse = dir.path().join("warehouse");
    let table = common::write_orders(&warehouse).await;
    let cluster = Cluster::start(dir.path(), 2, &[]);
    let url = cluster.url();
    let out = dir.path().join("out");
    for (text, format) in STATEMENTS {
        let local = paimon_sql(&warehouse, text, format, &out, None).await;
        let remote = paimon_sql(&warehouse, text, format, &out, Some(&url)).await;
        assert!(
            local.lines().count() > 1 || *format == "jsonl",
            "{text}: {local}"
        );
        assert_eq!(remote, local, "{text}");
    }
    // The executors read the splits (the in-process runs do not log to their files).
    let logged: u64 = cluster.splits_logged("dist.orders").values().sum();
    assert!(logged > 0, "no split read by the executors");
    // The first statement's count, as the library reads the table.
    let (rows, _) = common::library_count_sum(&table, None).await;
    let first = paimon_sql(&warehouse, STATEMENTS[0].0, "csv", &out, Some(&url)).await;
    let count = first.lines().nth(1).unwrap().split(',').next().unwrap();
    assert_eq!(count, rows.to_string(), "{first}");
    drop(cluster);
}
