//! `paimon bench-write DIR`: writes and commits generated rows into a new fixed-bucket
//! primary-key table through `table.new_write()`, against writing the same batches to one plain
//! Parquet file with arrow-rs (the limit), in one run, reported as a ratio with peak RSS.
//!
//! Rows are `id BIGINT` (a permutation of `0..rows`, so the writer must sort), `v BIGINT` and a
//! short `s STRING`, generated one batch at a time inside both timed sides alike (the generator
//! is deterministic and cheap). With `--updates F` a second write and commit rewrites the
//! first `F * rows` generated ids with new values; with `--compact` a full compaction follows
//! (issue 12's benchmark: `--updates 0.1 --compact -o deletion-vectors.enabled=true
//! -o pk-btree.index.columns=v`); the paimon side's time is the sum of its steps. Peak RSS is
//! the process high-water mark after each side (Linux only); run the sides separately with
//! `--side` for independent memory figures. Both sides move by tens of percent from run to
//! run on a shared machine: `--repeat N` runs them N times and reports the medians.

use std::fs::File;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow::array::{Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema as ArrowSchema, SchemaRef};
use paimon_core::spec::type_text::parse_fields;
use paimon_core::{Error, Result, Schema, Table};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

use super::bench_direct::peak_rss_mib;

/// Which sides to time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Side {
    /// Both, the direct arrow-rs write first.
    Both,
    /// Only the paimon-rs table write and commit.
    Paimon,
    /// Only the direct arrow-rs Parquet write.
    Direct,
}

// Arguments of `bench-write`. (not a doc comment: see `defer` in main.rs)
#[derive(Debug, clap::Args)]
pub struct Args {
    /// An empty (or new) directory to write into.
    dir: PathBuf,
    /// Rows to write.
    #[arg(long, default_value_t = 3_000_000)]
    rows: u64,
    /// Buckets of the primary-key table.
    #[arg(long, default_value_t = 8)]
    buckets: u32,
    /// Rows per input batch.
    #[arg(long, default_value_t = 8192)]
    batch_rows: u64,
    /// Which sides to time.
    #[arg(long, value_enum, default_value_t = Side::Both)]
    side: Side,
    /// Fraction of the rows written again (new values) in a second commit.
    #[arg(long, default_value_t = 0.0)]
    updates: f64,
    /// Fully compact the table after the commits (timed with them).
    #[arg(long)]
    compact: bool,
    /// Table option of the written table (repeatable), e.g. `-o write-buffer-size=64 mb`.
    #[arg(short = 'o', long = "option", value_name = "KEY=VALUE",
          value_parser = crate::args::parse_key_value)]
    options: Vec<(String, String)>,
    /// Primary-key buckets flushed at once (default: the available cores; 1: sequential).
    #[arg(long)]
    flush_parallelism: Option<usize>,
    /// Runs of both sides, one after the other (each paimon run into a new table); with more
    /// than one, the medians per step and the ratio of the median totals follow.
    #[arg(long, default_value_t = 1)]
    repeat: usize,
}

fn arrow_schema() -> SchemaRef {
    Arc::new(ArrowSchema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("v", DataType::Int64, true),
        Field::new("s", DataType::Utf8, true),
    ]))
}

/// Batch `index` of the input: ids are `i * P mod rows` for a P coprime with `rows`, so every
/// id appears once, in scattered order.
fn batch(schema: &SchemaRef, rows: u64, batch_rows: u64, index: u64) -> Result<RecordBatch> {
    generated(schema, rows, batch_rows, index, 0)
}

