//! Block codecs (`org.apache.paimon.compression.BlockCompressionType` and the
//! `*BlockCompressor` / `*BlockDecompressor` classes).
//!
//! A compressed block is stored as `varint32 uncompressedLen` followed by the codec payload:
//! - ZSTD: one zstd frame (`ZstdBlockCompressor` writes it through `ZstdOutputStream`, so it
//!   has no content size); the output is sized from `uncompressedLen`.
//! - LZ4 / LZO: an 8-byte header `i32 LE compressedLen, i32 LE originalLen`
//!   (`CompressorUtils#HEADER_LENGTH`), then a raw LZ4 (or LZO) block, not a frame.
//!
//! `SstFileWriter#writeBlock` keeps the compressed form only when it is smaller than
//! `len - len / 8`, so each block's trailer says how that block is stored.

use std::io::Read;

use bytes::Bytes;

use super::{read_varint32, write_varint};
use crate::spec::bytes::ByteReader;
use crate::{Error, Result};

/// Largest uncompressed block we inflate (Java's default block size is 64 KiB).
pub const MAX_UNCOMPRESSED_BLOCK: usize = 256 << 20;

/// Block compression (`BlockCompressionType`, persistent ids 0–3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompressionType {
    /// Stored as is.
    None,
    /// zstd frame.
    Zstd,
    /// Raw LZ4 block behind an 8-byte header.
    Lz4,
    /// Raw LZO block behind an 8-byte header (recognised, not decoded).
    Lzo,
}

impl CompressionType {
    /// The type of a persistent id.
    pub fn from_id(id: u8) -> Option<Self> {
        match id {
            0 => Some(Self::None),
            1 => Some(Self::Zstd),
            2 => Some(Self::Lz4),
            3 => Some(Self::Lzo),
            _ => None,
        }
    }

    /// The persistent id written in trailers.
    pub fn id(self) -> u8 {
        match self {
            Self::None => 0,
            Self::Zstd => 1,
            Self::Lz4 => 2,
            Self::Lzo => 3,
        }
    }

    /// The `btree-index.compression` option value (`none`, `zstd`, `lz4`, `lzo`).
    pub fn from_option(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" => Some(Self::None),
            "zstd" => Some(Self::Zstd),
            "lz4" => Some(Self::Lz4),
            "lzo" => Some(Self::Lzo),
            _ => None,
        }
    }
}

/// The uncompressed bytes of a stored block. `stored` are the bytes the handle points at.
/// Corrupt input is `DataInvalid`; LZO is `Unsupported`.
pub fn decompress(stored: Bytes, compression: CompressionType) -> Result<Bytes> {
    let inflate: fn(&[u8], usize) -> Result<Vec<u8>> = match compression {
        CompressionType::None => return Ok(stored),
        CompressionType::Zstd => zstd_decompress,
        CompressionType::Lz4 => lz4_decompress,
        CompressionType::Lzo => {
            return Err(Error::unsupported(
                "LZO-compressed BTree index blocks are not supported",
            ))
        }
    };
    let mut r = ByteReader::new(&stored, "compressed SST block");
    let len = read_varint32(&mut r)? as usize;
    if len > MAX_UNCOMPRESSED_BLOCK {
        return Err(r
            .invalid("uncompressed length exceeds the limit")
            .with_context("found", len.to_string())
            .with_context("limit", MAX_UNCOMPRESSED_BLOCK.to_string()));
    }
    let payload = r.take(r.remaining())?;
    Ok(Bytes::from(inflate(payload, len)?))
}

fn zstd_decompress(payload: &[u8], len: usize) -> Result<Vec<u8>> {
    let corrupt =
        |e: std::io::Error| Error::data_invalid(format!("corrupt zstd block: {e}")).with_source(e);
    let decoder = zstd::stream::read::Decoder::with_buffer(payload).map_err(corrupt)?;
    // Grows with the real output, never past len + 1 bytes.
    let mut out = Vec::new();
    decoder
        .take(len as u64 + 1)
        .read_to_end(&mut out)
        .map_err(corrupt)?;
    if out.len() != len {
        return Err(Error::data_invalid("zstd block length mismatch")
            .with_context("expected", len.to_string())
            .with_context("found", out.len().to_string()));
    }
    Ok(out)
}

