//! `paimon bench TABLE`: a full read through paimon-rs against a direct arrow-rs read of the
//! same Parquet files, in one run, reported as a ratio.
//!
//! Both sides decode every column of every planned file with the same file concurrency; the
//! baseline skips Paimon planning and schema mapping. Figures are medians over iterations.

use std::num::NonZeroUsize;
use std::time::{Duration, Instant};

use futures::{stream, StreamExt, TryStreamExt};
use paimon_core::read::TableRead;
use paimon_core::scan::{ScanContextBuilder, TableScan};
use paimon_core::{Error, Result};
use parquet::arrow::ParquetRecordBatchStreamBuilder;

use crate::args::TableArgs;

/// Arguments of `bench`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    table: TableArgs,
    /// Timed iterations per side (after one warm-up each).
    #[arg(long, default_value_t = 5)]
    iterations: usize,
    /// Files decoded at once on both sides (default: 2 × cores).
    #[arg(long)]
    concurrency: Option<NonZeroUsize>,
    /// Point-lookup mode: compare this predicate (e.g. `id = 42`) with a full scan, and a
    /// warm live-manifest-entry cache with a cold plan, instead of the direct Parquet read.
    #[arg(long = "where", value_name = "EXPR")]
    filter: Option<String>,
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// Runs both sides and prints the ratio.
pub async fn run(args: Args) -> Result<()> {
    let table = args.table.load().await?;
    if let Some(f) = &args.filter {
        let pred = paimon_core::expr::parse_predicate(f)?;
        return super::bench_lookup::run(&table, &pred, args.iterations).await;
    }
    let conc = args.concurrency.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.saturating_mul(NonZeroUsize::MIN.saturating_add(1)))
            .unwrap_or(NonZeroUsize::MIN)
    });
    let plan = TableScan::new(ScanContextBuilder::new(table.clone()).build()?)
        .plan()
        .await?;
    let files: Vec<String> = plan
        .splits
        .iter()
        .flat_map(|s| {
            let d = s.as_data();
            d.files
                .iter()
                .map(|f| d.file_location(f))
                .collect::<Vec<_>>()
        })
        .collect();
    if files.iter().any(|f| !f.ends_with(".parquet")) {
        return Err(Error::unsupported(
            "bench compares against a direct Parquet read: every file must be Parquet",
        ));
    }
    let (mut ours, mut direct, mut plans) = (Vec::new(), Vec::new(), Vec::new());
    let mut rows = (0, 0);
    for i in 0..=args.iterations {
        let t = Instant::now();
        let plan = TableScan::new(ScanContextBuilder::new(table.clone()).build()?)
            .plan()
            .await?;
        if i > 0 {
            plans.push(t.elapsed());
        }
        let read = TableRead::new(&table).with_concurrency(conc);
        let stream = read.read(plan.splits)?;
        // Consume on a runtime worker, as the direct side does, not on the blocked main thread.
        let n =
            tokio::spawn(stream.try_fold(0usize, |acc, b| async move { Ok(acc + b.num_rows()) }))
                .await
                .map_err(|e| Error::internal(e.to_string()))??;
        let d1 = t.elapsed();
        let t = Instant::now();
        let m = direct_read(&files, conc.get()).await?;
        let d2 = t.elapsed();
        if i > 0 {
            ours.push(d1);
            direct.push(d2);
        }
        rows = (n, m);
    }
    let (a, b, p) = (median(ours), median(direct), median(plans));
    println!("table: {}", table.location());
    println!(
        "files: {}  rows: paimon-rs {} / direct {}",
        files.len(),
        rows.0,
        rows.1
    );
    println!(
        "paimon-rs (plan + read): {:>10.3} ms (plan {:.3} ms)",
        a.as_secs_f64() * 1e3,
        p.as_secs_f64() * 1e3
    );
    println!(
        "arrow-rs direct read:    {:>10.3} ms",
        b.as_secs_f64() * 1e3
    );
    println!(
        "ratio paimon-rs / direct: {:.3} (read only: {:.3})",
        a.as_secs_f64() / b.as_secs_f64().max(1e-9),
        a.saturating_sub(p).as_secs_f64() / b.as_secs_f64().max(1e-9)
    );
    Ok(())
}

async fn direct_read(files: &[String], concurrency: usize) -> Result<usize> {
    let counts = stream::iter(files.iter().cloned())
        .map(|path| {
            tokio::spawn(async move {
                let local = path.strip_prefix("file:").unwrap_or(&path).to_string();
                let f = tokio::fs::File::open(&local)
                    .await
                    .map_err(|e| Error::io(format!("{local}: {e}")))?;
                let s = ParquetRecordBatchStreamBuilder::new(f).await?.build()?;
                let n = s
                    .try_fold(0usize, |acc, b| async move { Ok(acc + b.num_rows()) })
                    .await?;
                Ok::<usize, Error>(n)
            })
        })
        .buffer_unordered(concurrency)
        .map(|r| {
            r.map_err(|e| Error::internal(e.to_string()))
                .and_then(|x| x)
        })
        .try_collect::<Vec<_>>()
        .await?;
    Ok(counts.into_iter().sum())
}
