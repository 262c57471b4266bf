//! Test-only fault injection (feature `failpoints`, never in a default build).
//!
//! With the environment variable [`FAIL_SCAN_ONCE`] naming a file path, the first scan
//! partition (in any process) that creates that file fails with a storage error after its
//! first batch; later partitions, and the retry of the failed one, read normally. A test
//! sets it on the processes that execute scans (Ballista executors) to check that a retried
//! task neither loses nor duplicates rows, and that storage errors are retried at all.

use arrow::record_batch::RecordBatch;
use datafusion::common::Result;
use futures::{Stream, StreamExt};

use crate::error::to_df_error;

/// The environment variable naming the marker file.
pub const FAIL_SCAN_ONCE: &str = "PAIMON_DATAFUSION_FAIL_SCAN_ONCE";

/// Whether partition `partition` of a scan of `table` is the one to fail: it creates the
/// marker file (atomically, so one partition wins across processes).
pub(crate) fn claim(table: &str, partition: usize) -> bool {
    let Some(path) = std::env::var_os(FAIL_SCAN_ONCE) else {
        return false;
    };
    let claimed = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .is_ok();
    if claimed {
        tracing::warn!(
            table,
            partition,
            "paimon scan: failpoint: this partition fails after its first batch"
        );
    }
    claimed
}

/// `stream`'s first item, then a storage error of `table` (as paimon-core reports one).
pub(crate) fn fail_after_first<S>(
    stream: S,
    table: String,
) -> impl Stream<Item = Result<RecordBatch>>
where
    S: Stream<Item = Result<RecordBatch>>,
{
    stream.take(1).chain(futures::stream::once(async move {
        Err(to_df_error(
            paimon_core::Error::io("injected storage failure (failpoint)"),
            &table,
        ))
    }))
}
