//! Per-file evaluation with one query cache per payload group: an equal query runs once even
//! when its group covers several files (C++ `GroupAndQueryAreSharedAcrossSourceFiles`).
//! Pure given the opened readers.

use std::collections::HashMap;
use std::sync::Arc;

use roaring::RoaringTreemap;

use super::payload::GroupReader;
use super::predicate::{evaluate, IndexPredicate, LeafSource};
use super::result::FileResult;
use super::{GroupInfo, Payload};
use crate::expr::LeafOp;
use crate::scan::plan::DataSplit;

/// Whether a split may be narrowed: raw-convertible, and every file records a delete count of
/// zero (C++ `UnknownDeleteCountPreservesOriginalSplit`, `NonzeroDeleteCountPreservesOriginalSplit`).
pub(crate) fn eligible(d: &DataSplit) -> bool {
    d.raw_convertible && d.files.iter().all(|f| f.delete_row_count == Some(0))
}

type FileKey = (Vec<u8>, i32, String);

/// Covered files: (partition, bucket, file) → field id → (group, source index).
#[derive(Debug, Default)]
pub(crate) struct Coverage(HashMap<FileKey, HashMap<i32, (usize, usize)>>);

impl Coverage {
    /// Records that `group` covers `file` (its source `source`) for `field_id`.
    pub fn insert(&mut self, key: (Vec<u8>, i32), file: String, field_id: i32, at: (usize, usize)) {
        self.0
            .entry((key.0, key.1, file))
            .or_default()
            .insert(field_id, at);
    }

    /// The groups covering one file, by field id.
    pub fn of(&self, partition: &[u8], bucket: i32, file: &str) -> Vec<(&i32, &(usize, usize))> {
        self.0
            .get(&(partition.to_vec(), bucket, file.to_string()))
            .map(|m| m.iter().collect())
            .unwrap_or_default()
    }

    fn get(
        &self,
        partition: &[u8],
        bucket: i32,
        file: &str,
    ) -> Option<&HashMap<i32, (usize, usize)>> {
        self.0.get(&(partition.to_vec(), bucket, file.to_string()))
    }
}

/// Cached group-level answer of one query: ordinals, not evaluable, or failed.
type Cached = Option<Result<Arc<RoaringTreemap>, String>>;

/// Evaluates files, sharing readers and query results across the files of a group.
pub(crate) struct Evaluator<'a> {
    pred: &'a IndexPredicate,
    groups: &'a [GroupInfo],
    coverage: &'a Coverage,
    readers: &'a HashMap<usize, Arc<dyn GroupReader>>,
    payloads: &'a [Payload<'a>],
    cache: HashMap<(usize, String), Cached>,
}

impl<'a> Evaluator<'a> {
    /// An evaluator of `pred`.
    pub fn new(
        pred: &'a IndexPredicate,
        groups: &'a [GroupInfo],
        coverage: &'a Coverage,
        readers: &'a HashMap<usize, Arc<dyn GroupReader>>,
        payloads: &'a [Payload<'a>],
    ) -> Self {
        Evaluator {
            pred,
            groups,
            coverage,
            readers,
            payloads,
            cache: HashMap::new(),
        }
    }

    /// One result per file of `d`.
    pub fn file_results(&mut self, d: &DataSplit) -> Vec<FileResult> {
        let pred = self.pred;
        d.files
            .iter()
            .map(|f| {
                let Some(cover) = self.coverage.get(&d.partition, d.bucket, &f.file_name) else {
                    return FileResult::Uncovered;
                };
                let mut src = FileSource {
                    ev: self,
                    cover,
                };
                match evaluate(pred, &mut src) {
                    Ok(Some(p)) => FileResult::Positions(p),
                    Ok(None) => FileResult::NotEvaluable,
                    Err(e) => {
                        tracing::warn!(file = %d.file_location(f), error = %e, "global index: evaluation failed, reading the file normally");
                        FileResult::Failed
                    }
                }
            })
            .collect()
    }

    fn group_query(&mut self, g: usize, op: &LeafOp) -> Cached {
        let key = (g, format!("{op:?}"));
        if let Some(hit) = self.cache.get(&key) {
            return hit.clone();
        }
        let answer = self.readers.get(&g).and_then(|r| r.query(op)).map(|r| {
            r.map(Arc::new).map_err(|e| {
                let payload = self
                    .groups
                    .get(g)
                    .and_then(|i| self.payloads.get(i.payload))
                    .map_or("", |p| p.1.as_str());
                format!("payload {payload}: {e}")
            })
        });
        self.cache.insert(key, answer.clone());
        answer
    }
}

struct FileSource<'e, 'a> {
    ev: &'e mut Evaluator<'a>,
    cover: &'a HashMap<i32, (usize, usize)>,
}

impl LeafSource for FileSource<'_, '_> {
    fn leaf(&mut self, field_id: i32, op: &LeafOp) -> Option<Result<RoaringTreemap, String>> {
        let (g, source) = *self.cover.get(&field_id)?;
        let ordinals = match self.ev.group_query(g, op)? {
            Ok(o) => o,
            Err(e) => return Some(Err(e)),
        };
        let group = &self.ev.groups.get(g)?.group;
        Some(
            group
                .localize(&ordinals, source)
                .ok_or_else(|| format!("group ordinals beyond the {} source rows", group.total())),
        )
    }
}
