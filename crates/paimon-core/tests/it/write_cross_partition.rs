//! Cross-partition updates: primary-key tables with `bucket = -1` whose primary key lacks the
//! partition field (Java `KEY_DYNAMIC`). Random upserts and deletes move keys between
//! partitions over several commits, with fresh writers (key index bootstrapped from the table)
//! and a kept writer (in-memory index); after each commit the table reads back equal to a
//! model of Java's `GlobalIndexAssigner` (deduplicate: the old row retracted, the new one
//! written; partial-update / aggregation: the row updates the key in its old partition;
//! first-row: the first row wins), every key once, buckets within
//! `dynamic-bucket.target-row-num`. The deduplicate table is left for
//! `scripts/check-written.py` (pypaimon reads it, every key in one partition and bucket).

use std::collections::{BTreeMap, HashMap};

use arrow_array::RecordBatch;
use futures::TryStreamExt;
use paimon_core::render::batch_to_json_rows;
use paimon_core::Table;
use serde_json::{json, Value};

use crate::write::{batch, create_table, save_expected};

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

/// id → (dt, v) of every row read, split by split; panics on a key read twice and checks
/// that no bucket holds more than `target` rows.
async fn read_rows(t: &Table, target: usize) -> BTreeMap<i64, (String, Value)> {
    // Level-0 files of write-only deletion-vector tables are read too.
    let scan = t
        .scan()
        .with_option("deletion-vectors.merge-on-read", "true")
        .build()
        .unwrap();
    let plan = scan.plan().await.unwrap();
    let mut out = BTreeMap::new();
    let mut per_bucket: HashMap<(String, i32), usize> = HashMap::new();
    for split in plan.splits {
        let bucket = split.as_data().bucket;
        assert_eq!(split.as_data().total_buckets, -1);
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
                let id = r["id"].as_i64().unwrap();
                *per_bucket.entry((dt.clone(), bucket)).or_insert(0) += 1;
                let v = r.get("v").cloned().unwrap_or(Value::Null);
                let prev = out.insert(id, (dt.clone(), v));
                assert!(prev.is_none(), "key {id} read twice: {prev:?} and {dt}");
            }
        }
    }
    for (k, n) in per_bucket {
        assert!(n <= target, "{k:?} holds {n} rows");
    }
    out
}

/// The merge engines' answer to a row for a key living in another partition.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Engine {
    Deduplicate,
    PartialUpdate,
    FirstRow,
}

async fn random_moves(name: &str, engine: Engine, extra: &[(&str, &str)]) -> Table {
    let target = 5;
    let mut options = vec![
        ("bucket", "-1"),
        ("dynamic-bucket.target-row-num", "5"),
        ("rowkind.field", "rk"),
    ];
    match engine {
        Engine::Deduplicate => {}
        Engine::PartialUpdate => options.push(("merge-engine", "partial-update")),
        Engine::FirstRow => options.push(("merge-engine", "first-row")),
    }
    options.extend_from_slice(extra);
    let t = create_table(
        name,
        &[
            ("dt", "STRING NOT NULL"),
            ("id", "BIGINT NOT NULL"),
            ("v", "STRING"),
            ("rk", "STRING"),
        ],
        &["dt"],
        &["id"],
        &options,
    )
    .await;
    let mut rng = Rng(7 + engine as u64);
    let mut model: BTreeMap<i64, (String, Option<String>)> = BTreeMap::new();
    let mut kept = None;
    let mut moves = 0;
    for commit in 0..6 {
        let mut lines = Vec::new();
        for i in 0..40 {
            let dt = ["a", "b", "c"][rng.next(3) as usize].to_string();
            let id = rng.next(30) as i64;
            let old = model.get(&id).cloned();
            moves += old.as_ref().is_some_and(|(d, _)| *d != dt) as usize;
            if engine == Engine::Deduplicate && rng.next(6) == 0 {
                // Java: -D into the old partition, then the -D as the key's new row.
                lines.push(json!({"dt": dt, "id": id, "v": null, "rk": "-D"}));
                model.remove(&id);
                continue;
            }
            let v = (rng.next(4) != 0).then(|| format!("c{commit}-{i}"));
            lines.push(json!({"dt": dt, "id": id, "v": v, "rk": "+I"}));
            match (engine, old) {
                (Engine::Deduplicate, _) | (_, None) => {
                    model.insert(id, (dt, v));
                }
                (Engine::PartialUpdate, Some((old_dt, old_v))) => {
                    model.insert(id, (old_dt, v.or(old_v)));
                }
                (Engine::FirstRow, Some(_)) => {}
            }
        }
        let reuse = commit == 2 || commit == 3;
        let mut write = match (reuse, kept.take()) {
            (true, Some(w)) => w,
            _ => t.new_write().with_commit_user("cross").build().unwrap(),
        };
        write.write(&batch(&t, &lines)).await.unwrap();
        let messages = write.prepare_commit().await.unwrap();
        assert!(messages.iter().all(|m| m.total_buckets == -1));
        assert!(messages.iter().all(|m| m.new_index_files.is_empty()));
        t.new_commit()
            .commit_messages(&messages, write.commit_user())
            .await
            .unwrap();
        if reuse {
            kept = Some(write);
        }
        let got = read_rows(&t, target).await;
        let want: BTreeMap<i64, (String, Value)> = model
            .iter()
            .map(|(id, (dt, v))| (*id, (dt.clone(), json!(v))))
            .collect();
        assert_eq!(got, want, "{name} after commit {commit}");
    }
    assert!(moves > 20, "only {moves} moves");
    t
}

