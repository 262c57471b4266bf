//! Avro Object Container File encoding of manifests and manifest lists, as Java Paimon 2.0
//! writes them (`org.apache.paimon.format.avro.AvroFileFormat`, rows of
//! `org.apache.paimon.manifest.ManifestEntrySerializer` / `ManifestFileMetaSerializer` /
//! `IndexManifestEntrySerializer`).
//!
//! The writer schemas are Java's, text for text (Avro `Schema#toString` of the converted row
//! types), so the files are what a Java 2.0 writer produces: same header schema, same row
//! bytes; only the random sync marker and the compressed bytes of a block may differ. Blocks
//! are flushed at Avro's default sync interval (64,000 bytes of rows) and compressed with
//! zstd (Java's default `manifest.compression`).

use std::io::Write;

use super::data_file_meta::DataFileMeta;
use super::entry::{ManifestEntry, MANIFEST_ENTRY_VERSION};
use super::file_meta::{ManifestFileMeta, MANIFEST_FILE_META_VERSION};
use super::index_entry::{
    DeletionVectorMeta, GlobalIndexMeta, IndexManifestEntry, INDEX_MANIFEST_ENTRY_VERSION,
};
use super::stats::SimpleStats;
use crate::{Error, Result};

/// Java 2.0's writer schema of manifest-list rows (`ManifestFileMeta#SCHEMA`).
pub const MANIFEST_LIST_SCHEMA: &str = r#"{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_NUM_ADDED_FILES","type":"long"},{"name":"_NUM_DELETED_FILES","type":"long"},{"name":"_PARTITION_STATS","type":{"type":"record","name":"record__PARTITION_STATS","fields":[{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}},{"name":"_SCHEMA_ID","type":"long"},{"name":"_MIN_BUCKET","type":["null","int"],"default":null},{"name":"_MAX_BUCKET","type":["null","int"],"default":null},{"name":"_MIN_LEVEL","type":["null","int"],"default":null},{"name":"_MAX_LEVEL","type":["null","int"],"default":null},{"name":"_MIN_ROW_ID","type":["null","long"],"default":null},{"name":"_MAX_ROW_ID","type":["null","long"],"default":null}]}"#;

/// Java 2.0's writer schema of manifest rows (`ManifestEntry#SCHEMA`).
pub const MANIFEST_SCHEMA: &str = r#"{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},{"name":"_TOTAL_BUCKETS","type":"int"},{"name":"_FILE","type":{"type":"record","name":"record__FILE","fields":[{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},{"name":"_MIN_KEY","type":"bytes"},{"name":"_MAX_KEY","type":"bytes"},{"name":"_KEY_STATS","type":{"type":"record","name":"record__FILE__KEY_STATS","fields":[{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}},{"name":"_VALUE_STATS","type":{"type":"record","name":"record__FILE__VALUE_STATS","fields":[{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}},{"name":"_MIN_SEQUENCE_NUMBER","type":"long"},{"name":"_MAX_SEQUENCE_NUMBER","type":"long"},{"name":"_SCHEMA_ID","type":"long"},{"name":"_LEVEL","type":"int"},{"name":"_EXTRA_FILES","type":{"type":"array","items":"string"}},{"name":"_CREATION_TIME","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},{"name":"_DELETE_ROW_COUNT","type":["null","long"],"default":null},{"name":"_EMBEDDED_FILE_INDEX","type":["null","bytes"],"default":null},{"name":"_FILE_SOURCE","type":["null","int"],"default":null},{"name":"_VALUE_STATS_COLS","type":["null",{"type":"array","items":"string"}],"default":null},{"name":"_EXTERNAL_PATH","type":["null","string"],"default":null},{"name":"_FIRST_ROW_ID","type":["null","long"],"default":null},{"name":"_WRITE_COLS","type":["null",{"type":"array","items":"string"}],"default":null}]}}]}"#;

