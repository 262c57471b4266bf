//! The primary-key global index step of batch planning (Java
//! `org.apache.paimon.table.source.PrimaryKeyBatchScan`, `PrimaryKeySortedIndexScan`;
//! `docs/format.md` "Primary-key global index").
//!
//! After the ordinary plan is made: validate the snapshot's source-backed payloads per
//! (partition, bucket, definition) ([`validate`]), project the predicate onto indexed fields
//! ([`predicate`]), read the payloads the plan needs (one reader and one query cache per
//! payload group, payloads of all buckets fetched concurrently), evaluate every file of every
//! eligible split, and narrow files to row ranges ([`result`]). Everything fails open: an
//! error in the index path reads the file normally, with a warning naming the file.

mod evaluate;
mod payload;
mod predicate;
mod result;
mod sparse;
mod validate;

#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use futures::{stream, StreamExt};
use roaring::RoaringTreemap;

use self::evaluate::{Coverage, Evaluator};
use self::payload::{BTreeGroupReader, BitmapGroupReader, GroupReader};
use self::predicate::{project, IndexPredicate};
use self::validate::{validate_bucket, ActiveFile, Group};
use crate::expr::LeafOp;
use crate::index::bitmap_global::BitmapGlobalIndexReader;
use crate::index::btree::{BTreeIndexReader, KeyType};
use crate::io::FileIO;
use crate::scan::context::ScanContext;
use crate::scan::metrics::GlobalIndexMetrics;
use crate::scan::plan::Split;
use crate::spec::manifest::{FileKind, IndexManifestEntry};
use crate::spec::options::{PkIndexDefinition, PkIndexFamily};
use crate::spec::types::DataType;

/// A candidate payload: its manifest entry and resolved path.
pub(crate) type Payload<'a> = (&'a IndexManifestEntry, String);

/// Whether `e` is a source-backed global-index payload (ADD, `GlobalIndexMeta` with
/// `_SOURCE_META`); data-evolution indexes have no source metadata and are ignored.
pub(crate) fn is_source_backed(e: &IndexManifestEntry) -> bool {
    e.kind == FileKind::Add
        && e.global_index
            .as_ref()
            .is_some_and(|g| g.source_meta.is_some())
}

/// An accepted group and what it needs to be opened.
pub(crate) struct GroupInfo {
    group: Group,
    field_id: i32,
    payload: usize,
    family: PkIndexFamily,
    data_type: DataType,
}

/// Narrows `splits` with the payloads of the plan's snapshot; returns the new splits.
pub(crate) async fn narrow(
    ctx: &ScanContext,
    splits: Vec<Split>,
    payloads: &[Payload<'_>],
    m: &mut GlobalIndexMetrics,
) -> Vec<Split> {
    let Some((defs, pred)) = setup(ctx, m) else {
        return splits;
    };
    let (groups, coverage) = plan_groups(&defs, &splits, payloads, m);
    let mut fields = HashSet::new();
    pred.field_ids(&mut fields);
    let needed = needed_groups(&splits, &coverage, &fields);
    let readers = open_readers(ctx.table.file_io(), &groups, payloads, &needed, &pred, m).await;
    let planned = Planned {
        pred: &pred,
        groups: &groups,
        coverage: &coverage,
        payloads,
    };
    planned.apply(splits, &readers, m)
}

/// Validated groups and the projected predicate, ready to evaluate.
pub(crate) struct Planned<'a> {
    pred: &'a IndexPredicate,
    groups: &'a [GroupInfo],
    coverage: &'a Coverage,
    payloads: &'a [Payload<'a>],
}

impl Planned<'_> {
    /// Evaluates every file of every eligible split with `readers` (by group) and narrows.
    fn apply(
        &self,
        splits: Vec<Split>,
        readers: &HashMap<usize, Arc<dyn GroupReader>>,
        m: &mut GlobalIndexMetrics,
    ) -> Vec<Split> {
        let mut ev = Evaluator::new(
            self.pred,
            self.groups,
            self.coverage,
            readers,
            self.payloads,
        );
        let mut out = Vec::with_capacity(splits.len());
        for s in splits {
            let Split::Data(d) = s;
            if !evaluate::eligible(&d) {
                m.splits_unchanged += 1;
                out.push(Split::Data(d));
                continue;
            }
            let results = ev.file_results(&d);
            result::push_splits(d, results, m, &mut out);
        }
        out
    }
}

