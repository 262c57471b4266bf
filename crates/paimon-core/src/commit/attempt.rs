//! One commit attempt (Java `FileStoreCommitImpl#tryCommitOnce`) against the latest snapshot:
//! the attempt's entries (an overwrite recomputes its deletions here) → conflict detection →
//! base list from the merged previous base ++ delta manifests → row tracking → delta manifests
//! and list → index manifest → snapshot JSON created only if absent. The metadata files go
//! through the attempt's [`MetaWriter`], which the caller cleans up when the attempt does not
//! publish.

use std::collections::HashSet;
use std::time::{SystemTime, UNIX_EPOCH};

use bytes::Bytes;

use super::changes::changed_partitions;
use super::conflict::{self, ConflictContext};
use super::index_merge::{combine, DELETION_VECTORS};
use super::merge::merge;
use super::overwrite::{overwrite_entries, overwrite_index, PartitionMatcher};
use super::writer::MetaWriter;
use super::CommitChanges;
use crate::catalog::Table;
use crate::scan::entry_merge::EntryMerger;
use crate::scan::manifest_reader::ManifestReader;
use crate::spec::manifest::{FileKind, IndexManifestEntry, ManifestEntry};
use crate::spec::options::BucketMode;
use crate::spec::snapshot::{CommitKind, Snapshot};
use crate::spec::types::DataType;
use crate::spec::TableSchema;
use crate::{Error, ErrorKind, Result};

/// How an attempt ended (errors that must not be retried are returned as `Err`).
#[derive(Debug)]
pub(crate) enum Outcome {
    /// The snapshot is published.
    Published(Box<Snapshot>),
    /// Another commit took the snapshot id first: retry on the new latest snapshot.
    LostRace,
    /// Publishing failed in a way that may or may not have created the snapshot.
    Uncertain(Error),
}

/// Snapshot JSON format version written by Java 2.0.
const SNAPSHOT_VERSION: i32 = 3;

/// Live entries of `snapshot` whose partition passes `keep`.
pub(crate) async fn live_entries(
    reader: &ManifestReader,
    snapshot: &Snapshot,
    keep: impl Fn(&[u8]) -> Result<bool>,
) -> Result<Vec<ManifestEntry>> {
    let mut metas = reader.manifest_list(&snapshot.base_manifest_list).await?;
    metas.extend(reader.manifest_list(&snapshot.delta_manifest_list).await?);
    let mut merger = EntryMerger::new();
    for m in &metas {
        for e in reader.manifest(&m.file_name).await? {
            if keep(&e.partition)? {
                merger.push(e)?;
            }
        }
    }
    Ok(merger.into_live())
}

async fn index_of(
    reader: &ManifestReader,
    s: Option<&Snapshot>,
) -> Result<Vec<IndexManifestEntry>> {
    match s.and_then(|s| s.index_manifest.as_deref()) {
        Some(name) => reader.index_manifest(name).await,
        None => Ok(vec![]),
    }
}

/// The attempt's data entries and index changes; an overwrite deletes the live files of its
/// partitions at `latest`.
async fn attempt_changes(
    table: &Table,
    schema: &TableSchema,
    changes: &CommitChanges,
    latest: Option<&Snapshot>,
    reader: &ManifestReader,
) -> Result<(Vec<ManifestEntry>, Vec<IndexManifestEntry>)> {
    let Some(scope) = &changes.overwrite else {
        return Ok((changes.entries.clone(), changes.index_changes.clone()));
    };
    let fields = schema.partition_fields()?;
    let o = table.options();
    let matcher = PartitionMatcher::new(scope, &fields, &o.partition_default_name)?;
    let adds: Vec<ManifestEntry> = changes
        .entries
        .iter()
        .filter(|e| e.kind == FileKind::Add)
        .cloned()
        .collect();
    matcher.check_inside(&adds)?;
    let Some(latest) = latest else {
        return Ok((changes.entries.clone(), changes.index_changes.clone()));
    };
    let live = live_entries(reader, latest, |p| matcher.matches(p)).await?;
    let postpone = o.bucket == BucketMode::Postpone;
    let entries = overwrite_entries(&matcher, &live, &changes.entries, postpone)?;
    let index = index_of(reader, Some(latest)).await?;
    let index = overwrite_index(&matcher, &index, &changes.index_changes)?;
    Ok((entries, index))
}

