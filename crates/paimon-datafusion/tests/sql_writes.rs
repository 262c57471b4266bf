//! Writes through SQL (`CREATE TABLE ... WITH`, `INSERT INTO`, `INSERT OVERWRITE`,
//! `DROP TABLE`) read back against a model, and the system tables of the written tables
//! checked against what was written.
//!
//! The final tables stay under `target/written/warehouse/written.db/sql_*` with their
//! expected rows beside them, so `scripts/check-written.py` has pypaimon read them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use arrow::array::RecordBatch;
use arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::prelude::SessionContext;
use paimon_core::{FileSystemCatalog, Identifier};
use paimon_datafusion::ddl;

fn warehouse() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/written/warehouse")
}

async fn context() -> SessionContext {
    let dir = warehouse();
    std::fs::create_dir_all(&dir).unwrap();
    let catalog = FileSystemCatalog::new(dir.to_str().unwrap(), Default::default()).unwrap();
    catalog.create_database("written", true).await.unwrap();
    let ctx = paimon_datafusion::session_context();
    paimon_datafusion::register_warehouse(&ctx, "paimon", dir.to_str().unwrap())
        .await
        .unwrap();
    ctx
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

async fn run(ctx: &SessionContext, q: &str) -> Vec<String> {
    let df = ddl::sql(ctx, q)
        .await
        .unwrap_or_else(|e| panic!("{q}: {e}"));
    render(&df.collect().await.unwrap_or_else(|e| panic!("{q}: {e}")))
}

async fn batches(ctx: &SessionContext, q: &str) -> Vec<RecordBatch> {
    ddl::sql(ctx, q).await.unwrap().collect().await.unwrap()
}

/// Leaves the rows of `q` beside the table for `scripts/check-written.py`.
async fn save_expected(ctx: &SessionContext, table: &str, q: &str) {
    let batches = batches(ctx, q).await;
    let path = warehouse().join(format!("written.db/{table}.expected.parquet"));
    let file = std::fs::File::create(path).unwrap();
    let schema = batches[0].schema();
    let mut w = parquet::arrow::arrow_writer::ArrowWriter::try_new(file, schema, None).unwrap();
    for b in &batches {
        w.write(b).unwrap();
    }
    w.close().unwrap();
}

fn model_rows(m: &BTreeMap<(i64, String), f64>) -> Vec<String> {
    let mut rows: Vec<String> = m
        .iter()
        .map(|((k, p), v)| format!("{k}, {p}, {v:?}"))
        .collect();
    rows.sort();
    rows
}

/// A partitioned primary-key table created and written through SQL: inserts and updates read
/// back as the model (deduplicate: the last write of a key wins), overwrite replaces only
/// the partitions it writes (Java's dynamic-partition default).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_insert_overwrite_primary_key_table() {
    let ctx = context().await;
    run(&ctx, "DROP TABLE IF EXISTS paimon.written.sql_pk").await;
    run(
        &ctx,
        "CREATE TABLE paimon.written.sql_pk (id BIGINT NOT NULL, p STRING NOT NULL, v DOUBLE) \
         WITH ('primary-key' = 'id,p', 'partition' = 'p', 'bucket' = '2')",
    )
    .await;
    let table = FileSystemCatalog::new(warehouse().to_str().unwrap(), Default::default())
        .unwrap()
        .get_table(&Identifier::parse("written.sql_pk").unwrap())
        .await
        .unwrap();
    assert_eq!(table.schema().primary_keys, ["id", "p"]);
    assert_eq!(table.schema().partition_keys, ["p"]);
    assert_eq!(
        table.schema().options.get("bucket").map(String::as_str),
        Some("2")
    );

    let mut model = BTreeMap::new();
    let mut values = Vec::new();
    for i in 0..40i64 {
        let p = if i % 2 == 0 { "a" } else { "b" };
        model.insert((i, p.to_string()), i as f64 * 0.5);
        values.push(format!("({i}, '{p}', {})", i as f64 * 0.5));
    }
    let count = run(
        &ctx,
        &format!(
            "INSERT INTO paimon.written.sql_pk VALUES {}",
            values.join(", ")
        ),
    )
    .await;
    assert_eq!(count, ["40"]);
    // updates of existing keys and new keys, from a query
    run(
        &ctx,
        "INSERT INTO paimon.written.sql_pk SELECT id + 30, p, v * 10 FROM paimon.written.sql_pk \
         WHERE id >= 20",
    )
    .await;
    for i in 20..40i64 {
        let p = if i % 2 == 0 { "a" } else { "b" };
        model.insert((i + 30, p.to_string()), i as f64 * 0.5 * 10.0);
    }
    let got = run(&ctx, "SELECT id, p, v FROM paimon.written.sql_pk").await;
    assert_eq!(got, model_rows(&model));

    // overwrite partition 'a' only
    run(
        &ctx,
        "INSERT OVERWRITE paimon.written.sql_pk VALUES (1000, 'a', 1.5), (1001, 'a', 2.5)",
    )
    .await;
    model.retain(|(_, p), _| p != "a");
    model.insert((1000, "a".into()), 1.5);
    model.insert((1001, "a".into()), 2.5);
    let got = run(&ctx, "SELECT id, p, v FROM paimon.written.sql_pk").await;
    assert_eq!(got, model_rows(&model));
    let snapshots = run(
        &ctx,
        "SELECT commit_kind FROM paimon.written.\"sql_pk$snapshots\" ORDER BY snapshot_id",
    )
    .await;
    assert_eq!(snapshots, ["APPEND", "APPEND", "OVERWRITE"]);

    // system tables of the written table, against the model
    let per_partition: BTreeMap<&str, usize> =
        model.keys().fold(BTreeMap::new(), |mut m, (_, p)| {
            *m.entry(p.as_str()).or_default() += 1;
            m
        });
    let got = run(
        &ctx,
        "SELECT partition, file_count > 0, total_buckets, done \
         FROM paimon.written.\"sql_pk$partitions\"",
    )
    .await;
    assert_eq!(got, ["p=a, true, 2, false", "p=b, true, 2, false"]);
    // every key was written once per insert into its partition: a's files hold the two
    // overwrite rows only
    let got = run(
        &ctx,
        "SELECT partition, sum(record_count) FROM paimon.written.\"sql_pk$buckets\" GROUP BY partition",
    )
    .await;
    assert_eq!(got[0], format!("{{a}}, {}", per_partition["a"]));
    let got = run(
        &ctx,
        "SELECT count(*), sum(record_count) FROM paimon.written.\"sql_pk$files\"",
    )
    .await;
    let buckets = run(
        &ctx,
        "SELECT sum(file_count), sum(record_count) FROM paimon.written.\"sql_pk$buckets\"",
    )
    .await;
    assert_eq!(got, buckets);
    let keys = run(
        &ctx,
        "SELECT min_key, max_key FROM paimon.written.\"sql_pk$files\" WHERE partition = '{a}'",
    )
    .await;
    assert_eq!(keys, ["[1000], [1001]"]); // trimmed keys: the partition key is left out
    let stats = run(
        &ctx,
        "SELECT null_value_counts, min_value_stats, max_value_stats \
         FROM paimon.written.\"sql_pk$files\" WHERE partition = '{a}'",
    )
    .await;
    assert_eq!(
        stats,
        ["{id=0, p=0, v=0}, {id=1000, p=a, v=1.5}, {id=1001, p=a, v=2.5}"]
    );
    let manifests = run(
        &ctx,
        "SELECT min(min_partition_stats), max(max_partition_stats) \
         FROM paimon.written.\"sql_pk$manifests\" WHERE num_added_files > 0",
    )
    .await;
    assert_eq!(manifests, ["{a}, {b}"]);
    // the audit log: the merged rows, each `+I` (plain inserts)
    let audit = run(
        &ctx,
        "SELECT rowkind, count(*) FROM paimon.written.\"sql_pk$audit_log\" GROUP BY rowkind",
    )
    .await;
    assert_eq!(audit, [format!("+I, {}", model.len())]);
    let audit = run(
        &ctx,
        "SELECT id, p, v FROM paimon.written.\"sql_pk$audit_log\" WHERE rowkind = '+I'",
    )
    .await;
    assert_eq!(audit, model_rows(&model));

    save_expected(&ctx, "sql_pk", "SELECT * FROM paimon.written.sql_pk").await;
}

