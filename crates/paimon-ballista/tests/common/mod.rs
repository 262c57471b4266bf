//! Shared by the Ballista tests: a multi-bucket primary-key table written by paimon-core (three
//! commits: several sorted runs per bucket), Java-written fixture tables (a primary-key table
//! with deletion vectors, an append table; `testdata/java/parquet`, catalog `java`), the
//! queries, and their answers from local DataFusion and from the library's own read.

#![allow(dead_code)]

pub mod cluster;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray,
};
use arrow::util::display::{ArrayFormatter, FormatOptions};
use futures::TryStreamExt;
use paimon_core::{SnapshotSelector, Table};
use paimon_datafusion::datafusion::prelude::SessionContext;

/// Rows written by the first commit (`id` 0..FIRST), in partitions `a`/`b` by parity.
pub const FIRST: i64 = 2000;
/// Rows added by the third commit (`id` FIRST..TOTAL).
pub const TOTAL: i64 = 3000;

/// Creates `<warehouse>/dist.db/orders` (primary key `(dt, id)`, partitioned by `dt`, 4
/// buckets) and commits three snapshots: ids `0..2000`; an update of ids `0..500` (`v + 1000`);
/// ids `2000..3000`.
pub async fn write_orders(warehouse: &Path) -> Table {
    let dir = warehouse.join("dist.db/orders");
    std::fs::create_dir_all(dir.join("schema")).unwrap();
    let schema = r#"{
  "version" : 3,
  "id" : 0,
  "fields" : [ {
    "id" : 0, "name" : "dt", "type" : "STRING NOT NULL"
  }, {
    "id" : 1, "name" : "id", "type" : "BIGINT NOT NULL"
  }, {
    "id" : 2, "name" : "k", "type" : "INT"
  }, {
    "id" : 3, "name" : "v", "type" : "DOUBLE"
  }, {
    "id" : 4, "name" : "s", "type" : "STRING"
  } ],
  "highestFieldId" : 4,
  "partitionKeys" : [ "dt" ],
  "primaryKeys" : [ "dt", "id" ],
  "options" : { "bucket" : "4" },
  "timeMillis" : 0
}"#;
    std::fs::write(dir.join("schema/schema-0"), schema).unwrap();
    let table = Table::open(dir.to_str().unwrap()).await.unwrap();
    commit(&table, 0..FIRST, 0.0).await;
    commit(&table, 0..500, 1000.0).await;
    commit(&table, FIRST..TOTAL, 0.0).await;
    table
}

async fn commit(table: &Table, ids: std::ops::Range<i64>, bump: f64) {
    let ids: Vec<i64> = ids.collect();
    let dt: Vec<&str> = ids
        .iter()
        .map(|i| if i % 2 == 0 { "a" } else { "b" })
        .collect();
    let k: Vec<Option<i32>> = ids
        .iter()
        .map(|i| (i % 7 != 3).then_some((i % 10) as i32))
        .collect();
    // Halves are exact in binary: sums agree in any order of addition.
    let v: Vec<f64> = ids.iter().map(|i| (i % 100) as f64 * 0.5 + bump).collect();
    let s: Vec<String> = ids.iter().map(|i| format!("x{i}")).collect();
    let schema = paimon_core::arrow::arrow_schema(&table.schema().fields).unwrap();
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(dt)),
        Arc::new(Int64Array::from(ids.clone())),
        Arc::new(Int32Array::from(k)),
        Arc::new(Float64Array::from(v)),
        Arc::new(StringArray::from(s)),
    ];
    let batch = RecordBatch::try_new(schema, columns).unwrap();
    let mut write = table
        .new_write()
        .with_commit_user("ballista-test")
        .build()
        .unwrap();
    write.write(&batch).await.unwrap();
    let messages = write.prepare_commit().await.unwrap();
    table
        .new_commit()
        .commit_messages(&messages, write.commit_user())
        .await
        .unwrap();
}

/// The Java fixture warehouse (`testdata/java/parquet`), registered as catalog `java`.
pub fn java_warehouse() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/java/parquet");
    assert!(p.is_dir(), "fixtures missing at {}", p.display());
    p
}

/// A Java fixture table of [`java_warehouse`] (`<name>.db/<name>`).
pub async fn java_table(name: &str) -> Table {
    let dir = java_warehouse().join(format!("{name}.db/{name}"));
    Table::open(dir.to_str().unwrap()).await.unwrap()
}

