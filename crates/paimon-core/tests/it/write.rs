//! Writing: `table.new_write()` → `TableWrite::write` → `prepare_commit` →
//! `table.new_commit().commit_messages`, read back with `table.scan()`.
//!
//! Tables are created under `target/written/warehouse/written.db/` with a hand-written
//! `schema-0`; beside each table the test leaves `<name>.expected.parquet` (the rows a reader
//! must return) for `scripts/check-written.py`, which reads the table with pypaimon, compares
//! the rows and checks each row's bucket with pypaimon's bucket function.

use std::collections::HashMap;
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::json::ReaderBuilder;
use arrow_array::RecordBatch;
use futures::TryStreamExt;
use paimon_core::arrow::schema::arrow_schema;
use paimon_core::render::batch_to_json_rows;
use paimon_core::spec::manifest::DataFileMeta;
use paimon_core::{ErrorKind, RowKind, Table};
use serde_json::{json, Value};

use crate::common::copy_dir;
use crate::pypaimon::pypaimon_fixtures;

/// `target/written/warehouse/written.db`.
pub fn written_db() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/written/warehouse/written.db")
}

/// A fresh table `name` under [`written_db`] with a hand-written `schema-0`.
pub async fn create_table(
    name: &str,
    fields: &[(&str, &str)],
    partition_keys: &[&str],
    primary_keys: &[&str],
    options: &[(&str, &str)],
) -> Table {
    let dir = written_db().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("schema")).unwrap();
    let fields: Vec<Value> = fields
        .iter()
        .enumerate()
        .map(|(i, (n, t))| {
            // Nested types are given as their JSON object.
            let t: Value = serde_json::from_str(t).unwrap_or_else(|_| json!(t));
            json!({"id": i, "name": n, "type": t})
        })
        .collect();
    let options: HashMap<&str, &str> = options.iter().copied().collect();
    let schema = json!({
        "version": 3, "id": 0, "fields": fields, "highestFieldId": 200,
        "partitionKeys": partition_keys, "primaryKeys": primary_keys, "options": options,
        "comment": null, "timeMillis": 0
    });
    let text = serde_json::to_string_pretty(&schema).unwrap();
    std::fs::write(dir.join("schema/schema-0"), text).unwrap();
    Table::open(dir.to_str().unwrap()).await.unwrap()
}

/// A batch of the table's Arrow schema from JSON lines.
pub fn batch(table: &Table, lines: &[Value]) -> RecordBatch {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    batch_from_text(table, &text)
}

/// A batch of the table's Arrow schema from JSON-lines text.
pub fn batch_from_text(table: &Table, text: &str) -> RecordBatch {
    let schema = arrow_schema(&table.schema().fields).unwrap();
    let text = text.to_string();
    let mut reader = ReaderBuilder::new(schema)
        .with_batch_size(1 << 20)
        .build(Cursor::new(text))
        .unwrap();
    reader.next().unwrap().unwrap()
}

/// Writes `batches` in one write and commits them; returns the new files.
pub async fn write_commit(table: &Table, batches: &[RecordBatch]) -> Vec<DataFileMeta> {
    let mut write = table
        .new_write()
        .with_commit_user("writer-test")
        .build()
        .unwrap();
    for b in batches {
        write.write(b).await.unwrap();
    }
    let messages = write.prepare_commit().await.unwrap();
    table
        .new_commit()
        .commit_messages(&messages, write.commit_user())
        .await
        .unwrap();
    messages.into_iter().flat_map(|m| m.new_files).collect()
}

/// Every row of the latest snapshot, rendered and sorted.
pub async fn read_sorted(path: &Path) -> Vec<String> {
    let table = Table::open(path.to_str().unwrap()).await.unwrap();
    let batches: Vec<RecordBatch> = table
        .scan()
        .build()
        .unwrap()
        .to_arrow()
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    render_sorted(&table, &batches)
}

/// Checks that `t` holds exactly the rows of `want`, fully compacts it, checks the same rows
/// again and returns the reopened table.
pub async fn same_rows_after_full_compaction(t: &Table, want: &[RecordBatch]) -> Table {
    let want_rows = render_sorted(t, want);
    assert_eq!(read_sorted(Path::new(t.location())).await, want_rows);
    let report = t.compact().full(true).execute().await.unwrap();
    assert!(report.snapshot_id.is_some());
    let t = Table::open(t.location()).await.unwrap();
    assert_eq!(read_sorted(Path::new(t.location())).await, want_rows);
    t
}

