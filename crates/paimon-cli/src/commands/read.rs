//! `paimon read TABLE`: rows to stdout or a file.

use std::io::IsTerminal;
use std::num::NonZeroUsize;

use futures::TryStreamExt;
use indicatif::{ProgressBar, ProgressStyle};
use paimon_core::read::ReadMetricsSnapshot;
use paimon_core::{Error, Plan, Result};

use crate::args::{ScanArgs, TableArgs};
use crate::output::{OutputFormat, RowWriter};

// Arguments of `read`. (not a doc comment: see `defer` in main.rs)
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    table: TableArgs,
    #[command(flatten)]
    scan: ScanArgs,
    /// Columns to output, comma-separated, in this order.
    #[arg(long, value_delimiter = ',')]
    select: Option<Vec<String>>,
    /// Stop after N rows.
    #[arg(long)]
    limit: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    format: OutputFormat,
    /// Write to this file instead of stdout (required for parquet).
    #[arg(long)]
    output: Option<std::path::PathBuf>,
    /// Files decoded at once (default: 2 × cores).
    #[arg(long)]
    concurrency: Option<NonZeroUsize>,
    /// Add metadata columns: `_SEQUENCE_NUMBER`, `_VALUE_KIND` (primary-key tables),
    /// `__paimon_file_path` and `__paimon_row_index` (the source file and the row's 0-based
    /// position in it).
    #[arg(long)]
    with_metadata: bool,
    /// Print the plan's pruning metrics and the read's metrics (row groups and pages skipped,
    /// rows skipped by key-sorted lookups, files and rows skipped by data-file indexes, rows
    /// filtered, bytes and requests fetched) to stderr.
    #[arg(long)]
    metrics: bool,
    /// Turn off selective Parquet reads (page-index pruning, key-sorted lookups, late
    /// materialization).
    #[arg(long)]
    no_selective: bool,
}

/// Plans, reads and writes rows.
pub async fn run(args: Args) -> Result<()> {
    let table = args.table.load().await?;
    let mut builder = args.scan.builder(&table)?;
    if let Some(cols) = &args.select {
        builder = builder.select(cols)?;
    }
    if let Some(n) = args.limit {
        builder = builder.with_limit(n);
    }
    if let Some(n) = args.concurrency {
        builder = builder.with_read_concurrency(n);
    }
    let scan = builder.with_metadata(args.with_metadata).build()?;
    let plan = scan.plan().await?;
    if args.metrics {
        print_metrics(&plan);
    }
    let read = scan.reader().with_selective(!args.no_selective);
    let before = table.file_io().read_stats();
    let fields = read.output_fields().to_vec();
    let total_rows: u64 = plan
        .splits
        .iter()
        .map(|s| s.as_data().row_count().max(0) as u64)
        .sum();
    let progress = progress_bar(total_rows);
    let mut stream = read.read(plan.splits)?;
    let mut writer = RowWriter::new(args.format, args.output.as_deref(), read.schema()?, fields)?;
    while let Some(batch) = stream.try_next().await? {
        if let Some(p) = &progress {
            p.inc(batch.num_rows() as u64);
        }
        writer.write(&batch)?;
    }
    if let Some(p) = progress {
        p.finish_and_clear();
    }
    writer.finish()?;
    if args.metrics {
        let after = table.file_io().read_stats();
        print_read_metrics(
            &read.metrics(),
            after.requests - before.requests,
            after.bytes - before.bytes,
        );
    }
    Ok(())
}

fn print_read_metrics(m: &ReadMetricsSnapshot, requests: u64, bytes: u64) {
    eprintln!(
        "read: row groups skipped {} raw, {} merge | page index {} files ({} missing, {} unreadable) | \
         pages skipped {} ({} rows) | key search {} files, {} rows skipped, {} fallbacks | \
         row filter {} files, {} rows filtered | {} rows dropped before merge | \
         fetched {} bytes in {} requests",
        m.raw_row_groups_skipped,
        m.merge_row_groups_skipped,
        m.page_index_files,
        m.page_index_missing,
        m.page_index_unreadable,
        m.pages_skipped,
        m.page_rows_skipped,
        m.key_search_files,
        m.key_search_rows_skipped,
        m.key_search_fallbacks,
        m.row_filter_files,
        m.rows_filtered,
        m.rows_dropped_before_merge,
        bytes,
        requests
    );
    let kinds = [
        ("bloom-filter", m.file_index_skipped_bloom_filter),
        ("bitmap", m.file_index_skipped_bitmap),
        ("bsi", m.file_index_skipped_bsi),
        ("range-bitmap", m.file_index_skipped_range_bitmap),
    ];
    eprintln!(
        "read file index: {} files evaluated, {} skipped{}, {} rows skipped, {} fallbacks",
        m.file_index_files,
        m.file_index_files_skipped,
        by_kind(kinds.into_iter()),
        m.file_index_rows_skipped,
        m.file_index_fallbacks
    );
}

fn progress_bar(total: u64) -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() || total < 100_000 {
        return None;
    }
    let bar = ProgressBar::new(total);
    let style = ProgressStyle::with_template(
        "{bar:40} {pos}/{len} rows (planned, before filters) {elapsed}",
    )
    .map_err(|e| Error::internal(e.to_string()))
    .ok()?;
    bar.set_style(style);
    Some(bar)
}

fn print_metrics(plan: &Plan) {
    let m = &plan.metrics;
    eprintln!(
        "plan: snapshot {} | manifests {} (skipped {} by partition, {} by bucket) | live files {} | \
         skipped {} by partition, {} by bucket, {} by stats, {} by level | planned {} files in {} splits | {:.1} ms",
        plan.snapshot_id.map_or("none".to_string(), |s| s.to_string()),
        m.manifests_total,
        m.manifests_skipped_by_partition,
        m.manifests_skipped_by_bucket,
        m.live_files,
        m.files_skipped_by_partition,
        m.files_skipped_by_bucket,
        m.files_skipped_by_stats,
        m.files_skipped_by_level,
        m.files_planned,
        m.splits,
        m.plan_micros as f64 / 1000.0
    );
    let fi = &m.file_index;
    eprintln!(
        "plan file index (embedded): {} files evaluated, {} skipped{}, {} fallbacks",
        fi.files_evaluated,
        fi.files_skipped,
        by_kind(
            fi.files_skipped_by_kind
                .iter()
                .map(|(k, v)| (k.as_str(), *v))
        ),
        fi.fallbacks
    );
}

/// ` (bitmap 1, bsi 2)`, or nothing when every count is zero.
fn by_kind<'a>(counts: impl Iterator<Item = (&'a str, u64)>) -> String {
    let parts: Vec<String> = counts
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}
