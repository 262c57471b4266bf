//! The SST container of BTree index payloads: blocks of sorted key/value entries, each followed
//! by a 5-byte trailer, and an index block of block handles.
//!
//! Mirrors Java `org.apache.paimon.sst` (Paimon 2.0): `SstFileReader`, `SstFileWriter`,
//! `BlockReader`, `BlockWriter`, `BlockIterator`, `BlockHandle`, `BlockTrailer`,
//! `BlockAlignedType`, `SstFileUtils`, and the codecs of `org.apache.paimon.compression`.
//! Fixed-width integers are little-endian (`org.apache.paimon.memory.MemorySliceOutput`);
//! varints are unsigned LEB128.
//!
//! Everything here is pure: bytes come from a caller-supplied [`PayloadSource`].

pub mod block;
pub mod cache;
pub mod compression;
pub mod handle;
pub mod reader;
pub mod source;
pub mod writer;

pub use block::Block;
pub use cache::BlockCache;
pub use compression::CompressionType;
pub use handle::{BlockHandle, BlockTrailer};
pub use reader::SstFile;
pub use source::PayloadSource;

use crate::spec::bytes::ByteReader;
use crate::Result;

/// Reads a Java `readVarLenInt` (`org.apache.paimon.memory.MemorySliceInput`): unsigned LEB128
/// of at most 5 bytes. Values that do not fit 32 bits are rejected (Java would silently
/// truncate them).
pub(crate) fn read_varint32(r: &mut ByteReader<'_>) -> Result<u32> {
    let start = r.position();
    let mut out = 0u32;
    for shift in (0..35).step_by(7) {
        let b = r.u8()?;
        if shift == 28 && b & 0xF0 != 0 {
            return Err(r
                .invalid("varint32 does not fit 32 bits")
                .with_context("varint offset", start.to_string()));
        }
        out |= u32::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(out);
        }
    }
    Err(r
        .invalid("varint32 longer than 5 bytes")
        .with_context("varint offset", start.to_string()))
}

/// Appends `v` as unsigned LEB128 (`MemorySliceOutput#writeVarLenInt` / `writeVarLenLong`).
pub(crate) fn write_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Java's CRC (`SstFileUtils#crc32c`, despite the name IEEE CRC-32 of `java.util.zip.CRC32`)
/// over the stored block bytes followed by the compression id byte.
pub fn block_crc(stored: &[u8], compression_id: u8) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(stored);
    h.update(&[compression_id]);
    h.finalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints() {
        let mut out = Vec::new();
        for v in [0u64, 1, 127, 128, 261, 798, u64::from(u32::MAX), u64::MAX] {
            out.clear();
            write_varint(&mut out, v);
            let mut r = ByteReader::new(&out, "t");
            assert_eq!(r.varint_u64().unwrap(), v);
            if let Ok(v32) = u32::try_from(v) {
                let mut r = ByteReader::new(&out, "t");
                assert_eq!(read_varint32(&mut r).unwrap(), v32);
            }
        }
        let mut r = ByteReader::new(&[0x85, 0x02], "t");
        assert_eq!(read_varint32(&mut r).unwrap(), 261);
        for bad in [&[0xff, 0xff, 0xff, 0xff, 0x1f][..], &[0x80; 6], &[0x80]] {
            assert!(read_varint32(&mut ByteReader::new(bad, "t")).is_err());
        }
    }
}
