//! The `paimon` binary end to end, on Java-written fixtures and the sample warehouse.

use std::path::PathBuf;
use std::process::{Command, Output};

fn java_table(rel: &str) -> String {
    let base = std::env::var_os("PAIMON_JAVA_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/java"));
    let (fmt, name) = rel.split_once('/').unwrap();
    base.join(format!("{fmt}/{name}.db/{name}"))
        .to_str()
        .unwrap()
        .to_string()
}

fn paimon(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_paimon"))
        .args(args)
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn scan_json_describes_the_plan() {
    let t = java_table("parquet/append_09");
    let out = stdout(&paimon(&["scan", &t, "--json", "--where", "f1 = 10"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["snapshot_id"], 5);
    let splits = v["splits"].as_array().unwrap();
    assert!(!splits.is_empty());
    for s in splits {
        assert_eq!(s["partition"]["f1"], 10);
        assert_eq!(s["total_buckets"], 2);
        for f in s["files"].as_array().unwrap() {
            assert!(f["file_name"].as_str().unwrap().ends_with(".parquet"));
            assert!(f["deletion_file"].is_null());
            assert!(f["row_ranges"].is_null());
        }
    }
    assert!(v["metrics"]["files_skipped_by_partition"].as_u64().unwrap() > 0);
}

#[test]
fn read_jsonl_with_projection_and_filter() {
    let t = java_table("parquet/append_09");
    let out = stdout(&paimon(&[
        "read",
        &t,
        "--where",
        "f0 = 'Paul'",
        "--select",
        "f3,f0",
        "--format",
        "jsonl",
    ]));
    assert_eq!(out, "{\"f3\":null,\"f0\":\"Paul\"}\n");
    let out = stdout(&paimon(&[
        "read",
        &t,
        "--snapshot",
        "1",
        "--format",
        "csv",
        "--select",
        "f0",
        "--limit",
        "2",
    ]));
    assert_eq!(out.lines().count(), 3, "{out}");
}

#[test]
fn errors_have_exit_codes() {
    let t = java_table("parquet/append_09");
    let o = paimon(&["scan", &t, "--snapshot", "99"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&o.stderr).contains("snapshot 99"));
    let o = paimon(&["read", &t, "--where", "nope = 1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("nope"));
    let o = paimon(&["read", "/definitely/not/a/table"]);
    assert_eq!(o.status.code(), Some(3));
    let o = paimon(&["read", &t, "-o", "novalue"]);
    assert_eq!(o.status.code(), Some(2));
}

/// Subcommands' arguments are defined late (`defer`): each subcommand's help still opens with
/// its own line from the top-level list, and its arguments are all there.
#[test]
fn subcommand_help_keeps_its_summary_and_arguments() {
    let top = stdout(&paimon(&["--help"]));
    for (cmd, summary, arg) in [
        ("read", "Read rows", "--where"),
        ("scan", "Plan a scan and print its splits", "--snapshot"),
        ("expire", "Expire old snapshots", "--older-than"),
        ("schema", "Print a table's latest schema", "<TABLE>"),
    ] {
        assert!(top.contains(summary), "{top}");
        let help = stdout(&paimon(&[cmd, "--help"]));
        assert!(help.starts_with(summary), "{cmd}: {help}");
        assert!(help.contains(arg), "{cmd}: {help}");
    }
    // A misspelt argument of a deferred subcommand is still a usage error.
    let o = paimon(&["read", "t", "--wehre", "x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--where"));
}

#[test]
fn sample_warehouse_main_job() {
    let wh = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/warehouse");
    let wh = wh.to_str().unwrap();
    let tables = stdout(&paimon(&["tables", wh]));
    assert!(tables.contains("demo.orders"), "{tables}");
    let o = paimon(&[
        "read",
        wh,
        "demo.orders",
        "--where",
        "dt = '2024-01-02' AND amount > 100",
        "--metrics",
        "--format",
        "jsonl",
    ]);
    let out = stdout(&o);
    assert!(!out.is_empty());
    for line in out.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["dt"], "2024-01-02");
        assert!(v["amount"].as_str().unwrap().parse::<f64>().unwrap() > 100.0);
    }
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("skipped"), "{err}");
    // The read's own metrics, with the bytes fetched.
    assert!(err.contains("read: row groups skipped"), "{err}");
    assert!(err.contains("bytes in"), "{err}");
    let plain = paimon(&[
        "read",
        wh,
        "demo.orders",
        "--where",
        "dt = '2024-01-02' AND amount > 100",
        "--no-selective",
        "--format",
        "jsonl",
    ]);
    let mut a: Vec<&str> = out.lines().collect();
    let plain_out = stdout(&plain);
    let mut b: Vec<&str> = plain_out.lines().collect();
    a.sort_unstable();
    b.sort_unstable();
    assert_eq!(a, b);
}

#[test]
fn point_lookup_plans_one_bucket_and_reads_its_rows() {
    let wh = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/warehouse");
    let wh = wh.to_str().unwrap();
    let out = stdout(&paimon(&[
        "scan",
        wh,
        "demo.events_bucketed",
        "--where",
        "id = 7",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let buckets: std::collections::BTreeSet<i64> = v["splits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["bucket"].as_i64().unwrap())
        .collect();
    assert_eq!(buckets.len(), 1, "{out}");
    assert_eq!(v["metrics"]["bucket_pruning"], "inferred");
    assert_eq!(v["metrics"]["buckets_selected"], 1);
    assert!(v["metrics"]["files_skipped_by_bucket"].as_u64().unwrap() > 0);
    // The sample warehouse README: rows with id = 7: 5. The unpruned read (-o bucket=-1 turns
    // inference off) must agree.
    let pruned = stdout(&paimon(&[
        "read",
        wh,
        "demo.events_bucketed",
        "--where",
        "id = 7",
        "--format",
        "jsonl",
    ]));
    let unpruned = stdout(&paimon(&[
        "read",
        wh,
        "demo.events_bucketed",
        "--where",
        "id = 7",
        "--format",
        "jsonl",
        "-o",
        "bucket=-1",
    ]));
    assert_eq!(pruned.lines().count(), 5);
    let mut a: Vec<_> = pruned.lines().collect();
    let mut b: Vec<_> = unpruned.lines().collect();
    a.sort();
    b.sort();
    assert_eq!(a, b);
    let text = stdout(&paimon(&[
        "scan",
        wh,
        "demo.events_bucketed",
        "--where",
        "id = 7",
    ]));
    assert!(text.contains("bucket_pruning: \"inferred\""), "{text}");
}

/// Pulls the row counts out of `bench` output lines ("<label> <ms> ms  rows <n>  peak RSS ...").
fn bench_rows(out: &str, label: &str) -> u64 {
    let line = out
        .lines()
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("no '{label}' line in:\n{out}"));
    let after = line.split("rows").nth(1).unwrap();
    after.split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn bench_reads_the_same_rows_on_both_sides() {
    let t = java_table("parquet/append_09");
    let out = stdout(&paimon(&["bench", &t, "--iterations", "1"]));
    let ours = bench_rows(&out, "paimon-rs (plan + read)");
    assert!(ours > 0, "{out}");
    assert_eq!(ours, bench_rows(&out, "arrow-rs direct, delivered"));
    assert_eq!(ours, bench_rows(&out, "arrow-rs direct, in-task"));
    assert!(
        out.contains("ratio paimon-rs / direct delivered: "),
        "{out}"
    );
}

fn jsonl(out: &str) -> Vec<serde_json::Value> {
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn read_with_metadata_names_file_and_position() {
    for fmt in ["parquet", "orc"] {
        let t = java_table(&format!("{fmt}/pk_table_scan_and_read_dv"));
        let out = stdout(&paimon(&[
            "read",
            &t,
            "--with-metadata",
            "--select",
            "f0,f3",
            "--format",
            "jsonl",
        ]));
        let rows = jsonl(&out);
        assert_eq!(rows.len(), 8, "{out}");
        let keys: Vec<&str> = rows[0]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "f0",
                "f3",
                "_SEQUENCE_NUMBER",
                "_VALUE_KIND",
                "__paimon_file_path",
                "__paimon_row_index"
            ]
        );
        let by_name = |n: &str| rows.iter().find(|r| r["f0"] == n).unwrap();
        // README: Alex, Bob, David, Emily, Tony compacted into one file; Tony (row 4) deleted.
        assert_eq!(by_name("Alex")["__paimon_row_index"], 0);
        assert_eq!(by_name("Emily")["__paimon_row_index"], 3);
        assert_eq!(
            by_name("Alex")["__paimon_file_path"],
            by_name("Emily")["__paimon_file_path"]
        );
        let path = by_name("Alex")["__paimon_file_path"].as_str().unwrap();
        assert!(path.contains("/f1=10/bucket-1/data-"), "{path}");
        assert!(path.ends_with(&format!(".{fmt}")), "{path}");
        assert!(!out.contains("Tony"));
    }
    // Append tables get the file and position columns only.
    let t = java_table("parquet/append_09");
    let out = stdout(&paimon(&[
        "read",
        &t,
        "--where",
        "f0 = 'Paul'",
        "--with-metadata",
        "--format",
        "jsonl",
    ]));
    let rows = jsonl(&out);
    assert_eq!(rows.len(), 1, "{out}");
    assert!(rows[0].get("_SEQUENCE_NUMBER").is_none());
    assert!(rows[0]["__paimon_row_index"].as_i64().unwrap() >= 0);
    assert!(rows[0]["__paimon_file_path"]
        .as_str()
        .unwrap()
        .ends_with(".parquet"));
}

#[test]
fn scan_shows_indexed_splits_and_global_index_metrics() {
    let t = java_table("parquet/pk_btree_e2e");
    let out = stdout(&paimon(&[
        "scan",
        &t,
        "--where",
        "score = 0",
        "--snapshot",
        "2",
    ]));
    assert!(out.contains("indexed ranges=["), "{out}");
    assert!(out.contains("files_narrowed: 2"), "{out}");
    assert!(out.contains("rows_selected: 200"), "{out}");
    let off = stdout(&paimon(&[
        "scan",
        &t,
        "--where",
        "score = 0",
        "--snapshot",
        "2",
        "-o",
        "global-index.enabled=false",
    ]));
    assert!(!off.contains("indexed ranges"), "{off}");
    assert!(off.contains("skipped: \"disabled\""), "{off}");
    let v: serde_json::Value = serde_json::from_str(&stdout(&paimon(&[
        "scan",
        &t,
        "--json",
        "--where",
        "score = 0",
        "--snapshot",
        "2",
    ])))
    .unwrap();
    assert_eq!(v["metrics"]["global_index"]["indexed_splits"], 2);
    let ranges = &v["splits"][0]["files"][0]["row_ranges"];
    assert!(ranges.as_array().is_some_and(|r| !r.is_empty()), "{ranges}");
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn index_build_commits_payloads_that_scans_use() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().join("pk_btree_e2e");
    copy_dir(
        std::path::Path::new(&java_table("parquet/pk_btree_e2e")),
        &t,
    );
    let t = t.to_str().unwrap();
    let out = stdout(&paimon(&["index", "build", t, "--column", "score"]));
    assert!(out.starts_with("snapshot 6: "), "{out}");
    assert!(out.contains(" payloads over "), "{out}");
    let scan = stdout(&paimon(&["scan", t, "--where", "score = 0"]));
    assert!(scan.contains("indexed ranges=["), "{scan}");
    let wrong = paimon(&["index", "build", t, "--column", "tag"]);
    assert_eq!(wrong.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&wrong.stderr).contains("pk-btree.index.columns"));
}

#[test]
fn create_alter_and_drop_tables() {
    let tmp = tempfile::tempdir().unwrap();
    let wh = tmp.path().to_str().unwrap();
    stdout(&paimon(&["create-database", wh, "db"]));
    let out = stdout(&paimon(&[
        "create",
        wh,
        "db.t",
        "--schema",
        "id BIGINT, dt STRING, r ROW<a INT, b ARRAY<STRING>>, m MAP<STRING, INT>, d DECIMAL(10, 2)",
        "--primary-key",
        "id,dt",
        "--partition",
        "dt",
        "-o",
        "bucket=4",
        "-o",
        "file.format=parquet",
    ]));
    assert!(out.contains("(schema 0, 5 columns)"), "{out}");
    let schema_file = tmp.path().join("db.db/t/schema/schema-0");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&schema_file).unwrap()).unwrap();
    assert_eq!(json["fields"][0]["type"], "BIGINT NOT NULL");
    assert_eq!(json["fields"][2]["type"]["fields"][1]["id"], 4);
    assert_eq!(json["highestFieldId"], 6);
    assert_eq!(
        json["options"],
        serde_json::json!({"bucket": "4", "file.format": "parquet"})
    );

    let out = stdout(&paimon(&[
        "alter",
        wh,
        "db.t",
        "--set",
        "snapshot.num-retained.min=3",
        "--add-column",
        "c INT COMMENT 'new' AFTER id",
        "--rename-column",
        "d=amount",
        "--alter-column-type",
        "amount DECIMAL(12, 2)",
        "--drop-column",
        "m",
    ]));
    assert!(out.contains("schema 1 (5 columns)"), "{out}");
    let out = stdout(&paimon(&["schema", wh, "db.t"]));
    assert!(
        out.contains("amount") && out.contains("DECIMAL(12, 2)"),
        "{out}"
    );
    let out = stdout(&paimon(&["read", wh, "db.t"]));
    assert!(!out.contains('{'), "{out}");

    // Java's messages and exit codes: 2 for a rejected change, 6 for an existing table.
    let bad = paimon(&["alter", wh, "db.t", "--drop-column", "id"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr)
        .contains("Cannot drop partition key or primary key: [id]"));
    let exists = paimon(&["create", wh, "db.t", "--schema", "x INT"]);
    assert_eq!(exists.status.code(), Some(6));
    stdout(&paimon(&[
        "create",
        wh,
        "db.t",
        "--schema",
        "x INT",
        "--if-not-exists",
    ]));
    let bad = paimon(&["create", wh, "db.u", "--schema", "x INT", "-o", "bucket=2"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr)
        .contains("You should define a 'bucket-key' for bucketed append mode."));

    assert_eq!(stdout(&paimon(&["tables", wh])).trim(), "db.t");
    stdout(&paimon(&["drop", wh, "db.t"]));
    assert_eq!(paimon(&["drop", wh, "db.t"]).status.code(), Some(3));
    stdout(&paimon(&["drop", wh, "db.t", "--if-exists"]));
    stdout(&paimon(&["drop-database", wh, "db"]));
    assert!(stdout(&paimon(&["tables", wh])).trim().is_empty());
}

#[test]
fn file_index_counts_in_scan_and_read_metrics() {
    // Embedded bitmap index: the plan drops the file ('Carl' is within the min/max stats).
    let t = java_table("parquet/append_with_bitmap");
    let args = ["scan", &t, "--where", "f0 = 'Carl'", "--json"];
    let v: serde_json::Value = serde_json::from_str(&stdout(&paimon(&args))).unwrap();
    let fi = &v["metrics"]["file_index"];
    assert_eq!(fi["files_skipped"], 1, "{v}");
    assert_eq!(fi["files_skipped_by_kind"]["bitmap"], 1, "{v}");
    assert_eq!(v["splits"].as_array().unwrap().len(), 0);
    let off = [
        "scan",
        &t,
        "--where",
        "f0 = 'Carl'",
        "--json",
        "--no-file-index",
    ];
    let v: serde_json::Value = serde_json::from_str(&stdout(&paimon(&off))).unwrap();
    assert_eq!(v["metrics"]["file_index"]["files_skipped"], 0, "{v}");
    assert_eq!(v["splits"].as_array().unwrap().len(), 1);
    let out = stdout(&paimon(&["scan", &t, "--where", "f0 = 'Carl'"]));
    assert!(out.contains("file_index:"), "{out}");

    // Index in an `*.index` file: the read selects Alice's two rows of eight.
    let t = java_table("parquet/append_with_bitmap_no_embedding");
    let args = [
        "read",
        &t,
        "--where",
        "f0 = 'Alice'",
        "--metrics",
        "--format",
        "csv",
    ];
    let o = paimon(&args);
    assert_eq!(stdout(&o).lines().count(), 3, "header and two rows");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("read file index: 1 files evaluated, 0 skipped, 6 rows skipped, 0 fallbacks"),
        "{err}"
    );
    let args = ["read", &t, "--where", "f0 = 'Carl'", "--metrics"];
    let err = String::from_utf8_lossy(&paimon(&args).stderr).to_string();
    assert!(err.contains("1 skipped (bitmap 1)"), "{err}");
}

/// Output lines sorted (reads are unordered).
fn sorted_lines(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s.lines().map(str::to_string).collect();
    v.sort();
    v
}

#[test]
fn expire_and_remove_orphan_files() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().join("pk_09");
    copy_dir(std::path::Path::new(&java_table("parquet/pk_09")), &t);
    let stray = t.join("manifest/manifest-stray-0");
    std::fs::write(&stray, b"x").unwrap();
    let t = t.to_str().unwrap();
    let before = sorted_lines(&stdout(&paimon(&["read", t])));
    let out = stdout(&paimon(&[
        "expire",
        t,
        "--retain-min",
        "2",
        "--older-than",
        "0 s",
    ]));
    assert!(
        out.contains("expired snapshots 1..=6 (6 snapshots)"),
        "{out}"
    );
    assert_eq!(sorted_lines(&stdout(&paimon(&["read", t]))), before);
    let snaps = stdout(&paimon(&["snapshots", t]));
    assert_eq!(snaps.lines().count(), 3, "{snaps}");
    // Fresh files are no orphans under the default day.
    let out = stdout(&paimon(&["remove-orphan-files", t, "--dry-run"]));
    assert!(out.contains("found 0 orphan files"), "{out}");
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let out = stdout(&paimon(&["remove-orphan-files", t, "--older-than", "1s"]));
    assert!(out.contains("deleted 1 orphan files"), "{out}");
    assert!(!stray.exists());
    assert_eq!(sorted_lines(&stdout(&paimon(&["read", t]))), before);
    let bad = paimon(&["expire", t, "--older-than", "1 fortnight"]);
    assert_eq!(bad.status.code(), Some(2));
}

