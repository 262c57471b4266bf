//! Finding snapshots, tags and schemas of one table (or branch).
//!
//! Mirrors Java `org.apache.paimon.utils.SnapshotManager`, `HintFileUtils`, `TagManager` and
//! `org.apache.paimon.schema.SchemaManager` (Paimon 2.0). `LATEST`/`EARLIEST` hints may be stale:
//! latest = hint if `snapshot-(hint+1)` does not exist, else the max listed id; earliest = hint if
//! `snapshot-hint` exists, else the min listed id.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::io::{join, FileIO};
use crate::spec::schema::TableSchema;
use crate::spec::snapshot::{parse_hint, Snapshot, Tag};
use crate::{Error, ErrorKind, Result};

const SNAPSHOT_PREFIX: &str = "snapshot-";
const SCHEMA_PREFIX: &str = "schema-";
const TAG_PREFIX: &str = "tag-";

/// Reads the metadata files of one table branch: snapshots, tags and schemas.
#[derive(Debug, Clone)]
pub struct SnapshotManager {
    io: FileIO,
    /// Table root (manifests and data live here for every branch).
    table_root: String,
    /// Metadata root: the table root for `main`, `branch/branch-<name>` otherwise.
    meta_root: String,
    schemas: Arc<Mutex<HashMap<i64, Arc<TableSchema>>>>,
}

fn ids_with_prefix(names: &[String], prefix: &str) -> Vec<i64> {
    names
        .iter()
        .filter_map(|n| n.strip_prefix(prefix))
        .filter(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()))
        .filter_map(|rest| rest.parse().ok())
        .collect()
}

impl SnapshotManager {
    /// A manager for `branch` (`None` or `"main"` = the main branch) of the table at `table_root`.
    pub fn new(io: FileIO, table_root: &str, branch: Option<&str>) -> Self {
        let table_root = table_root.trim_end_matches('/').to_string();
        let meta_root = match branch {
            None | Some("main") => table_root.clone(),
            Some(b) => join(&table_root, &format!("branch/branch-{b}")),
        };
        SnapshotManager {
            io,
            table_root,
            meta_root,
            schemas: Arc::default(),
        }
    }

    /// The table root directory.
    pub fn table_root(&self) -> &str {
        &self.table_root
    }

    /// The `FileIO` used.
    pub fn file_io(&self) -> &FileIO {
        &self.io
    }

    fn snapshot_dir(&self) -> String {
        join(&self.meta_root, "snapshot")
    }

    /// Location of the `LATEST` hint.
    pub fn latest_hint_path(&self) -> String {
        join(&self.snapshot_dir(), "LATEST")
    }

    /// Location of the `EARLIEST` hint.
    pub fn earliest_hint_path(&self) -> String {
        join(&self.snapshot_dir(), "EARLIEST")
    }

    /// The metadata root: the table root for `main`, `branch/branch-<name>` otherwise.
    pub fn meta_root(&self) -> &str {
        &self.meta_root
    }

    /// Location of `snapshot-<id>`.
    pub fn snapshot_path(&self, id: i64) -> String {
        join(&self.snapshot_dir(), &format!("{SNAPSHOT_PREFIX}{id}"))
    }