#[tokio::test]
async fn deduplicate_moves_keys_between_partitions() {
    let t = random_moves("cross_partition_dedup", Engine::Deduplicate, &[]).await;
    let rows = read_rows(&t, 5).await;
    let expected: Vec<Value> = rows
        .iter()
        .map(|(id, (dt, v))| json!({"dt": dt, "id": id, "v": v, "rk": "+I"}))
        .collect();
    save_expected(&t, &[batch(&t, &expected)]);
}

#[tokio::test]
async fn deduplicate_with_deletion_vectors_bootstraps_every_level() {
    random_moves(
        "cross_partition_dv",
        Engine::Deduplicate,
        // Write-only: keys stay in level-0 files, which batch reads of DV tables skip.
        &[("deletion-vectors.enabled", "true"), ("write-only", "true")],
    )
    .await;
}

#[tokio::test]
async fn partial_update_keeps_a_key_in_its_first_partition() {
    random_moves("cross_partition_partial", Engine::PartialUpdate, &[]).await;
}

#[tokio::test]
async fn first_row_drops_rows_of_keys_in_another_partition() {
    random_moves("cross_partition_first_row", Engine::FirstRow, &[]).await;
}

#[tokio::test]
async fn index_ttl_leaves_old_buckets_out_of_the_bootstrap() {
    let t = create_table(
        "cross_partition_ttl",
        &[("dt", "STRING NOT NULL"), ("id", "BIGINT NOT NULL")],
        &["dt"],
        &["id"],
        &[("bucket", "-1")],
    )
    .await;
    let write_one = |dt: &'static str, ttl: Option<&'static str>| {
        let t = t.clone();
        async move {
            let mut b = t.new_write().with_commit_user("ttl");
            if let Some(ttl) = ttl {
                b = b.with_option("cross-partition-upsert.index-ttl", ttl);
            }
            let mut w = b.build().unwrap();
            w.write(&batch(&t, &[json!({"dt": dt, "id": 1})]))
                .await
                .unwrap();
            let m = w.prepare_commit().await.unwrap();
            t.new_commit().commit_messages(&m, "ttl").await.unwrap();
        }
    };
    write_one("a", None).await;
    write_one("b", Some("1 h")).await;
    let rows = read_rows(&t, 10).await;
    assert_eq!(rows.get(&1).map(|r| r.0.as_str()), Some("b"));
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    // The only file of key 1 is older than the TTL: the key is unknown, written twice (Java's
    // documented trade-off).
    write_one("c", Some("10 ms")).await;
    let scan = t.scan().build().unwrap();
    let batches: Vec<RecordBatch> = scan.to_arrow().await.unwrap().try_collect().await.unwrap();
    let n: usize = batches.iter().map(|b| b.num_rows()).sum();
    assert_eq!(n, 2);
    let _ = std::fs::remove_dir_all(t.location());
}
