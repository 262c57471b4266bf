//! `paimon write TABLE --input FILE`: append the rows of a Parquet, CSV or JSON-lines file to a
//! table and commit them as one snapshot (thin over `table.new_write()` and
//! `table.new_commit()`); with `--overwrite` the written partitions (or, with
//! `--partition k=v,...`, the partitions matching that spec; or the whole table when it is not
//! partitioned) are replaced in one `OVERWRITE` snapshot.
//!
//! The input is decoded on a blocking thread and handed over batch by batch through a bounded
//! channel; columns are matched to the table by name (CSV and JSON are decoded with the table's
//! own Arrow schema; CSV needs a header row).

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, IsTerminal};
use std::path::{Path, PathBuf};

use arrow::array::RecordBatch;
use std::sync::Arc;

use arrow::datatypes::{Field, Schema, SchemaRef};
use indicatif::{ProgressBar, ProgressStyle};
use paimon_core::arrow::schema::arrow_schema;
use paimon_core::{Error, Result, Table};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use tokio::sync::mpsc;

use crate::args::TableArgs;

/// Input file formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum InputFormat {
    /// Apache Parquet.
    Parquet,
    /// CSV with a header row.
    Csv,
    /// JSON lines (one object per line).
    Json,
}

// Arguments of `write`. (not a doc comment: see `defer` in main.rs)
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    table: TableArgs,
    /// The rows to write: a Parquet, CSV (header row) or JSON-lines file.
    #[arg(long, value_name = "FILE")]
    input: PathBuf,
    /// Input format (default: from the extension: .parquet, .csv, .json/.jsonl/.ndjson).
    #[arg(long, value_enum)]
    format: Option<InputFormat>,
    /// Replace instead of appending: the partitions the input writes to (Java's dynamic
    /// partition overwrite), the partitions matching `--partition`, or the whole table when it
    /// is not partitioned.
    #[arg(long)]
    overwrite: bool,
    /// With `--overwrite`: a static partition spec `k=v[,k=v...]` (a prefix of the partition
    /// keys) whose partitions are replaced, as `INSERT OVERWRITE t PARTITION (...)`.
    #[arg(long, value_name = "SPEC", requires = "overwrite")]
    partition: Option<String>,
    /// Commit user recorded in the snapshot.
    #[arg(long, default_value = "paimon-rs")]
    commit_user: String,
}

const BATCH_ROWS: usize = 8192;

fn format_of(path: &Path, given: Option<InputFormat>) -> Result<InputFormat> {
    if let Some(f) = given {
        return Ok(f);
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    match ext.as_str() {
        "parquet" | "pq" => Ok(InputFormat::Parquet),
        "csv" => Ok(InputFormat::Csv),
        "json" | "jsonl" | "ndjson" => Ok(InputFormat::Json),
        _ => Err(Error::invalid_argument(format!(
            "cannot tell the format of '{}' from its extension; pass --format",
            path.display()
        ))),
    }
}

fn open(path: &Path) -> Result<File> {
    File::open(path).map_err(|e| {
        Error::io(format!("cannot open {}: {e}", path.display()))
            .with_context("file", path.display().to_string())
    })
}

type Batches = Box<dyn Iterator<Item = Result<RecordBatch>> + Send>;

/// The input's batches and its row count when the format records it.
fn reader(path: &Path, format: InputFormat, schema: SchemaRef) -> Result<(Batches, Option<u64>)> {
    let file = open(path)?;
    let arrow_err = |e: arrow::error::ArrowError| Error::from(e);
    Ok(match format {
        InputFormat::Parquet => {
            let builder =
                ParquetRecordBatchReaderBuilder::try_new(file)?.with_batch_size(BATCH_ROWS);
            let rows = u64::try_from(builder.metadata().file_metadata().num_rows()).ok();
            let reader = builder.build()?;
            (Box::new(reader.map(move |b| b.map_err(arrow_err))), rows)
        }
        InputFormat::Csv => {
            let reader = arrow::csv::ReaderBuilder::new(schema)
                .with_header(true)
                .with_batch_size(BATCH_ROWS)
                .build(BufReader::new(file))?;
            (Box::new(reader.map(move |b| b.map_err(arrow_err))), None)
        }
        InputFormat::Json => {
            let reader = arrow::json::ReaderBuilder::new(schema)
                .with_batch_size(BATCH_ROWS)
                .build(BufReader::new(file))?;
            (Box::new(reader.map(move |b| b.map_err(arrow_err))), None)
        }
    })
}

fn progress_bar(total: Option<u64>) -> Option<ProgressBar> {
    let total = total.filter(|t| *t >= 100_000)?;
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new(total);
    let style = ProgressStyle::with_template("{bar:40} {pos}/{len} rows written {elapsed}").ok()?;
    bar.set_style(style);
    Some(bar)
}

/// Decodes the input on a blocking thread into a bounded channel.
fn spawn_reader(
    table: &Table,
    args: &Args,
) -> Result<(mpsc::Receiver<Result<RecordBatch>>, Option<u64>)> {
    let format = format_of(&args.input, args.format)?;
    // Decoded as nullable so that nulls in NOT NULL columns get the writer's error naming them.
    let schema = arrow_schema(&table.schema().fields)?;
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| f.as_ref().clone().with_nullable(true))
        .collect();
    let schema = Arc::new(Schema::new(fields));
    let (batches, rows) = reader(&args.input, format, schema)?;
    let (tx, rx) = mpsc::channel(4);
    tokio::task::spawn_blocking(move || {
        for b in batches {
            if tx.blocking_send(b).is_err() {
                break;
            }
        }
    });
    Ok((rx, rows))
}

/// Runs `write`.
pub async fn run(args: Args) -> Result<()> {
    let mut table = args.table.load().await?;
    let spec = args.partition.as_deref().map(parse_spec).transpose()?;
    if spec.is_some() {
        // An explicit spec is a static overwrite (Java ignores it in dynamic mode).
        let dynamic_off = HashMap::from([(
            "dynamic-partition-overwrite".to_string(),
            "false".to_string(),
        )]);
        table = table.with_options(&dynamic_off)?;
    }
    let mut write = table
        .new_write()
        .with_commit_user(args.commit_user.clone())
        .build()?;
    let (mut batches, total) = spawn_reader(&table, &args)?;
    let bar = progress_bar(total);
    let mut rows = 0u64;
    while let Some(batch) = batches.recv().await {
        let batch = batch?;
        write.write(&batch).await?;
        rows += batch.num_rows() as u64;
        if let Some(b) = &bar {
            b.set_position(rows);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let messages = write.prepare_commit().await?;
    let files: usize = messages.iter().map(|m| m.new_files.len()).sum();
    let commit = table.new_commit();
    let snapshots = if args.overwrite {
        commit
            .overwrite_messages(&messages, write.commit_user(), spec.as_ref())
            .await?
    } else {
        commit
            .commit_messages(&messages, write.commit_user())
            .await?
    };
    match snapshots.last() {
        Some(s) => println!("snapshot {}: {rows} rows in {files} files", s.id),
        None => println!("nothing to commit: the input has no rows"),
    }
    Ok(())
}

/// `k=v[,k=v...]` as a partition spec.
fn parse_spec(text: &str) -> Result<HashMap<String, String>> {
    text.split(',')
        .map(|kv| match kv.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.to_string())),
            _ => Err(Error::invalid_argument(format!(
                "--partition expects k=v[,k=v...], got '{kv}'"
            ))),
        })
        .collect()
}
