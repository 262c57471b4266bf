//! The output of planning: a [`Plan`] of serialisable [`Split`]s.
//!
//! A split carries everything a reader needs (file locations, schema ids, deletion files, row
//! ranges), so splits can be shipped to the workers of a distributed engine and read there
//! without any planning state. Mirrors Java `org.apache.paimon.table.source.DataSplit`.

use serde::{Deserialize, Serialize};

use super::metrics::ScanMetrics;
use crate::io::join;
use crate::spec::manifest::DataFileMeta;
use crate::spec::row_range::{serde_split_ranges, RowRange};

/// A deletion vector of one data file inside an index file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeletionFile {
    /// Full location of the index file.
    pub path: String,
    /// Byte offset of the vector (its size prefix) in the index file.
    pub offset: i64,
    /// Length as recorded (`f2`; semantics differ between 32- and 64-bit vectors).
    pub length: i64,
    /// Deleted row count, when recorded.
    pub cardinality: Option<i64>,
}

/// File-local row ranges ([`RowRange`]: `start..end`, end exclusive), sorted and disjoint.
pub type RowRanges = Vec<RowRange>;

/// The files of one (partition, bucket) to read together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DataSplit {
    /// Snapshot the split was planned from.
    pub snapshot_id: i64,
    /// Serialized partition `BinaryRow` (4-byte BE arity + row).
    pub partition: Vec<u8>,
    /// Partition values rendered as strings, in partition-key order (for display).
    pub partition_values: Vec<(String, Option<String>)>,
    /// Bucket id.
    pub bucket: i32,
    /// `_TOTAL_BUCKETS` of the split's entries.
    pub total_buckets: i32,
    /// Location of the bucket directory (files without an external path live here).
    pub bucket_path: String,
    /// Data files, in read order.
    pub files: Vec<DataFileMeta>,
    /// Deletion vector of each file (same order), if any.
    pub deletion_files: Vec<Option<DeletionFile>>,
    /// Whether files can be read one by one without merging.
    pub raw_convertible: bool,
    /// Per file, file-local row ranges to read; `None` = all rows. Serialised as inclusive
    /// `[from, to]` pairs (Java's `Range`), see [`serde_split_ranges`].
    #[serde(with = "serde_split_ranges")]
    pub row_ranges: Option<Vec<Option<RowRanges>>>,
}

impl DataSplit {
    /// Full location of `file`.
    pub fn file_location(&self, file: &DataFileMeta) -> String {
        match &file.external_path {
            Some(p) => p.clone(),
            None => join(&self.bucket_path, &file.file_name),
        }
    }
    /// Total rows of the split's files (before deletion vectors).
    pub fn row_count(&self) -> i64 {
        self.files.iter().map(|f| f.row_count).sum()
    }

    /// Whether a primary-key split can be read file by file without merging: a single
    /// raw-convertible run whose files all record their delete count (Java
    /// `PrimaryKeyTableRawFileSplitReadProvider`). Only meaningful for primary-key tables: append
    /// splits are always read file by file.
    pub fn is_raw_readable(&self) -> bool {
        self.raw_convertible && self.files.iter().all(|f| f.delete_row_count.is_some())
    }
}

/// One unit of reading work.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Split {
    /// Data files of one bucket.
    Data(DataSplit),
}

impl Split {
    /// The data split inside.
    pub fn as_data(&self) -> &DataSplit {
        match self {
            Split::Data(d) => d,
        }
    }
}

/// The result of [`TableScan::plan`](super::TableScan::plan).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Plan {
    /// The snapshot read; `None` for a table without snapshots.
    pub snapshot_id: Option<i64>,
    /// Splits to read.
    pub splits: Vec<Split>,
    /// What planning did.
    pub metrics: ScanMetrics,
}
