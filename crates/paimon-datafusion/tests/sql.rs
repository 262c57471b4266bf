//! SQL over the Java fixture tables (`testdata/java`), compared with paimon-core's own read.

use std::path::PathBuf;

use arrow::array::RecordBatch;
use arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::prelude::{SessionConfig, SessionContext};
use futures::TryStreamExt;
use paimon_core::{FileSystemCatalog, Identifier, SnapshotSelector};

fn warehouse(format: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../../testdata/java/{format}"));
    assert!(p.is_dir(), "fixtures missing at {}", p.display());
    p.to_str().unwrap().to_string()
}

async fn ctx_with(config: SessionConfig, format: &str) -> SessionContext {
    let ctx = SessionContext::new_with_config(config);
    paimon_datafusion::register_warehouse(&ctx, "paimon", &warehouse(format))
        .await
        .unwrap();
    ctx
}

async fn ctx() -> SessionContext {
    ctx_with(paimon_datafusion::session_config(), "parquet").await
}

fn render(batches: &[RecordBatch]) -> Vec<String> {
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

async fn sql(ctx: &SessionContext, q: &str) -> datafusion::common::Result<Vec<String>> {
    let batches = ctx.sql(q).await?.collect().await?;
    Ok(render(&batches))
}

/// `paimon read` of `db.table` (db = table name in the fixtures) with a filter and snapshot.
async fn core(
    format: &str,
    table: &str,
    filter: Option<&str>,
    snapshot: Option<i64>,
) -> paimon_core::Result<Vec<String>> {
    core_in(format, table, table, filter, snapshot).await
}

async fn core_in(
    format: &str,
    db: &str,
    table: &str,
    filter: Option<&str>,
    snapshot: Option<i64>,
) -> paimon_core::Result<Vec<String>> {
    let catalog = FileSystemCatalog::new(&warehouse(format), Default::default())?;
    let id = Identifier {
        database: db.to_string(),
        table: table.to_string(),
    };
    let t = catalog.get_table(&id).await?;
    let mut b = t.scan();
    if let Some(f) = filter {
        b = b.with_filter(f)?;
    }
    if let Some(s) = snapshot {
        b = b.with_snapshot(SnapshotSelector::Id(s));
    }
    let batches: Vec<RecordBatch> = b.build()?.to_arrow().await?.try_collect().await?;
    Ok(render(&batches))
}

/// Every fixture table of every format: `SELECT *` equals the library's read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn select_star_equals_read_on_every_fixture() {
    let mut compared = 0;
    for format in ["parquet", "orc", "avro"] {
        let ctx = ctx_with(paimon_datafusion::session_config(), format).await;
        let catalog = FileSystemCatalog::new(&warehouse(format), Default::default()).unwrap();
        for db in catalog.list_databases().await.unwrap() {
            for t in catalog.list_tables(&db).await.unwrap() {
                let Ok(expected) = core_in(format, &db, &t, None, None).await else {
                    continue;
                };
                let q = format!("SELECT * FROM paimon.\"{db}\".\"{t}\"");
                let got = sql(&ctx, &q).await.unwrap_or_else(|e| panic!("{q}: {e}"));
                assert_eq!(got, expected, "{format}: {q}");
                compared += 1;
            }
        }
    }
    assert!(compared > 20, "only {compared} tables compared");
}

