//! Counters of work a [`super::TableRead`] avoided: row groups skipped by statistics, rows
//! dropped by key predicates before merging, Parquet pages skipped by the page index (and files
//! whose page index was missing or unreadable), rows removed by late materialization's row
//! filter.
//!
//! Plays the role of Java's `org.apache.paimon.operation.metrics.ScanMetrics` on the read side
//! (Paimon 2.0 has no read-side equivalent). Counters are shared by a read and its clones and
//! accumulate over every stream they produce; they are updated with relaxed atomics and are
//! meant for diagnostics and tests, not for control flow.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::read::file_reader::RowGroupFilter;
use crate::read::page_index::PageIndexLoad;

/// Live counters of one read.
#[derive(Debug, Default)]
pub struct ReadMetrics {
    raw_row_groups_skipped: AtomicU64,
    merge_row_groups_skipped: AtomicU64,
    rows_dropped_before_merge: AtomicU64,
    page_index_files: AtomicU64,
    page_index_missing: AtomicU64,
    page_index_unreadable: AtomicU64,
    pages_skipped: AtomicU64,
    page_rows_skipped: AtomicU64,
    row_filter_files: AtomicU64,
    rows_filtered: AtomicU64,
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
    /// Parquet files whose page index was loaded and used for page pruning.
    pub page_index_files: u64,
    /// Parquet files read selectively that have no page index (read by whole column chunks).
    pub page_index_missing: u64,
    /// Parquet files whose page index could not be read or contradicts the footer (ignored,
    /// read by whole column chunks).
    pub page_index_unreadable: u64,
    /// Pages of the decoded columns none of whose rows the page index kept.
    pub pages_skipped: u64,
    /// Rows removed by page pruning (before row ranges and deletion vectors).
    pub page_rows_skipped: u64,
    /// Parquet files read with late materialization (predicate columns first).
    pub row_filter_files: u64,
    /// Rows removed by late materialization's row filter (the other columns never decoded).
    pub rows_filtered: u64,
}

impl ReadMetrics {
    /// The current values.
    pub fn snapshot(&self) -> ReadMetricsSnapshot {
        ReadMetricsSnapshot {
            raw_row_groups_skipped: self.raw_row_groups_skipped.load(Ordering::Relaxed),
            merge_row_groups_skipped: self.merge_row_groups_skipped.load(Ordering::Relaxed),
            rows_dropped_before_merge: self.rows_dropped_before_merge.load(Ordering::Relaxed),
            page_index_files: self.page_index_files.load(Ordering::Relaxed),
            page_index_missing: self.page_index_missing.load(Ordering::Relaxed),
            page_index_unreadable: self.page_index_unreadable.load(Ordering::Relaxed),
            pages_skipped: self.pages_skipped.load(Ordering::Relaxed),
            page_rows_skipped: self.page_rows_skipped.load(Ordering::Relaxed),
            row_filter_files: self.row_filter_files.load(Ordering::Relaxed),
            rows_filtered: self.rows_filtered.load(Ordering::Relaxed),
        }
    }

    /// Counts the outcome of loading one file's page index.
    pub(crate) fn add_page_index_load(&self, load: PageIndexLoad) {
        let counter = match load {
            PageIndexLoad::Loaded => &self.page_index_files,
            PageIndexLoad::Missing => &self.page_index_missing,
            PageIndexLoad::Unreadable => &self.page_index_unreadable,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts pages and rows skipped by the page index in one file.
    pub(crate) fn add_pages_skipped(&self, pages: u64, rows: u64) {
        self.pages_skipped.fetch_add(pages, Ordering::Relaxed);
        self.page_rows_skipped.fetch_add(rows, Ordering::Relaxed);
    }

    /// Counts one file read with a row filter.
    pub(crate) fn add_row_filter_file(&self) {
        self.row_filter_files.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts rows removed by a row filter.
    pub(crate) fn add_rows_filtered(&self, n: u64) {
        self.rows_filtered.fetch_add(n, Ordering::Relaxed);
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
