//! Queries over one BTree index payload (`org.apache.paimon.globalindex.btree.BTreeIndexReader`
//! over `org.apache.paimon.sst.SstFileReader`).
//!
//! Opening reads only the footer; the index block, data blocks and null bitmap are read when a
//! query needs them (data and index blocks through the optional shared [`BlockCache`]).
//! Results are sets of row ids (group ordinals for primary-key payloads).

use std::cmp::Ordering;
use std::ops::Bound;
use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use roaring::RoaringTreemap;

use super::footer::{BTreeFooter, FOOTER_LEN};
use super::key::{compare, Key, KeyType};
use super::null_bitmap::decode_null_bitmap;
use crate::index::sst::{read_varint32, Block, BlockCache, BlockHandle, PayloadSource, SstFile};
use crate::spec::bytes::ByteReader;
use crate::{Error, Result};

/// A reader of one BTree payload file.
#[derive(Debug)]
pub struct BTreeIndexReader {
    sst: SstFile,
    key_type: KeyType,
    footer: BTreeFooter,
    data_end: u64,
    index: OnceLock<Arc<Block>>,
    nulls: OnceLock<Arc<RoaringTreemap>>,
}

/// One data entry: a key and its row ids, as stored (ascending for Java-built payloads).
#[derive(Debug, Clone, PartialEq)]
pub struct KeyRowIds {
    /// The key.
    pub key: Key,
    /// Its row ids.
    pub row_ids: Vec<u64>,
}

impl BTreeIndexReader {
    /// Opens `source` (named `name` in errors and cache keys) by reading its 52-byte footer.
    pub fn open(
        name: impl Into<Arc<str>>,
        source: Arc<dyn PayloadSource>,
        key_type: KeyType,
        cache: Option<BlockCache>,
    ) -> Result<Self> {
        let sst = SstFile::new(name, source, cache);
        let len = sst.len();
        let data_end = len.checked_sub(FOOTER_LEN as u64).ok_or_else(|| {
            sst.error("BTree index file shorter than its 52-byte footer")
                .with_context("length", len.to_string())
        })?;
        let raw = sst.read_range(data_end, FOOTER_LEN as u64, len, "footer")?;
        let footer = BTreeFooter::decode(&raw).map_err(|e| {
            e.with_context("file", sst.name().to_string())
                .with_context("footer offset", data_end.to_string())
        })?;
        Ok(BTreeIndexReader {
            sst,
            key_type,
            footer,
            data_end,
            index: OnceLock::new(),
            nulls: OnceLock::new(),
        })
    }

    /// Opens a payload held in memory, without a cache.
    pub fn from_bytes(name: &str, bytes: Bytes, key_type: KeyType) -> Result<Self> {
        Self::open(name, Arc::new(bytes), key_type, None)
    }

    /// The decoded footer.
    pub fn footer(&self) -> &BTreeFooter {
        &self.footer
    }

    /// The key type.
    pub fn key_type(&self) -> KeyType {
        self.key_type
    }

    fn error(&self, message: impl Into<String>) -> Error {
        self.sst.error(message)
    }

    fn index(&self) -> Result<Arc<Block>> {
        if let Some(b) = self.index.get() {
            return Ok(b.clone());
        }
        let b = self
            .sst
            .read_block(self.footer.index_block, self.data_end, "index block")?;
        Ok(self.index.get_or_init(|| b).clone())
    }

    fn data_block(&self, index: &Block, i: usize) -> Result<(Arc<Block>, Bytes)> {
        let entry = index.entry(i).map_err(|e| self.ctx(e, "index block"))?;
        let handle = BlockHandle::decode(&entry.value).map_err(|e| self.ctx(e, "index block"))?;
        let block = self.sst.read_block(handle, self.data_end, "data block")?;
        Ok((block, entry.key))
    }

    fn ctx(&self, e: Error, what: &str) -> Error {
        e.with_context("file", self.sst.name().to_string())
            .with_context("block", what.to_string())
    }

