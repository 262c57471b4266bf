//! The key pass straight from the key column's pages, for integer keys stored PLAIN in a
//! required column (the usual layout of a primary key's pages once the writer's dictionary is
//! full, and of files written without dictionaries).
//!
//! The touched pages are decompressed into one buffer each and searched where they lie: the
//! values are checked to be sorted and binary-searched as little-endian integers, with no Arrow
//! array built, copied or concatenated. arrow-rs's decode of the same pages costs three times
//! the memory (page, decoded batches, their concatenation), which a one-shot process pays in
//! page faults. Anything else (another encoding, a nullable or non-integer column, a type
//! changed by schema evolution) is `None`, and the caller decodes with arrow-rs.

use parquet::arrow::async_reader::AsyncFileReader;
use parquet::basic::Type as PhysicalType;

use super::KeyPass;
use crate::read::dictionary_skip::touched_pages;
use crate::read::key_search::KeyInterval;
use crate::read::point_pages::{required_plain_values, Leaf};
use crate::spec::row_range::RowRange;
use crate::spec::types::{DataField, TypeKind};
use crate::spec::Datum;

/// What the pages of one file's key column hold for the intervals searched.
#[derive(Debug, PartialEq)]
pub(super) enum PlainKeys {
    /// File-global rows (sorted, disjoint) whose key may lie in an interval: every such row of
    /// the touched pages.
    Found(Vec<RowRange>),
    /// The values are not sorted: no narrowing.
    Unsorted,
}

/// Searches the key column's leaf `leaf` in the pages the candidate rows touch; `None` when
/// this search does not apply.
pub(super) async fn search(
    pass: &KeyPass<'_>,
    key: &DataField,
    leaf: usize,
    candidates: &[RowRange],
    intervals: &[KeyInterval],
) -> Option<PlainKeys> {
    let md = pass.meta.metadata();
    let column = md.file_metadata().schema_descr().column(leaf);
    let width = match (&key.data_type.kind, column.physical_type()) {
        (
            TypeKind::TinyInt | TypeKind::SmallInt | TypeKind::Int | TypeKind::Date,
            PhysicalType::INT32,
        ) => 4,
        (TypeKind::BigInt, PhysicalType::INT64) => 8,
        _ => return None,
    };
    // The file's own type must be the key's: no conversion lies between stored and compared.
    let stored = pass.read.file_fields.iter().find(|f| f.id == key.id)?;
    if stored.data_type.kind != key.data_type.kind || column.max_rep_level() != 0 {
        return None;
    }
    let leaf_kind = Leaf::new(column.physical_type(), 0, column.max_def_level())?;
    let bounds: Vec<(i64, bool, i64, bool)> = intervals
        .iter()
        .map(|iv| {
            Some((
                integer(&iv.low)?,
                iv.low_inclusive,
                integer(&iv.high)?,
                iv.high_inclusive,
            ))
        })
        .collect::<Option<_>>()?;
    let chunks = touched_pages(md, pass.groups, candidates, &[leaf])?;
    let mut wanted = Vec::new();
    let mut pages = Vec::new();
    for chunk in &chunks {
        let group_start = pass.groups.iter().find(|g| g.0 == chunk.row_group)?.1.start;
        let codec = md.row_group(chunk.row_group).column(leaf).compression();
        for p in &chunk.pages {
            wanted.push(p.range.clone());
            pages.push((group_start + p.first_row, codec));
        }
    }
    let offsets: Vec<u64> = wanted.iter().map(|r| r.start).collect();
    // Kept for the full read, which reads the key column too.
    let fetched = pass
        .reader
        .clone()
        .keep_fetched()
        .get_byte_ranges(wanted)
        .await
        .ok()?;
    let mut searched = Searched::default();
    for (((first_row, codec), page), offset) in pages.into_iter().zip(fetched).zip(offsets) {
        let (mut section, start, count) = required_plain_values(page, &leaf_kind, codec)?;
        let end = start.checked_add(count.checked_mul(width)?)?;
        let bytes = section.get(start, end)?;
        let sorted = if width == 4 {
            searched.page::<4>(first_row, bytes, &bounds)
        } else {
            searched.page::<8>(first_row, bytes, &bounds)
        };
        if !sorted {
            return Some(PlainKeys::Unsorted);
        }
        // The point read of the rows found decodes this page again: it is decompressed.
        if let Some(whole) = section.into_complete() {
            pass.reader.keep_decompressed(offset, whole);
        }
    }
    Some(PlainKeys::Found(searched.rows))
}

/// A key literal as a 64-bit integer.
fn integer(d: &Datum) -> Option<i64> {
    match d {
        Datum::TinyInt(v) => Some(i64::from(*v)),
        Datum::SmallInt(v) => Some(i64::from(*v)),
        Datum::Int(v) | Datum::Date(v) => Some(i64::from(*v)),
        Datum::BigInt(v) => Some(*v),
        _ => None,
    }
}

/// Value `i` of little-endian signed integers of `W` bytes each, widened; `bytes` holds more
/// than `i` of them (the callers' loops and searches stay below the count they checked).
fn at<const W: usize>(bytes: &[u8], i: usize) -> i64 {
    let mut b = [0u8; 8];
    b[..W].copy_from_slice(&bytes[i * W..(i + 1) * W]);
    // Shifted up and back down, the sign bit of a narrower value is extended.
    let shift = 64 - 8 * W as u32;
    (i64::from_le_bytes(b) << shift) >> shift
}

/// The pages searched so far, in file order.
#[derive(Default)]
struct Searched {
    /// The last value of the previous page.
    last: Option<i64>,
    /// The matching rows found.
    rows: Vec<RowRange>,
}

impl Searched {
    /// Searches one page whose values are `bytes` (`W` bytes each) and whose first row is file
    /// row `first_row`; `false` when the values are not sorted (after the previous page's).
    fn page<const W: usize>(
        &mut self,
        first_row: u64,
        bytes: &[u8],
        bounds: &[(i64, bool, i64, bool)],
    ) -> bool {
        let count = bytes.len() / W;
        let mut prev = self.last.unwrap_or(i64::MIN);
        for chunk in bytes.chunks_exact(W) {
            let v = at::<W>(chunk, 0);
            if v < prev {
                return false;
            }
            prev = v;
        }
        self.last = Some(prev);
        let mut found: Vec<RowRange> = Vec::with_capacity(bounds.len());
        for &(low, low_inclusive, high, high_inclusive) in bounds {
            // Values below the interval form a prefix, and so do values not above it.
            let start = partition_point(count, |i| {
                let v = at::<W>(bytes, i);
                v < low || (v == low && !low_inclusive)
            });
            let end = partition_point(count, |i| {
                let v = at::<W>(bytes, i);
                v < high || (v == high && high_inclusive)
            });
            if start < end {
                found.push(first_row + start as u64..first_row + end as u64);
            }
        }
        found.sort_by_key(|r| r.start);
        for r in found {
            match self.rows.last_mut() {
                Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
                _ => self.rows.push(r),
            }
        }
        true
    }
}

#[cfg(test)]
mod tests;

/// The first index in `0..n` where `pred` fails (it holds for a prefix).
fn partition_point(n: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0usize, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}