/// One query per pushed expression kind (and some that are not pushed), on an append table
/// and a primary-key table with deletion vectors: SQL rows equal the library's rows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filters_of_every_kind_equal_read() {
    // (SQL WHERE, the same filter for paimon-core)
    let cases = [
        ("f1 = 10", "f1 = 10"),
        ("10 = f1", "f1 = 10"),
        ("f1 <> 10", "f1 <> 10"),
        ("f2 > 0", "f2 > 0"),
        ("f2 >= 1", "f2 >= 1"),
        ("f2 < 1", "f2 < 1"),
        ("f2 <= 0", "f2 <= 0"),
        ("f1 = 10 AND f2 = 0", "f1 = 10 AND f2 = 0"),
        ("f1 = 20 OR f2 = 0", "f1 = 20 OR f2 = 0"),
        ("NOT (f2 = 0)", "NOT (f2 = 0)"),
        ("f0 IN ('Alice', 'Bob')", "f0 IN ('Alice', 'Bob')"),
        ("f0 NOT IN ('Alice', 'Bob')", "f0 NOT IN ('Alice', 'Bob')"),
        ("f3 BETWEEN 12 AND 15", "f3 BETWEEN 12 AND 15"),
        ("f3 NOT BETWEEN 12 AND 15", "f3 NOT BETWEEN 12 AND 15"),
        ("f3 IS NULL", "f3 IS NULL"),
        ("f3 IS NOT NULL", "f3 IS NOT NULL"),
        ("f0 LIKE 'A%'", "f0 LIKE 'A%'"),
        // not pushed (DataFusion evaluates them): expressions, functions, casts, patterns
        ("f2 + 1 > 1", "f2 > 0"),
        ("upper(f0) = 'ALICE'", "f0 = 'Alice'"),
        ("CAST(f2 AS DOUBLE) > 0.5", "f2 > 0"),
        ("f0 LIKE '%e'", "f0 IN ('Alice', 'Mike', 'Tracy', 'Lucy')"),
        (
            "f1 = 10 AND upper(f0) = 'ALICE'",
            "f1 = 10 AND f0 = 'Alice'",
        ),
    ];
    let ctx = ctx().await;
    for table in ["append_09", "pk_table_scan_and_read_dv"] {
        for (where_sql, filter) in cases {
            if where_sql.contains("LIKE '%e'") {
                // checked against the rows themselves below
                continue;
            }
            let q = format!("SELECT * FROM paimon.{table}.{table} WHERE {where_sql}");
            let got = sql(&ctx, &q).await.unwrap_or_else(|e| panic!("{q}: {e}"));
            let expected = core("parquet", table, Some(filter), None).await.unwrap();
            assert_eq!(got, expected, "{q}");
        }
        let q = format!("SELECT * FROM paimon.{table}.{table} WHERE f0 LIKE '%e'");
        let got = sql(&ctx, &q).await.unwrap();
        let all = core("parquet", table, None, None).await.unwrap();
        let expected: Vec<String> = all
            .into_iter()
            .filter(|r| r.split(", ").next().is_some_and(|f0| f0.ends_with('e')))
            .collect();
        assert_eq!(got, expected, "{q}");
    }
}

/// Strings come out as `Utf8View`, as DataFusion's own Parquet source gives them, from raw
/// (append, deletion vectors) and merged reads, and compare as strings.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strings_are_views() {
    let ctx = ctx().await;
    for table in [
        "append_09",
        "pk_table_scan_and_read_dv",
        "pk_table_scan_and_read_mor",
    ] {
        let q = format!("SELECT DISTINCT arrow_typeof(f0) FROM paimon.{table}.{table}");
        assert_eq!(sql(&ctx, &q).await.unwrap(), ["Utf8View"], "{q}");
        let q = format!("SELECT * FROM paimon.{table}.{table} WHERE f0 >= 'B'");
        let got = sql(&ctx, &q).await.unwrap();
        let want = core("parquet", table, Some("f0 >= 'B'"), None)
            .await
            .unwrap();
        assert!(!want.is_empty(), "{q}");
        assert_eq!(got, want, "{q}");
    }
}

async fn explain(ctx: &SessionContext, q: &str) -> String {
    let batches = ctx
        .sql(&format!("EXPLAIN {q}"))
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    render(&batches).join("\n")
}

/// Partition-only filters are Exact (no `FilterExec`), data filters Inexact (kept above the
/// scan and pushed), unsupported ones stay above and are not pushed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pushdown_exactness_in_plans() {
    let ctx = ctx().await;
    let plan = explain(
        &ctx,
        "SELECT * FROM paimon.append_09.append_09 WHERE f1 = 10",
    )
    .await;
    assert!(!plan.contains("FilterExec"), "{plan}");
    assert!(plan.contains("PaimonScanExec"), "{plan}");
    assert!(plan.contains("predicate="), "{plan}");

    let plan = explain(
        &ctx,
        "SELECT * FROM paimon.append_09.append_09 WHERE f2 > 0",
    )
    .await;
    assert!(plan.contains("FilterExec"), "{plan}");
    assert!(plan.contains("predicate="), "{plan}");

    let q = "SELECT * FROM paimon.append_09.append_09 WHERE upper(f0) = 'A'";
    let plan = explain(&ctx, q).await;
    assert!(plan.contains("FilterExec"), "{plan}");
    assert!(!plan.contains("predicate="), "{plan}");
}

