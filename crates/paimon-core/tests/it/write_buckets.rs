//! Bucket routing on write against Java's bucket-id vectors (`testdata/java/*_for_bucket_id.data`:
//! rows and the bucket Java computes among 12345 buckets): each row is written through
//! `TableWrite` with an `expected` column beside its bucket key, and every row read back from
//! bucket b must expect b.

use futures::TryStreamExt;
use paimon_core::render::batch_to_json_rows;
use serde_json::json;

use crate::common::java_fixtures;
use crate::write::{batch_from_text, create_table, write_commit};

/// The elements of `[a, "b, c", null],` as raw JSON texts.
fn tokens(line: &str) -> Vec<String> {
    let body = line.trim().trim_end_matches(',');
    let body = body.strip_prefix('[').unwrap().strip_suffix(']').unwrap();
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_str = false;
    for c in body.chars() {
        match c {
            '"' => {
                in_str = !in_str;
                cur.push(c);
            }
            ',' if !in_str => out.push(std::mem::take(&mut cur).trim().to_string()),
            _ => cur.push(c),
        }
    }
    out.push(cur.trim().to_string());
    out
}

fn hex(s: &str) -> String {
    s.bytes().map(|b| format!("{b:02x}")).collect()
}

async fn check(file: &str, name: &str, types: &[&str], rows: usize) {
    let text = std::fs::read_to_string(java_fixtures().join(file)).unwrap();
    let names: Vec<String> = (0..types.len()).map(|i| format!("c{i}")).collect();
    let mut fields: Vec<(&str, &str)> = names
        .iter()
        .map(String::as_str)
        .zip(types.iter().copied())
        .collect();
    fields.push(("expected", "INT NOT NULL"));
    let key = names.join(",");
    let t = create_table(
        name,
        &fields,
        &[],
        &[],
        &[("bucket", "12345"), ("bucket-key", &key)],
    )
    .await;
    // Numbers stay as text: serde_json's default float parsing is not always exact.
    let mut json_lines = String::new();
    for l in text.lines().filter(|l| !l.trim().is_empty()).take(rows) {
        let tokens = tokens(l);
        let mut parts = Vec::new();
        for (i, tok) in tokens.iter().enumerate() {
            let name = names.get(i).map_or("expected", String::as_str);
            let v = match (types.get(i), tok.strip_prefix('"')) {
                (Some(&"BYTES"), Some(s)) => format!("\"{}\"", hex(s.trim_end_matches('"'))),
                _ => tok.clone(),
            };
            parts.push(format!("\"{name}\": {v}"));
        }
        json_lines.push_str(&format!("{{{}}}\n", parts.join(", ")));
    }
    write_commit(&t, &[batch_from_text(&t, &json_lines)]).await;
    let scan = t.scan().build().unwrap();
    let plan = scan.plan().await.unwrap();
    let mut seen = 0;
    for split in plan.splits {
        let bucket = split.as_data().bucket;
        let batches: Vec<_> = scan
            .reader()
            .read(vec![split])
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        for b in &batches {
            for row in batch_to_json_rows(b, &t.schema().fields).unwrap() {
                assert_eq!(row["expected"], json!(bucket), "{row:?}");
                seen += 1;
            }
        }
    }
    assert_eq!(seen, rows);
    let _ = std::fs::remove_dir_all(t.location());
}

#[tokio::test]
async fn rows_land_in_javas_buckets() {
    let types = [
        "BOOLEAN",
        "TINYINT",
        "SMALLINT",
        "INT",
        "BIGINT",
        "FLOAT",
        "DOUBLE",
        "DATE",
        "TIMESTAMP(9)",
        "DECIMAL(30, 20)",
        "STRING",
        "BYTES",
    ];
    check("record_for_bucket_id.data", "java_bucket_ids", &types, 600).await;
}

#[tokio::test]
async fn rows_with_nulls_land_in_javas_buckets() {
    let types = [
        "BOOLEAN",
        "TINYINT",
        "SMALLINT",
        "INT",
        "BIGINT",
        "FLOAT",
        "DOUBLE",
        "DATE",
        "TIMESTAMP(9)",
        "DECIMAL(5, 2)",
        "DECIMAL(30, 2)",
        "STRING",
        "BYTES",
    ];
    check(
        "record_with_null_for_bucket_id.data",
        "java_bucket_ids_nulls",
        &types,
        600,
    )
    .await;
}
