//! Writing an SST file in memory (`org.apache.paimon.sst.SstFileWriter`): data blocks flushed
//! when their estimated size exceeds the block size, each compressed when that saves ≥ 12.5%,
//! then an index block of (last key → handle). The bytes written so far can be taken out
//! ([`SstWriter::take_output`]) as the file grows, so that a large file is streamed to its
//! store, not held whole.

use super::block::BlockBuilder;
use super::{block_crc, compression, BlockHandle, BlockTrailer, CompressionType};

/// Builds the bytes of one SST file.
#[derive(Debug)]
pub struct SstWriter {
    out: Vec<u8>,
    /// Bytes taken out before `out` (the file offset of `out[0]`).
    taken: u64,
    block_size: usize,
    compression: CompressionType,
    zstd_level: i32,
    data: BlockBuilder,
    index: BlockBuilder,
    last_key: Vec<u8>,
}

impl SstWriter {
    /// A writer flushing data blocks past `block_size` bytes (`btree-index.block-size`),
    /// compressing with `compression` (`zstd_level` = `btree-index.compression-level`).
    pub fn new(block_size: usize, compression: CompressionType, zstd_level: i32) -> Self {
        SstWriter {
            out: Vec::new(),
            taken: 0,
            block_size,
            compression,
            zstd_level,
            data: BlockBuilder::new(),
            index: BlockBuilder::new(),
            last_key: Vec::new(),
        }
    }

    /// Reserves room for about `bytes` more output bytes (a payload's expected size), so the
    /// output is not regrown and copied as it fills.
    pub fn reserve(&mut self, bytes: usize) {
        self.out.reserve(bytes);
    }

    /// Appends an entry; keys must be strictly increasing in the reader's comparator order.
    pub fn put(&mut self, key: &[u8], value: &[u8]) {
        self.data.add(key, value);
        self.last_key.clear();
        self.last_key.extend_from_slice(key);
        if self.data.memory() > self.block_size {
            self.flush();
        }
    }

    /// Writes the pending data block, if any (`SstFileWriter#flush`).
    pub fn flush(&mut self) {
        if self.data.is_empty() {
            return;
        }
        let mut data = std::mem::take(&mut self.data);
        let handle = self.write_block(&mut data);
        // `finish` reset the builder and kept its room.
        self.data = data;
        self.index.add(&self.last_key, &handle.encode());
    }

    fn write_block(&mut self, builder: &mut BlockBuilder) -> BlockHandle {
        let block = builder.finish();
        let (stored, kind) = match compression::compress(&block, self.compression, self.zstd_level)
        {
            Some(c) => (c, self.compression),
            None => (block, CompressionType::None),
        };
        let handle = BlockHandle {
            offset: self.position(),
            size: stored.len() as u32,
        };
        let trailer = BlockTrailer {
            compression: kind,
            crc: block_crc(&stored, kind.id()),
        };
        self.out.extend_from_slice(&stored);
        self.out.extend_from_slice(&trailer.encode());
        handle
    }

    /// Current length of the output (the offset of the next write), taken bytes included.
    pub fn position(&self) -> u64 {
        self.taken + self.out.len() as u64
    }

    /// Bytes written and not taken yet.
    pub fn pending(&self) -> usize {
        self.out.len()
    }

    /// Takes the bytes written since the last call (the file's next part); the next ones go
    /// to a buffer of the same room.
    pub fn take_output(&mut self) -> Vec<u8> {
        self.taken += self.out.len() as u64;
        let room = self.out.capacity();
        std::mem::replace(&mut self.out, Vec::with_capacity(room))
    }

    /// Appends raw bytes (the null bitmap, the footer).
    pub fn write_raw(&mut self, bytes: &[u8]) {
        self.out.extend_from_slice(bytes);
    }

    /// Writes the index block (`SstFileWriter#writeIndexBlock`); call after the last `flush`.
    pub fn write_index_block(&mut self) -> BlockHandle {
        let mut index = std::mem::take(&mut self.index);
        self.write_block(&mut index)
    }

    /// The file bytes written and not taken.
    pub fn into_bytes(self) -> Vec<u8> {
        self.out
    }
}
