//! The bitmap index writer (Java `BitmapFileIndex.Writer`, `BitmapFileIndexMeta#serialize`,
//! `BitmapFileIndexMetaV2#serialize`, Paimon 2.0; layout in `shared/spec/file-index.md` §5).
//!
//! Rows are numbered from 0 in arrival order; a null goes to the null bitmap. Serializing
//! follows Java byte for byte: bitmaps are laid out in the iteration order of Java's
//! `HashMap` of values ([`super::java_order`]); a value (or null) seen in exactly one row stores
//! no bitmap but `-1 - row`; V2 entries are sorted by key and packed greedily into index
//! blocks of at most `index-block-size` bytes.

use indexmap::IndexMap;
use roaring::RoaringBitmap;

use super::java_order::{key_hash, JavaHashMap};
use super::key::{Key, KeyType};
use super::roaring_writer::serialize_java;
use crate::{Error, Result};

/// Java's default `index-block-size` (16 KiB).
pub const DEFAULT_INDEX_BLOCK_SIZE: usize = 16 * 1024;

/// Builds one column's bitmap index.
#[derive(Debug, Clone)]
pub struct BitmapIndexWriter {
    key_type: KeyType,
    version: u8,
    block_size: usize,
    rows: u32,
    /// Value bytes (as stored) → (key, rows), in first-seen order.
    values: IndexMap<Vec<u8>, (Key, RoaringBitmap)>,
    /// Java's `id2bitmap` (`computeIfAbsent` per non-null row), for its iteration order.
    java_map: JavaHashMap,
    nulls: RoaringBitmap,
}

impl BitmapIndexWriter {
    /// A writer of `version` (1 or 2) for keys of `key_type`.
    pub fn new(key_type: KeyType, version: u8, block_size: usize) -> Result<Self> {
        if version != 1 && version != 2 {
            return Err(Error::invalid_argument(format!(
                "bitmap index version {version} (1 or 2)"
            )));
        }
        Ok(BitmapIndexWriter {
            key_type,
            version,
            block_size,
            rows: 0,
            values: IndexMap::new(),
            java_map: JavaHashMap::default(),
            nulls: RoaringBitmap::new(),
        })
    }

    /// Adds the next row's value.
    pub fn write(&mut self, key: Option<Key>) {
        let row = self.rows;
        self.rows += 1;
        match key {
            None => {
                self.nulls.insert(row);
            }
            Some(key) => {
                let mut bytes = Vec::new();
                write_key(&mut bytes, &key, self.key_type);
                let index = self.values.len();
                let hash = key_hash(&key, self.key_type);
                let entry = self.values.entry(bytes);
                let new = matches!(entry, indexmap::map::Entry::Vacant(_));
                entry
                    .or_insert_with(|| (key, RoaringBitmap::new()))
                    .1
                    .insert(row);
                self.java_map
                    .compute_if_absent(new.then_some((index, hash)));
            }
        }
    }

    /// The serialized payload.
    pub fn finish(&self) -> Vec<u8> {
        let null_bytes = serialize_java(&self.nulls);
        let mut next = if self.nulls.len() <= 1 {
            0
        } else {
            null_bytes.len() as i32
        };
        // (stored key, offset, length) per value in HashMap order, and the bodies.
        let mut entries: Vec<(&[u8], &Key, i32, i32)> = Vec::with_capacity(self.values.len());
        let mut bodies = Vec::new();
        for i in self.java_map.order() {
            let Some((bytes, (key, rows))) = self.values.get_index(i) else {
                continue;
            };
            if rows.len() == 1 {
                let row = rows.min().unwrap_or(0) as i32;
                entries.push((bytes.as_slice(), key, -1 - row, -1));
            } else {
                let body = serialize_java(rows);
                entries.push((bytes.as_slice(), key, next, body.len() as i32));
                next += body.len() as i32;
                bodies.push(body);
            }
        }
        let mut out = vec![self.version];
        out.extend_from_slice(&(self.rows as i32).to_be_bytes());
        out.extend_from_slice(&(self.values.len() as i32).to_be_bytes());
        out.push(u8::from(!self.nulls.is_empty()));
        if !self.nulls.is_empty() {
            let null_offset = match self.nulls.len() {
                1 => -1 - self.nulls.min().unwrap_or(0) as i32,
                _ => 0,
            };
            out.extend_from_slice(&null_offset.to_be_bytes());
            if self.version == 2 {
                out.extend_from_slice(&(null_bytes.len() as i32).to_be_bytes());
            }
        }
        if self.version == 1 {
            for (bytes, _, offset, _) in &entries {
                out.extend_from_slice(bytes);
                out.extend_from_slice(&offset.to_be_bytes());
            }
        } else {
            entries.sort_by(|a, b| a.1.cmp(b.1));
            self.write_v2_blocks(&mut out, &entries);
        }
        if self.nulls.len() > 1 {
            out.extend_from_slice(&null_bytes);
        }
        bodies.iter().for_each(|b| out.extend_from_slice(b));
        out
    }