/// `count(*)` is answered correctly for append tables (exact statistics) and primary-key
/// tables with deletion vectors (row counts before merging are not exact).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn counts_equal_read() {
    let ctx = ctx().await;
    for table in [
        "append_09",
        "pk_table_scan_and_read_dv",
        "pk_table_scan_and_read_mor",
        "pk_09",
    ] {
        for (where_sql, filter) in [("", None), (" WHERE f1 = 10", Some("f1 = 10"))] {
            let q = format!("SELECT count(*) FROM paimon.{table}.{table}{where_sql}");
            let got = sql(&ctx, &q).await.unwrap();
            let n = core("parquet", table, filter, None).await.unwrap().len();
            assert_eq!(got, vec![n.to_string()], "{q}");
        }
    }
}

/// LIMIT (pushed under an Exact filter) and an empty projection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limit_and_empty_projection() {
    let ctx = ctx().await;
    let got = sql(&ctx, "SELECT * FROM paimon.append_09.append_09 LIMIT 3")
        .await
        .unwrap();
    assert_eq!(got.len(), 3);
    let got = sql(
        &ctx,
        "SELECT f0 FROM paimon.append_09.append_09 WHERE f1 = 20 LIMIT 2",
    )
    .await
    .unwrap();
    assert_eq!(got.len(), 2);
    let got = sql(&ctx, "SELECT 1 FROM paimon.append_09.append_09 LIMIT 2")
        .await
        .unwrap();
    assert_eq!(got, vec!["1", "1"]);
    let n = core("parquet", "pk_table_scan_and_read_dv", None, None)
        .await
        .unwrap()
        .len();
    let got = sql(
        &ctx,
        "SELECT 1 FROM paimon.pk_table_scan_and_read_dv.pk_table_scan_and_read_dv",
    )
    .await
    .unwrap();
    assert_eq!(got.len(), n);
}

/// Time travel with `SET paimon.scan_snapshot_id`, at every snapshot of a DV table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn time_travel_by_session_option() {
    let ctx = ctx().await;
    let table = "pk_table_scan_and_read_dv";
    for id in 1..=6 {
        sql(&ctx, &format!("SET paimon.scan_snapshot_id = {id}"))
            .await
            .unwrap();
        let got = sql(&ctx, &format!("SELECT * FROM paimon.{table}.{table}"))
            .await
            .unwrap();
        let expected = core("parquet", table, None, Some(id)).await.unwrap();
        assert_eq!(got, expected, "snapshot {id}");
    }
    sql(&ctx, "SET paimon.scan_snapshot_id = ''").await.unwrap();
    let got = sql(&ctx, &format!("SELECT * FROM paimon.{table}.{table}"))
        .await
        .unwrap();
    assert_eq!(got, core("parquet", table, None, None).await.unwrap());
}

/// Schema evolution: the latest schema's columns over old files (by field id).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schema_evolution_table() {
    let ctx = ctx().await;
    let t = "append_table_with_alter_table";
    let got = sql(
        &ctx,
        &format!("SELECT * FROM paimon.{t}.{t} WHERE d IS NULL"),
    )
    .await
    .unwrap();
    assert_eq!(
        got,
        core("parquet", t, Some("d IS NULL"), None).await.unwrap()
    );
    assert_eq!(got.len(), 5);
}

/// Target partitions bound the scan's partitions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn target_partitions_honoured() {
    for n in [1, 2] {
        let config = paimon_datafusion::session_config().with_target_partitions(n);
        let ctx = ctx_with(config, "parquet").await;
        let plan = explain(&ctx, "SELECT * FROM paimon.append_09.append_09").await;
        let parts: usize = plan
            .split("partitions=")
            .nth(1)
            .and_then(|s| s.split(',').next())
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("{plan}"));
        assert!((1..=n).contains(&parts), "{plan}");
    }
}

