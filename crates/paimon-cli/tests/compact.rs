//! `paimon compact`: a primary-key table written in several commits, compacted, reads the
//! same rows; a second run has nothing to do.

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

fn sorted_rows(table: &str) -> Vec<String> {
    let out = ok(&paimon(&["read", table, "--format", "jsonl"]));
    let mut rows: Vec<String> = out.lines().map(str::to_string).collect();
    rows.sort();
    rows
}

#[test]
fn compact_full_keeps_rows_and_reports_buckets() {
    let tmp = tempfile::tempdir().unwrap();
    let table = tmp.path().join("t");
    std::fs::create_dir_all(table.join("schema")).unwrap();
    let schema = serde_json::json!({
        "version": 3, "id": 0,
        "fields": [
            {"id": 0, "name": "p", "type": "STRING NOT NULL"},
            {"id": 1, "name": "id", "type": "INT NOT NULL"},
            {"id": 2, "name": "v", "type": "STRING"}
        ],
        "highestFieldId": 2, "partitionKeys": ["p"], "primaryKeys": ["p", "id"],
        "options": {"bucket": "2"}, "comment": null, "timeMillis": 0
    });
    std::fs::write(table.join("schema/schema-0"), schema.to_string()).unwrap();
    let t = table.to_str().unwrap();
    for (i, text) in [
        "p,id,v\na,1,x\na,2,y\nb,3,z\n",
        "p,id,v\na,1,x2\nb,3,z2\nb,4,w\n",
    ]
    .iter()
    .enumerate()
    {
        let csv = tmp.path().join(format!("in{i}.csv"));
        std::fs::write(&csv, text).unwrap();
        ok(&paimon(&["write", t, "--input", csv.to_str().unwrap()]));
    }
    let before = sorted_rows(t);
    assert_eq!(before.len(), 4);
    let out = ok(&paimon(&["compact", t]));
    assert_eq!(out.trim(), "nothing to compact", "below the trigger");
    let out = ok(&paimon(&["compact", t, "--full", "--partition", "p=a"]));
    assert!(out.contains("partition [p=a]"), "{out}");
    assert!(!out.contains("p=b"), "{out}");
    assert!(out.contains("snapshot 3: compacted"), "{out}");
    assert_eq!(sorted_rows(t), before);
    let out = ok(&paimon(&["compact", t, "--full", "--parallelism", "1"]));
    assert!(
        out.contains("partition [p=b]") && !out.contains("p=a"),
        "{out}"
    );
    assert_eq!(sorted_rows(t), before);
    let bad = paimon(&["compact", t, "--partition", "nonsense"]);
    assert_eq!(bad.status.code(), Some(2));
    let bad = paimon(&["compact", t, "--parallelism", "0"]);
    assert_eq!(bad.status.code(), Some(2));
}