/// Rows of `batches` (table columns), rendered and sorted.
pub fn render_sorted(table: &Table, batches: &[RecordBatch]) -> Vec<String> {
    let mut out: Vec<String> = batches
        .iter()
        .flat_map(|b| batch_to_json_rows(b, &table.schema().fields).unwrap())
        .map(|r| Value::Object(r).to_string())
        .collect();
    out.sort();
    out
}

/// Leaves the expected rows beside the table for `scripts/check-written.py`.
pub fn save_expected(table: &Table, batches: &[RecordBatch]) {
    let path = Path::new(table.location()).with_extension("expected.parquet");
    let file = std::fs::File::create(path).unwrap();
    let schema = batches[0].schema();
    let mut w = parquet::arrow::ArrowWriter::try_new(file, schema, None).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.close().unwrap();
}

/// Writes, commits, reads back and compares; leaves the expectation for pypaimon.
async fn round_trip(table: &Table, batches: &[RecordBatch]) -> Vec<DataFileMeta> {
    let files = write_commit(table, batches).await;
    let got = read_sorted(Path::new(table.location())).await;
    assert_eq!(got, render_sorted(table, batches), "{}", table.name());
    save_expected(table, batches);
    files
}

fn rows(n: i64, f: impl Fn(i64) -> Value) -> Vec<Value> {
    (0..n).map(f).collect()
}

#[tokio::test]
async fn append_unaware_round_trip() {
    let t = create_table(
        "append_unaware",
        &[
            ("id", "BIGINT NOT NULL"),
            ("name", "STRING"),
            ("score", "DOUBLE"),
        ],
        &[],
        &[],
        &[],
    )
    .await;
    let b1 = batch(
        &t,
        &rows(
            100,
            |i| json!({"id": i, "name": format!("n{i}"), "score": i as f64 / 3.0}),
        ),
    );
    let b2 = batch(&t, &rows(50, |i| json!({"id": 100 + i, "name": null})));
    let files = round_trip(&t, &[b1.clone(), b2.clone()]).await;
    assert_eq!(files.len(), 1);
    let f = &files[0];
    assert_eq!(
        (f.row_count, f.min_sequence_number, f.max_sequence_number),
        (150, 0, 149)
    );
    assert!(f.file_name.starts_with("data-") && f.file_name.ends_with("-0.parquet"));
    assert_eq!(
        (f.level, f.file_source, f.delete_row_count),
        (0, Some(0), Some(0))
    );
    assert_eq!(f.min_key.len(), 12);
    assert_eq!(
        f.value_stats.null_counts,
        Some(vec![Some(0), Some(50), Some(50)])
    );
    assert_eq!(f.value_stats_cols, None);
    let on_disk = std::fs::metadata(Path::new(t.location()).join("bucket-0").join(&f.file_name));
    assert_eq!(on_disk.unwrap().len() as i64, f.file_size);
    // A second commit into a bucket-unaware table starts at sequence 0 again (Java).
    let b3 = batch(&t, &[json!({"id": 7})]);
    let files = write_commit(&t, std::slice::from_ref(&b3)).await;
    assert_eq!(files[0].min_sequence_number, 0);
    save_expected(&t, &[b1, b2, b3]);
}

#[tokio::test]
async fn append_fixed_bucket_routes_rows_like_the_reader() {
    let t = create_table(
        "append_fixed",
        &[("id", "INT NOT NULL"), ("v", "STRING")],
        &[],
        &[],
        &[("bucket", "4"), ("bucket-key", "id")],
    )
    .await;
    let b = batch(&t, &rows(400, |i| json!({"id": i, "v": format!("v{i}")})));
    let files = round_trip(&t, std::slice::from_ref(&b)).await;
    assert_eq!(files.len(), 4);
    // Every row is found by a point query, which prunes to the bucket the reader computes.
    for id in [0, 1, 2, 3, 17, 399] {
        let table = Table::open(t.location()).await.unwrap();
        let scan = table
            .scan()
            .with_filter(format!("id = {id}"))
            .unwrap()
            .build()
            .unwrap();
        let plan = scan.plan().await.unwrap();
        assert_eq!(plan.splits.len(), 1, "id {id}");
        let n: usize = scan
            .to_arrow()
            .await
            .unwrap()
            .try_collect::<Vec<_>>()
            .await
            .unwrap()
            .iter()
            .map(|b| b.num_rows())
            .sum();
        assert!(n >= 1, "id {id}");
    }
    // Sequence numbers continue per bucket in the next commit.
    let files2 = write_commit(&t, std::slice::from_ref(&b)).await;
    for (f1, f2) in files.iter().zip(&files2) {
        assert_eq!(f2.min_sequence_number, f1.max_sequence_number + 1, "{f2:?}");
    }
    save_expected(&t, &[b.clone(), b]);
}

