//! TIMESTAMP(9) and TIMESTAMP_LTZ(7) inside ARRAY, MAP (keys and values), ROW, ARRAY<ROW> and
//! MULTISET written to Parquet as INT96 leaves, as Java Paimon writes them: nulls at every
//! level, instants at both ends of what Arrow's nanoseconds hold. Our reader reads the rows
//! back (append and primary-key tables, the latter after a full compaction); the footers
//! hold INT96 leaves with the levels of their nesting and chunk null counts equal to the nulls
//! written (counted here from the JSON rows); predicates on a top-level INT96 column return
//! the rows a plain filter keeps; the tables are left for pypaimon (`scripts/check-written.py`).

use std::collections::BTreeMap;
use std::path::Path;

use arrow_array::RecordBatch;
use paimon_core::Table;
use parquet::basic::Type as PhysicalType;
use parquet::file::reader::{FileReader, SerializedFileReader};
use serde_json::{json, Value};

use crate::write::{batch, create_table, read_sorted, render_sorted, save_expected, write_commit};
use crate::write_int96::data_files;

const ARR: &str = r#"{"type": "ARRAY", "element": "TIMESTAMP(9)"}"#;
const ARR_LTZ: &str = r#"{"type": "ARRAY", "element": "TIMESTAMP(7) WITH LOCAL TIME ZONE"}"#;
const MAP: &str = r#"{"type": "MAP", "key": "TIMESTAMP(9) NOT NULL",
    "value": "TIMESTAMP(7) WITH LOCAL TIME ZONE"}"#;
const ROW: &str = r#"{"type": "ROW", "fields": [
    {"id": 100, "name": "a", "type": "TIMESTAMP(9)"},
    {"id": 101, "name": "b", "type": "STRING"},
    {"id": 102, "name": "c", "type": "TIMESTAMP(7) WITH LOCAL TIME ZONE"}]}"#;
const ARR_ROW: &str = r#"{"type": "ARRAY", "element": {"type": "ROW", "fields": [
    {"id": 103, "name": "t", "type": "TIMESTAMP(9)"},
    {"id": 104, "name": "n", "type": "INT"}]}}"#;

fn fields() -> Vec<(&'static str, &'static str)> {
    vec![
        ("id", "INT NOT NULL"),
        ("ts9", "TIMESTAMP(9)"),
        ("arr", ARR),
        ("al", ARR_LTZ),
        ("m", MAP),
        ("r", ROW),
        ("ar", ARR_ROW),
    ]
}

/// (Parquet leaf path, max definition level, max repetition level, JSON path) of every INT96
/// leaf; JSON path steps: a field name, `[]` list items, `{k}` / `{v}` map keys / values.
const LEAVES: [(&str, i16, i16, &[&str]); 8] = [
    ("ts9", 1, 0, &["ts9"]),
    ("arr.list.element", 3, 1, &["arr", "[]"]),
    ("al.list.element", 3, 1, &["al", "[]"]),
    ("m.key_value.key", 2, 1, &["m", "{k}"]),
    ("m.key_value.value", 3, 1, &["m", "{v}"]),
    ("r.a", 2, 0, &["r", "a"]),
    ("r.c", 2, 0, &["r", "c"]),
    ("ar.list.element.t", 4, 1, &["ar", "[]", "t"]),
];

/// Extreme instants: the first and last nanosecond Arrow (and pandas) holds, and pre-1970.
const MIN9: &str = "1677-09-21T00:12:43.145224193";
const MAX9: &str = "2262-04-11T23:47:16.854775807";
const MIN7: &str = "1677-09-21T00:12:43.1452242Z";
const MAX7: &str = "2262-04-11T23:47:16.8547758Z";

/// A TIMESTAMP(9) text for `k`: the edges, before 1970 and after.
fn ts9(k: i64) -> Value {
    match k % 5 {
        0 => json!(MIN9),
        1 => json!(MAX9),
        2 => json!(format!("1969-12-31T23:59:59.{:09}", 999_999_999 - k)),
        3 => json!(format!("1900-01-01T00:00:00.{:09}", k * 7)),
        _ => json!(format!("2024-02-29T12:34:56.{:09}", k * 123_457)),
    }
}

