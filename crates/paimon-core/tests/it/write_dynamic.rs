//! Dynamic-bucket (`bucket = -1`) and postpone-bucket (`bucket = -2`) primary-key writes.
//!
//! Dynamic: random upserts and deletes over several commits, read back after each commit
//! against a model; every key stays in one bucket across commits and writers, bucket sizes
//! respect `dynamic-bucket.target-row-num`, and the `HASH` index files hold exactly the key
//! hashes of their bucket. Interop: `HASH` files written by pypaimon 2.1.0 decode and
//! re-encode byte for byte; we upsert into a pypaimon-written table (its keys keep pypaimon's
//! buckets); `scripts/check-written.py` has pypaimon read our tables and upsert into them.
//!
//! Postpone: files land in `bucket-postpone` as Java writes them (Avro, unsorted, sequence
//! number -1, `_TOTAL_BUCKETS` -2, Java's file prefix), and batch reads skip them as Java does;
//! postpone compaction moves their rows into real buckets (random upserts and deletes over
//! several writes and compactions against a model).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use futures::TryStreamExt;
use paimon_core::index::hash_index::{decode_hashes, encode_hashes};
use paimon_core::render::batch_to_json_rows;
use paimon_core::spec::binary_row::BinaryRow;
use paimon_core::spec::datum::Datum;
use paimon_core::spec::manifest::{decode_index_manifest, IndexManifestEntry};
use paimon_core::spec::types::{DataType, TypeKind};
use paimon_core::Table;
use serde_json::{json, Value};

use crate::common::copy_dir;
use crate::write::{batch, create_table, read_sorted, save_expected, written_db};

/// A small deterministic generator (LCG), so failures replay.
struct Rng(u64);

impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// Java `BinaryRow#hashCode` of a trimmed primary key `id BIGINT`.
fn key_hash(id: i64) -> i32 {
    BinaryRow::encode(
        &[Some(Datum::BigInt(id))],
        &[DataType::not_null(TypeKind::BigInt)],
    )
    .unwrap()
    .hash_code()
}

/// The live HASH entries of the latest snapshot with their hashes.
async fn hash_index(t: &Table) -> Vec<(IndexManifestEntry, Vec<i32>)> {
    let snapshot = t
        .snapshot_manager()
        .latest_snapshot()
        .await
        .unwrap()
        .unwrap();
    let Some(name) = snapshot.index_manifest else {
        return vec![];
    };
    let root = Path::new(t.location());
    let path = root.join("manifest").join(&name);
    let entries = decode_index_manifest(&std::fs::read(&path).unwrap(), &name).unwrap();
    entries
        .into_iter()
        .filter(|e| e.index_type == "HASH")
        .map(|e| {
            let p = root.join("index").join(&e.file_name);
            let bytes = std::fs::read(&p).unwrap();
            let hashes = decode_hashes(&bytes, &e.file_name).unwrap();
            assert_eq!(e.row_count as usize, hashes.len(), "{}", e.file_name);
            assert_eq!(e.file_size as usize, bytes.len(), "{}", e.file_name);
            (e, hashes)
        })
        .collect()
}

/// Every row read split by split: (dt, id) → (bucket, v).
async fn rows_by_bucket(t: &Table) -> Vec<((String, i64), (i32, Value))> {
    let scan = t.scan().build().unwrap();
    let plan = scan.plan().await.unwrap();
    let mut out = Vec::new();
    for split in plan.splits {
        let bucket = split.as_data().bucket;
        let batches: Vec<RecordBatch> = scan
            .reader()
            .read(vec![split])
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        for b in &batches {
            for r in batch_to_json_rows(b, &t.schema().fields).unwrap() {
                let key = (
                    r["dt"].as_str().unwrap().to_string(),
                    r["id"].as_i64().unwrap(),
                );
                out.push((key, (bucket, r["v"].clone())));
            }
        }
    }
    out
}

