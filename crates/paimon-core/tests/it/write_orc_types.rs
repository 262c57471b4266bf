//! The ORC type tree our writer produces, against Java Paimon 2.0's (`OrcTypeUtil`): the footer
//! types of Java-written data files (`testdata/java/orc`) and of ours written for the same
//! schema have equal kinds, field names, subtypes, attributes (`paimon.id`), precision, scale
//! and maximum length, for an append table and a primary-key table (`_KEY_*`,
//! `_SEQUENCE_NUMBER`, `_VALUE_KIND`). No Java fixture has nested, CHAR or VARCHAR columns:
//! those ids are checked against Java's rules in the unit tests of `write/orc.rs`.
//!
//! CHAR / VARCHAR columns, top level and nested, in an append and a primary-key table: written,
//! read back by us as Java reads them (CHAR values without their padding, values cut to the
//! declared length), and left under `target/written` for `scripts/check-written.py` (pypaimon
//! 2.1.0 and pyarrow.orc return CHAR values as stored, padded, which that script expects).

use std::path::{Path, PathBuf};

use orc_rust::proto;
use paimon_core::spec::orc_footer::orc_footer_bytes;
use paimon_core::Table;
use prost::Message;
use serde_json::{json, Value};

use crate::common::java_table;
use crate::write::{
    batch, create_table, read_sorted, render_sorted, same_rows_after_full_compaction,
    save_expected, write_commit,
};

