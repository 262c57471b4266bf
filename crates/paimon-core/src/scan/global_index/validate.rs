//! Payload validation of one (partition, bucket, index definition) against the snapshot's
//! active files (`docs/format.md` "Primary-key global index"; C++
//! `PkSortedBucketIndexState`, semantics (A) of the mission: at most one accepted payload per
//! data level, covering the intersection of its sources with the active files).
//!
//! Pure: no I/O. Java `org.apache.paimon.index.pksorted.PkSortedBucketIndexState` is stricter
//! (a payload must cover its whole level); narrowing a subset is still safe because the ordinal
//! namespace is always the payload's complete source list.

use std::collections::{BTreeMap, HashMap};

use roaring::RoaringTreemap;

use crate::index::btree::SortedIndexFileMeta;
use crate::index::source_meta::{SourceFile, SourceMeta};
use crate::spec::manifest::{FileKind, IndexManifestEntry};

/// `_FILE_SOURCE` of a compacted file (Java `org.apache.paimon.manifest.FileSource#COMPACT`).
const FILE_SOURCE_COMPACT: i8 = 1;

/// One active data file of a bucket, as validation sees it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ActiveFile<'a> {
    /// File name.
    pub name: &'a str,
    /// `_ROW_COUNT`.
    pub row_count: i64,
    /// `_LEVEL`.
    pub level: i32,
    /// `_FILE_SOURCE` (`None` disqualifies the file as a source).
    pub file_source: Option<i8>,
}

impl ActiveFile<'_> {
    /// Whether the file can be a payload source: compacted and above level 0 (Java
    /// `PrimaryKeyIndexSourcePolicy`).
    fn is_candidate(&self) -> bool {
        self.file_source == Some(FILE_SOURCE_COMPACT) && self.level > 0
    }
}

/// An accepted payload: its complete ordered source list (the group-ordinal namespace).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Group {
    /// Index of the payload in the slice given to [`validate_bucket`].
    pub payload: usize,
    /// The data level of the sources.
    pub level: i32,
    /// Sources in ordinal order.
    pub sources: Vec<SourceFile>,
    /// `prefix[i]` = rows of sources `0..i`; `prefix[len]` = N.
    pub prefix: Vec<u64>,
}

impl Group {
    /// Total rows N of the group.
    pub fn total(&self) -> u64 {
        self.prefix.last().copied().unwrap_or(0)
    }

    /// The physical positions in source `i` of the group ordinals in `result`, or `None` when
    /// `result` holds an ordinal outside `[0, N)` (then every covered file falls back).
    pub fn localize(&self, result: &RoaringTreemap, i: usize) -> Option<RoaringTreemap> {
        if result.max().is_some_and(|m| m >= self.total()) {
            return None;
        }
        let (lo, hi) = (*self.prefix.get(i)?, *self.prefix.get(i + 1)?);
        let mut window = RoaringTreemap::new();
        window.insert_range(lo..hi);
        let selected = &window & result;
        if lo == 0 {
            return Some(selected);
        }
        Some(selected.iter().map(|o| o - lo).collect())
    }
}

/// The outcome of validating the payloads of one bucket for one definition.
#[derive(Debug, Default)]
pub(crate) struct BucketIndexState {
    /// Accepted groups.
    pub groups: Vec<Group>,
    /// Covered active files: name → (group index, source index).
    pub covered: HashMap<String, (usize, usize)>,
    /// Rejected payloads (index into the payload slice) and why.
    pub rejected: Vec<(usize, &'static str)>,
}

/// Validates `payloads` (ADD entries of this bucket) for the definition `(index_type,
/// field_id)` against the bucket's `active` files.
pub(crate) fn validate_bucket(
    index_type: &str,
    field_id: i32,
    active: &[ActiveFile<'_>],
    payloads: &[&IndexManifestEntry],
) -> BucketIndexState {
    let mut by_level: BTreeMap<i32, HashMap<&str, i64>> = BTreeMap::new();
    for f in active.iter().filter(|f| f.is_candidate()) {
        by_level
            .entry(f.level)
            .or_default()
            .insert(f.name, f.row_count);
    }
    let mut state = BucketIndexState::default();
    let mut survivors: BTreeMap<i32, Vec<Group>> = BTreeMap::new();
    for (i, p) in payloads.iter().enumerate() {
        match check_payload(index_type, field_id, p, &by_level) {
            Ok((level, sources, prefix)) => survivors.entry(level).or_default().push(Group {
                payload: i,
                level,
                sources,
                prefix,
            }),
            Err(reason) => state.rejected.push((i, reason)),
        }
    }
    for (level, mut groups) in survivors {
        if groups.len() > 1 {
            let reason = "another payload at the same level";
            state
                .rejected
                .extend(groups.iter().map(|g| (g.payload, reason)));
            continue;
        }
        let Some(group) = groups.pop() else { continue };
        let gi = state.groups.len();
        let actives = by_level.get(&level);
        for (si, s) in group.sources.iter().enumerate() {
            if actives.is_some_and(|a| a.contains_key(s.file_name.as_str())) {
                state.covered.insert(s.file_name.clone(), (gi, si));
            }
        }
        state.groups.push(group);
    }
    state.rejected.sort_by_key(|(i, _)| *i);
    state
}

type Checked = (i32, Vec<SourceFile>, Vec<u64>);

/// The per-payload checks (`docs/format.md` "Primary-key global index").
fn check_payload(
    index_type: &str,
    field_id: i32,
    p: &IndexManifestEntry,
    by_level: &BTreeMap<i32, HashMap<&str, i64>>,
) -> Result<Checked, &'static str> {
    if p.kind != FileKind::Add {
        return Err("not an ADD entry");
    }
    if p.index_type != index_type {
        return Err("wrong index type");
    }
    let meta = p.global_index.as_ref().ok_or("no GlobalIndexMeta")?;
    if meta.index_field_id != field_id {
        return Err("wrong field id");
    }
    let bytes = meta.source_meta.as_deref().ok_or("no _SOURCE_META")?;
    let source = SourceMeta::decode(bytes, &p.file_name).map_err(|_| "corrupt _SOURCE_META")?;
    let level = source.data_level();
    let actives = by_level
        .get(&level)
        .ok_or("no active source at its level")?;
    let sources = source.files();
    if sources.windows(2).any(|w| w[0].file_name >= w[1].file_name) {
        return Err("sources not strictly ascending");
    }
    let mut any_active = false;
    for s in sources {
        if let Some(rows) = actives.get(s.file_name.as_str()) {
            if *rows != s.row_count {
                return Err("source row count mismatch");
            }
            any_active = true;
        }
    }
    if !any_active {
        return Err("every source retired");
    }
    let mut prefix = Vec::with_capacity(sources.len() + 1);
    let mut total: u64 = 0;
    prefix.push(0);
    for s in sources {
        let rows = u64::try_from(s.row_count).map_err(|_| "negative row count")?;
        total = total.checked_add(rows).ok_or("row count overflow")?;
        prefix.push(total);
    }
    let n = i64::try_from(total).map_err(|_| "row count overflow")?;
    if n == 0 || meta.row_range_start != 0 || meta.row_range_end != n - 1 {
        return Err("invalid row range");
    }
    if p.row_count != n {
        return Err("row count differs from sources");
    }
    if index_type == "btree" {
        let m = meta.index_meta.as_deref().ok_or("no _INDEX_META")?;
        SortedIndexFileMeta::decode(m).map_err(|_| "invalid _INDEX_META")?;
    }
    Ok((level, sources.to_vec(), prefix))
}

#[cfg(test)]
#[path = "validate_tests.rs"]
pub(crate) mod tests;
