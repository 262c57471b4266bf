//! Building one source-backed BTree payload (Java
//! `org.apache.paimon.index.pksorted.PkSortedIndexFile#build`, C++ `PkSortedIndexFile::Build`;
//! `docs/format.md` "Primary-key global index"): from an ordered source group (the sorted
//! files of one level of one bucket) and the group's values sorted by value with their group
//! ordinals, the payload bytes and their index-manifest entry. Pure: the caller writes the file.

use std::borrow::Borrow;

use roaring::RoaringTreemap;

use super::btree::{BTreeIndexWriter, Key, KeyType};
use super::source_meta::{SourceFile, SourceMeta};
use super::sst::CompressionType;
use crate::spec::manifest::{FileKind, GlobalIndexMeta, IndexManifestEntry};
use crate::spec::options::BTreeBuildOptions;
use crate::spec::types::DataField;
use crate::{Error, Result};

/// What one payload is built from.
#[derive(Debug, Clone)]
pub struct PkSortedBuildInput<'a> {
    /// The indexed column.
    pub field: &'a DataField,
    /// Block size and compression.
    pub options: &'a BTreeBuildOptions,
    /// The data level (> 0) of the sources.
    pub level: i32,
    /// The sources, in ascending file-name order.
    pub sources: Vec<SourceFile>,
    /// Serialized partition `BinaryRow` and bucket of the data files.
    pub partition: Vec<u8>,
    /// Bucket of the data files.
    pub bucket: i32,
    /// Payload file name (`btree-global-index-<uuid>.index`).
    pub file_name: String,
    /// Full path when written outside `<table>/index`.
    pub external_path: Option<String>,
}

/// A built payload.
#[derive(Debug, Clone)]
pub struct BuiltPayload {
    /// The file bytes.
    pub bytes: Vec<u8>,
    /// Its index-manifest entry (kind ADD).
    pub entry: IndexManifestEntry,
}

/// Builds the payload of `input` over `values`: every one of the group's N rows as (value,
/// group ordinal), non-null values ascending (nulls anywhere); keys owned or borrowed. Errors: invalid sources, N = 0
/// or overflowing, a value count other than N, an ordinal outside `[0, N)` or repeated.
pub fn build<K: Borrow<Key>>(
    input: PkSortedBuildInput<'_>,
    values: impl IntoIterator<Item = (Option<K>, u64)>,
) -> Result<BuiltPayload> {
    let mut w = PkSortedWriter::new(input)?;
    w.writer.reserve(w.rows);
    for (key, ordinal) in values {
        w.push(key.as_ref().map(Borrow::borrow), ordinal)?;
    }
    let (bytes, entry) = w.finish()?;
    Ok(BuiltPayload { bytes, entry })
}

/// [`build`] one value at a time, with the file's bytes taken out as they are written
/// ([`PkSortedWriter::take_output`]), so that a caller can stream a large payload to its
/// store: the same bytes and entry as [`build`].
#[derive(Debug)]
pub struct PkSortedWriter<'a> {
    input: PkSortedBuildInput<'a>,
    meta: SourceMeta,
    rows: u64,
    writer: BTreeIndexWriter,
    seen: Seen,
    given: u64,
}

impl<'a> PkSortedWriter<'a> {
    /// A writer of the payload of `input`. Errors: invalid sources, N = 0 or overflowing,
    /// an unsupported key type or compression.
    pub fn new(mut input: PkSortedBuildInput<'a>) -> Result<Self> {
        let meta = SourceMeta::new(input.level, std::mem::take(&mut input.sources))?;
        let n = meta.total_row_count().filter(|n| *n > 0).ok_or_else(|| {
            Error::invalid_argument("a sorted index group needs 1 to i64::MAX rows")
        })?;
        let rows = n as u64;
        let key_type = KeyType::from_data_type(&input.field.data_type)?;
        let compression = CompressionType::from_option(&input.options.compression)
            .filter(|c| *c != CompressionType::Lzo)
            .ok_or_else(|| {
                Error::invalid_argument(format!(
                    "unsupported btree-index.compression '{}'",
                    input.options.compression
                ))
            })?;
        let writer = BTreeIndexWriter::new(
            key_type,
            input.options.block_size,
            compression,
            input.options.compression_level,
        );
        Ok(PkSortedWriter {
            input,
            meta,
            rows,
            writer,
            seen: Seen::new(rows),
            given: 0,
        })
    }

