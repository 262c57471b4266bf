//! The range-bitmap index (Java `org.apache.paimon.fileindex.rangebitmap`;
//! `shared/spec/file-index.md` §7): a sorted dictionary assigning each distinct value its rank
//! as code, and a bit-sliced index of the codes per row.

use roaring::RoaringBitmap;

use super::bitmap::zero_twins;
use super::bsi::{BitSlices, Cmp};
use super::key::{literal_key, roaring_exact, Key, KeyRules, KeyType};
use super::result::{all_rows, FileIndexResult};
use crate::expr::LeafOp;
use crate::spec::bytes::ByteReader;
use crate::spec::datum::Datum;
use crate::spec::types::{DataType, TypeKind};
use crate::Result;

/// A decoded range-bitmap payload.
#[derive(Debug, Clone)]
pub struct RangeBitmapIndex {
    /// Rows indexed.
    pub row_count: u32,
    /// The distinct values in code order.
    pub keys: Vec<Key>,
    slices: BitSlices,
}

impl RangeBitmapIndex {
    /// Decodes a payload whose keys are stored as `key_type`.
    pub fn decode(bytes: &[u8], key_type: KeyType) -> Result<RangeBitmapIndex> {
        let mut r = ByteReader::new(bytes, "range-bitmap index");
        let header_len = r.i32_be()?;
        let header_len = usize::try_from(header_len).map_err(|_| r.invalid("header length"))?;
        let header = r.take(header_len)?;
        let mut h = ByteReader::new(header, "range-bitmap header");
        let version = h.u8()?;
        if version != 1 {
            return Err(h.invalid(format!("unsupported range-bitmap version {version}")));
        }
        let rows = h.i32_be()?;
        let row_count = u32::try_from(rows).map_err(|_| h.invalid(format!("row count {rows}")))?;
        let cardinality = h.i32_be()?;
        if cardinality > 0 {
            key_type.read(&mut h)?;
            key_type.read(&mut h)?;
        }
        let dict_len = h.i32_be()?;
        let dict_len = usize::try_from(dict_len).map_err(|_| h.invalid("dictionary length"))?;
        let keys = read_dictionary(r.take(dict_len)?, key_type)?;
        if i64::try_from(keys.len()).ok() != Some(i64::from(cardinality.max(0))) {
            return Err(r.invalid(format!(
                "dictionary holds {} keys, header says {cardinality}",
                keys.len()
            )));
        }
        let slices = read_bit_slices(r.take(r.remaining())?, row_count)?;
        Ok(RangeBitmapIndex {
            row_count,
            keys,
            slices,
        })
    }

    /// The code of `key`: `Ok(code)` when present, else `Err(insertion code)`.
    pub fn code_of(&self, key: &Key) -> std::result::Result<u64, u64> {
        self.keys
            .binary_search(key)
            .map(|c| c as u64)
            .map_err(|c| c as u64)
    }

    /// Rows whose value compares with `key` as `cmp`.
    pub fn compare(&self, cmp: Cmp, key: &Key) -> RoaringBitmap {
        match (self.code_of(key), cmp) {
            (Ok(c), cmp) => self.slices.compare(cmp, c),
            (Err(_), Cmp::Eq) => RoaringBitmap::new(),
            (Err(i), Cmp::Lt | Cmp::LtEq) => self.slices.compare(Cmp::Lt, i),
            (Err(i), Cmp::Gt | Cmp::GtEq) => self.slices.compare(Cmp::GtEq, i),
        }
    }

    /// Answers one leaf on a column of `file_type` (§7.4).
    ///
    /// Complements are built over `[0, row_count)`: check `row_count` against the data file's
    /// first ([`evaluate`](super::evaluate) does).
    pub fn query(&self, op: &LeafOp, file_type: &DataType) -> FileIndexResult {
        let float = matches!(file_type.kind, TypeKind::Float | TypeKind::Double);
        let eq_union = |vs: &[Datum]| -> Option<RoaringBitmap> {
            let mut out = RoaringBitmap::new();
            for v in vs {
                for v in zero_twins(v) {
                    out |= self.compare(Cmp::Eq, &literal_key(&v, file_type)?);
                }
            }
            Some(out)
        };
        let range = |cmp: Cmp, v: &Datum| -> Option<RoaringBitmap> {
            // A float zero is widened to the zero that keeps IEEE-equal rows (§8.7).
            let v = match (v, cmp) {
                (Datum::Float(f), Cmp::Lt | Cmp::LtEq) if *f == 0.0 => Datum::Float(0.0),
                (Datum::Float(f), _) if *f == 0.0 => Datum::Float(-0.0),
                (Datum::Double(f), Cmp::Lt | Cmp::LtEq) if *f == 0.0 => Datum::Double(0.0),
                (Datum::Double(f), _) if *f == 0.0 => Datum::Double(-0.0),
                (v, _) => v.clone(),
            };
            Some(self.compare(cmp, &literal_key(&v, file_type)?))
        };
        let existence = || self.slices.existence.clone();
        let rows = match op {
            LeafOp::IsNull => Some(all_rows(self.row_count) - existence()),
            LeafOp::IsNotNull => Some(existence()),
            LeafOp::Eq(v) => eq_union(std::slice::from_ref(v)),
            LeafOp::In(vs) => eq_union(vs),
            LeafOp::NotEq(_) | LeafOp::NotIn(_) if float => None,
            LeafOp::NotEq(v) => eq_union(std::slice::from_ref(v)).map(|e| existence() - e),
            LeafOp::NotIn(vs) => eq_union(vs).map(|e| existence() - e),
            LeafOp::Lt(v) => range(Cmp::Lt, v),
            LeafOp::LtEq(v) => range(Cmp::LtEq, v),
            LeafOp::Gt(v) => range(Cmp::Gt, v),
            LeafOp::GtEq(v) => range(Cmp::GtEq, v),
            LeafOp::StartsWith(_) | LeafOp::NotStartsWith(_) => None,
        };
        rows.map_or(FileIndexResult::Remain, FileIndexResult::Rows)
    }
}

