//! Snapshot expiration (Java `ExpireSnapshotsImpl` + `SnapshotDeletion`, Paimon 2.0).
//!
//! Which snapshots: the range `[earliest, end)` with `end` = the first snapshot to keep: never
//! one of the latest `retain_min`, never one a consumer still needs, at most `max_deletes` per
//! call, and a snapshot younger than `time_retained` ends the range (snapshots beyond
//! `retain_max` go regardless of age).
//!
//! What goes: every file an expired snapshot mentions that no retained snapshot, tag or branch
//! uses. Divergence from Java, on the safe side: Java only deletes files DELETEd in expired
//! deltas and trusts that a deleted file never comes back; here the kept set is the *live* files
//! of every retained snapshot, tag and branch snapshot, compared by file name, so a file removed
//! and later re-added is kept.
//!
//! Concurrent commits: the kept set covers every snapshot up to the latest seen after reading
//! (re-checked until no new one appears). A commit can only reference files live in the
//! snapshot it builds on (kept) or new files (never candidates); a commit re-adding a file
//! deleted long ago while this runs is the one unprotected case (Java has it too).
//!
//! Order, so that a crash at any point leaves every retained snapshot readable and a rerun
//! finishes the job: data and changelog files, index files, manifests, then manifest lists and
//! index manifests (a rerun still finds the manifests through the lists), statistics, then the
//! snapshot files in ascending order, then `EARLIEST` = `end`.

use std::collections::BTreeSet;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;

use super::locate::{by_name, deletable_files};
use super::owners::{min_consumer_snapshot, tags_and_branches};
use super::references::{Collector, Refs, Unreadable};
use crate::catalog::Table;
use crate::io::ListedFile;
use crate::{Error, ErrorKind, Result};

/// What one expiration did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExpireReport {
    /// Ids of the snapshots expired (their files deleted), ascending.
    pub expired_snapshots: Vec<i64>,
    /// Data and changelog files (and their extra files) deleted.
    pub data_files_deleted: usize,
    /// Manifests, manifest lists and index manifests deleted.
    pub manifest_files_deleted: usize,
    /// Index files (deletion vectors, global index payloads) deleted.
    pub index_files_deleted: usize,
    /// Statistics files deleted.
    pub statistics_files_deleted: usize,
    /// Metadata files of expired snapshots that could not be decoded; they and whatever only
    /// they refer to are kept.
    pub unreadable: Vec<Unreadable>,
}

/// Expires old snapshots of a table: `table.expire_snapshots().retain_max(5).execute()`.
/// Defaults come from the table's `snapshot.*` options.
#[derive(Debug, Clone)]
pub struct ExpireSnapshots {
    table: Table,
    retain_min: i32,
    retain_max: i32,
    time_retained: Duration,
    max_deletes: i32,
    now_millis: Option<i64>,
}

impl Table {
    /// Snapshot expiration with this table's retention options.
    pub fn expire_snapshots(&self) -> ExpireSnapshots {
        let r = &self.options().retention;
        ExpireSnapshots {
            table: self.clone(),
            retain_min: r.num_retained_min,
            retain_max: r.num_retained_max,
            time_retained: r.time_retained,
            max_deletes: r.expire_limit,
            now_millis: None,
        }
    }
}

fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

impl ExpireSnapshots {
    /// Keep at least this many latest snapshots (`snapshot.num-retained.min`).
    pub fn retain_min(mut self, n: i32) -> Self {
        self.retain_min = n;
        self
    }

    /// Keep at most this many (`snapshot.num-retained.max`).
    pub fn retain_max(mut self, n: i32) -> Self {
        self.retain_max = n;
        self
    }

    /// Keep snapshots younger than this (`snapshot.time-retained`).
    pub fn older_than(mut self, d: Duration) -> Self {
        self.time_retained = d;
        self
    }

    /// Expire at most this many snapshots (`snapshot.expire.limit`).
    pub fn max_deletes(mut self, n: i32) -> Self {
        self.max_deletes = n;
        self
    }

    /// The clock (epoch millis) used for `older_than`; defaults to now.
    pub fn now_millis(mut self, millis: i64) -> Self {
        self.now_millis = Some(millis);
        self
    }

    fn check(&self) -> Result<()> {
        if self.retain_min < 1 {
            return Err(Error::invalid_argument(format!(
                "retain min must be at least 1, found {}",
                self.retain_min
            )));
        }
        if self.retain_max < self.retain_min {
            return Err(Error::invalid_argument(format!(
                "retain max ({}) must not be below retain min ({})",
                self.retain_max, self.retain_min
            )));
        }
        if self.table.options().retention.changelog_decoupled() {
            return Err(Error::unsupported(
                "snapshot expiration with changelog retention longer than snapshot retention \
                 (changelog.* options) is not supported",
            )
            .with_context("table", self.table.location()));
        }
        Ok(())
    }

