//! [`FileIO`]: reads, ranged reads, listing and existence checks across stores, and the write
//! side the writer and commit need: write, create-if-absent (the commit's atomic step), delete;
//! and for the catalog: directories created and deleted recursively.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures::TryStreamExt;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload};

use super::local;
use super::storage::{build_store, parse_location, Location};
use crate::{Error, ErrorKind, Result};

/// One entry of a directory listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileStatus {
    /// The last path segment.
    pub name: String,
    /// Size in bytes (0 for directories).
    pub size: u64,
    /// Whether it is a directory (a common prefix).
    pub is_dir: bool,
}

/// One file found by [`FileIO::list_files_recursive`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedFile {
    /// Full location (the listed directory joined with the relative path).
    pub location: String,
    /// The last path segment.
    pub name: String,
    /// Size in bytes.
    pub size: u64,
    /// Last modification time, epoch millis.
    pub modified_millis: i64,
}

/// What a [`FileIO`] and its clones have fetched so far: the whole-file and ranged reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReadStats {
    /// Read requests issued (`read`, `read_range`, one per range of `read_ranges`).
    pub requests: u64,
    /// Bytes received.
    pub bytes: u64,
}

#[derive(Debug, Default)]
struct ReadCounters {
    requests: AtomicU64,
    bytes: AtomicU64,
}

impl ReadCounters {
    fn add(&self, requests: u64, bytes: u64) {
        self.requests.fetch_add(requests, Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
    }
}

/// Storage access for every location a table refers to. Cheap to clone.
#[derive(Clone, Default)]
pub struct FileIO {
    options: Arc<HashMap<String, String>>,
    stores: Arc<Mutex<HashMap<String, Arc<dyn ObjectStore>>>>,
    counters: Arc<ReadCounters>,
    /// Whether local disk is served by a store given with [`FileIO::with_store`]: then every
    /// local read goes to it, none is made inline ([`super::local`]).
    local_store_given: bool,
}

impl std::fmt::Debug for FileIO {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileIO").finish_non_exhaustive()
    }
}

pub(super) fn with_file(e: impl Into<Error>, location: &str) -> Error {
    e.into().with_context("file", location)
}

impl FileIO {
    /// A `FileIO` configured by `options` (catalog and table options).
    pub fn new(options: HashMap<String, String>) -> Self {
        FileIO {
            options: Arc::new(options),
            stores: Arc::default(),
            counters: Arc::default(),
            local_store_given: false,
        }
    }

    /// A `FileIO` whose locations under `url` (`scheme://authority`, e.g. `s3://bucket`, or
    /// `file:///` for local disk) go to `store`, e.g. a store from an engine's registry; other
    /// locations are served as by [`FileIO::new`] with `options`.
    ///
    /// ```
    /// # fn demo() -> paimon_core::Result<()> {
    /// use std::sync::Arc;
    /// let store = Arc::new(object_store::memory::InMemory::new());
    /// let io = paimon_core::FileIO::default().with_store("memory://warehouse", store)?;
    /// # let _ = io;
    /// # Ok(())
    /// # }
    /// ```
    pub fn with_store(mut self, url: &str, store: Arc<dyn ObjectStore>) -> Result<Self> {
        let loc = parse_location(url)?;
        self.local_store_given |= loc.scheme == "file";
        self.stores
            .lock()
            .map_err(|_| Error::internal("FileIO store cache poisoned"))?
            .insert(loc.store_key, store);
        Ok(self)
    }

    /// A `FileIO` over one existing store serving the locations under `url` (see
    /// [`FileIO::with_store`]).
    pub fn from_store(url: &str, store: Arc<dyn ObjectStore>) -> Result<Self> {
        FileIO::default().with_store(url, store)
    }

    /// The reads issued so far through this `FileIO` and its clones.
    pub fn read_stats(&self) -> ReadStats {
        ReadStats {
            requests: self.counters.requests.load(Ordering::Relaxed),
            bytes: self.counters.bytes.load(Ordering::Relaxed),
        }
    }

    /// The store and path for `location`.
    pub fn resolve(&self, location: &str) -> Result<(Arc<dyn ObjectStore>, Path)> {
        let loc: Location = parse_location(location)?;
        let mut stores = self
            .stores
            .lock()
            .map_err(|_| Error::internal("FileIO store cache poisoned"))?;
        if let Some(s) = stores.get(&loc.store_key) {
            return Ok((s.clone(), loc.path));
        }
        let store = build_store(&loc, &self.options)?;
        stores.insert(loc.store_key.clone(), store.clone());
        Ok((store, loc.path))
    }

