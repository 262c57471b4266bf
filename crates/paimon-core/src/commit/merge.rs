//! Manifest merging for the new base list, as Java's
//! `org.apache.paimon.operation.ManifestFileMerger#merge` does over the previous snapshot's
//! base ++ delta manifests:
//! - **full compaction** when the manifests that must change (with DELETE entries, or smaller
//!   than `manifest.target-file-size`) reach `manifest.full-compaction-threshold-size`: every
//!   deleted identifier is collected; manifests that need no change and whose partition range
//!   cannot hold a deleted entry are kept; the others are read, their DELETEs and the ADDs a
//!   DELETE cancels are dropped and the rest rewritten (rolling); with at most one manifest to
//!   rewrite it falls through to
//! - **minor compaction**: manifests are walked in order accumulating size; each group reaching
//!   the target is merged (ADD/DELETE netting, unmatched DELETEs kept) when it has more than one
//!   file; the tail is merged only with at least `manifest.merge-min-count` files.
//!
//! The sorted rewrite of `manifest-sort.enabled` is not implemented (default off).

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use super::writer::MetaWriter;
use crate::scan::entry_merge::Identity;
use crate::spec::binary_row::BinaryRow;
use crate::spec::manifest::{FileKind, ManifestEntry, ManifestFileMeta};
use crate::spec::options::CommitOptions;
use crate::spec::types::DataType;
use crate::spec::Datum;
use crate::{Error, ErrorKind, Result};

/// Java `FileEntry#mergeEntries` into an insertion-ordered map: an ADD after a live ADD or a
/// pending DELETE of the same identifier fails; a DELETE cancels the ADD, else stays pending.
/// The identifier may carry a deletion-vector file name (Java `SimpleFileEntryWithDV`).
#[derive(Default)]
pub(crate) struct Netting {
    slots: Vec<Option<ManifestEntry>>,
    index: HashMap<(Identity, Option<String>), usize>,
}

impl Netting {
    /// Applies one entry.
    pub(crate) fn push(&mut self, e: ManifestEntry) -> Result<()> {
        self.push_with_dv(e, None)
    }

    /// Applies one entry whose identifier includes deletion-vector file `dv`.
    pub(crate) fn push_with_dv(&mut self, e: ManifestEntry, dv: Option<String>) -> Result<()> {
        let id = (Identity::of(&e), dv);
        match (e.kind, self.index.remove(&id)) {
            (FileKind::Add, Some(i)) => {
                let what = match self.slots.get(i).and_then(Option::as_ref).map(|x| x.kind) {
                    Some(FileKind::Delete) => "is deleted and added again",
                    _ => "is added twice",
                };
                Err(Error::new(
                    ErrorKind::Conflict,
                    format!("file {} {what}", e.file.file_name),
                )
                .with_context("file", e.file.file_name.clone())
                .with_context("bucket", e.bucket.to_string())
                .with_context("level", e.file.level.to_string()))
            }
            (FileKind::Delete, Some(i)) => {
                if let Some(s) = self.slots.get_mut(i) {
                    *s = None;
                }
                Ok(())
            }
            (_, None) => {
                self.index.insert(id, self.slots.len());
                self.slots.push(Some(e));
                Ok(())
            }
        }
    }

    /// The remaining entries (live ADDs and pending DELETEs) in insertion order.
    pub(crate) fn into_entries(self) -> Vec<ManifestEntry> {
        self.slots.into_iter().flatten().collect()
    }
}

/// Merges `input` (previous base ++ delta) into the new base list's manifests.
pub(crate) async fn merge(
    input: Vec<ManifestFileMeta>,
    w: &mut MetaWriter,
    o: &CommitOptions,
) -> Result<Vec<ManifestFileMeta>> {
    if let Some(out) = full_compaction(&input, w, o).await? {
        return Ok(out);
    }
    minor_compaction(input, w, o).await
}

fn must_change(m: &ManifestFileMeta, target: u64) -> bool {
    m.num_deleted_files > 0 || (m.file_size as u64) < target
}

async fn minor_compaction(
    input: Vec<ManifestFileMeta>,
    w: &mut MetaWriter,
    o: &CommitOptions,
) -> Result<Vec<ManifestFileMeta>> {
    let target = o.manifest_target_file_size.bytes();
    let mut result = Vec::new();
    let mut candidates = Vec::new();
    let mut size = 0u64;
    for m in input {
        size += m.file_size.max(0) as u64;
        candidates.push(m);
        if size >= target {
            merge_candidates(std::mem::take(&mut candidates), w, &mut result).await?;
            size = 0;
        }
    }
    if candidates.len() >= o.manifest_merge_min_count {
        merge_candidates(candidates, w, &mut result).await?;
    } else {
        result.extend(candidates);
    }
    Ok(result)
}

