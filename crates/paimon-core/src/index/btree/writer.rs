//! Writing a BTree payload (`org.apache.paimon.globalindex.btree.BTreeIndexWriter`): values
//! arrive sorted; equal keys merge into one entry with their row ids in arrival order; nulls
//! go to the null bitmap; `finish` writes the last block, the null bitmap, the index block and
//! the footer, and returns the `_INDEX_META` bytes' structure. The file is built in memory;
//! a caller streaming it takes the bytes written so far as it goes
//! ([`BTreeIndexWriter::take_output`]).

use std::cmp::Ordering;

use roaring::RoaringTreemap;

use super::footer::BTreeFooter;
use super::key::{compare, Key, KeyType};
use super::meta::SortedIndexFileMeta;
use super::null_bitmap::encode_null_bitmap;
use super::reader::encode_row_ids_into;
use crate::index::sst::writer::SstWriter;
use crate::index::sst::{BlockHandle, CompressionType};
use crate::{Error, Result};

/// Java's default `btree-index.block-size` (64 KiB).
pub const DEFAULT_BLOCK_SIZE: usize = 64 * 1024;

/// Builds one BTree payload in memory.
#[derive(Debug)]
pub struct BTreeIndexWriter {
    key_type: KeyType,
    sst: SstWriter,
    first_key: Option<Key>,
    last_key: Option<Key>,
    /// Row ids of the pending key (`last_key`).
    current: Vec<u64>,
    /// The pending key, serialized.
    key_bytes: Vec<u8>,
    /// Scratch for the pending key's encoded row ids.
    value_bytes: Vec<u8>,
    nulls: Option<RoaringTreemap>,
    row_count: u64,
}

/// `*slot = Some(key.clone())`, reusing a string key's buffer.
fn assign(slot: &mut Option<Key>, key: &Key) {
    match (slot.as_mut(), key) {
        (Some(Key::String(buf)), Key::String(k)) => {
            buf.clear();
            buf.extend_from_slice(k);
        }
        _ => *slot = Some(key.clone()),
    }
}

/// A finished payload.
#[derive(Debug, Clone)]
pub struct BTreePayload {
    /// The file bytes not taken with [`BTreeIndexWriter::take_output`] (all of them when
    /// none were).
    pub bytes: Vec<u8>,
    /// The file's size, taken bytes included.
    pub size: u64,
    /// Its `_INDEX_META`.
    pub meta: SortedIndexFileMeta,
    /// Rows written (nulls included).
    pub row_count: u64,
}

impl BTreeIndexWriter {
    /// A writer for keys of `key_type`.
    pub fn new(
        key_type: KeyType,
        block_size: usize,
        compression: CompressionType,
        zstd_level: i32,
    ) -> Self {
        BTreeIndexWriter {
            key_type,
            sst: SstWriter::new(block_size, compression, zstd_level),
            first_key: None,
            last_key: None,
            current: Vec::new(),
            key_bytes: Vec::new(),
            value_bytes: Vec::new(),
            nulls: None,
            row_count: 0,
        }
    }

    /// Reserves the output for about `rows` more rows: ~20 bytes each for fixed-width keys of
    /// distinct values (key, row id, lengths, entry offset), ~32 for strings; at most 128 MiB
    /// (a column of few distinct values needs ~4 bytes a row: the rest is reserved, never
    /// touched). A payload outgrowing its reservation is copied as it doubles, with both
    /// copies held for a moment.
    pub fn reserve(&mut self, rows: u64) {
        const MAX: u64 = 128 << 20;
        let per_row = match self.key_type {
            KeyType::String | KeyType::Decimal { .. } => 32,
            _ => 20,
        };
        self.sst
            .reserve(usize::try_from(rows.saturating_mul(per_row).min(MAX)).unwrap_or(0));
    }

    /// Bytes written and not taken yet.
    pub fn pending(&self) -> usize {
        self.sst.pending()
    }

    /// Takes the file bytes written so far (the file's next part).
    pub fn take_output(&mut self) -> Vec<u8> {
        self.sst.take_output()
    }

    /// Adds one row: `None` is a null value. Non-null keys must not decrease.
    pub fn write(&mut self, key: Option<&Key>, row_id: u64) -> Result<()> {
        self.row_count += 1;
        let Some(key) = key else {
            self.nulls
                .get_or_insert_with(RoaringTreemap::new)
                .insert(row_id);
            return Ok(());
        };
        if let Some(last) = &self.last_key {
            match compare(key, last) {
                Ordering::Less => {
                    return Err(Error::invalid_argument(format!(
                        "BTree keys must be written in order: {key:?} after {last:?}"
                    )))
                }
                // Same value, same variant: serialized (and type-checked) when it first came.
                Ordering::Equal => {
                    self.current.push(row_id);
                    return Ok(());
                }
                Ordering::Greater => self.flush_key(),
            }
        }
        // A new key: serialized once, here (which also checks its type).
        self.key_bytes.clear();
        self.key_type.serialize_into(key, &mut self.key_bytes)?;
        if self.first_key.is_none() {
            self.first_key = Some(key.clone());
        }
        assign(&mut self.last_key, key);
        self.current.push(row_id);
        Ok(())
    }

    /// Writes the pending key (`key_bytes`) with its row ids.
    fn flush_key(&mut self) {
        if self.current.is_empty() {
            return;
        }
        self.value_bytes.clear();
        encode_row_ids_into(&self.current, &mut self.value_bytes);
        self.current.clear();
        self.sst.put(&self.key_bytes, &self.value_bytes);
    }

    /// Finishes the file. Writing no row at all is an error, as in Java.
    pub fn finish(mut self) -> Result<BTreePayload> {
        if self.first_key.is_none() && self.nulls.is_none() {
            return Err(Error::invalid_argument(
                "should never write an empty btree index file",
            ));
        }
        self.flush_key();
        self.sst.flush();
        let null_bitmap = match &self.nulls {
            None => None,
            Some(n) => {
                let (image, _) = encode_null_bitmap(n)?;
                let handle = BlockHandle {
                    offset: self.sst.position(),
                    size: (image.len() - 4) as u32,
                };
                self.sst.write_raw(&image);
                Some(handle)
            }
        };
        let index_block = self.sst.write_index_block();
        let footer = BTreeFooter {
            bloom_filter: None,
            index_block,
            null_bitmap,
        };
        self.sst.write_raw(&footer.encode());
        let ser = |k: &Option<Key>| k.as_ref().map(|k| self.key_type.serialize(k)).transpose();
        let meta = SortedIndexFileMeta {
            first_key: ser(&self.first_key)?,
            last_key: ser(&self.last_key)?,
            has_nulls: self.nulls.is_some(),
        };
        let size = self.sst.position();
        Ok(BTreePayload {
            size,
            bytes: self.sst.into_bytes(),
            meta,
            row_count: self.row_count,
        })
    }
}

#[cfg(test)]
mod tests;
