//! Every Java fixture table listed in `testdata/java/expected/**/*.json`, read at every listed
//! snapshot and compared row by row with the file (format: `testdata/README.md`).

use std::path::{Path, PathBuf};

use serde_json::Value;

use arrow_array::RecordBatch;
use arrow_schema::DataType as ArrowType;
use futures::TryStreamExt;
use paimon_core::catalog::Table;
use paimon_core::render::batch_to_json_rows;

use crate::common::{java_fixtures, java_table, query_scan, read_rows, render, Query};

/// One expected read of a table.
struct Expected {
    /// Where it comes from: `<file>#<index>`, for messages.
    origin: String,
    table: String,
    snapshot: i64,
    filter: Option<String>,
    select: Option<Vec<String>>,
    rows: Option<Vec<String>>,
    row_count: Option<usize>,
}

fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            json_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

fn strings(v: &Value, what: &str) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("{what}: not an array"))
        .iter()
        .map(|s| {
            s.as_str()
                .unwrap_or_else(|| panic!("{what}: {s}"))
                .to_string()
        })
        .collect()
}

/// Parses one expected file; checks its shape so a typo cannot silently skip a check.
fn parse(path: &Path) -> Vec<Expected> {
    let v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let name = path.display().to_string();
    let table = v["table"]
        .as_str()
        .unwrap_or_else(|| panic!("{name}: table"));
    assert!(
        v["exercises"].as_str().is_some_and(|s| !s.is_empty()),
        "{name}: exercises"
    );
    let rel = path
        .strip_prefix(java_fixtures().join("expected"))
        .unwrap()
        .with_extension("");
    assert_eq!(rel.to_str().unwrap(), table, "{name}: file name and table");
    let reads = v["snapshots"]
        .as_array()
        .unwrap_or_else(|| panic!("{name}"));
    let mut out = Vec::new();
    for (i, r) in reads.iter().enumerate() {
        let origin = format!("{name}#{i}");
        let obj = r.as_object().unwrap_or_else(|| panic!("{origin}"));
        for key in obj.keys() {
            let known = ["snapshot", "filter", "select", "rows", "row_count"];
            assert!(known.contains(&key.as_str()), "{origin}: unknown key {key}");
        }
        let rows = r.get("rows").map(|x| {
            let mut v = strings(x, &origin);
            v.sort();
            v
        });
        let row_count = r.get("row_count").map(|x| x.as_u64().unwrap() as usize);
        assert!(rows.is_some() || row_count.is_some(), "{origin}: no rows");
        out.push(Expected {
            table: table.to_string(),
            snapshot: r["snapshot"]
                .as_i64()
                .unwrap_or_else(|| panic!("{origin}: snapshot")),
            filter: r.get("filter").map(|f| f.as_str().unwrap().to_string()),
            select: r.get("select").map(|s| strings(s, &origin)),
            rows,
            row_count,
            origin,
        });
    }
    out
}

/// All expected reads, in file order.
fn expected_reads() -> Vec<Expected> {
    let mut files = Vec::new();
    json_files(&java_fixtures().join("expected"), &mut files);
    files.sort();
    files.iter().flat_map(|f| parse(f)).collect()
}

/// The rows of `e`'s read; with `views`, top-level strings and binaries read as views
/// (`TableRead::with_string_views`, as the DataFusion provider reads), every batch checked to
/// carry the read's view schema.
async fn actual(e: &Expected, views: bool) -> Vec<String> {
    let q = Query {
        filter: e.filter.as_deref(),
        select: e
            .select
            .as_ref()
            .map(|s| s.iter().map(String::as_str).collect()),
        snapshot: Some(e.snapshot),
    };
    if !views {
        return read_rows(&java_table(&e.table), q).await;
    }
    let table = Table::open(&java_table(&e.table)).await.unwrap();
    let scan = query_scan(&table, &q);
    let plan = scan.plan().await.unwrap();
    let read = scan.reader().with_string_views(true);
    let schema = read.schema().unwrap();
    assert!(
        schema
            .fields()
            .iter()
            .all(|f| !matches!(f.data_type(), ArrowType::Utf8 | ArrowType::Binary)),
        "{schema:?}"
    );
    let batches: Vec<RecordBatch> = read.read(plan.splits).unwrap().try_collect().await.unwrap();
    let mut rows = Vec::new();
    for b in &batches {
        assert_eq!(b.schema(), schema, "{}", e.origin);
        rows.extend(batch_to_json_rows(b, read.output_fields()).unwrap());
    }
    render(&rows)
}

/// The mismatches of one read, as a message (`None` when it matches).
async fn check(e: &Expected, views: bool) -> Option<String> {
    let got = actual(e, views).await;
    let at = format!("{} ({} @ snapshot {})", e.origin, e.table, e.snapshot);
    if let Some(n) = e.row_count {
        if got.len() != n {
            return Some(format!("{at}: {} rows, expected {n}", got.len()));
        }
    }
    let want = e.rows.as_ref()?;
    if &got == want {
        return None;
    }
    let missing: Vec<_> = want.iter().filter(|r| !got.contains(r)).collect();
    let extra: Vec<_> = got.iter().filter(|r| !want.contains(r)).collect();
    Some(format!(
        "{at}: {} rows, expected {}; missing {missing:?}; unexpected {extra:?}",
        got.len(),
        want.len()
    ))
}

#[tokio::test]
async fn every_listed_table_at_every_listed_snapshot() {
    let reads = expected_reads();
    assert!(reads.len() > 50, "only {} expected reads", reads.len());
    let mut failures = Vec::new();
    for e in &reads {
        if let Some(msg) = check(e, false).await {
            failures.push(msg);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The comparison fails on a wrong row: the first listed row of a table, altered.
#[tokio::test]
async fn an_altered_expected_row_fails() {
    let mut e = expected_reads()
        .into_iter()
        .find(|e| e.rows.as_ref().is_some_and(|r| !r.is_empty()))
        .unwrap();
    if let Some(rows) = e.rows.as_mut() {
        rows[0].push('!');
    }
    assert!(check(&e, false).await.is_some());
    assert!(check(&e, true).await.is_some());
}

/// Every listed read again with strings and binaries as views: the same rows (raw and merged
/// reads, deletion vectors, schema evolution, Parquet, ORC and Avro).
#[tokio::test]
async fn every_listed_read_with_string_views() {
    let reads = expected_reads();
    let mut failures = Vec::new();
    for e in &reads {
        if let Some(msg) = check(e, true).await {
            failures.push(msg);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
