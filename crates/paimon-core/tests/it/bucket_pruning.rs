//! Inferred bucket pruning end to end on pypaimon-written fixed-bucket tables (`bucket_key_*`,
//! `rescaled`, ...): a point lookup plans only the bucket the writer put the key in, reads
//! exactly what an unpruned scan reads, and the live-entry cache returns the uncached plan.

use std::collections::BTreeSet;

use futures::TryStreamExt;
use paimon_core::bucket::{BucketFunction, BucketFunctionType};
use paimon_core::catalog::Table;
use paimon_core::render::batch_to_json_rows;
use paimon_core::scan::{ManifestEntryCache, Plan};
use paimon_core::spec::binary_row::BinaryRow;
use paimon_core::spec::Datum;
use serde_json::{json, Value};

use crate::pypaimon::{predicate, pypaimon_fixtures};

fn expected(root: &std::path::Path, name: &str) -> Value {
    let p = root.join("expected").join(format!("{name}.json"));
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

async fn open(root: &std::path::Path, exp: &Value) -> Table {
    let path = root.join(exp["path"].as_str().unwrap());
    Table::open(path.to_str().unwrap()).await.unwrap()
}

/// Plans `pred`; `unpruned` overrides `bucket = -1`, which only disables bucket inference.
pub async fn plan(table: &Table, pred: &Value, unpruned: bool) -> Plan {
    let mut b = table.scan().with_predicate(predicate(pred));
    if unpruned {
        b = b.with_option("bucket", "-1");
    }
    b.build().unwrap().plan().await.unwrap()
}

/// Reads a plan with the residual predicate; rows as sorted JSON strings (always `Some` now that
/// primary-key merge-on-read exists; every fixture table must be readable).
async fn read(table: &Table, plan: Plan, pred: &Value) -> Option<Vec<String>> {
    let read = table
        .scan()
        .with_predicate(predicate(pred))
        .build()
        .unwrap()
        .reader();
    let fields = read.output_fields().to_vec();
    let batches: Vec<_> = match read.read(plan.splits) {
        Ok(s) => match s.try_collect().await {
            Ok(b) => b,
            Err(e) => panic!("{e}"),
        },
        Err(e) => panic!("{e}"),
    };
    let mut rows: Vec<String> = Vec::new();
    for b in &batches {
        for r in batch_to_json_rows(b, &fields).unwrap() {
            rows.push(Value::Object(r).to_string());
        }
    }
    rows.sort();
    Some(rows)
}

/// Pruned and unpruned plans read the same rows; when the reader cannot read the splits yet,
/// pruning must at least have removed whole buckets only (identical splits otherwise).
pub async fn assert_same_rows(table: &Table, pruned: Plan, unpruned: Plan, pred: &Value) {
    let kept: BTreeSet<(Vec<u8>, i32)> = pruned
        .splits
        .iter()
        .map(|s| (s.as_data().partition.clone(), s.as_data().bucket))
        .collect();
    let restricted: Vec<_> = unpruned
        .splits
        .iter()
        .filter(|s| kept.contains(&(s.as_data().partition.clone(), s.as_data().bucket)))
        .cloned()
        .collect();
    assert_eq!(pruned.splits, restricted, "{pred}");
    let a = read(table, pruned, pred).await;
    let b = read(table, unpruned, pred).await;
    assert_eq!(a, b, "{pred}");
}

fn buckets(plan: &Plan) -> BTreeSet<i32> {
    plan.splits.iter().map(|s| s.as_data().bucket).collect()
}

/// `k1 = v1 AND ...` over the bucket keys.
fn key_eq(keys: &[String], values: &[Value]) -> Value {
    let eqs: Vec<Value> = keys
        .iter()
        .zip(values)
        .map(|(k, v)| json!({"op": "eq", "column": k, "value": v}))
        .collect();
    match eqs.len() {
        1 => eqs[0].clone(),
        _ => json!({"op": "and", "children": eqs}),
    }
}

const KEY_TABLES: &[&str] = &[
    "bucket_key_int",
    "bucket_key_bigint",
    "bucket_key_string",
    "bucket_key_decimal_10_2",
    "bucket_key_decimal_20_4",
    "bucket_key_date",
    "bucket_key_timestamp_3",
    "bucket_key_timestamp_6",
    "bucket_key_composite",
];

#[tokio::test]
async fn point_lookups_plan_only_the_writers_bucket() {
    let Some(root) = pypaimon_fixtures() else {
        return;
    };
    let mut checked = 0;
    for name in KEY_TABLES {
        let exp = expected(&root, name);
        let table = open(&root, &exp).await;
        let total: i32 = exp["options"]["bucket"].as_str().unwrap().parse().unwrap();
        let keys: Vec<String> = exp["options"]["bucket-key"]
            .as_str()
            .unwrap()
            .split(',')
            .map(str::to_string)
            .collect();
        let all = plan(
            &table,
            &json!({"op": "is_not_null", "column": keys[0]}),
            true,
        )
        .await;
        assert!(buckets(&all).len() > 1, "{name}: table has one bucket only");
        for probe in exp["layout"]["bucket_probes"].as_array().unwrap() {
            if probe["total_buckets"] != json!(total) || probe["in_table"] != json!(true) {
                continue;
            }
            let pred = key_eq(&keys, probe["key"].as_array().unwrap());
            let want_bucket = probe["bucket"].as_i64().unwrap() as i32;
            let pruned = plan(&table, &pred, false).await;
            let m = &pruned.metrics;
            assert_eq!(m.bucket_pruning, "inferred", "{name} {pred}");
            assert_eq!(
                buckets(&pruned),
                BTreeSet::from([want_bucket]),
                "{name} {pred}"
            );
            assert!(m.files_skipped_by_bucket > 0, "{name} {pred}: {m:?}");
            // Rows of other buckets were dropped while decoding the manifests.
            assert!(m.entries_skipped_in_decode > 0, "{name} {pred}: {m:?}");
            assert_eq!(m.buckets_selected, 1);
            let unpruned = plan(&table, &pred, true).await;
            assert_eq!(unpruned.metrics.bucket_pruning, "none");
            assert!(unpruned.metrics.files_planned > m.files_planned);
            let rows = read(&table, pruned.clone(), &pred).await.unwrap();
            assert!(!rows.is_empty(), "{name} {pred}: key is in the table");
            assert_same_rows(&table, pruned, unpruned, &pred).await;
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} probes checked");
}

#[tokio::test]
async fn partial_keys_and_ranges_plan_every_bucket() {
    let Some(root) = pypaimon_fixtures() else {
        return;
    };
    let exp = expected(&root, "bucket_key_composite");
    let table = open(&root, &exp).await;
    for pred in [
        json!({"op": "eq", "column": "k_str", "value": "zeta"}),
        json!({"op": "gt", "column": "k_int", "value": 0}),
    ] {
        let p = plan(&table, &pred, false).await;
        assert_eq!(p.metrics.bucket_pruning, "not inferred");
        assert_eq!(p.metrics.files_skipped_by_bucket, 0);
        assert_eq!(buckets(&p), buckets(&plan(&table, &pred, true).await));
    }
}

fn default_bucket(id: i32, total: i32) -> i32 {
    let types = vec![paimon_core::spec::types::DataType::not_null(
        paimon_core::spec::types::TypeKind::Int,
    )];
    let row = BinaryRow::encode(&[Some(Datum::Int(id))], &types).unwrap();
    BucketFunction::new(BucketFunctionType::Default, types)
        .unwrap()
        .bucket(&row, total)
        .unwrap()
}

#[tokio::test]
async fn rescaled_table_uses_each_entrys_bucket_count() {
    let Some(root) = pypaimon_fixtures() else {
        return;
    };
    let exp = expected(&root, "rescaled");
    let table = open(&root, &exp).await;
    let totals = &exp["layout"]["total_buckets_by_partition"];
    let mut seen_totals = BTreeSet::new();
    for id in (0..400).step_by(7) {
        let pred = json!({"op": "eq", "column": "id", "value": id});
        let pruned = plan(&table, &pred, false).await;
        for s in &pruned.splits {
            let d = s.as_data();
            let part = d.partition_values[0].1.clone().unwrap();
            let total = totals[&part].as_i64().unwrap() as i32;
            assert_eq!(d.total_buckets, total, "partition {part}");
            assert_eq!(
                d.bucket,
                default_bucket(id, total),
                "id {id} partition {part}"
            );
            seen_totals.insert(total);
        }
        let unpruned = plan(&table, &pred, true).await;
        assert_same_rows(&table, pruned, unpruned, &pred).await;
    }
    assert_eq!(seen_totals, BTreeSet::from([2, 4]));
}

/// A small deterministic generator (xorshift) so failures reproduce.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[(self.next() % v.len() as u64) as usize]
    }
}