/// An unpartitioned append table: inserts append, `INSERT OVERWRITE` replaces everything,
/// `DROP TABLE` removes it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn append_table_insert_overwrite_and_drop() {
    let ctx = context().await;
    run(&ctx, "DROP TABLE IF EXISTS paimon.written.sql_append").await;
    run(
        &ctx,
        "CREATE TABLE paimon.written.sql_append (k INT, s STRING, ts TIMESTAMP(6))",
    )
    .await;
    run(
        &ctx,
        "INSERT INTO paimon.written.sql_append VALUES \
         (1, 'x', TIMESTAMP '2024-01-01 10:00:00.123456'), (2, NULL, NULL)",
    )
    .await;
    run(
        &ctx,
        "INSERT INTO paimon.written.sql_append VALUES (3, 'z', TIMESTAMP '2024-01-02 00:00:00')",
    )
    .await;
    let got = run(&ctx, "SELECT k, s, ts FROM paimon.written.sql_append").await;
    assert_eq!(
        got,
        [
            "1, x, 2024-01-01T10:00:00.123456",
            "2, null, null",
            "3, z, 2024-01-02T00:00:00"
        ]
    );
    let audit = run(
        &ctx,
        "SELECT rowkind, k FROM paimon.written.\"sql_append$audit_log\"",
    )
    .await;
    assert_eq!(audit, ["+I, 1", "+I, 2", "+I, 3"]);
    let parts = run(
        &ctx,
        "SELECT partition, record_count, file_count FROM paimon.written.\"sql_append$partitions\"",
    )
    .await;
    assert_eq!(parts, [", 3, 2"]);
    let stats = run(
        &ctx,
        "SELECT min_key, null_value_counts FROM paimon.written.\"sql_append$files\"",
    )
    .await;
    assert_eq!(stats, ["null, {k=0, s=0, ts=0}", "null, {k=0, s=1, ts=1}"]);

    run(
        &ctx,
        "INSERT OVERWRITE paimon.written.sql_append VALUES (7, 'o', NULL)",
    )
    .await;
    let got = run(&ctx, "SELECT k, s FROM paimon.written.sql_append").await;
    assert_eq!(got, ["7, o"]);

    // dropped: gone from the catalog and from SQL
    run(&ctx, "CREATE TABLE paimon.written.sql_gone (a INT)").await;
    run(&ctx, "DROP TABLE paimon.written.sql_gone").await;
    let gone = ddl::sql(&ctx, "SELECT * FROM paimon.written.sql_gone").await;
    assert!(gone.is_err());
    assert!(!Path::new(&warehouse().join("written.db/sql_gone")).exists());
    let again = ddl::sql(&ctx, "DROP TABLE paimon.written.sql_gone").await;
    let e = again.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.contains("sql_gone"), "{e}");

    save_expected(
        &ctx,
        "sql_append",
        "SELECT * FROM paimon.written.sql_append",
    )
    .await;
}

