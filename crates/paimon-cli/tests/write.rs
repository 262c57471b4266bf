//! `paimon write`: CSV, JSON lines and Parquet input appended to a table, read back with
//! `paimon read`.

use std::path::Path;
use std::process::{Command, Output};

fn paimon(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_paimon"))
        .args(args)
        .output()
        .unwrap()
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn create_pk_table(dir: &Path) {
    std::fs::create_dir_all(dir.join("schema")).unwrap();
    let schema = serde_json::json!({
        "version": 3, "id": 0,
        "fields": [
            {"id": 0, "name": "id", "type": "INT NOT NULL"},
            {"id": 1, "name": "name", "type": "STRING"},
            {"id": 2, "name": "price", "type": "DECIMAL(10, 2)"}
        ],
        "highestFieldId": 2, "partitionKeys": [], "primaryKeys": ["id"],
        "options": {"bucket": "2"}, "comment": null, "timeMillis": 0
    });
    std::fs::write(dir.join("schema/schema-0"), schema.to_string()).unwrap();
}

#[test]
fn write_csv_then_json_lines_then_parquet() {
    let tmp = tempfile::tempdir().unwrap();
    let table = tmp.path().join("t");
    create_pk_table(&table);
    let t = table.to_str().unwrap();
    let csv = tmp.path().join("in.csv");
    std::fs::write(&csv, "id,name,price\n1,a,1.50\n2,b,2.00\n3,,3.25\n").unwrap();
    let out = ok(&paimon(&["write", t, "--input", csv.to_str().unwrap()]));
    assert!(out.starts_with("snapshot 1: 3 rows"), "{out}");
    let json = tmp.path().join("in.jsonl");
    std::fs::write(
        &json,
        "{\"id\": 2, \"name\": \"B\", \"price\": \"20.00\"}\n",
    )
    .unwrap();
    ok(&paimon(&["write", t, "--input", json.to_str().unwrap()]));
    // A Parquet file exported by `paimon read` is valid input too.
    let parquet = tmp.path().join("in.parquet");
    let rows = ok(&paimon(&["read", t, "--format", "jsonl"]));
    let mut lines: Vec<&str> = rows.lines().collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            r#"{"id":1,"name":"a","price":"1.50"}"#,
            r#"{"id":2,"name":"B","price":"20.00"}"#,
            r#"{"id":3,"name":null,"price":"3.25"}"#,
        ]
    );
    let o = paimon(&[
        "read",
        t,
        "--format",
        "parquet",
        "--output",
        parquet.to_str().unwrap(),
    ]);
    if o.status.success() && parquet.is_file() {
        ok(&paimon(&["write", t, "--input", parquet.to_str().unwrap()]));
        let again = ok(&paimon(&["read", t, "--format", "jsonl"]));
        assert_eq!(again.lines().count(), 3);
    }
}

