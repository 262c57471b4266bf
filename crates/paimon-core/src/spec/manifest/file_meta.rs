//! `ManifestFileMeta`: one row of a manifest list, describing one manifest file.
//!
//! Mirrors Java `org.apache.paimon.manifest.ManifestFileMeta` and
//! `ManifestFileMetaSerializer` (Paimon 2.0, `_VERSION` = 2). Bucket/level bounds exist since
//! 1.1 and row-id bounds since 1.4; files from older writers lack them (read as `None`).

use serde::{Deserialize, Serialize};

use super::record::FieldReader;
use super::stats::SimpleStats;
use crate::Result;

/// The `_VERSION` written by Java for manifest-list rows.
pub const MANIFEST_FILE_META_VERSION: i32 = 2;

/// Metadata of one manifest file, as listed in a manifest list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestFileMeta {
    /// Manifest file name inside `manifest/`.
    pub file_name: String,
    /// Manifest file size in bytes.
    pub file_size: i64,
    /// Number of ADD entries.
    pub num_added_files: i64,
    /// Number of DELETE entries.
    pub num_deleted_files: i64,
    /// Stats of the partition columns over the entries.
    pub partition_stats: SimpleStats,
    /// Schema id the manifest was written with.
    pub schema_id: i64,
    /// Smallest bucket of the entries (since 1.1).
    pub min_bucket: Option<i32>,
    /// Largest bucket of the entries (since 1.1).
    pub max_bucket: Option<i32>,
    /// Smallest level of the entries (since 1.1).
    pub min_level: Option<i32>,
    /// Largest level of the entries (since 1.1).
    pub max_level: Option<i32>,
    /// Smallest `_ROW_ID` covered (row tracking, since 1.4).
    pub min_row_id: Option<i64>,
    /// Largest `_ROW_ID` covered (row tracking, since 1.4).
    pub max_row_id: Option<i64>,
}

impl ManifestFileMeta {
    /// Reads one manifest-list row.
    pub(crate) fn from_fields(mut r: FieldReader) -> Result<Self> {
        r.check_version(MANIFEST_FILE_META_VERSION)?;
        Ok(ManifestFileMeta {
            file_name: r.req_string("_FILE_NAME")?,
            file_size: r.req_i64("_FILE_SIZE")?,
            num_added_files: r.req_i64("_NUM_ADDED_FILES")?,
            num_deleted_files: r.req_i64("_NUM_DELETED_FILES")?,
            partition_stats: SimpleStats::from_fields(
                r.req_record("_PARTITION_STATS", "ManifestFileMeta._PARTITION_STATS")?,
            )?,
            schema_id: r.req_i64("_SCHEMA_ID")?,
            min_bucket: r.opt_i32("_MIN_BUCKET")?,
            max_bucket: r.opt_i32("_MAX_BUCKET")?,
            min_level: r.opt_i32("_MIN_LEVEL")?,
            max_level: r.opt_i32("_MAX_LEVEL")?,
            min_row_id: r.opt_i64("_MIN_ROW_ID")?,
            max_row_id: r.opt_i64("_MAX_ROW_ID")?,
        })
    }
}
