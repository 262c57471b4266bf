//! Manifest lists, manifests and index manifests, decoded from bytes.
//!
//! Mirrors Java `org.apache.paimon.manifest.{ManifestList, ManifestFile, IndexManifestFile}`
//! (Paimon 2.0). A file is Avro (default), ORC (`manifest.format = orc`) or Parquet; the format
//! is sniffed from its magic bytes. Rows are decoded into a generic record model and then read
//! **by field name** (`FieldReaderFactory.RowReader`): fields missing from older files read as
//! `None`, extra fields of newer writers are ignored, and a missing required field or a
//! `_VERSION` other than the one Java writes is `DataInvalid`. No I/O happens here; every error
//! names the file (and the row when known).

mod avro;
mod avro_direct;
mod avro_writer;
mod columnar;
mod data_file_meta;
mod entry;
mod file_meta;
mod index_entry;
mod record;
mod stats;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_direct;

pub use avro_direct::{EntryHead, HeadFilter};
pub(crate) use avro_writer::RowEncoder;
pub use avro_writer::{
    encode_index_manifest, encode_manifest, encode_manifest_list, INDEX_MANIFEST_SCHEMA,
    MANIFEST_LIST_SCHEMA, MANIFEST_SCHEMA,
};
pub use data_file_meta::DataFileMeta;
pub use entry::{FileKind, ManifestEntry, MANIFEST_ENTRY_VERSION};
pub use file_meta::{ManifestFileMeta, MANIFEST_FILE_META_VERSION};
pub use index_entry::{
    DeletionVectorMeta, GlobalIndexMeta, IndexManifestEntry, INDEX_MANIFEST_ENTRY_VERSION,
};
pub use stats::SimpleStats;

use record::{FieldReader, Record};

use crate::{Error, Result};

/// Container format of a manifest file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ManifestFormat {
    /// Avro object container file (`Obj\x01`).
    Avro,
    /// ORC (`ORC`).
    Orc,
    /// Parquet (`PAR1`).
    Parquet,
}

impl ManifestFormat {
    /// The format announced by the first bytes of `bytes`, if any.
    pub fn sniff(bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(avro::MAGIC) {
            Some(ManifestFormat::Avro)
        } else if bytes.starts_with(columnar::ORC_MAGIC) {
            Some(ManifestFormat::Orc)
        } else if bytes.starts_with(columnar::PARQUET_MAGIC) {
            Some(ManifestFormat::Parquet)
        } else {
            None
        }
    }
}

fn read_records(bytes: &[u8]) -> Result<Vec<Record>> {
    match ManifestFormat::sniff(bytes) {
        Some(ManifestFormat::Avro) => avro::read_records(bytes),
        Some(ManifestFormat::Orc) => columnar::read_orc(bytes),
        Some(ManifestFormat::Parquet) => columnar::read_parquet(bytes),
        None => {
            let head: String = bytes.iter().take(4).map(|b| format!("{b:02x}")).collect();
            Err(
                Error::data_invalid("not an Avro, ORC or Parquet manifest file")
                    .with_context("expected", "magic `Obj\\x01`, `ORC` or `PAR1`")
                    .with_context("found", head),
            )
        }
    }
}

fn decode_rows<T>(
    bytes: &[u8],
    file: &str,
    what: &'static str,
    row: impl Fn(FieldReader) -> Result<T>,
) -> Result<Vec<T>> {
    let records = read_records(bytes).map_err(|e| e.with_context("file", file))?;
    records
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            row(FieldReader::new(r, what)).map_err(|e| {
                e.with_context("file", file)
                    .with_context("row", i.to_string())
            })
        })
        .collect()
}

/// Decodes a manifest list (`manifest/manifest-list-*`); `file` only names it in errors.
/// Avro files are decoded directly into the structs (`avro_direct`), others through records.
pub fn decode_manifest_list(bytes: &[u8], file: &str) -> Result<Vec<ManifestFileMeta>> {
    if ManifestFormat::sniff(bytes) == Some(ManifestFormat::Avro) {
        return avro_direct::decode_manifest_list(bytes, file);
    }
    decode_manifest_list_via_records(bytes, file)
}

/// Decodes a manifest (`manifest/manifest-*`); `file` only names it in errors.
pub fn decode_manifest(bytes: &[u8], file: &str) -> Result<Vec<ManifestEntry>> {
    decode_manifest_filtered(bytes, file, None)
}

/// Decodes the entries of a manifest that `keep` accepts by their head (kind, partition,
/// bucket, total buckets). In an Avro manifest whose schema puts those fields before `_FILE`
/// (Java's), a rejected entry's file metadata is skipped undecoded; otherwise entries are
/// decoded whole and filtered after.
pub fn decode_manifest_filtered(
    bytes: &[u8],
    file: &str,
    mut keep: Option<HeadFilter<'_>>,
) -> Result<Vec<ManifestEntry>> {
    if ManifestFormat::sniff(bytes) == Some(ManifestFormat::Avro) {
        return avro_direct::decode_manifest(bytes, file, keep);
    }
    let mut entries = decode_manifest_via_records(bytes, file)?;
    if let Some(keep) = keep.as_mut() {
        entries.retain(|e| {
            keep(&EntryHead {
                kind: e.kind,
                partition: &e.partition,
                bucket: e.bucket,
                total_buckets: e.total_buckets,
                schema_id: Some(e.file.schema_id),
            })
        });
    }
    Ok(entries)
}

/// Decodes a manifest list through the generic record tree (every format): the reference the
/// direct Avro decoder is tested and fuzzed against.
pub fn decode_manifest_list_via_records(bytes: &[u8], file: &str) -> Result<Vec<ManifestFileMeta>> {
    decode_rows(
        bytes,
        file,
        "ManifestFileMeta",
        ManifestFileMeta::from_fields,
    )
}

/// Decodes a manifest through the generic record tree (every format): the reference the
/// direct Avro decoder is tested and fuzzed against.
pub fn decode_manifest_via_records(bytes: &[u8], file: &str) -> Result<Vec<ManifestEntry>> {
    decode_rows(bytes, file, "ManifestEntry", ManifestEntry::from_fields)
}

/// Decodes an index manifest (`manifest/index-manifest-*`); `file` only names it in errors.
pub fn decode_index_manifest(bytes: &[u8], file: &str) -> Result<Vec<IndexManifestEntry>> {
    decode_rows(
        bytes,
        file,
        "IndexManifestEntry",
        IndexManifestEntry::from_fields,
    )
}
