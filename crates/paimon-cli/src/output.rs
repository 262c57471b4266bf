//! Row output formats: table, csv, jsonl, parquet.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use paimon_core::render::batch_to_json_rows;
use paimon_core::spec::DataField;
use paimon_core::{Error, Result};
use parquet::arrow::ArrowWriter;

/// How rows are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// An aligned text table.
    Table,
    /// CSV with a header line.
    Csv,
    /// One JSON object per line, keys in column order.
    Jsonl,
    /// A Parquet file (needs --output).
    Parquet,
}

enum Sink {
    Table(Vec<RecordBatch>, Box<dyn Write>),
    Csv(arrow::csv::Writer<Box<dyn Write>>),
    Jsonl(Box<dyn Write>),
    Parquet(ArrowWriter<File>),
}

/// Rows per printed block of the `table` format.
const TABLE_BLOCK_ROWS: usize = 10_000;

/// Writes batches in one format.
pub struct RowWriter {
    sink: Sink,
    fields: Vec<DataField>,
    /// Rows already printed in earlier `table` blocks.
    printed: usize,
}

fn print_block(batches: Vec<RecordBatch>, out: &mut Box<dyn Write>) -> Result<usize> {
    if batches.is_empty() {
        return Ok(0);
    }
    let text = arrow::util::pretty::pretty_format_batches(&batches).map_err(arrow_err)?;
    writeln!(out, "{text}").map_err(io_err)?;
    Ok(batches.iter().map(RecordBatch::num_rows).sum())
}

fn io_err(e: std::io::Error) -> Error {
    Error::io(format!("cannot write output: {e}"))
}

fn arrow_err(e: arrow::error::ArrowError) -> Error {
    Error::io(format!("cannot write output: {e}"))
}

impl RowWriter {
    /// A writer to `path` or stdout.
    pub fn new(
        format: OutputFormat,
        path: Option<&Path>,
        schema: SchemaRef,
        fields: Vec<DataField>,
    ) -> Result<Self> {
        let out: Box<dyn Write> = match path {
            Some(p) => Box::new(BufWriter::new(File::create(p).map_err(io_err)?)),
            None => Box::new(BufWriter::new(std::io::stdout().lock())),
        };
        let sink = match format {
            OutputFormat::Table => Sink::Table(Vec::new(), out),
            OutputFormat::Csv => Sink::Csv(
                arrow::csv::WriterBuilder::new()
                    .with_header(true)
                    .build(out),
            ),
            OutputFormat::Jsonl => Sink::Jsonl(out),
            OutputFormat::Parquet => {
                let p = path.ok_or_else(|| {
                    Error::invalid_argument("--format parquet needs --output FILE")
                })?;
                let f = File::create(p).map_err(io_err)?;
                Sink::Parquet(
                    ArrowWriter::try_new(f, schema, None).map_err(|e| Error::io(e.to_string()))?,
                )
            }
        };
        Ok(RowWriter {
            sink,
            fields,
            printed: 0,
        })
    }

    /// Writes one batch.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        match &mut self.sink {
            Sink::Table(batches, out) => {
                batches.push(batch.clone());
                // Never hold a whole table: print a block every TABLE_BLOCK_ROWS rows.
                if batches.iter().map(RecordBatch::num_rows).sum::<usize>() >= TABLE_BLOCK_ROWS {
                    self.printed += print_block(std::mem::take(batches), out)?;
                }
            }
            Sink::Csv(w) => w.write(batch).map_err(arrow_err)?,
            Sink::Jsonl(w) => {
                for row in batch_to_json_rows(batch, &self.fields)? {
                    let line =
                        serde_json::to_string(&row).map_err(|e| Error::internal(e.to_string()))?;
                    writeln!(w, "{line}").map_err(io_err)?;
                }
            }
            Sink::Parquet(w) => w.write(batch).map_err(|e| Error::io(e.to_string()))?,
        }
        Ok(())
    }

    /// Flushes and closes.
    pub fn finish(self) -> Result<()> {
        match self.sink {
            Sink::Table(batches, mut out) => {
                let rows = print_block(batches, &mut out)? + self.printed;
                writeln!(out, "{rows} rows").map_err(io_err)?;
                out.flush().map_err(io_err)
            }
            Sink::Csv(w) => {
                let mut out = w.into_inner();
                out.flush().map_err(io_err)
            }
            Sink::Jsonl(mut w) => w.flush().map_err(io_err),
            Sink::Parquet(w) => w.close().map(|_| ()).map_err(|e| Error::io(e.to_string())),
        }
    }
}
