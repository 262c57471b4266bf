//! Read-time use of data-file indexes (Java `FileIndexEvaluator`, `DataFileRecordReader` with
//! `ApplyBitmapIndexRecordReader`; `shared/spec/file-index.md` §8.5): when a file is opened for a
//! raw read, its index (embedded bytes, else its one `*.index` extra file, in the data file's
//! directory) is evaluated against the whole predicate. "No row matches" skips the file; a
//! bitmap answer becomes a row selection (intersected with the split's row ranges and the
//! deletion vector by the caller). Every failure reads the file whole (fails open), with a
//! warning naming the file, and is counted.

use std::collections::BTreeSet;

use roaring::RoaringBitmap;

use super::metrics::ReadMetrics;
use crate::expr::BoundPredicate;
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
    let loaded = match load(io, &file).await {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return IndexSelection::All,
        Err(err) => {
            tracing::warn!(file = %file.location, error = %err, "file index unreadable; file read whole");
            metrics.add_file_index_fallback();
            return IndexSelection::All;
        }
    };
    metrics.add_file_index_file();
    let evaluated = FileIndexContainer::decode(&loaded)
        .and_then(|c| evaluate(&c, predicate, file.fields, file.meta.row_count))
        .and_then(|e| check_rows(e.result, file.meta.row_count).map(|r| (r, e.kinds)));
    match evaluated {
        Ok((FileIndexResult::Remain, _)) => IndexSelection::All,
        Ok((FileIndexResult::Skip, kinds)) => IndexSelection::Skip(kinds),
        Ok((FileIndexResult::Rows(b), kinds)) if b.is_empty() => IndexSelection::Skip(kinds),
        Ok((FileIndexResult::Rows(b), _))
            if Some(b.len()) == u64::try_from(file.meta.row_count).ok() =>
        {
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

/// The index bytes of `file`: embedded, else its single `*.index` extra file.
async fn load(io: &FileIO, file: &IndexedFile<'_>) -> Result<Option<Vec<u8>>> {
    if let Some(b) = &file.meta.embedded_index {
        return Ok(Some(b.clone()));
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
    Ok(Some(io.read(&path).await?.to_vec()))
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
