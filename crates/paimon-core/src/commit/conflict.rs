//! Conflict detection before a snapshot is published, as Java's
//! `org.apache.paimon.operation.commit.ConflictDetection#checkConflicts` (Paimon 2.0), over the
//! live files of the changed partitions at the latest snapshot (`base`) and this commit's
//! entries (`delta`), in Java's order:
//! 1. total buckets of a partition stay the same (not checked for OVERWRITE);
//! 2. the delta alone nets cleanly (a file is not added twice, nor deleted and re-added);
//! 3. base ++ delta nets cleanly (adding a live file fails);
//! 4. no DELETE is left over: every deleted file must still be live;
//! 5. primary-key tables: per (partition, bucket, level ≥ 1) the live files' key ranges are
//!    disjoint (level-0 files may overlap).
//!
//! Bucket-unaware tables with deletion vectors first pair every data file with its vector file
//! (`conflict_dv`), so replacing one file's vector twice conflicts. Every failure is
//! [`ErrorKind::Conflict`] naming the file, partition and bucket. The row-id and global-index
//! checks of row tracking are not implemented.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};

use super::conflict_dv::{base_with_dv, delta_with_dv, WithDv};
use super::merge::Netting;
use crate::mergetree::interval_partition::{compare_keys, keyed_files};
use crate::spec::binary_row::BinaryRow;
use crate::spec::manifest::{FileKind, IndexManifestEntry, ManifestEntry};
use crate::spec::partition_path::partition_path;
use crate::spec::snapshot::CommitKind;
use crate::spec::types::{DataField, DataType};
use crate::{Error, ErrorKind, Result};

/// What conflict detection needs to know about the table.
pub(crate) struct ConflictContext<'a> {
    /// Partition columns (for readable partition names).
    pub partition_fields: &'a [DataField],
    /// Trimmed primary-key types; `None` for append tables (no key-range check).
    pub key_types: Option<&'a [DataType]>,
    /// The commit user of the latest snapshot (named in messages).
    pub base_user: &'a str,
    /// Bucket-unaware tables with deletion vectors: the latest index state and this commit's
    /// index changes, to pair data files with their vectors.
    pub dv_index: Option<(&'a [IndexManifestEntry], &'a [IndexManifestEntry])>,
}

impl ConflictContext<'_> {
    /// `k=v/...` of a serialized partition row (the raw bytes when it cannot be decoded).
    pub(crate) fn partition_name(&self, bytes: &[u8]) -> String {
        let types: Vec<DataType> = self
            .partition_fields
            .iter()
            .map(|f| f.data_type.clone())
            .collect();
        BinaryRow::from_serialized(bytes)
            .and_then(|r| r.decode(&types))
            .and_then(|v| partition_path(self.partition_fields, &v, "null", true))
            .map(|p| {
                let p = p.trim_end_matches('/').to_string();
                if p.is_empty() {
                    "<unpartitioned>".into()
                } else {
                    p
                }
            })
            .unwrap_or_else(|_| format!("{bytes:?}"))
    }

    fn error(&self, msg: String, e: &ManifestEntry) -> Error {
        Error::new(ErrorKind::Conflict, msg)
            .with_context("file", e.file.file_name.clone())
            .with_context("partition", self.partition_name(&e.partition))
            .with_context("bucket", e.bucket.to_string())
            .with_context("level", e.file.level.to_string())
            .with_context("latest commit user", self.base_user.to_string())
    }
}

/// Runs the checks; `base` are the live entries of the changed partitions.
pub(crate) fn check(
    ctx: &ConflictContext<'_>,
    base: &[ManifestEntry],
    delta: &[ManifestEntry],
    kind: CommitKind,
) -> Result<()> {
    if kind != CommitKind::Overwrite {
        check_total_buckets(ctx, base, delta)?;
    }
    let deletion = |e: Error| {
        let mut out = Error::new(
            ErrorKind::Conflict,
            format!(
                "File deletion conflicts detected! Give up committing. {}",
                e.message()
            ),
        );
        for (k, v) in e.context() {
            out = out.with_context(k, v.clone());
        }
        out
    };
    let plain =
        |v: &[ManifestEntry]| -> Vec<WithDv> { v.iter().map(|e| (e.clone(), None)).collect() };
    let (base_k, delta_k) = match ctx.dv_index {
        Some((base_index, delta_index)) => {
            let b = base_with_dv(base, base_index).map_err(deletion)?;
            let d = delta_with_dv(&b, delta, delta_index).map_err(deletion)?;
            (b, d)
        }
        None => (plain(base), plain(delta)),
    };
    let mut own = Netting::default();
    for (e, dv) in &delta_k {
        own.push_with_dv(e.clone(), dv.clone()).map_err(deletion)?;
    }
    let mut all = Netting::default();
    for (e, dv) in base_k.iter().chain(&delta_k) {
        all.push_with_dv(e.clone(), dv.clone()).map_err(deletion)?;
    }
    let merged = all.into_entries();
    if let Some(e) = merged.iter().find(|e| e.kind == FileKind::Delete) {
        return Err(ctx.error(
            format!(
                "File deletion conflicts detected! Give up committing. Trying to delete file {} \
                 which is not previously added (another commit removed it).",
                e.file.file_name
            ),
            e,
        ));
    }
    if let Some(types) = ctx.key_types {
        check_key_ranges(ctx, &merged, types)?;
    }
    Ok(())
}

fn check_total_buckets(
    ctx: &ConflictContext<'_>,
    base: &[ManifestEntry],
    delta: &[ManifestEntry],
) -> Result<()> {
    let mut seen: HashMap<&[u8], i32> = HashMap::new();
    for e in base.iter().chain(delta) {
        if e.total_buckets <= 0 {
            continue;
        }
        let old = *seen.entry(&e.partition).or_insert(e.total_buckets);
        if old != e.total_buckets {
            return Err(ctx.error(
                format!(
                    "Total buckets of partition {} changed from {old} to {} without overwrite. \
                     Give up committing.",
                    ctx.partition_name(&e.partition),
                    e.total_buckets
                ),
                e,
            ));
        }
    }
    Ok(())
}

fn check_key_ranges(
    ctx: &ConflictContext<'_>,
    merged: &[ManifestEntry],
    types: &[DataType],
) -> Result<()> {
    let mut levels: BTreeMap<(&[u8], i32, i32), Vec<&ManifestEntry>> = BTreeMap::new();
    for e in merged.iter().filter(|e| e.file.level >= 1) {
        levels
            .entry((&e.partition, e.bucket, e.file.level))
            .or_default()
            .push(e);
    }
    for entries in levels.values() {
        let files: Vec<_> = entries.iter().map(|e| e.file.clone()).collect();
        let mut keyed = keyed_files(&files, types)?;
        keyed.sort_by(|a, b| compare_keys(&a.min, &b.min));
        for pair in keyed.windows(2) {
            let [a, b] = pair else { continue };
            if compare_keys(&a.max, &b.min) != Ordering::Less {
                let (Some(x), Some(y)) = (entries.get(a.index), entries.get(b.index)) else {
                    continue;
                };
                return Err(ctx.error(
                    format!(
                        "LSM conflicts detected! Give up committing. Conflict files are: {} and {} \
                         (level {}) overlap in key range",
                        x.file.file_name, y.file.file_name, x.file.level
                    ),
                    y,
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "conflict_tests.rs"]
mod tests;
