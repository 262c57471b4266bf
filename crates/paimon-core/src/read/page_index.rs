//! Parquet page pruning with the page index (column index + offset index).
//!
//! Parquet files may carry, per column chunk, a *column index* (min / max / null count of each
//! data page) and an *offset index* (byte location and first row of each page); parquet-mr, and
//! so Java Paimon's `org.apache.paimon.format.parquet.ParquetReaderFactory` (Paimon 2.0), write
//! them by default and filter pages with them (`ColumnIndexFilter`). Here the predicate that may
//! be evaluated on every row of a file (the whole predicate for files read raw, the primary-key
//! conjuncts for files of merged splits, see [`super::table_read`]) is evaluated with the same
//! inclusive statistics evaluator as row groups (`expr::eval_stats`, fail open), on *segments*:
//! the pieces of a row group cut at every page boundary of every predicate column, so that each
//! segment lies in exactly one page of each predicate column and AND / OR across columns stay
//! exact. Segments that cannot match are removed from the file's row selection; arrow-rs then
//! fetches and decodes only the pages of every projected column that the selection touches
//! (the offset index gives their byte ranges).
//!
//! Columns are matched by field id through the file's own schema (see
//! [`super::row_group_pruning::predicate_columns`]). A missing or unreadable page index, a
//! column without a column index, or an inconsistent offset index makes the read fall back to
//! whole column chunks (counted in [`super::metrics`]).

use std::collections::HashMap;

use parquet::file::metadata::PageIndexPolicy;
use parquet::file::metadata::{ParquetMetaData, ParquetMetaDataBuilder, ParquetMetaDataReader};
use parquet::file::page_index::column_index::ColumnIndexMetaData;
use parquet::file::page_index::offset_index::OffsetIndexMetaData;

use super::parquet::FileIoParquetReader;
use super::row_group_pruning::{from_bytes, from_f64, from_i32, from_i64, PredicateColumns};
use crate::expr::{eval_stats, BoundPredicate, Prune, StatsSource};
use crate::spec::row_range::RowRange;
use crate::spec::types::TypeKind;
use crate::spec::Datum;

/// How loading the page index of one file went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PageIndexLoad {
    /// Column and offset indexes loaded and consistent with the footer.
    Loaded,
    /// The file has no column index (an offset index alone is kept).
    Missing,
    /// The page index could not be read or contradicts the footer; it is ignored.
    Unreadable,
}

/// Adds the page index of the file behind `reader` to its footer metadata `md`, or returns `md`
/// without one when the file has none or it is unusable (never an error: page pruning fails
/// open).
pub(crate) async fn load_page_index(
    md: ParquetMetaData,
    reader: &mut FileIoParquetReader,
) -> (ParquetMetaData, PageIndexLoad) {
    let chunks = || md.row_groups().iter().flat_map(|rg| rg.columns());
    let has_column_index = chunks().any(|c| c.column_index_offset().is_some());
    if !has_column_index && chunks().all(|c| c.offset_index_offset().is_none()) {
        return (md, PageIndexLoad::Missing);
    }
    let mut loader = ParquetMetaDataReader::new_with_metadata(md.clone())
        .with_page_index_policy(PageIndexPolicy::Optional);
    let loaded = match loader.load_page_index(&mut *reader).await {
        Ok(()) => loader.finish().ok(),
        Err(_) => None,
    };
    match loaded {
        // An offset index alone still lets arrow-rs fetch only the selected pages.
        Some(full) if consistent(&full) && !has_column_index => (full, PageIndexLoad::Missing),
        Some(full) if consistent(&full) => (full, PageIndexLoad::Loaded),
        _ => {
            let stripped = ParquetMetaDataBuilder::new_from_metadata(md)
                .set_column_index(None)
                .set_offset_index(None)
                .build();
            (stripped, PageIndexLoad::Unreadable)
        }
    }
}

/// Whether every offset index agrees with its row group: one entry per column chunk, pages in
/// ascending row and byte order, the first at row 0, all rows and bytes inside the chunk, and
/// a column index (when present) with as many pages. arrow-rs fetches by these locations, so an
/// inconsistent index must not reach it.
fn consistent(md: &ParquetMetaData) -> bool {
    let Some(offsets) = md.offset_index() else {
        return md.column_index().is_none();
    };
    if offsets.len() != md.num_row_groups() {
        return false;
    }
    for (rg_idx, (rg, cols)) in md.row_groups().iter().zip(offsets).enumerate() {
        if cols.len() != rg.num_columns() {
            return false;
        }
        let column_index = md.column_index().and_then(|ci| ci.get(rg_idx));
        for (c, (chunk, oi)) in rg.columns().iter().zip(cols).enumerate() {
            let (start, len) = chunk.byte_range();
            let end = start.saturating_add(len);
            let pages = oi.page_locations();
            let mut prev_row = -1i64;
            let mut prev_end = start;
            for (i, p) in pages.iter().enumerate() {
                let first_ok = i > 0 || p.first_row_index == 0;
                let Ok(off) = u64::try_from(p.offset) else {
                    return false;
                };
                let Ok(size) = u64::try_from(p.compressed_page_size) else {
                    return false;
                };
                if !first_ok
                    || p.first_row_index <= prev_row
                    || p.first_row_index >= rg.num_rows()
                    || off < prev_end
                    || off.saturating_add(size) > end
                {
                    return false;
                }
                prev_row = p.first_row_index;
                prev_end = off.saturating_add(size);
            }
            if let Some(ci) = column_index.and_then(|r| r.get(c)) {
                let n = ci.num_pages_or_none();
                if n.is_some_and(|n| n != pages.len()) {
                    return false;
                }
            }
        }
    }
    true
}