/// A TIMESTAMP_LTZ(7) text for `k`.
fn ltz7(k: i64) -> Value {
    match k % 4 {
        0 => json!(MIN7),
        1 => json!(MAX7),
        2 => json!(format!("1969-12-30T12:00:00.{:07}Z", k)),
        _ => json!(format!("2030-06-01T00:00:00.{:07}Z", k * 31)),
    }
}

/// Row `i` of version `v`: each column null, empty, or holding nulls in turn.
fn row(i: i64, v: i64) -> Value {
    let k = i * 7 + v;
    let nul = |cond: bool, value: Value| if cond { Value::Null } else { value };
    let arr = match k % 4 {
        0 => Value::Null,
        1 => json!([]),
        _ => json!([ts9(k), null, ts9(k + 1)]),
    };
    let al = match k % 3 {
        0 => json!([ltz7(k)]),
        1 => json!([null]),
        _ => Value::Null,
    };
    let m = match k % 5 {
        0 => json!({}),
        1 => Value::Null,
        _ => {
            let mut o = serde_json::Map::new();
            o.insert(ts9(k).as_str().unwrap().to_string(), ltz7(k));
            o.insert(format!("2000-01-01T00:00:00.{:09}", k), Value::Null);
            Value::Object(o)
        }
    };
    let r = json!({"a": nul(k % 2 == 0, ts9(k + 2)), "b": format!("b{k}"),
                   "c": nul(k % 3 == 0, ltz7(k + 1))});
    let ar = match k % 6 {
        0 => json!([]),
        1 => Value::Null,
        _ => json!([{"t": ts9(k + 3), "n": k}, null, {"t": null, "n": null}]),
    };
    json!({"id": i, "ts9": nul(k % 3 == 1, ts9(k + 4)), "arr": arr, "al": al, "m": m,
           "r": nul(k % 11 == 3, r), "ar": ar})
}

/// The nulls a Parquet leaf at JSON `path` gets for `v` (a null or empty list / map on the
/// way counts once, as a definition level below the maximum).
fn leaf_nulls(v: &Value, path: &[&str]) -> u64 {
    let Some((step, rest)) = path.split_first() else {
        return u64::from(v.is_null());
    };
    match (*step, v) {
        (_, Value::Null) => 1,
        ("[]", Value::Array(items)) if items.is_empty() => 1,
        ("[]", Value::Array(items)) => items.iter().map(|x| leaf_nulls(x, rest)).sum(),
        ("{k}" | "{v}", Value::Object(o)) if o.is_empty() => 1,
        ("{k}", Value::Object(o)) => o.keys().map(|_| 0).sum(),
        ("{v}", Value::Object(o)) => o.values().map(|x| leaf_nulls(x, rest)).sum(),
        (name, Value::Object(o)) => leaf_nulls(o.get(name).unwrap_or(&Value::Null), rest),
        _ => panic!("{path:?} does not fit {v}"),
    }
}

/// Per INT96 leaf path: the null count of `rows`.
fn expected_nulls(rows: &[Value]) -> BTreeMap<String, u64> {
    LEAVES
        .iter()
        .map(|(leaf, _, _, json)| {
            let n = rows.iter().map(|r| leaf_nulls(r, json)).sum();
            (leaf.to_string(), n)
        })
        .collect()
}