/// Java 2.0's writer schema of index-manifest rows (`IndexManifestEntry#SCHEMA`).
pub const INDEX_MANIFEST_SCHEMA: &str = r#"{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},{"name":"_INDEX_TYPE","type":"string"},{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},{"name":"_DELETIONS_VECTORS_RANGES","type":["null",{"type":"array","items":["null",{"type":"record","name":"record__DELETIONS_VECTORS_RANGES","fields":[{"name":"f0","type":"string"},{"name":"f1","type":"int"},{"name":"f2","type":"int"},{"name":"_CARDINALITY","type":["null","long"],"default":null}]}]}],"default":null},{"name":"_EXTERNAL_PATH","type":["null","string"],"default":null},{"name":"_GLOBAL_INDEX","type":["null",{"type":"record","name":"record__GLOBAL_INDEX","fields":[{"name":"_ROW_RANGE_START","type":"long"},{"name":"_ROW_RANGE_END","type":"long"},{"name":"_INDEX_FIELD_ID","type":"int"},{"name":"_EXTRA_FIELD_IDS","type":["null",{"type":"array","items":"int"}],"default":null},{"name":"_INDEX_META","type":["null","bytes"],"default":null},{"name":"_SOURCE_META","type":["null","bytes"],"default":null}]}],"default":null}]}"#;

/// Avro's default sync interval (`DataFileConstants.DEFAULT_SYNC_INTERVAL`).
const SYNC_INTERVAL: usize = 64_000;
/// The zstd level of Java's `manifest.compression` default.
const ZSTD_LEVEL: i32 = 1;

/// Encodes manifest-list rows into a complete Avro file.
pub fn encode_manifest_list(metas: &[ManifestFileMeta]) -> Result<Vec<u8>> {
    encode_file(MANIFEST_LIST_SCHEMA, metas, write_file_meta)
}

/// Encodes manifest entries into a complete Avro file.
pub fn encode_manifest(entries: &[ManifestEntry]) -> Result<Vec<u8>> {
    encode_file(MANIFEST_SCHEMA, entries, write_entry)
}

/// Encodes index-manifest entries into a complete Avro file.
pub fn encode_index_manifest(entries: &[IndexManifestEntry]) -> Result<Vec<u8>> {
    encode_file(INDEX_MANIFEST_SCHEMA, entries, write_index_entry)
}

/// The Avro binary encoding of one datum (`org.apache.avro.io.BinaryEncoder`).
#[derive(Default)]
pub(crate) struct RowEncoder {
    pub(crate) buf: Vec<u8>,
}

impl RowEncoder {
    /// A zig-zag varint `long` (also `int`).
    pub(crate) fn long(&mut self, v: i64) {
        let mut z = ((v << 1) ^ (v >> 63)) as u64;
        while z >= 0x80 {
            self.buf.push((z as u8) | 0x80);
            z >>= 7;
        }
        self.buf.push(z as u8);
    }
    /// Length-prefixed `bytes` (also `string`).
    pub(crate) fn bytes(&mut self, b: &[u8]) {
        self.long(b.len() as i64);
        self.buf.extend_from_slice(b);
    }
    fn string(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }
    /// A `["null", T]` union: branch 0 for `None`, else branch 1 and the value.
    fn optional<T>(&mut self, v: Option<T>, write: impl FnOnce(&mut Self, T)) {
        match v {
            None => self.long(0),
            Some(v) => {
                self.long(1);
                write(self, v);
            }
        }
    }
    /// An array as Java writes it: one block of all items, then the end marker.
    fn array<T>(&mut self, items: &[T], mut write: impl FnMut(&mut Self, &T)) {
        if !items.is_empty() {
            self.long(items.len() as i64);
            for i in items {
                write(self, i);
            }
        }
        self.long(0);
    }
    fn strings(&mut self, items: &[String]) {
        self.array(items, |e, s| e.string(s));
    }
}

fn write_stats(e: &mut RowEncoder, s: &SimpleStats) {
    e.bytes(&s.min_values);
    e.bytes(&s.max_values);
    e.optional(s.null_counts.as_deref(), |e, counts| {
        e.array(counts, |e, c| e.optional(*c, RowEncoder::long));
    });
}

fn write_file_meta(e: &mut RowEncoder, m: &ManifestFileMeta) {
    e.long(i64::from(MANIFEST_FILE_META_VERSION));
    e.string(&m.file_name);
    e.long(m.file_size);
    e.long(m.num_added_files);
    e.long(m.num_deleted_files);
    write_stats(e, &m.partition_stats);
    e.long(m.schema_id);
    for v in [m.min_bucket, m.max_bucket, m.min_level, m.max_level] {
        e.optional(v, |e, v| e.long(i64::from(v)));
    }
    e.optional(m.min_row_id, RowEncoder::long);
    e.optional(m.max_row_id, RowEncoder::long);
}

