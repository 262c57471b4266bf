//! [`TableCommit`]: publishes file changes as new snapshots, as Java's
//! `org.apache.paimon.operation.FileStoreCommitImpl` does for a filesystem catalog. Each
//! attempt ([`super::attempt`]) builds the snapshot on the latest one and creates its file only
//! if absent (`FileIO::create_new`, the atomic step). A lost race is retried with Java's
//! backoff (`commit.min-retry-wait` × 2^retry up to `commit.max-retry-wait`, plus up to 20 %
//! jitter) until `commit.max-retries` or `commit.timeout`; a detected conflict is not retried.
//! After a publish whose outcome is unknown the next attempt first looks for the snapshot
//! among the new ones (same user, identifier and kind) before cleaning up. Then `LATEST` is
//! rewritten and `EARLIEST` written when missing.
//!
//! Exactly-once: [`TableCommit::commit_messages_with_identifier`] and
//! [`TableCommit::overwrite_messages_with_identifier`] skip identifiers that the user's latest
//! snapshot already covers (Java `filterCommitted`).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use bytes::Bytes;

use super::attempt::{key_types, try_commit_once, Outcome};
use super::changes::{should_be_overwrite, EntryChanges};
use super::overwrite::{try_upgrade, OverwriteScope};
use super::writer::MetaWriter;
use super::CommitMessage;
use crate::catalog::Table;
use crate::io::join;
use crate::spec::manifest::{IndexManifestEntry, ManifestEntry};
use crate::spec::snapshot::{CommitKind, Snapshot};
use crate::{Error, ErrorKind, Result};

/// Commit identifier of a batch commit (Java `BatchWriteBuilder.COMMIT_IDENTIFIER`).
pub const BATCH_COMMIT_IDENTIFIER: i64 = i64::MAX;

/// What one commit changes: manifest entries (ADD new files, DELETE removed ones).
#[derive(Debug, Clone)]
pub struct CommitChanges {
    /// The entries, in order.
    pub entries: Vec<ManifestEntry>,
    /// `APPEND`, `COMPACT` or `OVERWRITE`.
    pub kind: CommitKind,
    /// The writer's commit user.
    pub commit_user: String,
    /// The commit identifier ([`BATCH_COMMIT_IDENTIFIER`] for batch jobs).
    pub commit_identifier: i64,
    /// The complete index state after the commit (written as a new index manifest, ADD rows
    /// only); `None` starts from the previous snapshot's index state.
    pub index_entries: Option<Vec<IndexManifestEntry>>,
    /// Index files added (ADD) and removed (DELETE), combined with the index state as Java's
    /// `IndexManifestFileHandler` does.
    pub index_changes: Vec<IndexManifestEntry>,
    /// When set, each attempt first deletes every live file of these partitions.
    pub overwrite: Option<OverwriteScope>,
    /// The watermark of this commit (the snapshot keeps the larger of it and the previous).
    pub watermark: Option<i64>,
}

impl CommitChanges {
    /// A batch commit (`commit_identifier` = [`BATCH_COMMIT_IDENTIFIER`]) of `entries` by
    /// `commit_user`, keeping the index manifest.
    pub fn new(entries: Vec<ManifestEntry>, kind: CommitKind, commit_user: &str) -> Self {
        CommitChanges {
            entries,
            kind,
            commit_user: commit_user.to_string(),
            commit_identifier: BATCH_COMMIT_IDENTIFIER,
            index_entries: None,
            index_changes: vec![],
            overwrite: None,
            watermark: None,
        }
    }

    /// The same changes with commit identifier `identifier`.
    #[must_use]
    pub fn with_identifier(mut self, identifier: i64) -> Self {
        self.commit_identifier = identifier;
        self
    }
}

/// Commits changes to one table.
#[derive(Debug, Clone)]
pub struct TableCommit {
    table: Table,
}

impl TableCommit {
    /// A committer of `table` (options `commit.*` and `manifest.*` of the table apply).
    pub fn new(table: &Table) -> Self {
        TableCommit {
            table: table.clone(),
        }
    }

    fn writer(&self, schema_id: i64, types: Vec<crate::spec::types::DataType>) -> MetaWriter {
        let target = self
            .table
            .options()
            .commit
            .manifest_target_file_size
            .bytes();
        MetaWriter::new(
            self.table.file_io().clone(),
            self.table.location(),
            types,
            schema_id,
            target,
        )
    }

