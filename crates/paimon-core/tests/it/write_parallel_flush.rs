//! Primary-key buckets flushed concurrently (`WriteBuilder::with_flush_parallelism`): the same
//! files (bytes for Parquet and ORC), rows, sequence numbers and commit messages as one bucket
//! after another, for forced flushes (spilled or written as level-0 files) and the commit's
//! flush; a failing bucket's error is the call's error, with no message and nothing of the
//! failed flush in the next commit.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use paimon_core::commit::CommitMessage;
use paimon_core::spec::manifest::DataFileMeta;
use paimon_core::Table;
use serde_json::{json, Value};

use crate::fault_store::{FailRule, FailingStore};
use crate::write::{batch, create_table, read_sorted, render_sorted};

const FIELDS: &[(&str, &str)] = &[
    ("dt", "STRING NOT NULL"),
    ("id", "INT NOT NULL"),
    ("b", "BIGINT"),
    ("s", "STRING"),
];

/// Input row `i`: keys repeat across the input, two partitions.
fn line(i: i64) -> Value {
    let dt = if i % 3 == 0 { "a" } else { "b" };
    json!({"dt": dt, "id": (i * 7919) % 20_000, "b": i, "s": format!("s{i}")})
}

/// The aggregation engine's rows: `b` summed, `s` the last value, per (dt, id).
fn model(n: i64) -> Vec<Value> {
    let mut rows: BTreeMap<(String, i64), Value> = BTreeMap::new();
    for i in 0..n {
        let new = line(i);
        let key = (
            new["dt"].as_str().unwrap().to_string(),
            new["id"].as_i64().unwrap(),
        );
        let merged = match rows.get(&key) {
            None => new,
            Some(old) => {
                let mut m = new.clone();
                m["b"] = json!(old["b"].as_i64().unwrap() + new["b"].as_i64().unwrap());
                m
            }
        };
        rows.insert(key, merged);
    }
    rows.into_values().collect()
}

fn options<'a>(extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut o = vec![
        ("bucket", "4"),
        ("merge-engine", "aggregation"),
        ("fields.b.aggregate-function", "sum"),
        ("write-buffer-size", "64 kb"),
        ("target-file-size", "8 kb"),
    ];
    o.extend(extra.iter().copied());
    o
}

/// Writes rows `0..n` in batches of `chunk` rows with `parallelism` concurrent flushes;
/// returns the messages (not committed).
async fn write(
    table: &Table,
    spill: &Path,
    parallelism: usize,
    n: i64,
    chunk: usize,
) -> Vec<CommitMessage> {
    let mut write = table
        .new_write()
        .with_commit_user("parallel")
        .with_spill_dir(spill)
        .with_flush_parallelism(parallelism)
        .build()
        .unwrap();
    let lines: Vec<Value> = (0..n).map(line).collect();
    for rows in lines.chunks(chunk) {
        write.write(&batch(table, rows)).await.unwrap();
    }
    write.prepare_commit().await.unwrap()
}

/// `<prefix><uuid>-<n>.<ext>` without the writer's random UUID.
fn without_uuid(name: &str) -> String {
    let (head, tail) = name.rsplit_once('-').unwrap();
    format!("{}{tail}", &head[..head.len() - 36])
}

/// A file's metadata without its random name part and creation time.
fn normalized(f: &DataFileMeta) -> DataFileMeta {
    let mut f = f.clone();
    f.file_name = without_uuid(&f.file_name);
    f.extra_files = f.extra_files.iter().map(|e| without_uuid(e)).collect();
    f.creation_time = None;
    f
}

fn normalized_messages(messages: &[CommitMessage]) -> Vec<CommitMessage> {
    let files = |v: &[DataFileMeta]| v.iter().map(normalized).collect::<Vec<_>>();
    messages
        .iter()
        .map(|m| {
            let mut m = m.clone();
            m.new_files = files(&m.new_files);
            m.compact_before = files(&m.compact_before);
            m.compact_after = files(&m.compact_after);
            m
        })
        .collect()
}

/// Paths of every file under `dir`, by file name (names hold a writer's UUID: unique).
fn paths(dir: &Path, out: &mut HashMap<String, PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        match e.path().is_dir() {
            true => paths(&e.path(), out),
            false => {
                out.insert(e.file_name().to_string_lossy().to_string(), e.path());
            }
        }
    }
}