/// The primary-key fixture with deletion vectors (2 partitions x 2 buckets).
pub const JAVA_PK_DV: &str = "java.pk_table_scan_and_read_dv.pk_table_scan_and_read_dv";
/// The append fixture (2 partitions x 2 buckets, a duplicate row, a null).
pub const JAVA_APPEND: &str = "java.append_09.append_09";

/// Queries over the Java fixtures (results rendered and sorted), a join among them. DOUBLE sums
/// are summed as decimals: exact in any order of addition, so distributed and local agree.
pub const JAVA_QUERIES: &[&str] = &[
    "SELECT count(*) FROM java.pk_table_scan_and_read_dv.pk_table_scan_and_read_dv",
    "SELECT * FROM java.pk_table_scan_and_read_dv.pk_table_scan_and_read_dv",
    "SELECT f1, count(*), sum(CAST(f3 AS DECIMAL(38, 6))) FROM java.pk_table_scan_and_read_dv.pk_table_scan_and_read_dv \
     WHERE f2 = 0 GROUP BY f1",
    "SELECT count(*), sum(CAST(f3 AS DECIMAL(38, 6))) FROM java.append_09.append_09",
    "SELECT * FROM java.append_09.append_09",
    "SELECT f1, f2, count(*), sum(CAST(f3 AS DECIMAL(38, 6))) FROM java.append_09.append_09 WHERE f0 <> 'Bob' GROUP BY f1, f2",
    "SELECT a.f0, a.f1, a.f3, p.f3 FROM java.append_09.append_09 a \
     JOIN java.pk_table_scan_and_read_dv.pk_table_scan_and_read_dv p ON a.f0 = p.f0 AND a.f1 = p.f1",
    "SELECT count(*), sum(CAST(f3 AS DECIMAL(38, 6))) FROM java.pk_09.pk_09",
];

/// The queries every mode must answer identically (results rendered and sorted).
pub const QUERIES: &[&str] = &[
    "SELECT count(*) FROM paimon.dist.orders",
    "SELECT count(*), sum(v), sum(k), min(id), max(id) FROM paimon.dist.orders",
    "SELECT count(*), sum(v) FROM paimon.dist.orders WHERE dt = 'a'",
    "SELECT count(*), sum(v) FROM paimon.dist.orders WHERE k > 5 AND s LIKE 'x1%'",
    "SELECT count(*) FROM paimon.dist.orders WHERE upper(s) = 'X42'",
    "SELECT dt, k, count(*), sum(v) FROM paimon.dist.orders GROUP BY dt, k",
    "SELECT id, count(*) FROM paimon.dist.orders GROUP BY id HAVING count(*) > 1",
    "SELECT * FROM paimon.dist.orders WHERE id < 12 OR id >= 2995",
    "SELECT a.dt, count(*), sum(b.v) FROM paimon.dist.orders a \
     JOIN paimon.dist.orders b ON a.id = b.id + 1 AND a.dt <> b.dt GROUP BY a.dt",
];

/// Queries over system tables (Java's names and columns), including the audit log with
/// filters pushed into its scan and one on `rowkind` kept above it.
pub const SYSTEM_QUERIES: &[&str] = &[
    "SELECT * FROM paimon.dist.\"orders$snapshots\"",
    "SELECT * FROM paimon.dist.\"orders$schemas\"",
    "SELECT * FROM paimon.dist.\"orders$options\"",
    "SELECT * FROM paimon.dist.\"orders$tags\"",
    "SELECT * FROM paimon.dist.\"orders$files\"",
    "SELECT * FROM paimon.dist.\"orders$manifests\"",
    "SELECT * FROM paimon.dist.\"orders$partitions\"",
    "SELECT * FROM paimon.dist.\"orders$buckets\"",
    "SELECT rowkind, count(*), sum(v) FROM paimon.dist.\"orders$audit_log\" GROUP BY rowkind",
    "SELECT * FROM paimon.dist.\"orders$audit_log\" WHERE id < 20 OR id > 2990",
    "SELECT rowkind, id FROM paimon.dist.\"orders$audit_log\" WHERE rowkind = '+I' AND k = 3",
    "SELECT * FROM java.pk_table_scan_and_read_dv.\"pk_table_scan_and_read_dv$audit_log\"",
    "SELECT s.snapshot_id, count(*) FROM paimon.dist.\"orders$snapshots\" s \
     JOIN paimon.dist.\"orders$audit_log\" a ON a.id = s.snapshot_id GROUP BY s.snapshot_id",
];