/// System tables against the fixture's snapshot, schema and manifest files.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn system_tables() {
    let ctx = ctx().await;
    let t = "pk_table_scan_and_read_dv";
    let got = sql(
        &ctx,
        &format!("SELECT snapshot_id, schema_id FROM paimon.{t}.\"{t}$snapshots\""),
    )
    .await
    .unwrap();
    assert_eq!(got, ["1, 0", "2, 0", "3, 0", "4, 0", "5, 0", "6, 0"]);

    let a = "append_table_with_alter_table";
    let got = sql(
        &ctx,
        &format!("SELECT schema_id, partition_keys FROM paimon.{a}.\"{a}$schemas\""),
    )
    .await
    .unwrap();
    assert_eq!(got, ["0, [\"key0\",\"key1\"]", "1, [\"key0\",\"key1\"]"]);

    let got = sql(
        &ctx,
        &format!("SELECT value FROM paimon.{t}.\"{t}$options\" WHERE key = 'bucket'"),
    )
    .await
    .unwrap();
    assert_eq!(got, ["2"]);

    // the files of the latest snapshot: their row counts are the planned splits'
    let catalog = FileSystemCatalog::new(&warehouse("parquet"), Default::default()).unwrap();
    let table = catalog
        .get_table(&Identifier::parse("append_09.append_09").unwrap())
        .await
        .unwrap();
    let plan = table.scan().build().unwrap().plan().await.unwrap();
    let rows: i64 = plan.splits.iter().map(|s| s.as_data().row_count()).sum();
    let files: usize = plan.splits.iter().map(|s| s.as_data().files.len()).sum();
    let got = sql(
        &ctx,
        "SELECT count(*), sum(record_count) FROM paimon.append_09.\"append_09$files\"",
    )
    .await
    .unwrap();
    assert_eq!(got, [format!("{files}, {rows}")]);
    let got = sql(
        &ctx,
        "SELECT DISTINCT file_format FROM paimon.append_09.\"append_09$files\"",
    )
    .await
    .unwrap();
    assert_eq!(got, ["parquet"]);

    // manifests: the files named by the latest snapshot's base and delta lists
    let got = sql(
        &ctx,
        "SELECT file_name FROM paimon.append_09.\"append_09$manifests\"",
    )
    .await
    .unwrap();
    assert!(!got.is_empty());
    let dir = format!("{}/append_09.db/append_09/manifest", warehouse("parquet"));
    for name in &got {
        assert!(name.starts_with("manifest-"), "{name}");
        assert!(std::path::Path::new(&dir).join(name).is_file(), "{name}");
    }
}

/// Bad input: DataFusion errors naming the table, never a panic.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_errors_name_the_table() {
    let ctx = ctx().await;
    let e = sql(&ctx, "SELECT * FROM paimon.append_09.nope")
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("nope"), "{e}");
    let e = sql(&ctx, "SELECT * FROM paimon.append_09.\"append_09$nope\"")
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("append_09$nope"), "{e}");

    sql(&ctx, "SET paimon.scan_snapshot_id = 999")
        .await
        .unwrap();
    let e = sql(&ctx, "SELECT * FROM paimon.append_09.append_09")
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("append_09.append_09"), "{e}");
    sql(&ctx, "SET paimon.scan_snapshot_id = ''").await.unwrap();

    let e = sql(&ctx, "SET paimon.no_such_option = 1")
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("no_such_option"), "{e}");

    // a literal of a type the column cannot take: not pushed, DataFusion decides
    let r = sql(
        &ctx,
        "SELECT * FROM paimon.append_09.append_09 WHERE f2 = 1.5",
    )
    .await;
    assert_eq!(r.unwrap(), Vec::<String>::new());
}

