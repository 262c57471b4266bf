//! Writing the metadata files of one commit attempt: manifests (rolling at
//! `manifest.target-file-size`, size checked every 1000 entries as Java's `ManifestFile#write`),
//! manifest lists and index manifests, named `manifest-<uuid>-<n>`, `manifest-list-<uuid>-<n>`
//! and `index-manifest-<uuid>-<n>` with one UUID per attempt and counters per kind. Every path
//! written is remembered so that a failed attempt can remove its files.

use bytes::Bytes;

use super::manifest_meta::manifest_file_meta;
use crate::io::{join, FileIO};
use crate::scan::manifest_reader::ManifestReader;
use crate::spec::manifest::{
    encode_index_manifest, encode_manifest, encode_manifest_list, IndexManifestEntry,
    ManifestEntry, ManifestFileMeta,
};
use crate::spec::types::DataType;
use crate::Result;

/// Entries between two size checks of the rolling manifest writer (Java
/// `RollingFileWriter.CHECK_ROLLING_RECORD_CNT`).
const ROLLING_CHECK_ENTRIES: usize = 1000;

/// The metadata writer of one attempt.
pub(crate) struct MetaWriter {
    io: FileIO,
    dir: String,
    reader: ManifestReader,
    partition_types: Vec<DataType>,
    schema_id: i64,
    target_size: u64,
    uuid: String,
    counters: [usize; 3],
    /// Paths written so far, in order.
    pub(crate) written: Vec<String>,
}

impl MetaWriter {
    pub(crate) fn new(
        io: FileIO,
        table_root: &str,
        partition_types: Vec<DataType>,
        schema_id: i64,
        target_size: u64,
    ) -> Self {
        MetaWriter {
            reader: ManifestReader::new(io.clone(), table_root),
            io,
            dir: join(table_root, "manifest"),
            partition_types,
            schema_id,
            target_size,
            uuid: uuid::Uuid::new_v4().to_string(),
            counters: [0; 3],
            written: vec![],
        }
    }

    pub(crate) fn reader(&self) -> &ManifestReader {
        &self.reader
    }

    pub(crate) fn partition_types(&self) -> &[DataType] {
        &self.partition_types
    }

    fn next_name(&mut self, kind: usize, prefix: &str) -> String {
        let n = self.counters[kind];
        self.counters[kind] += 1;
        format!("{prefix}-{}-{n}", self.uuid)
    }

    async fn put(&mut self, name: &str, bytes: Vec<u8>) -> Result<i64> {
        let path = join(&self.dir, name);
        let size = bytes.len() as i64;
        // Remembered before the put: a put that fails half-way may leave a file behind.
        self.written.push(path.clone());
        self.io.write(&path, Bytes::from(bytes)).await?;
        Ok(size)
    }

    /// Writes `entries` as manifests of about the target size; none when there are none.
    pub(crate) async fn write_manifests(
        &mut self,
        entries: &[ManifestEntry],
    ) -> Result<Vec<ManifestFileMeta>> {
        let mut metas = Vec::new();
        let mut start = 0;
        let mut end = 0;
        while end < entries.len() {
            end = (end + ROLLING_CHECK_ENTRIES).min(entries.len());
            let bytes = encode_manifest(&entries[start..end])?;
            if bytes.len() as u64 >= self.target_size || end == entries.len() {
                metas.push(self.write_encoded(&entries[start..end], bytes).await?);
                start = end;
            }
        }
        Ok(metas)
    }

    async fn write_encoded(
        &mut self,
        entries: &[ManifestEntry],
        bytes: Vec<u8>,
    ) -> Result<ManifestFileMeta> {
        let name = self.next_name(0, "manifest");
        let size = self.put(&name, bytes).await?;
        manifest_file_meta(name, size, entries, &self.partition_types, self.schema_id)
    }

    /// Writes one manifest list; returns its name and size.
    pub(crate) async fn write_list(&mut self, metas: &[ManifestFileMeta]) -> Result<(String, i64)> {
        let name = self.next_name(1, "manifest-list");
        let size = self.put(&name, encode_manifest_list(metas)?).await?;
        Ok((name, size))
    }

    /// Writes one index manifest (ADD rows only); returns its name.
    pub(crate) async fn write_index_manifest(
        &mut self,
        entries: &[IndexManifestEntry],
    ) -> Result<String> {
        let name = self.next_name(2, "index-manifest");
        self.put(&name, encode_index_manifest(entries)?).await?;
        Ok(name)
    }

    /// Removes every file this writer wrote (a failed attempt), logging failures.
    pub(crate) async fn clean_up(&mut self) {
        for path in self.written.drain(..) {
            if let Err(e) = self.io.delete(&path).await {
                tracing::warn!("cannot remove {path} of a failed commit attempt: {e}");
            }
        }
    }
}
