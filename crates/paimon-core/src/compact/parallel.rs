//! The buckets of one compaction run at once, up to the available cores (each bucket's read,
//! merge, file writes and payload build are CPU-bound and independent of the others).
//!
//! As the writer's parallel flush (`write::parallel_flush`), each bucket runs on a blocking
//! thread that drives its whole compaction with `Handle::block_on`, so format writers that are
//! not `Send` never cross threads. Outcomes come back in bucket order; every started bucket
//! runs to its end before the first error is returned (no compaction keeps writing after the
//! caller has returned).

use std::panic::resume_unwind;
use std::sync::Arc;

use futures::StreamExt;
use tokio::runtime::Handle;

use super::{BucketCompaction, BucketCx};
use crate::commit::CommitMessage;
use crate::scan::DataSplit;
use crate::spec::manifest::DataFileMeta;
use crate::{Error, Result};

/// One bucket's outcome: its report line and commit message, `None` when nothing changed.
type Outcome = Option<(BucketCompaction, CommitMessage)>;

/// Compacts `buckets` with `cx`, several at once; the outcomes in bucket order.
pub(super) async fn run(
    cx: Arc<BucketCx>,
    buckets: Vec<(DataSplit, Vec<DataFileMeta>)>,
) -> Result<Vec<Outcome>> {
    let parallelism = std::thread::available_parallelism().map_or(1, |n| n.get());
    let handle = match Handle::try_current() {
        Ok(h) if parallelism > 1 && buckets.len() > 1 => h,
        _ => {
            let mut out = Vec::with_capacity(buckets.len());
            for (split, files) in buckets {
                out.push(cx.compact(split, files).await?);
            }
            return Ok(out);
        }
    };
    let tasks = buckets.into_iter().map(|(split, files)| {
        let cx = cx.clone();
        let handle = handle.clone();
        tokio::task::spawn_blocking(move || handle.block_on(cx.compact(split, files)))
    });
    let joined: Vec<_> = futures::stream::iter(tasks)
        .buffered(parallelism)
        .collect()
        .await;
    joined
        .into_iter()
        .map(|j| match j {
            Ok(outcome) => outcome,
            Err(e) if e.is_panic() => resume_unwind(e.into_panic()),
            Err(e) => Err(Error::internal(format!(
                "a bucket compaction was cancelled: {e}"
            ))),
        })
        .collect()
}
