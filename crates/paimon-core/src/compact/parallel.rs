//! The buckets of one compaction run at once, up to a parallelism (by default twice the
//! available cores, `CompactBuilder::with_parallelism`: each bucket's read, merge, file writes
//! and payload build are independent of the others, and mostly but not wholly CPU-bound),
//! through [`crate::blocking::map_blocking`]. Outcomes come back in bucket order; every
//! started bucket runs to its end before the first error is returned (no compaction keeps
//! writing after the caller has returned).

use std::sync::Arc;

use super::{BucketCompaction, BucketCx};
use crate::blocking::map_blocking;
use crate::commit::CommitMessage;
use crate::scan::DataSplit;
use crate::spec::manifest::DataFileMeta;
use crate::{Error, Result};

/// One bucket's outcome: its report line and commit message, `None` when nothing changed.
type Outcome = Option<(BucketCompaction, CommitMessage)>;

/// Compacts `buckets` with `cx`, up to `parallelism` at once; the outcomes in bucket order.
pub(super) async fn run(
    cx: Arc<BucketCx>,
    buckets: Vec<(DataSplit, Vec<DataFileMeta>)>,
    parallelism: usize,
) -> Result<Vec<Outcome>> {
    let outcomes = map_blocking(buckets, parallelism.max(1), move |(split, files)| {
        let cx = cx.clone();
        async move { cx.compact(split, files).await }
    })
    .await;
    outcomes
        .into_iter()
        .map(|o| o.unwrap_or_else(|| Err(Error::internal("a bucket compaction was cancelled"))))
        .collect()
}