    /// The path on local disk of `location` when its small reads are made inline
    /// ([`super::local`]): a local location, and no store given for local disk.
    fn inline_path(&self, location: &str) -> Option<std::path::PathBuf> {
        if self.local_store_given {
            return None;
        }
        let loc = parse_location(location).ok()?;
        (loc.scheme == "file").then(|| format!("/{}", loc.path.as_ref()).into())
    }

    /// `ranges` read inline from local disk, when they are ([`super::local::read_ranges`]).
    fn inline_ranges(&self, location: &str, ranges: &[Range<u64>]) -> Result<Option<Vec<Bytes>>> {
        let Some(path) = self.inline_path(location) else {
            return Ok(None);
        };
        let got = local::read_ranges(&path, ranges).map_err(|e| with_file(e, location))?;
        if let Some(got) = &got {
            let bytes = got.iter().map(|b| b.len() as u64).sum();
            self.counters.add(got.len() as u64, bytes);
        }
        Ok(got)
    }

    /// Reads a whole file.
    pub async fn read(&self, location: &str) -> Result<Bytes> {
        if let Some(path) = self.inline_path(location) {
            if let Some(b) = local::read(&path).map_err(|e| with_file(e, location))? {
                self.counters.add(1, b.len() as u64);
                return Ok(b);
            }
        }
        let (store, path) = self.resolve(location)?;
        let r = store.get(&path).await.map_err(|e| with_file(e, location))?;
        let b = r.bytes().await.map_err(|e| with_file(e, location))?;
        self.counters.add(1, b.len() as u64);
        Ok(b)
    }

    /// Reads `range` of a file; a short read is an error.
    pub async fn read_range(&self, location: &str, range: Range<u64>) -> Result<Bytes> {
        let want = range.end.saturating_sub(range.start);
        let inline = self.inline_ranges(location, std::slice::from_ref(&range))?;
        let b = match inline.and_then(|mut got| got.pop()) {
            Some(b) => b,
            None => {
                let (store, path) = self.resolve(location)?;
                let b = store
                    .get_range(&path, range.clone())
                    .await
                    .map_err(|e| with_file(e, location))?;
                self.counters.add(1, b.len() as u64);
                b
            }
        };
        if b.len() as u64 != want {
            return Err(Error::data_invalid("short read")
                .with_context("file", location)
                .with_context("range", format!("{range:?}"))
                .with_context("got", b.len().to_string()));
        }
        Ok(b)
    }

    /// Reads `range`, or less when the file ends first (the start must lie inside the file).
    pub async fn read_range_up_to(&self, location: &str, range: Range<u64>) -> Result<Bytes> {
        let inline = self.inline_ranges(location, std::slice::from_ref(&range))?;
        if let Some(b) = inline.and_then(|mut got| got.pop()) {
            return Ok(b);
        }
        let (store, path) = self.resolve(location)?;
        let b = store
            .get_range(&path, range)
            .await
            .map_err(|e| with_file(e, location))?;
        self.counters.add(1, b.len() as u64);
        Ok(b)
    }

    /// Reads many ranges of one file.
    pub async fn read_ranges(&self, location: &str, ranges: &[Range<u64>]) -> Result<Vec<Bytes>> {
        if let Some(got) = self.inline_ranges(location, ranges)? {
            return Ok(got);
        }
        let (store, path) = self.resolve(location)?;
        let got = store
            .get_ranges(&path, ranges)
            .await
            .map_err(|e| with_file(e, location))?;
        let bytes = got.iter().map(|b| b.len() as u64).sum();
        self.counters.add(got.len() as u64, bytes);
        Ok(got)
    }

    /// The size of a file.
    pub async fn size(&self, location: &str) -> Result<u64> {
        if let Some(path) = self.inline_path(location) {
            if let Some(size) = local::size(&path).map_err(|e| with_file(e, location))? {
                return Ok(size);
            }
        }
        let (store, path) = self.resolve(location)?;
        let m = store
            .head(&path)
            .await
            .map_err(|e| with_file(e, location))?;
        Ok(m.size)
    }