/// The classifier per expression kind: partition-only conjuncts Exact, other translatable ones
/// Inexact (NOT, data columns, an AND with a data side), the rest Unsupported.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn classify_each_kind() {
    use datafusion::common::ScalarValue;
    use datafusion::logical_expr::TableProviderFilterPushDown as P;
    use datafusion::prelude::{col, lit};
    use paimon_datafusion::filter::classify;

    let catalog = FileSystemCatalog::new(&warehouse("parquet"), Default::default()).unwrap();
    let id = Identifier::parse("append_09.append_09").unwrap();
    let t = catalog.get_table(&id).await.unwrap();
    let cases = [
        (col("f1").eq(lit(10i32)), P::Exact),
        (lit(10i32).lt(col("f1")), P::Exact),
        (
            col("f1").in_list(vec![lit(10i32), lit(20i32)], false),
            P::Exact,
        ),
        (col("f1").is_null(), P::Exact),
        (col("f2").gt(lit(0i32)), P::Inexact),
        (col("f3").is_not_null(), P::Inexact),
        (col("f0").like(lit("A%")), P::Inexact),
        (
            col("f1").eq(lit(10i32)).and(col("f2").gt(lit(0i32))),
            P::Inexact,
        ),
        (!col("f1").eq(lit(10i32)), P::Inexact),
        (
            col("f1")
                .eq(lit(10i32))
                .and((col("f2") + lit(1i32)).gt(lit(1i32))),
            P::Inexact,
        ),
        ((col("f2") + lit(1i32)).gt(lit(1i32)), P::Unsupported),
        (col("f0").like(lit("%A")), P::Unsupported),
        (col("f0").eq(lit(ScalarValue::Utf8(None))), P::Unsupported),
        (col("nope").eq(lit(1i32)), P::Unsupported),
    ];
    for (e, want) in cases {
        assert_eq!(classify(&e, t.schema()).pushdown, want, "{e}");
    }
}

/// `$partitions`, `$buckets` and `$files` of Java fixtures against the library's plan of every
/// live file (deletion-vector tables planned merge-on-read, so level 0 is listed as Java does).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partitions_buckets_and_files_equal_the_plan() {
    use std::collections::BTreeMap;
    let ctx = ctx().await;
    let catalog = FileSystemCatalog::new(&warehouse("parquet"), Default::default()).unwrap();
    let mut level0_seen = false;
    for t in [
        "pk_table_scan_and_read_dv",
        "pk_table_scan_and_read_mor",
        "append_table_with_alter_table",
    ] {
        let table = catalog
            .get_table(&Identifier::parse(&format!("{t}.{t}")).unwrap())
            .await
            .unwrap();
        let plan = table
            .scan()
            .with_option("deletion-vectors.merge-on-read", "true")
            .build()
            .unwrap()
            .plan()
            .await
            .unwrap();
        let default_name = &table.options().partition_default_name;
        // (partition text, bucket) -> (files, rows, bytes)
        let mut buckets: BTreeMap<(String, i32), (i64, i64, i64)> = BTreeMap::new();
        let mut partitions: BTreeMap<String, (i64, i64, i64)> = BTreeMap::new();
        let mut files = 0;
        for s in &plan.splits {
            let d = s.as_data();
            let row = d
                .partition_values
                .iter()
                .map(|(_, v)| v.clone().unwrap_or_else(|| "null".into()))
                .collect::<Vec<_>>()
                .join(", ");
            let spec = d
                .partition_values
                .iter()
                .map(|(k, v)| format!("{k}={}", v.clone().unwrap_or_else(|| default_name.clone())))
                .collect::<Vec<_>>()
                .join("/");
            for f in &d.files {
                level0_seen |= f.level == 0 && table.schema().has_primary_key();
                files += 1;
                let b = buckets.entry((format!("{{{row}}}"), d.bucket)).or_default();
                *b = (b.0 + 1, b.1 + f.row_count, b.2 + f.file_size);
                let p = partitions.entry(spec.clone()).or_default();
                *p = (p.0 + 1, p.1 + f.row_count, p.2 + f.file_size);
            }
        }
        let want: Vec<String> = buckets
            .iter()
            .map(|((p, b), (n, r, s))| format!("{p}, {b}, {n}, {r}, {s}"))
            .collect();
        let mut want = want;
        want.sort();
        let got = sql(
            &ctx,
            &format!(
                "SELECT partition, bucket, file_count, record_count, file_size_in_bytes \
                 FROM paimon.{t}.\"{t}$buckets\""
            ),
        )
        .await
        .unwrap();
        assert_eq!(got, want, "{t}$buckets");
        let mut want: Vec<String> = partitions
            .iter()
            .map(|(p, (n, r, s))| format!("{p}, {n}, {r}, {s}"))
            .collect();
        want.sort();
        let got = sql(
            &ctx,
            &format!(
                "SELECT partition, file_count, record_count, file_size_in_bytes \
                 FROM paimon.{t}.\"{t}$partitions\""
            ),
        )
        .await
        .unwrap();
        assert_eq!(got, want, "{t}$partitions");
        let got = sql(
            &ctx,
            &format!("SELECT count(*) FROM paimon.{t}.\"{t}$files\""),
        )
        .await
        .unwrap();
        assert_eq!(got, [files.to_string()], "{t}$files");
        // every key bound of a primary-key file is a one-element list, append files have none
        let keys = sql(
            &ctx,
            &format!("SELECT DISTINCT min_key IS NULL FROM paimon.{t}.\"{t}$files\""),
        )
        .await
        .unwrap();
        let pk = table.schema().has_primary_key();
        assert_eq!(keys, [if pk { "false" } else { "true" }], "{t}$files keys");
    }
    assert!(
        level0_seen,
        "no level-0 file in the deletion-vector fixtures"
    );
}