/// `paimon sql`: rows equal `paimon read` (jsonl), EXPLAIN prints the scan, bad SQL exits 2.
#[cfg(feature = "sql")]
#[test]
fn sql_equals_read_and_explains() {
    let t = java_table("parquet/append_09");
    let warehouse = std::path::Path::new(&t)
        .parent()
        .and_then(|p| p.parent())
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    let mut via_read = jsonl(&stdout(&paimon(&[
        "read", &t, "--where", "f1 = 10", "--format", "jsonl",
    ])));
    let mut via_sql = jsonl(&stdout(&paimon(&[
        "sql",
        &warehouse,
        "SELECT * FROM append_09.append_09 WHERE f1 = 10",
        "--format",
        "jsonl",
    ])));
    let key = |v: &serde_json::Value| v.to_string();
    via_read.sort_by_key(key);
    via_sql.sort_by_key(key);
    assert!(!via_sql.is_empty());
    assert_eq!(via_sql, via_read);

    let out = stdout(&paimon(&[
        "sql",
        &warehouse,
        "EXPLAIN SELECT f0 FROM paimon.append_09.append_09 WHERE f2 > 0",
    ]));
    assert!(out.contains("PaimonScanExec"), "{out}");

    let out = stdout(&paimon(&[
        "sql",
        &warehouse,
        "SET paimon.scan_snapshot_id = 1; SELECT count(*) AS n FROM append_09.append_09",
        "--format",
        "csv",
    ]));
    assert!(out.starts_with("n\n"), "{out}");

    let o = paimon(&["sql", &warehouse, "SELECT * FROM append_09.nope"]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("nope"));
}

