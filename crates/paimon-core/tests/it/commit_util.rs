//! Helpers of the commit tests: private copies of pypaimon fixture tables under
//! `target/committed/<test>` (registered for `scripts/check-reencoded.py`), writer messages
//! made of copies of live data files, and [`FailingStore`], a store that fails chosen puts.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures::stream::BoxStream;
use object_store::path::Path as StorePath;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult,
};
use paimon_core::commit::CommitMessage;
use paimon_core::scan::DataSplit;
use paimon_core::{FileIO, Table};
use serde_json::json;

use crate::common::{copy_dir, json_rows, render};
use crate::pypaimon::pypaimon_fixtures;

/// `target/committed` of the repository.
pub fn committed_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/committed")
}

/// A fresh copy of pypaimon fixture `table` at `target/committed/<test>/warehouse/fixtures.db`
/// (`None` when the fixtures are missing); returns the table directory.
pub fn fixture_copy(test: &str, table: &str) -> Option<PathBuf> {
    let root = pypaimon_fixtures()?;
    let warehouse = committed_root().join(test).join("warehouse");
    let _ = std::fs::remove_dir_all(committed_root().join(test));
    let to = warehouse.join("fixtures.db").join(table);
    copy_dir(&root.join("warehouse/fixtures.db").join(table), &to);
    Some(to)
}

/// Registers the copy made by [`fixture_copy`] for the pypaimon check: pypaimon must read it
/// as the original minus the rows whose `drop_where` columns print as the given values.
pub fn register_for_pypaimon(test: &str, table: &str, drop_where: serde_json::Value) {
    let Some(root) = pypaimon_fixtures() else {
        return;
    };
    let index = json!({ "tables": [{
        "table": format!("fixtures.{table}"),
        "original": root.join("warehouse").to_str().unwrap(),
        "rewritten": committed_root().join(test).join("warehouse").to_str().unwrap(),
        "drop_where": drop_where,
    }]});
    let path = committed_root().join(format!("tables-{test}.json"));
    std::fs::write(path, index.to_string()).unwrap();
}

/// Opens the table at `path`.
pub async fn open(path: &Path) -> Table {
    Table::open(path.to_str().unwrap()).await.unwrap()
}

/// The data splits of the latest snapshot (or of `snapshot`).
pub async fn splits(table: &Table, snapshot: Option<i64>) -> Vec<DataSplit> {
    let mut b = table.scan();
    if let Some(id) = snapshot {
        b = b.with_snapshot(paimon_core::scan::SnapshotSelector::Id(id));
    }
    let plan = b.build().unwrap().plan().await.unwrap();
    plan.splits.iter().map(|s| s.as_data().clone()).collect()
}

/// Messages adding copies (new names, as a writer would write them) of the files of
/// `splits`, one message per split.
pub fn copies(splits: &[DataSplit]) -> Vec<CommitMessage> {
    splits
        .iter()
        .map(|d| {
            let mut m = CommitMessage::new(d.partition.clone(), d.bucket, d.total_buckets);
            for f in &d.files {
                let mut file = f.clone();
                let ext = f.file_name.rsplit('.').next().unwrap_or("parquet");
                file.file_name = format!("data-{}-0.{ext}", uuid::Uuid::new_v4());
                std::fs::copy(
                    d.file_location(f),
                    format!("{}/{}", d.bucket_path, file.file_name),
                )
                .unwrap();
                m.new_files.push(file);
            }
            m
        })
        .collect()
}

/// The rows of `splits`, rendered and sorted.
pub async fn rows_of(table: &Table, splits: &[DataSplit]) -> Vec<String> {
    let splits = splits
        .iter()
        .map(|d| paimon_core::Split::Data(d.clone()))
        .collect();
    render(
        &json_rows(&table.scan().build().unwrap().reader(), splits)
            .await
            .unwrap(),
    )
}

/// Every row of the latest snapshot of the table at `path`, rendered and sorted.
pub async fn all_rows(path: &Path) -> Vec<String> {
    let t = open(path).await;
    let s = splits(&t, None).await;
    rows_of(&t, &s).await
}

/// Names of the files in `<table>/manifest`, sorted.
pub fn manifest_files(table: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(table.join("manifest"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    v.sort();
    v
}

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

/// An object store that fails puts by [`FailRule`] and records the paths put.
#[derive(Debug)]
pub struct FailingStore {
    inner: Arc<dyn ObjectStore>,
    rule: Mutex<FailRule>,
    seen: AtomicUsize,
    /// Every path put (successfully or not), in order.
    pub puts: Mutex<Vec<String>>,
}

impl FailingStore {
    /// Wraps the local file system.
    pub fn local() -> Arc<Self> {
        Arc::new(FailingStore {
            inner: Arc::new(object_store::local::LocalFileSystem::new()),
            rule: Mutex::new(FailRule::Never),
            seen: AtomicUsize::new(0),
            puts: Mutex::new(vec![]),
        })
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
        self.inner.put_multipart_opts(location, opts).await
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
        self.inner.delete_stream(locations)
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