/// The definitions and the projected predicate, or `None` (with `m.skipped` set) when the step
/// does not apply.
fn setup(
    ctx: &ScanContext,
    m: &mut GlobalIndexMetrics,
) -> Option<(Vec<PkIndexDefinition>, IndexPredicate)> {
    let table = &ctx.table;
    let o = table.options();
    let skip = |m: &mut GlobalIndexMetrics, why: &str| {
        m.skipped = why.to_string();
        None
    };
    if !o.global_index_enabled {
        return skip(m, "disabled");
    }
    let defs = match o.pk_index_definitions(table.schema()) {
        Ok(d) if d.is_empty() => return skip(m, "no index definitions"),
        Ok(d) => d,
        Err(e) => {
            tracing::warn!(table = table.location(), error = %e, "global index: invalid index definitions, scanning normally");
            return skip(m, "invalid index definitions");
        }
    };
    if let Some(why) = o.pk_index_unsupported_reason(table.schema()) {
        return skip(m, why);
    }
    let indexed: HashSet<i32> = defs.iter().map(|d| d.field_id).collect();
    match ctx.predicate.as_ref().and_then(|p| project(p, &indexed)) {
        Some(pred) => Some((defs, pred)),
        None => skip(m, "no indexed predicate"),
    }
}

type BucketKey = (Vec<u8>, i32);

