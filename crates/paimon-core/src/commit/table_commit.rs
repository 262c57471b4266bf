//! [`TableCommit`]: publishes one set of file changes as a new snapshot, as Java's
//! `org.apache.paimon.operation.FileStoreCommitImpl#tryCommitOnce` does for a filesystem
//! catalog: the changes become one manifest, the previous base and delta manifests the new
//! base list (no manifest merging yet), the new manifest the delta list, and the snapshot file
//! is created only if absent (`FileIO::create_new`, the atomic step; Java renames without
//! overwrite). A lost race re-reads the latest snapshot and tries again; then `LATEST` is
//! rewritten. Deleting a file that is not live, or adding one that is, is a conflict and fails
//! the commit (`ConflictDetection`: "File deletion conflicts detected").

use std::collections::HashSet;
use std::time::{SystemTime, UNIX_EPOCH};

use bytes::Bytes;

use super::manifest_meta::manifest_file_meta;
use super::CommitMessage;
use crate::catalog::Table;
use crate::io::join;
use crate::scan::entry_merge::{EntryMerger, Identity};
use crate::scan::manifest_reader::ManifestReader;
use crate::spec::manifest::{
    encode_index_manifest, encode_manifest, encode_manifest_list, DataFileMeta, FileKind,
    IndexManifestEntry, ManifestEntry, ManifestFileMeta,
};
use crate::spec::snapshot::{CommitKind, Snapshot};
use crate::spec::types::DataType;
use crate::{Error, ErrorKind, Result};

/// Commit identifier of a batch commit (Java `BatchWriteBuilder.COMMIT_IDENTIFIER`).
pub const BATCH_COMMIT_IDENTIFIER: i64 = i64::MAX;
/// Attempts before a commit that keeps losing the race gives up (Java `commit.max-retries`).
const MAX_ATTEMPTS: usize = 10;

/// What one commit changes: manifest entries (ADD new files, DELETE removed ones).
#[derive(Debug, Clone)]
pub struct CommitChanges {
    /// The entries, in order (Java puts a bucket's DELETEs before its ADDs).
    pub entries: Vec<ManifestEntry>,
    /// `APPEND`, `COMPACT` or `OVERWRITE`.
    pub kind: CommitKind,
    /// The writer's commit user.
    pub commit_user: String,
    /// The commit identifier ([`BATCH_COMMIT_IDENTIFIER`] for batch jobs).
    pub commit_identifier: i64,
    /// The complete index state after the commit (written as a new index manifest, ADD rows
    /// only); `None` carries the previous snapshot's index manifest over.
    pub index_entries: Option<Vec<IndexManifestEntry>>,
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
        }
    }
}

/// Commits changes to one table.
#[derive(Debug, Clone)]
pub struct TableCommit {
    table: Table,
}

/// Files written by one attempt, removed again when it does not publish.
struct Attempt {
    written: Vec<String>,
}

impl TableCommit {
    /// A committer of `table`.
    pub fn new(table: &Table) -> Self {
        TableCommit {
            table: table.clone(),
        }
    }

    /// Publishes `changes` as the next snapshot and returns it.
    pub async fn commit(&self, changes: &CommitChanges) -> Result<Snapshot> {
        for _ in 0..MAX_ATTEMPTS {
            let mut attempt = Attempt { written: vec![] };
            match self.try_commit(changes, &mut attempt).await {
                Ok(Some(snapshot)) => {
                    self.write_latest_hint(snapshot.id).await;
                    return Ok(snapshot);
                }
                Ok(None) => self.clean_up(&attempt).await, // lost the race: retry
                Err(e) => {
                    self.clean_up(&attempt).await;
                    return Err(e);
                }
            }
        }
        Err(Error::new(
            ErrorKind::Conflict,
            format!("commit failed after {MAX_ATTEMPTS} attempts: other commits kept winning"),
        )
        .with_context("table", self.table.location()))
    }