/// A row kind written through the library shows in the audit log (`+U`); a non-`WITH` option
/// syntax and `REPLACE INTO` are refused with errors naming the table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_log_row_kinds_and_refusals() {
    use arrow::array::{Float64Array, Int64Array, StringArray};
    use paimon_core::RowKind;
    use std::sync::Arc;

    let ctx = context().await;
    run(&ctx, "DROP TABLE IF EXISTS paimon.written.sql_kinds").await;
    run(
        &ctx,
        "CREATE TABLE paimon.written.sql_kinds (id BIGINT NOT NULL, s STRING, v DOUBLE) \
         WITH ('primary-key' = 'id', 'bucket' = '1')",
    )
    .await;
    let table = FileSystemCatalog::new(warehouse().to_str().unwrap(), Default::default())
        .unwrap()
        .get_table(&Identifier::parse("written.sql_kinds").unwrap())
        .await
        .unwrap();
    let schema = paimon_core::arrow::arrow_schema(&table.schema().fields).unwrap();
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(vec![1, 2, 3])),
            Arc::new(StringArray::from(vec!["a", "b", "c"])),
            Arc::new(Float64Array::from(vec![1.0, 2.0, 3.0])),
        ],
    )
    .unwrap();
    let mut write = table.new_write().build().unwrap();
    write
        .write_with_kinds(
            &batch,
            &[RowKind::Insert, RowKind::UpdateAfter, RowKind::Insert],
        )
        .await
        .unwrap();
    let messages = write.prepare_commit().await.unwrap();
    table
        .new_commit()
        .commit_messages(&messages, write.commit_user())
        .await
        .unwrap();
    let got = run(
        &ctx,
        "SELECT rowkind, id, s FROM paimon.written.\"sql_kinds$audit_log\"",
    )
    .await;
    assert_eq!(got, ["+I, 1, a", "+I, 3, c", "+U, 2, b"]);
    // only the row kind, and the columns in another order
    let got = run(
        &ctx,
        "SELECT v, rowkind FROM paimon.written.\"sql_kinds$audit_log\" WHERE id = 2",
    )
    .await;
    assert_eq!(got, ["2.0, +U"]);

    let e = match ddl::sql(
        &ctx,
        "REPLACE INTO paimon.written.sql_kinds VALUES (9, 'z', 0.0)",
    )
    .await
    {
        Ok(df) => df.collect().await.err(),
        Err(e) => Some(e),
    };
    assert!(e.is_some(), "REPLACE INTO must fail");
    let e = ddl::sql(
        &ctx,
        "CREATE TABLE paimon.written.sql_bad (a INT) WITH ('bucket' = '-7', 'primary-key' = 'nope')",
    )
    .await
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default();
    assert!(e.contains("sql_bad"), "{e}");
}