fn write_data_file(e: &mut RowEncoder, f: &DataFileMeta) {
    e.string(&f.file_name);
    e.long(f.file_size);
    e.long(f.row_count);
    e.bytes(&f.min_key);
    e.bytes(&f.max_key);
    write_stats(e, &f.key_stats);
    write_stats(e, &f.value_stats);
    e.long(f.min_sequence_number);
    e.long(f.max_sequence_number);
    e.long(f.schema_id);
    e.long(i64::from(f.level));
    e.strings(&f.extra_files);
    e.optional(f.creation_time, RowEncoder::long);
    e.optional(f.delete_row_count, RowEncoder::long);
    e.optional(f.embedded_index.as_deref(), RowEncoder::bytes);
    e.optional(f.file_source, |e, v| e.long(i64::from(v)));
    e.optional(f.value_stats_cols.as_deref(), RowEncoder::strings);
    e.optional(f.external_path.as_deref(), RowEncoder::string);
    e.optional(f.first_row_id, RowEncoder::long);
    e.optional(f.write_cols.as_deref(), RowEncoder::strings);
}

fn write_entry(e: &mut RowEncoder, m: &ManifestEntry) {
    e.long(i64::from(MANIFEST_ENTRY_VERSION));
    e.long(i64::from(m.kind.to_byte()));
    e.bytes(&m.partition);
    e.long(i64::from(m.bucket));
    e.long(i64::from(m.total_buckets));
    write_data_file(e, &m.file);
}

fn write_deletion_vector(e: &mut RowEncoder, dv: &DeletionVectorMeta) {
    e.long(1); // the non-null branch of the item union
    e.string(&dv.data_file_name);
    e.long(i64::from(dv.offset));
    e.long(i64::from(dv.length));
    e.optional(dv.cardinality, RowEncoder::long);
}

fn write_global_index(e: &mut RowEncoder, g: &GlobalIndexMeta) {
    e.long(g.row_range_start);
    e.long(g.row_range_end);
    e.long(i64::from(g.index_field_id));
    e.optional(g.extra_field_ids.as_deref(), |e, ids| {
        e.array(ids, |e, id| e.long(i64::from(*id)));
    });
    e.optional(g.index_meta.as_deref(), RowEncoder::bytes);
    e.optional(g.source_meta.as_deref(), RowEncoder::bytes);
}

fn write_index_entry(e: &mut RowEncoder, m: &IndexManifestEntry) {
    e.long(i64::from(INDEX_MANIFEST_ENTRY_VERSION));
    e.long(i64::from(m.kind.to_byte()));
    e.bytes(&m.partition);
    e.long(i64::from(m.bucket));
    e.string(&m.index_type);
    e.string(&m.file_name);
    e.long(m.file_size);
    e.long(m.row_count);
    e.optional(m.deletion_vectors.as_deref(), |e, dvs| {
        e.array(dvs, write_deletion_vector);
    });
    e.optional(m.external_path.as_deref(), RowEncoder::string);
    e.optional(m.global_index.as_ref(), write_global_index);
}

/// A whole container: header (schema, codec, sync marker), then blocks of rows.
pub(crate) fn encode_file<T>(
    schema: &str,
    rows: &[T],
    mut write: impl FnMut(&mut RowEncoder, &T),
) -> Result<Vec<u8>> {
    let sync = *uuid::Uuid::new_v4().as_bytes();
    let mut out = RowEncoder::default();
    out.buf.extend_from_slice(super::avro::MAGIC);
    out.long(2);
    out.string("avro.schema");
    out.string(schema);
    out.string("avro.codec");
    out.string("zstandard");
    out.long(0);
    out.buf.extend_from_slice(&sync);
    let mut block = RowEncoder::default();
    let mut count = 0i64;
    for (i, row) in rows.iter().enumerate() {
        write(&mut block, row);
        count += 1;
        if block.buf.len() >= SYNC_INTERVAL || i + 1 == rows.len() {
            let data = zstd_frame(&block.buf)?;
            out.long(count);
            out.long(data.len() as i64);
            out.buf.extend_from_slice(&data);
            out.buf.extend_from_slice(&sync);
            block.buf.clear();
            count = 0;
        }
    }
    Ok(out.buf)
}

fn zstd_frame(data: &[u8]) -> Result<Vec<u8>> {
    let mut enc = zstd::stream::Encoder::new(Vec::new(), ZSTD_LEVEL)
        .map_err(|e| Error::internal(format!("zstd: {e}")))?;
    enc.write_all(data)
        .map_err(|e| Error::internal(format!("zstd: {e}")))?;
    enc.finish()
        .map_err(|e| Error::internal(format!("zstd: {e}")))
}

#[cfg(test)]
#[path = "avro_writer_tests.rs"]
mod tests;
