//! Deletion vectors: per data file, the set of deleted row positions.
//!
//! Mirrors Java `org.apache.paimon.deletionvectors.BitmapDeletionVector` and
//! `Bitmap64DeletionVector` (Paimon 2.0). At the recorded offset of the index file:
//!
//! | bytes | 32-bit (default)                     | 64-bit (`deletion-vectors.bitmap64`)       |
//! |-------|--------------------------------------|--------------------------------------------|
//! | 4     | `i32 BE` L = 4 + bitmap length       | `i32 BE` L = 4 + bitmap length             |
//! | 4     | magic `0x5E43F2D0` **BE**            | magic `0x6439D3D1` **LE**                  |
//! | L − 4 | RoaringBitmap portable (LE)          | `u64 LE` count, then (`u32 LE` key + portable bitmap)* |
//! | 4     | `i32 BE` CRC-32 of magic + bitmap    | same                                       |
//!
//! The recorded length `f2` is L for 32-bit vectors and 4 + L + 4 for 64-bit ones. Java does not
//! verify the CRC; we do, since a mismatch means the bytes are not what the writer wrote.

use roaring::{RoaringBitmap, RoaringTreemap};

use crate::spec::bytes::ByteReader;
use crate::{Error, Result};

/// Magic of a 32-bit vector (read big-endian).
pub const MAGIC_V32: u32 = 1_581_511_376;
/// Magic of a 64-bit vector (read little-endian).
pub const MAGIC_V64: u32 = 1_681_511_377;
/// Version byte at the start of a deletion-vector index file.
pub const INDEX_FILE_VERSION: u8 = 1;
/// Largest vector we accept (1 GiB), before allocating anything.
const MAX_VECTOR_BYTES: usize = 1 << 30;

/// Decodes the vector starting at `offset` (its size prefix) of a deletion-vector index file.
///
/// `file` names the index file in errors; `row_count`, when known, bounds the positions.
pub fn decode_deletion_vector(
    index_file: &[u8],
    offset: usize,
    file: &str,
    row_count: Option<u64>,
) -> Result<RoaringTreemap> {
    vector_at(index_file, offset, file)
        .and_then(|blob| decode_blob(blob, file, row_count))
        .map_err(|e| e.with_context("offset", offset.to_string()))
}

/// Decodes the vector at `offset` after checking the recorded length `f2` against it, as Java
/// `DeletionVector.read(dis, length)` does: `f2` must equal L for a 32-bit vector and
/// 4 + L + 4 (the whole blob) for a 64-bit one. A length in the other convention, or one
/// reaching past the end of the index file, is an error naming the file and both lengths.
pub fn decode_deletion_file(
    index_file: &[u8],
    offset: usize,
    length: i64,
    file: &str,
    row_count: Option<u64>,
) -> Result<RoaringTreemap> {
    vector_at(index_file, offset, file)
        .and_then(|blob| decode_deletion_blob(blob, length, file, row_count))
        .map_err(|e| e.with_context("offset", offset.to_string()))
}

/// Decodes one vector from `blob`, the bytes of its index file from the vector's size prefix
/// on (possibly followed by further vectors), checking the recorded length `f2` as
/// [`decode_deletion_file`] does. This is what a ranged read of `[f1, f1 + f2 + 8)` yields.
pub fn decode_deletion_blob(
    blob: &[u8],
    length: i64,
    file: &str,
    row_count: Option<u64>,
) -> Result<RoaringTreemap> {
    let tree = decode_blob(blob, file, row_count)?;
    // The decode above proved the prefix and magic are readable.
    let mut r = ByteReader::new(blob, "deletion vector");
    let len = i64::from(r.i32_be()?);
    let (expected, kind) = if r.u32_be()? == MAGIC_V32 {
        (len, "32-bit: L")
    } else {
        (len + 8, "64-bit: 4 + L + 4")
    };
    if length != expected || length > i64::try_from(blob.len()).unwrap_or(i64::MAX) {
        return Err(Error::data_invalid(format!(
            "recorded deletion vector length {length} does not match the vector ({kind} = {expected})"
        ))
        .with_context("file", file.to_string()));
    }
    Ok(tree)
}

/// The bytes from `offset` on, after checking the index file's version byte.
fn vector_at<'a>(index_file: &'a [u8], offset: usize, file: &str) -> Result<&'a [u8]> {
    if offset == 0 || index_file.first() != Some(&INDEX_FILE_VERSION) {
        return Err(Error::data_invalid(format!(
            "deletion vector index file must start with version {INDEX_FILE_VERSION} and vectors after it"
        ))
        .with_context("file", file.to_string()));
    }
    index_file.get(offset..).ok_or_else(|| {
        Error::data_invalid(format!(
            "deletion vector offset past the end of the {}-byte index file",
            index_file.len()
        ))
        .with_context("file", file.to_string())
    })
}

