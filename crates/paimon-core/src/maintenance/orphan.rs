//! Orphan file clean-up (Java `OrphanFilesClean` / `LocalOrphanFilesClean#clean`, Paimon 2.0).
//!
//! Candidates are listed **first** (files under `manifest/`, `index/`, `statistics/` and bucket
//! directories, modified before the threshold; listing after collecting the used files once
//! deleted live files, Java issue #3074), then the used set is built from every snapshot and tag
//! of every branch (a missing metadata file is skipped: a concurrent expiration; any other
//! failure aborts), then candidates whose name nothing uses are deleted. Snapshot, schema, tag,
//! branch, consumer and changelog directories are never touched.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::locate::deletable_files;
use super::owners::{branch_names, tags_and_branches};
use super::references::{Collector, Refs};
use crate::catalog::{SnapshotManager, Table};
use crate::{Error, ErrorKind, Result};

/// Java's default threshold: files younger than a day are never orphans (a commit may still be
/// writing them).
pub const DEFAULT_ORPHAN_AGE: Duration = Duration::from_secs(24 * 3600);

/// What an orphan clean-up found and did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OrphanReport {
    /// Files listed that are older than the threshold.
    pub candidates: usize,
    /// Locations of the orphans (deleted unless dry run), sorted.
    pub orphans: Vec<String>,
    /// Their total size in bytes.
    pub orphan_bytes: u64,
    /// Whether this was a dry run (nothing deleted).
    pub dry_run: bool,
}

/// Deletes files no snapshot, tag or branch refers to:
/// `table.remove_orphan_files().older_than(Duration::from_secs(3600)).execute()`.
#[derive(Debug, Clone)]
pub struct RemoveOrphanFiles {
    table: Table,
    older_than_millis: Option<i64>,
    age: Duration,
    dry_run: bool,
}

impl Table {
    /// Orphan clean-up of this table (default: files older than a day).
    pub fn remove_orphan_files(&self) -> RemoveOrphanFiles {
        RemoveOrphanFiles {
            table: self.clone(),
            older_than_millis: None,
            age: DEFAULT_ORPHAN_AGE,
            dry_run: false,
        }
    }
}

fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

impl RemoveOrphanFiles {
    /// Only files modified more than `age` ago are candidates.
    pub fn older_than(mut self, age: Duration) -> Self {
        self.age = age;
        self.older_than_millis = None;
        self
    }

    /// Only files modified before this instant (epoch millis, must be in the past).
    pub fn older_than_millis(mut self, millis: i64) -> Self {
        self.older_than_millis = Some(millis);
        self
    }

    /// Report the orphans without deleting them.
    pub fn dry_run(mut self, dry_run: bool) -> Self {
        self.dry_run = dry_run;
        self
    }

    fn threshold(&self) -> Result<i64> {
        let now = now_millis();
        let t = match self.older_than_millis {
            Some(t) => t,
            None => now - i64::try_from(self.age.as_millis()).unwrap_or(i64::MAX / 2),
        };
        if t >= now {
            return Err(Error::invalid_argument(
                "the orphan threshold must lie in the past (a commit may be writing newer files)",
            )
            .with_context("older_than_millis", t.to_string()));
        }
        Ok(t)
    }

    /// Runs the clean-up.
    pub async fn execute(&self) -> Result<OrphanReport> {
        let threshold = self.threshold()?;
        let io = self.table.file_io();
        let root = self.table.location();
        for b in branch_names(io, root).await? {
            let sm = SnapshotManager::new(io.clone(), root, Some(&b));
            if sm.schema_ids().await?.is_empty() {
                return Err(Error::data_invalid(format!(
                    "branch '{b}' has no schema: refusing to clean orphan files"
                ))
                .with_context("table", root));
            }
        }
        let candidates: Vec<_> = deletable_files(io, root)
            .await?
            .into_iter()
            .filter(|f| f.modified_millis < threshold)
            .collect();
        let mut c = Collector::strict(io.clone(), root).skip_missing();
        let mut used = tags_and_branches(io, root, &mut c).await?;
        used.extend(main_snapshots(self.table.snapshot_manager(), &mut c).await?);
        let mut report = OrphanReport {
            candidates: candidates.len(),
            dry_run: self.dry_run,
            ..OrphanReport::default()
        };
        for f in candidates {
            if used.contains_name(&f.name) {
                continue;
            }
            if !self.dry_run {
                io.delete(&f.location).await?;
            }
            report.orphan_bytes += f.size;
            report.orphans.push(f.location);
        }
        report.orphans.sort();
        Ok(report)
    }
}

/// Every snapshot of `main`; one vanishing meanwhile (concurrent expiration) is skipped.
async fn main_snapshots(sm: &SnapshotManager, c: &mut Collector) -> Result<Refs> {
    let mut refs = Refs::default();
    let (Some(earliest), Some(latest)) = (
        sm.earliest_snapshot_id().await?,
        sm.latest_snapshot_id().await?,
    ) else {
        return Ok(refs);
    };
    for id in earliest..=latest {
        match sm.snapshot(id).await {
            Ok(s) => refs.extend(c.live(&s).await?),
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(refs)
}
