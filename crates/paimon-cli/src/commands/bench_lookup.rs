//! `paimon bench TABLE --where EXPR`: a point lookup (bucket pruning) against a full scan of the
//! same table, in one run, the point lookup against itself with selective Parquet reads off,
//! plus planning with a warm live-manifest-entry cache against a cold plan. Figures are medians
//! over iterations, reported with their ratios.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use futures::TryStreamExt;
use paimon_core::scan::ManifestEntryCache;
use paimon_core::{Plan, Predicate, Result, Table, TableScan};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn scan(
    table: &Table,
    pred: Option<&Predicate>,
    cache: Option<&ManifestEntryCache>,
) -> Result<TableScan> {
    let mut b = table.scan();
    if let Some(p) = pred {
        b = b.with_predicate(p.clone());
    }
    if let Some(c) = cache {
        b = b
            .with_entry_cache(c.clone())
            .with_option("scan.manifest-entry-cache.max-snapshots", "1");
    }
    b.build()
}

async fn plan(
    table: &Table,
    pred: Option<&Predicate>,
    cache: Option<&ManifestEntryCache>,
) -> Result<Plan> {
    scan(table, pred, cache)?.plan().await
}

/// Plan time and plan + read time (medians) and the last plan and row count; `selective`
/// turns selective Parquet reads (page index, late materialization) on or off.
async fn measure(
    table: &Table,
    pred: Option<&Predicate>,
    iterations: usize,
    selective: bool,
) -> Result<(Duration, Duration, Plan, usize)> {
    let (mut plans, mut totals) = (Vec::new(), Vec::new());
    let mut last = (Plan::default(), 0);
    for i in 0..=iterations {
        let t = Instant::now();
        let s = scan(table, pred, None)?;
        let p = s.plan().await?;
        let planned = t.elapsed();
        let n = s
            .reader()
            .with_selective(selective)
            .read(p.splits.clone())?
            .try_fold(0usize, |acc, b| async move { Ok(acc + b.num_rows()) })
            .await?;
        if i > 0 {
            plans.push(planned);
            totals.push(t.elapsed());
        }
        last = (p, n);
    }
    Ok((median(plans), median(totals), last.0, last.1))
}

fn describe(p: &Plan) -> String {
    let buckets: BTreeSet<i32> = p.splits.iter().map(|s| s.as_data().bucket).collect();
    format!(
        "files {} buckets {:?} (bucket pruning: {}, files skipped by bucket: {})",
        p.metrics.files_planned,
        buckets,
        p.metrics.bucket_pruning,
        p.metrics.files_skipped_by_bucket
    )
}

/// Runs the point lookup, the full scan and the cache comparison, and prints them.
pub async fn run(table: &Table, pred: &Predicate, iterations: usize) -> Result<()> {
    let (full_plan, full_total, full, full_rows) = measure(table, None, iterations, true).await?;
    let (pt_plan, pt_total, point, pt_rows) = measure(table, Some(pred), iterations, true).await?;
    let (_, plain_total, _, plain_rows) = measure(table, Some(pred), iterations, false).await?;
    let cache = ManifestEntryCache::new();
    plan(table, Some(pred), Some(&cache)).await?;
    let mut warm = Vec::new();
    let mut hits = 0;
    for _ in 0..iterations.max(1) {
        let t = Instant::now();
        let p = plan(table, Some(pred), Some(&cache)).await?;
        warm.push(t.elapsed());
        hits += p.metrics.cache_hits;
    }
    let warm = median(warm);
    println!("table: {}", table.location());
    println!("predicate: {pred}");
    println!("full scan:    {} rows, {}", full_rows, describe(&full));
    println!("point lookup: {} rows, {}", pt_rows, describe(&point));
    println!(
        "plan:        point {:>9.3} ms  full {:>9.3} ms  ratio {:.3}",
        ms(pt_plan),
        ms(full_plan),
        ms(pt_plan) / ms(full_plan).max(1e-9)
    );
    println!(
        "plan + read: point {:>9.3} ms  full {:>9.3} ms  ratio {:.3}",
        ms(pt_total),
        ms(full_total),
        ms(pt_total) / ms(full_total).max(1e-9)
    );
    println!(
        "point read:  selective {:>9.3} ms  selective off {:>9.3} ms  ratio {:.3} ({plain_rows} rows)",
        ms(pt_total),
        ms(plain_total),
        ms(pt_total) / ms(plain_total).max(1e-9)
    );
    println!(
        "point plan:  warm cache {:>9.3} ms  cold {:>9.3} ms  ratio {:.3} (cache hits {hits})",
        ms(warm),
        ms(pt_plan),
        ms(warm) / ms(pt_plan).max(1e-9)
    );
    Ok(())
}
