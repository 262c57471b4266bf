//! Merge engines end to end: partial-update with sequence groups (with retracts and
//! `remove-record-on-sequence-group`), aggregates inside partial-update, `collect`,
//! `merge_map` and `count` (Java 0.8's), on tables written by pypaimon 2.1.0 in several
//! commits (`scripts/gen-merge-engine-tables.py`). Each table's expected rows come from the
//! generator's own model of Java Paimon 2.0.

use std::path::PathBuf;

use futures::TryStreamExt;
use paimon_core::catalog::Table;
use paimon_core::read::TableRead;
use paimon_core::render::batch_to_json_rows;
use paimon_core::scan::{ScanContextBuilder, TableScan};
use serde_json::Value;

fn merge_engine_tables() -> Option<PathBuf> {
    let p = std::env::var_os("PAIMON_MERGE_ENGINE_TABLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/merge-engine-tables")
        });
    if p.join("tables.json").is_file() {
        return Some(p);
    }
    assert!(
        std::env::var("CI").is_err(),
        "merge-engine tables missing at {}: run scripts/test.sh",
        p.display()
    );
    eprintln!("skipping: merge-engine tables missing at {}", p.display());
    None
}

async fn rows(table: &Table, columns: Option<&[&str]>) -> paimon_core::Result<Vec<Value>> {
    let plan = TableScan::new(ScanContextBuilder::new(table.clone()).build()?)
        .plan()
        .await?;
    let mut read = TableRead::new(table);
    if let Some(c) = columns {
        let c: Vec<String> = c.iter().map(|s| s.to_string()).collect();
        read = read.with_projection(&c)?;
    }
    let fields = read.output_fields().to_vec();
    let batches: Vec<_> = read.read(plan.splits)?.try_collect().await?;
    let mut out = Vec::new();
    for b in &batches {
        out.extend(
            batch_to_json_rows(b, &fields)?
                .into_iter()
                .map(Value::Object),
        );
    }
    out.sort_by_key(|r| r["k"].as_i64());
    Ok(out)
}

fn index(root: &std::path::Path) -> Vec<Value> {
    let v: Value =
        serde_json::from_slice(&std::fs::read(root.join("tables.json")).unwrap()).unwrap();
    v["tables"].as_array().unwrap().clone()
}

#[tokio::test]
async fn merge_engine_tables_read_as_java_merges_them() {
    let Some(root) = merge_engine_tables() else {
        return;
    };
    let tables = index(&root);
    assert!(tables.len() >= 6);
    for t in tables {
        let name = t["name"].as_str().unwrap();
        let table = Table::open(root.join(t["path"].as_str().unwrap()).to_str().unwrap())
            .await
            .unwrap();
        let got = rows(&table, None).await;
        if let Some(err) = t["expected_error"].as_str() {
            let e = got.expect_err(name).to_string();
            assert!(e.contains(err), "{name}: {e}");
            continue;
        }
        let got = got.unwrap_or_else(|e| panic!("{name}: {e}"));
        let want = t["expected"].as_array().unwrap();
        assert!(!want.is_empty(), "{name}");
        assert_eq!(&got, want, "{name}");
    }
}

/// Reading only `a` still merges by its sequence group: the reader adds `g1` to the merge.
#[tokio::test]
async fn projection_keeps_sequence_group_fields() {
    let Some(root) = merge_engine_tables() else {
        return;
    };
    let t = index(&root)
        .into_iter()
        .find(|t| t["name"] == "pu_groups")
        .unwrap();
    let table = Table::open(root.join(t["path"].as_str().unwrap()).to_str().unwrap())
        .await
        .unwrap();
    let got = rows(&table, Some(&["k", "a"])).await.unwrap();
    let want: Vec<Value> = t["expected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| serde_json::json!({"k": r["k"], "a": r["a"]}))
        .collect();
    assert_eq!(got, want);
}