    /// Publishes `changes` as the next snapshot and returns it.
    pub async fn commit(&self, changes: &CommitChanges) -> Result<Snapshot> {
        let options = &self.table.options().commit;
        let sm = self.table.snapshot_manager();
        let start = Instant::now();
        let mut retries = 0u32;
        // An attempt whose publish outcome is unknown: the latest id it built on, its files.
        let mut pending: Option<(i64, MetaWriter)> = None;
        loop {
            let latest = sm.latest_snapshot().await?;
            if let Some(s) = self
                .resolve(pending.take(), changes, latest.as_ref())
                .await?
            {
                return Ok(s);
            }
            let schema = sm.latest_schema().await?;
            let mut w = self.writer(schema.id, schema.partition_types()?);
            match try_commit_once(&self.table, changes, latest.as_ref(), &mut w).await {
                Ok(Outcome::Published(s)) => {
                    self.write_hints(s.id).await;
                    return Ok(*s);
                }
                Ok(Outcome::LostRace) => w.clean_up().await,
                Ok(Outcome::Uncertain(e)) => {
                    tracing::warn!("snapshot publish failed, checking on retry: {e}");
                    pending = Some((latest.as_ref().map_or(0, |s| s.id), w));
                }
                Err(e) => {
                    w.clean_up().await;
                    return Err(e);
                }
            }
            let elapsed = start.elapsed();
            if retries >= options.max_retries || options.timeout.is_some_and(|t| elapsed > t) {
                let latest = sm.latest_snapshot().await?;
                if let Some(s) = self
                    .resolve(pending.take(), changes, latest.as_ref())
                    .await?
                {
                    return Ok(s);
                }
                return Err(Error::new(
                    ErrorKind::Conflict,
                    format!(
                        "Commit failed after {} millis with {retries} retries, there maybe exist \
                         commit conflicts between multiple jobs.",
                        elapsed.as_millis()
                    ),
                )
                .with_context("table", self.table.location()));
            }
            let wait = backoff(options.min_retry_wait, options.max_retry_wait, retries);
            tokio::time::sleep(wait).await;
            retries += 1;
        }
    }

    /// Settles an attempt whose publish outcome was unknown: its snapshot when it landed
    /// (hints written), else its files are removed and `None` returned.
    async fn resolve(
        &self,
        pending: Option<(i64, MetaWriter)>,
        changes: &CommitChanges,
        latest: Option<&Snapshot>,
    ) -> Result<Option<Snapshot>> {
        let Some((base, mut w)) = pending else {
            return Ok(None);
        };
        if let Some(s) = self.find_committed(changes, base, latest).await? {
            self.write_hints(s.id).await;
            return Ok(Some(s));
        }
        w.clean_up().await;
        Ok(None)
    }

    /// The snapshot after `after` (up to `latest`) that `changes` already produced (same user,
    /// identifier and kind), if any (Java `tryCommitOnce` step 1).
    async fn find_committed(
        &self,
        changes: &CommitChanges,
        after: i64,
        latest: Option<&Snapshot>,
    ) -> Result<Option<Snapshot>> {
        let Some(latest) = latest else {
            return Ok(None);
        };
        let sm = self.table.snapshot_manager();
        for id in (after + 1)..=latest.id {
            let s = sm.snapshot(id).await?;
            if s.commit_user == changes.commit_user
                && s.commit_identifier == changes.commit_identifier
                && s.commit_kind == changes.kind
            {
                return Ok(Some(s));
            }
        }
        Ok(None)
    }

    /// Publishes the writers' `messages` as a batch commit (identifier
    /// [`BATCH_COMMIT_IDENTIFIER`]); see [`Self::commit_messages_with_identifier`].
    pub async fn commit_messages(
        &self,
        messages: &[CommitMessage],
        commit_user: &str,
    ) -> Result<Vec<Snapshot>> {
        let changes = EntryChanges::collect(messages);
        self.commit_entry_changes(changes, commit_user, BATCH_COMMIT_IDENTIFIER, None)
            .await
    }

    /// Publishes the writers' `messages` (Java `TableCommitImpl#commit` →
    /// `FileStoreCommitImpl#commit`): new and deleted files as one `APPEND` snapshot
    /// (`OVERWRITE` when it deletes files or changes deletion vectors), then compaction
    /// changes as one `COMPACT` snapshot, both with `identifier`. Returns the snapshots
    /// written: none when every message is empty, or when the user's latest snapshot already
    /// has an identifier ≥ `identifier` (a retried commit is not applied twice).
    pub async fn commit_messages_with_identifier(
        &self,
        identifier: i64,
        messages: &[CommitMessage],
        commit_user: &str,
    ) -> Result<Vec<Snapshot>> {
        if self.already_committed(commit_user, identifier).await? {
            return Ok(vec![]);
        }
        let changes = EntryChanges::collect(messages);
        self.commit_entry_changes(changes, commit_user, identifier, None)
            .await
    }