/// Batch `index` of the input with values shifted by `version` (0: the first write; 1: the
/// updates), so an update changes every value column.
fn generated(
    schema: &SchemaRef,
    rows: u64,
    batch_rows: u64,
    index: u64,
    version: i64,
) -> Result<RecordBatch> {
    const P: u64 = 2_654_435_761;
    let step = (1..)
        .map(|k| P + k)
        .find(|p| gcd(*p, rows.max(1)) == 1)
        .unwrap_or(1);
    let start = index * batch_rows;
    let end = (start + batch_rows).min(rows);
    let ids: Vec<i64> = (start..end)
        .map(|i| ((u128::from(i) * u128::from(step)) % u128::from(rows.max(1))) as i64)
        .collect();
    let v: Int64Array = ids.iter().map(|id| Some(id * 7 + version)).collect();
    let s: StringArray = ids
        .iter()
        .map(|id| Some(format!("s{}", (id + version) % 1000)))
        .collect();
    RecordBatch::try_new(
        schema.clone(),
        vec![Arc::new(Int64Array::from(ids)), Arc::new(v), Arc::new(s)],
    )
    .map_err(|e| Error::internal(format!("cannot build a bench batch: {e}")))
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn batches(args: &Args) -> u64 {
    args.rows.div_ceil(args.batch_rows.max(1))
}

/// The direct side: every batch into one Parquet file (zstd level 1, as the table's files).
fn write_direct(args: &Args, schema: &SchemaRef) -> Result<Duration> {
    let path = args.dir.join("direct.parquet");
    let started = Instant::now();
    let file = File::create(&path)
        .map_err(|e| Error::io(format!("cannot create {}: {e}", path.display())))?;
    let level = ZstdLevel::try_new(1).map_err(|e| Error::internal(e.to_string()))?;
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(level))
        .build();
    let err = |e: parquet::errors::ParquetError| Error::internal(format!("direct write: {e}"));
    let mut writer = ArrowWriter::try_new(file, schema.clone(), Some(props)).map_err(err)?;
    for i in 0..batches(args) {
        writer
            .write(&batch(schema, args.rows, args.batch_rows, i)?)
            .map_err(err)?;
    }
    writer.close().map_err(err)?;
    Ok(started.elapsed())
}

/// The directory of the paimon side's table.
fn table_dir(args: &Args) -> PathBuf {
    args.dir.join("pk")
}

/// One timed step of the paimon side: its label, time and, for a write, where the time went.
type Step = (&'static str, Duration, Option<String>);

/// The paimon side: a new primary-key table, one write, one commit; then the updates' write
/// and commit and the full compaction when asked. Returns each step's label and time.
async fn write_paimon(args: &Args, schema: &SchemaRef) -> Result<Vec<Step>> {
    let location = table_dir(args);
    let location = location
        .to_str()
        .ok_or_else(|| Error::invalid_argument("the directory is not UTF-8"))?;
    let mut builder = Schema::builder()
        .columns(parse_fields("id BIGINT NOT NULL, v BIGINT, s STRING")?)
        .primary_key(["id"])
        .option("bucket", args.buckets.to_string());
    for (k, v) in &args.options {
        builder = builder.option(k.clone(), v.clone());
    }
    let table = Table::create(location, builder.build()?).await?;
    let (t, detail) = write_commit(&table, args, schema, 0).await?;
    let mut steps = vec![("paimon-rs write + commit", t, Some(detail))];
    if args.updates > 0.0 {
        let (t, detail) = write_commit(&table, args, schema, 1).await?;
        steps.push(("paimon-rs updates + commit", t, Some(detail)));
    }
    if args.compact {
        let started = Instant::now();
        table
            .compact()
            .full(true)
            .with_commit_user("bench-write")
            .execute()
            .await?;
        steps.push(("paimon-rs full compaction", started.elapsed(), None));
    }
    Ok(steps)
}

/// One write of version `version`'s rows (the first `updates * rows` when `version > 0`) and
/// its commit: the time, and how it splits between the rows going in (generated, routed and
/// buffered), `prepare_commit` (flushes, compaction on write) and the commit.
async fn write_commit(
    table: &Table,
    args: &Args,
    schema: &SchemaRef,
    version: i64,
) -> Result<(Duration, String)> {
    let limit = match version {
        0 => args.rows,
        _ => ((args.rows as f64) * args.updates.clamp(0.0, 1.0)) as u64,
    };
    let started = Instant::now();
    let mut builder = table.new_write().with_commit_user("bench-write");
    if let Some(n) = args.flush_parallelism {
        builder = builder.with_flush_parallelism(n);
    }
    let mut write = builder.build()?;
    let mut written = 0;
    for i in 0..batches(args) {
        if written >= limit {
            break;
        }
        let mut b = generated(schema, args.rows, args.batch_rows, i, version)?;
        if written + b.num_rows() as u64 > limit {
            b = b.slice(0, (limit - written) as usize);
        }
        written += b.num_rows() as u64;
        write.write(&b).await?;
    }
    let rows_in = started.elapsed();
    let messages = write.prepare_commit().await?;
    let prepared = started.elapsed();
    table
        .new_commit()
        .commit_messages(&messages, write.commit_user())
        .await?;
    let total = started.elapsed();
    let detail = format!(
        "rows in {:.3} s, prepare_commit {:.3} s, commit {:.3} s",
        rows_in.as_secs_f64(),
        (prepared - rows_in).as_secs_f64(),
        (total - prepared).as_secs_f64()
    );
    Ok((total, detail))
}

fn report(label: &str, rows: u64, t: Duration) {
    let peak = peak_rss_mib().map_or_else(|| "n/a".to_string(), |p| format!("{p:.0} MiB"));
    println!(
        "{label:<28} {:>10.3} s  {:>12.0} rows/s  peak RSS so far {peak}",
        t.as_secs_f64(),
        rows as f64 / t.as_secs_f64().max(1e-9)
    );
}

/// Runs `bench-write`.
pub async fn run(args: Args) -> Result<()> {
    std::fs::create_dir_all(&args.dir)
        .map_err(|e| Error::io(format!("cannot create {}: {e}", args.dir.display())))?;
    let schema = arrow_schema();
    println!(
        "{} rows, {} buckets, batches of {}",
        args.rows, args.buckets, args.batch_rows
    );
    let repeat = args.repeat.max(1);
    let mut runs = Vec::with_capacity(repeat);
    for r in 0..repeat {
        if repeat > 1 {
            println!("-- run {} of {repeat}", r + 1);
        }
        let table = table_dir(&args);
        if r > 0 && table.exists() {
            std::fs::remove_dir_all(&table)
                .map_err(|e| Error::io(format!("cannot remove {}: {e}", table.display())))?;
        }
        runs.push(run_once(&args, &schema).await?);
    }
    if repeat > 1 {
        summarize(&args, &runs);
    }
    Ok(())
}

/// One run: the direct side's time (unless skipped) and the paimon side's steps (none when
/// skipped), each reported as it ends.
async fn run_once(args: &Args, schema: &SchemaRef) -> Result<(Option<Duration>, Vec<Step>)> {
    let mut direct = None;
    if args.side != Side::Paimon {
        let t = write_direct(args, schema)?;
        report("arrow-rs Parquet (limit)", args.rows, t);
        direct = Some(t);
    }
    if args.side == Side::Direct {
        return Ok((direct, Vec::new()));
    }
    let steps = write_paimon(args, schema).await?;
    for (label, t, detail) in &steps {
        report(label, args.rows, *t);
        if let Some(d) = detail {
            println!("    ({d})");
        }
    }
    let total: Duration = steps.iter().map(|(_, t, _)| *t).sum();
    if steps.len() > 1 {
        report("paimon-rs all steps", args.rows, total);
    }
    if let Some(d) = direct {
        println!("ratio paimon-rs / arrow-rs: {:.2}", ratio(total, d));
    }
    Ok((direct, steps))
}

fn ratio(paimon: Duration, direct: Duration) -> f64 {
    paimon.as_secs_f64() / direct.as_secs_f64().max(1e-9)
}

/// The median of `times` (the upper one of an even count).
fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times.get(times.len() / 2).copied().unwrap_or_default()
}

