//! Read-time use of data-file indexes (Java `FileIndexEvaluator`, `DataFileRecordReader` with
//! `ApplyBitmapIndexRecordReader`; `shared/spec/file-index.md` §8.5): when a file is opened for a
//! raw read, its index (embedded bytes, else its one `*.index` extra file, in the data file's
//! directory; a large one read by ranges: head, then only the payloads of the columns the
//! predicate references) is evaluated against the whole predicate. "No row matches" skips the
//! file; a bitmap answer becomes a row selection (intersected with the split's row ranges and
//! the deletion vector by the caller). Every failure reads the file whole (fails open), with a
//! warning naming the file, and is counted.

use std::collections::BTreeSet;
use std::ops::Range;

use roaring::RoaringBitmap;

use super::metrics::ReadMetrics;
use crate::expr::BoundPredicate;
use crate::index::file_index::format::head_length;
use crate::index::file_index::{evaluate, FileIndexContainer, FileIndexResult, IndexKind};
use crate::io::FileIO;
use crate::spec::manifest::DataFileMeta;
use crate::spec::types::DataField;
use crate::{Error, Result};

/// What the index of one file selects.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum IndexSelection {
    /// Every row (no index, nothing known, or the index could not be used).
    All,
    /// No row; the kinds that answered.
    Skip(BTreeSet<IndexKind>),
    /// Only these positions (a strict, non-empty subset of the file's rows); the kinds that
    /// answered.
    Rows(RoaringBitmap, BTreeSet<IndexKind>),
}

/// One file to evaluate.
pub(crate) struct IndexedFile<'a> {
    /// The data file's location (its directory holds the `*.index` file).
    pub(crate) location: &'a str,
    /// Its manifest metadata.
    pub(crate) meta: &'a DataFileMeta,
    /// Its own schema's fields.
    pub(crate) fields: &'a [DataField],
}

/// Evaluates `predicate` against the index of `file`; counts the evaluation and any fallback.
pub(crate) async fn select_rows(
    io: &FileIO,
    file: IndexedFile<'_>,
    predicate: &BoundPredicate,
    metrics: &ReadMetrics,
) -> IndexSelection {
    let container = match load(io, &file, predicate).await {
        Ok(Some(c)) => c,
        Ok(None) => return IndexSelection::All,
        Err(err) => {
            tracing::warn!(file = %file.location, error = %err, "file index unreadable; file read whole");
            metrics.add_file_index_fallback();
            return IndexSelection::All;
        }
    };
    metrics.add_file_index_file();
    let rows = file.meta.row_count;
    let evaluated = evaluate(&container, predicate, file.fields, rows)
        .and_then(|e| check_rows(e.result, rows).map(|r| (r, e.kinds)));
    match evaluated {
        Ok((FileIndexResult::Remain, _)) => IndexSelection::All,
        Ok((FileIndexResult::Skip, kinds)) => IndexSelection::Skip(kinds),
        Ok((FileIndexResult::Rows(b), kinds)) if b.is_empty() => IndexSelection::Skip(kinds),
        Ok((FileIndexResult::Rows(b), _)) if Some(b.len()) == u64::try_from(rows).ok() => {
            IndexSelection::All
        }
        Ok((FileIndexResult::Rows(b), kinds)) => IndexSelection::Rows(b, kinds),
        Err(err) => {
            tracing::warn!(file = %file.location, error = %err, "file index undecodable; file read whole");
            metrics.add_file_index_fallback();
            IndexSelection::All
        }
    }
}

/// Bytes read first from an `*.index` file: small files come whole in one request, larger
/// ones give their head (usually) and then only the payloads the predicate needs.
const FIRST_READ: u64 = 4096;

/// The index of `file`: embedded, else its single `*.index` extra file, of which only the
/// payloads of columns `predicate` references are read.
async fn load<'a>(
    io: &FileIO,
    file: &IndexedFile<'a>,
    predicate: &BoundPredicate,
) -> Result<Option<FileIndexContainer<'a>>> {
    if let Some(b) = &file.meta.embedded_index {
        return FileIndexContainer::decode(b).map(Some);
    }
    let sidecars: Vec<&String> = file
        .meta
        .extra_files
        .iter()
        .filter(|n| n.ends_with(".index"))
        .collect();
    let name = match sidecars.as_slice() {
        [] => return Ok(None),
        [one] => one,
        _ => {
            return Err(
                Error::data_invalid("more than one file index in _EXTRA_FILES")
                    .with_context("file", file.location.to_string()),
            )
        }
    };
    let dir = file
        .location
        .rsplit_once('/')
        .map(|(d, _)| d)
        .ok_or_else(|| Error::data_invalid("data file location has no directory"))?;
    let path = format!("{dir}/{name}");
    let first = io.read_range_up_to(&path, 0..FIRST_READ).await?;
    let whole = (first.len() as u64) < FIRST_READ;
    let total = if whole { first.len() as u64 } else { u64::MAX };
    let head_len = head_length(&first).map_err(|e| e.with_context("file", path.clone()))?;
    let head = if head_len <= first.len() {
        first
    } else {
        io.read_range(&path, 0..head_len as u64).await?
    };
    let mut c = FileIndexContainer::decode_head(&head, total)
        .map_err(|e| e.with_context("file", path.clone()))?;
    let ranges = needed_ranges(&c, file.fields, predicate);
    let payloads = if whole {
        let slices: Option<Vec<_>> = ranges
            .iter()
            .map(|r| {
                head.get(r.start as usize..r.end as usize)
                    .map(<[u8]>::to_vec)
            })
            .collect();
        slices.ok_or_else(|| Error::internal("payload beyond a checked small index file"))?
    } else {
        let got = io.read_ranges(&path, &ranges).await?;
        got.into_iter().map(|b| b.to_vec()).collect()
    };
    for (r, bytes) in ranges.iter().zip(payloads) {
        if bytes.len() as u64 != r.end - r.start {
            return Err(Error::data_invalid("short read of a file index payload")
                .with_context("file", path.clone()));
        }
        c.add_payload(r.start as i32, bytes);
    }
    Ok(Some(c))
}

/// The byte ranges of the payloads of columns `predicate` references (by field id, named as in
/// the file's schema), of index types this reader knows.
fn needed_ranges(
    c: &FileIndexContainer<'_>,
    fields: &[DataField],
    predicate: &BoundPredicate,
) -> Vec<Range<u64>> {
    let ids = predicate.field_ids();
    let names: BTreeSet<&str> = fields
        .iter()
        .filter(|f| ids.contains(&f.id))
        .map(|f| f.name.as_str())
        .collect();
    let mut out: Vec<Range<u64>> = c
        .entries()
        .iter()
        .filter(|e| {
            names.contains(e.column.as_str()) && IndexKind::from_name(&e.index_type).is_some()
        })
        .filter_map(|e| {
            let start = u64::try_from(e.start).ok()?;
            Some(start..start + u64::try_from(e.length).ok()?)
        })
        .collect();
    out.sort_by_key(|r| r.start);
    out.dedup();
    out
}

/// Rejects a bitmap naming rows the file does not have (an index of another file), and files
/// whose positions do not fit 32 bits.
fn check_rows(result: FileIndexResult, row_count: i64) -> Result<FileIndexResult> {
    if row_count > i64::from(u32::MAX) {
        return Ok(FileIndexResult::Remain);
    }
    if let FileIndexResult::Rows(b) = &result {
        if b.max().is_some_and(|m| i64::from(m) >= row_count) {
            return Err(Error::data_invalid(format!(
                "file index selects row {:?} of a file of {row_count} rows",
                b.max()
            )));
        }
    }
    Ok(result)
}