    /// The identifiers of `identifiers` not yet committed by `commit_user`: those greater than
    /// the identifier of the user's latest snapshot (Java `filterCommitted`, scanning snapshots
    /// from the latest backwards).
    pub async fn filter_committed(
        &self,
        commit_user: &str,
        identifiers: &[i64],
    ) -> Result<Vec<i64>> {
        let sm = self.table.snapshot_manager();
        let Some(latest) = sm.latest_snapshot_id().await? else {
            return Ok(identifiers.to_vec());
        };
        let earliest = sm.earliest_snapshot_id().await?.unwrap_or(1);
        for id in (earliest..=latest).rev() {
            let s = match sm.snapshot(id).await {
                Ok(s) => s,
                // Expired while scanning: nothing older can be read.
                Err(e) if e.kind() == ErrorKind::NotFound => break,
                Err(e) => return Err(e),
            };
            if s.commit_user == commit_user {
                let done = s.commit_identifier;
                return Ok(identifiers.iter().copied().filter(|i| *i > done).collect());
            }
        }
        Ok(identifiers.to_vec())
    }

    /// Overwrites with the writers' `messages` as one `OVERWRITE` snapshot (then a `COMPACT`
    /// one for compaction changes). Without compaction changes, new level-0 files of a
    /// primary-key table are committed at the highest level per bucket whose key ranges are
    /// disjoint (`overwrite-upgrade`). With `dynamic-partition-overwrite` (default) on a
    /// partitioned table the partitions of the new files are replaced (no new files: nothing
    /// is overwritten); otherwise the partitions matching `static_partition` (column → value
    /// string cast to the column type, `partition.default-name` = null, possibly partial;
    /// `None` or empty = the whole table), and every new file must lie inside it.
    pub async fn overwrite_messages(
        &self,
        messages: &[CommitMessage],
        commit_user: &str,
        static_partition: Option<&HashMap<String, String>>,
    ) -> Result<Vec<Snapshot>> {
        self.overwrite_as(
            BATCH_COMMIT_IDENTIFIER,
            messages,
            commit_user,
            static_partition,
        )
        .await
    }

    /// [`Self::overwrite_messages`] with commit identifier `identifier`, exactly once as
    /// [`Self::commit_messages_with_identifier`]: nothing is committed (no snapshot returned)
    /// when the user's latest snapshot already has an identifier ≥ `identifier`, so a retried
    /// overwrite is not applied twice (Java's batch committer filters at end of input).
    pub async fn overwrite_messages_with_identifier(
        &self,
        identifier: i64,
        messages: &[CommitMessage],
        commit_user: &str,
        static_partition: Option<&HashMap<String, String>>,
    ) -> Result<Vec<Snapshot>> {
        if self.already_committed(commit_user, identifier).await? {
            return Ok(vec![]);
        }
        self.overwrite_as(identifier, messages, commit_user, static_partition)
            .await
    }

    /// Whether `commit_user`'s latest snapshot already has an identifier ≥ `identifier` (Java
    /// `filterCommitted` for one identifier).
    async fn already_committed(&self, commit_user: &str, identifier: i64) -> Result<bool> {
        Ok(self
            .filter_committed(commit_user, &[identifier])
            .await?
            .is_empty())
    }

    async fn overwrite_as(
        &self,
        identifier: i64,
        messages: &[CommitMessage],
        commit_user: &str,
        static_partition: Option<&HashMap<String, String>>,
    ) -> Result<Vec<Snapshot>> {
        let mut changes = EntryChanges::collect(messages);
        let options = self.table.options();
        let with_compact = !changes.compact.is_empty() || !changes.compact_index.is_empty();
        if !with_compact
            && options.commit.overwrite_upgrade
            && !options.commit.pk_clustering_override
        {
            if let Some(keys) = key_types(self.table.schema())? {
                let append = std::mem::take(&mut changes.append);
                changes.append = try_upgrade(append, &keys, options.num_levels() - 1)?;
            }
        }
        let partitioned = !self.table.schema().partition_keys.is_empty();
        let scope = if partitioned && self.table.options().commit.dynamic_partition_overwrite {
            if changes.append.is_empty() {
                None
            } else {
                let parts = changes.append.iter().map(|e| e.partition.clone()).collect();
                Some(OverwriteScope::Partitions(parts))
            }
        } else {
            Some(OverwriteScope::Spec(
                static_partition.cloned().unwrap_or_default(),
            ))
        };
        let Some(scope) = scope else {
            let compact_only = EntryChanges {
                append: vec![],
                append_index: vec![],
                ..changes
            };
            return self
                .commit_entry_changes(compact_only, commit_user, identifier, None)
                .await;
        };
        self.commit_entry_changes(changes, commit_user, identifier, Some(scope))
            .await
    }