/// The key type a range-bitmap index uses for a column of `t` (`None`: not indexable).
pub fn key_type(t: &DataType) -> Option<KeyType> {
    KeyType::of(t, KeyRules::Range)
}

/// Decodes a chunked dictionary (§7.2) into its keys in code order (checked ascending).
fn read_dictionary(bytes: &[u8], key_type: KeyType) -> Result<Vec<Key>> {
    let mut r = ByteReader::new(bytes, "range-bitmap dictionary");
    let header_len = r.i32_be()?;
    let header_len = usize::try_from(header_len).map_err(|_| r.invalid("header length"))?;
    let mut h = ByteReader::new(r.take(header_len)?, "range-bitmap dictionary header");
    let version = h.u8()?;
    if version != 1 {
        return Err(h.invalid(format!("unsupported dictionary version {version}")));
    }
    let chunks = h.i32_be()?;
    let offsets_len = usize::try_from(h.i32_be()?).map_err(|_| h.invalid("offsets length"))?;
    let chunks_len = usize::try_from(h.i32_be()?).map_err(|_| h.invalid("chunks length"))?;
    let offsets = r.take(offsets_len)?;
    let chunk_area = r.take(chunks_len)?;
    let keys_area = r.take(r.remaining())?;
    let mut offsets = ByteReader::new(offsets, "range-bitmap chunk offsets");
    let mut keys: Vec<Key> = Vec::new();
    for _ in 0..chunks.max(0) {
        let off = usize::try_from(offsets.i32_be()?).map_err(|_| offsets.invalid("offset"))?;
        let mut c = ByteReader::new(chunk_area, "range-bitmap chunk");
        c.seek(off)?;
        read_chunk(&mut c, keys_area, key_type, &mut keys)?;
    }
    Ok(keys)
}

fn read_chunk(
    c: &mut ByteReader<'_>,
    keys_area: &[u8],
    key_type: KeyType,
    keys: &mut Vec<Key>,
) -> Result<()> {
    let version = c.u8()?;
    if version != 1 {
        return Err(c.invalid(format!("unsupported chunk version {version}")));
    }
    let first = key_type.read(c)?;
    let code = c.i32_be()?;
    if i64::from(code) != keys.len() as i64 {
        return Err(c.invalid(format!("chunk code {code}, expected {}", keys.len())));
    }
    let keys_offset = usize::try_from(c.i32_be()?).map_err(|_| c.invalid("keys offset"))?;
    let size = c.i32_be()?;
    let (skip, len) = if key_type == KeyType::Str {
        let offsets_len = usize::try_from(c.i32_be()?).map_err(|_| c.invalid("offsets length"))?;
        let keys_len = usize::try_from(c.i32_be()?).map_err(|_| c.invalid("keys length"))?;
        (offsets_len, offsets_len.saturating_add(keys_len))
    } else {
        let keys_len = usize::try_from(c.i32_be()?).map_err(|_| c.invalid("keys length"))?;
        let _fixed = c.i32_be()?;
        (0, keys_len)
    };
    let mut k = ByteReader::new(keys_area, "range-bitmap keys");
    k.seek(keys_offset)?;
    let mut k = ByteReader::new(k.take(len)?, "range-bitmap keys");
    k.take(skip)?;
    push_ascending(keys, first, c)?;
    for _ in 0..size.max(0) {
        let key = key_type.read(&mut k)?;
        push_ascending(keys, key, &k)?;
    }
    Ok(())
}

fn push_ascending(keys: &mut Vec<Key>, key: Key, r: &ByteReader<'_>) -> Result<()> {
    if keys.last().is_some_and(|last| *last >= key) {
        return Err(r.invalid("dictionary keys are not strictly ascending"));
    }
    keys.push(key);
    Ok(())
}

/// Decodes the bit-sliced index of codes (§7.3).
fn read_bit_slices(bytes: &[u8], rows: u32) -> Result<BitSlices> {
    let mut r = ByteReader::new(bytes, "range-bitmap bit slices");
    let header_len = usize::try_from(r.i32_be()?).map_err(|_| r.invalid("header length"))?;
    let mut h = ByteReader::new(r.take(header_len)?, "range-bitmap bit-slice header");
    let version = h.u8()?;
    if version != 1 {
        return Err(h.invalid(format!("unsupported bit-slice version {version}")));
    }
    let n = h.u8()?;
    if n > 64 {
        return Err(h.invalid(format!("slice count {n}")));
    }
    let existence_len = usize::try_from(h.i32_be()?).map_err(|_| h.invalid("existence length"))?;
    let _indexes_len = h.i32_be()?;
    let existence = roaring_exact(r.take(existence_len)?, "range-bitmap existence", rows)?;
    let base = r.take(r.remaining())?;
    let mut slices = Vec::new();
    for _ in 0..n {
        let off = usize::try_from(h.i32_be()?).map_err(|_| h.invalid("slice offset"))?;
        let len = usize::try_from(h.i32_be()?).map_err(|_| h.invalid("slice length"))?;
        let slice = base
            .get(off..off.saturating_add(len))
            .ok_or_else(|| h.invalid("slice out of bounds"))?;
        slices.push(roaring_exact(slice, "range-bitmap slice", rows)?);
    }
    Ok(BitSlices { existence, slices })
}