#[tokio::test]
async fn partitioned_append_round_trip() {
    let t = create_table(
        "append_partitioned",
        &[("dt", "STRING"), ("hr", "INT NOT NULL"), ("id", "BIGINT")],
        &["dt", "hr"],
        &[],
        &[("bucket", "2"), ("bucket-key", "id")],
    )
    .await;
    let b = batch(
        &t,
        &rows(90, |i| {
            let dt = match i % 3 {
                0 => json!("2024-01-01"),
                1 => json!("a/b c"),
                _ => Value::Null,
            };
            json!({"dt": dt, "hr": i % 2, "id": i})
        }),
    );
    round_trip(&t, &[b]).await;
    let root = Path::new(t.location());
    assert!(
        root.join("dt=2024-01-01/hr=0/bucket-0").is_dir()
            || root.join("dt=2024-01-01/hr=0/bucket-1").is_dir()
    );
    assert!(root.join("dt=a%2Fb c/hr=1").is_dir());
    assert!(root.join("dt=__DEFAULT_PARTITION__/hr=0").is_dir());
}

#[tokio::test]
async fn types_round_trip() {
    let t = create_table(
        "append_types",
        &[
            ("b", "BOOLEAN"),
            ("i8", "TINYINT"),
            ("i16", "SMALLINT"),
            ("i32", "INT"),
            ("i64", "BIGINT"),
            ("f", "FLOAT"),
            ("d", "DOUBLE"),
            ("dec", "DECIMAL(10, 2)"),
            ("bigdec", "DECIMAL(25, 5)"),
            ("s", "STRING"),
            ("bin", "BYTES"),
            ("day", "DATE"),
            ("ts0", "TIMESTAMP(0)"),
            ("ts3", "TIMESTAMP(3)"),
            ("ts6", "TIMESTAMP(6)"),
            ("ts9", "TIMESTAMP(9)"),
            ("ltz", "TIMESTAMP(6) WITH LOCAL TIME ZONE"),
            (
                "r",
                r#"{"type": "ROW", "fields": [{"id": 100, "name": "a", "type": "INT"}, {"id": 101, "name": "b", "type": "STRING"}]}"#,
            ),
            ("arr", r#"{"type": "ARRAY", "element": "INT"}"#),
            ("m", r#"{"type": "MAP", "key": "STRING NOT NULL", "value": "BIGINT"}"#),
        ],
        &[],
        &[],
        &[],
    )
    .await;
    let full = json!({
        "b": true, "i8": -8, "i16": 300, "i32": -5, "i64": 1234567890123i64, "f": 1.5, "d": -2.25,
        "dec": "12345678.91", "bigdec": "12345678901234567890.12345", "s": "a string longer than sixteen chars",
        "bin": "68656c6c6f", "day": "2024-02-29", "ts0": "2024-01-01T10:00:01", "ts3": "2024-01-01T10:00:01.123",
        "ts6": "1969-12-31T23:59:59.999999", "ts9": "2024-01-01T10:00:01.123456789",
        "ltz": "2024-01-01T10:00:01.5Z", "r": {"a": 1, "b": "x"}, "arr": [1, null, 3], "m": {"k": 1, "n": null}
    });
    let empty = json!({"r": {"a": null, "b": null}, "arr": [], "m": {}});
    let b = batch(&t, &[full, Value::Object(Default::default()), empty]);
    let files = round_trip(&t, &[b]).await;
    // Nested columns get no statistics: dense store lists the others.
    let cols = files[0].value_stats_cols.clone().unwrap();
    assert_eq!(cols.len(), 17);
    assert!(!cols.contains(&"arr".to_string()));
}

#[tokio::test]
async fn rolling_produces_several_files() {
    let t = create_table(
        "append_rolling",
        &[("id", "BIGINT NOT NULL"), ("payload", "STRING")],
        &[],
        &[],
        &[("target-file-size", "16 kb"), ("file.compression", "none")],
    )
    .await;
    let b = batch(
        &t,
        &rows(
            20_000,
            |i| json!({"id": i, "payload": format!("payload-{i}-{}", i * 7919 % 1000)}),
        ),
    );
    let files = round_trip(&t, &[b]).await;
    assert!(files.len() > 2, "{} files", files.len());
    let mut next = 0;
    for (n, f) in files.iter().enumerate() {
        assert!(
            f.file_name.ends_with(&format!("-{n}.parquet")),
            "{}",
            f.file_name
        );
        assert_eq!(f.min_sequence_number, next);
        next = f.max_sequence_number + 1;
    }
    assert_eq!(next, 20_000);
}

#[tokio::test]
async fn bad_batches_are_rejected_and_nothing_is_committed() {
    let t = create_table(
        "append_bad_input",
        &[("id", "BIGINT NOT NULL"), ("name", "STRING")],
        &[],
        &[],
        &[],
    )
    .await;
    let mut write = t.new_write().build().unwrap();
    // A column of the wrong type.
    let wrong = RecordBatch::try_from_iter([
        ("id", Arc::new(arrow_array::Int32Array::from(vec![1])) as _),
        (
            "name",
            Arc::new(arrow_array::StringArray::from(vec!["a"])) as _,
        ),
    ])
    .unwrap();
    let e = write.write(&wrong).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("'id'"), "{e}");
    // A missing column and an extra one.
    let missing = RecordBatch::try_from_iter([(
        "name",
        Arc::new(arrow_array::StringArray::from(vec!["a"])) as _,
    )])
    .unwrap();
    let e = write.write(&missing).await.unwrap_err();
    assert!(e.to_string().contains("no column 'id'"), "{e}");
    // Nulls in a NOT NULL column.
    let nulls = RecordBatch::try_from_iter([
        (
            "id",
            Arc::new(arrow_array::Int64Array::from(vec![None, Some(2)])) as _,
        ),
        (
            "name",
            Arc::new(arrow_array::StringArray::from(vec!["a", "b"])) as _,
        ),
    ])
    .unwrap();
    let e = write.write(&nulls).await.unwrap_err();
    assert!(e.to_string().contains("NOT NULL"), "{e}");
    // Append tables take insertions only.
    let ok = batch(&t, &[json!({"id": 1})]);
    let e = write
        .write_with_kinds(&ok, &[RowKind::Delete])
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(write.prepare_commit().await.unwrap().is_empty());
    assert!(t
        .snapshot_manager()
        .latest_snapshot()
        .await
        .unwrap()
        .is_none());
}

#[tokio::test]
async fn append_to_a_pypaimon_table_reads_back_in_both() {
    let Some(root) = pypaimon_fixtures() else {
        return;
    };
    let dst = written_db().join("pypaimon_append_bucketed");
    let _ = std::fs::remove_dir_all(&dst);
    copy_dir(&root.join("warehouse/fixtures.db/append_bucketed"), &dst);
    let t = Table::open(dst.to_str().unwrap()).await.unwrap();
    let before: Vec<RecordBatch> = t
        .scan()
        .build()
        .unwrap()
        .to_arrow()
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    let new = batch(
        &t,
        &rows(
            30,
            |i| json!({"id": 1_000_000 + i, "name": format!("rs-{i}"), "price": "1.25", "qty": i, "ts": "2024-05-01T01:02:03.456789", "d": "2024-05-01", "score": 0.5}),
        ),
    );
    write_commit(&t, std::slice::from_ref(&new)).await;
    let mut all = before.clone();
    all.push(new);
    let got = read_sorted(&dst).await;
    assert_eq!(got, render_sorted(&t, &all));
    save_expected(&t, &all);
}

#[tokio::test]
async fn orc_files_round_trip() {
    let fields = [
        ("id", "BIGINT NOT NULL"),
        ("b", "BOOLEAN"),
        ("i8", "TINYINT"),
        ("i", "INT"),
        ("d", "DOUBLE"),
        ("s", "STRING"),
        ("bin", "BYTES"),
        ("day", "DATE"),
        ("ts3", "TIMESTAMP(3)"),
        ("ts6", "TIMESTAMP(6)"),
        ("tm", "TIME"),
    ];
    let t = create_table(
        "append_orc",
        &fields,
        &[],
        &[],
        &[
            ("file.format", "orc"),
            ("bucket", "2"),
            ("bucket-key", "id"),
        ],
    )
    .await;
    let b = batch(
        &t,
        &rows(300, |i| {
            json!({"id": i, "b": i % 2 == 0, "i8": i % 100, "i": i * 3, "d": i as f64 * 0.5,
               "s": if i % 7 == 0 { Value::Null } else { json!(format!("s{i}")) },
               "bin": "6869", "day": "2024-03-01", "ts3": "2024-03-01T01:02:03.456",
               "ts6": "1969-07-20T20:17:40.123456",
               "tm": if i % 5 == 0 { Value::Null } else { json!(format!("{:02}:{:02}:07.{:03}", i % 24, i % 60, i)) }})
        }),
    );
    let files = round_trip(&t, &[b]).await;
    assert!(files.iter().all(|f| f.file_name.ends_with(".orc")));
    // TIME is an ORC int of milliseconds (Java `OrcTypeUtil`), with int bounds in the stats.
    let tm = files[0].value_stats.min_values.len();
    assert!(tm > 0);
    let pk = create_table(
        "pk_orc",
        &[("id", "INT NOT NULL"), ("v", "STRING")],
        &[],
        &["id"],
        &[("file.format", "orc"), ("bucket", "2")],
    )
    .await;
    let lines: Vec<Value> = (0..50)
        .map(|i| json!({"id": i % 20, "v": format!("v{i}")}))
        .collect();
    write_commit(&pk, &[batch(&pk, &lines)]).await;
    let want: Vec<Value> = (30..50)
        .map(|i| json!({"id": i % 20, "v": format!("v{i}")}))
        .collect();
    let want = batch(&pk, &want);
    assert_eq!(
        read_sorted(Path::new(pk.location())).await,
        render_sorted(&pk, std::slice::from_ref(&want))
    );
    save_expected(&pk, &[want]);
    // DECIMAL and nested columns are written (`write_orc_nested`); VARIANT, BLOB and VECTOR
    // are refused before anything is written.
    for (name, column) in [
        ("orc_variant", "VARIANT"),
        (
            "orc_row_blob",
            r#"{"type": "ROW", "fields": [{"id": 7, "name": "a", "type": "BLOB"}]}"#,
        ),
    ] {
        let t = create_table(name, &[("x", column)], &[], &[], &[("file.format", "orc")]).await;
        let e = t.new_write().build().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unsupported, "{name}: {e}");
        assert!(e.to_string().contains("ORC"), "{e}");
        let _ = std::fs::remove_dir_all(t.location());
    }
}