    /// Rows whose value is null (the null bitmap; empty when the footer has none).
    pub fn is_null(&self) -> Result<Arc<RoaringTreemap>> {
        if let Some(n) = self.nulls.get() {
            return Ok(n.clone());
        }
        let nulls = match self.footer.null_bitmap {
            None => RoaringTreemap::new(),
            Some(h) => {
                let raw = self.sst.read_range(
                    h.offset,
                    u64::from(h.size) + 4,
                    self.data_end,
                    "null bitmap",
                )?;
                decode_null_bitmap(&raw, h.size as usize).map_err(|e| {
                    self.ctx(e, "null bitmap")
                        .with_context("offset", h.offset.to_string())
                })?
            }
        };
        Ok(self.nulls.get_or_init(|| Arc::new(nulls)).clone())
    }

    /// Rows whose value is not null (a full scan, as in Java).
    pub fn is_not_null(&self) -> Result<RoaringTreemap> {
        self.range(Bound::Unbounded, Bound::Unbounded)
    }

    /// Rows equal to `key`.
    pub fn equal(&self, key: &Key) -> Result<RoaringTreemap> {
        self.range(Bound::Included(key), Bound::Included(key))
    }

    /// Rows not equal to `key` (non-null rows minus the equal ones).
    pub fn not_equal(&self, key: &Key) -> Result<RoaringTreemap> {
        let mut all = self.is_not_null()?;
        all -= self.equal(key)?;
        Ok(all)
    }

    /// Rows `< key`.
    pub fn less_than(&self, key: &Key) -> Result<RoaringTreemap> {
        self.range(Bound::Unbounded, Bound::Excluded(key))
    }

    /// Rows `<= key`.
    pub fn less_or_equal(&self, key: &Key) -> Result<RoaringTreemap> {
        self.range(Bound::Unbounded, Bound::Included(key))
    }

    /// Rows `> key`.
    pub fn greater_than(&self, key: &Key) -> Result<RoaringTreemap> {
        self.range(Bound::Excluded(key), Bound::Unbounded)
    }

    /// Rows `>= key`.
    pub fn greater_or_equal(&self, key: &Key) -> Result<RoaringTreemap> {
        self.range(Bound::Included(key), Bound::Unbounded)
    }

    /// Rows in `[from, to]`.
    pub fn between(&self, from: &Key, to: &Key) -> Result<RoaringTreemap> {
        self.range(Bound::Included(from), Bound::Included(to))
    }

    /// Rows equal to any of `keys`.
    pub fn in_list(&self, keys: &[Key]) -> Result<RoaringTreemap> {
        let mut out = RoaringTreemap::new();
        for k in keys {
            out |= self.equal(k)?;
        }
        Ok(out)
    }

    /// Non-null rows equal to none of `keys`.
    pub fn not_in(&self, keys: &[Key]) -> Result<RoaringTreemap> {
        let mut all = self.is_not_null()?;
        all -= self.in_list(keys)?;
        Ok(all)
    }

    /// Rows whose key lies within the bounds (`BTreeIndexReader#rangeQuery`).
    pub fn range(&self, lower: Bound<&Key>, upper: Bound<&Key>) -> Result<RoaringTreemap> {
        let mut out = RoaringTreemap::new();
        self.scan(lower, true, |key, value| {
            let past = match upper {
                Bound::Unbounded => false,
                Bound::Included(u) => compare(key, u) == Ordering::Greater,
                Bound::Excluded(u) => compare(key, u) != Ordering::Less,
            };
            if past {
                return Ok(false);
            }
            for id in decode_row_ids(value)? {
                out.insert(id);
            }
            Ok(true)
        })?;
        Ok(out)
    }

    /// Checks with a full scan that stored keys strictly increase (`BTreeIndexWriter`'s
    /// contract, which Java never verifies: payloads written from unsorted input exist, and
    /// binary search over them can miss keys). Queries check the entries they visit.
    pub fn verify_order(&self) -> Result<()> {
        self.scan(Bound::Unbounded, true, |_, _| Ok(true))
    }

