//! Test helper: re-encodes a Java table's deletion vectors in the 64-bit format.
//!
//! No Java fixture has a `Bitmap64DeletionVector` (Java `deletion-vectors.bitmap64`), so this
//! rewrites a copy of a 32-bit DV table as Java would have written it with that option:
//! every vector of every `DELETION_VECTORS` index file becomes a 64-bit blob (Java
//! `org.apache.paimon.deletionvectors.Bitmap64DeletionVector`, `docs/format.md` "Deletion
//! vectors": `i32 BE` L | magic `0x6439D3D1` **LE** | `u64 LE` count + (`u32 LE` key + portable
//! roaring)* | `i32 BE` CRC-32 of magic + bitmap), and every index manifest gets the new
//! `_DELETIONS_VECTORS_RANGES` offsets and lengths (`f2` = 4 + L + 4) and `_FILE_SIZE`,
//! written with the file's own Avro writer schema and codec, every other field unchanged.

use std::collections::HashMap;
use std::path::Path;
use std::str::FromStr;

use apache_avro::types::Value;
use apache_avro::{Codec, Reader, Writer};
use paimon_core::index::deletion_vector::{decode_deletion_vector, MAGIC_V64};
use roaring::{RoaringBitmap, RoaringTreemap};

/// How the rewritten index manifests record `f2` for the new 64-bit vectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum F2 {
    /// Java's 64-bit convention: the whole blob, 4 + L + 4.
    Whole,
    /// The 32-bit convention wrongly kept for a 64-bit vector: L.
    L,
    /// A length reaching past the blob (what a reader adding 8 to `f2` would request).
    PastBlob,
}

/// The 64-bit blob of one vector, from its size prefix to its CRC.
pub fn encode_bitmap64_blob(positions: &RoaringTreemap) -> Vec<u8> {
    let buckets: Vec<(u32, &RoaringBitmap)> = positions.bitmaps().collect();
    let mut bitmap = (buckets.len() as u64).to_le_bytes().to_vec();
    for (key, bm) in buckets {
        bitmap.extend_from_slice(&key.to_le_bytes());
        bm.serialize_into(&mut bitmap).unwrap();
    }
    let mut body = MAGIC_V64.to_le_bytes().to_vec();
    body.extend_from_slice(&bitmap);
    let mut blob = (body.len() as i32).to_be_bytes().to_vec();
    blob.extend_from_slice(&body);
    blob.extend_from_slice(&crc32fast::hash(&body).to_be_bytes());
    blob
}

/// A rewritten index file: its bytes and, per data file, the new (offset, whole blob length).
struct Rewritten {
    bytes: Vec<u8>,
    ranges: HashMap<String, (i32, i32)>,
}

/// Rewrites the table at `table` (a disposable copy) to 64-bit deletion vectors; returns the
/// number of vectors re-encoded. Index files must live in `<table>/index`.
pub fn rewrite_as_bitmap64(table: &Path, f2: F2) -> usize {
    let mut files: HashMap<String, Rewritten> = HashMap::new();
    let manifest_dir = table.join("manifest");
    for entry in std::fs::read_dir(&manifest_dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if !name.starts_with("index-manifest-") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let codec = avro_codec(&bytes);
        let reader = Reader::new(&bytes[..]).unwrap();
        let schema = reader.writer_schema().clone();
        let metadata = reader.user_metadata().clone();
        let mut rows: Vec<Value> = reader.map(Result::unwrap).collect();
        for row in &mut rows {
            rewrite_row(table, row, &mut files, f2);
        }
        let mut writer = Writer::with_codec(&schema, Vec::new(), codec);
        for (k, v) in metadata {
            writer.add_user_metadata(k, v).unwrap();
        }
        for row in rows {
            writer.append(row).unwrap();
        }
        std::fs::write(&path, writer.into_inner().unwrap()).unwrap();
    }
    for (name, file) in &files {
        std::fs::write(table.join("index").join(name), &file.bytes).unwrap();
    }
    files.values().map(|f| f.ranges.len()).sum()
}

/// Updates one `IndexManifestEntry` row in place (DV entries only).
fn rewrite_row(table: &Path, row: &mut Value, files: &mut HashMap<String, Rewritten>, f2: F2) {
    let fields = record(row);
    if text(field(fields, "_INDEX_TYPE")) != "DELETION_VECTORS" {
        return;
    }
    // Writers before 1.3 have no `_EXTERNAL_PATH`; external index files are not handled.
    if let Some((_, p)) = fields.iter_mut().find(|(n, _)| n == "_EXTERNAL_PATH") {
        assert!(matches!(non_null(p), Value::Null), "external index file");
    }
    let file_name = text(field(fields, "_FILE_NAME")).to_string();
    let ranges = match non_null(field(fields, "_DELETIONS_VECTORS_RANGES")) {
        Value::Array(items) => items,
        other => panic!("unexpected ranges {other:?}"),
    };
    let old: Vec<(String, i32)> = ranges
        .iter_mut()
        .map(|r| {
            let r = record(r);
            let Value::Int(offset) = *field(r, "f1") else {
                panic!("f1")
            };
            (text(field(r, "f0")).to_string(), offset)
        })
        .collect();
    let file = files
        .entry(file_name.clone())
        .or_insert_with(|| reencode(&table.join("index").join(&file_name), &old));
    for r in ranges.iter_mut() {
        let r = record(r);
        let data_file = text(field(r, "f0")).to_string();
        let (offset, whole) = file.ranges[&data_file];
        *field(r, "f1") = Value::Int(offset);
        *field(r, "f2") = Value::Int(match f2 {
            F2::Whole => whole,
            F2::L => whole - 8,
            F2::PastBlob => whole + 8,
        });
    }
    *field(fields, "_FILE_SIZE") = Value::Long(file.bytes.len() as i64);
}