/// Checks the table after a commit: rows = model, one bucket per key (stable over time:
/// `seen` remembers every key's first bucket), HASH files = the hashes of each bucket's keys,
/// at most `target` keys per bucket.
async fn check_table(
    t: &Table,
    model: &BTreeMap<(String, i64), String>,
    seen: &mut HashMap<(String, i64), i32>,
    target: usize,
) {
    let rows = rows_by_bucket(t).await;
    let mut got: BTreeMap<(String, i64), String> = BTreeMap::new();
    for (key, (bucket, v)) in &rows {
        assert!(
            got.insert(key.clone(), v.as_str().unwrap().to_string())
                .is_none(),
            "{key:?} read twice"
        );
        let first = *seen.entry(key.clone()).or_insert(*bucket);
        assert_eq!(
            first, *bucket,
            "{key:?} moved from bucket {first} to {bucket}"
        );
    }
    assert_eq!(&got, model);
    // HASH files: disjoint within a partition, at most `target` keys each, and each seen key's
    // hash in the file of its bucket (files also keep keys deleted since, or never read).
    let mut by_bucket: BTreeMap<(String, i32), BTreeSet<i32>> = BTreeMap::new();
    let mut owner: HashMap<(String, i32), i32> = HashMap::new();
    for (e, hashes) in hash_index(t).await {
        let dt = partition_dt(&e.partition);
        let set: BTreeSet<i32> = hashes.iter().copied().collect();
        assert_eq!(
            set.len(),
            hashes.len(),
            "duplicate hashes in {}",
            e.file_name
        );
        assert!(
            set.len() <= target,
            "bucket {} holds {} keys",
            e.bucket,
            set.len()
        );
        for h in &set {
            let prev = owner.insert((dt.clone(), *h), e.bucket);
            assert!(
                prev.is_none(),
                "hash {h} in buckets {prev:?} and {}",
                e.bucket
            );
        }
        assert!(by_bucket.insert((dt, e.bucket), set).is_none());
    }
    for ((dt, id), bucket) in seen.iter() {
        let file = by_bucket.get(&(dt.clone(), *bucket));
        assert!(
            file.is_some_and(|f| f.contains(&key_hash(*id))),
            "{dt}/{id} missing from the HASH file of bucket {bucket}"
        );
    }
}

/// The `dt` value of a serialized one-STRING-column partition row.
fn partition_dt(p: &[u8]) -> String {
    let row = BinaryRow::from_serialized(p).unwrap();
    match row
        .get(0, &DataType::not_null(TypeKind::VarChar(i32::MAX as u32)))
        .unwrap()
    {
        Some(Datum::String(s)) => s.to_string(),
        other => panic!("partition {other:?}"),
    }
}

#[tokio::test]
async fn dynamic_bucket_random_upserts_keep_every_key_in_one_bucket() {
    let target = 7;
    let t = create_table(
        "dynamic_random",
        &[
            ("dt", "STRING NOT NULL"),
            ("id", "BIGINT NOT NULL"),
            ("v", "STRING"),
            ("rk", "STRING"),
        ],
        &["dt"],
        &["dt", "id"],
        &[
            ("bucket", "-1"),
            ("dynamic-bucket.target-row-num", "7"),
            ("rowkind.field", "rk"),
        ],
    )
    .await;
    let mut rng = Rng(20261202);
    let mut model: BTreeMap<(String, i64), String> = BTreeMap::new();
    let mut seen = HashMap::new();
    // One writer kept over commits 2-3 (in-memory index), fresh writers otherwise (index
    // restored from the HASH files).
    let mut kept = None;
    for commit in 0..6 {
        let mut lines = Vec::new();
        for i in 0..40 {
            let dt = ["x", "y"][rng.next(2) as usize];
            let id = rng.next(45) as i64;
            let key = (dt.to_string(), id);
            if rng.next(5) == 0 {
                lines.push(json!({"dt": dt, "id": id, "v": null, "rk": "-D"}));
                model.remove(&key);
            } else {
                let v = format!("c{commit}-{i}");
                lines.push(json!({"dt": dt, "id": id, "v": v, "rk": "+I"}));
                model.insert(key, v);
            }
        }
        let reuse = commit == 2 || commit == 3;
        let mut write = match (reuse, kept.take()) {
            (true, Some(w)) => w,
            _ => t.new_write().with_commit_user("dyn").build().unwrap(),
        };
        write.write(&batch(&t, &lines)).await.unwrap();
        let messages = write.prepare_commit().await.unwrap();
        assert!(messages.iter().all(|m| m.total_buckets == -1));
        t.new_commit()
            .commit_messages(&messages, write.commit_user())
            .await
            .unwrap();
        if reuse {
            kept = Some(write);
        }
        check_table(&t, &model, &mut seen, target).await;
    }
    let buckets: BTreeSet<i32> = seen.values().copied().collect();
    assert!(buckets.len() >= 5, "only buckets {buckets:?}");
    // Full compaction rewrites each bucket in place; the HASH index stays valid.
    let report = t.compact().full(true).execute().await.unwrap();
    assert!(!report.buckets.is_empty());
    check_table(&t, &model, &mut seen, target).await;
    // ... and writers after it still find every key's bucket.
    let lines: Vec<Value> = model
        .keys()
        .take(10)
        .map(|(dt, id)| json!({"dt": dt, "id": id, "v": "after", "rk": "+I"}))
        .collect();
    for (dt, id) in model.clone().keys().take(10) {
        model.insert((dt.clone(), *id), "after".to_string());
    }
    let mut write = t.new_write().with_commit_user("dyn").build().unwrap();
    write.write(&batch(&t, &lines)).await.unwrap();
    let messages = write.prepare_commit().await.unwrap();
    t.new_commit()
        .commit_messages(&messages, "dyn")
        .await
        .unwrap();
    check_table(&t, &model, &mut seen, target).await;
    let expected: Vec<Value> = model
        .iter()
        .map(|((dt, id), v)| json!({"dt": dt, "id": id, "v": v, "rk": "+I"}))
        .collect();
    save_expected(&t, &[batch(&t, &expected)]);
}

