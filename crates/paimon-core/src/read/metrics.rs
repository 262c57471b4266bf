//! Counters of work a [`super::TableRead`] avoided: row groups skipped by statistics and rows
//! dropped by key predicates before merging.
//!
//! Plays the role of Java's `org.apache.paimon.operation.metrics.ScanMetrics` on the read side
//! (Paimon 2.0 has no read-side equivalent). Counters are shared by a read and its clones and
//! accumulate over every stream they produce; they are updated with relaxed atomics and are
//! meant for diagnostics and tests, not for control flow.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::read::file_reader::RowGroupFilter;

/// Live counters of one read.
#[derive(Debug, Default)]
pub struct ReadMetrics {
    raw_row_groups_skipped: AtomicU64,
    merge_row_groups_skipped: AtomicU64,
    rows_dropped_before_merge: AtomicU64,
}

/// A copy of the counters at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadMetricsSnapshot {
    /// Parquet row groups skipped by the whole predicate in files read without merging.
    pub raw_row_groups_skipped: u64,
    /// Parquet row groups skipped by the primary-key conjuncts in files of merged splits.
    pub merge_row_groups_skipped: u64,
    /// Rows removed by the primary-key conjuncts from sorted runs before merging.
    pub rows_dropped_before_merge: u64,
}

impl ReadMetrics {
    /// The current values.
    pub fn snapshot(&self) -> ReadMetricsSnapshot {
        ReadMetricsSnapshot {
            raw_row_groups_skipped: self.raw_row_groups_skipped.load(Ordering::Relaxed),
            merge_row_groups_skipped: self.merge_row_groups_skipped.load(Ordering::Relaxed),
            rows_dropped_before_merge: self.rows_dropped_before_merge.load(Ordering::Relaxed),
        }
    }

    /// Counts `n` rows dropped before a merge.
    pub(crate) fn add_rows_dropped_before_merge(&self, n: u64) {
        self.rows_dropped_before_merge
            .fetch_add(n, Ordering::Relaxed);
    }

    /// Wraps `filter` so that every skipped row group is counted (as a merge-path skip when
    /// `merge`, else as a raw one).
    pub(crate) fn counting(
        self: &Arc<Self>,
        filter: RowGroupFilter,
        merge: bool,
    ) -> RowGroupFilter {
        let metrics = self.clone();
        Arc::new(move |rg| {
            let keep = filter(rg);
            if !keep {
                let counter = if merge {
                    &metrics.merge_row_groups_skipped
                } else {
                    &metrics.raw_row_groups_skipped
                };
                counter.fetch_add(1, Ordering::Relaxed);
            }
            keep
        })
    }
}
