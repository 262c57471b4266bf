//! The baseline of `paimon bench`: the planned Parquet files read directly with arrow-rs,
//! without Paimon, with the same file concurrency and batch size as the Paimon side.
//!
//! Two variants are timed. *Delivered* hands every batch to the caller, as a table read must:
//! one spawned decoding task per file feeds a bounded channel and the caller consumes the batches
//! as they come. *In-task* counts rows inside the decoding tasks and drops the batches there, so
//! nothing crosses threads: the raw decoding cost, a lower bound for any reader.

use std::num::NonZeroUsize;

use arrow::array::RecordBatch;
use futures::{stream, StreamExt, TryStreamExt};
use paimon_core::{Error, Result};
use parquet::arrow::{ParquetRecordBatchStreamBuilder, ProjectionMask};
use tokio::sync::mpsc;

/// One Parquet file and the top-level columns the Paimon side decodes from it.
#[derive(Debug, Clone)]
pub struct DirectFile {
    /// Local path or `file:` URL.
    pub location: String,
    /// Column names to decode; `None` decodes every column.
    pub columns: Option<Vec<String>>,
}

/// Settings shared by both sides.
#[derive(Debug, Clone, Copy)]
pub struct DirectSettings {
    /// Files decoded at once.
    pub concurrency: NonZeroUsize,
    /// Rows per batch.
    pub batch_size: usize,
}

type BatchStream = parquet::arrow::async_reader::ParquetRecordBatchStream<tokio::fs::File>;

async fn open(file: &DirectFile, batch_size: usize) -> Result<BatchStream> {
    let local = file
        .location
        .strip_prefix("file:")
        .unwrap_or(&file.location)
        .to_string();
    let f = tokio::fs::File::open(&local)
        .await
        .map_err(|e| Error::io(format!("{local}: {e}")))?;
    let builder = ParquetRecordBatchStreamBuilder::new(f)
        .await?
        .with_batch_size(batch_size);
    let mask = match &file.columns {
        None => ProjectionMask::all(),
        Some(names) => {
            let schema = builder.schema();
            let roots: Vec<usize> = names
                .iter()
                .filter_map(|n| schema.index_of(n).ok())
                .collect();
            ProjectionMask::roots(builder.parquet_schema(), roots)
        }
    };
    Ok(builder.with_projection(mask).build()?)
}

/// Reads every file, delivering each batch to the caller; returns the row count.
pub async fn read_delivered(files: &[DirectFile], settings: DirectSettings) -> Result<usize> {
    let batch_size = settings.batch_size;
    let opened = stream::iter(files.iter().cloned()).map(move |file| {
        let (tx, rx) = mpsc::channel::<Result<RecordBatch>>(2);
        tokio::spawn(async move {
            let mut s = match open(&file, batch_size).await {
                Ok(s) => s,
                Err(e) => {
                    let _ = tx.send(Err(e)).await;
                    return;
                }
            };
            while let Some(b) = s.next().await {
                if tx.send(b.map_err(Error::from)).await.is_err() {
                    return;
                }
            }
        });
        let mut rx = rx;
        stream::poll_fn(move |cx| rx.poll_recv(cx))
    });
    opened
        .flatten_unordered(settings.concurrency.get())
        .try_fold(0usize, |acc, b| async move { Ok(acc + b.num_rows()) })
        .await
}

/// Reads every file, counting rows inside the decoding tasks; returns the row count.
pub async fn read_in_task(files: &[DirectFile], settings: DirectSettings) -> Result<usize> {
    let batch_size = settings.batch_size;
    let counts = stream::iter(files.iter().cloned())
        .map(|file| {
            tokio::spawn(async move {
                open(&file, batch_size)
                    .await?
                    .try_fold(0usize, |acc, b| async move { Ok(acc + b.num_rows()) })
                    .await
                    .map_err(Error::from)
            })
        })
        .buffer_unordered(settings.concurrency.get())
        .map(|r| {
            r.map_err(|e| Error::internal(e.to_string()))
                .and_then(|x| x)
        })
        .try_collect::<Vec<_>>()
        .await?;
    Ok(counts.into_iter().sum())
}

/// Resets the process's peak resident set size (Linux `clear_refs` 5); false elsewhere.
pub fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// The process's peak resident set size since the last reset, in MiB (Linux `VmHWM`).
pub fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}