#[test]
fn write_errors_have_exit_codes() {
    let tmp = tempfile::tempdir().unwrap();
    let table = tmp.path().join("t");
    create_pk_table(&table);
    let t = table.to_str().unwrap();
    let csv = tmp.path().join("bad.csv");
    std::fs::write(&csv, "id,name,price\n,a,1.50\n").unwrap();
    let o = paimon(&["write", t, "--input", csv.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!table.join("snapshot").exists());
    let o = paimon(&["write", t, "--input", csv.to_str().unwrap(), "--overwrite"]);
    assert_eq!(o.status.code(), Some(2));
    let o = paimon(&[
        "write",
        t,
        "--input",
        csv.to_str().unwrap(),
        "--partition",
        "a=1",
    ]);
    assert_eq!(o.status.code(), Some(2), "--partition needs --overwrite");
    let o = paimon(&["write", t, "--input", "/no/such/file.csv"]);
    assert_ne!(o.status.code(), Some(0));
}

fn sorted_rows(t: &str) -> Vec<String> {
    let out = ok(&paimon(&["read", t, "--format", "jsonl"]));
    let mut rows: Vec<String> = out.lines().map(str::to_string).collect();
    rows.sort();
    rows
}

#[test]
fn write_overwrite_dynamic_and_static_partitions() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().join("t");
    let t = t.to_str().unwrap();
    ok(&paimon(&[
        "create",
        t,
        "--schema",
        "dt STRING, id INT",
        "--partition",
        "dt",
    ]));
    let input = |name: &str, text: &str| {
        let p = tmp.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let first = input("a.csv", "dt,id\na,1\na,2\nb,3\n");
    ok(&paimon(&["write", t, "--input", &first]));
    // Dynamic: only partition `a` (the one written) is replaced.
    let second = input("b.csv", "dt,id\na,10\n");
    let out = ok(&paimon(&["write", t, "--input", &second, "--overwrite"]));
    assert!(out.starts_with("snapshot 2"), "{out}");
    assert_eq!(
        sorted_rows(t),
        [r#"{"dt":"a","id":10}"#, r#"{"dt":"b","id":3}"#]
    );
    // Static: rows outside the spec are refused (Java's message), nothing changes.
    let outside = input("c.csv", "dt,id\nc,7\n");
    let o = paimon(&[
        "write",
        t,
        "--input",
        &outside,
        "--overwrite",
        "--partition",
        "dt=b",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("do not belong to this partition"));
    // Static: the spec's partition `b` is replaced.
    let third = input("b2.csv", "dt,id\nb,7\nb,8\n");
    ok(&paimon(&[
        "write",
        t,
        "--input",
        &third,
        "--overwrite",
        "--partition",
        "dt=b",
    ]));
    assert_eq!(
        sorted_rows(t),
        [
            r#"{"dt":"a","id":10}"#,
            r#"{"dt":"b","id":7}"#,
            r#"{"dt":"b","id":8}"#
        ]
    );
    let snapshots = ok(&paimon(&["snapshots", t]));
    assert!(snapshots.contains("OVERWRITE"), "{snapshots}");
}

/// `bench-write` with updates and a full compaction, run twice, leaves a table that reads every
/// generated id once, the updated tenth with the second write's values, from compacted files
/// only.
#[test]
fn bench_write_updates_and_compaction_leave_the_latest_rows() {
    let dir = tempfile::tempdir().unwrap();
    let out = ok(&paimon(&[
        "bench-write",
        dir.path().to_str().unwrap(),
        "--rows",
        "2000",
        "--batch-rows",
        "300",
        "--buckets",
        "2",
        "--updates",
        "0.1",
        "--compact",
        "-o",
        "deletion-vectors.enabled=true",
        "-o",
        "pk-btree.index.columns=v",
        "--repeat",
        "2",
    ]));
    assert!(out.contains("paimon-rs full compaction"), "{out}");
    // Two write steps per run, each split into its parts; then the medians of both runs.
    assert_eq!(out.matches("    (rows in ").count(), 4, "{out}");
    let summary = out
        .split("-- medians of 2 runs")
        .nth(1)
        .expect("no summary");
    assert!(summary.contains("paimon-rs full compaction"), "{out}");
    assert!(
        summary.contains("ratio paimon-rs / arrow-rs (medians): "),
        "{out}"
    );
    let table = dir.path().join("pk");
    let read = ok(&paimon(&[
        "read",
        table.to_str().unwrap(),
        "--format",
        "jsonl",
    ]));
    let mut ids = std::collections::BTreeSet::new();
    let mut updated = 0;
    for line in read.lines() {
        let row: serde_json::Value = serde_json::from_str(line).unwrap();
        let (id, v) = (row["id"].as_i64().unwrap(), row["v"].as_i64().unwrap());
        assert!(ids.insert(id), "id {id} read twice");
        match v - id * 7 {
            0 => {}
            1 => updated += 1,
            d => panic!("id {id}: v is off by {d}"),
        }
    }
    assert_eq!(ids.len(), 2000);
    assert_eq!(ids.iter().next_back(), Some(&1999));
    assert_eq!(updated, 200);
    let scan = ok(&paimon(&["scan", table.to_str().unwrap()]));
    assert!(
        scan.contains(" level=") && !scan.contains(" level=0 "),
        "{scan}"
    );
}