fn lz4_decompress(payload: &[u8], len: usize) -> Result<Vec<u8>> {
    let mut r = ByteReader::new(payload, "LZ4 block header");
    let compressed_len = r.i32_le()?;
    let original_len = r.i32_le()?;
    // CompressorUtils#validateLength
    if compressed_len < 0
        || original_len < 0
        || (original_len == 0) != (compressed_len == 0)
        || original_len as usize != len
    {
        return Err(r
            .invalid("inconsistent lengths")
            .with_context("compressedLen", compressed_len.to_string())
            .with_context("originalLen", original_len.to_string())
            .with_context("uncompressedLen", len.to_string()));
    }
    let body = r.take(compressed_len as usize)?;
    // An LZ4 sequence expands at most ~255-fold; refuse to allocate beyond that.
    if len > body.len().saturating_mul(255).saturating_add(16) {
        return Err(r
            .invalid("uncompressed length impossible for the compressed size")
            .with_context("found", len.to_string()));
    }
    let mut out = vec![0u8; len];
    let n = lz4_flex::block::decompress_into(body, &mut out)
        .map_err(|e| Error::data_invalid(format!("corrupt LZ4 block: {e}")))?;
    if n != len {
        return Err(Error::data_invalid("LZ4 block length mismatch")
            .with_context("expected", len.to_string())
            .with_context("found", n.to_string()));
    }
    Ok(out)
}

/// Compresses an uncompressed block as `SstFileWriter#writeBlock` does: returns the stored
/// bytes (`varint32 len` + codec payload), or `None` when compression saves less than 12.5%
/// (or the codec is NONE / LZO, which is not written).
pub fn compress(block: &[u8], compression: CompressionType, zstd_level: i32) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(block.len() + 16);
    write_varint(&mut out, block.len() as u64);
    match compression {
        CompressionType::None | CompressionType::Lzo => return None,
        CompressionType::Zstd => {
            let mut enc = zstd::stream::write::Encoder::new(&mut out, zstd_level).ok()?;
            // Java's stream frames carry no content size and no checksum.
            enc.include_contentsize(false).ok()?;
            enc.include_checksum(false).ok()?;
            std::io::Write::write_all(&mut enc, block).ok()?;
            enc.finish().ok()?;
        }
        CompressionType::Lz4 => {
            let body = lz4_flex::block::compress(block);
            out.extend_from_slice(&i32::try_from(body.len()).ok()?.to_le_bytes());
            out.extend_from_slice(&i32::try_from(block.len()).ok()?.to_le_bytes());
            out.extend_from_slice(&body);
        }
    }
    (out.len() < block.len() - block.len() / 8).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_threshold() {
        let block: Vec<u8> = (0..2000u32).flat_map(|i| (i % 7).to_le_bytes()).collect();
        for c in [CompressionType::Zstd, CompressionType::Lz4] {
            let stored = compress(&block, c, 1).unwrap();
            assert_eq!(decompress(Bytes::from(stored), c).unwrap(), block);
            // Incompressible input stays uncompressed.
            assert!(compress(&[1, 2, 3, 4, 5], c, 1).is_none());
        }
        assert_eq!(
            CompressionType::from_option(" ZSTD"),
            Some(CompressionType::Zstd)
        );
        for id in 0..4 {
            assert_eq!(CompressionType::from_id(id).unwrap().id(), id);
        }
        assert!(CompressionType::from_id(4).is_none());
    }

    #[test]
    fn corrupt_input_is_an_error() {
        let block = vec![7u8; 4096];
        for c in [CompressionType::Zstd, CompressionType::Lz4] {
            let stored = compress(&block, c, 1).unwrap();
            for cut in [0, 1, 3, stored.len() / 2, stored.len() - 1] {
                assert!(decompress(Bytes::copy_from_slice(&stored[..cut]), c).is_err());
            }
            let mut bad = stored.clone();
            let n = bad.len();
            bad[n - 2] ^= 0x5a;
            bad[3] ^= 0xff;
            let _ = decompress(Bytes::from(bad), c); // must not panic
            let mut wrong_len = stored.clone();
            wrong_len[0] ^= 1;
            assert!(decompress(Bytes::from(wrong_len), c).is_err());
        }
        let e = decompress(Bytes::from_static(&[1, 0]), CompressionType::Lzo).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Unsupported);
    }
}
