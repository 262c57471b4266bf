//! The bitmap global-index payload of `pk-bitmap` (Java
//! `org.apache.paimon.globalindex.bitmap.BitmapGlobalIndexFormat` and `BitmapIndexReader`,
//! pypaimon 2.1.0 `globalindex/bitmap`). Pure: the caller supplies the file's bytes.
//!
//! Layout. Fixed-width integers are big-endian (Java `DataOutputStream`), varints unsigned
//! LEB128 (`VarLengthIntUtils`):
//!
//! - bitmap images: `RoaringNavigableMap64#serialize` (portable 64-bit Roaring), one per
//!   distinct key, plus the null rows and the non-null rows;
//! - dictionary blocks: varint entry count, then per entry varint key length, the key's bytes
//!   (the BTree key serializer), varlong bitmap offset, varint bitmap length;
//! - the index block: varint block count, then per dictionary block its first key (varint
//!   length, bytes), varlong offset, varint length;
//! - dictionary and index blocks are stored like SST blocks (optionally compressed with a
//!   varint uncompressed-length prefix) and followed by the 5-byte SST trailer (compression id,
//!   CRC-32 LE of the stored bytes and the id);
//! - a 48-byte footer: null rows (i64 offset, i32 length), non-null rows, index block, i32
//!   value count, i32 version, i32 magic `0x42474958` ("BGIX"). Version 1 sorts keys by their
//!   serialized bytes (unsigned, lexicographic); version 2 (Java's streaming writer) by the key
//!   type's own order.
//!
//! Queries answer with row ids local to the payload (group ordinals): equality and IN look the
//! key up through the index block; ranges scan every dictionary entry and compare decoded keys
//! in Java's order, as Java's reader does.

use std::cmp::Ordering;

use bytes::Bytes;
use roaring::RoaringTreemap;

use crate::index::btree::key::compare;
use crate::index::btree::{Key, KeyType};
use crate::index::roaring64::decode_portable;
use crate::index::sst::compression::decompress;
use crate::index::sst::{block_crc, BlockTrailer};
use crate::spec::bytes::ByteReader;
use crate::{Error, Result};

/// Footer magic ("BGIX").
pub const MAGIC: i32 = 0x4247_4958;
/// Footer length in bytes.
pub const FOOTER_LEN: usize = 48;
/// Version whose keys are sorted by serialized bytes.
const SERIALIZED_KEY_ORDER: i32 = 1;
/// Version whose keys are sorted in the key type's order.
const LOGICAL_KEY_ORDER: i32 = 2;

/// A stored region: offset and length in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Region {
    offset: u64,
    length: u64,
}

/// One dictionary entry: a key's bytes and its bitmap.
#[derive(Debug, Clone)]
struct Entry {
    key: Vec<u8>,
    bitmap: Region,
}

/// A decoded bitmap global-index file.
#[derive(Debug, Clone)]
pub struct BitmapGlobalIndexReader {
    name: String,
    bytes: Bytes,
    key_type: KeyType,
    logical_order: bool,
    null_rows: RoaringTreemap,
    non_null_rows: RoaringTreemap,
    /// Dictionary blocks (first key, region) in lookup order.
    blocks: Vec<Entry>,
}