/// The pypaimon-written tables of `testdata/pypaimon/dynamic_bucket`.
fn pypaimon_dynamic() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/pypaimon/dynamic_bucket")
}

#[tokio::test]
async fn pypaimon_hash_files_decode_and_reencode_byte_for_byte() {
    let root = pypaimon_dynamic().join("warehouse/db.db/dynamic");
    let t = Table::open(root.to_str().unwrap()).await.unwrap();
    let index = hash_index(&t).await;
    assert!(index.len() >= 6, "{} HASH files", index.len());
    for (e, hashes) in &index {
        let bytes = std::fs::read(root.join("index").join(&e.file_name)).unwrap();
        assert_eq!(encode_hashes(hashes), bytes, "{}", e.file_name);
    }
    // pypaimon's hashes are our hash codes of the keys: every live key's hash is in the HASH
    // file of the bucket it was read from, and in no other file of its partition.
    let rows = rows_by_bucket(&t).await;
    let expected: Value =
        serde_json::from_slice(&std::fs::read(pypaimon_dynamic().join("expected.json")).unwrap())
            .unwrap();
    let last = expected["dynamic"].as_array().unwrap().last().unwrap();
    assert_eq!(rows.len(), last.as_array().unwrap().len());
    for ((dt, id), (bucket, _)) in &rows {
        let holders: Vec<i32> = index
            .iter()
            .filter(|(e, h)| partition_dt(&e.partition) == *dt && h.contains(&key_hash(*id)))
            .map(|(e, _)| e.bucket)
            .collect();
        assert_eq!(holders, vec![*bucket], "key {dt}/{id}");
    }
}

#[tokio::test]
async fn upserts_into_a_pypaimon_dynamic_bucket_table_keep_its_buckets() {
    let dst = written_db().join("pypaimon_dynamic");
    let _ = std::fs::remove_dir_all(&dst);
    copy_dir(&pypaimon_dynamic().join("warehouse/db.db/dynamic"), &dst);
    let t = Table::open(dst.to_str().unwrap()).await.unwrap();
    let before = rows_by_bucket(&t).await;
    let mut seen: HashMap<(String, i64), i32> =
        before.iter().map(|(k, (b, _))| (k.clone(), *b)).collect();
    let mut model: BTreeMap<(String, i64), String> = before
        .iter()
        .map(|(k, (_, v))| (k.clone(), v.as_str().unwrap().to_string()))
        .collect();
    // pypaimon's HASH files also hold deleted keys: they keep their bucket when they return.
    for (e, hashes) in hash_index(&t).await {
        let dt = partition_dt(&e.partition);
        for id in 0..25i64 {
            if hashes.contains(&key_hash(id)) {
                seen.entry((dt.clone(), id)).or_insert(e.bucket);
            }
        }
    }
    let mut lines = Vec::new();
    for (i, dt) in ["a", "b", "c"].iter().enumerate() {
        for id in 0..25i64 {
            let v = format!("rs{i}-{id}");
            lines.push(json!({"dt": dt, "id": id, "v": v, "rk": "+I"}));
            model.insert((dt.to_string(), id), v);
        }
    }
    lines.push(json!({"dt": "a", "id": 3, "v": null, "rk": "-D"}));
    model.remove(&("a".to_string(), 3));
    let mut write = t.new_write().with_commit_user("rs").build().unwrap();
    write.write(&batch(&t, &lines)).await.unwrap();
    let messages = write.prepare_commit().await.unwrap();
    t.new_commit()
        .commit_messages(&messages, "rs")
        .await
        .unwrap();
    // pypaimon wrote with target-row-num 5; the keys it placed keep their buckets.
    check_table(&t, &model, &mut seen, 5).await;
    assert_eq!(
        read_sorted(&dst).await.len(),
        model.len(),
        "rows after the upsert"
    );
    let expected: Vec<Value> = model
        .iter()
        .map(|((dt, id), v)| json!({"dt": dt, "id": id, "v": v, "rk": "+I"}))
        .collect();
    save_expected(&t, &[batch(&t, &expected)]);
}

