//! Scan planning: from a table, a snapshot and a filter to a [`Plan`] of [`Split`]s.
//!
//! [`Table::scan`](crate::Table::scan) → [`TableScanBuilder`] → [`TableScan`]:
//! [`TableScan::plan`] → [`Plan`] of [`Split`]s ([`DataSplit`]), read by [`TableScan::reader`]
//! (or both at once by [`TableScan::to_arrow`]). Planning reads metadata only; reading a split
//! needs nothing but the split.

mod bucket_pruner;
mod context;
mod entry_cache;
pub(crate) mod entry_merge;
mod file_index;
mod file_stats;
pub(crate) mod global_index;
mod live_filter;
pub(crate) mod manifest_reader;
mod metrics;
mod plan;
mod split_generator;
mod table_scan;

pub use context::{IntoPredicate, ScanContext, ScanFilter, SnapshotSelector, TableScanBuilder};
pub use entry_cache::{CachedEntries, EntryCacheKey, ManifestEntryCache};
pub use file_stats::{value_stats, DecodedStats};
pub use metrics::{FileIndexMetrics, GlobalIndexMetrics, ScanMetrics};
pub use plan::{DataSplit, DeletionFile, Plan, RowRanges, Split};
pub use table_scan::TableScan;

#[cfg(test)]
mod send_tests {
    use super::TableScan;

    fn assert_send<T: Send>(_: T) {}

    /// Engines (DataFusion's `async_trait` methods, `tokio::spawn`) need the planning future
    /// to be `Send` for any borrow of the scan: this fails to compile when it is not.
    #[test]
    fn plan_future_is_send() {
        fn check(scan: &TableScan) {
            assert_send(scan.plan());
        }
        let _ = check;
    }
}
