//! The bit-sliced index (Java `BitSliceIndexBitmapFileIndex`, `BitSliceIndexRoaringBitmap`;
//! `shared/spec/file-index.md` §6): non-negative values and magnitudes of negative values in two
//! bit-sliced parts, compared with O'Neil's algorithm.

use roaring::RoaringBitmap;

use super::key::{literal_long, read_roaring};
use super::result::{all_rows, FileIndexResult};
use crate::expr::LeafOp;
use crate::spec::bytes::ByteReader;
use crate::spec::datum::Datum;
use crate::spec::types::DataType;
use crate::Result;

/// A comparison answered by a bit-sliced part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    /// `=`
    Eq,
    /// `<`
    Lt,
    /// `<=`
    LtEq,
    /// `>`
    Gt,
    /// `>=`
    GtEq,
}

/// One bit-sliced part: rows with a value, and per bit the rows whose code has it set.
#[derive(Debug, Clone, Default)]
pub struct BitSlices {
    /// Rows with a value.
    pub existence: RoaringBitmap,
    /// Slice `i`: rows whose code has bit `i` set.
    pub slices: Vec<RoaringBitmap>,
}

impl BitSlices {
    /// Rows whose code compares with `code` as `cmp` (codes are unsigned).
    pub fn compare(&self, cmp: Cmp, code: u64) -> RoaringBitmap {
        let bits = self.slices.len();
        if bits < 64 && code >> bits != 0 {
            // Every stored code is below `code`.
            return match cmp {
                Cmp::Lt | Cmp::LtEq => self.existence.clone(),
                _ => RoaringBitmap::new(),
            };
        }
        let (mut lt, mut gt) = (RoaringBitmap::new(), RoaringBitmap::new());
        let mut eq = self.existence.clone();
        for (i, slice) in self.slices.iter().enumerate().rev() {
            if (code >> i) & 1 == 1 {
                lt |= &eq - slice;
                eq &= slice;
            } else {
                gt |= &eq & slice;
                eq -= slice;
            }
        }
        match cmp {
            Cmp::Eq => eq,
            Cmp::Lt => lt,
            Cmp::LtEq => lt | eq,
            Cmp::Gt => gt,
            Cmp::GtEq => gt | eq,
        }
    }
}

/// One part of a BSI payload: values `min + code`.
#[derive(Debug, Clone)]
struct Part {
    min: i64,
    max: i64,
    slices: BitSlices,
}

impl Part {
    fn read(r: &mut ByteReader<'_>, whole: &[u8], rows: u32) -> Result<Part> {
        let version = r.u8()?;
        if version != 1 {
            return Err(r.invalid(format!("unsupported BSI version {version}")));
        }
        let (min, max) = (r.i64_be()?, r.i64_be()?);
        let existence = read_roaring(r, whole, rows)?;
        let n = r.i32_be()?;
        if !(0..=64).contains(&n) {
            return Err(r.invalid(format!("slice count {n}")));
        }
        let mut slices = Vec::new();
        for _ in 0..n {
            slices.push(read_roaring(r, whole, rows)?);
        }
        Ok(Part {
            min,
            max,
            slices: BitSlices { existence, slices },
        })
    }

    /// Rows whose value compares with `v` as `cmp`.
    fn compare(&self, cmp: Cmp, v: i64) -> RoaringBitmap {
        let all = || self.slices.existence.clone();
        let none = RoaringBitmap::new;
        if v < self.min {
            return if matches!(cmp, Cmp::Gt | Cmp::GtEq) {
                all()
            } else {
                none()
            };
        }
        if v > self.max {
            return if matches!(cmp, Cmp::Lt | Cmp::LtEq) {
                all()
            } else {
                none()
            };
        }
        let code = v.wrapping_sub(self.min) as u64;
        self.slices.compare(cmp, code)
    }
}

/// A decoded BSI payload.
#[derive(Debug, Clone)]
pub struct BsiIndex {
    /// Rows indexed.
    pub row_count: u32,
    positive: Option<Part>,
    negative: Option<Part>,
}