/// One random `=`, `IN` or OR-of-equalities conjunct per key, with up to `max_values` values
/// drawn by `value`.
pub fn key_predicates(
    rng: &mut Rng,
    keys: &[String],
    max_values: u64,
    mut value: impl FnMut(&mut Rng, &str) -> Value,
) -> Vec<Value> {
    let mut conj = Vec::new();
    for k in keys {
        let n = 1 + rng.next() % max_values;
        let vals: Vec<Value> = (0..n).map(|_| value(rng, k)).collect();
        conj.push(match rng.next() % 3 {
            0 => json!({"op": "eq", "column": k, "value": vals[0]}),
            1 => json!({"op": "in", "column": k, "values": vals}),
            _ => json!({"op": "or", "children": vals.iter()
                .map(|v| json!({"op": "eq", "column": k, "value": v}))
                .collect::<Vec<_>>()}),
        });
    }
    conj
}

/// Random equality / IN / OR predicates over the bucket keys (values from the table plus
/// absent ones), sometimes with an extra conjunct: pruned and unpruned reads are identical.
#[tokio::test]
async fn random_key_predicates_read_like_unpruned_scans() {
    let Some(root) = pypaimon_fixtures() else {
        return;
    };
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let mut pruned_some = 0;
    for name in KEY_TABLES
        .iter()
        .chain(&["rescaled", "append_bucketed", "pk_partitioned"])
    {
        let exp = expected(&root, name);
        let table = open(&root, &exp).await;
        let keys = table.schema().bucket_keys();
        let rows = exp["queries"][0]["rows"].as_array().unwrap().clone();
        for _ in 0..12 {
            let mut conj = key_predicates(&mut rng, &keys, 3, |rng, k| rng.pick(&rows)[k].clone());
            if rng.next() % 2 == 0 {
                let f = rng.pick(&exp["fields"].as_array().unwrap().clone())["name"].clone();
                conj.push(json!({"op": "is_not_null", "column": f}));
            }
            let pred = json!({"op": "and", "children": conj});
            let pruned = plan(&table, &pred, false).await;
            let unpruned = plan(&table, &pred, true).await;
            pruned_some += usize::from(pruned.metrics.files_skipped_by_bucket > 0);
            assert_same_rows(&table, pruned, unpruned, &pred).await;
        }
    }
    assert!(pruned_some > 50, "pruning applied only {pruned_some} times");
}

