//! [`FailingStore`]: local disk behind an `ObjectStore` that fails chosen puts (by
//! [`FailRule`]) and, optionally, the n-th delete; the crash tests of commit and expiration.

use std::fmt;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures::stream::BoxStream;
use futures::StreamExt;
use object_store::path::Path as StorePath;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    ObjectStoreExt, PutMultipartOptions, PutOptions, PutPayload, PutResult,
};
use paimon_core::FileIO;

/// When a [`FailingStore`] fails a put.
#[derive(Debug, Clone, Default)]
pub enum FailRule {
    /// Never.
    #[default]
    Never,
    /// The `n`-th put from now (0-based), once.
    Nth(usize),
    /// Every put whose path contains the pattern, once; with `after_write` the put is applied
    /// before the error is returned (a lost acknowledgement).
    Matching { pattern: String, after_write: bool },
    /// Every put whose path contains the pattern, always, without writing.
    Always(String),
}

/// An object store that fails puts by [`FailRule`], records the paths put, and fails the
/// n-th delete when asked ([`FailingStore::fail_delete`]).
#[derive(Debug)]
pub struct FailingStore {
    inner: Arc<dyn ObjectStore>,
    rule: Mutex<FailRule>,
    seen: AtomicUsize,
    /// Deletes so far, and the 1-based delete that fails (0: none).
    deletes: Arc<AtomicUsize>,
    fail_delete_at: AtomicUsize,
    /// Every path put (successfully or not), in order.
    pub puts: Mutex<Vec<String>>,
    /// Every path a multipart upload was started for, in order.
    pub multiparts: Mutex<Vec<String>>,
    /// Multipart uploads to paths containing this pattern fail their second part.
    pub fail_parts: Mutex<Option<String>>,
    /// The sizes of the parts of every multipart upload, in upload order.
    pub part_sizes: Arc<Mutex<Vec<usize>>>,
    /// Multipart uploads aborted.
    pub aborts: Arc<AtomicUsize>,
}

impl FailingStore {
    /// Wraps the local file system.
    pub fn local() -> Arc<Self> {
        Arc::new(FailingStore {
            inner: Arc::new(object_store::local::LocalFileSystem::new()),
            rule: Mutex::new(FailRule::Never),
            seen: AtomicUsize::new(0),
            deletes: Arc::default(),
            fail_delete_at: AtomicUsize::new(0),
            puts: Mutex::new(vec![]),
            multiparts: Mutex::new(vec![]),
            fail_parts: Mutex::new(None),
            part_sizes: Arc::default(),
            aborts: Arc::default(),
        })
    }

    /// Fails the `n`-th delete from now (counting from 1), once.
    pub fn fail_delete(&self, n: usize) {
        self.deletes.store(0, Ordering::SeqCst);
        self.fail_delete_at.store(n, Ordering::SeqCst);
    }

    /// Sets the rule (counting puts from now) and clears the recorded puts.
    pub fn set_rule(&self, rule: FailRule) {
        *self.rule.lock().unwrap() = rule;
        self.seen.store(0, Ordering::SeqCst);
        self.puts.lock().unwrap().clear();
    }

    /// A `FileIO` serving local paths through this store.
    pub fn file_io(self: &Arc<Self>) -> FileIO {
        FileIO::from_store("file:///", self.clone()).unwrap()
    }

    /// Whether this put fails, and whether it is applied first.
    fn decide(&self, path: &str) -> Option<bool> {
        let n = self.seen.fetch_add(1, Ordering::SeqCst);
        self.puts.lock().unwrap().push(path.to_string());
        let mut rule = self.rule.lock().unwrap();
        let hit = match &*rule {
            FailRule::Never => None,
            FailRule::Nth(k) => (n == *k).then_some(false),
            FailRule::Matching {
                pattern,
                after_write,
            } => path.contains(pattern.as_str()).then_some(*after_write),
            FailRule::Always(pattern) => return path.contains(pattern.as_str()).then_some(false),
        };
        if hit.is_some() {
            *rule = FailRule::Never;
        }
        hit
    }
}

