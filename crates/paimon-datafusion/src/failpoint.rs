//! Test-only fault injection (feature `failpoints`, never in a default build).
//!
//! With the environment variable [`FAIL_SCAN_ONCE`] naming a file path, the first scan
//! partition (in any process) that creates that file fails with a storage error after its
//! first batch; later partitions, and the retry of the failed one, read normally. A test
//! sets it on the processes that execute scans (Ballista executors) to check that a retried
//! task neither loses nor duplicates rows, and that storage errors are retried at all.
//!
//! With [`FAIL_SINK_ONCE`] naming a file path, the first `INSERT` sink to create that file
//! fails with a storage error right after its commit: the retried task runs the same plan
//! (same commit identity) and must not commit again.

use arrow::record_batch::RecordBatch;
use datafusion::common::Result;
use futures::{Stream, StreamExt};

use crate::error::to_df_error;

/// The environment variable naming the scan's marker file.
pub const FAIL_SCAN_ONCE: &str = "PAIMON_DATAFUSION_FAIL_SCAN_ONCE";

/// The environment variable naming the sink's marker file.
pub const FAIL_SINK_ONCE: &str = "PAIMON_DATAFUSION_FAIL_SINK_ONCE";

/// Whether the marker file named by `var` was created by this call (atomically, so one
/// caller wins across processes).
fn claim_marker(var: &str) -> bool {
    let Some(path) = std::env::var_os(var) else {
        return false;
    };
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .is_ok()
}

/// Whether the sink of `table` that just committed is the one to fail (see the module doc).
pub(crate) fn claim_sink(table: &str) -> bool {
    let claimed = claim_marker(FAIL_SINK_ONCE);
    if claimed {
        tracing::warn!(
            table = %table,
            "paimon sink: failpoint: this task fails after its commit"
        );
    }
    claimed
}

/// Whether partition `partition` of a scan of `table` is the one to fail: it creates the
/// marker file (atomically, so one partition wins across processes).
pub(crate) fn claim(table: &str, partition: usize) -> bool {
    let claimed = claim_marker(FAIL_SCAN_ONCE);
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