#[tokio::test]
async fn live_entry_cache_hits_and_matches_uncached_plans() {
    let Some(root) = pypaimon_fixtures() else {
        return;
    };
    let exp = expected(&root, "bucket_key_int");
    let table = open(&root, &exp).await;
    let probe = &exp["layout"]["bucket_probes"][0];
    let pred = json!({"op": "eq", "column": "k", "value": probe["key"][0]});
    let cache = ManifestEntryCache::new();
    let scan = |cache: Option<ManifestEntryCache>, snapshot: Option<i64>| {
        let table = table.clone();
        let pred = pred.clone();
        async move {
            let mut b = table.scan().with_predicate(predicate(&pred));
            if let Some(c) = cache {
                b = b
                    .with_entry_cache(c)
                    .with_option("scan.manifest-entry-cache.max-snapshots", "2");
            }
            if let Some(s) = snapshot {
                b = b.with_snapshot(paimon_core::scan::SnapshotSelector::Id(s));
            }
            b.build().unwrap().plan().await.unwrap()
        }
    };
    let uncached = scan(None, None).await;
    assert_eq!(
        (uncached.metrics.cache_hits, uncached.metrics.cache_misses),
        (0, 0)
    );
    let first = scan(Some(cache.clone()), None).await;
    assert_eq!(
        (first.metrics.cache_hits, first.metrics.cache_misses),
        (0, 1)
    );
    let second = scan(Some(cache.clone()), None).await;
    assert_eq!(
        (second.metrics.cache_hits, second.metrics.cache_misses),
        (1, 0)
    );
    let files = |p: &Plan| -> Vec<String> {
        let mut v: Vec<String> = p
            .splits
            .iter()
            .flat_map(|s| s.as_data().files.iter().map(|f| f.file_name.clone()))
            .collect();
        v.sort();
        v
    };
    assert_eq!(files(&first), files(&uncached));
    assert_eq!(files(&second), files(&uncached));
    assert_eq!(second.metrics.entries_read, 0);
    // A hit reads no manifest list; a miss decodes only the bucket's rows (and DELETEs).
    assert_eq!(second.metrics.manifests_total, 0);
    assert!(first.metrics.manifests_total > 0);
    assert!(
        first.metrics.entries_skipped_in_decode > 0,
        "{:?}",
        first.metrics
    );
    // Explicit bucket: its own key; results equal an uncached explicit scan.
    let explicit = |cache: Option<ManifestEntryCache>| {
        let mut b = table.scan().with_bucket_filter(1);
        if let Some(c) = cache {
            b = b
                .with_entry_cache(c)
                .with_option("scan.manifest-entry-cache.max-snapshots", "2");
        }
        async move { b.build().unwrap().plan().await.unwrap() }
    };
    let e1 = explicit(Some(cache.clone())).await;
    let e2 = explicit(Some(cache.clone())).await;
    assert_eq!((e1.metrics.cache_misses, e2.metrics.cache_hits), (1, 1));
    assert_eq!(files(&e2), files(&explicit(None).await));
    assert_eq!(buckets(&e2), BTreeSet::from([1]));
    assert_eq!(cache.len(), 2);
}

