//! Block handles and block trailers.
//!
//! - `org.apache.paimon.sst.BlockHandle`: `varint64 offset`, `varint32 size`; the size is that
//!   of the stored (possibly compressed) bytes and excludes the trailer.
//! - `org.apache.paimon.sst.BlockTrailer`: `u8` compression id, then the `u32 LE` CRC-32 of the
//!   stored bytes followed by that id byte (`SstFileUtils#crc32c`).

use super::{read_varint32, write_varint, CompressionType};
use crate::spec::bytes::ByteReader;
use crate::Result;

/// Where a block's stored bytes are (`BlockHandle`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BlockHandle {
    /// File offset of the stored bytes.
    pub offset: u64,
    /// Stored size in bytes, without the 5-byte trailer.
    pub size: u32,
}

impl BlockHandle {
    /// Largest encoding: a 9-byte offset varint and a 5-byte size varint (Java
    /// `MAX_ENCODED_LENGTH`; a `u64` varint can take 10 bytes, which Java never writes).
    pub const MAX_ENCODED_LENGTH: usize = 9 + 5;

    /// Decodes a handle from an index-block value; the whole value must be consumed.
    pub fn decode(value: &[u8]) -> Result<Self> {
        let mut r = ByteReader::new(value, "SST block handle");
        let offset = r.varint_u64()?;
        let size = read_varint32(&mut r)?;
        if !r.is_empty() {
            return Err(r.invalid("trailing bytes after the block handle"));
        }
        Ok(BlockHandle { offset, size })
    }

    /// The index-block value of this handle.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::MAX_ENCODED_LENGTH);
        write_varint(&mut out, self.offset);
        write_varint(&mut out, u64::from(self.size));
        out
    }

    /// The stored size plus the trailer.
    pub fn full_size(&self) -> u64 {
        u64::from(self.size) + BlockTrailer::ENCODED_LENGTH as u64
    }
}

/// The 5 bytes after a block (`BlockTrailer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockTrailer {
    /// How the stored bytes are compressed.
    pub compression: CompressionType,
    /// CRC-32 (IEEE) of the stored bytes followed by the compression id.
    pub crc: u32,
}

impl BlockTrailer {
    /// Encoded length.
    pub const ENCODED_LENGTH: usize = 5;

    /// Decodes the 5 trailer bytes.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let mut r = ByteReader::new(bytes, "SST block trailer");
        let id = r.u8()?;
        let compression = CompressionType::from_id(id).ok_or_else(|| {
            r.invalid("unknown compression id")
                .with_context("expected", "0 (none), 1 (zstd), 2 (lz4) or 3 (lzo)")
                .with_context("found", id.to_string())
        })?;
        let crc = r.u32_le()?;
        if !r.is_empty() {
            return Err(r.invalid("trailer longer than 5 bytes"));
        }
        Ok(BlockTrailer { compression, crc })
    }

    /// The 5 trailer bytes.
    pub fn encode(&self) -> [u8; 5] {
        let c = self.crc.to_le_bytes();
        [self.compression.id(), c[0], c[1], c[2], c[3]]
    }
}