/// `paimon sql WAREHOUSE` without a query reads `;`-ended statements from stdin: DDL and
/// writes go through the library, a failing statement is reported and the next one runs,
/// EXPLAIN shows the scan's pruning counters; the exit status reports the failure.
#[cfg(feature = "sql")]
#[test]
fn sql_reads_statements_from_stdin() {
    use std::io::Write;
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let warehouse = dir.path().to_str().unwrap();
    stdout(&paimon(&["create-database", warehouse, "db"]));
    let script = "CREATE TABLE db.t (id BIGINT NOT NULL, p STRING, v STRING)\n\
                  WITH ('primary-key' = 'id,p', 'partition' = 'p', 'bucket' = '1');\n\
                  INSERT INTO db.t VALUES (1, 'x', 'a'), (2, 'y', 'b');\n\
                  INSERT INTO db.t VALUES (2, 'y', 'c');\n\
                  SELECT * FROM db.nope;\n\
                  SELECT id, v FROM db.t ORDER BY id;\n\
                  EXPLAIN SELECT v FROM db.t WHERE p = 'x';\n\
                  DROP TABLE db.t;\n";
    let mut child = Command::new(env!("CARGO_BIN_EXE_paimon"))
        .args(["sql", warehouse, "--format", "csv"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "stdout: {out}\nstderr: {err}");
    assert!(err.contains("nope"), "{err}");
    assert!(out.contains("id,v\n1,a\n2,c\n"), "{out}");
    assert!(out.contains("PaimonScanExec"), "{out}");
    assert!(out.contains("pruned_by_partition="), "{out}");
    assert!(
        !dir.path().join("db.db/t").exists(),
        "DROP TABLE left the table"
    );
}
