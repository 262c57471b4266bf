//! Shared helpers: fixture locations and reading a table to comparable row strings.

use std::path::PathBuf;

use futures::TryStreamExt;
use paimon_core::catalog::Table;
use paimon_core::expr::parse_predicate;
use paimon_core::read::TableRead;
use paimon_core::render::batch_to_json_rows;
use paimon_core::scan::{Plan, ScanContextBuilder, SnapshotSelector, TableScan};
use serde_json::Value;

/// `../shared/fixtures/java` beside the repository (or `$PAIMON_JAVA_FIXTURES`).
pub fn java_fixtures() -> PathBuf {
    let p = std::env::var_os("PAIMON_JAVA_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/java")
        });
    assert!(p.is_dir(), "Java fixtures missing at {}", p.display());
    p
}

/// Path of a Java fixture table, e.g. `parquet/append_09`.
pub fn java_table(rel: &str) -> String {
    let (fmt, name) = rel.split_once('/').unwrap_or(("", rel));
    let dir = if fmt.is_empty() {
        java_fixtures().join(format!("{name}.db/{name}"))
    } else {
        java_fixtures().join(format!("{fmt}/{name}.db/{name}"))
    };
    dir.to_str().unwrap().to_string()
}

/// Renders one JSON value the way fixture READMEs write values.
pub fn plain(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::String(s) => s.strip_suffix('Z').unwrap_or(s).to_string(),
        other => other.to_string(),
    }
}

/// A query: optional predicate text, projection, snapshot.
#[derive(Default, Clone)]
pub struct Query<'a> {
    pub filter: Option<&'a str>,
    pub select: Option<Vec<&'a str>>,
    pub snapshot: Option<i64>,
}

/// Plans a query.
pub async fn plan(table: &Table, q: &Query<'_>) -> Plan {
    let mut b = ScanContextBuilder::new(table.clone());
    if let Some(f) = q.filter {
        b = b.with_predicate(parse_predicate(f).unwrap());
    }
    if let Some(s) = q.snapshot {
        b = b.with_snapshot(SnapshotSelector::Id(s));
    }
    TableScan::new(b.build().unwrap()).plan().await.unwrap()
}

/// Reads a query to rows, each row its values joined by ", ", sorted.
pub async fn read_rows(path: &str, q: Query<'_>) -> Vec<String> {
    let table = Table::open(path).await.unwrap();
    let mut b = ScanContextBuilder::new(table.clone());
    if let Some(f) = q.filter {
        b = b.with_predicate(parse_predicate(f).unwrap());
    }
    if let Some(s) = q.snapshot {
        b = b.with_snapshot(SnapshotSelector::Id(s));
    }
    let ctx = b.build().unwrap();
    let pred = ctx.predicate.clone();
    let plan = TableScan::new(ctx).plan().await.unwrap();
    let mut read = TableRead::new(&table).with_predicate(pred);
    if let Some(cols) = &q.select {
        let cols: Vec<String> = cols.iter().map(|s| s.to_string()).collect();
        read = read.with_projection(&cols).unwrap();
    }
    let fields = read.output_fields().to_vec();
    let batches: Vec<_> = read.read(plan.splits).unwrap().try_collect().await.unwrap();
    let mut rows = Vec::new();
    for b in &batches {
        for r in batch_to_json_rows(b, &fields).unwrap() {
            rows.push(r.values().map(plain).collect::<Vec<_>>().join(", "));
        }
    }
    rows.sort();
    rows
}

/// Sorted owned rows from literals.
pub fn rows(lines: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}