impl BsiIndex {
    /// Decodes a payload (§6.1–6.2).
    pub fn decode(bytes: &[u8]) -> Result<BsiIndex> {
        let mut r = ByteReader::new(bytes, "bsi index");
        let version = r.u8()?;
        if version != 1 {
            return Err(r.invalid(format!("unsupported BSI index version {version}")));
        }
        let rows = r.i32_be()?;
        let row_count = u32::try_from(rows).map_err(|_| r.invalid(format!("row count {rows}")))?;
        let positive = if r.u8()? != 0 {
            Some(Part::read(&mut r, bytes, row_count)?)
        } else {
            None
        };
        let negative = if r.u8()? != 0 {
            Some(Part::read(&mut r, bytes, row_count)?)
        } else {
            None
        };
        Ok(BsiIndex {
            row_count,
            positive,
            negative,
        })
    }

    fn existence(part: &Option<Part>) -> RoaringBitmap {
        part.as_ref()
            .map(|p| p.slices.existence.clone())
            .unwrap_or_default()
    }

    fn part_cmp(part: &Option<Part>, cmp: Cmp, v: i64) -> RoaringBitmap {
        part.as_ref().map(|p| p.compare(cmp, v)).unwrap_or_default()
    }

    /// Rows whose value compares with `v` as `cmp` (§6.3).
    pub fn compare(&self, cmp: Cmp, v: i64) -> RoaringBitmap {
        let (pos, neg) = (&self.positive, &self.negative);
        let Some(abs) = v.checked_abs() else {
            // Long.MIN_VALUE: below every value.
            return match cmp {
                Cmp::Gt | Cmp::GtEq => Self::existence(pos) | Self::existence(neg),
                _ => RoaringBitmap::new(),
            };
        };
        match (cmp, v < 0) {
            (Cmp::Eq, false) => Self::part_cmp(pos, Cmp::Eq, v),
            (Cmp::Eq, true) => Self::part_cmp(neg, Cmp::Eq, abs),
            (Cmp::Lt, true) => Self::part_cmp(neg, Cmp::Gt, abs),
            (Cmp::LtEq, true) => Self::part_cmp(neg, Cmp::GtEq, abs),
            (Cmp::Lt | Cmp::LtEq, false) => Self::part_cmp(pos, cmp, v) | Self::existence(neg),
            (Cmp::Gt, true) => Self::existence(pos) | Self::part_cmp(neg, Cmp::Lt, abs),
            (Cmp::GtEq, true) => Self::existence(pos) | Self::part_cmp(neg, Cmp::LtEq, abs),
            (Cmp::Gt | Cmp::GtEq, false) => Self::part_cmp(pos, cmp, v),
        }
    }

    /// Rows with a value.
    pub fn non_null(&self) -> RoaringBitmap {
        Self::existence(&self.positive) | Self::existence(&self.negative)
    }

    /// Answers one leaf on a column of `file_type`.
    ///
    /// Complements are built over `[0, row_count)`: check `row_count` against the data file's
    /// first ([`evaluate`](super::evaluate) does).
    pub fn query(&self, op: &LeafOp, file_type: &DataType) -> FileIndexResult {
        let lit = |d: &Datum| literal_long(d, file_type);
        let eq_union = |vs: &[Datum]| -> Option<RoaringBitmap> {
            let mut out = RoaringBitmap::new();
            for v in vs {
                out |= self.compare(Cmp::Eq, lit(v)?);
            }
            Some(out)
        };
        let rows = match op {
            LeafOp::IsNull => Some(all_rows(self.row_count) - self.non_null()),
            LeafOp::IsNotNull => Some(self.non_null()),
            LeafOp::Eq(v) => eq_union(std::slice::from_ref(v)),
            LeafOp::In(vs) => eq_union(vs),
            LeafOp::NotEq(v) => eq_union(std::slice::from_ref(v)).map(|e| self.non_null() - e),
            LeafOp::NotIn(vs) => eq_union(vs).map(|e| self.non_null() - e),
            LeafOp::Lt(v) => lit(v).map(|v| self.compare(Cmp::Lt, v)),
            LeafOp::LtEq(v) => lit(v).map(|v| self.compare(Cmp::LtEq, v)),
            LeafOp::Gt(v) => lit(v).map(|v| self.compare(Cmp::Gt, v)),
            LeafOp::GtEq(v) => lit(v).map(|v| self.compare(Cmp::GtEq, v)),
            LeafOp::StartsWith(_) | LeafOp::NotStartsWith(_) => None,
        };
        rows.map_or(FileIndexResult::Remain, FileIndexResult::Rows)
    }
}
