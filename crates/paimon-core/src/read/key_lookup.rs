//! The key pass of a Parquet read of a primary-key file: the leading key column is decoded
//! alone for the rows page pruning kept, searched ([`super::key_search`]), and the runs found
//! become the row selection of the full read. The key column's pages are fetched once: the
//! pass keeps what it fetched for the full read ([`FileIoParquetReader::keep_fetched`]).
//!
//! Applies to a selective read with a sorted key
//! ([`super::file_reader::SelectiveRead::sorted_key`]) whose predicate bounds that column on
//! both sides, when more rows than one batch (the read's batch size) are left to search: below
//! that, a second pass saves nothing. Fails open: a key pass that cannot decode, or values that are not sorted, leave
//! the selection unchanged (counted as a fallback). The search relies on primary-key files
//! being sorted by key as far as it does not decode them (see [`key_pages`]).

mod key_pages;

use arrow_array::ArrayRef;
use futures::TryStreamExt;
use parquet::arrow::arrow_reader::ArrowReaderMetadata;
use parquet::arrow::{ParquetRecordBatchStreamBuilder, ProjectionMask};

use self::key_pages::KeyPages;
use super::dictionary_skip::without_unused_dictionaries;
use super::evolution::ReadMapping;
use super::file_reader::DataFileRead;
use super::key_search::{key_intervals, search, searchable, KeyInterval, KeySearch};
use super::parquet::{leaf_columns, row_selection, FileIoParquetReader};
use super::selection::intersect;
use crate::spec::row_range::RowRange;
use crate::spec::types::DataField;

/// Rows per batch of the key pass.
const KEY_BATCH: usize = 64 * 1024;

/// One file's read as the key pass sees it.
pub(crate) struct KeyPass<'a> {
    /// A reader of the file (cloned for the pass).
    pub(crate) reader: &'a FileIoParquetReader,
    /// The file's metadata, page index included when loaded.
    pub(crate) meta: &'a ArrowReaderMetadata,
    /// The read.
    pub(crate) read: &'a DataFileRead,
    /// The file's top-level column names.
    pub(crate) physical: &'a [&'a str],
    /// The row groups to decode with their file-global rows.
    pub(crate) groups: &'a [(usize, RowRange)],
    /// The rows selected in them (`None`: all).
    pub(crate) ranges: Option<&'a [RowRange]>,
}

/// The rows of the file whose leading key may match the predicate (sorted, disjoint,
/// file-global), or `None` when the search does not apply or falls back.
pub(crate) async fn narrow(pass: KeyPass<'_>) -> Option<Vec<RowRange>> {
    let s = pass.read.selective.as_ref()?;
    let key = s.sorted_key.as_ref()?;
    if !searchable(&key.data_type.kind) {
        return None;
    }
    let intervals = key_intervals(&s.predicate, key.id)?;
    let kept_rows: Vec<RowRange> = pass.groups.iter().map(|g| g.1.clone()).collect();
    let positions = match pass.ranges {
        Some(r) => intersect(&kept_rows, r),
        None => kept_rows.clone(),
    };
    let candidates: u64 = positions.iter().map(|r| r.end - r.start).sum();
    if candidates <= pass.read.batch_size as u64 {
        return None;
    }
    let direct = match key_leaf(&pass, key) {
        Some(leaf) => key_pages::search(&pass, key, leaf, &positions, &intervals).await,
        None => None,
    };
    let found = match direct {
        Some(KeyPages::Found(rows)) => Some(intersect(&positions, &rows)),
        Some(KeyPages::Unsorted) => None,
        None => match decode_keys(&pass, key, &kept_rows, candidates).await {
            Some(keys) => search_keys(&keys, key, &intervals, &positions),
            None => None,
        },
    };
    let Some(rows) = found else {
        s.metrics.add_key_search_fallback();
        return None;
    };
    let left: u64 = rows.iter().map(|r| r.end - r.start).sum();
    s.metrics.add_key_search(candidates.saturating_sub(left));
    Some(rows)
}

/// The key column's one leaf in the file.
fn key_leaf(pass: &KeyPass<'_>, key: &DataField) -> Option<usize> {
    let mapping = ReadMapping::new(
        std::slice::from_ref(key),
        &pass.read.file_fields,
        pass.physical,
    )
    .ok()?;
    match leaf_columns(pass.meta.metadata(), mapping.roots()).as_slice() {
        [leaf] => Some(*leaf),
        _ => None,
    }
}