#[tokio::test]
async fn live_entry_cache_rebuilds_for_another_snapshot() {
    let Some(root) = pypaimon_fixtures() else {
        return;
    };
    // A multi-commit fixed-bucket table: scan an older snapshot first, then the latest.
    let exp = expected(&root, "append_bucketed");
    let table = open(&root, &exp).await;
    let latest = table
        .snapshot_manager()
        .latest_snapshot()
        .await
        .unwrap()
        .unwrap()
        .id;
    assert!(latest > 1);
    let cache = ManifestEntryCache::new();
    let pred = json!({"op": "eq", "column": "id", "value": 7});
    for (snapshot, hit) in [(1, 0), (latest, 0), (1, 1), (latest, 1)] {
        let mk = |with_cache: bool| {
            let mut b = table
                .scan()
                .with_predicate(predicate(&pred))
                .with_snapshot(paimon_core::scan::SnapshotSelector::Id(snapshot));
            if with_cache {
                b = b
                    .with_entry_cache(cache.clone())
                    .with_option("scan.manifest-entry-cache.max-snapshots", "4");
            }
            b.build().unwrap()
        };
        let cached = mk(true).plan().await.unwrap();
        assert_eq!(cached.metrics.cache_hits, hit, "snapshot {snapshot}");
        let plain = mk(false).plan().await.unwrap();
        assert_eq!(cached.splits, plain.splits, "snapshot {snapshot}");
    }
}
