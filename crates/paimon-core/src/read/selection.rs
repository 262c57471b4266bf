//! Row selection of one data file: requested row ranges minus deletion-vector positions.
//!
//! Mirrors how Java `org.apache.paimon.deletionvectors.ApplyDeletionVectorReader` and the
//! row-range selection of `org.apache.paimon.format.parquet.ParquetReaderFactory` (Paimon 2.0)
//! narrow a file read, but computed once as sorted disjoint ranges of file-local row positions
//! (`docs/format.md` "Row positions": positions are 0-based row indexes within the file,
//! deleted rows included) and handed to the format decoder, so no per-row work happens here.

use std::ops::Range;

use roaring::RoaringTreemap;

use crate::spec::row_range::RowRange;
use crate::{Error, Result};

/// The row ranges to keep in a file of `total` rows, or `None` when every row is kept.
///
/// `row_ranges` must be sorted and disjoint; they are clipped to `0..total`. Positions in
/// `deleted` are removed.
pub fn selected_ranges(
    total: u64,
    row_ranges: Option<&[RowRange]>,
    deleted: Option<&RoaringTreemap>,
) -> Result<Option<Vec<RowRange>>> {
    if row_ranges.is_none() && deleted.is_none_or(|d| d.is_empty()) {
        return Ok(None);
    }
    let mut base: Vec<RowRange> = Vec::new();
    match row_ranges {
        None => base.push(0..total),
        Some(ranges) => {
            let mut prev_end = 0;
            for r in ranges {
                if r.start < prev_end || r.end < r.start {
                    return Err(Error::invalid_argument(format!(
                        "row ranges must be sorted and disjoint, found {r:?} after end {prev_end}"
                    )));
                }
                prev_end = r.end;
                let (s, e) = (r.start.min(total), r.end.min(total));
                if s < e {
                    base.push(s..e);
                }
            }
        }
    }
    let Some(deleted) = deleted else {
        return Ok(Some(base));
    };
    let mut out = Vec::with_capacity(base.len());
    let mut dels = deleted.iter().peekable();
    for r in base {
        let mut start = r.start;
        while let Some(&d) = dels.peek() {
            if d >= r.end {
                break;
            }
            dels.next();
            if d < start {
                continue;
            }
            if d > start {
                out.push(start..d);
            }
            start = d + 1;
        }
        if start < r.end {
            out.push(start..r.end);
        }
    }
    Ok(Some(out))
}

/// Calls `emit(select, len)` for consecutive runs covering the rows of `groups` (sorted, disjoint
/// row ranges of the row groups that will be decoded): `select = true` for rows in `ranges`.
/// Rows outside `groups` are not mentioned, as decoders only see the rows of the kept groups.
pub fn runs_within(groups: &[RowRange], ranges: &[RowRange], mut emit: impl FnMut(bool, u64)) {
    let mut i = 0;
    for g in groups {
        let mut pos = g.start;
        while i < ranges.len() && ranges[i].end <= g.start {
            i += 1;
        }
        let mut j = i;
        while j < ranges.len() && ranges[j].start < g.end {
            let (s, e) = (ranges[j].start.max(g.start), ranges[j].end.min(g.end));
            if s > pos {
                emit(false, s - pos);
            }
            if e > s {
                emit(true, e - s);
            }
            pos = e.max(pos);
            j += 1;
        }
        if g.end > pos {
            emit(false, g.end - pos);
        }
    }
}

/// The positions of `bitmap` as sorted disjoint ranges.
pub fn bitmap_ranges(bitmap: &roaring::RoaringBitmap) -> Vec<RowRange> {
    let mut out: Vec<RowRange> = Vec::new();
    for p in bitmap.iter().map(u64::from) {
        match out.last_mut() {
            Some(last) if last.end == p => last.end = p + 1,
            _ => out.push(p..p + 1),
        }
    }
    out
}

/// Appends `r` to `out` (sorted, disjoint ranges; `r` starts at or after the last one's
/// start), merged with the last range when they overlap or touch.
pub(crate) fn push_merged<T: Ord + Copy>(out: &mut Vec<Range<T>>, r: Range<T>) {
    match out.last_mut() {
        Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
        _ => out.push(r),
    }
}

/// The positions in both `a` and `b` (each sorted and disjoint), as sorted disjoint ranges.
pub fn intersect(a: &[RowRange], b: &[RowRange]) -> Vec<RowRange> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
        let (s, e) = (x.start.max(y.start), x.end.min(y.end));
        if s < e {
            out.push(s..e);
        }
        if x.end <= y.end {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;

    #[test]
    fn ranges_minus_deletions() {
        assert_eq!(selected_ranges(10, None, None).unwrap(), None);
        let dv: RoaringTreemap = [0u64, 3, 4, 8, 20].into_iter().collect();
        assert_eq!(
            selected_ranges(10, None, Some(&dv)).unwrap(),
            Some(vec![1..3, 5..8, 9..10])
        );
        let rr = [2..6, 7..12];
        assert_eq!(
            selected_ranges(10, Some(&rr), Some(&dv)).unwrap(),
            Some(vec![2..3, 5..6, 7..8, 9..10])
        );
        assert!(selected_ranges(10, Some(&[3..5, 1..2]), None).is_err());
    }

    #[test]
    fn bitmap_to_ranges() {
        let b: roaring::RoaringBitmap = [0u32, 1, 2, 5, 7, 8].into_iter().collect();
        assert_eq!(bitmap_ranges(&b), vec![0..3, 5..6, 7..9]);
        assert!(bitmap_ranges(&roaring::RoaringBitmap::new()).is_empty());
    }

    #[test]
    fn intersection_of_range_lists() {
        assert_eq!(
            intersect(&[0..4, 8..12], &[2..10, 11..20]),
            vec![2..4, 8..10, 11..12]
        );
        assert_eq!(intersect(&[0..4], &[]), Vec::<RowRange>::new());
        assert_eq!(intersect(&[0..4, 5..6], &[0..10]), vec![0..4, 5..6]);
    }

    #[test]
    fn runs_cover_only_kept_groups() {
        let mut runs = vec![];
        runs_within(&[0..4, 8..12], &[2..10], |s, n| runs.push((s, n)));
        assert_eq!(runs, vec![(false, 2), (true, 2), (true, 2), (false, 2)]);
        let mut runs = vec![];
        runs_within(&[0..5], &[], |s, n| runs.push((s, n)));
        assert_eq!(runs, vec![(false, 5)]);
    }
}
