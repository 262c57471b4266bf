//! Shared helpers: fixture locations (Java-written and generated), private copies of fixture
//! tables, and reading a table to JSON rows or comparable row strings.

use std::path::{Path, PathBuf};

use futures::TryStreamExt;
use paimon_core::catalog::Table;
use paimon_core::read::TableRead;
use paimon_core::render::batch_to_json_rows;
use paimon_core::scan::{Plan, SnapshotSelector, Split, TableScan};
use serde_json::{Map, Value};

/// `testdata/java` of the repository (see `testdata/README.md`), or `$PAIMON_JAVA_FIXTURES`.
pub fn java_fixtures() -> PathBuf {
    let p = std::env::var_os("PAIMON_JAVA_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/java"));
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

/// Generated fixture tables: `$var` if set, else `target/<dir>` of the repository, when its
/// `index` file (e.g. `tables.json`) exists. Otherwise `None` (the caller skips), or a failure
/// when `CI` is set: `what` names the tables and `hint` how to generate them.
pub fn generated_tables(
    var: &str,
    dir: &str,
    index: &str,
    what: &str,
    hint: &str,
) -> Option<PathBuf> {
    let p = std::env::var_os(var).map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../target")
            .join(dir)
    });
    if p.join(index).is_file() {
        return Some(p);
    }
    assert!(
        std::env::var("CI").is_err(),
        "{what} missing at {}: {hint}",
        p.display()
    );
    eprintln!("skipping: {what} missing at {} ({hint})", p.display());
    None
}

/// The `tables` array of a generated `tables.json` under `root`.
pub fn tables_index(root: &Path) -> Vec<Value> {
    let v: Value =
        serde_json::from_slice(&std::fs::read(root.join("tables.json")).unwrap()).unwrap();
    v["tables"].as_array().unwrap().clone()
}

/// Opens the table at `t["path"]` (an entry of [`tables_index`]) under `root`.
pub async fn open_indexed(root: &Path, t: &Value) -> Table {
    Table::open(root.join(t["path"].as_str().unwrap()).to_str().unwrap())
        .await
        .unwrap()
}

/// Copies a directory tree (a fixture table) into `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A private copy of Java fixture table `rel` (see [`java_table`]) in a new tempdir, in a
/// directory named like the table; keep the `TempDir` alive while using the path.
pub fn java_table_copy(rel: &str) -> (tempfile::TempDir, PathBuf) {
    let name = rel.rsplit('/').next().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let to = tmp.path().join(name);
    copy_dir(Path::new(&java_table(rel)), &to);
    (tmp, to)
}

/// Reads `splits` with `read` to JSON rows, in read order.
pub async fn json_rows(
    read: &TableRead,
    splits: Vec<Split>,
) -> paimon_core::Result<Vec<Map<String, Value>>> {
    let fields = read.output_fields().to_vec();
    let batches: Vec<_> = read.read(splits)?.try_collect().await?;
    let mut out = Vec::new();
    for b in &batches {
        out.extend(batch_to_json_rows(b, &fields)?);
    }
    Ok(out)
}

/// Plans and reads the latest snapshot of the table at `path` to a row count, returning any
/// error (opening, planning or reading) instead of panicking on it.
pub async fn try_count_rows(path: &str) -> paimon_core::Result<usize> {
    let table = Table::open(path).await?;
    let batches: Vec<_> = table
        .scan()
        .build()?
        .to_arrow()
        .await?
        .try_collect()
        .await?;
    Ok(batches.iter().map(|b| b.num_rows()).sum())
}

/// Opens Java fixture table `rel` (see [`java_table`]).
pub async fn open_java(rel: &str) -> Table {
    Table::open(&java_table(rel)).await.unwrap()
}

/// The names of the table's schema fields, in order.
pub fn column_names(table: &Table) -> Vec<String> {
    table
        .schema()
        .fields
        .iter()
        .map(|f| f.name.clone())
        .collect()
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

/// The scan of a query.
pub fn query_scan(table: &Table, q: &Query<'_>) -> TableScan {
    let mut b = table.scan();
    if let Some(f) = q.filter {
        b = b.with_filter(f).unwrap();
    }
    if let Some(s) = q.snapshot {
        b = b.with_snapshot(SnapshotSelector::Id(s));
    }
    if let Some(cols) = &q.select {
        b = b.select(cols.iter().copied()).unwrap();
    }
    b.build().unwrap()
}

/// Plans a query.
pub async fn plan(table: &Table, q: &Query<'_>) -> Plan {
    query_scan(table, q).plan().await.unwrap()
}

/// Reads a query to rows, each row its values joined by ", ", sorted.
pub async fn read_rows(path: &str, q: Query<'_>) -> Vec<String> {
    let table = Table::open(path).await.unwrap();
    let scan = query_scan(&table, &q);
    let plan = scan.plan().await.unwrap();
    let rows = json_rows(&scan.reader(), plan.splits).await.unwrap();
    render(&rows)
}

/// Each row its values joined by ", " (see [`plain`]), sorted.
pub fn render(rows: &[Map<String, Value>]) -> Vec<String> {
    let mut out: Vec<String> = rows
        .iter()
        .map(|r| r.values().map(plain).collect::<Vec<_>>().join(", "))
        .collect();
    out.sort();
    out
}

/// Sorted owned rows from literals.
pub fn rows(lines: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// A reader of every column of `table` plus its metadata columns.
pub fn metadata_reader(table: &Table) -> TableRead {
    table.scan().with_metadata(true).build().unwrap().reader()
}

/// The latest snapshot's plan of `t` (reopened) with every level listed
/// (`deletion-vectors.merge-on-read`): what compaction tests inspect.
pub async fn merge_on_read_plan(t: &Table) -> Plan {
    let t = Table::open(t.location()).await.unwrap();
    t.scan()
        .with_option("deletion-vectors.merge-on-read", "true")
        .build()
        .unwrap()
        .plan()
        .await
        .unwrap()
}