/// Validates the payloads of every (partition, bucket, definition) against the active files of
/// the plan.
fn plan_groups(
    defs: &[PkIndexDefinition],
    splits: &[Split],
    payloads: &[Payload<'_>],
    m: &mut GlobalIndexMetrics,
) -> (Vec<GroupInfo>, Coverage) {
    let mut active: HashMap<BucketKey, Vec<ActiveFile<'_>>> = HashMap::new();
    for s in splits {
        let d = s.as_data();
        let files = active.entry((d.partition.clone(), d.bucket)).or_default();
        files.extend(d.files.iter().map(|f| ActiveFile {
            name: &f.file_name,
            row_count: f.row_count,
            level: f.level,
            file_source: f.file_source,
        }));
    }
    let mut by_bucket: HashMap<BucketKey, Vec<usize>> = HashMap::new();
    for (i, (e, _)) in payloads.iter().enumerate() {
        by_bucket
            .entry((e.partition.clone(), e.bucket))
            .or_default()
            .push(i);
    }
    let mut groups = Vec::new();
    let mut coverage = Coverage::default();
    for (key, files) in &active {
        let Some(idx) = by_bucket.get(key) else {
            continue;
        };
        for def in defs {
            let mine: Vec<usize> = idx
                .iter()
                .copied()
                .filter(|i| {
                    payloads[*i]
                        .0
                        .global_index
                        .as_ref()
                        .is_some_and(|g| g.index_field_id == def.field_id)
                })
                .collect();
            if mine.is_empty() {
                continue;
            }
            let entries: Vec<&IndexManifestEntry> = mine.iter().map(|i| payloads[*i].0).collect();
            let state = validate_bucket(def.index_type(), def.field_id, files, &entries);
            for (p, why) in &state.rejected {
                tracing::warn!(payload = %payloads[mine[*p]].1, reason = why, "global index: payload rejected");
                *m.payloads_rejected.entry(why.to_string()).or_default() += 1;
            }
            m.payloads_accepted += state.groups.len() as u64;
            let base = groups.len();
            for (name, (g, src)) in state.covered {
                coverage.insert(key.clone(), name, def.field_id, (base + g, src));
            }
            groups.extend(state.groups.into_iter().map(|g| GroupInfo {
                payload: mine[g.payload],
                field_id: def.field_id,
                group: g,
                family: def.family,
                data_type: def.data_type.clone(),
            }));
        }
    }
    (groups, coverage)
}

/// Groups covering a file of an eligible split on a field of the predicate.
fn needed_groups(splits: &[Split], coverage: &Coverage, fields: &HashSet<i32>) -> Vec<usize> {
    let mut out = HashSet::new();
    for s in splits {
        let d = s.as_data();
        if !evaluate::eligible(d) {
            continue;
        }
        for f in &d.files {
            for (field, (g, _)) in coverage.of(&d.partition, d.bucket, &f.file_name) {
                if fields.contains(field) {
                    out.insert(*g);
                }
            }
        }
    }
    let mut v: Vec<usize> = out.into_iter().collect();
    v.sort_unstable();
    v
}

/// Answers of the `needed` groups to the leaves of `pred` on their field, each payload loaded
/// lazily (BTree: its tail, then the blocks the queries touch; bitmap: the whole file; payloads
/// of all buckets concurrently). A group without an entry failed to open: its files fall back.
async fn open_readers(
    io: &FileIO,
    groups: &[GroupInfo],
    payloads: &[Payload<'_>],
    needed: &[usize],
    pred: &IndexPredicate,
    m: &mut GlobalIndexMetrics,
) -> HashMap<usize, Arc<dyn GroupReader>> {
    // Collected before awaiting: a lazy `Map` over `needed` held across the await made this
    // future's `Send` depend on a higher-ranked closure bound the compiler cannot prove, so
    // `TableScan::plan()` was not `Send` (engines need it to be; `scan::send_tests`).
    let jobs: Vec<_> = needed
        .iter()
        .map(|g| {
            let info = &groups[*g];
            let (entry, path) = &payloads[info.payload];
            let mut ops = Vec::new();
            pred.leaves_of(info.field_id, &mut ops);
            async move {
                let len = u64::try_from(entry.file_size).unwrap_or(0);
                let answers: crate::Result<Arc<dyn GroupReader>> = match info.family {
                    PkIndexFamily::BTree => answer(io, path, len, &info.data_type, &ops)
                        .await
                        .map(|r| Arc::new(r) as Arc<dyn GroupReader>),
                    PkIndexFamily::Bitmap => open_bitmap(io, path, &info.data_type)
                        .await
                        .map(|r| Arc::new(r) as Arc<dyn GroupReader>),
                };
                (*g, path, answers)
            }
        })
        .collect();
    let opened: Vec<_> = stream::iter(jobs).buffer_unordered(16).collect().await;
    let mut out: HashMap<usize, Arc<dyn GroupReader>> = HashMap::new();
    for (g, path, r) in opened {
        match r {
            Ok(r) => {
                m.payloads_opened += 1;
                out.insert(g, r);
            }
            Err(e) => {
                m.payloads_failed += 1;
                tracing::warn!(payload = %path, error = %e, "global index: cannot open payload, its files are read normally");
            }
        }
    }
    out
}

/// Reads the bitmap payload at `path` whole (its dictionary is scanned by range queries).
async fn open_bitmap(
    io: &FileIO,
    path: &str,
    data_type: &DataType,
) -> crate::Result<BitmapGroupReader> {
    let key_type = KeyType::from_data_type(data_type)?;
    let bytes = io.read(path).await?;
    let reader = BitmapGlobalIndexReader::from_bytes(path, bytes, key_type)?;
    Ok(BitmapGroupReader::new(reader, data_type.clone()))
}

/// Opens the payload at `path` and answers `ops`.
async fn answer(
    io: &FileIO,
    path: &str,
    len: u64,
    data_type: &DataType,
    ops: &[LeafOp],
) -> crate::Result<Precomputed> {
    let key_type = KeyType::from_data_type(data_type)?;
    let mut source = None;
    let reader = sparse::run_loaded(io, path, len, &mut source, |src| {
        BTreeIndexReader::open(path, src, key_type, None)
    })
    .await?;
    let reader = BTreeGroupReader::new(reader, data_type.clone());
    let mut answers = HashMap::new();
    for op in ops {
        let r = sparse::run_loaded(io, path, len, &mut source, |_| reader.query(op).transpose())
            .await
            .map(|o| o.map(Arc::new))
            .map_err(|e| e.to_string());
        answers.insert(format!("{op:?}"), r.transpose());
    }
    Ok(Precomputed(answers))
}

/// Leaf answers computed while loading a payload, keyed like the evaluator's query cache.
struct Precomputed(HashMap<String, Option<Result<Arc<RoaringTreemap>, String>>>);

impl GroupReader for Precomputed {
    fn query(&self, op: &LeafOp) -> Option<crate::Result<RoaringTreemap>> {
        match self.0.get(&format!("{op:?}"))? {
            None => None,
            Some(Ok(r)) => Some(Ok((**r).clone())),
            Some(Err(e)) => Some(Err(crate::Error::data_invalid(e.clone()))),
        }
    }
}
