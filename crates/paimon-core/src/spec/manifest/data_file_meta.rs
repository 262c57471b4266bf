//! `DataFileMeta`: the `_FILE` record of a manifest entry, describing one data file.
//!
//! Mirrors Java `org.apache.paimon.io.DataFileMeta` and `DataFileMetaSerializer`
//! (Paimon 2.0). Fields 13 onwards were added over time (`_DELETE_ROW_COUNT` 0.8,
//! `_FILE_SOURCE`/`_VALUE_STATS_COLS` 0.9/1.0, `_EXTERNAL_PATH` 1.0, `_FIRST_ROW_ID` and
//! `_WRITE_COLS` 1.3); each is read on its own and is `None` when absent.

use serde::{Deserialize, Serialize};

use super::record::FieldReader;
use super::stats::SimpleStats;
use crate::Result;

/// Metadata of one data file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataFileMeta {
    /// File name inside the bucket directory.
    pub file_name: String,
    /// File size in bytes.
    pub file_size: i64,
    /// Physical rows, including retract rows.
    pub row_count: i64,
    /// Serialized `BinaryRow` of the first (trimmed) primary key; empty row for append tables.
    pub min_key: Vec<u8>,
    /// Serialized `BinaryRow` of the last (trimmed) primary key.
    pub max_key: Vec<u8>,
    /// Stats over the trimmed primary-key columns.
    pub key_stats: SimpleStats,
    /// Stats over the value columns (see `value_stats_cols`).
    pub value_stats: SimpleStats,
    /// Smallest sequence number in the file.
    pub min_sequence_number: i64,
    /// Largest sequence number in the file.
    pub max_sequence_number: i64,
    /// Schema the file was written with.
    pub schema_id: i64,
    /// LSM level (0 for append tables).
    pub level: i32,
    /// Sibling files, e.g. a `<data>.index` file index.
    pub extra_files: Vec<String>,
    /// Creation time, epoch millis of the writer's *local wall clock*.
    pub creation_time: Option<i64>,
    /// Retract rows; `None` = unknown.
    pub delete_row_count: Option<i64>,
    /// Small file index stored inline.
    pub embedded_index: Option<Vec<u8>>,
    /// 0 = APPEND, 1 = COMPACT.
    pub file_source: Option<i8>,
    /// Columns covered by `value_stats` (`None` = all columns).
    pub value_stats_cols: Option<Vec<String>>,
    /// Full URI when the file lives outside the table directory.
    pub external_path: Option<String>,
    /// Row tracking: `_ROW_ID` of the first row.
    pub first_row_id: Option<i64>,
    /// Data evolution: columns physically in the file (`None` = all).
    pub write_cols: Option<Vec<String>>,
}

impl DataFileMeta {
    /// Reads the `_FILE` record.
    pub(crate) fn from_fields(mut r: FieldReader) -> Result<Self> {
        Ok(DataFileMeta {
            file_name: r.req_string("_FILE_NAME")?,
            file_size: r.req_i64("_FILE_SIZE")?,
            row_count: r.req_i64("_ROW_COUNT")?,
            min_key: r.req_bytes("_MIN_KEY")?,
            max_key: r.req_bytes("_MAX_KEY")?,
            key_stats: SimpleStats::from_fields(
                r.req_record("_KEY_STATS", "DataFileMeta._KEY_STATS")?,
            )?,
            value_stats: SimpleStats::from_fields(
                r.req_record("_VALUE_STATS", "DataFileMeta._VALUE_STATS")?,
            )?,
            min_sequence_number: r.req_i64("_MIN_SEQUENCE_NUMBER")?,
            max_sequence_number: r.req_i64("_MAX_SEQUENCE_NUMBER")?,
            schema_id: r.req_i64("_SCHEMA_ID")?,
            level: r.req_i32("_LEVEL")?,
            extra_files: r.req_strings("_EXTRA_FILES")?,
            creation_time: r.opt_i64("_CREATION_TIME")?,
            delete_row_count: r.opt_i64("_DELETE_ROW_COUNT")?,
            embedded_index: r.opt_bytes("_EMBEDDED_FILE_INDEX")?,
            file_source: r.opt_i8("_FILE_SOURCE")?,
            value_stats_cols: r.opt_strings("_VALUE_STATS_COLS")?,
            external_path: r.opt_string("_EXTERNAL_PATH")?,
            first_row_id: r.opt_i64("_FIRST_ROW_ID")?,
            write_cols: r.opt_strings("_WRITE_COLS")?,
        })
    }
}
