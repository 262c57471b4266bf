//! `HASH` index files of dynamic-bucket primary-key tables (Java
//! `org.apache.paimon.index.HashIndexFile` over `IntFileUtils`): the int32 hash codes of the
//! trimmed primary keys that live in one (partition, bucket), each as 4 big-endian bytes, no
//! header or footer. The index manifest entry's `_ROW_COUNT` is the number of hashes.
//!
//! The file is a set: Java writes it in the iteration order of its hash set, pypaimon 2.1.0
//! sorted ascending; readers (Java `PartitionIndex#loadIndex`, pypaimon) only collect the
//! values. [`encode_hashes`] writes ascending order, byte for byte what pypaimon writes.

use crate::spec::bytes::ByteReader;
use crate::{Error, Result};

/// Index type name of these files in the index manifest.
pub const HASH_INDEX: &str = "HASH";

/// The hash codes of a `HASH` index file, in file order. `file` names the file in errors; a
/// length that is not a multiple of 4 is `DataInvalid`.
pub fn decode_hashes(bytes: &[u8], file: &str) -> Result<Vec<i32>> {
    if bytes.len() % 4 != 0 {
        return Err(Error::data_invalid(format!(
            "HASH index file of {} bytes is not a sequence of 4-byte ints",
            bytes.len()
        ))
        .with_context("file", file.to_string()));
    }
    let mut r = ByteReader::new(bytes, "HASH index file");
    let mut out = Vec::with_capacity(bytes.len() / 4);
    while r.remaining() > 0 {
        out.push(
            r.i32_be()
                .map_err(|e| e.with_context("file", file.to_string()))?,
        );
    }
    Ok(out)
}

/// The bytes of a `HASH` index file holding `hashes` (ascending, duplicates removed by the
/// caller's set).
pub fn encode_hashes<'a>(hashes: impl IntoIterator<Item = &'a i32>) -> Vec<u8> {
    let mut sorted: Vec<i32> = hashes.into_iter().copied().collect();
    sorted.sort_unstable();
    sorted.dedup();
    let mut out = Vec::with_capacity(sorted.len() * 4);
    for h in sorted {
        out.extend_from_slice(&h.to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_round_trip_as_big_endian_ints() {
        let hashes = [5, -1, i32::MIN, 0x0102_0304, 5];
        let bytes = encode_hashes(&hashes);
        assert_eq!(bytes.len(), 16);
        assert_eq!(&bytes[..4], &i32::MIN.to_be_bytes());
        assert_eq!(&bytes[12..], &[1, 2, 3, 4]);
        assert_eq!(
            decode_hashes(&bytes, "f").unwrap(),
            vec![i32::MIN, -1, 5, 0x0102_0304]
        );
    }

    #[test]
    fn a_torn_file_is_data_invalid_naming_it() {
        let e = decode_hashes(&[0, 0, 0, 1, 9], "index-x-0").unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::DataInvalid);
        assert!(e.to_string().contains("index-x-0"), "{e}");
        assert!(decode_hashes(&[], "f").unwrap().is_empty());
    }
}