/// Decodes the vector at the start of `blob` (its size prefix).
fn decode_blob(blob: &[u8], file: &str, row_count: Option<u64>) -> Result<RoaringTreemap> {
    let ctx = |e: Error| e.with_context("file", file.to_string());
    let mut r = ByteReader::new(blob, "deletion vector");
    let len = r.i32_be().map_err(ctx)?;
    let len = usize::try_from(len)
        .ok()
        .filter(|l| *l >= 4 && *l <= MAX_VECTOR_BYTES)
        .ok_or_else(|| ctx(r.invalid(format!("invalid vector length {len}"))))?;
    let body = r.take(len).map_err(ctx)?;
    let crc = r.u32_be().map_err(ctx)?;
    let actual = crc32fast::hash(body);
    if actual != crc {
        return Err(ctx(Error::data_invalid(
            "deletion vector checksum mismatch",
        )
        .with_context("expected", format!("{crc:#010x}"))
        .with_context("found", format!("{actual:#010x}"))));
    }
    let (magic, bitmap) = body.split_at(4);
    let magic_be = u32::from_be_bytes([magic[0], magic[1], magic[2], magic[3]]);
    let magic_le = u32::from_le_bytes([magic[0], magic[1], magic[2], magic[3]]);
    let tree = if magic_be == MAGIC_V32 {
        let bm = RoaringBitmap::deserialize_from(bitmap).map_err(|e| {
            ctx(Error::data_invalid(format!(
                "corrupt 32-bit deletion vector: {e}"
            )))
        })?;
        RoaringTreemap::from_bitmaps([(0u32, bm)])
    } else if magic_le == MAGIC_V64 {
        decode_bitmap64(bitmap).map_err(ctx)?
    } else {
        return Err(ctx(Error::data_invalid("deletion vector magic mismatch")
            .with_context(
                "expected",
                format!("{MAGIC_V32:#x} (BE) or {MAGIC_V64:#x} (LE)"),
            )
            .with_context("found", format!("{magic_be:#x}"))));
    };
    if let (Some(rows), Some(max)) = (row_count, tree.max()) {
        if max >= rows {
            return Err(ctx(Error::data_invalid(format!(
                "deletion vector deletes position {max} of a file with {rows} rows"
            ))));
        }
    }
    Ok(tree)
}

/// `u64 LE` count, then per bucket `u32 LE` high key + portable 32-bit bitmap.
fn decode_bitmap64(bytes: &[u8]) -> Result<RoaringTreemap> {
    crate::index::roaring64::decode_portable(bytes, "64-bit deletion vector")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::hex;

    /// The 32-bit example of `docs/format.md` "Deletion vectors" (Java `BitmapDeletionVector`):
    /// one position (4), `f1` = 1, `f2` = 22.
    const JAVA_32_HEX: &str = "01000000165e43f2d03a300000010000000000000010000000040087 5ca5d7";

    #[test]
    fn decodes_java_32_bit_vector() {
        let bytes = &hex(JAVA_32_HEX);
        assert_eq!(bytes.len(), 31);
        let dv = decode_deletion_vector(bytes, 1, "t", Some(10)).unwrap();
        assert_eq!(dv.iter().collect::<Vec<_>>(), vec![4]);
        // Position past the file's rows.
        assert!(decode_deletion_vector(bytes, 1, "t", Some(4)).is_err());
        // The recorded length is L (22) for 32-bit vectors; the 64-bit convention is refused.
        assert_eq!(decode_deletion_file(bytes, 1, 22, "t", None).unwrap(), dv);
        // A ranged read yields the blob alone, possibly followed by the next vector's bytes.
        assert_eq!(
            decode_deletion_blob(&bytes[1..], 22, "t", None).unwrap(),
            dv
        );
        let mut longer = bytes[1..].to_vec();
        longer.extend_from_slice(&[0xAB; 8]);
        assert_eq!(decode_deletion_blob(&longer, 22, "t", None).unwrap(), dv);
        for cut in 0..bytes.len() - 1 {
            assert!(decode_deletion_blob(&bytes[1..1 + cut], 22, "t", None).is_err());
        }
        let e = decode_deletion_file(bytes, 1, 30, "idx", None).unwrap_err();
        assert!(
            e.to_string().contains("30") && e.to_string().contains("idx"),
            "{e}"
        );
    }

    fn encode64(tree: &RoaringTreemap) -> Vec<u8> {
        let mut bitmap = Vec::new();
        tree.serialize_into(&mut bitmap).unwrap();
        let mut body = MAGIC_V64.to_le_bytes().to_vec();
        body.extend_from_slice(&bitmap);
        let mut out = vec![INDEX_FILE_VERSION];
        out.extend_from_slice(&(body.len() as i32).to_be_bytes());
        out.extend_from_slice(&body);
        out.extend_from_slice(&crc32fast::hash(&body).to_be_bytes());
        out
    }

    #[test]
    fn decodes_64_bit_vector_and_rejects_corruption() {
        let tree: RoaringTreemap = [1u64, 7, (1 << 33) + 5].into_iter().collect();
        let bytes = encode64(&tree);
        assert_eq!(decode_deletion_vector(&bytes, 1, "t", None).unwrap(), tree);
        for cut in 0..bytes.len() {
            assert!(
                decode_deletion_vector(&bytes[..cut], 1, "t", None).is_err(),
                "prefix {cut}"
            );
        }
        let mut bad = bytes.clone();
        let last = bad.len() - 1;
        bad[last] ^= 1;
        let e = decode_deletion_vector(&bad, 1, "idx", None).unwrap_err();
        assert!(
            e.to_string().contains("checksum") && e.to_string().contains("idx"),
            "{e}"
        );
        let mut magic = bytes;
        magic[5] ^= 0xff;
        assert!(decode_deletion_vector(&magic, 1, "t", None).is_err());
    }
}