/// Runs one attempt on top of `latest`.
pub(crate) async fn try_commit_once(
    table: &Table,
    changes: &CommitChanges,
    latest: Option<&Snapshot>,
    w: &mut MetaWriter,
) -> Result<Outcome> {
    let sm = table.snapshot_manager();
    let schema = sm.latest_schema().await?;
    let reader = w.reader().clone();
    let (entries, index_changes) =
        attempt_changes(table, &schema, changes, latest, &reader).await?;
    if let Some(latest) = latest {
        check_conflicts(
            table,
            &schema,
            changes.kind,
            latest,
            &entries,
            &index_changes,
        )
        .await?;
    }
    let mut previous = Vec::new();
    if let Some(s) = latest {
        previous = reader.manifest_list(&s.base_manifest_list).await?;
        previous.extend(reader.manifest_list(&s.delta_manifest_list).await?);
    }
    let options = &table.options().commit;
    let merged = merge(previous, w, options).await?;
    let (base_name, base_size) = w.write_list(&merged).await?;
    let id = latest.map_or(1, |s| s.id + 1);
    let first_row_id = latest.and_then(|s| s.next_row_id).unwrap_or(0);
    let mut entries = entries;
    let next_row_id = if table.options().row_tracking_enabled {
        assign_row_ids(&mut entries, id, first_row_id)
    } else {
        first_row_id
    };
    let delta = w.write_manifests(&entries).await?;
    let (delta_name, delta_size) = w.write_list(&delta).await?;
    let index_manifest = index_manifest(table, changes, &index_changes, latest, w).await?;
    let delta_rows = delta_record_count(&entries);
    let snapshot = Snapshot {
        version: SNAPSHOT_VERSION,
        uuid: Some(uuid::Uuid::new_v4().to_string()),
        id,
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
            latest.and_then(|s| s.total_record_count).unwrap_or(0) + delta_rows,
        ),
        delta_record_count: Some(delta_rows),
        changelog_record_count: None,
        watermark: match (changes.watermark, latest.and_then(|s| s.watermark)) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        },
        // Java keeps the statistics file when its schema is the latest one; we approximate the
        // statistics' schema by the previous snapshot's.
        statistics: latest
            .filter(|s| s.schema_id == schema.id)
            .and_then(|s| s.statistics.clone()),
        properties: None,
        next_row_id: Some(next_row_id),
        operation: None,
    };
    publish(table, snapshot).await
}

/// Σ rows of ADDs − Σ rows of DELETEs.
fn delta_record_count(entries: &[ManifestEntry]) -> i64 {
    entries
        .iter()
        .map(|e| match e.kind {
            FileKind::Add => e.file.row_count,
            FileKind::Delete => -e.file.row_count,
        })
        .sum()
}

async fn check_conflicts(
    table: &Table,
    schema: &TableSchema,
    kind: CommitKind,
    latest: &Snapshot,
    entries: &[ManifestEntry],
    index_changes: &[IndexManifestEntry],
) -> Result<()> {
    let has_deletes = entries.iter().any(|e| e.kind == FileKind::Delete)
        || index_changes
            .iter()
            .any(|e| e.index_type == DELETION_VECTORS);
    if kind == CommitKind::Append && !has_deletes {
        return Ok(());
    }
    let partitions: HashSet<Vec<u8>> = changed_partitions(entries, index_changes);
    let reader = ManifestReader::new(table.file_io().clone(), table.location());
    let base = live_entries(&reader, latest, |p| Ok(partitions.contains(p))).await?;
    let fields = schema.partition_fields()?;
    let key_types = if table.options().commit.pk_clustering_override {
        None
    } else {
        key_types(schema)?
    };
    let base_index = if table.options().deletion_vectors_enabled && unaware(table) {
        Some(index_of(&reader, Some(latest)).await?)
    } else {
        None
    };
    let ctx = ConflictContext {
        partition_fields: &fields,
        key_types: key_types.as_deref(),
        base_user: &latest.commit_user,
        dv_index: base_index.as_deref().map(|b| (b, index_changes)),
    };
    conflict::check(&ctx, &base, entries, kind)
}

/// The trimmed primary-key types; `None` for append tables.
pub(crate) fn key_types(schema: &TableSchema) -> Result<Option<Vec<DataType>>> {
    if schema.primary_keys.is_empty() {
        return Ok(None);
    }
    let fields = schema.fields_of(&schema.trimmed_primary_keys())?;
    Ok(Some(fields.into_iter().map(|f| f.data_type).collect()))
}