/// The postpone table's columns and options.
async fn postpone_table(name: &str) -> Table {
    create_table(
        name,
        &[
            ("dt", "STRING NOT NULL"),
            ("id", "BIGINT NOT NULL"),
            ("v", "STRING"),
            ("rk", "STRING"),
        ],
        &["dt"],
        &["dt", "id"],
        &[("bucket", "-2"), ("rowkind.field", "rk")],
    )
    .await
}

/// Rows read through a scan of `t` with `options`.
async fn scan_rows(t: &Table, options: &[(&str, &str)]) -> usize {
    let mut b = t.scan();
    for (k, v) in options {
        b = b.with_option(*k, *v);
    }
    let batches: Vec<RecordBatch> = b
        .build()
        .unwrap()
        .to_arrow()
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    batches.iter().map(|b| b.num_rows()).sum()
}

#[tokio::test]
async fn postpone_files_are_written_as_java_writes_them_and_batch_reads_skip_them() {
    let t = postpone_table("postpone").await;
    let lines = [
        json!({"dt": "a", "id": 5, "v": "five", "rk": "+I"}),
        json!({"dt": "a", "id": 1, "v": "one", "rk": "+I"}),
        json!({"dt": "b", "id": 2, "v": "two", "rk": "+I"}),
        json!({"dt": "a", "id": 5, "v": "five again", "rk": "+U"}),
        json!({"dt": "a", "id": 3, "v": null, "rk": "-D"}),
    ];
    let mut write = t.new_write().with_commit_user("pp-user").build().unwrap();
    write.write(&batch(&t, &lines)).await.unwrap();
    let messages = write.prepare_commit().await.unwrap();
    assert_eq!(messages.len(), 2);
    for m in &messages {
        assert_eq!((m.bucket, m.total_buckets), (-2, -2));
        assert!(m.new_index_files.is_empty());
        for f in &m.new_files {
            assert!(
                f.file_name.starts_with("data--u-pp-user-s-") && f.file_name.contains("-w-"),
                "{}",
                f.file_name
            );
            assert!(f.file_name.ends_with(".avro"), "{}", f.file_name);
            assert_eq!(
                (f.level, f.min_sequence_number, f.max_sequence_number),
                (0, -1, -1)
            );
            // metadata.stats-mode = none: no value columns, empty key bounds
            assert_eq!(f.value_stats_cols, Some(vec![]));
            assert_eq!(f.key_stats.null_counts, Some(vec![None]));
        }
    }
    let a = messages
        .iter()
        .flat_map(|m| &m.new_files)
        .find(|f| f.row_count == 4)
        .expect("partition a's file");
    // unsorted: the first and last keys written, not the smallest and largest
    let key = |id: i64| {
        BinaryRow::encode(
            &[Some(Datum::BigInt(id))],
            &[DataType::not_null(TypeKind::BigInt)],
        )
        .unwrap()
        .serialize()
    };
    assert_eq!((a.min_key.clone(), a.max_key.clone()), (key(5), key(3)));
    assert_eq!(a.delete_row_count, Some(1));
    t.new_commit()
        .commit_messages(&messages, "pp-user")
        .await
        .unwrap();
    let dir = Path::new(t.location()).join("dt=a/bucket-postpone");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    // Java's batch scan reads real buckets only, with or without postpone.merge-on-read.
    assert_eq!(scan_rows(&t, &[]).await, 0);
    assert_eq!(
        scan_rows(&t, &[("postpone.merge-on-read", "true")]).await,
        0
    );
    // A second commit adds files beside the first.
    write.write(&batch(&t, &lines[..2])).await.unwrap();
    let again = write.prepare_commit().await.unwrap();
    t.new_commit()
        .commit_messages(&again, "pp-user")
        .await
        .unwrap();
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
    assert_eq!(scan_rows(&t, &[]).await, 0);
    // For scripts/check-written.py: the rows in the postpone files, in file order.
    let mut written = lines.to_vec();
    written.extend_from_slice(&lines[..2]);
    save_expected(&t, &[batch(&t, &written)]);
}