/// Checks every data file's footer (INT96 leaves with their levels, no column index, min/max
/// only when equal) and returns the chunk null counts of the INT96 leaves summed over files.
fn footer_nulls(table: &Table) -> BTreeMap<String, u64> {
    let mut nulls = BTreeMap::new();
    let files = data_files(table);
    assert!(!files.is_empty());
    for p in files {
        let reader = SerializedFileReader::new(std::fs::File::open(&p).unwrap()).unwrap();
        let meta = reader.metadata();
        let descr = meta.file_metadata().schema_descr_ptr();
        for (leaf, def, rep, _) in LEAVES {
            let col = descr
                .columns()
                .iter()
                .find(|c| c.path().string() == leaf)
                .unwrap_or_else(|| panic!("{leaf} in {}", p.display()));
            assert_eq!(col.physical_type(), PhysicalType::INT96, "{leaf}");
            assert_eq!(
                (col.max_def_level(), col.max_rep_level()),
                (def, rep),
                "{leaf}"
            );
        }
        for rg in meta.row_groups() {
            for c in rg.columns() {
                let path = c.column_path().string();
                if c.column_type() != PhysicalType::INT96 {
                    continue;
                }
                let s = c
                    .statistics()
                    .unwrap_or_else(|| panic!("{path}: no statistics"));
                assert_eq!(s.min_bytes_opt(), s.max_bytes_opt(), "{path}");
                assert!(c.column_index_offset().is_none(), "{path}");
                *nulls.entry(path).or_insert(0) += s.null_count_opt().unwrap();
            }
        }
    }
    nulls
}

/// Rows of the filter `keep` on the top-level `ts9` against what a scan with `sql` returns.
async fn check_filter(t: &Table, rows: &[Value], sql: &str, keep: impl Fn(&Value) -> bool) {
    use futures::TryStreamExt;
    let scan = t.scan().with_filter(sql).unwrap().build().unwrap();
    let batches: Vec<RecordBatch> = scan.to_arrow().await.unwrap().try_collect().await.unwrap();
    let mut got: Vec<i64> = Vec::new();
    for b in &batches {
        let ids = arrow::compute::cast(b.column(0), &arrow_schema::DataType::Int64).unwrap();
        let ids = ids
            .as_any()
            .downcast_ref::<arrow_array::Int64Array>()
            .unwrap();
        got.extend(ids.values().iter());
    }
    got.sort();
    let mut want: Vec<i64> = rows
        .iter()
        .filter(|r| keep(&r["ts9"]))
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    want.sort();
    assert_eq!(got, want, "{sql}");
}

#[tokio::test]
async fn append_table_with_nested_int96_timestamps() {
    // Pages of 16 rows: several pages per chunk (records whole per page) and a page index.
    let options = [("parquet.page.row.count.limit", "16")];
    let t = create_table("append_int96_nested", &fields(), &[], &[], &options).await;
    let lines: Vec<Value> = (0..200).map(|i| row(i, 0)).collect();
    let b = batch(&t, &lines);
    write_commit(&t, std::slice::from_ref(&b)).await;
    assert_eq!(footer_nulls(&t), expected_nulls(&lines));
    let got = read_sorted(Path::new(t.location())).await;
    assert_eq!(got, render_sorted(&t, std::slice::from_ref(&b)));
    // No statistics-based pruning (file stats, row groups, page index) drops a matching row
    // of the INT96 column.
    check_filter(&t, &lines, "ts9 IS NULL", Value::is_null).await;
    check_filter(&t, &lines, "ts9 IS NOT NULL", |v| !v.is_null()).await;
    let max = MAX9.replace('T', " ");
    let at_max = |v: &Value| v.as_str() == Some(MAX9);
    check_filter(&t, &lines, &format!("ts9 = TIMESTAMP '{max}'"), at_max).await;
    let early = |v: &Value| v.as_str().is_some_and(|s| s < "1970");
    check_filter(&t, &lines, "ts9 < TIMESTAMP '1970-01-01 00:00:00'", early).await;
    save_expected(&t, &[b]);
}

