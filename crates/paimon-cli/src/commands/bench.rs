//! `paimon bench TABLE`: a full read through paimon-rs against a direct arrow-rs read of the
//! same Parquet files, in one run, reported as a ratio.
//!
//! Both sides decode the same columns of every planned file (the table's columns of files read
//! raw; every column of files that are merged) with the same file concurrency and batch size;
//! the baseline ([`super::bench_direct`]) skips Paimon planning, schema mapping and merging.
//! Figures are medians over iterations; peak RSS is measured per side (Linux only).

use std::num::NonZeroUsize;
use std::time::{Duration, Instant};

use futures::TryStreamExt;
use paimon_core::{Error, Plan, Result, Table};

use super::bench_direct::{self, DirectFile, DirectSettings};

use crate::args::TableArgs;

// Arguments of `bench`. (not a doc comment: see `defer` in main.rs)
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

/// Median wall time and worst peak RSS of one side over the timed iterations.
#[derive(Default)]
struct Side {
    times: Vec<Duration>,
    peak_mib: Option<f64>,
    rows: usize,
}

impl Side {
    fn record(&mut self, timed: bool, elapsed: Duration, rows: usize) {
        self.rows = rows;
        if timed {
            self.times.push(elapsed);
            if let Some(p) = bench_direct::peak_rss_mib() {
                self.peak_mib = Some(self.peak_mib.map_or(p, |q| q.max(p)));
            }
        }
    }
    fn median(&self) -> Duration {
        median(self.times.clone())
    }
    fn print(&self, label: &str) {
        let peak = self
            .peak_mib
            .map_or_else(|| "n/a".to_string(), |p| format!("{p:.0} MiB"));
        println!(
            "{label:<30} {:>10.3} ms  rows {:>10}  peak RSS {peak}",
            self.median().as_secs_f64() * 1e3,
            self.rows
        );
    }
}

/// The files of the plan with the columns the Paimon side decodes from each: the table's
/// columns for files read raw, every column (keys, system columns, values) for merged files.
fn direct_files(table: &Table, plan: &Plan) -> Result<Vec<DirectFile>> {
    let names: Vec<String> = table
        .schema()
        .fields
        .iter()
        .map(|f| f.name.clone())
        .collect();
    let pk = table.schema().has_primary_key();
    let mut files = Vec::new();
    for s in &plan.splits {
        let d = s.as_data();
        let raw = !pk || d.is_raw_readable();
        for f in &d.files {
            let location = d.file_location(f);
            if !location.ends_with(".parquet") {
                return Err(Error::unsupported(
                    "bench compares against a direct Parquet read: every file must be Parquet",
                ));
            }
            let columns = raw.then(|| names.clone());
            files.push(DirectFile { location, columns });
        }
    }
    Ok(files)
}

/// Runs both sides and prints the ratios.
pub async fn run(args: Args) -> Result<()> {
    let table = args.table.load().await?;
    if let Some(f) = &args.filter {
        let pred = paimon_core::parse_predicate(f)?;
        return super::bench_lookup::run(&table, &pred, args.iterations).await;
    }
    let concurrency = args.concurrency.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.saturating_mul(NonZeroUsize::MIN.saturating_add(1)))
            .unwrap_or(NonZeroUsize::MIN)
    });
    let plan = table.scan().build()?.plan().await?;
    let files = direct_files(&table, &plan)?;
    let settings = DirectSettings {
        concurrency,
        batch_size: table.options().read_batch_size.get(),
    };
    let (mut ours, mut delivered, mut in_task, mut plans) = (
        Side::default(),
        Side::default(),
        Side::default(),
        Vec::new(),
    );
    for i in 0..=args.iterations {
        let timed = i > 0;
        bench_direct::reset_peak_rss();
        let t = Instant::now();
        let scan = table.scan().with_read_concurrency(concurrency).build()?;
        let plan = scan.plan().await?;
        if timed {
            plans.push(t.elapsed());
        }
        let stream = scan.reader().read(plan.splits)?;
        // Consume on a runtime worker, as the direct side does, not on the blocked main thread.
        let n =
            tokio::spawn(stream.try_fold(0usize, |acc, b| async move { Ok(acc + b.num_rows()) }))
                .await
                .map_err(|e| Error::internal(e.to_string()))??;
        ours.record(timed, t.elapsed(), n);
        bench_direct::reset_peak_rss();
        let t = Instant::now();
        let shared = files.clone();
        let n = tokio::spawn(async move { bench_direct::read_delivered(&shared, settings).await })
            .await
            .map_err(|e| Error::internal(e.to_string()))??;
        delivered.record(timed, t.elapsed(), n);
        bench_direct::reset_peak_rss();
        let t = Instant::now();
        let n = bench_direct::read_in_task(&files, settings).await?;
        in_task.record(timed, t.elapsed(), n);
    }
    report(
        &table,
        &files,
        &args,
        settings,
        [&ours, &delivered, &in_task],
        median(plans),
    );
    Ok(())
}

/// Prints the figures of the three sides and the ratios.
fn report(
    table: &Table,
    files: &[DirectFile],
    args: &Args,
    settings: DirectSettings,
    [ours, delivered, in_task]: [&Side; 3],
    p: Duration,
) {
    println!("table: {}", table.location());
    println!(
        "files: {}  concurrency: {}  batch size: {}  (medians of {} runs)",
        files.len(),
        settings.concurrency,
        settings.batch_size,
        args.iterations
    );
    ours.print("paimon-rs (plan + read)");
    println!("  of which plan {:.3} ms", p.as_secs_f64() * 1e3);
    delivered.print("arrow-rs direct, delivered");
    in_task.print("arrow-rs direct, in-task");
    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64().max(1e-9);
    let (a, r) = (ours.median(), ours.median().saturating_sub(p));
    println!(
        "ratio paimon-rs / direct delivered: {:.3} (read only {:.3})",
        ratio(a, delivered.median()),
        ratio(r, delivered.median())
    );
    println!(
        "ratio paimon-rs / direct in-task:   {:.3} (read only {:.3})",
        ratio(a, in_task.median()),
        ratio(r, in_task.median())
    );
}