/// The bytes of the files the messages add (new and compacted), in message order.
fn file_bytes(table: &Table, messages: &[CommitMessage]) -> Vec<Vec<u8>> {
    let mut by_name = HashMap::new();
    paths(Path::new(table.location()), &mut by_name);
    messages
        .iter()
        .flat_map(|m| m.new_files.iter().chain(&m.compact_after))
        .map(|f| std::fs::read(&by_name[&f.file_name]).unwrap())
        .collect()
}

async fn same_files_as_sequential(case: &str, extra: &[(&str, &str)]) {
    same_files_in_batches_of(case, extra, 500).await;
}

/// [`same_files_as_sequential`] with input batches of `chunk` rows: from 4,096 rows on, the
/// concurrent writer also routes each batch on another core while the next one arrives.
async fn same_files_in_batches_of(case: &str, extra: &[(&str, &str)], chunk: usize) {
    let spill = tempfile::tempdir().unwrap();
    let n = 40_000;
    let opts = options(extra);
    let sequential = create_table(
        &format!("pflush_{case}_seq"),
        FIELDS,
        &["dt"],
        &["dt", "id"],
        &opts,
    )
    .await;
    let parallel = create_table(
        &format!("pflush_{case}_par"),
        FIELDS,
        &["dt"],
        &["dt", "id"],
        &opts,
    )
    .await;
    let seq_messages = write(&sequential, spill.path(), 1, n, chunk).await;
    let par_messages = write(&parallel, spill.path(), 4, n, chunk).await;
    // 2 partitions x 4 buckets, some files rolled.
    assert_eq!(par_messages.len(), 8, "{case}");
    let added = |m: &[CommitMessage]| m.iter().map(|m| m.new_files.len()).sum::<usize>();
    assert!(
        added(&par_messages) > 8,
        "{case}: {} files",
        added(&par_messages)
    );
    assert_eq!(
        normalized_messages(&seq_messages),
        normalized_messages(&par_messages),
        "{case}: commit messages"
    );
    let seq_files = file_bytes(&sequential, &seq_messages);
    let par_files = file_bytes(&parallel, &par_messages);
    if case.starts_with("avro") {
        // Avro files carry a random sync marker: compare sizes (the metadata matched above).
        let sizes = |v: &[Vec<u8>]| v.iter().map(Vec::len).collect::<Vec<_>>();
        assert_eq!(sizes(&seq_files), sizes(&par_files), "{case}: files");
    } else {
        assert!(seq_files == par_files, "{case}: file bytes differ");
    }
    for (t, messages) in [(&sequential, &seq_messages), (&parallel, &par_messages)] {
        t.new_commit()
            .commit_messages(messages, "parallel")
            .await
            .unwrap();
    }
    let want = render_sorted(&parallel, &[batch(&parallel, &model(n))]);
    assert_eq!(
        read_sorted(Path::new(parallel.location())).await,
        want,
        "{case}"
    );
    assert_eq!(
        read_sorted(Path::new(sequential.location())).await,
        want,
        "{case}"
    );
    assert_eq!(
        std::fs::read_dir(spill.path()).unwrap().count(),
        0,
        "{case}: spill left"
    );
}

