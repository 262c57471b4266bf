//! Reading manifest lists, manifests and index manifests of a table.

use std::sync::Arc;

use crate::io::{join, FileIO};
use crate::spec::manifest::{
    decode_index_manifest, decode_manifest, decode_manifest_filtered, decode_manifest_list,
    EntryHead, IndexManifestEntry, ManifestEntry, ManifestFileMeta,
};
use crate::Result;

/// A filter on manifest rows by their head, applied while decoding (`true` keeps the row).
pub(crate) type EntryFilter = Arc<dyn Fn(&EntryHead<'_>) -> bool + Send + Sync>;

/// Manifests up to this size are decoded on the calling task.
const INLINE_DECODE_BYTES: usize = 64 * 1024;

/// Locations of the files in `<table>/manifest/`.
#[derive(Debug, Clone)]
pub(crate) struct ManifestReader {
    io: FileIO,
    dir: String,
}

impl ManifestReader {
    pub(crate) fn new(io: FileIO, table_root: &str) -> Self {
        ManifestReader {
            io,
            dir: join(table_root, "manifest"),
        }
    }

    async fn bytes(&self, name: &str) -> Result<(String, bytes::Bytes)> {
        let path = join(&self.dir, name);
        let b = self.io.read(&path).await?;
        Ok((path, b))
    }

    /// All rows of manifest list `name`.
    pub(crate) async fn manifest_list(&self, name: &str) -> Result<Vec<ManifestFileMeta>> {
        let (path, b) = self.bytes(name).await?;
        decode_manifest_list(&b, &path)
    }

    /// All entries of manifest `name`; decoding of a large manifest runs off the I/O task (a
    /// small one decodes faster than a hop to the blocking pool).
    pub(crate) async fn manifest(&self, name: &str) -> Result<Vec<ManifestEntry>> {
        let (path, b) = self.bytes(name).await?;
        if b.len() <= INLINE_DECODE_BYTES {
            return decode_manifest(&b, &path);
        }
        tokio::task::spawn_blocking(move || decode_manifest(&b, &path)).await?
    }

    /// The entries of manifest `name` that `keep` accepts (all when `None`); rejected rows'
    /// file metadata is skipped undecoded where the format allows.
    pub(crate) async fn manifest_filtered(
        &self,
        name: &str,
        keep: Option<EntryFilter>,
    ) -> Result<Vec<ManifestEntry>> {
        let Some(keep) = keep else {
            return self.manifest(name).await;
        };
        let (path, b) = self.bytes(name).await?;
        let inline = b.len() <= INLINE_DECODE_BYTES;
        let decode = move || {
            let mut f = |h: &EntryHead<'_>| keep(h);
            decode_manifest_filtered(&b, &path, Some(&mut f))
        };
        if inline {
            return decode();
        }
        tokio::task::spawn_blocking(decode).await?
    }

    /// All entries of index manifest `name`.
    pub(crate) async fn index_manifest(&self, name: &str) -> Result<Vec<IndexManifestEntry>> {
        let (path, b) = self.bytes(name).await?;
        decode_index_manifest(&b, &path)
    }
}
