//! The data-file index of one data file, built while the file is written (Java
//! `DataFileIndexWriter` + `FileIndexFormat.Writer`, Paimon 2.0): one writer per (column, index
//! type), fed one value per row, serialized into one container.
//!
//! Java keeps its maintainers, and the serialized payloads, in `HashMap`s keyed by index type
//! and column name; the container lists columns, and each column's types, in the iteration
//! order those maps end up with. [`FileIndexWriter::finish`] reproduces it
//! ([`super::java_order`]) so the bytes equal Java's.
//!
//! Supported kinds: `bitmap` (options `version`, `index-block-size`) and `bloom-filter`
//! (`items`, `fpp`). `bsi` and `range-bitmap` are not written (callers refuse them).

use std::collections::BTreeMap;

use super::bitmap_writer::{BitmapIndexWriter, DEFAULT_INDEX_BLOCK_SIZE};
use super::bloom::{wang, xx64};
use super::java_order::{
    column_option_hash, compute_order, hash_map_order, string_hash, JavaHashMap,
};
use super::key::{canonical_f32, canonical_f64, Key, KeyType};
use super::IndexKind;
use crate::spec::options::MemorySize;
use crate::{Error, Result};

/// One (column, index type) to build.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnIndexSpec {
    /// Column name (as written into the container).
    pub column: String,
    /// Index kind.
    pub kind: IndexKind,
    /// How the column's values are keyed (bitmap keys; bloom hashes are derived from them).
    pub key_type: KeyType,
    /// The index's own options (`file-index.<type>.<column>.<key>`).
    pub options: BTreeMap<String, String>,
}

#[derive(Debug, Clone)]
enum ColumnWriter {
    Bitmap(BitmapIndexWriter),
    Bloom(BloomWriter),
}

/// Builds the container of one data file.
#[derive(Debug, Clone)]
pub struct FileIndexWriter {
    specs: Vec<ColumnIndexSpec>,
    writers: Vec<ColumnWriter>,
}

impl FileIndexWriter {
    /// Writers for `specs`; bad index options are `InvalidArgument`, kinds other than bitmap
    /// and bloom filter `Unsupported`.
    pub fn new(specs: Vec<ColumnIndexSpec>) -> Result<Self> {
        let writers = specs.iter().map(column_writer).collect::<Result<_>>()?;
        Ok(FileIndexWriter { specs, writers })
    }

    /// The (column, kind) pairs, in the order [`Self::write`] takes them.
    pub fn specs(&self) -> &[ColumnIndexSpec] {
        &self.specs
    }

    /// Adds the next row's value of spec `i`.
    pub fn write(&mut self, i: usize, key: Option<Key>) {
        match self.writers.get_mut(i) {
            Some(ColumnWriter::Bitmap(w)) => w.write(key),
            Some(ColumnWriter::Bloom(w)) => w.write(key.as_ref()),
            None => {}
        }
    }

    /// The serialized container, in Java's order.
    pub fn finish(&self) -> Result<Vec<u8>> {
        let payloads: Vec<Vec<u8>> = self
            .writers
            .iter()
            .map(|w| match w {
                ColumnWriter::Bitmap(b) => b.finish(),
                ColumnWriter::Bloom(b) => b.finish(),
            })
            .collect();
        let order = self.java_order();
        let columns: Vec<super::format::ColumnPayloads<'_>> = order
            .iter()
            .map(|(column, specs)| {
                let types = specs
                    .iter()
                    .filter_map(|&i| {
                        let kind = self.specs.get(i)?.kind.name();
                        Some((kind, payloads.get(i)?.as_slice()))
                    })
                    .collect();
                (column.as_str(), types)
            })
            .collect();
        super::format::encode(&columns)
    }

