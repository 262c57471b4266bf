//! Per-file index results → splits (Java
//! `org.apache.paimon.table.source.PrimaryKeySortedIndexResult`, `docs/format.md`
//! "Primary-key global index"). Pure.

use roaring::RoaringTreemap;

use crate::scan::metrics::GlobalIndexMetrics;
use crate::scan::plan::{DataSplit, RowRanges, Split};

/// At most this many row ranges per narrowed file (`MAX_INDEXED_RANGES_PER_FILE`).
pub(crate) const MAX_INDEXED_RANGES_PER_FILE: usize = 4096;

/// The evaluation of one data file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FileResult {
    /// No accepted payload covers the file.
    Uncovered,
    /// The predicate has no evaluable part for this file.
    NotEvaluable,
    /// Evaluation failed (reader, query or localization error).
    Failed,
    /// File-local positions of the rows that may match.
    Positions(RoaringTreemap),
}

impl FileResult {
    fn fallback_reason(&self) -> &'static str {
        match self {
            FileResult::Uncovered => "uncovered",
            FileResult::NotEvaluable => "not evaluable",
            FileResult::Failed => "evaluation failed",
            FileResult::Positions(_) => "positions",
        }
    }
}

/// Appends the splits for `split` given one result per file (same order): the original split
/// when no file has positions; otherwise one split per file: narrowed to its row ranges,
/// dropped when empty, or read whole (a single-file fallback) when it has no positions, a
/// position past its row count, or more than [`MAX_INDEXED_RANGES_PER_FILE`] ranges.
pub(crate) fn push_splits(
    split: DataSplit,
    results: Vec<FileResult>,
    m: &mut GlobalIndexMetrics,
    out: &mut Vec<Split>,
) {
    if !results
        .iter()
        .any(|r| matches!(r, FileResult::Positions(_)))
    {
        out.push(Split::Data(split));
        return;
    }
    for (i, result) in results.into_iter().enumerate() {
        let Some(file) = split.files.get(i) else {
            continue;
        };
        let rows = u64::try_from(file.row_count).unwrap_or(0);
        let (ranges, reason) = match &result {
            FileResult::Positions(p) if p.is_empty() => {
                m.files_dropped += 1;
                continue;
            }
            FileResult::Positions(p) => match to_ranges(p, rows) {
                Ok(r) => (Some(r), ""),
                Err(why) => (None, why),
            },
            other => (None, other.fallback_reason()),
        };
        match ranges {
            Some(r) => {
                m.files_narrowed += 1;
                m.indexed_splits += 1;
                m.rows_selected += r.iter().map(|r| r.end - r.start).sum::<u64>();
                out.push(Split::Data(single_file(&split, i, Some(r))));
            }
            None => {
                *m.files_fallen_back.entry(reason.to_string()).or_default() += 1;
                out.push(Split::Data(single_file(&split, i, None)));
            }
        }
    }
}

/// Maximal runs of consecutive positions, or why not.
pub(crate) fn to_ranges(p: &RoaringTreemap, rows: u64) -> Result<RowRanges, &'static str> {
    if p.max().is_some_and(|m| m >= rows || m >= i32::MAX as u64) {
        return Err("positions out of range");
    }
    let mut out: RowRanges = Vec::new();
    for pos in p.iter() {
        match out.last_mut() {
            Some(last) if last.end == pos => last.end = pos + 1,
            _ => {
                if out.len() == MAX_INDEXED_RANGES_PER_FILE {
                    return Err("too many ranges");
                }
                out.push(pos..pos + 1);
            }
        }
    }
    Ok(out)
}

/// File `i` of `split` alone, with its deletion file. Read raw: the source split was
/// raw-convertible and every file records a zero delete count (Java marks the inner split of
/// an `IndexedSplit` not raw-convertible but routes it to the raw reader anyway).
fn single_file(split: &DataSplit, i: usize, ranges: Option<RowRanges>) -> DataSplit {
    DataSplit {
        snapshot_id: split.snapshot_id,
        partition: split.partition.clone(),
        partition_values: split.partition_values.clone(),
        bucket: split.bucket,
        total_buckets: split.total_buckets,
        bucket_path: split.bucket_path.clone(),
        files: split.files.get(i).cloned().into_iter().collect(),
        deletion_files: split.deletion_files.get(i).cloned().into_iter().collect(),
        raw_convertible: true,
        row_ranges: ranges.map(|r| vec![Some(r)]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_caps() {
        let p: RoaringTreemap = [0u64, 1, 2, 5, 7, 8].into_iter().collect();
        assert_eq!(to_ranges(&p, 9).unwrap(), vec![0..3, 5..6, 7..9]);
        assert_eq!(to_ranges(&p, 8), Err("positions out of range"));
        let even: RoaringTreemap = (0..20_000u64).step_by(2).collect();
        assert_eq!(to_ranges(&even, 20_000), Err("too many ranges"));
        let ok: RoaringTreemap = (0..8192u64).step_by(2).collect();
        assert_eq!(to_ranges(&ok, 20_000).unwrap().len(), 4096);
        let over: RoaringTreemap = (0..8194u64).step_by(2).collect();
        assert_eq!(to_ranges(&over, 20_000), Err("too many ranges"));
    }
}