trait PagesOrNone {
    fn num_pages_or_none(&self) -> Option<usize>;
}

impl PagesOrNone for ColumnIndexMetaData {
    fn num_pages_or_none(&self) -> Option<usize> {
        match self {
            ColumnIndexMetaData::NONE => None,
            other => usize::try_from(other.num_pages()).ok(),
        }
    }
}

/// What page pruning of one file kept and skipped.
#[derive(Debug, Default)]
pub(crate) struct PagePruning {
    /// File-global row ranges of the given row groups that may match (sorted, disjoint).
    pub(crate) kept: Vec<RowRange>,
    /// Rows of the given row groups removed.
    pub(crate) rows_skipped: u64,
    /// Pages of the `count_columns` none of whose rows is kept.
    pub(crate) pages_skipped: u64,
}

/// One predicate column in one row group: its type, column index and page first rows.
struct ColumnPages<'a> {
    kind: &'a TypeKind,
    index: &'a ColumnIndexMetaData,
    /// First row of each page (row-group local), ascending, starting at 0.
    starts: Vec<u64>,
}

/// Evaluates `predicate` on the pages of `row_groups` (`(row group index, file-global rows)`,
/// ascending) of a file whose metadata holds a loaded page index; `None` when no predicate
/// column has a usable column index. `count_columns` are the leaf columns whose skipped pages
/// are counted.
pub(crate) fn prune_pages(
    md: &ParquetMetaData,
    predicate: &BoundPredicate,
    columns: &PredicateColumns,
    row_groups: &[(usize, RowRange)],
    count_columns: &[usize],
) -> Option<PagePruning> {
    let (column_index, offset_index) = (md.column_index()?, md.offset_index()?);
    let schema = md.file_metadata().schema_descr();
    // field id -> (leaf column index, type): top-level primitive columns only.
    let leaves: HashMap<i32, (usize, &TypeKind)> = columns
        .iter()
        .filter_map(|(id, (name, kind))| {
            let leaf = (0..schema.num_columns()).find(|&i| {
                let path = schema.column(i).path().parts().to_vec();
                path.len() == 1 && path[0] == *name
            })?;
            Some((*id, (leaf, kind)))
        })
        .collect();
    if leaves.is_empty() {
        return None;
    }
    let mut out = PagePruning::default();
    let mut used = false;
    for (rg, rows) in row_groups {
        let (Some(ci), Some(oi)) = (column_index.get(*rg), offset_index.get(*rg)) else {
            out.kept.push(rows.clone());
            continue;
        };
        let pages: HashMap<i32, ColumnPages<'_>> = leaves
            .iter()
            .filter_map(|(id, (leaf, kind))| {
                let index = ci.get(*leaf)?;
                let starts = page_starts(oi.get(*leaf)?);
                (index.num_pages_or_none()? == starts.len()).then_some((
                    *id,
                    ColumnPages {
                        kind,
                        index,
                        starts,
                    },
                ))
            })
            .collect();
        if pages.is_empty() {
            out.kept.push(rows.clone());
            continue;
        }
        used = true;
        let n = rows.end - rows.start;
        let kept_local = prune_row_group(predicate, &pages, n);
        let kept_rows: u64 = kept_local.iter().map(|r| r.end - r.start).sum();
        out.rows_skipped += n - kept_rows;
        for c in count_columns {
            if let Some(o) = oi.get(*c) {
                out.pages_skipped += skipped_pages(&page_starts(o), n, &kept_local);
            }
        }
        out.kept.extend(
            kept_local
                .into_iter()
                .map(|r| r.start + rows.start..r.end + rows.start),
        );
    }
    used.then_some(out)
}

fn page_starts(oi: &OffsetIndexMetaData) -> Vec<u64> {
    oi.page_locations()
        .iter()
        .map(|p| u64::try_from(p.first_row_index).unwrap_or_default())
        .collect()
}

/// The row-group-local ranges of `n` rows that may match, from the pages of `pages`.
fn prune_row_group(
    predicate: &BoundPredicate,
    pages: &HashMap<i32, ColumnPages<'_>>,
    n: u64,
) -> Vec<RowRange> {
    let mut bounds: Vec<u64> = pages.values().flat_map(|c| c.starts.clone()).collect();
    bounds.push(n);
    bounds.sort_unstable();
    bounds.dedup();
    let mut kept: Vec<RowRange> = Vec::new();
    for w in bounds.windows(2) {
        let (start, end) = (w[0], w[1]);
        if start >= n {
            break;
        }
        let segment = Segment {
            pages,
            start,
            end,
            n,
        };
        if matches!(eval_stats(predicate, &segment), Ok(Prune::CannotMatch)) {
            continue;
        }
        match kept.last_mut() {
            Some(last) if last.end == start => last.end = end,
            _ => kept.push(start..end),
        }
    }
    kept
}