#[tokio::test]
async fn parallel_flush_writes_the_sequential_files_parquet_spilled() {
    same_files_as_sequential("parquet", &[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_flush_writes_the_sequential_files_parquet_level0_runs() {
    // Every forced flush writes its own level-0 run (flushed together), then compaction on
    // write merges them: compact_before/after must match too.
    same_files_as_sequential("parquet_unspilled", &[("write-buffer-spillable", "false")]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn routing_ahead_writes_the_sequential_files() {
    // Keys repeat across batches and `s` keeps the last value: a batch buffered out of turn
    // changes rows, sequence numbers and file bytes. The last batch (4,000 rows) is routed
    // inline after six routed ahead.
    same_files_in_batches_of("routed", &[], 6_000).await;
}

#[tokio::test]
async fn routing_ahead_on_a_current_thread_runtime_writes_the_sequential_files() {
    same_files_in_batches_of("routed_ct", &[("write-buffer-spillable", "false")], 8_000).await;
}

#[tokio::test]
async fn parallel_flush_writes_the_sequential_files_orc() {
    same_files_as_sequential("orc", &[("file.format", "orc")]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_flush_writes_the_sequential_files_avro() {
    same_files_as_sequential("avro", &[("file.format", "avro")]).await;
}

/// `t` opened through a store whose puts can be made to fail.
async fn through_failing_store(t: &Table) -> (std::sync::Arc<FailingStore>, Table) {
    let store = FailingStore::local();
    let failing = Table::open_with(store.file_io(), t.location(), &HashMap::new())
        .await
        .unwrap();
    (store, failing)
}

/// One bucket's data-file puts fail: the flush's error is that failure, nothing is returned,
/// and after writing the rows again the commit holds each row once.
async fn failing_bucket() {
    let spill = tempfile::tempdir().unwrap();
    let n = 12_000;
    // Without spilling, full buffers are written as level-0 files before the commit: a failed
    // commit must leave those out too.
    let opts = options(&[("write-buffer-spillable", "false")]);
    let t = create_table("pflush_failing", FIELDS, &["dt"], &["dt", "id"], &opts).await;
    let (store, failing) = through_failing_store(&t).await;
    let mut write = failing
        .new_write()
        .with_commit_user("parallel")
        .with_spill_dir(spill.path())
        .with_flush_parallelism(4)
        .build()
        .unwrap();
    let lines: Vec<Value> = (0..n).map(line).collect();
    for chunk in lines.chunks(500) {
        write.write(&batch(&t, chunk)).await.unwrap();
    }
    assert!(store
        .puts
        .lock()
        .unwrap()
        .iter()
        .any(|p| p.contains("/bucket-2/")));
    store.set_rule(FailRule::Always("/bucket-2/".into()));
    let err = write.prepare_commit().await.unwrap_err().to_string();
    assert!(err.contains("injected failure putting"), "{err}");
    assert!(err.contains("/bucket-2/"), "{err}");
    // The other buckets did flush (their files are orphans now).
    let puts = store.puts.lock().unwrap().clone();
    assert!(puts.iter().any(|p| p.contains("/bucket-0/")), "{puts:?}");
    assert!(failing
        .snapshot_manager()
        .latest_snapshot_id()
        .await
        .unwrap()
        .is_none());
    // Write the rows again: the failed flush's files are not in the commit.
    store.set_rule(FailRule::Never);
    for chunk in lines.chunks(500) {
        write.write(&batch(&t, chunk)).await.unwrap();
    }
    let messages = write.prepare_commit().await.unwrap();
    assert_eq!(messages.len(), 8);
    failing
        .new_commit()
        .commit_messages(&messages, write.commit_user())
        .await
        .unwrap();
    let want = render_sorted(&t, &[batch(&t, &model(n))]);
    assert_eq!(read_sorted(Path::new(t.location())).await, want);
}

#[test]
fn a_failing_bucket_is_the_flush_error_without_a_hang() {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(failing_bucket());
        let _ = tx.send(());
    });
    // A panic in the thread drops the sender (an error here); a hang times out.
    rx.recv_timeout(Duration::from_secs(300))
        .expect("the failing flush hung or panicked");
}

/// A batch routed ahead whose rows then fail to reach storage: the next call returns that
/// failure, and every later call refuses (rows of an accepted batch are missing).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_routed_batch_that_fails_to_buffer_leaves_the_write_unusable() {
    let fields = &[("id", "INT NOT NULL"), ("s", "STRING")];
    let opts = [("bucket", "-1"), ("target-file-size", "8 kb")];
    let t = create_table("route_ahead_failing", fields, &[], &[], &opts).await;
    let (store, failing) = through_failing_store(&t).await;
    let mut write = failing
        .new_write()
        .with_commit_user("routed")
        .with_flush_parallelism(2)
        .build()
        .unwrap();
    let lines = |from: i64| -> Vec<Value> {
        (from..from + 5_000)
            .map(|i| json!({"id": i, "s": format!("s{i}")}))
            .collect()
    };
    // Routed ahead: nothing reaches storage before the next call.
    write.write(&batch(&t, &lines(0))).await.unwrap();
    assert!(store.puts.lock().unwrap().is_empty());
    store.set_rule(FailRule::Always("/bucket-0/".into()));
    let err = write.write(&batch(&t, &lines(5_000))).await.unwrap_err();
    assert!(
        err.to_string().contains("injected failure putting"),
        "{err}"
    );
    store.set_rule(FailRule::Never);
    for err in [
        write.write(&batch(&t, &lines(10_000))).await.unwrap_err(),
        write.prepare_commit().await.unwrap_err(),
    ] {
        assert!(err.to_string().contains("could not be buffered"), "{err}");
    }
}
