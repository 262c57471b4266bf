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
//! [`KvWriter`] itself moves to the thread and back ([`crate::blocking`]). At most
//! `parallelism` flushes run at a time (default: the available cores), so memory beyond the
//! shared buffer is at most that many buckets' sort copies. Results come back in the order the writers
//! were given, whatever order they finish in; every flush runs to its end (none is
//! abandoned half-written) and the first error in that order is the caller's.
//!
//! With `parallelism` 1, a single writer, or outside a tokio runtime the flushes run one after
//! another on the caller's task, stopping at the first error, exactly as before.

use tokio::runtime::Handle;

use super::kv_writer::KvWriter;
use crate::blocking::map_blocking;
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

impl KvWriter {
    /// Runs `job` (files are returned for [`FlushJob::Commit`] only).
    async fn run(&mut self, job: FlushJob) -> Result<Vec<DataFileMeta>> {
        match job {
            FlushJob::Memory => self.flush_memory().await.map(|()| Vec::new()),
            FlushJob::Commit => self.prepare_commit().await,
        }
    }
}

/// The buffers Java's memory pool frees when `sizes` (bytes per writer, in key order) reach
/// `limit`: the largest (the first of equal ones), then the next largest, while the total is
/// still at least `limit` and the buffer is not empty. Freeing empties a buffer and changes no
/// other, so these are exactly the writers the one-at-a-time loop would flush, in its order.
pub(crate) fn buffers_to_free<K>(mut sizes: Vec<(K, usize)>, limit: usize) -> Vec<K> {
    let mut total: usize = sizes.iter().map(|(_, b)| b).sum();
    // Stable: of equal buffers the first in key order goes first.
    sizes.sort_by_key(|s| std::cmp::Reverse(s.1));
    let mut chosen = Vec::new();
    for (key, bytes) in sizes {
        if total < limit || bytes == 0 {
            break;
        }
        total -= bytes;
        chosen.push(key);
    }
    chosen
}

/// Runs `job` on every writer, up to `parallelism` at once; outcomes in input order. A panic
/// in a flush is resumed on the caller.
pub(crate) async fn flush_writers<K: Send + 'static>(
    writers: Vec<(K, KvWriter)>,
    job: FlushJob,
    parallelism: usize,
) -> Vec<Flushed<K>> {
    if parallelism <= 1 || writers.len() <= 1 || Handle::try_current().is_err() {
        return sequential(writers, job).await;
    }
    let (keys, writers): (Vec<K>, Vec<KvWriter>) = writers.into_iter().unzip();
    let outcomes = map_blocking(
        writers,
        parallelism,
        move |mut writer: KvWriter| async move {
            let result = writer.run(job).await;
            (writer, result)
        },
    )
    .await;
    keys.into_iter()
        .zip(outcomes)
        .map(|(key, outcome)| match outcome {
            Some((writer, result)) => (key, Some(writer), result),
            None => (
                key,
                None,
                Err(Error::internal("a bucket flush was cancelled")),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The pool's loop: free the first largest buffer while the total reaches the limit.
    fn one_at_a_time(mut sizes: Vec<usize>, limit: usize) -> Vec<usize> {
        let mut freed = Vec::new();
        loop {
            let total: usize = sizes.iter().sum();
            let mut largest: Option<(usize, usize)> = None;
            for (i, &b) in sizes.iter().enumerate() {
                if largest.is_none_or(|(_, l)| b > l) {
                    largest = Some((i, b));
                }
            }
            match largest {
                Some((i, b)) if total >= limit && b > 0 => {
                    freed.push(i);
                    sizes[i] = 0;
                }
                _ => return freed,
            }
        }
    }

    #[test]
    fn the_buffers_freed_together_are_the_loops() {
        let mut state = 0x2545_f491_u64;
        let mut next = |m: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            (state >> 33) % m
        };
        for _ in 0..2000 {
            let n = next(9) as usize;
            // Few distinct sizes, so ties and empty buffers are common.
            let sizes: Vec<usize> = (0..n).map(|_| next(5) as usize * 10).collect();
            let limit = next(200) as usize;
            let keyed: Vec<(usize, usize)> = sizes.iter().copied().enumerate().collect();
            assert_eq!(
                buffers_to_free(keyed, limit),
                one_at_a_time(sizes.clone(), limit),
                "{sizes:?} limit {limit}"
            );
        }
    }
}