/// Java `RowTrackingCommitUtils`: sequence numbers of 0 become the snapshot id, APPEND files
/// without a first row id get consecutive ids from `start`; returns the next row id.
fn assign_row_ids(entries: &mut [ManifestEntry], snapshot_id: i64, start: i64) -> i64 {
    let mut next = start;
    for e in entries.iter_mut().filter(|e| e.kind == FileKind::Add) {
        let f = &mut e.file;
        if f.min_sequence_number == 0 {
            f.min_sequence_number = snapshot_id;
            f.max_sequence_number = snapshot_id;
        } else if f.max_sequence_number == 0 {
            f.max_sequence_number = snapshot_id;
        }
        if f.file_source == Some(0) && f.first_row_id.is_none() {
            f.first_row_id = Some(next);
            next += f.row_count;
        }
    }
    next
}

/// The snapshot's index manifest: the previous one when the index does not change, else a new
/// one with the complete state (`index_entries` replaces it, `index_changes` are combined into
/// the previous state).
async fn index_manifest(
    table: &Table,
    changes: &CommitChanges,
    index_changes: &[IndexManifestEntry],
    latest: Option<&Snapshot>,
    w: &mut MetaWriter,
) -> Result<Option<String>> {
    let previous = latest.and_then(|s| s.index_manifest.clone());
    let state = match &changes.index_entries {
        Some(all) if index_changes.is_empty() => all.clone(),
        Some(all) => combine(all.clone(), index_changes, unaware(table))?,
        None if index_changes.is_empty() => return Ok(previous),
        None => {
            let prev = index_of(w.reader(), latest).await?;
            combine(prev, index_changes, unaware(table))?
        }
    };
    Ok(Some(w.write_index_manifest(&state).await?))
}

fn unaware(table: &Table) -> bool {
    table.options().bucket == BucketMode::Dynamic && table.schema().primary_keys.is_empty()
}

/// Creates the snapshot file only if absent. A failure that may hide a created file (or a
/// reported conflict on our own file, a lost acknowledgement) is resolved by comparing the
/// stored JSON with ours.
async fn publish(table: &Table, snapshot: Snapshot) -> Result<Outcome> {
    let json = Bytes::from(snapshot.to_json()?);
    let path = table.snapshot_manager().snapshot_path(snapshot.id);
    let io = table.file_io();
    let result = io.create_new(&path, json.clone()).await;
    let Err(e) = result else {
        return Ok(Outcome::Published(Box::new(snapshot)));
    };
    if e.kind() == ErrorKind::Unsupported {
        return Err(e);
    }
    match io.read(&path).await {
        Ok(stored) if stored == json => Ok(Outcome::Published(Box::new(snapshot))),
        Ok(_) => Ok(Outcome::LostRace),
        Err(_) if e.kind() == ErrorKind::AlreadyExists => Ok(Outcome::LostRace),
        Err(_) => Ok(Outcome::Uncertain(e)),
    }
}

fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commit::test_support::{entry, file};

    #[test]
    fn row_tracking_numbers_append_files_and_stamps_zero_sequences() {
        let mut a = file("a", 10, 0, 0, 0);
        a.min_sequence_number = 0;
        a.max_sequence_number = 0;
        let mut b = file("b", 5, 0, 0, 0);
        b.min_sequence_number = 3;
        b.max_sequence_number = 0;
        let mut c = file("c", 7, 0, 0, 0);
        c.first_row_id = Some(100);
        let mut d = file("d", 2, 0, 0, 0);
        d.file_source = Some(1);
        let mut entries = vec![
            entry(FileKind::Add, 0, a),
            entry(FileKind::Add, 0, b),
            entry(FileKind::Add, 0, c),
            entry(FileKind::Add, 0, d),
            entry(FileKind::Delete, 0, file("e", 4, 0, 0, 0)),
        ];
        assert_eq!(assign_row_ids(&mut entries, 9, 40), 55);
        let f = |i: usize| &entries[i].file;
        assert_eq!(
            (
                f(0).first_row_id,
                f(0).min_sequence_number,
                f(0).max_sequence_number
            ),
            (Some(40), 9, 9)
        );
        assert_eq!(
            (
                f(1).first_row_id,
                f(1).min_sequence_number,
                f(1).max_sequence_number
            ),
            (Some(50), 3, 9)
        );
        assert_eq!(f(2).first_row_id, Some(100));
        assert_eq!(f(3).first_row_id, None, "compaction output keeps its ids");
        assert_eq!(f(4).first_row_id, None, "deletes are untouched");
    }
}