/// The scan node of a query's physical plan.
fn scan_node(
    plan: &std::sync::Arc<dyn datafusion::physical_plan::ExecutionPlan>,
) -> Option<&paimon_datafusion::PaimonScanExec> {
    if let Some(s) = plan
        .as_ref()
        .downcast_ref::<paimon_datafusion::PaimonScanExec>()
    {
        return Some(s);
    }
    plan.children().into_iter().find_map(scan_node)
}

/// Column statistics from the manifests: bounds enclose the values read, null counts are
/// exact for an unfiltered append scan and inexact under a data filter; primary-key tables
/// give none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn column_statistics_from_manifests() {
    use datafusion::common::stats::Precision;
    use datafusion::common::ScalarValue;
    use datafusion::physical_plan::{ExecutionPlan, StatisticsArgs};

    let ctx = ctx().await;
    let stats = |q: &'static str| {
        let ctx = ctx.clone();
        async move {
            let plan = ctx
                .sql(q)
                .await
                .unwrap()
                .create_physical_plan()
                .await
                .unwrap();
            let scan = scan_node(&plan).expect("no scan node");
            scan.statistics_from_inputs(&[], &StatisticsArgs::new())
                .unwrap()
                .as_ref()
                .clone()
        }
    };
    let s = stats("SELECT f1, f2, f3 FROM paimon.append_09.append_09").await;
    // the values read, per column: (min, max, nulls)
    let batches = ctx
        .sql("SELECT f1, f2, f3 FROM paimon.append_09.append_09")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    for (i, c) in s.column_statistics.iter().enumerate() {
        let mut lo: Option<ScalarValue> = None;
        let mut hi: Option<ScalarValue> = None;
        let mut nulls = 0usize;
        for b in &batches {
            let col = b.column(i);
            nulls += col.null_count();
            for r in 0..col.len() {
                let v = ScalarValue::try_from_array(col, r).unwrap();
                if v.is_null() {
                    continue;
                }
                if lo.as_ref().is_none_or(|l| v < *l) {
                    lo = Some(v.clone());
                }
                if hi.as_ref().is_none_or(|h| v > *h) {
                    hi = Some(v);
                }
            }
        }
        assert_eq!(c.null_count, Precision::Exact(nulls), "column {i}");
        match (&c.min_value, &c.max_value) {
            (Precision::Inexact(min), Precision::Inexact(max)) => {
                assert!(Some(min) <= lo.as_ref(), "column {i}: {min} > {lo:?}");
                assert!(Some(max) >= hi.as_ref(), "column {i}: {max} < {hi:?}");
            }
            other => panic!("column {i}: no bounds {other:?}"),
        }
    }
    // a data filter: rows are filtered above the scan, null counts no longer exact
    let s = stats("SELECT f3 FROM paimon.append_09.append_09 WHERE f2 > 0").await;
    assert!(matches!(
        s.column_statistics[0].null_count,
        Precision::Inexact(_)
    ));
    // primary-key tables: nothing
    let s =
        stats("SELECT * FROM paimon.pk_table_scan_and_read_mor.pk_table_scan_and_read_mor").await;
    assert!(s
        .column_statistics
        .iter()
        .all(|c| c.null_count == Precision::Absent && c.min_value == Precision::Absent));
}
