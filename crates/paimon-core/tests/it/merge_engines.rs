//! Merge engines end to end: partial-update with sequence groups (with retracts and
//! `remove-record-on-sequence-group`), aggregates inside partial-update, `collect`,
//! `merge_map` and `count` (Java 0.8's), on tables written by pypaimon 2.1.0 in several
//! commits (`scripts/gen-merge-engine-tables.py`). Each table's expected rows come from the
//! generator's own model of Java Paimon 2.0.

use std::path::PathBuf;

use paimon_core::catalog::Table;

use serde_json::Value;

use crate::common::{generated_tables, json_rows, open_indexed, tables_index};

fn merge_engine_tables() -> Option<PathBuf> {
    generated_tables(
        "PAIMON_MERGE_ENGINE_TABLES",
        "merge-engine-tables",
        "tables.json",
        "merge-engine tables",
        "run scripts/test.sh",
    )
}

async fn rows(table: &Table, columns: Option<&[&str]>) -> paimon_core::Result<Vec<Value>> {
    let mut b = table.scan();
    if let Some(c) = columns {
        b = b.select(c.iter().copied())?;
    }
    let scan = b.build()?;
    let plan = scan.plan().await?;
    let read = scan.reader();
    let mut out: Vec<Value> = json_rows(&read, plan.splits)
        .await?
        .into_iter()
        .map(Value::Object)
        .collect();
    out.sort_by_key(|r| r["k"].as_i64());
    Ok(out)
}

#[tokio::test]
async fn merge_engine_tables_read_as_java_merges_them() {
    let Some(root) = merge_engine_tables() else {
        return;
    };
    let tables = tables_index(&root);
    assert!(tables.len() >= 6);
    for t in tables {
        let name = t["name"].as_str().unwrap();
        let table = open_indexed(&root, &t).await;
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
    let t = tables_index(&root)
        .into_iter()
        .find(|t| t["name"] == "pu_groups")
        .unwrap();
    let table = open_indexed(&root, &t).await;
    let got = rows(&table, Some(&["k", "a"])).await.unwrap();
    let want: Vec<Value> = t["expected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| serde_json::json!({"k": r["k"], "a": r["a"]}))
        .collect();
    assert_eq!(got, want);
}