    /// Adds the next row (`None`: a null value). Errors: an ordinal outside `[0, N)` or
    /// repeated, a key out of order or of another type.
    pub fn push(&mut self, key: Option<&Key>, ordinal: u64) -> Result<()> {
        if ordinal >= self.rows {
            return Err(Error::invalid_argument(format!(
                "Row id {ordinal} is outside sorted index group row range [0, {})",
                self.rows
            )));
        }
        if !self.seen.insert(ordinal) {
            return Err(Error::invalid_argument(format!(
                "Row id {ordinal} appears more than once."
            )));
        }
        self.given += 1;
        self.writer.write(key, ordinal)
    }

    /// Bytes written and not taken yet.
    pub fn pending(&self) -> usize {
        self.writer.pending()
    }

    /// Takes the payload bytes written so far (its next part).
    pub fn take_output(&mut self) -> Vec<u8> {
        self.writer.take_output()
    }

    /// Finishes the payload: its bytes not taken yet and its index-manifest entry (kind
    /// ADD, with the whole file's size). Errors: a value count other than N.
    pub fn finish(self) -> Result<(Vec<u8>, IndexManifestEntry)> {
        let n = self.rows as i64;
        if self.given != self.rows {
            return Err(Error::invalid_argument(format!(
                "sorted index group has {n} rows but {} values were given",
                self.given
            )));
        }
        let payload = self.writer.finish()?;
        let input = self.input;
        let entry = IndexManifestEntry {
            kind: FileKind::Add,
            partition: input.partition,
            bucket: input.bucket,
            index_type: "btree".into(),
            file_name: input.file_name,
            file_size: payload.size as i64,
            row_count: n,
            deletion_vectors: None,
            external_path: input.external_path,
            global_index: Some(GlobalIndexMeta {
                row_range_start: 0,
                row_range_end: n - 1,
                index_field_id: input.field.id,
                extra_field_ids: None,
                index_meta: Some(payload.meta.encode()),
                source_meta: Some(self.meta.encode()?),
            }),
        };
        Ok((payload.bytes, entry))
    }
}

/// The row ids given so far: a bitset up to [`Seen::DENSE_MAX`] rows (a roaring bitmap's
/// insert in random order costs ~10x a bit test), a roaring bitmap above.
#[derive(Debug)]
enum Seen {
    Dense(Vec<u64>),
    Sparse(RoaringTreemap),
}

impl Seen {
    /// 2^28 rows: a 32 MiB bitset, against ~12 GiB of (key, row id) values it would check.
    const DENSE_MAX: u64 = 1 << 28;

    fn new(rows: u64) -> Self {
        match usize::try_from(rows.div_ceil(64)) {
            Ok(words) if rows <= Self::DENSE_MAX => Seen::Dense(vec![0; words]),
            _ => Seen::Sparse(RoaringTreemap::new()),
        }
    }