    /// Every non-null entry in stored order, checking that each index key is the last key of
    /// its data block. Like Java's `EntryIterator` it does not require sorted keys (see
    /// [`Self::verify_order`]).
    pub fn entries(&self) -> Result<Vec<KeyRowIds>> {
        let index = self.index()?;
        let mut out = Vec::new();
        for b in 0..index.len() {
            let (block, index_key) = self.data_block(&index, b)?;
            if block.is_empty() {
                return Err(self
                    .error("empty data block")
                    .with_context("block", b.to_string()));
            }
            let last = block
                .key(block.len() - 1)
                .map_err(|e| self.ctx(e, "data block"))?;
            if last != index_key.as_ref() {
                return Err(self
                    .error("index key differs from the last key of its data block")
                    .with_context("block", b.to_string()));
            }
        }
        self.scan(Bound::Unbounded, false, |key, value| {
            out.push(KeyRowIds {
                key: key.clone(),
                row_ids: decode_row_ids(value)?,
            });
            Ok(true)
        })?;
        Ok(out)
    }

    /// Visits entries from the first one within `lower` on, in order, until `visit` returns
    /// false; with `check_order`, fails if the visited keys do not strictly increase.
    fn scan(
        &self,
        lower: Bound<&Key>,
        check_order: bool,
        mut visit: impl FnMut(&Key, &[u8]) -> Result<bool>,
    ) -> Result<()> {
        let index = self.index()?;
        let kt = self.key_type;
        let (mut block_no, mut start) = (0usize, 0usize);
        if let Bound::Included(k) | Bound::Excluded(k) = lower {
            let (found, _) = index
                .seek(|stored| kt.compare_stored(stored, k))
                .map_err(|e| self.ctx(e, "index block"))?;
            let Some(b) = found else {
                return Ok(());
            };
            block_no = b;
            let (block, _) = self.data_block(&index, b)?;
            let (pos, _) = block
                .seek(|stored| kt.compare_stored(stored, k))
                .map_err(|e| self.ctx(e, "data block"))?;
            start = pos.ok_or_else(|| {
                self.error("data block holds no key up to its index key")
                    .with_context("block", b.to_string())
            })?;
        }
        let mut prev: Option<Key> = None;
        while block_no < index.len() {
            let (block, _) = self.data_block(&index, block_no)?;
            for i in start..block.len() {
                let entry = block.entry(i).map_err(|e| self.ctx(e, "data block"))?;
                let key = kt
                    .deserialize(&entry.key)
                    .map_err(|e| self.ctx(e, "data block"))?;
                if let Some(p) = prev.as_ref().filter(|_| check_order) {
                    if compare(p, &key) != Ordering::Less {
                        return Err(self
                            .error("keys are not strictly increasing")
                            .with_context("block", block_no.to_string())
                            .with_context("entry", i.to_string()));
                    }
                }
                let skip =
                    matches!(lower, Bound::Excluded(k) if compare(&key, k) == Ordering::Equal);
                if !skip && !visit(&key, &entry.value).map_err(|e| self.ctx(e, "data block"))? {
                    return Ok(());
                }
                prev = Some(key);
            }
            block_no += 1;
            start = 0;
        }
        Ok(())
    }
}

/// A data value: `varint32 count` (> 0) and `count` `varint64` row ids, nothing after.
pub fn decode_row_ids(value: &[u8]) -> Result<Vec<u64>> {
    let mut r = ByteReader::new(value, "BTree row-id list");
    let count = read_varint32(&mut r)? as usize;
    if count == 0 || count > r.remaining() {
        return Err(r
            .invalid("invalid row-id count")
            .with_context("found", count.to_string())
            .with_context("remaining", r.remaining().to_string()));
    }
    let mut ids = Vec::with_capacity(count);
    for _ in 0..count {
        ids.push(r.varint_u64()?);
    }
    if !r.is_empty() {
        return Err(r.invalid("trailing bytes after the row ids"));
    }
    Ok(ids)
}

/// Encodes a row-id list (`BTreeIndexWriter#flush`).
pub fn encode_row_ids(ids: &[u64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(ids.len() * 3 + 5);
    encode_row_ids_into(ids, &mut out);
    out
}

/// Appends the encoding of [`encode_row_ids`] to `out`.
pub fn encode_row_ids_into(ids: &[u64], out: &mut Vec<u8>) {
    crate::index::sst::write_varint(out, ids.len() as u64);
    for id in ids {
        crate::index::sst::write_varint(out, *id);
    }
}

#[cfg(test)]
mod tests;
