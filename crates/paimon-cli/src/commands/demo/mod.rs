//! `paimon demo [DIR] [--rows N]`: builds a small warehouse on local disk through the
//! library's public API and runs five queries that show how a read is narrowed — partition,
//! bucket and page pruning, a primary-key global index, merge-on-read, a data-file index and
//! time travel — printing each answer, the plan summary and the time.
//!
//! Every answer is checked against a model the demo keeps while generating the data; a
//! mismatch fails the command (exit code 4), so the demo doubles as an end-to-end test.

mod queries;
mod tables;

use std::path::{Path, PathBuf};
use std::time::Instant;

use paimon_core::{Error, Result};

// Arguments of `demo`. (not a doc comment: see `defer` in main.rs)
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Directory for the warehouse (default `./paimon-demo`); it must be new, empty or a
    /// previous demo's warehouse (which is replaced).
    dir: Option<PathBuf>,
    /// Orders in the primary-key table (the append table gets half as many events).
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(100..))]
    rows: u64,
}

/// Makes `dir` an empty directory, refusing to clear anything but a previous demo.
fn prepare(dir: &Path) -> Result<()> {
    let io = |e: std::io::Error| Error::io(format!("{}: {e}", dir.display()));
    if dir.exists() {
        let entries: Vec<_> = std::fs::read_dir(dir)
            .map_err(io)?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name())
            .collect();
        if entries.iter().any(|n| n != "demo.db") {
            return Err(Error::invalid_argument(format!(
                "{} is not empty and not a paimon demo warehouse; pick another DIR",
                dir.display()
            )));
        }
        if !entries.is_empty() {
            std::fs::remove_dir_all(dir.join("demo.db")).map_err(io)?;
        }
    }
    std::fs::create_dir_all(dir).map_err(io)
}

/// Runs `demo`.
pub async fn run(args: Args) -> Result<()> {
    let started = Instant::now();
    let dir = args.dir.unwrap_or_else(|| PathBuf::from("paimon-demo"));
    prepare(&dir)?;
    let dir =
        std::fs::canonicalize(&dir).map_err(|e| Error::io(format!("{}: {e}", dir.display())))?;
    let warehouse = dir
        .to_str()
        .ok_or_else(|| Error::invalid_argument("the demo directory is not UTF-8"))?;
    println!("paimon demo: warehouse {warehouse}");
    println!(
        "building demo.orders ({} orders over {} days, 4 buckets) and demo.events",
        args.rows,
        tables::DAYS.len()
    );
    let (orders, events, model) = tables::build(warehouse, args.rows).await?;
    println!(
        "built in {:.2} s ({} order rows written, {} events)",
        started.elapsed().as_secs_f64(),
        model.rows_written,
        model.events.len()
    );
    queries::run_all(&orders, &events, &model).await?;
    println!(
        "\nall 5 answers match the model; total {:.2} s. Explore further with e.g.\n  paimon scan {warehouse} demo.orders --where \"customer = 7\"\n  paimon read {warehouse} demo.events --where \"kind = 'refund'\" --metrics",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