impl fmt::Display for FailingStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FailingStore({})", self.inner)
    }
}

/// A multipart upload recording its part sizes; with `fail`, its second part fails.
#[derive(Debug)]
struct RecordingUpload {
    inner: Box<dyn MultipartUpload>,
    parts: usize,
    fail: bool,
    sizes: Arc<Mutex<Vec<usize>>>,
    aborts: Arc<AtomicUsize>,
    path: StorePath,
}

#[async_trait::async_trait]
impl MultipartUpload for RecordingUpload {
    fn put_part(&mut self, data: PutPayload) -> object_store::UploadPart {
        self.parts += 1;
        self.sizes.lock().unwrap().push(data.content_length());
        if self.fail && self.parts == 2 {
            let err = injected(&self.path);
            return Box::pin(async move { Err(err) });
        }
        self.inner.put_part(data)
    }

    async fn complete(&mut self) -> object_store::Result<PutResult> {
        self.inner.complete().await
    }

    async fn abort(&mut self) -> object_store::Result<()> {
        self.aborts.fetch_add(1, Ordering::SeqCst);
        self.inner.abort().await
    }
}

fn injected(path: &StorePath) -> object_store::Error {
    object_store::Error::Generic {
        store: "FailingStore",
        source: format!("injected failure putting {path}").into(),
    }
}

#[async_trait::async_trait]
impl ObjectStore for FailingStore {
    async fn put_opts(
        &self,
        location: &StorePath,
        payload: PutPayload,
        opts: PutOptions,
    ) -> object_store::Result<PutResult> {
        match self.decide(location.as_ref()) {
            None => self.inner.put_opts(location, payload, opts).await,
            Some(false) => Err(injected(location)),
            Some(true) => {
                self.inner.put_opts(location, payload, opts).await?;
                Err(injected(location))
            }
        }
    }

    async fn put_multipart_opts(
        &self,
        location: &StorePath,
        opts: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        let path = location.as_ref().to_string();
        self.multiparts.lock().unwrap().push(path.clone());
        let upload = self.inner.put_multipart_opts(location, opts).await?;
        let fail = self.fail_parts.lock().unwrap().clone();
        Ok(Box::new(RecordingUpload {
            inner: upload,
            parts: 0,
            fail: fail.is_some_and(|p| path.contains(&p)),
            sizes: self.part_sizes.clone(),
            aborts: self.aborts.clone(),
            path: location.clone(),
        }))
    }

    async fn get_opts(
        &self,
        location: &StorePath,
        options: GetOptions,
    ) -> object_store::Result<GetResult> {
        self.inner.get_opts(location, options).await
    }

    async fn get_ranges(
        &self,
        location: &StorePath,
        ranges: &[Range<u64>],
    ) -> object_store::Result<Vec<Bytes>> {
        self.inner.get_ranges(location, ranges).await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, object_store::Result<StorePath>>,
    ) -> BoxStream<'static, object_store::Result<StorePath>> {
        let (inner, deletes) = (self.inner.clone(), self.deletes.clone());
        let fail_at = self.fail_delete_at.load(Ordering::SeqCst);
        locations
            .then(move |loc| {
                let (inner, deletes) = (inner.clone(), deletes.clone());
                async move {
                    let loc = loc?;
                    if deletes.fetch_add(1, Ordering::SeqCst) + 1 == fail_at {
                        return Err(object_store::Error::Generic {
                            store: "FailingStore",
                            source: format!("injected failure deleting {loc}").into(),
                        });
                    }
                    inner.delete(&loc).await?;
                    Ok(loc)
                }
            })
            .boxed()
    }

    fn list(
        &self,
        prefix: Option<&StorePath>,
    ) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.inner.list(prefix)
    }

    async fn list_with_delimiter(
        &self,
        prefix: Option<&StorePath>,
    ) -> object_store::Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(
        &self,
        from: &StorePath,
        to: &StorePath,
        options: CopyOptions,
    ) -> object_store::Result<()> {
        self.inner.copy_opts(from, to, options).await
    }
}