    /// Whether a file exists.
    pub async fn exists(&self, location: &str) -> Result<bool> {
        match self.size(location).await {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Writes a whole file, replacing any existing one (data, manifest and index files, whose
    /// names are unique).
    pub async fn write(&self, location: &str, bytes: Bytes) -> Result<()> {
        let (store, path) = self.resolve(location)?;
        store
            .put(&path, PutPayload::from(bytes))
            .await
            .map_err(|e| with_file(e, location))?;
        Ok(())
    }

    /// Creates a file only if no file exists at `location`, atomically: the commit's step that
    /// decides which writer wins a snapshot id. Fails with [`ErrorKind::AlreadyExists`] when the
    /// file exists, and with [`ErrorKind::Unsupported`] on a store without conditional writes
    /// (for S3, conditional put must be enabled in its configuration).
    pub async fn create_new(&self, location: &str, bytes: Bytes) -> Result<()> {
        let (store, path) = self.resolve(location)?;
        let opts = PutOptions {
            mode: PutMode::Create,
            ..PutOptions::default()
        };
        store
            .put_opts(&path, PutPayload::from(bytes), opts)
            .await
            .map_err(|e| with_file(e, location))?;
        Ok(())
    }

    /// Deletes a file; deleting a missing file succeeds.
    pub async fn delete(&self, location: &str) -> Result<()> {
        let (store, path) = self.resolve(location)?;
        match store.delete(&path).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(with_file(e, location)),
        }
    }

    /// Lists the direct children of a directory (files and sub-directories); a missing
    /// directory lists as empty.
    pub async fn list(&self, dir: &str) -> Result<Vec<FileStatus>> {
        let inline = self.inline_path(dir).and_then(|p| local::list(&p));
        if let Some(found) = inline {
            let mut out: Vec<FileStatus> = found
                .into_iter()
                .map(|(name, size, is_dir)| FileStatus { name, size, is_dir })
                .collect();
            out.sort_by(|a, b| a.name.cmp(&b.name));
            return Ok(out);
        }
        let (store, path) = self.resolve(dir)?;
        let res = match store.list_with_delimiter(Some(&path)).await {
            Ok(r) => r,
            Err(object_store::Error::NotFound { .. }) => return Ok(vec![]),
            Err(e) => return Err(with_file(e, dir)),
        };
        let mut out: Vec<FileStatus> = res
            .common_prefixes
            .iter()
            .filter_map(|p| p.filename().map(|n| (n.to_string(), 0, true)))
            .chain(res.objects.iter().filter_map(|o| {
                o.location
                    .filename()
                    .map(|n| (n.to_string(), o.size, false))
            }))
            .map(|(name, size, is_dir)| FileStatus { name, size, is_dir })
            .collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// Creates a directory and its parents on local disk (Java `FileIO#mkdirs`); object stores
    /// have no directories, so there it does nothing.
    pub async fn create_dir(&self, dir: &str) -> Result<()> {
        let loc = parse_location(dir)?;
        if loc.scheme != "file" {
            return Ok(());
        }
        let local = format!("/{}", loc.path.as_ref());
        tokio::fs::create_dir_all(&local)
            .await
            .map_err(|e| with_file(e, dir))
    }

    /// Deletes everything under `dir` and, on local disk, the directory itself (Java
    /// `FileIO#delete(path, recursive = true)`); a missing directory succeeds.
    pub async fn delete_dir(&self, dir: &str) -> Result<()> {
        let (store, path) = self.resolve(dir)?;
        let objects: Vec<Path> = store
            .list(Some(&path))
            .map_ok(|m| m.location)
            .try_collect()
            .await
            .map_err(|e| with_file(e, dir))?;
        for object in objects {
            match store.delete(&object).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
                Err(e) => return Err(with_file(e, dir)),
            }
        }
        let loc = parse_location(dir)?;
        if loc.scheme == "file" {
            let local = format!("/{}", loc.path.as_ref());
            match tokio::fs::remove_dir_all(&local).await {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(with_file(e, dir)),
            }
        }
        Ok(())
    }

    /// Lists a directory, mapping a storage failure to an error naming it.
    pub async fn list_names(&self, dir: &str) -> Result<Vec<String>> {
        Ok(self.list(dir).await?.into_iter().map(|s| s.name).collect())
    }

    /// Every file under `dir` (recursively) with its size and modification time; a missing
    /// directory lists as empty (maintenance: orphan clean-up, expiration).
    pub async fn list_files_recursive(&self, dir: &str) -> Result<Vec<ListedFile>> {
        let (store, path) = self.resolve(dir)?;
        let metas: Vec<object_store::ObjectMeta> = match store.list(Some(&path)).try_collect().await
        {
            Ok(m) => m,
            Err(object_store::Error::NotFound { .. }) => return Ok(vec![]),
            Err(e) => return Err(with_file(e, dir)),
        };
        let prefix = path.as_ref();
        let mut out: Vec<ListedFile> = metas
            .into_iter()
            .filter_map(|m| {
                let full = m.location.as_ref();
                let rest = full.strip_prefix(prefix)?.trim_start_matches('/');
                let name = m.location.filename()?.to_string();
                Some(ListedFile {
                    location: join(dir.trim_end_matches('/'), rest),
                    name,
                    size: m.size,
                    modified_millis: m.last_modified.timestamp_millis(),
                })
            })
            .collect();
        out.sort_by(|a, b| a.location.cmp(&b.location));
        Ok(out)
    }

    /// Streams a listing recursively (used by tooling; not on read paths).
    pub async fn list_recursive(&self, dir: &str) -> Result<Vec<String>> {
        let (store, path) = self.resolve(dir)?;
        store
            .list(Some(&path))
            .map_ok(|m| m.location.to_string())
            .try_collect()
            .await
            .map_err(|e| with_file(e, dir))
    }
}

/// Joins a directory location and a relative path with one `/`.
pub fn join(dir: &str, name: &str) -> String {
    if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn inline_local_reads_equal_the_store_s() {
        // The same reads through the inline path (default) and through a local store given
        // for local disk (no inline reads): same bytes, same errors' kinds, same counts; in a
        // directory named as Java names escaped partitions.
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("dt=2024-01-01 10%3A00");
        std::fs::create_dir(&sub).unwrap();
        let data: Vec<u8> = (0..70_000u32).map(|i| (i % 253) as u8).collect();
        std::fs::write(sub.join("f.bin"), &data).unwrap();
        let f = format!("{}/f.bin", sub.to_str().unwrap());
        let missing = format!("{}/none.bin", sub.to_str().unwrap());
        let inline = FileIO::default();
        let store = Arc::new(object_store::local::LocalFileSystem::new());
        let given = FileIO::default().with_store("file:///", store).unwrap();
        assert!(inline.inline_path(&f).is_some() && given.inline_path(&f).is_none());
        for io in [&inline, &given] {
            assert_eq!(io.read(&f).await.unwrap(), &data[..]);
            assert_eq!(io.read_range(&f, 100..200).await.unwrap(), &data[100..200]);
            let tail = io.read_range_up_to(&f, 65_000..80_000).await.unwrap();
            assert_eq!(tail, &data[65_000..]);
            let got = io.read_ranges(&f, &[0..3, 69_990..70_000]).await.unwrap();
            assert_eq!(got, vec![&data[..3], &data[69_990..]]);
            assert_eq!(io.size(&f).await.unwrap(), 70_000);
            assert!(io.exists(&f).await.unwrap());
            assert!(!io.exists(&missing).await.unwrap());
            assert_eq!(
                io.read(&missing).await.unwrap_err().kind(),
                ErrorKind::NotFound
            );
            assert_eq!(
                io.read_range(&f, 69_000..71_000).await.unwrap_err().kind(),
                ErrorKind::DataInvalid
            );
            assert!(io.read_range(&f, 80_000..80_001).await.is_err());
        }
        assert_eq!(inline.read_stats(), given.read_stats());
    }

    #[tokio::test]
    async fn inline_local_listings_equal_the_store_s() {
        // Plain directories (listed inline) and ones with names the store encodes or skips
        // (listed by the store either way): same entries through both.
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_str().unwrap().to_string();
        let plain = dir.path().join("t");
        std::fs::create_dir_all(plain.join("bucket-0")).unwrap();
        std::fs::write(plain.join("schema-1"), vec![7u8; 1234]).unwrap();
        std::fs::write(plain.join("schema-0"), b"{}").unwrap();
        let odd = dir.path().join("p");
        std::fs::create_dir_all(odd.join("dt=2024-01-01 10%3A00")).unwrap();
        std::fs::write(odd.join("x#12"), b"").unwrap();
        std::fs::write(odd.join("y"), b"yy").unwrap();
        let inline = FileIO::default();
        let store = Arc::new(object_store::local::LocalFileSystem::new());
        let given = FileIO::default().with_store("file:///", store).unwrap();
        for sub in ["t", "t/bucket-0", "p", "missing"] {
            let d = format!("{root}/{sub}");
            let a = inline.list(&d).await.unwrap();
            let b = given.list(&d).await.unwrap();
            assert_eq!(a, b, "{sub}");
        }
        let names = inline.list_names(&format!("{root}/t")).await.unwrap();
        assert_eq!(names, ["bucket-0", "schema-0", "schema-1"]);
    }

    #[tokio::test]
    async fn reads_lists_and_reports_missing_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_str().unwrap().to_string();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("a.txt"), b"hello world").unwrap();
        let io = FileIO::default();
        let a = join(&root, "a.txt");
        assert_eq!(
            io.read(&a).await.unwrap(),
            Bytes::from_static(b"hello world")
        );
        assert_eq!(
            io.read_range(&a, 6..11).await.unwrap(),
            Bytes::from_static(b"world")
        );
        assert_eq!(
            io.read_range(&a, 6..20).await.unwrap_err().kind(),
            ErrorKind::DataInvalid
        );
        assert!(io.read_range(&a, 30..40).await.is_err());
        assert_eq!(
            io.read_stats(),
            ReadStats {
                requests: 3,
                bytes: 21
            }
        );
        assert_eq!(
            io.clone()
                .read_ranges(&a, &[0..1, 2..4])
                .await
                .unwrap()
                .len(),
            2
        );
        assert_eq!(io.read_stats().bytes, 24);
        assert_eq!(
            io.read_range_up_to(&a, 6..20).await.unwrap(),
            Bytes::from_static(b"world")
        );
        assert!(io.read_range_up_to(&a, 20..30).await.is_err());
        assert_eq!(io.size(&a).await.unwrap(), 11);
        let names: Vec<_> = io.list(&root).await.unwrap();
        assert_eq!(names.len(), 2);
        assert!(names.iter().any(|s| s.name == "sub" && s.is_dir));
        let missing = join(&root, "nope");
        let e = io.read(&missing).await.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotFound);
        assert!(e.to_string().contains("nope"));
        assert!(!io.exists(&missing).await.unwrap());
        assert!(io.list(&join(&root, "nodir")).await.unwrap().is_empty());
        let via_url = format!("file://{}", a);
        assert_eq!(io.size(&via_url).await.unwrap(), 11);
    }

    #[tokio::test]
    async fn writes_creates_only_if_absent_and_deletes_on_local_disk() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_str().unwrap().to_string();
        let io = FileIO::default();
        let f = join(&root, "snapshot/snapshot-1");
        io.create_new(&f, Bytes::from_static(b"one")).await.unwrap();
        let e = io
            .create_new(&f, Bytes::from_static(b"two"))
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::AlreadyExists, "{e}");
        assert!(e.to_string().contains("snapshot-1"), "{e}");
        assert_eq!(io.read(&f).await.unwrap(), Bytes::from_static(b"one"));
        io.write(&f, Bytes::from_static(b"three")).await.unwrap();
        assert_eq!(io.read(&f).await.unwrap(), Bytes::from_static(b"three"));
        assert_eq!(
            io.list_names(&join(&root, "snapshot")).await.unwrap(),
            ["snapshot-1"]
        );
        io.delete(&f).await.unwrap();
        assert!(!io.exists(&f).await.unwrap());
        io.delete(&f).await.unwrap();
    }

    #[tokio::test]
    async fn serves_locations_from_a_given_store() {
        let store = Arc::new(object_store::memory::InMemory::new());
        let io = FileIO::from_store("memory://wh", store.clone()).unwrap();
        io.write("memory://wh/db.db/t/a", Bytes::from_static(b"abc"))
            .await
            .unwrap();
        // The bytes went to the given store, under the path after the authority.
        let got = store.get(&Path::from("db.db/t/a")).await.unwrap();
        assert_eq!(got.bytes().await.unwrap(), Bytes::from_static(b"abc"));
        assert_eq!(
            io.read_range("memory://wh/db.db/t/a", 1..3).await.unwrap(),
            Bytes::from_static(b"bc")
        );
        let e = io
            .create_new("memory://wh/db.db/t/a", Bytes::new())
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::AlreadyExists);
        assert_eq!(io.list_names("memory://wh/db.db/t").await.unwrap(), ["a"]);
        // Another authority has no store configured.
        assert!(io.read("memory://other/x").await.is_err());
    }
}