/// Decodes every vector of a 32-bit index file and writes them again as 64-bit blobs, in the
/// same order.
fn reencode(path: &Path, vectors: &[(String, i32)]) -> Rewritten {
    let old = std::fs::read(path).unwrap();
    let mut bytes = vec![1u8];
    let mut ranges = HashMap::new();
    for (data_file, offset) in vectors {
        let dv = decode_deletion_vector(&old, *offset as usize, "old", None).unwrap();
        assert!(!dv.is_empty(), "{data_file}");
        let blob = encode_bitmap64_blob(&dv);
        ranges.insert(data_file.clone(), (bytes.len() as i32, blob.len() as i32));
        bytes.extend_from_slice(&blob);
    }
    Rewritten { bytes, ranges }
}

/// The codec named in an Avro object container header (`avro.codec`; absent = null).
fn avro_codec(bytes: &[u8]) -> Codec {
    assert_eq!(&bytes[..4], b"Obj\x01");
    let mut pos = 4;
    let long = |pos: &mut usize| -> i64 {
        let (mut v, mut shift) = (0u64, 0);
        loop {
            let b = bytes[*pos];
            *pos += 1;
            v |= u64::from(b & 0x7f) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                return (v >> 1) as i64 ^ -((v & 1) as i64);
            }
        }
    };
    loop {
        let mut count = long(&mut pos);
        if count == 0 {
            return Codec::Null;
        }
        if count < 0 {
            count = -count;
            long(&mut pos); // block size in bytes
        }
        for _ in 0..count {
            let klen = long(&mut pos) as usize;
            let key = &bytes[pos..pos + klen];
            pos += klen;
            let vlen = long(&mut pos) as usize;
            let value = &bytes[pos..pos + vlen];
            pos += vlen;
            if key == b"avro.codec" {
                return Codec::from_str(std::str::from_utf8(value).unwrap()).unwrap();
            }
        }
    }
}

fn non_null(v: &mut Value) -> &mut Value {
    match v {
        Value::Union(_, inner) => non_null(inner),
        other => other,
    }
}

fn record(v: &mut Value) -> &mut Vec<(String, Value)> {
    match non_null(v) {
        Value::Record(fields) => fields,
        other => panic!("expected a record, got {other:?}"),
    }
}

fn field<'a>(fields: &'a mut [(String, Value)], name: &str) -> &'a mut Value {
    let (_, v) = fields
        .iter_mut()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no field {name}"));
    v
}

fn text(v: &mut Value) -> &str {
    match non_null(v) {
        Value::String(s) => s,
        other => panic!("expected a string, got {other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use paimon_core::index::deletion_vector::decode_deletion_file;
    use paimon_core::ErrorKind;

    /// Positions {4, 2^32 + 1}, written out by hand from the 64-bit layout of Java
    /// `Bitmap64DeletionVector` (`docs/format.md` "Deletion vectors").
    const GOLDEN: &str = concat!(
        "00000038",                                  // i32 BE L = 4 + 52
        "d1d33964",                                  // magic 1681511377 little-endian
        "0200000000000000",                          // u64 LE: two 32-bit buckets
        "00000000",                                  // u32 LE key 0
        "3a300000 01000000 0000 0000 10000000 0400", // portable roaring {4}
        "01000000",                                  // u32 LE key 1
        "3a300000 01000000 0000 0000 10000000 0100", // portable roaring {1}
        "37a7a89a",                                  // i32 BE CRC-32 of magic + bitmap
    );

    fn hex(s: &str) -> Vec<u8> {
        let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    fn positions() -> RoaringTreemap {
        [4u64, (1 << 32) + 1].into_iter().collect()
    }

    #[test]
    fn encoder_matches_hand_written_golden_bytes() {
        let blob = encode_bitmap64_blob(&positions());
        assert_eq!(blob, hex(GOLDEN));
        assert_eq!(blob.len(), 64);
    }

    /// An index file: version byte, then the golden blob; `f1` = 1, `f2` = 64.
    fn index_file() -> Vec<u8> {
        let mut file = vec![1u8];
        file.extend_from_slice(&hex(GOLDEN));
        file
    }

    #[test]
    fn decoder_reads_golden_blob_with_its_whole_length() {
        let dv = decode_deletion_file(&index_file(), 1, 64, "idx", None).unwrap();
        assert_eq!(dv, positions());
    }

    /// paimon-rust PR #785: a 64-bit vector's `f2` counts the size prefix and the CRC. The
    /// 32-bit convention (L = 56) and a range past the blob (72, past the file end) are typed
    /// errors naming the index file, never a panic or a silent read.
    #[test]
    fn decoder_rejects_other_length_conventions() {
        let file = index_file();
        for wrong in [56, 72, 0, -1, i64::from(i32::MAX)] {
            let e = decode_deletion_file(&file, 1, wrong, "idx-64", None).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::DataInvalid, "{e}");
            let msg = e.to_string();
            assert!(msg.contains("idx-64") && msg.contains("64-bit"), "{msg}");
        }
    }
}