#[tokio::test]
async fn writes_into_a_pypaimon_postpone_table_stay_invisible_until_compacted() {
    let dst = written_db().join("pypaimon_postpone");
    let _ = std::fs::remove_dir_all(&dst);
    copy_dir(&pypaimon_dynamic().join("warehouse/db.db/postpone"), &dst);
    let t = Table::open(dst.to_str().unwrap()).await.unwrap();
    assert_eq!(scan_rows(&t, &[]).await, 0);
    let lines = [json!({"dt": "a", "id": 9, "v": "rs", "rk": "+I"})];
    let mut write = t.new_write().with_commit_user("rs").build().unwrap();
    write.write(&batch(&t, &lines)).await.unwrap();
    let messages = write.prepare_commit().await.unwrap();
    t.new_commit()
        .commit_messages(&messages, "rs")
        .await
        .unwrap();
    assert_eq!(
        std::fs::read_dir(dst.join("dt=a/bucket-postpone"))
            .unwrap()
            .count(),
        2
    );
    assert_eq!(scan_rows(&t, &[]).await, 0);
}

#[tokio::test]
async fn dynamic_partition_overwrite_keeps_keys_in_their_buckets() {
    let t = create_table(
        "dynamic_overwrite",
        &[
            ("dt", "STRING NOT NULL"),
            ("id", "BIGINT NOT NULL"),
            ("v", "STRING"),
            ("rk", "STRING"),
        ],
        &["dt"],
        &["dt", "id"],
        &[
            ("bucket", "-1"),
            ("dynamic-bucket.target-row-num", "4"),
            ("rowkind.field", "rk"),
        ],
    )
    .await;
    let row = |dt: &str, id: i64, v: &str| json!({"dt": dt, "id": id, "v": v, "rk": "+I"});
    let mut model: BTreeMap<(String, i64), String> = BTreeMap::new();
    let mut lines = Vec::new();
    for (dt, n) in [("x", 20), ("y", 10)] {
        for id in 0..n {
            lines.push(row(dt, id, "old"));
            model.insert((dt.to_string(), id), "old".into());
        }
    }
    let mut seen = HashMap::new();
    let mut write = t.new_write().with_commit_user("ow").build().unwrap();
    write.write(&batch(&t, &lines)).await.unwrap();
    let m = write.prepare_commit().await.unwrap();
    t.new_commit().commit_messages(&m, "ow").await.unwrap();
    check_table(&t, &model, &mut seen, 4).await;
    // Overwrite partition x with keys 18..24 (two old, four new).
    let lines: Vec<Value> = (18..24).map(|id| row("x", id, "new")).collect();
    model.retain(|(dt, _), _| dt != "x");
    for id in 18..24 {
        model.insert(("x".to_string(), id), "new".into());
    }
    let mut write = t.new_write().with_commit_user("ow").build().unwrap();
    write.write(&batch(&t, &lines)).await.unwrap();
    let m = write.prepare_commit().await.unwrap();
    t.new_commit()
        .overwrite_messages(&m, "ow", None)
        .await
        .unwrap();
    // The rewritten old keys kept their bucket; x's other keys and HASH files are gone.
    let mut after = HashMap::new();
    check_table(&t, &model, &mut after, 4).await;
    for id in [18, 19] {
        let k = ("x".to_string(), id);
        assert_eq!(after[&k], seen[&k], "key x/{id}");
    }
    // Later upserts in both partitions keep every key where it is.
    let lines: Vec<Value> = [("x", 19), ("x", 30), ("y", 3), ("y", 40)]
        .iter()
        .map(|(dt, id)| row(dt, *id, "later"))
        .collect();
    for (dt, id) in [("x", 19), ("x", 30), ("y", 3), ("y", 40)] {
        model.insert((dt.to_string(), id), "later".into());
    }
    let mut write = t.new_write().with_commit_user("ow").build().unwrap();
    write.write(&batch(&t, &lines)).await.unwrap();
    let m = write.prepare_commit().await.unwrap();
    t.new_commit().commit_messages(&m, "ow").await.unwrap();
    check_table(&t, &model, &mut after, 4).await;
    let expected: Vec<Value> = model.iter().map(|((dt, id), v)| row(dt, *id, v)).collect();
    save_expected(&t, &[batch(&t, &expected)]);
}

