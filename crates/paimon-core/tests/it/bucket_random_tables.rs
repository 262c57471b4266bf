//! Property test on randomly generated tables (`scripts/gen-random-bucket-tables.py`, pypaimon):
//! random bucket-key types and counts, append and primary-key, partitioned or not; for random
//! equality / IN / OR predicates over the bucket keys, pruned and unpruned reads are identical,
//! and pruning does drop buckets.

use std::path::PathBuf;

use paimon_core::catalog::Table;

use serde_json::{json, Map, Value};

use crate::bucket_pruning::{assert_same_rows, key_predicates, plan, Rng};
use crate::common::{generated_tables, json_rows, open_indexed, tables_index};

fn random_tables() -> Option<PathBuf> {
    generated_tables(
        "PAIMON_RANDOM_TABLES",
        "random-bucket-tables",
        "tables.json",
        "random tables",
        "run scripts/test.sh",
    )
}

async fn all_rows(table: &Table) -> Vec<Map<String, Value>> {
    let scan = table.scan().build().unwrap();
    let plan = scan.plan().await.unwrap();
    json_rows(&scan.reader(), plan.splits).await.unwrap()
}

#[tokio::test]
async fn random_tables_prune_like_unpruned_scans() {
    let Some(root) = random_tables() else { return };
    let mut rng = Rng(0x00c0_ffee_d00d_0042);
    let (mut checked, mut pruned_some) = (0, 0);
    for t in &tables_index(&root) {
        let table = open_indexed(&root, t).await;
        let rows = all_rows(&table).await;
        assert!(!rows.is_empty());
        let keys: Vec<String> = t["bucket_keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap().to_string())
            .collect();
        for _ in 0..15 {
            let mut conj = key_predicates(&mut rng, &keys, 4, |rng, k| rng.pick(&rows)[k].clone());
            if rng.next() % 3 == 0 {
                conj.push(
                    json!({"op": "ge", "column": "v", "value": (rng.next() % 1_000_000) as i64}),
                );
            }
            let pred = json!({"op": "and", "children": conj});
            let pruned = plan(&table, &pred, false).await;
            let unpruned = plan(&table, &pred, true).await;
            pruned_some += usize::from(pruned.metrics.files_skipped_by_bucket > 0);
            assert_same_rows(&table, pruned, unpruned, &pred).await;
            checked += 1;
        }
    }
    assert!(checked >= 100, "{checked}");
    assert!(
        pruned_some > 30,
        "pruning applied only {pruned_some} times of {checked}"
    );
}
