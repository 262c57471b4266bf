//! Unit-test helpers of the committer: data-file metadata without data, manifest entries and
//! an in-memory file system.

use std::sync::Arc;

use crate::io::FileIO;
use crate::spec::binary_row::writer::encode;
use crate::spec::manifest::{DataFileMeta, FileKind, ManifestEntry, SimpleStats};
use crate::spec::types::{DataType, TypeKind};
use crate::spec::Datum;

/// Empty stats (no columns).
pub(crate) fn no_stats() -> SimpleStats {
    SimpleStats {
        min_values: encode(&[], &[]).unwrap().serialize(),
        max_values: encode(&[], &[]).unwrap().serialize(),
        null_counts: Some(vec![]),
    }
}

/// `INT NOT NULL`.
pub(crate) fn int_type() -> DataType {
    DataType {
        nullable: false,
        kind: TypeKind::Int,
    }
}

/// An INT key row.
pub(crate) fn int_key(v: i32) -> Vec<u8> {
    encode(&[Some(Datum::Int(v))], &[int_type()])
        .unwrap()
        .serialize()
}

/// A level-`level` file of `rows` rows with INT keys `min..=max`.
pub(crate) fn file(name: &str, rows: i64, level: i32, min: i32, max: i32) -> DataFileMeta {
    DataFileMeta {
        file_name: name.into(),
        file_size: 100,
        row_count: rows,
        min_key: int_key(min),
        max_key: int_key(max),
        key_stats: no_stats(),
        value_stats: no_stats(),
        min_sequence_number: 0,
        max_sequence_number: rows - 1,
        schema_id: 0,
        level,
        extra_files: vec![],
        creation_time: Some(0),
        delete_row_count: Some(0),
        embedded_index: None,
        file_source: Some(0),
        value_stats_cols: None,
        external_path: None,
        first_row_id: None,
        write_cols: None,
    }
}

/// An entry of `file` in the unpartitioned bucket `bucket` of a 2-bucket table.
pub(crate) fn entry(kind: FileKind, bucket: i32, file: DataFileMeta) -> ManifestEntry {
    ManifestEntry {
        kind,
        partition: encode(&[], &[]).unwrap().serialize(),
        bucket,
        total_buckets: 2,
        file,
    }
}

/// A file system in memory.
pub(crate) fn memory_io() -> FileIO {
    FileIO::from_store(
        "memory:///",
        Arc::new(object_store::memory::InMemory::new()),
    )
    .unwrap()
}
