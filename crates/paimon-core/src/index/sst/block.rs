//! One uncompressed SST block (`org.apache.paimon.sst.BlockReader`, `BlockIterator`,
//! `BlockWriter`, `BlockAlignedType`).
//!
//! Entries `varint32 keyLen, key, varint32 valueLen, value`, then a tail:
//! - aligned (every entry has the same encoded size): `u32 LE recordSize`, byte `0`;
//! - unaligned: `u32 LE` start offset of each entry, `u32 LE count`, byte `1`.
//!
//! An empty block is always unaligned. Keys are stored whole (no prefix compression).

use std::cmp::Ordering;

use bytes::Bytes;

use super::{read_varint32, write_varint};
use crate::spec::bytes::ByteReader;
use crate::{Error, Result};

/// Tail byte of an aligned block (`BlockAlignedType.ALIGNED`).
pub const ALIGNED: u8 = 0;
/// Tail byte of an unaligned block (`BlockAlignedType.UNALIGNED`).
pub const UNALIGNED: u8 = 1;

#[derive(Debug, Clone)]
enum Layout {
    Aligned { record_size: usize },
    Unaligned { offsets: Bytes },
}

/// A parsed uncompressed block: entry `i`'s key and value are found without scanning.
#[derive(Debug, Clone)]
pub struct Block {
    data: Bytes,
    layout: Layout,
    count: usize,
    size: usize,
}

/// One key/value entry of a block (zero-copy slices of the block).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Serialized key.
    pub key: Bytes,
    /// Serialized value.
    pub value: Bytes,
}

impl Block {
    /// Parses the tail of an uncompressed block. Tail values that point outside the block are
    /// `DataInvalid`; entries are checked when read.
    pub fn parse(bytes: Bytes) -> Result<Self> {
        let size = bytes.len();
        let r = ByteReader::new(&bytes, "SST block");
        let tail_at = size.checked_sub(5).ok_or_else(|| {
            r.invalid("shorter than its 5-byte tail")
                .with_context("length", size.to_string())
        })?;
        let mut t = ByteReader::new(&bytes, "SST block tail");
        t.seek(tail_at)?;
        let value = t.u32_le()?;
        let kind = t.u8()?;
        let data_len = tail_at;
        let (layout, count, data) = match kind {
            ALIGNED => {
                let record_size = value as usize;
                if record_size == 0 || data_len % record_size != 0 {
                    return Err(t
                        .invalid("aligned record size does not divide the entry bytes")
                        .with_context("record size", record_size.to_string())
                        .with_context("entry bytes", data_len.to_string()));
                }
                let data = bytes.slice(..data_len);
                (
                    Layout::Aligned { record_size },
                    data_len / record_size,
                    data,
                )
            }
            UNALIGNED => {
                let count = value as usize;
                let index_len =
                    count
                        .checked_mul(4)
                        .filter(|l| *l <= data_len)
                        .ok_or_else(|| {
                            t.invalid("entry count exceeds the block")
                                .with_context("count", count.to_string())
                                .with_context("block length", size.to_string())
                        })?;
                let index_at = data_len - index_len;
                let offsets = bytes.slice(index_at..data_len);
                (
                    Layout::Unaligned { offsets },
                    count,
                    bytes.slice(..index_at),
                )
            }
            other => {
                return Err(t
                    .invalid("unknown block aligned type")
                    .with_context("expected", "0 (aligned) or 1 (unaligned)")
                    .with_context("found", other.to_string()))
            }
        };
        Ok(Block {
            data,
            layout,
            count,
            size,
        })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether the block has no entries.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Uncompressed size in bytes (for cache accounting).
    pub fn size_bytes(&self) -> usize {
        self.size
    }

    fn start_of(&self, i: usize) -> Result<usize> {
        match &self.layout {
            Layout::Aligned { record_size } => Ok(i * record_size),
            Layout::Unaligned { offsets } => {
                let mut r = ByteReader::new(offsets, "SST block entry offsets");
                r.seek(i * 4)?;
                Ok(r.u32_le()? as usize)
            }
        }
    }

    fn reader_at(&self, i: usize) -> Result<ByteReader<'_>> {
        if i >= self.count {
            return Err(Error::internal(format!(
                "SST block entry {i} of {} requested",
                self.count
            )));
        }
        let start = self.start_of(i)?;
        let mut r = ByteReader::new(&self.data, "SST block entry");
        r.seek(start)
            .map_err(|e| e.with_context("entry", i.to_string()))?;
        Ok(r)
    }

    /// The key of entry `i`.
    pub fn key(&self, i: usize) -> Result<&[u8]> {
        let mut r = self.reader_at(i)?;
        let len = read_varint32(&mut r)? as usize;
        r.take(len)
            .map_err(|e| e.with_context("entry", i.to_string()))
    }

    /// Entry `i`.
    pub fn entry(&self, i: usize) -> Result<Entry> {
        let mut r = self.reader_at(i)?;
        let klen = read_varint32(&mut r)? as usize;
        let kstart = r.position();
        r.take(klen)?;
        let vlen = read_varint32(&mut r)? as usize;
        let vstart = r.position();
        r.take(vlen)
            .map_err(|e| e.with_context("entry", i.to_string()))?;
        Ok(Entry {
            key: self.data.slice(kstart..kstart + klen),
            value: self.data.slice(vstart..vstart + vlen),
        })
    }