/// id → v of every row read, split by split: every key read once, from a real bucket below
/// its partition's bucket count (`buckets`: dt → count).
async fn compacted_rows(
    t: &Table,
    buckets: &BTreeMap<&str, i32>,
) -> BTreeMap<(String, i64), Value> {
    let scan = t.scan().build().unwrap();
    let plan = scan.plan().await.unwrap();
    let mut out = BTreeMap::new();
    for split in plan.splits {
        let d = split.as_data().clone();
        let batches: Vec<RecordBatch> = scan
            .reader()
            .read(vec![split])
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        for b in &batches {
            for r in batch_to_json_rows(b, &t.schema().fields).unwrap() {
                let dt = r["dt"].as_str().unwrap().to_string();
                let n = buckets[dt.as_str()];
                assert_eq!(d.total_buckets, n, "{dt}");
                assert!((0..n).contains(&d.bucket), "{dt}: bucket {}", d.bucket);
                let key = (dt, r["id"].as_i64().unwrap());
                let v = r.get("v").cloned().unwrap_or(Value::Null);
                assert!(out.insert(key.clone(), v).is_none(), "{key:?} read twice");
            }
        }
    }
    out
}

#[tokio::test]
async fn postpone_compaction_moves_rows_into_real_buckets() {
    let t = create_table(
        "postpone_compacted",
        &[
            ("dt", "STRING NOT NULL"),
            ("id", "BIGINT NOT NULL"),
            ("v", "STRING"),
            ("rk", "STRING"),
        ],
        &["dt"],
        &["dt", "id"],
        &[
            ("bucket", "-2"),
            ("rowkind.field", "rk"),
            ("postpone.default-bucket-num", "3"),
        ],
    )
    .await;
    let mut rng = Rng(42);
    let mut model: BTreeMap<(String, i64), String> = BTreeMap::new();
    let mut buckets: BTreeMap<&str, i32> = BTreeMap::new();
    for round in 0..3 {
        // Round 2 adds partition c with another default: a and b keep their 3 buckets.
        let (dts, default): (&[&'static str], i32) = match round {
            2 => (&["a", "c"], 2),
            _ => (&["a", "b"], 3),
        };
        for commit in 0..2 {
            let mut lines = Vec::new();
            for i in 0..40 {
                let dt = dts[rng.next(2) as usize];
                let id = rng.next(25) as i64;
                let key = (dt.to_string(), id);
                if rng.next(5) == 0 {
                    lines.push(json!({"dt": dt, "id": id, "v": null, "rk": "-D"}));
                    model.remove(&key);
                } else {
                    let v = format!("r{round}-c{commit}-{i}");
                    lines.push(json!({"dt": dt, "id": id, "v": v, "rk": "+I"}));
                    model.insert(key, v);
                }
            }
            let mut write = t.new_write().with_commit_user("pp").build().unwrap();
            write.write(&batch(&t, &lines)).await.unwrap();
            let messages = write.prepare_commit().await.unwrap();
            t.new_commit()
                .commit_messages(&messages, "pp")
                .await
                .unwrap();
        }
        for dt in dts {
            buckets.entry(*dt).or_insert(default);
        }
        let compacting = t
            .with_options(&HashMap::from([(
                "postpone.default-bucket-num".to_string(),
                default.to_string(),
            )]))
            .unwrap();
        let report = compacting.compact().execute().await.unwrap();
        assert!(report.snapshot_id.is_some());
        let t = Table::open(t.location()).await.unwrap();
        let latest = t
            .snapshot_manager()
            .latest_snapshot()
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            format!("{:?}", latest.commit_kind).to_uppercase(),
            "COMPACT"
        );
        let got = compacted_rows(&t, &buckets).await;
        let want: BTreeMap<(String, i64), Value> =
            model.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
        assert_eq!(got, want, "after round {round}");
        // Nothing is left in bucket-postpone: another compaction has nothing to do.
        let again = t.compact().execute().await.unwrap();
        assert_eq!(again.snapshot_id, None);
    }
    let expected: Vec<Value> = model
        .iter()
        .map(|((dt, id), v)| json!({"dt": dt, "id": id, "v": v, "rk": "+I"}))
        .collect();
    save_expected(&t, &[batch(&t, &expected)]);
}