async fn merge_candidates(
    candidates: Vec<ManifestFileMeta>,
    w: &mut MetaWriter,
    result: &mut Vec<ManifestFileMeta>,
) -> Result<()> {
    if candidates.len() <= 1 {
        result.extend(candidates);
        return Ok(());
    }
    let mut net = Netting::default();
    for m in &candidates {
        for e in w.reader().manifest(&m.file_name).await? {
            net.push(e)
                .map_err(|e| e.with_context("manifest", m.file_name.clone()))?;
        }
    }
    let entries = net.into_entries();
    if !entries.is_empty() {
        result.extend(w.write_manifests(&entries).await?);
    }
    Ok(())
}

async fn full_compaction(
    input: &[ManifestFileMeta],
    w: &mut MetaWriter,
    o: &CommitOptions,
) -> Result<Option<Vec<ManifestFileMeta>>> {
    let target = o.manifest_target_file_size.bytes();
    let delta_size: u64 = input
        .iter()
        .filter(|m| must_change(m, target))
        .map(|m| m.file_size.max(0) as u64)
        .sum();
    if delta_size < o.manifest_full_compaction_threshold_size.bytes() {
        return Ok(None);
    }
    let mut deleted: HashSet<Identity> = HashSet::new();
    let mut deleted_partitions: HashSet<Vec<u8>> = HashSet::new();
    for m in input.iter().filter(|m| m.num_deleted_files > 0) {
        for e in w.reader().manifest(&m.file_name).await? {
            if e.kind == FileKind::Delete {
                deleted.insert(Identity::of(&e));
                deleted_partitions.insert(e.partition.clone());
            }
        }
    }
    let types = w.partition_types().to_vec();
    let mut result = Vec::new();
    let mut to_merge = Vec::new();
    for m in input {
        let skip = !must_change(m, target)
            && (deleted.is_empty()
                || (!types.is_empty()
                    && !may_hold_any(m, &deleted_partitions, &types).unwrap_or(true)));
        if skip {
            result.push(m.clone());
        } else {
            to_merge.push(m);
        }
    }
    if to_merge.len() <= 1 {
        return Ok(None);
    }
    let mut rewritten = Vec::new();
    for m in to_merge {
        let mut change = must_change(m, target);
        let mut kept = Vec::new();
        for e in w.reader().manifest(&m.file_name).await? {
            if e.kind == FileKind::Delete {
                continue;
            }
            if deleted.contains(&Identity::of(&e)) {
                change = true;
            } else {
                kept.push(e);
            }
        }
        if change {
            rewritten.extend(kept);
        } else {
            result.push(m.clone());
        }
    }
    result.extend(w.write_manifests(&rewritten).await?);
    Ok(Some(result))
}

/// Whether the partition statistics of `m` admit one of `partitions` (min ≤ value ≤ max per
/// column, a null value needs a null count).
fn may_hold_any(
    m: &ManifestFileMeta,
    partitions: &HashSet<Vec<u8>>,
    types: &[DataType],
) -> Result<bool> {
    let stats = &m.partition_stats;
    let mins = BinaryRow::from_serialized(&stats.min_values)?.decode(types)?;
    let maxs = BinaryRow::from_serialized(&stats.max_values)?.decode(types)?;
    let nulls = stats.null_counts.clone().unwrap_or_default();
    for p in partitions {
        let values = BinaryRow::from_serialized(p)?.decode(types)?;
        let fits = values.iter().enumerate().all(|(i, v)| match v {
            None => nulls.get(i).copied().flatten().is_none_or(|n| n > 0),
            Some(v) => within(v, mins.get(i), maxs.get(i)),
        });
        if fits {
            return Ok(true);
        }
    }
    Ok(false)
}

fn within(v: &Datum, min: Option<&Option<Datum>>, max: Option<&Option<Datum>>) -> bool {
    let (Some(Some(min)), Some(Some(max))) = (min, max) else {
        return false;
    };
    v.compare(min) != Some(Ordering::Less) && v.compare(max) != Some(Ordering::Greater)
}

#[cfg(test)]
#[path = "merge_tests.rs"]
mod tests;