    async fn read_hint(&self, name: &str) -> Result<Option<i64>> {
        let path = join(&self.snapshot_dir(), name);
        match self.io.read(&path).await {
            Ok(b) => match parse_hint(&b) {
                Ok(id) => Ok(Some(id)),
                // A torn or garbled hint is only a hint: fall back to listing.
                Err(_) => Ok(None),
            },
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    async fn listed_snapshot_ids(&self) -> Result<Vec<i64>> {
        let names = self.io.list_names(&self.snapshot_dir()).await?;
        Ok(ids_with_prefix(&names, SNAPSHOT_PREFIX))
    }

    /// The id of the latest snapshot, or `None` for a table without snapshots.
    pub async fn latest_snapshot_id(&self) -> Result<Option<i64>> {
        if let Some(h) = self.read_hint("LATEST").await? {
            if self.io.exists(&self.snapshot_path(h)).await?
                && !self.io.exists(&self.snapshot_path(h + 1)).await?
            {
                return Ok(Some(h));
            }
        }
        Ok(self.listed_snapshot_ids().await?.into_iter().max())
    }

    /// The id of the earliest snapshot still present.
    pub async fn earliest_snapshot_id(&self) -> Result<Option<i64>> {
        if let Some(h) = self.read_hint("EARLIEST").await? {
            if self.io.exists(&self.snapshot_path(h)).await? {
                return Ok(Some(h));
            }
        }
        Ok(self.listed_snapshot_ids().await?.into_iter().min())
    }

    /// Reads `snapshot-<id>`; a missing one is `NotFound` naming the available range.
    pub async fn snapshot(&self, id: i64) -> Result<Snapshot> {
        let path = self.snapshot_path(id);
        let bytes = match self.io.read(&path).await {
            Ok(b) => b,
            Err(e) if e.kind() == ErrorKind::NotFound => {
                let earliest = self.earliest_snapshot_id().await?;
                let latest = self.latest_snapshot_id().await?;
                let range = match (earliest, latest) {
                    (Some(a), Some(b)) => format!("{a}..={b}"),
                    _ => "none".to_string(),
                };
                return Err(Error::not_found(format!("snapshot {id} does not exist"))
                    .with_context("table", self.table_root.clone())
                    .with_context("available", range));
            }
            Err(e) => return Err(e),
        };
        Snapshot::from_json_bytes(&bytes).map_err(|e| e.with_context("file", path))
    }

    /// The latest snapshot, if any.
    pub async fn latest_snapshot(&self) -> Result<Option<Snapshot>> {
        match self.latest_snapshot_id().await? {
            Some(id) => Ok(Some(self.snapshot(id).await?)),
            None => Ok(None),
        }
    }

    /// All snapshots from earliest to latest.
    pub async fn snapshots(&self) -> Result<Vec<Snapshot>> {
        let mut ids = self.listed_snapshot_ids().await?;
        ids.sort_unstable();
        let mut out = Vec::new();
        for id in ids {
            out.push(self.snapshot(id).await?);
        }
        Ok(out)
    }

    /// The latest snapshot committed at or before `millis` (commit time), if any.
    pub async fn snapshot_at_or_before(&self, millis: i64) -> Result<Option<Snapshot>> {
        let (Some(earliest), Some(latest)) = (
            self.earliest_snapshot_id().await?,
            self.latest_snapshot_id().await?,
        ) else {
            return Ok(None);
        };
        // Commit times increase with ids: binary search.
        let (mut lo, mut hi, mut found) = (earliest, latest, None);
        while lo <= hi {
            let mid = lo + (hi - lo) / 2;
            let s = self.snapshot(mid).await?;
            if s.time_millis <= millis {
                found = Some(s);
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        Ok(found)
    }

    fn tag_dir(&self) -> String {
        join(&self.meta_root, "tag")
    }

    /// Reads tag `name`; an unknown tag is `NotFound` listing the known ones.
    pub async fn tag(&self, name: &str) -> Result<Tag> {
        let path = join(&self.tag_dir(), &format!("{TAG_PREFIX}{name}"));
        match self.io.read(&path).await {
            Ok(b) => Tag::from_json_bytes(&b).map_err(|e| e.with_context("file", path)),
            Err(e) if e.kind() == ErrorKind::NotFound => {
                let known = self.tag_names().await?.join(", ");
                Err(Error::not_found(format!("tag '{name}' does not exist"))
                    .with_context("table", self.table_root.clone())
                    .with_context(
                        "tags",
                        if known.is_empty() {
                            "none".into()
                        } else {
                            known
                        },
                    ))
            }
            Err(e) => Err(e),
        }
    }

    /// Names of all tags.
    pub async fn tag_names(&self) -> Result<Vec<String>> {
        let names = self.io.list_names(&self.tag_dir()).await?;
        Ok(names
            .into_iter()
            .filter_map(|n| n.strip_prefix(TAG_PREFIX).map(str::to_string))
            .collect())
    }

    fn schema_dir(&self) -> String {
        join(&self.meta_root, "schema")
    }

    /// Ids of all schema files, ascending.
    pub async fn schema_ids(&self) -> Result<Vec<i64>> {
        let names = self.io.list_names(&self.schema_dir()).await?;
        let mut ids = ids_with_prefix(&names, SCHEMA_PREFIX);
        ids.sort_unstable();
        Ok(ids)
    }

    /// The schema with the highest id.
    pub async fn latest_schema(&self) -> Result<Arc<TableSchema>> {
        let id = self.schema_ids().await?.into_iter().max().ok_or_else(|| {
            Error::not_found("no schema files: not a Paimon table")
                .with_context("table", self.table_root.clone())
        })?;
        self.schema(id).await
    }

    /// Reads `schema-<id>` once and caches it.
    pub async fn schema(&self, id: i64) -> Result<Arc<TableSchema>> {
        if let Some(s) = self.cached_schema(id)? {
            return Ok(s);
        }
        let path = join(&self.schema_dir(), &format!("{SCHEMA_PREFIX}{id}"));
        let bytes = self
            .io
            .read(&path)
            .await
            .map_err(|e| e.with_context("table", self.table_root.clone()))?;
        let schema = Arc::new(
            TableSchema::from_json_bytes(&bytes)
                .map_err(|e| e.with_context("file", path.clone()))?,
        );
        if schema.id != id {
            return Err(Error::data_invalid(format!(
                "schema file says id {} but is named schema-{id}",
                schema.id
            ))
            .with_context("file", path));
        }
        self.schemas
            .lock()
            .map_err(|_| Error::internal("schema cache poisoned"))?
            .insert(id, schema.clone());
        Ok(schema)
    }

    fn cached_schema(&self, id: i64) -> Result<Option<Arc<TableSchema>>> {
        Ok(self
            .schemas
            .lock()
            .map_err(|_| Error::internal("schema cache poisoned"))?
            .get(&id)
            .cloned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::java_fixtures;

    fn manager(rel: &str) -> SnapshotManager {
        let p = java_fixtures().join(rel);
        SnapshotManager::new(FileIO::default(), p.to_str().unwrap(), None)
    }

    #[tokio::test]
    async fn finds_latest_and_earliest_snapshot() {
        let m = manager("parquet/append_09.db/append_09");
        assert_eq!(m.latest_snapshot_id().await.unwrap(), Some(5));
        assert_eq!(m.earliest_snapshot_id().await.unwrap(), Some(1));
        let s = m.snapshot(1).await.unwrap();
        assert_eq!(s.total_record_count, Some(5));
        let e = m.snapshot(9).await.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotFound);
        assert!(e.to_string().contains("1..=5"), "{e}");
        assert_eq!(m.latest_schema().await.unwrap().id, 0);
    }

    #[tokio::test]
    async fn stale_hint_falls_back_to_listing() {
        let dir = tempfile::tempdir().unwrap();
        let snap = dir.path().join("snapshot");
        std::fs::create_dir_all(&snap).unwrap();
        let src = java_fixtures().join("parquet/append_09.db/append_09/snapshot");
        for i in 1..=3 {
            std::fs::copy(
                src.join(format!("snapshot-{i}")),
                snap.join(format!("snapshot-{i}")),
            )
            .unwrap();
        }
        std::fs::write(snap.join("LATEST"), "1").unwrap();
        std::fs::write(snap.join("EARLIEST"), "0").unwrap();
        let m = SnapshotManager::new(FileIO::default(), dir.path().to_str().unwrap(), None);
        assert_eq!(m.latest_snapshot_id().await.unwrap(), Some(3));
        assert_eq!(m.earliest_snapshot_id().await.unwrap(), Some(1));
        let at = m.snapshot_at_or_before(i64::MAX).await.unwrap().unwrap();
        assert_eq!(at.id, 3);
        assert!(m.snapshot_at_or_before(0).await.unwrap().is_none());
        let e = m.tag("nope").await.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotFound);
    }
}