/// Every system query as local DataFusion answers it, also at snapshot 1 (time travel of
/// `$files` and friends and of the audit log's read happens where the query is planned).
pub async fn check_system_tables(ctx: &SessionContext, local: &SessionContext) {
    for q in SYSTEM_QUERIES {
        let want = sql(local, q).await;
        assert!(!want.is_empty() || q.contains("$tags"), "{q}: no rows");
        assert_eq!(sql(ctx, q).await, want, "{q}");
    }
    let at1 = [
        "SELECT count(*), sum(record_count) FROM paimon.dist.\"orders$files\"",
        "SELECT count(*) FROM paimon.dist.\"orders$audit_log\"",
    ];
    for c in [ctx, local] {
        sql(c, "SET paimon.scan_snapshot_id = 1").await;
    }
    for q in at1 {
        assert_eq!(sql(ctx, q).await, sql(local, q).await, "{q} at snapshot 1");
    }
    assert_eq!(
        sql(ctx, at1[1]).await,
        vec![FIRST.to_string()],
        "audit log at snapshot 1"
    );
    for c in [ctx, local] {
        sql(c, "SET paimon.scan_snapshot_id = ''").await;
    }
}

/// Rendered, sorted rows of `q` on `ctx`.
pub async fn sql(ctx: &SessionContext, q: &str) -> Vec<String> {
    let batches = ctx
        .sql(q)
        .await
        .unwrap_or_else(|e| panic!("{q}: {e}"))
        .collect()
        .await
        .unwrap_or_else(|e| panic!("{q}: {e}"));
    render(&batches)
}

/// Rows rendered as `a, b, c`, sorted.
pub fn render(batches: &[RecordBatch]) -> Vec<String> {
    let options = FormatOptions::default().with_null("null");
    let mut rows = Vec::new();
    for b in batches {
        let formatters: Vec<_> = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &options).unwrap())
            .collect();
        for i in 0..b.num_rows() {
            let cells: Vec<String> = formatters.iter().map(|f| f.value(i).to_string()).collect();
            rows.push(cells.join(", "));
        }
    }
    rows.sort();
    rows
}

/// Registers `warehouse` as catalog `paimon` and the Java fixtures as catalog `java` on `ctx`.
pub async fn register(ctx: &SessionContext, warehouse: &Path) {
    paimon_datafusion::register_warehouse(ctx, "paimon", warehouse.to_str().unwrap())
        .await
        .unwrap();
    paimon_datafusion::register_warehouse(ctx, "java", java_warehouse().to_str().unwrap())
        .await
        .unwrap();
}

/// A local DataFusion session over `warehouse` and the Java fixtures (no Ballista).
/// The number of splits a plain scan of `table` plans (what the executors' metrics count).
pub async fn planned_splits(table: &Table) -> usize {
    table
        .scan()
        .build()
        .unwrap()
        .plan()
        .await
        .unwrap()
        .splits
        .len()
}

pub async fn local_ctx(warehouse: &Path) -> SessionContext {
    let config = paimon_datafusion::session_config().with_target_partitions(8);
    let ctx = SessionContext::new_with_config(config);
    register(&ctx, warehouse).await;
    ctx
}

/// Row count and `sum(v)` of the library's own read of `table` (at `snapshot`).
pub async fn library_count_sum(table: &Table, snapshot: Option<i64>) -> (usize, f64) {
    library_count_sum_of(table, "v", snapshot).await
}