#[tokio::test]
async fn primary_key_table_with_nested_int96_timestamps_compacts() {
    let options = [("bucket", "2")];
    let t = create_table("pk_int96_nested", &fields(), &[], &["id"], &options).await;
    let first: Vec<Value> = (0..150).map(|i| row(i, 0)).collect();
    write_commit(&t, &[batch(&t, &first)]).await;
    assert_eq!(footer_nulls(&t), expected_nulls(&first));
    let second: Vec<Value> = (100..180).map(|i| row(i, 1)).collect();
    write_commit(&t, &[batch(&t, &second)]).await;
    let latest: Vec<Value> = (0..100).map(|i| row(i, 0)).chain(second).collect();
    let want = [batch(&t, &latest)];
    assert_eq!(
        read_sorted(Path::new(t.location())).await,
        render_sorted(&t, &want)
    );

    let report = t.compact().full(true).execute().await.unwrap();
    assert!(report.snapshot_id.is_some());
    let t = Table::open(t.location()).await.unwrap();
    assert_eq!(
        read_sorted(Path::new(t.location())).await,
        render_sorted(&t, &want)
    );
    // The live files after the full compaction hold the latest rows once each.
    let live = live_data_files(&t).await;
    let nulls = footer_nulls_of(&live);
    assert_eq!(nulls, expected_nulls(&latest));
    save_expected(&t, &want);
}

/// The data files of the latest snapshot.
async fn live_data_files(t: &Table) -> Vec<std::path::PathBuf> {
    let plan = t.scan().build().unwrap().plan().await.unwrap();
    let mut out = Vec::new();
    for s in &plan.splits {
        let d = s.as_data();
        let bucket = Path::new(t.location()).join(format!("bucket-{}", d.bucket));
        out.extend(d.files.iter().map(|f| bucket.join(&f.file_name)));
    }
    out
}

/// The INT96 chunk null counts of `files`, summed per leaf.
fn footer_nulls_of(files: &[std::path::PathBuf]) -> BTreeMap<String, u64> {
    let mut nulls = BTreeMap::new();
    for p in files {
        let reader = SerializedFileReader::new(std::fs::File::open(p).unwrap()).unwrap();
        for rg in reader.metadata().row_groups() {
            for c in rg.columns() {
                if c.column_type() == PhysicalType::INT96 {
                    let n = c.statistics().unwrap().null_count_opt().unwrap();
                    *nulls.entry(c.column_path().string()).or_insert(0) += n;
                }
            }
        }
    }
    nulls
}

/// MULTISET<TIMESTAMP(9)> (`map<ts, int>`: INT96 keys): our reader only, pypaimon 2.1.0 reads
/// no MULTISET.
#[tokio::test]
async fn multiset_of_int96_timestamps() {
    let ms = r#"{"type": "MULTISET", "element": "TIMESTAMP(9) NOT NULL"}"#;
    let t = create_table(
        "append_int96_multiset",
        &[("id", "INT NOT NULL"), ("ms", ms)],
        &[],
        &[],
        &[],
    )
    .await;
    let lines: Vec<Value> = (0..30)
        .map(|k| {
            let ms = match k % 3 {
                0 => Value::Null,
                1 => json!({}),
                _ => json!({MIN9: 2, MAX9: 1, "1969-07-20T20:17:40.000000001": k}),
            };
            json!({"id": k, "ms": ms})
        })
        .collect();
    let b = batch(&t, &lines);
    write_commit(&t, std::slice::from_ref(&b)).await;
    for p in data_files(&t) {
        let reader = SerializedFileReader::new(std::fs::File::open(&p).unwrap()).unwrap();
        let descr = reader.metadata().file_metadata().schema_descr_ptr();
        let key = descr
            .columns()
            .iter()
            .find(|c| c.path().string() == "ms.key_value.key")
            .unwrap();
        assert_eq!(key.physical_type(), PhysicalType::INT96);
        let rg = reader.metadata().row_group(0);
        let key_chunk = rg
            .columns()
            .iter()
            .find(|c| c.column_path().string() == "ms.key_value.key");
        let nulls = key_chunk.unwrap().statistics().unwrap().null_count_opt();
        assert_eq!(nulls, Some(20)); // 10 null maps and 10 empty ones
    }
    assert_eq!(
        read_sorted(Path::new(t.location())).await,
        render_sorted(&t, std::slice::from_ref(&b))
    );
}
