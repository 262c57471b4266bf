//! Running independent CPU-bound jobs (one bucket's flush or compaction each) on several cores.
//!
//! Each job runs on a blocking thread (`spawn_blocking`) that drives its whole future with
//! `Handle::block_on`: the future is created on that thread and never leaves it, so format
//! writers that are not `Send` (orc-rust's) may live in it. At most `parallelism` jobs run at
//! a time; outputs come back in input order whatever order the jobs finish in, and every
//! started job runs to its end before this returns (none is left running on an error). A
//! panic in a job is resumed on the caller.
//!
//! With `parallelism` 1, a single job, or outside a tokio runtime the jobs run one after
//! another on the caller's task.

use std::future::Future;
use std::panic::resume_unwind;
use std::sync::Arc;

use futures::StreamExt;
use tokio::runtime::Handle;

/// The default number of jobs at once: the available cores, looked up once per process (the
/// lookup reads the cgroup's CPU quota files, a cost a point lookup's reader would pay for
/// every table read it opens).
pub(crate) fn default_parallelism() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `job(item)` for every item, up to `parallelism` at once (see the module docs); the outputs
/// in input order, `None` for a job whose task was cancelled (a runtime shutting down).
pub(crate) async fn map_blocking<I, T, F, Fut>(
    items: Vec<I>,
    parallelism: usize,
    job: F,
) -> Vec<Option<T>>
where
    I: Send + 'static,
    T: Send + 'static,
    F: Fn(I) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = T>,
{
    let handle = match Handle::try_current() {
        Ok(h) if parallelism > 1 && items.len() > 1 => h,
        _ => {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                out.push(Some(job(item).await));
            }
            return out;
        }
    };
    let job = Arc::new(job);
    let tasks = items.into_iter().enumerate().map(|(i, item)| {
        let handle = handle.clone();
        let job = job.clone();
        let task = tokio::task::spawn_blocking(move || handle.block_on(job(item)));
        async move { (i, task.await) }
    });
    // Unordered, so a long job does not hold back the next start.
    let mut joined: Vec<_> = futures::stream::iter(tasks)
        .buffer_unordered(parallelism)
        .collect()
        .await;
    joined.sort_by_key(|(i, _)| *i);
    joined
        .into_iter()
        .map(|(_, joined)| match joined {
            Ok(out) => Some(out),
            Err(e) if e.is_panic() => resume_unwind(e.into_panic()),
            Err(_) => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    /// Outputs keep the input order although later jobs finish first, and no more than
    /// `parallelism` jobs run at once.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn outputs_keep_input_order_and_parallelism_is_bounded() {
        let running = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let (r, p) = (running.clone(), peak.clone());
        let out = map_blocking((0..8u64).collect(), 3, move |i| {
            let (r, p) = (r.clone(), p.clone());
            async move {
                let now = r.fetch_add(1, Ordering::SeqCst) + 1;
                p.fetch_max(now, Ordering::SeqCst);
                // Each job holds its own blocking thread, so a plain sleep stands for work.
                std::thread::sleep(Duration::from_millis(40 - 5 * i));
                r.fetch_sub(1, Ordering::SeqCst);
                i * 10
            }
        })
        .await;
        let want: Vec<Option<u64>> = (0..8).map(|i| Some(i * 10)).collect();
        assert_eq!(out, want);
        assert!(peak.load(Ordering::SeqCst) <= 3);
        assert!(peak.load(Ordering::SeqCst) >= 2, "jobs never overlapped");
    }

    #[tokio::test]
    async fn one_at_a_time_without_parallelism() {
        let out = map_blocking(vec![1, 2, 3], 1, |i| async move { i + 1 }).await;
        assert_eq!(out, vec![Some(2), Some(3), Some(4)]);
    }
}