    /// Adds `id` (below the row count); false when it was there.
    fn insert(&mut self, id: u64) -> bool {
        match self {
            Seen::Sparse(r) => r.insert(id),
            Seen::Dense(words) => {
                let bit = 1u64 << (id % 64);
                match usize::try_from(id / 64).ok().and_then(|i| words.get_mut(i)) {
                    Some(w) if *w & bit == 0 => {
                        *w |= bit;
                        true
                    }
                    Some(_) => false,
                    // Callers check `id` < rows first; out of range counts as seen.
                    None => false,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;

    use super::*;
    use crate::index::btree::BTreeIndexReader;

    fn field() -> DataField {
        serde_json::from_value(serde_json::json!({"id": 1, "name": "price", "type": "BIGINT"}))
            .unwrap()
    }

    fn input<'a>(f: &'a DataField, o: &'a BTreeBuildOptions) -> PkSortedBuildInput<'a> {
        PkSortedBuildInput {
            field: f,
            options: o,
            level: 5,
            sources: vec![
                SourceFile::new("a.parquet", 100),
                SourceFile::new("b.parquet", 200),
            ],
            partition: vec![0, 0, 0, 0],
            bucket: 0,
            file_name: "btree-global-index-x.index".into(),
            external_path: None,
        }
    }

    #[test]
    fn builds_readable_payload_with_entry() {
        let f = field();
        for compression in ["none", "zstd", "lz4"] {
            let o = BTreeBuildOptions {
                block_size: 256,
                compression: compression.into(),
                compression_level: 1,
            };
            let values = (0..300u64).map(|i| (Some(Key::BigInt(2 * i as i64)), i));
            let built = build(input(&f, &o), values).unwrap();
            let e = &built.entry;
            assert_eq!((e.row_count, e.file_size), (300, built.bytes.len() as i64));
            let g = e.global_index.as_ref().unwrap();
            assert_eq!(
                (g.row_range_start, g.row_range_end, g.index_field_id),
                (0, 299, 1)
            );
            let sm = SourceMeta::decode(g.source_meta.as_deref().unwrap(), "x").unwrap();
            assert_eq!(sm.data_level(), 5);
            let r = BTreeIndexReader::from_bytes("x", Bytes::from(built.bytes), KeyType::BigInt)
                .unwrap();
            let got: Vec<u64> = r.equal(&Key::BigInt(10)).unwrap().iter().collect();
            assert_eq!(got, [5]);
            let range: Vec<u64> = r
                .between(&Key::BigInt(190), &Key::BigInt(210))
                .unwrap()
                .iter()
                .collect();
            assert_eq!(range, (95..=105).collect::<Vec<_>>());
        }
    }

    #[test]
    fn streamed_parts_are_the_built_bytes() {
        let f = field();
        let o = BTreeBuildOptions {
            block_size: 256,
            compression: "zstd".into(),
            compression_level: 1,
        };
        // Values with repeats and nulls, sorted as a build takes them.
        let mut values: Vec<(Option<Key>, u64)> = (0..300u64)
            .map(|i| match i % 7 {
                0 => (None, i),
                _ => (Some(Key::BigInt((i % 50) as i64)), i),
            })
            .collect();
        // Key order: values ascending, nulls last; equal keys by ordinal.
        values.sort_by_key(|(k, o)| (k.is_none(), *o % 50, *o));
        let built = build(input(&f, &o), values.clone()).unwrap();
        let mut w = PkSortedWriter::new(input(&f, &o)).unwrap();
        let mut streamed = Vec::new();
        let mut takes = 0;
        for (k, ordinal) in &values {
            w.push(k.as_ref(), *ordinal).unwrap();
            if w.pending() > 100 {
                streamed.extend(w.take_output());
                takes += 1;
            }
        }
        // Given out in parts before the end, not all at `finish`.
        assert!(takes >= 2, "{takes} parts");
        let (tail, entry) = w.finish().unwrap();
        streamed.extend(tail);
        assert_eq!(streamed, built.bytes);
        assert_eq!(entry, built.entry);
    }

    #[test]
    fn dense_and_sparse_seen_sets_agree() {
        let ids = [0u64, 63, 64, 5, 63, 127, 0, 128, 1000, 5];
        let mut dense = Seen::new(1001);
        assert!(matches!(dense, Seen::Dense(_)));
        let mut sparse = Seen::Sparse(RoaringTreemap::new());
        for id in ids {
            assert_eq!(dense.insert(id), sparse.insert(id), "id {id}");
        }
        assert!(matches!(Seen::new(Seen::DENSE_MAX + 1), Seen::Sparse(_)));
        // Out of the bitset's range counts as seen (callers reject such ids first).
        assert!(!Seen::new(10).insert(64));
    }

    #[test]
    fn rejects_bad_ordinals() {
        let f = field();
        let o = BTreeBuildOptions {
            block_size: 65536,
            compression: "none".into(),
            compression_level: 1,
        };
        let dup = (0..300u64).map(|i| (Some(Key::BigInt(i as i64)), i.min(298)));
        let e = build(input(&f, &o), dup).unwrap_err();
        assert!(
            e.message().contains("Row id 298 appears more than once"),
            "{e}"
        );
        let out = [(None::<Key>, 300u64)];
        let e = build(input(&f, &o), out).unwrap_err();
        assert!(e
            .message()
            .contains("outside sorted index group row range [0, 300)"));
        let short = (0..10u64).map(|i| (None::<Key>, i));
        assert!(build(input(&f, &o), short).is_err());
        let mut bad = input(&f, &o);
        bad.level = 0;
        assert!(build(bad, std::iter::empty::<(Option<Key>, u64)>()).is_err());
    }
}