#[tokio::test]
async fn avro_files_round_trip() {
    let t = create_table(
        "append_avro",
        &[
            ("id", "BIGINT NOT NULL"),
            ("b", "BOOLEAN"),
            ("i16", "SMALLINT"),
            ("f", "FLOAT"),
            ("dec", "DECIMAL(10, 2)"),
            ("bigdec", "DECIMAL(25, 5)"),
            ("s", "STRING"),
            ("bin", "BYTES"),
            ("day", "DATE"),
            ("ts3", "TIMESTAMP(3)"),
            ("ts6", "TIMESTAMP(6)"),
            ("ltz", "TIMESTAMP(3) WITH LOCAL TIME ZONE"),
            (
                "r",
                r#"{"type": "ROW", "fields": [{"id": 100, "name": "a", "type": "INT"}, {"id": 101, "name": "b", "type": "STRING"}]}"#,
            ),
            ("arr", r#"{"type": "ARRAY", "element": "INT"}"#),
            ("m", r#"{"type": "MAP", "key": "STRING NOT NULL", "value": "BIGINT"}"#),
            ("mi", r#"{"type": "MAP", "key": "INT NOT NULL", "value": "STRING"}"#),
        ],
        &[],
        &[],
        &[("file.format", "avro"), ("bucket", "2"), ("bucket-key", "id")],
    )
    .await;
    let b = batch(
        &t,
        &rows(120, |i| {
            json!({"id": i, "b": i % 3 == 0, "i16": i, "f": 0.25, "dec": format!("{i}.05"),
               "bigdec": "-12345678901234567890.12345", "s": format!("s{i}"), "bin": "00ff",
               "day": "2000-02-29", "ts3": "2024-03-01T01:02:03.456", "ts6": "1969-07-20T20:17:40.123456",
               "ltz": "2024-03-01T01:02:03.456Z", "r": {"a": i, "b": null}, "arr": [i, null],
               "m": {"k": i}, "mi": {"1": "one"}})
        }),
    );
    let nulls = batch(&t, &[json!({"id": 1000})]);
    let files = round_trip(&t, &[b, nulls]).await;
    assert!(files.iter().all(|f| f.file_name.ends_with(".avro")));
    let pk = create_table(
        "pk_avro",
        &[("id", "INT NOT NULL"), ("v", "STRING")],
        &[],
        &["id"],
        &[("file.format", "avro"), ("bucket", "2")],
    )
    .await;
    let lines: Vec<Value> = (0..50)
        .map(|i| json!({"id": i % 20, "v": format!("v{i}")}))
        .collect();
    write_commit(&pk, &[batch(&pk, &lines)]).await;
    let want: Vec<Value> = (30..50)
        .map(|i| json!({"id": i % 20, "v": format!("v{i}")}))
        .collect();
    let want = batch(&pk, &want);
    assert_eq!(
        read_sorted(Path::new(pk.location())).await,
        render_sorted(&pk, std::slice::from_ref(&want))
    );
    save_expected(&pk, &[want]);
}