/// Writes `rows` (id, s, v, kind) to `table` in one commit.
async fn write_kinds(table: &paimon_core::Table, rows: &[(i64, &str, f64, paimon_core::RowKind)]) {
    use arrow::array::{Float64Array, Int64Array, StringArray};
    use std::sync::Arc;
    let schema = paimon_core::arrow::arrow_schema(&table.schema().fields).unwrap();
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.0))),
            Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.1))),
            Arc::new(Float64Array::from_iter_values(rows.iter().map(|r| r.2))),
        ],
    )
    .unwrap();
    let kinds: Vec<_> = rows.iter().map(|r| r.3).collect();
    let mut write = table.new_write().build().unwrap();
    write.write_with_kinds(&batch, &kinds).await.unwrap();
    let messages = write.prepare_commit().await.unwrap();
    table
        .new_commit()
        .commit_messages(&messages, write.commit_user())
        .await
        .unwrap();
}

/// `t$audit_log` reads as Java's `AuditLogTable` (`forceKeepDelete`): a key whose merged record
/// is a retraction shows as that `-D` / `-U` row with the values it carries (deduplicate: the
/// record as written; partial-update with `remove-record-on-delete`: the `-D` record's
/// values), merged partial-update rows are `+I`; a full compaction (into the highest level)
/// drops the retractions, as Java's does. The plain table never shows them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_log_keeps_deletes() {
    use paimon_core::RowKind::{Delete, Insert, UpdateAfter, UpdateBefore};
    let ctx = context().await;
    let catalog =
        FileSystemCatalog::new(warehouse().to_str().unwrap(), Default::default()).unwrap();
    for (name, engine) in [
        ("sql_audit_dedup", ""),
        (
            "sql_audit_partial",
            ", 'merge-engine' = 'partial-update', 'partial-update.remove-record-on-delete' = 'true'",
        ),
    ] {
        run(&ctx, &format!("DROP TABLE IF EXISTS paimon.written.{name}")).await;
        run(
            &ctx,
            &format!(
                "CREATE TABLE paimon.written.{name} (id BIGINT NOT NULL, s STRING, v DOUBLE) \
                 WITH ('primary-key' = 'id', 'bucket' = '2', 'write-only' = 'true'{engine})"
            ),
        )
        .await;
        let ident = Identifier::parse(&format!("written.{name}")).unwrap();
        let table = catalog.get_table(&ident).await.unwrap();
        write_kinds(
            &table,
            &[
                (1, "a", 1.0, Insert),
                (2, "b", 2.0, Insert),
                (3, "c", 3.0, Insert),
                (4, "d", 4.0, Insert),
            ],
        )
        .await;
        write_kinds(
            &table,
            &[
                (2, "b-", 0.0, Delete),
                (3, "c2", 3.5, UpdateAfter),
                (4, "d-", 0.0, UpdateBefore),
                (5, "e-", 0.0, Delete),
            ],
        )
        .await;
        let audit = format!("paimon.written.\"{name}$audit_log\"");
        let got = run(&ctx, &format!("SELECT rowkind, id, s, v FROM {audit}")).await;
        let want: &[&str] = if engine.is_empty() {
            // The last record of each key, as written; the lone `-D` of key 5 too.
            &[
                "+I, 1, a, 1.0",
                "+U, 3, c2, 3.5",
                "-D, 2, b-, 0.0",
                "-D, 5, e-, 0.0",
                "-U, 4, d-, 0.0",
            ]
        } else {
            // Merged rows are `+I` (Java `getResult`); a `-U` is ignored without sequence
            // groups; a `-D` deletes the row, which keeps the `-D` record's values.
            &[
                "+I, 1, a, 1.0",
                "+I, 3, c2, 3.5",
                "+I, 4, d, 4.0",
                "-D, 2, b-, 0.0",
                "-D, 5, e-, 0.0",
            ]
        };
        assert_eq!(got, want, "{name}");
        // Projections without the row kind, counts and filters on the row kind see them too.
        let n = run(&ctx, &format!("SELECT count(*) FROM {audit}")).await;
        assert_eq!(n, ["5"], "{name}");
        let deletes = run(&ctx, &format!("SELECT id FROM {audit} WHERE rowkind = '-D'")).await;
        assert_eq!(deletes, ["2", "5"], "{name}");
        let kinds = run(&ctx, &format!("SELECT rowkind FROM {audit} WHERE id >= 3")).await;
        assert_eq!(kinds.len(), 3, "{name}");
        // The table itself: retractions dropped.
        let plain = run(&ctx, &format!("SELECT id FROM paimon.written.{name}")).await;
        let want: &[&str] = if engine.is_empty() {
            &["1", "3"]
        } else {
            &["1", "3", "4"]
        };
        assert_eq!(plain, want, "{name}");
        // A full compaction drops retractions (Java `dropDelete` into the highest level).
        let report = table.compact().full(true).execute().await.unwrap();
        drop(report);
        let got = run(&ctx, &format!("SELECT rowkind, id FROM {audit}")).await;
        let want: &[&str] = if engine.is_empty() {
            &["+I, 1", "+U, 3"]
        } else {
            &["+I, 1", "+I, 3", "+I, 4"]
        };
        assert_eq!(got, want, "{name}: after full compaction");
    }
}

