//! Counters of one planning run, so a user can see why a file was or was not read.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What planning read and skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanMetrics {
    /// Manifest files listed by the snapshot's manifest lists (0 when the live-entry cache
    /// answered: the lists are not read then).
    pub manifests_total: u64,
    /// Manifests skipped by partition stats.
    pub manifests_skipped_by_partition: u64,
    /// Manifests skipped by `_MIN_BUCKET`/`_MAX_BUCKET` (explicit bucket filter only).
    pub manifests_skipped_by_bucket: u64,
    /// Manifest entries decoded (0 when the live-entry cache answered).
    pub entries_read: u64,
    /// Manifest entries of other buckets left undecoded (their file metadata skipped while
    /// reading the manifest).
    #[serde(default)]
    pub entries_skipped_in_decode: u64,
    /// Live data files after ADD/DELETE netting.
    pub live_files: u64,
    /// Live files dropped by the partition predicate.
    pub files_skipped_by_partition: u64,
    /// Files dropped by bucket filtering (explicit or inferred), including the manifest rows
    /// left undecoded (`entries_skipped_in_decode`).
    pub files_skipped_by_bucket: u64,
    /// How buckets were chosen: `none` (every bucket), `explicit` (a bucket filter),
    /// `inferred` (from equalities on every bucket key), or `not inferred` (a fixed-bucket
    /// table whose predicate does not pin every bucket key exactly, so nothing was pruned).
    pub bucket_pruning: String,
    /// Buckets selected by inference, summed over the (partition, total bucket count) pairs
    /// evaluated (lazily, only for pairs that had files).
    pub buckets_selected: u64,
    /// Live-manifest-entry cache hits (`scan.manifest-entry-cache.max-snapshots`).
    pub cache_hits: u64,
    /// Live-manifest-entry cache misses (the entries were rebuilt and stored).
    pub cache_misses: u64,
    /// Live files dropped by value statistics.
    pub files_skipped_by_stats: u64,
    /// Live files dropped by level rules (e.g. level 0 in DV tables).
    pub files_skipped_by_level: u64,
    /// Files in the plan.
    pub files_planned: u64,
    /// Splits in the plan.
    pub splits: u64,
    /// Planning wall time in microseconds.
    pub plan_micros: u64,
    /// The primary-key global index step.
    pub global_index: GlobalIndexMetrics,
    /// Data-file indexes embedded in manifest entries (`_EMBEDDED_FILE_INDEX`).
    #[serde(default)]
    pub file_index: FileIndexMetrics,
}

/// What planning did with embedded data-file indexes (`shared/spec/file-index.md` §8.4).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileIndexMetrics {
    /// Files whose embedded index was evaluated against the predicate.
    pub files_evaluated: u64,
    /// Files dropped because their index says no row matches.
    pub files_skipped: u64,
    /// Dropped files per index kind that answered (`bloom-filter`, `bitmap`, `bsi`,
    /// `range-bitmap`); a file answered by several kinds counts under each.
    pub files_skipped_by_kind: BTreeMap<String, u64>,
    /// Indexes that could not be decoded (the file was kept: fails open).
    pub fallbacks: u64,
}

/// What the primary-key global index step did (`docs/format.md` "Primary-key global index").
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GlobalIndexMetrics {
    /// Why the step did not run (`disabled`, `no index definitions`, `no indexed predicate`,
    /// ...); empty when it ran.
    pub skipped: String,
    /// Payloads accepted (per bucket and definition).
    pub payloads_accepted: u64,
    /// Payloads rejected, by reason.
    pub payloads_rejected: BTreeMap<String, u64>,
    /// Payload files read and opened.
    pub payloads_opened: u64,
    /// Payload files that could not be read or opened (their files fall back).
    pub payloads_failed: u64,
    /// Splits left unchanged because a file's delete count is unknown or nonzero, or the split
    /// is not raw-convertible.
    pub splits_unchanged: u64,
    /// Files narrowed to row ranges (one indexed split each).
    pub files_narrowed: u64,
    /// Files dropped because the index matched none of their rows.
    pub files_dropped: u64,
    /// Files of narrowed splits read whole, by reason.
    pub files_fallen_back: BTreeMap<String, u64>,
    /// Splits carrying row ranges from the index.
    pub indexed_splits: u64,
    /// Rows selected by the ranges of the indexed splits.
    pub rows_selected: u64,
}
