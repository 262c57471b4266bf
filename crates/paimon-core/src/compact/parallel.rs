//! The buckets of one compaction run at once, up to the available cores (each bucket's read,
//! merge, file writes and payload build are CPU-bound and independent of the others), through
//! [`crate::blocking::map_blocking`]. Outcomes come back in bucket order; every started bucket
//! runs to its end before the first error is returned (no compaction keeps writing after the
//! caller has returned).

use std::sync::Arc;

use super::{BucketCompaction, BucketCx};
use crate::blocking::{default_parallelism, map_blocking};
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
    let outcomes = map_blocking(buckets, default_parallelism(), move |(split, files)| {
        let cx = cx.clone();
        async move { cx.compact(split, files).await }
    })
    .await;
    outcomes
        .into_iter()
        .map(|o| o.unwrap_or_else(|| Err(Error::internal("a bucket compaction was cancelled"))))
        .collect()
}