/// `t$files`, `t$manifests`, `t$partitions` and `t$buckets` read the snapshot the session's
/// time-travel options choose (Java: the table's dynamic options); the other system tables
/// and a cleared option read the latest; a missing snapshot is an error naming the table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn system_tables_time_travel() {
    let ctx = context().await;
    run(&ctx, "DROP TABLE IF EXISTS paimon.written.sql_travel").await;
    run(
        &ctx,
        "CREATE TABLE paimon.written.sql_travel (id BIGINT NOT NULL, p STRING NOT NULL, v INT) \
         WITH ('primary-key' = 'id,p', 'partition' = 'p', 'bucket' = '2', 'write-only' = 'true')",
    )
    .await;
    run(
        &ctx,
        "INSERT INTO paimon.written.sql_travel VALUES (1, 'a', 1), (2, 'a', 2), (3, 'a', 3)",
    )
    .await;
    run(
        &ctx,
        "INSERT INTO paimon.written.sql_travel VALUES (4, 'b', 4), (5, 'b', 5)",
    )
    .await;
    let t = "paimon.written.\"sql_travel";
    let partitions = format!("SELECT partition, record_count FROM {t}$partitions\"");
    let files = format!("SELECT sum(record_count), count(DISTINCT partition) FROM {t}$files\"");
    let buckets = format!("SELECT count(*), sum(record_count) FROM {t}$buckets\"");
    let manifests = format!("SELECT count(*), sum(num_added_files) FROM {t}$manifests\"");
    let snapshots = format!("SELECT count(*) FROM {t}$snapshots\"");
    let latest = (
        run(&ctx, &partitions).await,
        run(&ctx, &files).await,
        run(&ctx, &buckets).await,
        run(&ctx, &manifests).await,
    );
    assert_eq!(latest.0, ["p=a, 3", "p=b, 2"]);
    assert_eq!(latest.1, ["5, 2"]);
    assert!(latest.2[0].ends_with(", 5"), "{:?}", latest.2);

    let table = FileSystemCatalog::new(warehouse().to_str().unwrap(), Default::default())
        .unwrap()
        .get_table(&Identifier::parse("written.sql_travel").unwrap())
        .await
        .unwrap();
    let first = table.snapshot_manager().snapshot(1).await.unwrap();
    for set in [
        "SET paimon.scan_snapshot_id = 1".to_string(),
        format!("SET paimon.scan_timestamp_millis = {}", first.time_millis),
    ] {
        run(&ctx, &set).await;
        assert_eq!(run(&ctx, &partitions).await, ["p=a, 3"], "{set}");
        assert_eq!(run(&ctx, &files).await, ["3, 1"], "{set}");
        let b = run(&ctx, &buckets).await;
        assert!(b[0].ends_with(", 3"), "{set}: {b:?}");
        // Snapshot 1: its delta manifest only (the base list is empty).
        let m = run(&ctx, &manifests).await;
        assert!(m[0].starts_with("1, "), "{set}: {m:?}");
        assert_ne!(m, latest.3, "{set}");
        // Not time-travelled: all snapshots.
        assert_eq!(run(&ctx, &snapshots).await, ["2"], "{set}");
        // The table itself reads the same snapshot.
        let rows = run(&ctx, "SELECT count(*) FROM paimon.written.sql_travel").await;
        assert_eq!(rows, ["3"], "{set}");
        run(&ctx, "SET paimon.scan_snapshot_id = ''").await;
        run(&ctx, "SET paimon.scan_timestamp_millis = ''").await;
    }
    assert_eq!(run(&ctx, &partitions).await, latest.0);
    assert_eq!(run(&ctx, &manifests).await, latest.3);

    run(&ctx, "SET paimon.scan_snapshot_id = 99").await;
    let e = match ddl::sql(&ctx, &files).await {
        Ok(df) => df.collect().await.err(),
        Err(e) => Some(e),
    }
    .map(|e| e.to_string())
    .unwrap_or_default();
    assert!(e.contains("sql_travel"), "{e}");
    run(&ctx, "SET paimon.scan_snapshot_id = ''").await;
}
