//! `ManifestEntry` and `FileKind`: one ADD or DELETE of a data file in a manifest.
//!
//! Mirrors Java `org.apache.paimon.manifest.ManifestEntry`, `ManifestEntrySerializer`
//! (`_VERSION` = 2) and `FileKind` (Paimon 2.0).

use serde::{Deserialize, Serialize};

use super::data_file_meta::DataFileMeta;
use super::record::FieldReader;
use crate::{Error, Result};

/// The `_VERSION` written by Java for manifest rows.
pub const MANIFEST_ENTRY_VERSION: i32 = 2;

/// Whether an entry adds or deletes a file (Java `FileKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FileKind {
    /// Byte 0: the file becomes live.
    Add,
    /// Byte 1: the file is removed.
    Delete,
}

impl FileKind {
    /// From the `_KIND` byte; other values are `DataInvalid`.
    pub fn from_byte(b: i8) -> Result<Self> {
        match b {
            0 => Ok(FileKind::Add),
            1 => Ok(FileKind::Delete),
            other => Err(Error::data_invalid(format!("unknown file kind {other}"))
                .with_context("field", "_KIND")
                .with_context("expected", "0 (ADD) or 1 (DELETE)")
                .with_context("found", other.to_string())),
        }
    }

    /// The `_KIND` byte.
    pub fn to_byte(self) -> i8 {
        match self {
            FileKind::Add => 0,
            FileKind::Delete => 1,
        }
    }
}

/// One row of a manifest file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestEntry {
    /// ADD or DELETE.
    pub kind: FileKind,
    /// Serialized `BinaryRow` of the partition columns.
    pub partition: Vec<u8>,
    /// Bucket id (−2 = postpone bucket).
    pub bucket: i32,
    /// Bucket count of the partition when the file was written.
    pub total_buckets: i32,
    /// The data file.
    pub file: DataFileMeta,
}

impl ManifestEntry {
    /// Reads one manifest row.
    pub(crate) fn from_fields(mut r: FieldReader) -> Result<Self> {
        r.check_version(MANIFEST_ENTRY_VERSION)?;
        Ok(ManifestEntry {
            kind: FileKind::from_byte(r.req_i8("_KIND")?)?,
            partition: r.req_bytes("_PARTITION")?,
            bucket: r.req_i32("_BUCKET")?,
            total_buckets: r.req_i32("_TOTAL_BUCKETS")?,
            file: DataFileMeta::from_fields(r.req_record("_FILE", "ManifestEntry._FILE")?)?,
        })
    }
}