    /// Binary search as `BlockIterator#seekTo`: the first entry whose key is ≥ the target, and
    /// whether it is equal. `cmp(key)` orders a stored key against the target.
    pub fn seek(
        &self,
        mut cmp: impl FnMut(&[u8]) -> Result<Ordering>,
    ) -> Result<(Option<usize>, bool)> {
        let (mut left, mut right) = (0usize, self.count);
        let mut found = None;
        while left < right {
            let mid = left + (right - left) / 2;
            match cmp(self.key(mid)?)? {
                Ordering::Equal => return Ok((Some(mid), true)),
                Ordering::Greater => {
                    found = Some(mid);
                    right = mid;
                }
                Ordering::Less => left = mid + 1,
            }
        }
        Ok((found, false))
    }
}

/// Builds one block (`BlockWriter`).
#[derive(Debug, Default, Clone)]
pub struct BlockBuilder {
    buf: Vec<u8>,
    positions: Vec<u32>,
    aligned_size: usize,
    aligned: bool,
}

impl BlockBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        BlockBuilder {
            aligned: true,
            ..Default::default()
        }
    }

    /// Appends an entry; keys must come in comparator order.
    pub fn add(&mut self, key: &[u8], value: &[u8]) {
        let start = self.buf.len();
        write_varint(&mut self.buf, key.len() as u64);
        self.buf.extend_from_slice(key);
        write_varint(&mut self.buf, value.len() as u64);
        self.buf.extend_from_slice(value);
        self.positions.push(start as u32);
        if self.aligned {
            let size = self.buf.len() - start;
            if self.aligned_size == 0 {
                self.aligned_size = size;
            } else {
                self.aligned = self.aligned_size == size;
            }
        }
    }

    /// Entries so far.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether no entry was added.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Estimated encoded size with its tail (`BlockWriter#memory`), the flush criterion.
    pub fn memory(&self) -> usize {
        let mut m = self.buf.len() + 5;
        if !self.aligned {
            m += self.positions.len() * 4;
        }
        m
    }

    /// The finished block bytes; the builder is reset.
    pub fn finish(&mut self) -> Vec<u8> {
        let aligned = self.aligned && !self.positions.is_empty();
        let mut out = std::mem::take(&mut self.buf);
        if aligned {
            out.extend_from_slice(&(self.aligned_size as u32).to_le_bytes());
        } else {
            for p in &self.positions {
                out.extend_from_slice(&p.to_le_bytes());
            }
            out.extend_from_slice(&(self.positions.len() as u32).to_le_bytes());
        }
        out.push(if aligned { ALIGNED } else { UNALIGNED });
        // The next block starts with this one's room (up to 2 MiB: one huge entry does not
        // size every later block): no regrowth from empty per block.
        self.buf = Vec::with_capacity(out.capacity().min(2 << 20));
        self.positions.clear();
        self.aligned_size = 0;
        self.aligned = true;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(entries: &[(&[u8], &[u8])]) -> Block {
        let mut b = BlockBuilder::new();
        for (k, v) in entries {
            b.add(k, v);
        }
        Block::parse(Bytes::from(b.finish())).unwrap()
    }

    #[test]
    fn aligned_unaligned_and_empty() {
        let a = build(&[(b"a", b"1"), (b"b", b"2"), (b"c", b"3")]);
        assert!(matches!(a.layout, Layout::Aligned { record_size: 4 }));
        assert_eq!(a.len(), 3);
        assert_eq!(a.entry(1).unwrap().value.as_ref(), b"2");
        let u = build(&[(b"a", b"1"), (b"bb", b"2"), (b"c", b"33")]);
        assert!(matches!(u.layout, Layout::Unaligned { .. }));
        assert_eq!(u.key(2).unwrap(), b"c");
        let e = build(&[]);
        assert!(e.is_empty());
        assert_eq!(e.seek(|_| Ok(Ordering::Less)).unwrap(), (None, false));
        let by = |t: &'static [u8]| move |k: &[u8]| Ok(k.cmp(t));
        assert_eq!(u.seek(by(b"bb")).unwrap(), (Some(1), true));
        assert_eq!(u.seek(by(b"b")).unwrap(), (Some(1), false));
        assert_eq!(u.seek(by(b"d")).unwrap(), (None, false));
        assert_eq!(u.seek(by(b"")).unwrap(), (Some(0), false));
    }

    #[test]
    fn corrupt_tails_are_errors() {
        for bad in [
            &[][..],
            &[0, 0, 0, 0],
            &[1, 0, 0, 0, 2],
            &[0, 0, 0, 0, 0],
            &[5, 0, 0, 0, 1],
            &[0xff, 0xff, 0xff, 0xff, 1],
            &[9, 3, 0, 0, 0, 0],
        ] {
            assert!(
                Block::parse(Bytes::copy_from_slice(bad)).is_err(),
                "{bad:?}"
            );
        }
        // Offsets pointing past the entries, and truncated entries, fail on access.
        let b = Block::parse(Bytes::from_static(&[2, 99, 0, 0, 0, 1, 0, 0, 0, 1])).unwrap();
        assert!(b.entry(0).is_err());
        assert!(b.key(1).is_err());
    }
}
