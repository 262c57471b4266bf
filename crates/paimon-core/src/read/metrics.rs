//! Counters of work a [`super::TableRead`] avoided: row groups skipped by statistics, rows
//! dropped by key predicates before merging, Parquet pages skipped by the page index (and files
//! whose page index was missing or unreadable), rows removed by late materialization's row
//! filter, rows removed by key-sorted lookups, files and rows skipped by data-file indexes (and indexes that could not be used).
//!
//! Plays the role of Java's `org.apache.paimon.operation.metrics.ScanMetrics` on the read side
//! (Paimon 2.0 has no read-side equivalent). Counters are shared by a read and its clones and
//! accumulate over every stream they produce; they are updated with relaxed atomics and are
//! meant for diagnostics and tests, not for control flow.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::index::file_index::IndexKind;
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
    key_search_files: AtomicU64,
    key_search_rows_skipped: AtomicU64,
    key_search_fallbacks: AtomicU64,
    file_index_files: AtomicU64,
    file_index_files_skipped: AtomicU64,
    file_index_rows_skipped: AtomicU64,
    file_index_fallbacks: AtomicU64,
    /// Files skipped per index kind, in [`IndexKind`] order.
    file_index_skipped_by_kind: [AtomicU64; 4],
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
    /// Parquet files of primary-key tables whose leading key column was binary-searched
    /// (key-sorted lookups, [`super::key_search`]).
    pub key_search_files: u64,
    /// Rows left to decode after page pruning that the key search removed.
    pub key_search_rows_skipped: u64,
    /// Key searches abandoned (key values not sorted or not decodable): read without it.
    pub key_search_fallbacks: u64,
    /// Files whose data-file index (embedded or `*.index`) was evaluated when opening them.
    pub file_index_files: u64,
    /// Files not opened because their index says no row matches (deletion vectors included).
    pub file_index_files_skipped: u64,
    /// Rows of opened files left out of the row selection by their index (bitmap results).
    pub file_index_rows_skipped: u64,
    /// Indexes that could not be read or decoded (the file was read whole: fails open).
    pub file_index_fallbacks: u64,
    /// Files skipped whose index answer came from a bloom filter.
    pub file_index_skipped_bloom_filter: u64,
    /// ... from a bitmap index.
    pub file_index_skipped_bitmap: u64,
    /// ... from a BSI.
    pub file_index_skipped_bsi: u64,
    /// ... from a range bitmap.
    pub file_index_skipped_range_bitmap: u64,
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
            key_search_files: self.key_search_files.load(Ordering::Relaxed),
            key_search_rows_skipped: self.key_search_rows_skipped.load(Ordering::Relaxed),
            key_search_fallbacks: self.key_search_fallbacks.load(Ordering::Relaxed),
            file_index_files: self.file_index_files.load(Ordering::Relaxed),
            file_index_files_skipped: self.file_index_files_skipped.load(Ordering::Relaxed),
            file_index_rows_skipped: self.file_index_rows_skipped.load(Ordering::Relaxed),
            file_index_fallbacks: self.file_index_fallbacks.load(Ordering::Relaxed),
            file_index_skipped_bloom_filter: self.kind(IndexKind::BloomFilter),
            file_index_skipped_bitmap: self.kind(IndexKind::Bitmap),
            file_index_skipped_bsi: self.kind(IndexKind::Bsi),
            file_index_skipped_range_bitmap: self.kind(IndexKind::RangeBitmap),
        }
    }

    fn kind_slot(kind: IndexKind) -> usize {
        match kind {
            IndexKind::BloomFilter => 0,
            IndexKind::Bitmap => 1,
            IndexKind::Bsi => 2,
            IndexKind::RangeBitmap => 3,
        }
    }

    fn kind(&self, kind: IndexKind) -> u64 {
        self.file_index_skipped_by_kind
            .get(Self::kind_slot(kind))
            .map_or(0, |c| c.load(Ordering::Relaxed))
    }

    /// Counts one file whose index was evaluated.
    pub(crate) fn add_file_index_file(&self) {
        self.file_index_files.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts one file skipped by its index, under each kind that answered.
    pub(crate) fn add_file_index_skip(&self, kinds: impl IntoIterator<Item = IndexKind>) {
        self.file_index_files_skipped
            .fetch_add(1, Ordering::Relaxed);
        for k in kinds {
            if let Some(c) = self.file_index_skipped_by_kind.get(Self::kind_slot(k)) {
                c.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Counts rows left out of a row selection by an index.
    pub(crate) fn add_file_index_rows_skipped(&self, n: u64) {
        self.file_index_rows_skipped.fetch_add(n, Ordering::Relaxed);
    }

    /// Counts an index that could not be used.
    pub(crate) fn add_file_index_fallback(&self) {
        self.file_index_fallbacks.fetch_add(1, Ordering::Relaxed);
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

    /// Counts one file narrowed by a key search and the rows it removed.
    pub(crate) fn add_key_search(&self, rows_skipped: u64) {
        self.key_search_files.fetch_add(1, Ordering::Relaxed);
        self.key_search_rows_skipped
            .fetch_add(rows_skipped, Ordering::Relaxed);
    }

    /// Counts one key search abandoned.
    pub(crate) fn add_key_search_fallback(&self) {
        self.key_search_fallbacks.fetch_add(1, Ordering::Relaxed);
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
