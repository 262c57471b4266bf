//! `IndexManifestEntry`: one index file (deletion vectors, hash, global index) of a table.
//!
//! Mirrors Java `org.apache.paimon.manifest.IndexManifestEntry`,
//! `IndexManifestEntrySerializer` (`_VERSION` = 1), `org.apache.paimon.index.IndexFileMeta`,
//! `DeletionVectorMeta` and `GlobalIndexMeta` (Paimon 2.0). `_EXTERNAL_PATH` exists since 1.3
//! and `_GLOBAL_INDEX` since 1.4; `_CARDINALITY` of a deletion vector since 1.0.

use serde::{Deserialize, Serialize};

use super::entry::FileKind;
use super::record::{FieldReader, Value};
use crate::{Error, Result};

/// The `_VERSION` written by Java for index-manifest rows.
pub const INDEX_MANIFEST_ENTRY_VERSION: i32 = 1;

/// Where the deletion vector of one data file sits in a DV index file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeletionVectorMeta {
    /// Data file name (`f0`).
    pub data_file_name: String,
    /// Byte offset in the index file (`f1`).
    pub offset: i32,
    /// Length (`f2`); meaning depends on the bitmap kind.
    pub length: i32,
    /// Deleted row count (`_CARDINALITY`, since 1.0).
    pub cardinality: Option<i64>,
}

/// Row range and payload metadata of a global index file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GlobalIndexMeta {
    /// First row id covered.
    pub row_range_start: i64,
    /// Last row id covered (inclusive).
    pub row_range_end: i64,
    /// Field id of the indexed column.
    pub index_field_id: i32,
    /// Extra indexed field ids.
    pub extra_field_ids: Option<Vec<i32>>,
    /// Algorithm metadata.
    pub index_meta: Option<Vec<u8>>,
    /// Source metadata (2.0, primary-key source-backed indexes).
    pub source_meta: Option<Vec<u8>>,
}

/// One row of an index manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexManifestEntry {
    /// ADD or DELETE (files on disk hold ADD only).
    pub kind: FileKind,
    /// Serialized `BinaryRow` of the partition.
    pub partition: Vec<u8>,
    /// Bucket id.
    pub bucket: i32,
    /// `DELETION_VECTORS`, `HASH`, `btree`, `bitmap`, ...
    pub index_type: String,
    /// Index file name.
    pub file_name: String,
    /// Index file size in bytes.
    pub file_size: i64,
    /// DV: number of vectors; HASH: number of hashes; global index: indexed rows.
    pub row_count: i64,
    /// Deletion vector ranges (DV only).
    pub deletion_vectors: Option<Vec<DeletionVectorMeta>>,
    /// Full path when the file lives outside `<table>/index`.
    pub external_path: Option<String>,
    /// Global index metadata.
    pub global_index: Option<GlobalIndexMeta>,
}

const DV_WHAT: &str = "DeletionVectorMeta";

impl DeletionVectorMeta {
    fn from_value(v: Value) -> Result<Self> {
        let mut r = match v {
            Value::Record(rec) => FieldReader::new(rec, DV_WHAT),
            other => {
                return Err(Error::data_invalid(format!(
                    "IndexManifestEntry: `_DELETIONS_VECTORS_RANGES` element is {}",
                    other.type_name()
                ))
                .with_context("field", "_DELETIONS_VECTORS_RANGES"))
            }
        };
        Ok(DeletionVectorMeta {
            data_file_name: r.req_string("f0")?,
            offset: r.req_i32("f1")?,
            length: r.req_i32("f2")?,
            cardinality: r.opt_i64("_CARDINALITY")?,
        })
    }
}

impl GlobalIndexMeta {
    fn from_fields(mut r: FieldReader) -> Result<Self> {
        let extra_field_ids = match r.opt_array("_EXTRA_FIELD_IDS")? {
            None => None,
            Some(items) => Some(
                items
                    .into_iter()
                    .map(|v| match v {
                        Value::Int(i) => Ok(i),
                        other => Err(Error::data_invalid(format!(
                            "GlobalIndexMeta: `_EXTRA_FIELD_IDS` element is {}",
                            other.type_name()
                        ))
                        .with_context("field", "_EXTRA_FIELD_IDS")),
                    })
                    .collect::<Result<Vec<_>>>()?,
            ),
        };
        Ok(GlobalIndexMeta {
            row_range_start: r.req_i64("_ROW_RANGE_START")?,
            row_range_end: r.req_i64("_ROW_RANGE_END")?,
            index_field_id: r.req_i32("_INDEX_FIELD_ID")?,
            extra_field_ids,
            index_meta: r.opt_bytes("_INDEX_META")?,
            source_meta: r.opt_bytes("_SOURCE_META")?,
        })
    }
}

impl IndexManifestEntry {
    /// Reads one index-manifest row.
    pub(crate) fn from_fields(mut r: FieldReader) -> Result<Self> {
        r.check_version(INDEX_MANIFEST_ENTRY_VERSION)?;
        let deletion_vectors = match r.opt_array("_DELETIONS_VECTORS_RANGES")? {
            None => None,
            Some(items) => Some(
                items
                    .into_iter()
                    .map(DeletionVectorMeta::from_value)
                    .collect::<Result<Vec<_>>>()?,
            ),
        };
        let global_index = match r.opt_record("_GLOBAL_INDEX", "GlobalIndexMeta")? {
            None => None,
            Some(g) => Some(GlobalIndexMeta::from_fields(g)?),
        };
        Ok(IndexManifestEntry {
            kind: FileKind::from_byte(r.req_i8("_KIND")?)?,
            partition: r.req_bytes("_PARTITION")?,
            bucket: r.req_i32("_BUCKET")?,
            index_type: r.req_string("_INDEX_TYPE")?,
            file_name: r.req_string("_FILE_NAME")?,
            file_size: r.req_i64("_FILE_SIZE")?,
            row_count: r.req_i64("_ROW_COUNT")?,
            deletion_vectors,
            external_path: r.opt_string("_EXTERNAL_PATH")?,
            global_index,
        })
    }
}