    /// Columns and, per column, spec positions in the order Java's `HashMap`s iterate them
    /// (`FileIndexOptions` → `DataFileIndexWriter` maintainers → `serializeMaintainers` →
    /// `FileIndexFormat.Writer`'s `bodyInfo`).
    fn java_order(&self) -> Vec<(String, Vec<usize>)> {
        let spec = |i: usize| self.specs.get(i);
        let column_of = |i: usize| spec(i).map_or("", |s| s.column.as_str());
        let type_hash = |i: usize| spec(i).map_or(0, |s| string_hash(s.kind.name()));
        let column_hash = |i: usize| string_hash(column_of(i));
        // FileIndexOptions: computeIfAbsent(Column), then computeIfAbsent(type) per column.
        let mut columns: Vec<&str> = Vec::new();
        for s in &self.specs {
            if !columns.contains(&s.column.as_str()) {
                columns.push(&s.column);
            }
        }
        let hashes: Vec<i32> = columns.iter().map(|c| column_option_hash(c)).collect();
        let columns = pick(&columns, &compute_order(&hashes));
        let mut by_type: Vec<(&str, Vec<usize>)> = Vec::new();
        let mut type_map = JavaHashMap::default();
        for c in &columns {
            let mine: Vec<usize> = (0..self.specs.len())
                .filter(|&i| column_of(i) == *c)
                .collect();
            let hashes: Vec<i32> = mine.iter().map(|&i| type_hash(i)).collect();
            // DataFileIndexWriter: indexMaintainers.computeIfAbsent(type).put(column).
            for i in pick(&mine, &compute_order(&hashes)) {
                let kind = spec(i).map_or("", |s| s.kind.name());
                let found = by_type.iter().position(|(t, _)| *t == kind);
                type_map.compute_if_absent(found.is_none().then(|| (by_type.len(), type_hash(i))));
                match found.and_then(|p| by_type.get_mut(p)) {
                    Some((_, v)) => v.push(i),
                    None => by_type.push((kind, vec![i])),
                }
            }
        }
        // serializeMaintainers: indexMaps.computeIfAbsent(column).put(type).
        let mut out: Vec<(String, Vec<usize>)> = Vec::new();
        let mut column_map = JavaHashMap::default();
        for t in type_map.order() {
            let Some((_, specs)) = by_type.get(t) else {
                continue;
            };
            let hashes: Vec<i32> = specs.iter().map(|&i| column_hash(i)).collect();
            for i in pick(specs, &hash_map_order(&hashes)) {
                let found = out.iter().position(|(c, _)| c == column_of(i));
                column_map.compute_if_absent(found.is_none().then(|| (out.len(), column_hash(i))));
                match found.and_then(|p| out.get_mut(p)) {
                    Some((_, v)) => v.push(i),
                    None => out.push((column_of(i).to_string(), vec![i])),
                }
            }
        }
        // FileIndexFormat.Writer: bodyInfo.computeIfAbsent(column) in indexMaps order, then
        // put(type) in each column's order.
        let in_maps = pick(&out, &column_map.order());
        let hashes: Vec<i32> = in_maps.iter().map(|(c, _)| string_hash(c)).collect();
        let mut ordered = pick(&in_maps, &compute_order(&hashes));
        for (_, specs) in &mut ordered {
            let hashes: Vec<i32> = specs.iter().map(|&i| type_hash(i)).collect();
            let inner = pick(specs, &hash_map_order(&hashes));
            let hashes: Vec<i32> = inner.iter().map(|&i| type_hash(i)).collect();
            *specs = pick(&inner, &hash_map_order(&hashes));
        }
        ordered
    }
}

fn pick<T: Clone>(items: &[T], order: &[usize]) -> Vec<T> {
    order
        .iter()
        .filter_map(|&i| items.get(i).cloned())
        .collect()
}

fn column_writer(spec: &ColumnIndexSpec) -> Result<ColumnWriter> {
    let bad = |key: &str, value: &str| {
        Error::invalid_argument(format!(
            "file index option '{key}' of column '{}' has an invalid value '{value}'",
            spec.column
        ))
        .with_context(
            "option",
            format!("file-index.{}.{}.{key}", spec.kind.name(), spec.column),
        )
    };
    let get = |key: &str| spec.options.get(key).map(String::as_str);
    match spec.kind {
        IndexKind::Bitmap => {
            let version = match get("version") {
                None => 2,
                Some(v) => v.parse::<u8>().map_err(|_| bad("version", v))?,
            };
            let block = match get("index-block-size") {
                None => DEFAULT_INDEX_BLOCK_SIZE,
                Some(v) => MemorySize::parse(v)
                    .ok()
                    .and_then(|m| usize::try_from(m.bytes()).ok())
                    .ok_or_else(|| bad("index-block-size", v))?,
            };
            Ok(ColumnWriter::Bitmap(BitmapIndexWriter::new(
                spec.key_type,
                version,
                block,
            )?))
        }
        IndexKind::BloomFilter => {
            let items = match get("items") {
                None => 1_000_000,
                Some(v) => v
                    .parse::<i32>()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| bad("items", v))?,
            };
            let fpp = match get("fpp") {
                None => 0.1,
                Some(v) => v
                    .parse::<f64>()
                    .ok()
                    .filter(|f| *f > 0.0 && *f < 1.0)
                    .ok_or_else(|| bad("fpp", v))?,
            };
            Ok(ColumnWriter::Bloom(BloomWriter::new(items, fpp)))
        }
        other => Err(Error::unsupported(format!(
            "writing '{}' file indexes is not supported yet (bitmap, bloom-filter)",
            other.name()
        ))
        .with_context("column", spec.column.clone())),
    }
}