/// The `.orc` files under `dir`, sorted.
fn orc_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(orc_files(&p));
        } else if p.extension().is_some_and(|x| x == "orc") {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// Every type of the footer of the first ORC data file under `dir`, one line each.
fn type_tree(dir: &Path) -> Vec<String> {
    let file = orc_files(dir).into_iter().next().expect("an ORC data file");
    let bytes = std::fs::read(&file).unwrap();
    let footer = orc_footer_bytes(&bytes, &file.display().to_string()).unwrap();
    let footer = proto::Footer::decode(footer.as_slice()).unwrap();
    footer
        .types
        .iter()
        .map(|t| {
            let attributes: Vec<(&str, &str)> =
                t.attributes.iter().map(|p| (p.key(), p.value())).collect();
            format!(
                "{:?} names={:?} subtypes={:?} attributes={attributes:?} precision={:?} scale={:?} \
                 max_length={:?}",
                t.kind(),
                t.field_names,
                t.subtypes,
                t.precision,
                t.scale,
                t.maximum_length
            )
        })
        .collect()
}

/// The columns of a Java fixture's `schema-0`, as `create_table` takes them.
fn java_columns(dir: &Path) -> (Vec<(String, String)>, Vec<String>) {
    let text = std::fs::read_to_string(dir.join("schema/schema-0")).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    let columns = schema["fields"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, f)| {
            assert_eq!(f["id"], json!(i), "ids in order");
            (
                f["name"].as_str().unwrap().to_string(),
                f["type"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let keys = schema["primaryKeys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap().to_string())
        .collect();
    (columns, keys)
}

/// Writes a table of the Java fixture `rel`'s schema with `rows` and compares the type trees.
async fn same_type_tree_as_java(rel: &str, name: &str, rows: &[Value]) {
    let java = PathBuf::from(java_table(rel));
    let (columns, keys) = java_columns(&java);
    let columns: Vec<(&str, &str)> = columns
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    let bucket = if keys.is_empty() { "-1" } else { "1" };
    let options = [("file.format", "orc"), ("bucket", bucket)];
    let t = create_table(name, &columns, &[], &keys, &options).await;
    write_commit(&t, &[batch(&t, rows)]).await;
    let ours = type_tree(Path::new(t.location()));
    let want = type_tree(&java);
    assert!(
        want.iter().skip(1).all(|t| t.contains("paimon.id")),
        "{want:#?}"
    );
    assert_eq!(ours, want);
}

#[tokio::test]
async fn orc_type_tree_of_append_files_equals_java() {
    // f0 STRING, f1 INT, f2 INT, f3 DOUBLE, f4 TIMESTAMP(9)
    let rows: Vec<Value> = (0..10)
        .map(|i| {
            json!({"f0": format!("s{i}"), "f1": i, "f2": i * 2, "f3": i as f64 / 2.0,
                   "f4": "2024-01-01T00:00:00.123456789"})
        })
        .collect();
    same_type_tree_as_java("orc/append_with_bloomfilter", "orc_types_append", &rows).await;
}

#[tokio::test]
async fn orc_type_tree_of_primary_key_files_equals_java() {
    // id INT NOT NULL (primary key), score INT, tag STRING
    let rows: Vec<Value> = (0..10)
        .map(|i| json!({"id": i, "score": i * 7, "tag": format!("t{i}")}))
        .collect();
    same_type_tree_as_java("orc/pk_btree_e2e", "orc_types_pk", &rows).await;
}

const ROW_R: &str = r#"{"type": "ROW", "fields": [
    {"id": 100, "name": "rc", "type": "CHAR(3)"},
    {"id": 101, "name": "rv", "type": "VARCHAR(4)"}]}"#;
const ARRAY_A: &str = r#"{"type": "ARRAY", "element": "CHAR(2)"}"#;
const MAP_M: &str = r#"{"type": "MAP", "key": "VARCHAR(3) NOT NULL", "value": "CHAR(4)"}"#;

fn char_columns() -> Vec<(&'static str, &'static str)> {
    vec![
        ("id", "INT NOT NULL"),
        ("k", "CHAR(4) NOT NULL"),
        ("c", "CHAR(5)"),
        ("v", "VARCHAR(8)"),
        ("s", "STRING"),
        ("r", ROW_R),
        ("a", ARRAY_A),
        ("m", MAP_M),
    ]
}

/// Row `i` of version `ver`: every value within its declared length and without trailing
/// spaces (read back unchanged), multi-byte characters included, nulls at every level.
fn char_row(i: i64, ver: i64) -> Value {
    let c = match (i + ver) % 5 {
        0 => Value::Null,
        1 => json!(""),
        2 => json!("é💯"),
        3 => json!("abcde"),
        _ => json!(format!("c{i}")),
    };
    let or_null = |cond: bool, v: Value| if cond { Value::Null } else { v };
    json!({
        "id": i,
        "k": format!("k{}", i % 7),
        "c": c,
        "v": or_null(i % 6 == 1, json!(format!("v{ver}-{i}"))),
        "s": format!("  s{i}  "),
        "r": or_null(i % 4 == 3, json!({"rc": or_null(i % 3 == 0, json!("ü")), "rv": "ab c"})),
        "a": or_null(i % 5 == 4, json!(["x", null, "é💯", ""])),
        "m": or_null(i % 6 == 5, json!({"k1": "v", "k2": null, "k3": "abcd"})),
    })
}

fn char_rows(t: &Table, ids: std::ops::Range<i64>, ver: i64) -> arrow_array::RecordBatch {
    let lines: Vec<Value> = ids.map(|i| char_row(i, ver)).collect();
    batch(t, &lines)
}

#[tokio::test]
async fn orc_char_varchar_append_round_trip() {
    let options = [
        ("file.format", "orc"),
        ("bucket", "2"),
        ("bucket-key", "id"),
    ];
    let t = create_table("append_orc_char", &char_columns(), &[], &[], &options).await;
    let b = char_rows(&t, 0..200, 0);
    let files = write_commit(&t, std::slice::from_ref(&b)).await;
    assert!(files.iter().all(|f| f.file_name.ends_with(".orc")));
    let got = read_sorted(Path::new(t.location())).await;
    assert_eq!(got, render_sorted(&t, std::slice::from_ref(&b)));
    save_expected(&t, &[b]);
}

#[tokio::test]
async fn orc_char_varchar_primary_key_round_trip() {
    // Bucketed by `id`: pypaimon reads the CHAR key `k` padded (as stored) and would hash
    // that, not the value written.
    let options = [
        ("file.format", "orc"),
        ("bucket", "2"),
        ("bucket-key", "id"),
    ];
    let t = create_table("pk_orc_char", &char_columns(), &[], &["id", "k"], &options).await;
    write_commit(&t, &[char_rows(&t, 0..150, 0)]).await;
    write_commit(&t, &[char_rows(&t, 100..200, 1)]).await;
    let want = [char_rows(&t, 0..100, 0), char_rows(&t, 100..200, 1)];
    let t = same_rows_after_full_compaction(&t, &want).await;
    save_expected(&t, &want);
}

/// Values with trailing spaces or longer than their type come back as Java reads them from
/// ORC: CHAR(n) cut to n characters without trailing spaces, VARCHAR(n) cut to n characters
/// (STRING unchanged), at every depth.
#[tokio::test]
async fn orc_char_varchar_values_read_as_java_reads_them() {
    let options = [("file.format", "orc")];
    let t = create_table("orc_char_semantics", &char_columns(), &[], &[], &options).await;
    let written = json!({
        "id": 1, "k": "ab  ", "c": "abcdefgh", "v": "123456789ab", "s": " long string  ",
        "r": {"rc": "x  ", "rv": "éééééé"}, "a": ["a ", "abc", " "],
        "m": {"key1": "v   ", "k": "éé💯💯💯"}
    });
    let read = json!({
        "id": 1, "k": "ab", "c": "abcde", "v": "12345678", "s": " long string  ",
        "r": {"rc": "x", "rv": "éééé"}, "a": ["a", "ab", ""],
        "m": {"key": "v", "k": "éé💯💯"}
    });
    write_commit(&t, &[batch(&t, &[written])]).await;
    let got = read_sorted(Path::new(t.location())).await;
    let want = render_sorted(&t, &[batch(&t, &[read])]);
    assert_eq!(got, want);
}

/// ORC files store CHAR(n) values padded (and our ORC stats report them padded, as Java's do),
/// while values read and predicate literals are not: a CHAR predicate must not skip a file by
/// those bounds.
#[tokio::test]
async fn char_predicates_do_not_prune_by_padded_orc_bounds() {
    let options = [("file.format", "orc")];
    let columns = [("id", "INT NOT NULL"), ("c", "CHAR(5)")];
    let t = create_table("orc_char_filter", &columns, &[], &[], &options).await;
    let rows = [json!({"id": 1, "c": "ab"}), json!({"id": 2, "c": "ab"})];
    write_commit(&t, &[batch(&t, &rows)]).await;
    for filter in ["c = 'ab'", "c <= 'ab'", "c < 'abc'", "c IN ('ab', 'x')"] {
        let q = crate::common::Query {
            filter: Some(filter),
            ..Default::default()
        };
        let got = crate::common::read_rows(t.location(), q).await;
        assert_eq!(got, vec!["1, ab", "2, ab"], "{filter}");
    }
}
