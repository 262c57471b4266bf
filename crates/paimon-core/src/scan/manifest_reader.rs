//! Reading manifest lists, manifests and index manifests of a table.

use crate::io::{join, FileIO};
use crate::spec::manifest::{
    decode_index_manifest, decode_manifest, decode_manifest_list, IndexManifestEntry,
    ManifestEntry, ManifestFileMeta,
};
use crate::Result;

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

    /// All entries of index manifest `name`.
    pub(crate) async fn index_manifest(&self, name: &str) -> Result<Vec<IndexManifestEntry>> {
        let (path, b) = self.bytes(name).await?;
        decode_index_manifest(&b, &path)
    }
}