impl BitmapGlobalIndexReader {
    /// Decodes the footer, the null and non-null bitmaps and the index block of the file
    /// `name` (`bytes`: the whole file) whose keys are of `key_type`.
    pub fn from_bytes(name: &str, bytes: Bytes, key_type: KeyType) -> Result<Self> {
        let named = |e: Error| e.with_context("file", name);
        let start = bytes.len().checked_sub(FOOTER_LEN).ok_or_else(|| {
            named(Error::data_invalid(
                "bitmap global index shorter than its footer",
            ))
        })?;
        let mut r = ByteReader::new(&bytes[start..], "bitmap global index footer");
        let region = |r: &mut ByteReader<'_>| -> Result<Region> {
            let offset = r.i64_be()?;
            let length = r.i32_be()?;
            match (u64::try_from(offset), u64::try_from(length)) {
                (Ok(offset), Ok(length)) => Ok(Region { offset, length }),
                _ => Err(r.invalid("negative block offset or length")),
            }
        };
        let nulls = region(&mut r).map_err(named)?;
        let non_nulls = region(&mut r).map_err(named)?;
        let index = region(&mut r).map_err(named)?;
        let value_count = r.i32_be().map_err(named)?;
        let version = r.i32_be().map_err(named)?;
        let magic = r.i32_be().map_err(named)?;
        if magic != MAGIC {
            return Err(named(Error::data_invalid(
                "not a bitmap global index file (bad footer magic)",
            )));
        }
        if version != SERIALIZED_KEY_ORDER && version != LOGICAL_KEY_ORDER {
            return Err(named(
                Error::unsupported("unsupported bitmap global index version")
                    .with_context("version", version.to_string()),
            ));
        }
        if value_count < 0 {
            return Err(named(Error::data_invalid("negative bitmap value count")));
        }
        let mut out = BitmapGlobalIndexReader {
            name: name.to_string(),
            bytes,
            key_type,
            logical_order: version == LOGICAL_KEY_ORDER,
            null_rows: RoaringTreemap::new(),
            non_null_rows: RoaringTreemap::new(),
            blocks: Vec::new(),
        };
        out.null_rows = out.bitmap(nulls)?;
        out.non_null_rows = out.bitmap(non_nulls)?;
        let mut blocks = out.entries_of(index, "bitmap index block")?;
        if !out.logical_order {
            blocks.sort_by(|a, b| a.key.cmp(&b.key));
        }
        out.blocks = blocks;
        Ok(out)
    }

    /// Rows whose value is null.
    pub fn is_null(&self) -> &RoaringTreemap {
        &self.null_rows
    }

    /// Rows whose value is not null.
    pub fn is_not_null(&self) -> &RoaringTreemap {
        &self.non_null_rows
    }

    /// Every key with its rows, in stored order.
    pub fn entries(&self) -> Result<Vec<(Key, RoaringTreemap)>> {
        let mut out = Vec::new();
        for block in &self.blocks {
            for e in self.entries_of(block.bitmap, "bitmap dictionary block")? {
                out.push((self.key(&e.key)?, self.bitmap(e.bitmap)?));
            }
        }
        Ok(out)
    }

    /// Rows equal to `key`.
    pub fn equal(&self, key: &Key) -> Result<RoaringTreemap> {
        let serialized = self.key_type.serialize(key)?;
        let mut ord = Vec::with_capacity(self.blocks.len());
        for b in &self.blocks {
            ord.push(self.order(&b.key, key, &serialized)?);
        }
        // The last block whose first key is not above the key.
        let Some(i) = ord.iter().rposition(|o| *o != Ordering::Greater) else {
            return Ok(RoaringTreemap::new());
        };
        let block = self.blocks[i].bitmap;
        for e in self.entries_of(block, "bitmap dictionary block")? {
            match self.order(&e.key, key, &serialized)? {
                Ordering::Equal => return self.bitmap(e.bitmap),
                Ordering::Greater => break,
                Ordering::Less => {}
            }
        }
        Ok(RoaringTreemap::new())
    }

    /// Rows equal to any of `keys`.
    pub fn in_list(&self, keys: &[Key]) -> Result<RoaringTreemap> {
        let mut out = RoaringTreemap::new();
        for k in keys {
            out |= self.equal(k)?;
        }
        Ok(out)
    }

    /// Rows of every key for which `keep` holds (every dictionary entry decoded).
    pub fn scan(&self, keep: impl Fn(&Key) -> bool) -> Result<RoaringTreemap> {
        let mut out = RoaringTreemap::new();
        for block in &self.blocks {
            for e in self.entries_of(block.bitmap, "bitmap dictionary block")? {
                if keep(&self.key(&e.key)?) {
                    out |= self.bitmap(e.bitmap)?;
                }
            }
        }
        Ok(out)
    }

    /// Rows in Java's order relative to `key` (`Less` for keys below it, etc.).
    pub fn range(&self, key: &Key, wanted: &[Ordering]) -> Result<RoaringTreemap> {
        self.scan(|k| wanted.contains(&compare(k, key)))
    }

    /// Stored key bytes against `key` in this file's order.
    fn order(&self, stored: &[u8], key: &Key, serialized: &[u8]) -> Result<Ordering> {
        if self.logical_order {
            Ok(compare(&self.key(stored)?, key))
        } else {
            Ok(stored.cmp(serialized))
        }
    }

    fn key(&self, bytes: &[u8]) -> Result<Key> {
        self.key_type
            .deserialize(bytes)
            .map_err(|e| e.with_context("file", self.name.as_str()))
    }

    fn slice(&self, region: Region, extra: u64, what: &str) -> Result<Bytes> {
        let end = region
            .offset
            .checked_add(region.length)
            .and_then(|e| e.checked_add(extra))
            .filter(|e| *e <= self.bytes.len() as u64)
            .ok_or_else(|| {
                Error::data_invalid(format!("{what} past the end of the bitmap global index"))
                    .with_context("file", self.name.as_str())
                    .with_context("offset", region.offset.to_string())
                    .with_context("length", region.length.to_string())
            })?;
        Ok(self.bytes.slice(region.offset as usize..end as usize))
    }

    fn bitmap(&self, region: Region) -> Result<RoaringTreemap> {
        let bytes = self.slice(region, 0, "bitmap")?;
        decode_portable(&bytes, "bitmap global index bitmap")
            .map_err(|e| e.with_context("file", self.name.as_str()))
    }

    /// The entries of a dictionary or index block (trailer and CRC checked, decompressed).
    fn entries_of(&self, region: Region, what: &'static str) -> Result<Vec<Entry>> {
        let named = |e: Error| e.with_context("file", self.name.as_str());
        let stored = self.slice(region, BlockTrailer::ENCODED_LENGTH as u64, what)?;
        let (data, trailer) = stored.split_at(region.length as usize);
        let trailer = BlockTrailer::decode(trailer).map_err(named)?;
        let crc = block_crc(data, trailer.compression.id());
        if crc != trailer.crc {
            return Err(named(
                Error::data_invalid(format!("{what} CRC-32 mismatch"))
                    .with_context("expected", format!("{:#010x}", trailer.crc))
                    .with_context("found", format!("{crc:#010x}")),
            ));
        }
        let block = decompress(stored.slice(..region.length as usize), trailer.compression)
            .map_err(named)?;
        let mut r = ByteReader::new(&block, what);
        let count = r.varint_u64().map_err(named)?;
        let mut out = Vec::new();
        for _ in 0..count {
            let key_len = r.varint_u64().map_err(named)?;
            let key_len = usize::try_from(key_len)
                .map_err(|_| named(r.invalid("key length out of range")))?;
            let key = r.take(key_len).map_err(named)?.to_vec();
            let offset = r.varint_u64().map_err(named)?;
            let length = r.varint_u64().map_err(named)?;
            out.push(Entry {
                key,
                bitmap: Region { offset, length },
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Bytes {
        let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../testdata/pypaimon/pk_bitmap")
            .join(name);
        Bytes::from(std::fs::read(p).unwrap())
    }

    fn key_of(v: &serde_json::Value, t: KeyType) -> Key {
        match t {
            KeyType::Int => Key::Int(v.as_i64().unwrap() as i32),
            KeyType::String => Key::String(v.as_str().unwrap().as_bytes().to_vec()),
            _ => unreachable!(),
        }
    }

    fn ids(v: &serde_json::Value) -> RoaringTreemap {
        v.as_array()
            .unwrap()
            .iter()
            .map(|i| i.as_u64().unwrap())
            .collect()
    }

    /// Every payload pypaimon 2.1.0's Java-compatible writer made reads back exactly: each key
    /// (looked up and listed), the null and non-null rows, ranges against a model.
    #[test]
    fn pypaimon_payloads_read_back() {
        let expected: serde_json::Value =
            serde_json::from_slice(&fixture("expected.json")).unwrap();
        for f in expected["files"].as_array().unwrap() {
            let t = match f["type"].as_str().unwrap() {
                "INT" => KeyType::Int,
                _ => KeyType::String,
            };
            let name = f["file"].as_str().unwrap();
            let r = BitmapGlobalIndexReader::from_bytes(name, fixture(name), t).unwrap();
            let want: Vec<(Key, RoaringTreemap)> = f["entries"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| (key_of(&e[0], t), ids(&e[1])))
                .collect();
            let nulls = ids(&f["null_row_ids"]);
            assert_eq!(r.is_null(), &nulls, "{name}");
            let all: RoaringTreemap = (0..f["rows"].as_u64().unwrap()).collect();
            assert_eq!(r.is_not_null(), &(all - &nulls), "{name}");
            let mut got = r.entries().unwrap();
            got.sort_by(|a, b| compare(&a.0, &b.0));
            let mut sorted = want.clone();
            sorted.sort_by(|a, b| compare(&a.0, &b.0));
            assert_eq!(got, sorted, "{name}");
            for (k, rows) in &want {
                assert_eq!(&r.equal(k).unwrap(), rows, "{name} {k:?}");
                let below: RoaringTreemap = want
                    .iter()
                    .filter(|(o, _)| compare(o, k) == Ordering::Less)
                    .fold(RoaringTreemap::new(), |acc, (_, r)| acc | r);
                assert_eq!(
                    r.range(k, &[Ordering::Less]).unwrap(),
                    below,
                    "{name} < {k:?}"
                );
            }
            let missing = match t {
                KeyType::Int => Key::Int(3),
                _ => Key::String(b"zz".to_vec()),
            };
            assert!(r.equal(&missing).unwrap().is_empty());
            let two = [want[0].0.clone(), want[want.len() - 1].0.clone(), missing];
            assert_eq!(
                r.in_list(&two).unwrap(),
                &want[0].1 | &want[want.len() - 1].1
            );
        }
    }

    #[test]
    fn bad_input_is_an_error_naming_the_file() {
        let good = fixture("int.bitmap");
        let n = good.len();
        let mut cases: Vec<Vec<u8>> = vec![good[..40].to_vec(), good[..n - 1].to_vec()];
        let mut bad_magic = good.to_vec();
        bad_magic[n - 1] ^= 1;
        cases.push(bad_magic);
        let mut bad_version = good.to_vec();
        bad_version[n - 5] = 9;
        cases.push(bad_version);
        let mut past_end = good.to_vec();
        past_end[n - 24..n - 16].copy_from_slice(&(n as i64).to_be_bytes());
        cases.push(past_end);
        for c in cases {
            let e = BitmapGlobalIndexReader::from_bytes("f.bitmap", Bytes::from(c), KeyType::Int)
                .unwrap_err();
            assert!(e.to_string().contains("f.bitmap"), "{e}");
        }
        // A flipped byte in a dictionary block: its CRC check fails on lookup.
        let r =
            BitmapGlobalIndexReader::from_bytes("f.bitmap", good.clone(), KeyType::Int).unwrap();
        let first = r.blocks[0].bitmap;
        let mut flipped = good.to_vec();
        flipped[first.offset as usize] ^= 0x40;
        let r = BitmapGlobalIndexReader::from_bytes("f.bitmap", Bytes::from(flipped), KeyType::Int)
            .unwrap();
        let e = r.entries().unwrap_err();
        assert!(e.to_string().contains("CRC"), "{e}");
    }
}