/// Java `BloomFilter64` as `BloomFilterFileIndex.Writer` fills it (`shared/spec/file-index.md`
/// §4.4): sized from `items` and `fpp`, nulls never added.
#[derive(Debug, Clone)]
pub struct BloomWriter {
    num_hash_functions: i32,
    bits: Vec<u8>,
}

impl BloomWriter {
    /// An empty filter for `items` values at false-positive rate `fpp`.
    pub fn new(items: i32, fpp: f64) -> Self {
        let ln2 = std::f64::consts::LN_2;
        let nb = (-f64::from(items) * fpp.ln() / (ln2 * ln2)) as i32;
        let num_bits = nb.saturating_add(8 - nb % 8);
        let k = ((f64::from(num_bits) / f64::from(items) * ln2) + 0.5).floor() as i32;
        BloomWriter {
            num_hash_functions: k.max(1),
            bits: vec![0; usize::try_from(num_bits / 8).unwrap_or(0)],
        }
    }

    /// Adds one value (nulls are not added).
    pub fn write(&mut self, key: Option<&Key>) {
        let Some(key) = key else { return };
        let hash = match key {
            Key::Bytes(b) => xx64(b),
            Key::Float(f) => wang(i64::from(canonical_f32(*f).to_bits() as i32)),
            Key::Double(f) => wang(canonical_f64(*f).to_bits() as i64),
            Key::Long(v) => wang(*v),
            Key::Bool(_) => return,
        };
        let num_bits = self.bits.len() as u64 * 8;
        if num_bits == 0 {
            return;
        }
        let (h1, h2) = (hash as i32, (hash >> 32) as i32);
        for i in 1..=self.num_hash_functions {
            let mut c = h1.wrapping_add(i.wrapping_mul(h2));
            if c < 0 {
                c = !c;
            }
            let p = c as u64 % num_bits;
            if let Some(b) = self.bits.get_mut((p >> 3) as usize) {
                *b |= 1 << (p & 7);
            }
        }
    }

    /// `i32 BE` hash-function count, then the bits.
    pub fn finish(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(4 + self.bits.len());
        out.extend_from_slice(&self.num_hash_functions.to_be_bytes());
        out.extend_from_slice(&self.bits);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::hex;

    #[test]
    fn bloom_small_example_from_the_spec() {
        // items 16, fpp 0.01, INT rows {1, 1, null, 3} (spec §4.5).
        let mut w = BloomWriter::new(16, 0.01);
        for v in [Some(1), Some(1), None, Some(3)] {
            w.write(v.map(Key::Long).as_ref());
        }
        assert_eq!(
            w.finish(),
            hex("00000007 00000000 01100000 02000000 00044000 1128c408")
        );
        let d = BloomWriter::new(1_000_000, 0.1).finish();
        assert_eq!((d.len(), &d[..4]), (599_071, &[0, 0, 0, 3][..]));
    }

    #[test]
    fn container_order_is_javas_for_the_mixed_fixture() {
        // C:mix lists f0..f4 and, for f1, bloom-filter, bitmap, bsi (spec §2).
        let spec = |c: &str, kind| ColumnIndexSpec {
            column: c.into(),
            kind,
            key_type: KeyType::I32,
            options: BTreeMap::new(),
        };
        let w = FileIndexWriter {
            specs: vec![
                spec("f1", IndexKind::Bsi),
                spec("f1", IndexKind::Bitmap),
                spec("f1", IndexKind::BloomFilter),
                spec("f0", IndexKind::Bitmap),
            ],
            writers: Vec::new(),
        };
        let order = w.java_order();
        assert_eq!(
            order.iter().map(|(c, _)| c.as_str()).collect::<Vec<_>>(),
            ["f0", "f1"]
        );
        assert_eq!(order.get(1).map(|(_, v)| v.clone()), Some(vec![2, 1, 0]));
    }
}