    /// V2: the block directory, the body offset and the blocks of sorted `entries`.
    fn write_v2_blocks(&self, out: &mut Vec<u8>, entries: &[(&[u8], &Key, i32, i32)]) {
        // (first entry, entry count, block bytes)
        let mut blocks: Vec<(usize, usize, usize)> = Vec::new();
        for (i, (bytes, ..)) in entries.iter().enumerate() {
            let size = 8 + bytes.len();
            match blocks.last_mut() {
                Some((_, n, total)) if *total + size <= self.block_size => {
                    *n += 1;
                    *total += size;
                }
                _ => blocks.push((i, 1, 4 + size)),
            }
        }
        out.extend_from_slice(&(blocks.len() as i32).to_be_bytes());
        let mut offset = 0usize;
        for (first, _, total) in &blocks {
            if let Some((bytes, ..)) = entries.get(*first) {
                out.extend_from_slice(bytes);
            }
            out.extend_from_slice(&(offset as i32).to_be_bytes());
            offset += total;
        }
        out.extend_from_slice(&(offset as i32).to_be_bytes());
        for (first, n, _) in &blocks {
            out.extend_from_slice(&(*n as i32).to_be_bytes());
            for (bytes, _, off, len) in entries.iter().skip(*first).take(*n) {
                out.extend_from_slice(bytes);
                out.extend_from_slice(&off.to_be_bytes());
                out.extend_from_slice(&len.to_be_bytes());
            }
        }
    }
}

/// Appends `key` as Java's `BitmapFileIndexMeta#getValueWriter` writes it.
pub fn write_key(out: &mut Vec<u8>, key: &Key, key_type: KeyType) {
    match (key, key_type) {
        (Key::Bool(b), _) => out.push(u8::from(*b)),
        (Key::Long(v), KeyType::I8) => out.push(*v as i8 as u8),
        (Key::Long(v), KeyType::I16) => out.extend_from_slice(&(*v as i16).to_be_bytes()),
        (Key::Long(v), KeyType::I32) => out.extend_from_slice(&(*v as i32).to_be_bytes()),
        (Key::Long(v), _) => out.extend_from_slice(&v.to_be_bytes()),
        (Key::Float(f), _) => {
            out.extend_from_slice(&super::key::canonical_f32(*f).to_bits().to_be_bytes())
        }
        (Key::Double(f), _) => {
            out.extend_from_slice(&super::key::canonical_f64(*f).to_bits().to_be_bytes())
        }
        (Key::Bytes(b), _) => {
            out.extend_from_slice(&(b.len() as i32).to_be_bytes());
            out.extend_from_slice(b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::file_index::bitmap::BitmapIndex;
    use crate::test_util::hex;

    fn int_writer(version: u8, rows: &[Option<i64>]) -> Vec<u8> {
        let mut w =
            BitmapIndexWriter::new(KeyType::I32, version, DEFAULT_INDEX_BLOCK_SIZE).unwrap();
        rows.iter().for_each(|r| w.write(r.map(Key::Long)));
        w.finish()
    }

    #[test]
    fn spec_goldens_v2_and_v1() {
        // PK1 f2 (rows 1, 1) and PK0 f2 (1,1,0,0,1,1,0,null), spec §5.7.
        assert_eq!(
            int_writer(2, &[Some(1), Some(1)]),
            hex("02 00000002 00000001 00 00000001 00000001 00000000 00000010 00000001 00000001 00000000 00000014 3a300000 01000000 0000 0100 10000000 0000 0100")
        );
        let pk0 = [1, 1, 0, 0, 1, 1, 0]
            .map(Some)
            .into_iter()
            .chain([None])
            .collect::<Vec<_>>();
        assert_eq!(
            int_writer(2, &pk0),
            hex("02 00000008 00000002 01 fffffff8 00000012 00000001 00000000 00000000 0000001c 00000002 00000000 00000000 00000016 00000001 00000016 00000018 3a300000 01000000 0000 0200 10000000 0200 0300 0600 3a300000 01000000 0000 0300 10000000 0000 0100 0400 0500")
        );
        assert_eq!(
            int_writer(1, &pk0),
            hex("01 00000008 00000002 01 fffffff8 00000000 00000000 00000001 00000016 3a300000 01000000 0000 0200 10000000 0200 0300 0600 3a300000 01000000 0000 0300 10000000 0000 0100 0400 0500")
        );
    }

    #[test]
    fn blocks_split_at_the_block_size_and_decode() {
        let mut w = BitmapIndexWriter::new(KeyType::Str, 2, 64).unwrap();
        for i in 0..200u32 {
            let v = (i % 37 != 5).then(|| Key::Bytes(format!("v{:03}", i % 50).into_bytes()));
            w.write(v);
        }
        let bytes = w.finish();
        let idx = BitmapIndex::decode(&bytes, KeyType::Str).unwrap();
        assert_eq!(idx.row_count, 200);
        let rows = idx.rows_of(&Key::Bytes(b"v007".to_vec())).unwrap();
        assert_eq!(rows.iter().collect::<Vec<_>>(), vec![7, 57, 107, 157]);
        let nulls = idx.null_rows().unwrap();
        assert_eq!(
            nulls.iter().collect::<Vec<_>>(),
            vec![5, 42, 79, 116, 153, 190]
        );
    }
}
