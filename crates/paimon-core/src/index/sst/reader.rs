//! Reading blocks of one SST file (`org.apache.paimon.sst.SstFileReader#readBlock` and
//! `#decompressBlock`): check the handle against the file, read the stored bytes and trailer
//! in one ranged read, verify the CRC, decompress, parse, cache.

use std::sync::Arc;

use bytes::Bytes;

use super::{block_crc, compression, Block, BlockCache, BlockHandle, BlockTrailer, PayloadSource};
use crate::{Error, Result};

/// One SST file: its name (for errors and cache keys), bytes and optional shared cache.
#[derive(Clone)]
pub struct SstFile {
    name: Arc<str>,
    source: Arc<dyn PayloadSource>,
    cache: Option<BlockCache>,
}

impl std::fmt::Debug for SstFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SstFile")
            .field("name", &self.name)
            .field("len", &self.source.len())
            .finish()
    }
}

impl SstFile {
    /// A file named `name` (used in errors and as the cache key) over `source`.
    pub fn new(
        name: impl Into<Arc<str>>,
        source: Arc<dyn PayloadSource>,
        cache: Option<BlockCache>,
    ) -> Self {
        SstFile {
            name: name.into(),
            source,
            cache,
        }
    }

    /// The file name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// File length.
    pub fn len(&self) -> u64 {
        self.source.len()
    }

    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.source.is_empty()
    }

    /// An error naming this file.
    pub fn error(&self, message: impl Into<String>) -> Error {
        Error::data_invalid(message).with_context("file", self.name.to_string())
    }

    /// `len` bytes at `offset`, which must end at or before `limit`.
    pub fn read_range(&self, offset: u64, len: u64, limit: u64, what: &str) -> Result<Bytes> {
        let end = offset.checked_add(len);
        if end.is_none_or(|e| e > limit) || limit > self.len() {
            return Err(self
                .error(format!("{what} lies past the end of the data"))
                .with_context("offset", offset.to_string())
                .with_context("size", len.to_string())
                .with_context("limit", limit.to_string()));
        }
        let n = usize::try_from(len).map_err(|_| self.error(format!("{what} too large")))?;
        let bytes = self
            .source
            .read(offset, n)
            .map_err(|e| e.with_context("file", self.name.to_string()))?;
        if bytes.len() != n {
            return Err(self
                .error(format!("short read of {what}"))
                .with_context("offset", offset.to_string())
                .with_context("expected", n.to_string())
                .with_context("found", bytes.len().to_string()));
        }
        Ok(bytes)
    }

    /// The block at `handle`, whose stored bytes and trailer must end at or before `limit`
    /// (where the footer, or the next structure, starts).
    pub fn read_block(&self, handle: BlockHandle, limit: u64, what: &str) -> Result<Arc<Block>> {
        if let Some(b) = self
            .cache
            .as_ref()
            .and_then(|c| c.get(&self.name, handle.offset))
        {
            return Ok(b);
        }
        let ctx = |e: Error| {
            e.with_context("file", self.name.to_string())
                .with_context("block", what.to_string())
                .with_context("block offset", handle.offset.to_string())
        };
        let raw = self.read_range(handle.offset, handle.full_size(), limit, what)?;
        let size = handle.size as usize;
        let trailer = BlockTrailer::decode(raw.get(size..).unwrap_or_default()).map_err(ctx)?;
        let stored = raw.slice(..size);
        let crc = block_crc(&stored, trailer.compression.id());
        if crc != trailer.crc {
            return Err(ctx(Error::data_invalid("SST block CRC-32 mismatch"))
                .with_context("expected", format!("{:#010x}", trailer.crc))
                .with_context("found", format!("{crc:#010x}")));
        }
        let block = compression::decompress(stored, trailer.compression)
            .and_then(Block::parse)
            .map_err(ctx)?;
        let block = Arc::new(block);
        if let Some(c) = &self.cache {
            c.insert(&self.name, handle.offset, block.clone());
        }
        Ok(block)
    }
}
