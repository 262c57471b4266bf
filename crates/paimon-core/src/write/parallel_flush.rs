//! Flushing the primary-key bucket writers of one [`TableWrite`](super::TableWrite)
//! concurrently: at `prepare_commit` every bucket's sort, merge, Parquet/ORC/Avro encoding and
//! file writes, and, when the shared write buffer is full, the buffers the sequential loop
//! would free.
//!
//! Each bucket's flush is independent (its own buffer, spill files, file names and sequence
//! numbers), so running them at once changes no byte of what is written, only when. A flush
//! runs on a blocking thread (`spawn_blocking`) that drives the bucket's whole flush with
//! `Handle::block_on`: the format writers are created, filled and finished inside that one
//! call and never cross an `.await` of a `Send` task (orc-rust's writer is not `Send`), and the
//! [`KvWriter`] itself moves to the thread and back. At most `parallelism` flushes run at a
//! time (default: the available cores), so memory beyond the shared buffer is at most that
//! many buckets' sort copies, as one is today. Results come back in the order the writers
//! were given, whatever order they finish in; every flush runs to its end (none is
//! abandoned half-written) and the first error in that order is the caller's.
//!
//! With `parallelism` 1, a single writer, or outside a tokio runtime the flushes run one after
//! another on the caller's task, stopping at the first error, exactly as before.

use std::panic::resume_unwind;

use futures::StreamExt;
use tokio::runtime::Handle;

use super::kv_writer::KvWriter;
use crate::spec::manifest::DataFileMeta;
use crate::{Error, Result};

/// What a bucket writer is asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FlushJob {
    /// Free the buffer's memory (spill, or level-0 files when it may not spill).
    Memory,
    /// Merge the spilled runs and the buffer into level-0 files and return the files written
    /// since the last commit.
    Commit,
}

/// One writer's outcome: its key, the writer (`None` only when its task was cancelled, e.g.
/// by a runtime shutting down) and the job's result.
pub(crate) type Flushed<K> = (K, Option<KvWriter>, Result<Vec<DataFileMeta>>);

/// The default number of concurrent flushes: the available cores.
pub(crate) fn default_parallelism() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

impl KvWriter {
    /// Runs `job` (files are returned for [`FlushJob::Commit`] only).
    async fn run(&mut self, job: FlushJob) -> Result<Vec<DataFileMeta>> {
        match job {
            FlushJob::Memory => self.flush_memory().await.map(|()| Vec::new()),
            FlushJob::Commit => self.prepare_commit().await,
        }
    }
}

/// Runs `job` on every writer, up to `parallelism` at once; outcomes in input order. A panic
/// in a flush is resumed on the caller.
pub(crate) async fn flush_writers<K: Send + 'static>(
    writers: Vec<(K, KvWriter)>,
    job: FlushJob,
    parallelism: usize,
) -> Vec<Flushed<K>> {
    let handle = match Handle::try_current() {
        Ok(h) if parallelism > 1 && writers.len() > 1 => h,
        _ => return sequential(writers, job).await,
    };
    let tasks = writers
        .into_iter()
        .enumerate()
        .map(|(i, (key, mut writer))| {
            let handle = handle.clone();
            let task = tokio::task::spawn_blocking(move || {
                let result = handle.block_on(writer.run(job));
                (writer, result)
            });
            async move { (i, key, task.await) }
        });
    // Unordered, so a long flush does not hold back the next start; every task has finished
    // when `collect` returns (none is left running on an error).
    let mut joined: Vec<_> = futures::stream::iter(tasks)
        .buffer_unordered(parallelism)
        .collect()
        .await;
    joined.sort_by_key(|(i, _, _)| *i);
    joined
        .into_iter()
        .map(|(_, key, joined)| match joined {
            Ok((writer, result)) => (key, Some(writer), result),
            Err(e) if e.is_panic() => resume_unwind(e.into_panic()),
            Err(e) => (
                key,
                None,
                Err(Error::internal(format!(
                    "a bucket flush was cancelled: {e}"
                ))),
            ),
        })
        .collect()
}

/// One writer after another on the caller's task, stopping at the first error (the writers
/// after it are returned untouched, with no files).
async fn sequential<K>(writers: Vec<(K, KvWriter)>, job: FlushJob) -> Vec<Flushed<K>> {
    let mut out = Vec::with_capacity(writers.len());
    let mut failed = false;
    for (key, mut writer) in writers {
        let result = match failed {
            true => Ok(Vec::new()),
            false => writer.run(job).await,
        };
        failed |= result.is_err();
        out.push((key, Some(writer), result));
    }
    out
}