    /// The first snapshot to keep (Java `ExpireSnapshotsImpl#expire`), or `None` for nothing to do.
    async fn end(&self, earliest: i64, latest: i64) -> Result<Option<i64>> {
        let sm = self.table.snapshot_manager();
        let min = (latest - i64::from(self.retain_max) + 1).max(earliest);
        let mut end = latest - i64::from(self.retain_min) + 1;
        if let Some(c) = min_consumer_snapshot(sm.file_io(), sm.meta_root()).await? {
            end = end.min(c);
        }
        end = end.min(earliest.saturating_add(i64::from(self.max_deletes)));
        let retained_ms = i64::try_from(self.time_retained.as_millis()).unwrap_or(i64::MAX);
        let older_than = self.now_millis.unwrap_or_else(now_millis) - retained_ms;
        for id in min..end {
            match sm.snapshot(id).await {
                Ok(s) if older_than <= s.time_millis => {
                    end = id;
                    break;
                }
                Ok(_) => {}
                Err(e) if e.kind() == ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        Ok((end > earliest).then_some(end))
    }

    /// Runs the expiration.
    pub async fn execute(&self) -> Result<ExpireReport> {
        self.check()?;
        let sm = self.table.snapshot_manager();
        let (Some(earliest), Some(latest)) = (
            sm.earliest_snapshot_id().await?,
            sm.latest_snapshot_id().await?,
        ) else {
            return Ok(ExpireReport::default());
        };
        let Some(end) = self.end(earliest, latest).await? else {
            return Ok(ExpireReport::default());
        };
        let io = self.table.file_io();
        let root = self.table.location();
        // What must stay: retained snapshots, tags, branches (strict: any failure aborts).
        let mut c = Collector::strict(io.clone(), root);
        let mut keep = tags_and_branches(io, root, &mut c).await?;
        let mut next = end;
        // Snapshots committed meanwhile are kept too: read until no new one appears.
        while let Some(latest) = sm.latest_snapshot_id().await?.filter(|l| *l >= next) {
            for id in next..=latest {
                let s = sm.snapshot(id).await?;
                keep.extend(c.live(&s).await?);
            }
            next = latest + 1;
        }
        // What may go: everything the expired snapshots mention (tolerant).
        c.set_tolerant(true);
        let mut gone = Refs::default();
        let mut expired = Vec::new();
        for id in earliest..end {
            match sm.snapshot(id).await {
                Ok(s) => {
                    gone.extend(c.mentioned(&s).await?);
                    expired.push(id);
                }
                Err(e) if e.kind() == ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        let mut report = ExpireReport {
            unreadable: std::mem::take(&mut c.unreadable),
            ..ExpireReport::default()
        };
        let files = deletable_files(io, root).await?;
        let deleter = Deleter {
            table: &self.table,
            files: &files,
            keep: &keep,
        };
        report.data_files_deleted = deleter.names(&gone.data).await?;
        report.data_files_deleted += deleter.external(&gone.external).await?;
        report.index_files_deleted = deleter.names(&gone.index_files).await?;
        let (lists, manifests): (BTreeSet<&String>, BTreeSet<&String>) =
            gone.manifests.iter().partition(|n| is_list_like(n));
        report.manifest_files_deleted = deleter.names(manifests).await?;
        report.manifest_files_deleted += deleter.names(lists).await?;
        report.statistics_files_deleted = deleter.names(&gone.statistics).await?;
        for &id in &expired {
            io.delete(&sm.snapshot_path(id)).await?;
        }
        io.write(&sm.earliest_hint_path(), Bytes::from(end.to_string()))
            .await?;
        report.expired_snapshots = expired;
        Ok(report)
    }
}

/// Manifest lists and index manifests: deleted after the manifests they point to.
fn is_list_like(name: &str) -> bool {
    name.starts_with("manifest-list-") || name.starts_with("index-manifest-")
}

/// Deletes unreferenced files by name.
struct Deleter<'a> {
    table: &'a Table,
    files: &'a [ListedFile],
    keep: &'a Refs,
}

impl Deleter<'_> {
    /// Deletes every listed file named in `names` that nothing kept refers to; returns the count.
    async fn names<'n>(&self, names: impl IntoIterator<Item = &'n String>) -> Result<usize> {
        let located = by_name(self.files);
        let mut sorted: Vec<&String> = names.into_iter().collect();
        sorted.sort();
        let mut n = 0;
        for name in sorted {
            if self.keep.contains_name(name) {
                continue;
            }
            for f in located.get(name.as_str()).into_iter().flatten() {
                self.table.file_io().delete(&f.location).await?;
                n += 1;
            }
        }
        Ok(n)
    }

    /// Deletes files outside the table directory (`external_path`) nothing kept refers to.
    async fn external(&self, locations: &std::collections::HashSet<String>) -> Result<usize> {
        let mut sorted: Vec<&String> = locations.iter().collect();
        sorted.sort();
        let mut n = 0;
        for loc in sorted {
            let name = loc.rsplit('/').next().unwrap_or(loc);
            if self.keep.external.contains(loc) || self.keep.contains_name(name) {
                continue;
            }
            if self.table.file_io().exists(loc).await? {
                self.table.file_io().delete(loc).await?;
                n += 1;
            }
        }
        Ok(n)
    }
}
