//! End-to-end property test of primary-key reads on random tables written by pypaimon 2.1.0
//! (`scripts/gen-pk-random-tables.py`): random merge engines (deduplicate ± `ignore-delete`,
//! first-row, partial-update, aggregation), bucket counts, partitions, several commits of
//! upserts and `-U`/`-D` rows as level-0 sorted runs or moved to levels 1-5, and deletion
//! vectors on random physical rows (with and without `deletion-vectors.merge-on-read`). Every
//! table's full read and each random predicate's read must equal the rows the generator's own
//! model of Java Paimon 2.0 (`MergeFileSplitRead`, `MergeTreeSplitGenerator`, the merge
//! functions) computes: order-insensitive, duplicates counted.

use std::path::PathBuf;

use paimon_core::catalog::Table;

use serde_json::Value;

use crate::common::{generated_tables, json_rows, open_indexed, tables_index};
use crate::pypaimon::predicate;

fn pk_random_tables() -> Option<PathBuf> {
    generated_tables(
        "PAIMON_PK_RANDOM_TABLES",
        "pk-random-tables",
        "tables.json",
        "random primary-key tables",
        "run scripts/test.sh",
    )
}

/// Reads the latest snapshot of `table`, planning and filtering by `pred` when given; rows as
/// sorted JSON strings.
async fn read(table: &Table, name: &str, pred: Option<&Value>) -> Vec<String> {
    let mut b = table.scan();
    if let Some(p) = pred {
        b = b.with_predicate(predicate(p));
    }
    let scan = b.build().unwrap();
    let plan = scan.plan().await.unwrap();
    let read = scan.reader();
    let mut rows: Vec<String> = json_rows(&read, plan.splits)
        .await
        .unwrap_or_else(|e| panic!("{name} {pred:?}: {e}"))
        .into_iter()
        .map(|r| Value::Object(r).to_string())
        .collect();
    rows.sort();
    rows
}

/// The expected rows of the index in the column order of `fields`, as sorted JSON strings.
fn expected(rows: &Value, fields: &[String]) -> Vec<String> {
    let mut out: Vec<String> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let obj: serde_json::Map<String, Value> =
                fields.iter().map(|f| (f.clone(), r[f].clone())).collect();
            Value::Object(obj).to_string()
        })
        .collect();
    out.sort();
    out
}

#[tokio::test]
async fn random_pk_tables_read_as_the_java_model() {
    let Some(root) = pk_random_tables() else {
        return;
    };
    let tables = tables_index(&root);
    assert!(tables.len() >= 8, "{}", tables.len());
    let (mut predicates, mut dv_tables, mut non_empty_filters) = (0, 0, 0);
    let (mut raw_buckets, mut merged_buckets) = (0, 0);
    let mut engines = std::collections::BTreeSet::new();
    for t in &tables {
        let name = t["name"].as_str().unwrap();
        let table = open_indexed(&root, t).await;
        let fields: Vec<String> = table
            .scan()
            .build()
            .unwrap()
            .reader()
            .output_fields()
            .iter()
            .map(|f| f.name.clone())
            .collect();
        let want = expected(&t["expected"], &fields);
        assert_eq!(
            read(&table, name, None).await,
            want,
            "{name}: full read ({t:#})"
        );
        for p in t["predicates"].as_array().unwrap() {
            let want = expected(&p["expected"], &fields);
            non_empty_filters += usize::from(!want.is_empty());
            let got = read(&table, name, Some(&p["predicate"])).await;
            assert_eq!(got, want, "{name}: {}", p["predicate"]);
            predicates += 1;
        }
        dv_tables += usize::from(t["dv_rows"].as_u64().unwrap() > 0);
        raw_buckets += t["bucket_reads"]["raw"].as_u64().unwrap();
        merged_buckets += t["bucket_reads"]["merge"].as_u64().unwrap();
        engines.insert(t["engine"].as_str().unwrap().to_string());
    }
    assert!(predicates >= 6 * tables.len(), "{predicates}");
    assert!(
        non_empty_filters * 2 >= predicates,
        "{non_empty_filters} of {predicates}"
    );
    assert!(
        dv_tables >= 2,
        "only {dv_tables} tables with deletion vectors"
    );
    assert!(engines.len() >= 3, "{engines:?}");
    assert!(
        raw_buckets > 0 && merged_buckets > 0,
        "raw {raw_buckets}, merged {merged_buckets}"
    );
}