fn search_keys(
    keys: &ArrayRef,
    key: &DataField,
    intervals: &[KeyInterval],
    positions: &[RowRange],
) -> Option<Vec<RowRange>> {
    match search(keys.as_ref(), &key.data_type, intervals) {
        KeySearch::Found(idx) => Some(to_positions(positions, &idx)),
        KeySearch::Unsorted => None,
    }
}

/// The leading key column for the candidate rows, in file order, as the current type; `None`
/// when it cannot be decoded (the full read reports real errors).
async fn decode_keys(
    pass: &KeyPass<'_>,
    key: &DataField,
    kept_rows: &[RowRange],
    candidates: u64,
) -> Option<ArrayRef> {
    let mapping = ReadMapping::new(
        std::slice::from_ref(key),
        &pass.read.file_fields,
        pass.physical,
    )
    .ok()?;
    if mapping.roots().len() != 1 {
        return None;
    }
    let mask = ProjectionMask::roots(pass.meta.parquet_schema(), mapping.roots().iter().copied());
    let batch = usize::try_from(candidates).map_or(KEY_BATCH, |n| n.min(KEY_BATCH));
    // The key's dictionary is left unread when the candidate pages do not use it.
    let meta = match pass.ranges {
        Some(r) => {
            let leaves = leaf_columns(pass.meta.metadata(), mapping.roots());
            without_unused_dictionaries(pass.meta, pass.reader, pass.groups, r, &leaves).await
        }
        None => None,
    };
    let mut builder = ParquetRecordBatchStreamBuilder::new_with_metadata(
        pass.reader.clone().keep_fetched(),
        meta.unwrap_or_else(|| pass.meta.clone()),
    )
    .with_projection(mask)
    .with_batch_size(batch)
    .with_row_groups(pass.groups.iter().map(|g| g.0).collect());
    if let Some(r) = pass.ranges {
        builder = builder.with_row_selection(row_selection(kept_rows, r));
    }
    let batches: Vec<_> = builder.build().ok()?.try_collect().await.ok()?;
    let columns: Vec<ArrayRef> = batches
        .iter()
        .map(|b| Some(mapping.project(b).ok()?.column(0).clone()))
        .collect::<Option<_>>()?;
    let refs: Vec<&dyn arrow_array::Array> = columns.iter().map(|c| c.as_ref()).collect();
    let keys = arrow_select::concat::concat(&refs).ok()?;
    (keys.len() as u64 == candidates).then_some(keys)
}

/// File positions of the index ranges `idx` (sorted, disjoint) into the rows `positions`
/// (sorted, disjoint file ranges, enumerated in order).
fn to_positions(positions: &[RowRange], idx: &[std::ops::Range<usize>]) -> Vec<RowRange> {
    let mut out: Vec<RowRange> = Vec::new();
    let (mut j, mut base) = (0usize, 0u64);
    for r in idx {
        let (mut s, e) = (r.start as u64, r.end as u64);
        while s < e {
            let Some(p) = positions.get(j) else {
                return out;
            };
            let len = p.end - p.start;
            if base + len <= s {
                base += len;
                j += 1;
                continue;
            }
            let off = s - base;
            let take = (e - s).min(len - off);
            let (from, to) = (p.start + off, p.start + off + take);
            match out.last_mut() {
                Some(last) if last.end == from => last.end = to,
                _ => out.push(from..to),
            }
            s += take;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::single_range_in_vec_init)]
    use super::to_positions;

    #[test]
    fn index_ranges_map_to_file_positions() {
        let positions = [0..4, 10..12, 20..30];
        assert_eq!(to_positions(&positions, &[0..2]), vec![0..2]);
        assert_eq!(to_positions(&positions, &[3..5]), vec![3..4, 10..11]);
        assert_eq!(
            to_positions(&positions, &[4..6, 7..9]),
            vec![10..12, 21..23]
        );
        assert_eq!(to_positions(&positions, &[15..16]), vec![29..30]);
        assert_eq!(
            to_positions(&positions, &[16..20]),
            Vec::<std::ops::Range<u64>>::new()
        );
        assert_eq!(to_positions(&[0..4, 4..8], &[2..6]), vec![2..6]);
    }
}