/// Pages (first rows `starts`, `n` rows in all) that hold no row of `kept`.
fn skipped_pages(starts: &[u64], n: u64, kept: &[RowRange]) -> u64 {
    let mut skipped = 0;
    for (i, s) in starts.iter().enumerate() {
        let e = starts.get(i + 1).copied().unwrap_or(n);
        if !kept.iter().any(|k| k.start < e && *s < k.end) {
            skipped += 1;
        }
    }
    skipped
}

/// Statistics of the rows `start..end` of a row group of `n` rows: those of the one page of
/// each predicate column that holds them.
struct Segment<'a> {
    pages: &'a HashMap<i32, ColumnPages<'a>>,
    start: u64,
    end: u64,
    n: u64,
}

impl Segment<'_> {
    /// The column of `field_id`, the page holding this segment, and that page's row count.
    fn page(&self, field_id: i32) -> Option<(&ColumnPages<'_>, usize, u64)> {
        let c = self.pages.get(&field_id)?;
        let p = c
            .starts
            .partition_point(|s| *s <= self.start)
            .checked_sub(1)?;
        let page_end = c.starts.get(p + 1).copied().unwrap_or(self.n);
        let page_start = *c.starts.get(p)?;
        Some((c, p, page_end.saturating_sub(page_start)))
    }

    fn bound(&self, field_id: i32, want_max: bool) -> Option<Datum> {
        let (c, p, _) = self.page(field_id)?;
        page_bound(c.index, p, c.kind, want_max)
    }
}

impl StatsSource for Segment<'_> {
    fn row_count(&self) -> Option<i64> {
        i64::try_from(self.end - self.start).ok()
    }
    fn min(&self, field_id: i32) -> Option<Datum> {
        self.bound(field_id, false)
    }
    fn max(&self, field_id: i32) -> Option<Datum> {
        self.bound(field_id, true)
    }
    /// Exact only when the page has no null (0) or only nulls (the segment's rows); unknown
    /// otherwise, as the segment may be a part of the page.
    fn null_count(&self, field_id: i32) -> Option<i64> {
        let (c, p, page_rows) = self.page(field_id)?;
        let nulls = c.index.null_counts().and_then(|n| n.get(p).copied());
        let all_null = null_page(c.index, p) || nulls == i64::try_from(page_rows).ok();
        if all_null {
            return self.row_count();
        }
        (nulls == Some(0)).then_some(0)
    }
}

fn null_page(ci: &ColumnIndexMetaData, p: usize) -> bool {
    let page_count = ci.num_pages_or_none().unwrap_or(0);
    p < page_count && ci.is_null_page(p)
}

/// The min (or max) of page `p` of `ci` as a datum of `kind`; `None` when unknown.
fn page_bound(
    ci: &ColumnIndexMetaData,
    p: usize,
    kind: &TypeKind,
    want_max: bool,
) -> Option<Datum> {
    if p >= ci.num_pages_or_none()? || ci.is_null_page(p) {
        return None;
    }
    let pick = |min: Option<Datum>, max: Option<Datum>| if want_max { max } else { min };
    match ci {
        ColumnIndexMetaData::BOOLEAN(x) if matches!(kind, TypeKind::Boolean) => pick(
            x.min_value(p).map(|v| Datum::Boolean(*v)),
            x.max_value(p).map(|v| Datum::Boolean(*v)),
        ),
        ColumnIndexMetaData::INT32(x) => pick(
            x.min_value(p).and_then(|v| from_i32(*v, kind)),
            x.max_value(p).and_then(|v| from_i32(*v, kind)),
        ),
        ColumnIndexMetaData::INT64(x) => pick(
            x.min_value(p).and_then(|v| from_i64(*v, kind)),
            x.max_value(p).and_then(|v| from_i64(*v, kind)),
        ),
        ColumnIndexMetaData::FLOAT(x) => pick(
            x.min_value(p)
                .and_then(|v| from_f64(f64::from(*v), true, kind)),
            x.max_value(p)
                .and_then(|v| from_f64(f64::from(*v), true, kind)),
        ),
        ColumnIndexMetaData::DOUBLE(x) => pick(
            x.min_value(p).and_then(|v| from_f64(*v, false, kind)),
            x.max_value(p).and_then(|v| from_f64(*v, false, kind)),
        ),
        ColumnIndexMetaData::BYTE_ARRAY(x) | ColumnIndexMetaData::FIXED_LEN_BYTE_ARRAY(x) => pick(
            x.min_value(p).and_then(|v| from_bytes(v, kind)),
            x.max_value(p).and_then(|v| from_bytes(v, kind)),
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
