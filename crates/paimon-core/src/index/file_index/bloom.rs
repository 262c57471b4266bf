//! The bloom-filter index (Java `BloomFilterFileIndex`, `BloomFilter64`, `FastHash`;
//! `shared/spec/file-index.md` §4): answers `=` and `IN` with "might match" or "cannot match".

use twox_hash::XxHash64;

use super::bitmap::zero_twins;
use super::key::{canonical_f32, canonical_f64, literal_long};
use super::result::FileIndexResult;
use crate::expr::LeafOp;
use crate::spec::bytes::ByteReader;
use crate::spec::datum::Datum;
use crate::spec::types::{DataType, TypeKind};
use crate::Result;

/// A decoded bloom filter over borrowed bits.
#[derive(Debug, Clone, Copy)]
pub struct BloomFilter<'a> {
    /// Number of hash functions.
    pub num_hash_functions: i32,
    bits: &'a [u8],
}

impl<'a> BloomFilter<'a> {
    /// Decodes a payload: i32 BE hash-function count, then the bit set.
    pub fn decode(bytes: &'a [u8]) -> Result<Self> {
        let mut r = ByteReader::new(bytes, "bloom filter index");
        let k = r.i32_be()?;
        if k <= 0 {
            return Err(r.invalid(format!("hash function count {k}")));
        }
        let bits = r.take(r.remaining())?;
        if bits.is_empty() {
            return Err(r.invalid("empty bit set"));
        }
        Ok(BloomFilter {
            num_hash_functions: k,
            bits,
        })
    }

    /// The bit positions probed for `hash` (§4.2).
    pub fn positions(&self, hash: i64) -> impl Iterator<Item = u64> + '_ {
        let num_bits = self.bits.len() as u64 * 8;
        let h1 = hash as i32;
        let h2 = (hash >> 32) as i32;
        (1..=self.num_hash_functions).map(move |i| {
            let mut c = h1.wrapping_add(i.wrapping_mul(h2));
            if c < 0 {
                c = !c;
            }
            c as u64 % num_bits
        })
    }

    /// Whether a value with `hash` may be present.
    pub fn might_contain(&self, hash: i64) -> bool {
        self.positions(hash).all(|p| {
            let byte = self.bits.get((p >> 3) as usize).copied().unwrap_or(0);
            byte & (1 << (p & 7)) != 0
        })
    }

    /// Answers one leaf on a column of `file_type` (§4.6).
    pub fn query(&self, op: &LeafOp, file_type: &DataType) -> FileIndexResult {
        let lits: &[Datum] = match op {
            LeafOp::Eq(v) => std::slice::from_ref(v),
            LeafOp::In(vs) => vs,
            _ => return FileIndexResult::Remain,
        };
        for lit in lits {
            for lit in zero_twins(lit) {
                match hash_literal(&lit, file_type) {
                    Some(h) if !self.might_contain(h) => {}
                    _ => return FileIndexResult::Remain,
                }
            }
        }
        FileIndexResult::Skip
    }
}

/// Thomas Wang's 64-bit integer mix as `FastHash` computes it (arithmetic shifts, wrapping).
pub fn wang(mut k: i64) -> i64 {
    k = (!k).wrapping_add(k << 21);
    k ^= k >> 24;
    k = k.wrapping_add(k << 3).wrapping_add(k << 8);
    k ^= k >> 14;
    k = k.wrapping_add(k << 2).wrapping_add(k << 4);
    k ^= k >> 28;
    k.wrapping_add(k << 31)
}

/// XXH64 with seed 0 (`LongHashFunction.xx()`).
pub fn xx64(bytes: &[u8]) -> i64 {
    XxHash64::oneshot(0, bytes) as i64
}

/// The bloom hash of a literal for a column of `file_type` (§3.1), or `None` when the column
/// type has no bloom hash or the literal does not fit it.
pub fn hash_literal(lit: &Datum, file_type: &DataType) -> Option<i64> {
    match (lit, &file_type.kind) {
        // CHAR(n) is left out: how its values are padded is not pinned down (fails open).
        (Datum::String(s), TypeKind::VarChar(_)) => Some(xx64(s.as_bytes())),
        (Datum::Binary(b), TypeKind::Binary(_) | TypeKind::VarBinary(_)) => Some(xx64(b)),
        (Datum::Float(f), TypeKind::Float) => {
            Some(wang(i64::from(canonical_f32(*f).to_bits() as i32)))
        }
        (Datum::Double(f), TypeKind::Double) => Some(wang(canonical_f64(*f).to_bits() as i64)),
        (_, TypeKind::Decimal { .. } | TypeKind::Boolean) => None,
        _ => literal_long(lit, file_type).map(wang),
    }
}