/// Medians over the runs: each step, the direct side, the paimon total, and the ratio of the
/// median totals with the range of the runs' own ratios.
fn summarize(args: &Args, runs: &[(Option<Duration>, Vec<Step>)]) {
    println!("-- medians of {} runs", runs.len());
    let directs: Vec<Duration> = runs.iter().filter_map(|(d, _)| *d).collect();
    let direct = (!directs.is_empty()).then(|| median(directs));
    if let Some(d) = direct {
        report("arrow-rs Parquet (limit)", args.rows, d);
    }
    let Some((_, first)) = runs.first().filter(|(_, steps)| !steps.is_empty()) else {
        return;
    };
    for (i, (label, _, _)) in first.iter().enumerate() {
        let times = runs.iter().filter_map(|(_, s)| s.get(i).map(|s| s.1));
        report(label, args.rows, median(times.collect()));
    }
    let totals: Vec<Duration> = runs
        .iter()
        .map(|(_, s)| s.iter().map(|(_, t, _)| *t).sum())
        .collect();
    let total = median(totals.clone());
    report("paimon-rs all steps", args.rows, total);
    if let Some(d) = direct {
        let each: Vec<f64> = runs
            .iter()
            .zip(&totals)
            .filter_map(|((d, _), t)| d.map(|d| ratio(*t, d)))
            .collect();
        let lo = each.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = each.iter().copied().fold(0.0, f64::max);
        println!(
            "ratio paimon-rs / arrow-rs (medians): {:.2}  (runs: {lo:.2} to {hi:.2})",
            ratio(total, d)
        );
    }
}