    /// Publishes the writers' `messages` (Java `TableCommitImpl#commit` →
    /// `FileStoreCommitImpl#commit`): new and deleted files as one `APPEND` snapshot, then
    /// compaction changes as one `COMPACT` snapshot; returns the snapshots written (none when
    /// every message is empty).
    pub async fn commit_messages(
        &self,
        messages: &[CommitMessage],
        commit_user: &str,
    ) -> Result<Vec<Snapshot>> {
        let (append, compact) = entries_of(messages);
        let mut snapshots = Vec::new();
        for (entries, kind) in [(append, CommitKind::Append), (compact, CommitKind::Compact)] {
            if !entries.is_empty() {
                let changes = CommitChanges::new(entries, kind, commit_user);
                snapshots.push(self.commit(&changes).await?);
            }
        }
        Ok(snapshots)
    }

    /// One attempt: `Ok(None)` when another commit took the snapshot id first.
    async fn try_commit(
        &self,
        changes: &CommitChanges,
        attempt: &mut Attempt,
    ) -> Result<Option<Snapshot>> {
        let sm = self.table.snapshot_manager();
        let latest = sm.latest_snapshot().await?;
        let schema = sm.latest_schema().await?;
        let types: Vec<DataType> = schema
            .partition_fields()?
            .into_iter()
            .map(|f| f.data_type)
            .collect();
        let reader = ManifestReader::new(self.table.file_io().clone(), self.table.location());
        let mut previous = Vec::new();
        if let Some(s) = &latest {
            previous = reader.manifest_list(&s.base_manifest_list).await?;
            previous.extend(reader.manifest_list(&s.delta_manifest_list).await?);
            check_conflicts(&reader, &previous, &changes.entries).await?;
        }
        let uuid = uuid::Uuid::new_v4();
        let mut delta = Vec::new();
        if !changes.entries.is_empty() {
            let name = format!("manifest-{uuid}-0");
            let bytes = encode_manifest(&changes.entries)?;
            let size = bytes.len() as i64;
            self.write(attempt, &name, bytes).await?;
            delta.push(manifest_file_meta(
                name,
                size,
                &changes.entries,
                &types,
                schema.id,
            )?);
        }
        let base_name = format!("manifest-list-{uuid}-1");
        let base_size = self.write_list(attempt, &base_name, &previous).await?;
        let delta_name = format!("manifest-list-{uuid}-2");
        let delta_size = self.write_list(attempt, &delta_name, &delta).await?;
        let index_manifest = match &changes.index_entries {
            None => latest.as_ref().and_then(|s| s.index_manifest.clone()),
            Some(entries) => {
                let name = format!("index-manifest-{uuid}-0");
                self.write(attempt, &name, encode_index_manifest(entries)?)
                    .await?;
                Some(name)
            }
        };
        let delta_rows: i64 = changes
            .entries
            .iter()
            .map(|e| match e.kind {
                FileKind::Add => e.file.row_count,
                FileKind::Delete => -e.file.row_count,
            })
            .sum();
        let prev = latest.as_ref();
        let snapshot = Snapshot {
            version: 3,
            uuid: Some(uuid::Uuid::new_v4().to_string()),
            id: prev.map_or(1, |s| s.id + 1),
            schema_id: schema.id,
            base_manifest_list: base_name,
            base_manifest_list_size: Some(base_size),
            delta_manifest_list: delta_name,
            delta_manifest_list_size: Some(delta_size),
            changelog_manifest_list: None,
            changelog_manifest_list_size: None,
            index_manifest,
            commit_user: changes.commit_user.clone(),
            commit_identifier: changes.commit_identifier,
            commit_kind: changes.kind,
            time_millis: now_millis(),
            total_record_count: Some(
                prev.and_then(|s| s.total_record_count).unwrap_or(0) + delta_rows,
            ),
            delta_record_count: Some(delta_rows),
            changelog_record_count: None,
            watermark: prev.and_then(|s| s.watermark),
            statistics: None,
            properties: None,
            next_row_id: Some(prev.and_then(|s| s.next_row_id).unwrap_or(0)),
            operation: None,
        };
        let json = Bytes::from(snapshot.to_json()?);
        match self
            .table
            .file_io()
            .create_new(&sm.snapshot_path(snapshot.id), json)
            .await
        {
            Ok(()) => Ok(Some(snapshot)),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn manifest_path(&self, name: &str) -> String {
        join(&join(self.table.location(), "manifest"), name)
    }

    async fn write(&self, attempt: &mut Attempt, name: &str, bytes: Vec<u8>) -> Result<()> {
        let path = self.manifest_path(name);
        self.table
            .file_io()
            .write(&path, Bytes::from(bytes))
            .await?;
        attempt.written.push(path);
        Ok(())
    }

    async fn write_list(
        &self,
        attempt: &mut Attempt,
        name: &str,
        metas: &[ManifestFileMeta],
    ) -> Result<i64> {
        let bytes = encode_manifest_list(metas)?;
        let size = bytes.len() as i64;
        self.write(attempt, name, bytes).await?;
        Ok(size)
    }

    async fn clean_up(&self, attempt: &Attempt) {
        for path in &attempt.written {
            if let Err(e) = self.table.file_io().delete(path).await {
                tracing::warn!("cannot remove {path} of a failed commit attempt: {e}");
            }
        }
    }

    /// `LATEST` is only a hint: a failure to write it is logged, not returned.
    async fn write_latest_hint(&self, id: i64) {
        let path = self.table.snapshot_manager().latest_hint_path();
        if let Err(e) = self
            .table
            .file_io()
            .write(&path, Bytes::from(id.to_string()))
            .await
        {
            tracing::warn!("cannot write {path}: {e}");
        }
    }
}

/// Manifest entries of `messages` (Java `ManifestEntryChanges`): per message, deleted files
/// then new files for the append commit, compact-before then compact-after for the compaction.
fn entries_of(messages: &[CommitMessage]) -> (Vec<ManifestEntry>, Vec<ManifestEntry>) {
    let mut append = Vec::new();
    let mut compact = Vec::new();
    for m in messages {
        let entry = |kind: FileKind, file: &DataFileMeta| ManifestEntry {
            kind,
            partition: m.partition.clone(),
            bucket: m.bucket,
            total_buckets: m.total_buckets,
            file: file.clone(),
        };
        append.extend(m.deleted_files.iter().map(|f| entry(FileKind::Delete, f)));
        append.extend(m.new_files.iter().map(|f| entry(FileKind::Add, f)));
        compact.extend(m.compact_before.iter().map(|f| entry(FileKind::Delete, f)));
        compact.extend(m.compact_after.iter().map(|f| entry(FileKind::Add, f)));
    }
    (append, compact)
}

fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Every DELETE must name a live file and no ADD may name one (Java `ConflictDetection`
/// steps 3 to 5).
async fn check_conflicts(
    reader: &ManifestReader,
    previous: &[ManifestFileMeta],
    changes: &[ManifestEntry],
) -> Result<()> {
    if changes.is_empty() {
        return Ok(());
    }
    let mut merger = EntryMerger::new();
    for meta in previous {
        for e in reader.manifest(&meta.file_name).await? {
            merger.push(e)?;
        }
    }
    let mut live: HashSet<Identity> = merger.into_live().iter().map(Identity::of).collect();
    for e in changes {
        let id = Identity::of(e);
        let ok = match e.kind {
            FileKind::Delete => live.remove(&id),
            FileKind::Add => live.insert(id),
        };
        if !ok {
            let what = match e.kind {
                FileKind::Delete => "deletes a file that is not live",
                FileKind::Add => "adds a file that is already live",
            };
            return Err(Error::new(
                ErrorKind::Conflict,
                format!("File deletion conflicts detected: the commit {what}"),
            )
            .with_context("file", e.file.file_name.clone())
            .with_context("bucket", e.bucket.to_string())
            .with_context("level", e.file.level.to_string()));
        }
    }
    Ok(())
}
