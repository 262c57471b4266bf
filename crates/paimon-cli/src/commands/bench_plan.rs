//! `paimon bench-plan TABLE --where EXPR`: planning time of a filtered scan cold (a freshly
//! opened `Table`, no cache), warm (the live-manifest-entry cache filled by an earlier plan of
//! the same snapshot) and of a full scan (no filter), alternated round by round; medians and
//! minimums, with the first plan's pruning metrics.
//!
//! Only `plan()` is timed, as peers time `new_scan().plan()` on an opened table; opening the
//! table (schema, options, no snapshot read) is timed apart.

use std::time::{Duration, Instant};

use paimon_core::scan::ManifestEntryCache;
use paimon_core::{parse_predicate, Error, Plan, Result, Table};

use crate::args::TableArgs;

// Arguments of `bench-plan`. (not a doc comment: see `defer` in main.rs)
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    table: TableArgs,
    /// SQL predicate of the filtered plan, e.g. `id = 5`.
    #[arg(long = "where", value_name = "EXPR")]
    filter: String,
    /// Rounds; each times one cold, one warm and one full plan.
    #[arg(long, default_value_t = 5)]
    repeat: usize,
    /// Only warm plans, this many (for profiling the cache-hit path).
    #[arg(long)]
    warm_only: Option<usize>,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Prints one line for `times` and returns their median.
fn summary(label: &str, mut times: Vec<Duration>, plan: &Plan) -> Duration {
    times.sort();
    let median = times.get(times.len() / 2).copied().unwrap_or_default();
    let min = times.first().copied().unwrap_or_default();
    let m = &plan.metrics;
    println!(
        "{label:<6} median {:>9.3} ms  min {:>9.3} ms  splits {} files {}  manifests {} \
         (skipped: {} partition, {} bucket) entries read {} cache hits/misses {}/{}",
        ms(median),
        ms(min),
        plan.splits.len(),
        m.files_planned,
        m.manifests_total,
        m.manifests_skipped_by_partition,
        m.manifests_skipped_by_bucket,
        m.entries_read,
        m.cache_hits,
        m.cache_misses,
    );
    median
}

async fn plan(
    table: &Table,
    filter: Option<&str>,
    cache: Option<&ManifestEntryCache>,
) -> Result<(Duration, Plan)> {
    let mut b = table.scan();
    if let Some(f) = filter {
        b = b.with_predicate(parse_predicate(f)?);
    }
    if let Some(c) = cache {
        b = b
            .with_entry_cache(c.clone())
            .with_option("scan.manifest-entry-cache.max-snapshots", "1");
    }
    let scan = b.build()?;
    let started = Instant::now();
    let p = scan.plan().await?;
    Ok((started.elapsed(), p))
}

/// Runs `bench-plan`.
pub async fn run(args: Args) -> Result<()> {
    if args.repeat == 0 {
        return Err(Error::invalid_argument("--repeat must be positive"));
    }
    let filter = args.filter.as_str();
    let warm_table = args.table.load().await?;
    let cache = ManifestEntryCache::new();
    let (_, first_warm) = plan(&warm_table, Some(filter), Some(&cache)).await?;
    if first_warm.metrics.cache_misses != 1 {
        println!("note: the warm plan does not use the cache (not one bucket?)");
    }
    if let Some(n) = args.warm_only {
        let mut warm = Vec::with_capacity(n);
        let mut last = first_warm;
        for _ in 0..n {
            let (t, p) = plan(&warm_table, Some(filter), Some(&cache)).await?;
            warm.push(t);
            last = p;
        }
        summary("warm", warm, &last);
        return Ok(());
    }
    let (mut cold, mut warm, mut full, mut open) = (vec![], vec![], vec![], vec![]);
    let (mut cold_plan, mut warm_plan, mut full_plan) = (None, None, None);
    for _ in 0..args.repeat {
        let started = Instant::now();
        let table = args.table.load().await?;
        open.push(started.elapsed());
        let (t, p) = plan(&table, Some(filter), None).await?;
        cold.push(t);
        cold_plan.get_or_insert(p);
        let (t, p) = plan(&warm_table, Some(filter), Some(&cache)).await?;
        warm.push(t);
        warm_plan.get_or_insert(p);
        let table = args.table.load().await?;
        let (t, p) = plan(&table, None, None).await?;
        full.push(t);
        full_plan.get_or_insert(p);
    }
    open.sort();
    println!(
        "table open median {:.3} ms; plans: {} rounds of cold `{filter}`, warm, full",
        ms(open[open.len() / 2]),
        args.repeat
    );
    let none = || Error::internal("no plan");
    let cold = summary("cold", cold, &cold_plan.ok_or_else(none)?);
    let warm = summary("warm", warm, &warm_plan.ok_or_else(none)?);
    summary("full", full, &full_plan.ok_or_else(none)?);
    println!(
        "cold / warm (medians of this run): {:.1}x",
        cold.as_secs_f64() / warm.as_secs_f64().max(1e-9)
    );
    Ok(())
}