/// Row count and the sum of DOUBLE column `column` of the library's read of `table`.
pub async fn library_count_sum_of(
    table: &Table,
    column: &str,
    snapshot: Option<i64>,
) -> (usize, f64) {
    let mut b = table.scan().select([column]).unwrap();
    if let Some(s) = snapshot {
        b = b.with_snapshot(SnapshotSelector::Id(s));
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
    let mut rows = 0;
    let mut sum = 0.0;
    for batch in &batches {
        let v = batch
            .column(0)
            .as_any()
            .downcast_ref::<Float64Array>()
            .unwrap();
        rows += v.len();
        sum += v.iter().flatten().sum::<f64>();
    }
    (rows, sum)
}

/// `count(*)` and `sum(v)` of `paimon.dist.orders` on `ctx`, typed.
pub async fn sql_count_sum(ctx: &SessionContext) -> (usize, f64) {
    sql_count_sum_of(ctx, "v", "paimon.dist.orders").await
}

/// `count(*)` and `sum(column)` of `table` on `ctx`, typed (0.0 for a sum of no rows).
pub async fn sql_count_sum_of(ctx: &SessionContext, column: &str, table: &str) -> (usize, f64) {
    let q = format!("SELECT count(*), sum({column}) FROM {table}");
    let batches = ctx.sql(&q).await.unwrap().collect().await.unwrap();
    let b = batches.iter().find(|b| b.num_rows() > 0).unwrap();
    let n = b
        .column(0)
        .as_any()
        .downcast_ref::<Int64Array>()
        .unwrap()
        .value(0);
    let sum = b.column(1).as_any().downcast_ref::<Float64Array>().unwrap();
    let sum = if sum.is_null(0) { 0.0 } else { sum.value(0) };
    (n as usize, sum)
}

/// Counts equal and sums equal up to the order of addition (the Java fixtures' doubles are
/// not exact in binary: partial sums added in another order differ in the last bits).
pub fn assert_count_sum(got: (usize, f64), want: (usize, f64), what: &str) {
    assert_eq!(got.0, want.0, "{what}: row counts");
    let tolerance = 1e-9 * want.1.abs().max(1.0);
    assert!(
        (got.1 - want.1).abs() <= tolerance,
        "{what}: sums {} and {}",
        got.1,
        want.1
    );
}

/// Checks `ctx` (distributed) against local DataFusion and the library on every query,
/// time travel through `SET paimon.scan_snapshot_id`, the Java fixtures and system tables.
pub async fn check_against_local(ctx: &SessionContext, local: &SessionContext, table: &Table) {
    for q in QUERIES {
        let want = sql(local, q).await;
        let got = sql(ctx, q).await;
        assert_eq!(got, want, "{q}");
    }
    // The distributed answer is the library's read (not only DataFusion's).
    let (rows, sum) = library_count_sum(table, None).await;
    assert_eq!(rows, TOTAL as usize);
    assert_eq!(sql_count_sum(ctx).await, (rows, sum));
    let dup = sql(
        ctx,
        "SELECT id, count(*) FROM paimon.dist.orders GROUP BY id HAVING count(*) > 1",
    )
    .await;
    assert!(dup.is_empty(), "duplicated rows: {dup:?}");

    // Time travel reaches the side that plans (the scheduler).
    let (rows1, sum1) = library_count_sum(table, Some(1)).await;
    assert_eq!(rows1, FIRST as usize);
    for c in [ctx, local] {
        sql(c, "SET paimon.scan_snapshot_id = 1").await;
    }
    assert_eq!(sql_count_sum(ctx).await, (rows1, sum1));
    assert_eq!(sql_count_sum(local).await, (rows1, sum1));
    for c in [ctx, local] {
        sql(c, "SET paimon.scan_snapshot_id = ''").await;
    }
    assert_eq!(sql_count_sum(ctx).await, (rows, sum));

    check_java_fixtures(ctx, local).await;
    check_system_tables(ctx, local).await;
}

/// The Java fixtures: every query as local DataFusion answers it, counts and sums as the
/// library reads them, and time travel to an older snapshot of the deletion-vector table.
pub async fn check_java_fixtures(ctx: &SessionContext, local: &SessionContext) {
    for q in JAVA_QUERIES {
        let want = sql(local, q).await;
        let got = sql(ctx, q).await;
        assert_eq!(got, want, "{q}");
    }
    for (name, sql_name) in [
        ("pk_table_scan_and_read_dv", JAVA_PK_DV),
        ("append_09", JAVA_APPEND),
    ] {
        let table = java_table(name).await;
        let want = library_count_sum_of(&table, "f3", None).await;
        assert!(want.0 > 0, "{name} is empty");
        let got = sql_count_sum_of(ctx, "f3", sql_name).await;
        assert_count_sum(got, want, name);
    }
    // Snapshot 2 of the DV table differs from the latest (later commits update keys).
    let table = java_table("pk_table_scan_and_read_dv").await;
    let at2 = library_count_sum_of(&table, "f3", Some(2)).await;
    assert_ne!(at2, library_count_sum_of(&table, "f3", None).await);
    let all = format!("SELECT * FROM {JAVA_PK_DV}");
    for c in [ctx, local] {
        sql(c, "SET paimon.scan_snapshot_id = 2").await;
    }
    let got = sql_count_sum_of(ctx, "f3", JAVA_PK_DV).await;
    assert_count_sum(got, at2, "pk_table_scan_and_read_dv at snapshot 2");
    assert_eq!(sql(ctx, &all).await, sql(local, &all).await);
    for c in [ctx, local] {
        sql(c, "SET paimon.scan_snapshot_id = ''").await;
    }
}
