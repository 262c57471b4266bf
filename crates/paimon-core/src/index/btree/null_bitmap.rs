//! The null bitmap block: `org.apache.paimon.utils.RoaringNavigableMap64#serialize`, i.e.
//! `Roaring64NavigableMap#serializePortable` after `runOptimize()` — little-endian `u64`
//! bucket count, then per bucket a `u32` high key (ascending) and a 32-bit Roaring portable
//! bitmap (cookie 12346, or 12347 with run containers) — followed by a `u32 LE` CRC-32 of
//! those bytes (`BTreeIndexWriter#writeNullBitmap`, `BTreeIndexReader#readNullBitmap`).

use roaring::RoaringTreemap;

use crate::spec::bytes::ByteReader;
use crate::{Error, Result};

/// Decodes a portable 64-bit Roaring image; the whole input must be consumed.
pub fn decode_roaring64(bytes: &[u8]) -> Result<RoaringTreemap> {
    crate::index::roaring64::decode_portable(bytes, "null bitmap")
}

/// Decodes the stored null bitmap (`size` image bytes followed by the CRC).
pub fn decode_null_bitmap(stored: &[u8], size: usize) -> Result<RoaringTreemap> {
    let image = stored
        .get(..size)
        .ok_or_else(|| Error::data_invalid("null bitmap truncated"))?;
    let mut r = ByteReader::new(stored, "null bitmap CRC");
    r.seek(size)?;
    let crc = r.u32_le()?;
    let actual = crc32fast::hash(image);
    if crc != actual {
        return Err(Error::data_invalid("null bitmap CRC-32 mismatch")
            .with_context("expected", format!("{crc:#010x}"))
            .with_context("found", format!("{actual:#010x}")));
    }
    decode_roaring64(image)
}

/// The portable image of `rows` followed by its CRC (`RoaringTreemap`'s portable
/// serialization; unlike Java it writes no run containers, so images of long runs differ).
pub fn encode_null_bitmap(rows: &RoaringTreemap) -> Result<(Vec<u8>, u32)> {
    let mut image = Vec::with_capacity(rows.serialized_size());
    rows.serialize_into(&mut image)
        .map_err(|e| Error::internal(format!("serializing a null bitmap: {e}")))?;
    let crc = crc32fast::hash(&image);
    image.extend_from_slice(&crc.to_le_bytes());
    Ok((image, crc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::hex;

    #[test]
    fn array_and_run_containers() {
        // pypaimon image of {1, 2, 50, 78, 88, 109, 121} and its CRC.
        let b = hex("0100000000000000 00000000 3a300000 01000000 0000 0600 10000000 0100 0200 3200 4e00 5800 6d00 7900 de5c297f");
        let t = decode_null_bitmap(&b, b.len() - 4).unwrap();
        assert_eq!(t.iter().collect::<Vec<_>>(), [1, 2, 50, 78, 88, 109, 121]);
        let (enc, _) = encode_null_bitmap(&t).unwrap();
        assert_eq!(enc, b);
        // Java image with a run container: rows 100..=119.
        let b = hex("0100000000000000 00000000 3b300000 01 0000 1300 0100 6400 1300 02113ee0");
        let t = decode_null_bitmap(&b, b.len() - 4).unwrap();
        assert_eq!(t.iter().collect::<Vec<_>>(), (100..120).collect::<Vec<_>>());
        let mut bad = b.clone();
        bad[20] ^= 1;
        assert!(decode_null_bitmap(&bad, b.len() - 4).is_err());
        assert!(decode_null_bitmap(&b, b.len()).is_err());
        assert!(decode_roaring64(&hex("ffffffffffffffff")).is_err());
        let mut trailing = b[..b.len() - 4].to_vec();
        trailing.push(0);
        assert!(decode_roaring64(&trailing).is_err());
        // Rows at or above 2^32 live in a second bucket.
        let t: RoaringTreemap = [3u64, 1 << 33].into_iter().collect();
        let (enc, _) = encode_null_bitmap(&t).unwrap();
        assert_eq!(decode_null_bitmap(&enc, enc.len() - 4).unwrap(), t);
    }
}