    /// Deletes every file of the table as one `OVERWRITE` snapshot (Java `truncateTable`).
    pub async fn truncate(&self, commit_user: &str) -> Result<Snapshot> {
        self.overwrite_scope(OverwriteScope::Spec(HashMap::new()), commit_user)
            .await
    }

    /// Deletes every file of the partitions matching any of `partitions` (specs as for
    /// [`Self::overwrite_messages`]; a partial spec matches all its sub-partitions) as one
    /// `OVERWRITE` snapshot (Java `dropPartitions`).
    pub async fn drop_partitions(
        &self,
        partitions: &[HashMap<String, String>],
        commit_user: &str,
    ) -> Result<Snapshot> {
        if partitions.is_empty() {
            return Err(Error::invalid_argument("Partitions list cannot be empty."));
        }
        let scope = OverwriteScope::AnySpec(partitions.to_vec());
        self.overwrite_scope(scope, commit_user).await
    }

    async fn overwrite_scope(&self, scope: OverwriteScope, commit_user: &str) -> Result<Snapshot> {
        let mut changes = CommitChanges::new(vec![], CommitKind::Overwrite, commit_user);
        changes.overwrite = Some(scope);
        self.commit(&changes).await
    }

    async fn commit_entry_changes(
        &self,
        c: EntryChanges,
        commit_user: &str,
        identifier: i64,
        overwrite: Option<OverwriteScope>,
    ) -> Result<Vec<Snapshot>> {
        let mut snapshots = Vec::new();
        if !c.append.is_empty() || !c.append_index.is_empty() || overwrite.is_some() {
            let kind = if overwrite.is_some() || should_be_overwrite(&c.append, &c.append_index) {
                CommitKind::Overwrite
            } else {
                CommitKind::Append
            };
            let mut changes =
                CommitChanges::new(c.append, kind, commit_user).with_identifier(identifier);
            changes.index_changes = c.append_index;
            changes.overwrite = overwrite;
            snapshots.push(self.commit(&changes).await?);
        }
        if !c.compact.is_empty() || !c.compact_index.is_empty() {
            let mut changes = CommitChanges::new(c.compact, CommitKind::Compact, commit_user)
                .with_identifier(identifier);
            changes.index_changes = c.compact_index;
            snapshots.push(self.commit(&changes).await?);
        }
        Ok(snapshots)
    }

    /// `LATEST` (and `EARLIEST` when missing) are only hints: failures are logged.
    async fn write_hints(&self, id: i64) {
        let sm = self.table.snapshot_manager();
        let io = self.table.file_io();
        let latest = sm.latest_hint_path();
        if let Err(e) = io.write(&latest, Bytes::from(id.to_string())).await {
            tracing::warn!("cannot write {latest}: {e}");
        }
        let dir = latest.trim_end_matches("LATEST").trim_end_matches('/');
        let earliest = join(dir, "EARLIEST");
        if !io.exists(&earliest).await.unwrap_or(true) {
            let first = sm.earliest_snapshot_id().await.ok().flatten().unwrap_or(id);
            if let Err(e) = io.write(&earliest, Bytes::from(first.to_string())).await {
                tracing::warn!("cannot write {earliest}: {e}");
            }
        }
    }
}

/// Java `RetryWaiter`: `min × 2^retry` capped at `max`, plus up to 20 % jitter.
fn backoff(min: Duration, max: Duration, retry: u32) -> Duration {
    let base = min
        .checked_mul(1u32.checked_shl(retry.min(30)).unwrap_or(u32::MAX))
        .unwrap_or(max)
        .min(max);
    let jitter = base.mul_f64(0.2 * rand_unit());
    base + jitter
}

/// A pseudo-random number in [0, 1) (jitter only; no cryptographic use).
fn rand_unit() -> f64 {
    let n = uuid::Uuid::new_v4().as_u128() as u64;
    (n >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap_with_jitter() {
        let (min, max) = (Duration::from_millis(10), Duration::from_secs(10));
        let b0 = backoff(min, max, 0);
        assert!(b0 >= min && b0 <= Duration::from_millis(12), "{b0:?}");
        let b3 = backoff(min, max, 3);
        assert!(b3 >= Duration::from_millis(80) && b3 <= Duration::from_millis(96));
        let b40 = backoff(min, max, 40);
        assert!(b40 >= max && b40 <= Duration::from_secs(12));
    }
}
