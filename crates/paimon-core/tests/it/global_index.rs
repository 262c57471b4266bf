//! The primary-key global index (pk-btree) read path end to end: Java 2.0-written tables and
//! the pypaimon `pk_dv_btree` table; indexed reads equal reads with
//! `global-index.enabled = false`, the plan narrows where payloads are valid, bad payloads fall
//! back.

use paimon_core::scan::{Plan, SnapshotSelector};
use paimon_core::Table;

use crate::common::*;

const FILTERS: &[&str] = &[
    "score = 0",
    "score = 5",
    "score IN (1, 3, 7)",
    "score < 3",
    "score <= 3",
    "score > 7",
    "score >= 8",
    "score BETWEEN 2 AND 4",
    "score IS NULL",
    "score IS NOT NULL",
    "score = 0 AND id <= 1500",
    "score = 0 OR tag = 'keep'",
    "score = 1 OR score = 2",
    "score = 0 AND tag = 'keep'",
    "score > 5 AND id < 300",
    "score = 42",
    "score <> 3",
    "score NOT IN (0, 1)",
];

/// Plans and reads `filter` at `snapshot`, with the index on or off.
async fn run(path: &str, snapshot: i64, filter: &str, enabled: bool) -> (Plan, Vec<String>) {
    let table = Table::open(path).await.unwrap();
    let scan = table
        .scan()
        .with_filter(filter)
        .unwrap()
        .with_snapshot(SnapshotSelector::Id(snapshot))
        .with_option("global-index.enabled", enabled.to_string())
        .build()
        .unwrap();
    let plan = scan.plan().await.unwrap();
    let rows = json_rows(&scan.reader(), plan.splits.clone())
        .await
        .unwrap();
    (plan, render(&rows))
}

fn narrowed(plan: &Plan) -> usize {
    plan.splits
        .iter()
        .filter(|s| s.as_data().row_ranges.is_some())
        .count()
}

async fn snapshots(path: &str) -> Vec<i64> {
    let table = Table::open(path).await.unwrap();
    let latest = table
        .snapshot_manager()
        .latest_snapshot()
        .await
        .unwrap()
        .unwrap()
        .id;
    (1..=latest).collect()
}

/// Every filter at every snapshot: same rows with and without the index; returns the number of
/// (snapshot, filter) pairs whose plan was narrowed, per snapshot.
async fn same_rows_everywhere(path: &str, filters: &[&str]) -> Vec<(i64, usize)> {
    let mut out = Vec::new();
    for s in snapshots(path).await {
        let mut n = 0;
        for f in filters {
            let (on_plan, on) = run(path, s, f, true).await;
            let (off_plan, off) = run(path, s, f, false).await;
            assert_eq!(on, off, "{path} snapshot {s} `{f}`");
            assert_eq!(narrowed(&off_plan), 0);
            assert_eq!(off_plan.metrics.global_index.skipped, "disabled");
            n += usize::from(narrowed(&on_plan) > 0);
        }
        out.push((s, n));
    }
    out
}

#[tokio::test]
async fn java_pk_btree_e2e_parquet_and_orc() {
    for fmt in ["parquet", "orc"] {
        let path = java_table(&format!("{fmt}/pk_btree_e2e"));
        let narrowed = same_rows_everywhere(&path, FILTERS).await;
        // Snapshots 2, 3 and 5 have valid payloads (C++ HistoricalSnapshotsMixedFilesAndDisabledIndex).
        for s in [2, 3, 5] {
            let n = narrowed.iter().find(|(id, _)| *id == s).unwrap().1;
            assert!(n > 0, "{fmt} snapshot {s} never narrowed: {narrowed:?}");
        }
    }
}

#[tokio::test]
async fn java_pk_btree_e2e_plans() {
    let path = java_table("parquet/pk_btree_e2e");
    // Snapshot 2: only indexed splits, 200 rows selected by `score = 0`.
    let (plan, rows) = run(&path, 2, "score = 0", true).await;
    let m = &plan.metrics.global_index;
    assert_eq!(m.skipped, "");
    assert!(m.payloads_accepted >= 1, "{m:?}");
    assert_eq!(m.payloads_opened, 1, "{m:?}");
    assert_eq!(m.rows_selected, 200, "{m:?}");
    assert_eq!(rows.len(), 200);
    for s in &plan.splits {
        let d = s.as_data();
        assert_eq!(d.files.len(), 1);
        let ranges = d.row_ranges.as_ref().unwrap()[0].as_ref().unwrap();
        assert!(ranges.iter().all(|r| r.end <= d.files[0].row_count as u64));
    }
    // Snapshot 3: the unindexed APPEND-source file is read whole.
    let (plan, _) = run(&path, 3, "score = 0", true).await;
    assert!(narrowed(&plan) > 0);
    assert!(plan.splits.iter().any(|s| s.as_data().row_ranges.is_none()));
    // Snapshot 4: the expected rows with the deletion vectors and the residual predicate.
    let (_, rows) = run(&path, 4, "score = 0 AND id <= 1500", true).await;
    assert_eq!(rows.len(), 148, "{rows:?}");
    assert!(!rows.iter().any(|r| r.starts_with("10, ")));
    // An OR with an unindexed column is not narrowed.
    let (plan, _) = run(&path, 2, "score = 0 OR tag = 'keep'", true).await;
    assert_eq!(narrowed(&plan), 0);
    assert_eq!(plan.metrics.global_index.skipped, "no indexed predicate");
    // An empty result drops every file.
    let (plan, rows) = run(&path, 2, "score = 42", true).await;
    assert!(rows.is_empty());
    assert!(plan.splits.is_empty(), "{:?}", plan.metrics.global_index);
}

#[tokio::test]
async fn java_pk_btree_source_meta_orc() {
    let path = java_table("orc/pk_btree_source_meta");
    let table = Table::open(&path).await.unwrap();
    let cols = column_names(&table);
    let score = cols.iter().find(|c| *c == "score").cloned();
    let Some(score) = score else {
        panic!("no score column in {cols:?}");
    };
    let filters: Vec<String> = ["= 1", "IN (1, 2)", "> 1", "IS NULL", "IS NOT NULL"]
        .iter()
        .map(|f| format!("{score} {f}"))
        .collect();
    let refs: Vec<&str> = filters.iter().map(String::as_str).collect();
    let narrowed = same_rows_everywhere(&path, &refs).await;
    assert!(narrowed.iter().any(|(_, n)| *n > 0), "{narrowed:?}");
}

#[tokio::test]
async fn corrupt_payload_falls_back() {
    let (_tmp, dir) = java_table_copy("parquet/pk_btree_e2e");
    let path = dir.to_str().unwrap().to_string();
    let (_, want) = run(&path, 2, "score = 0", false).await;
    // Corrupt every payload file: reads fall back and still answer correctly.
    for e in std::fs::read_dir(dir.join("index")).unwrap() {
        let p = e.unwrap().path();
        let mut bytes = std::fs::read(&p).unwrap();
        // Deletion-vector files start with version byte 1; payloads are everything else.
        if bytes.first() != Some(&1) {
            let n = bytes.len();
            for b in &mut bytes[n.saturating_sub(52)..] {
                *b ^= 0x5a;
            }
            std::fs::write(&p, bytes).unwrap();
        }
    }
    let (plan, got) = run(&path, 2, "score = 0", true).await;
    assert_eq!(got, want);
    assert_eq!(narrowed(&plan), 0, "{:?}", plan.metrics.global_index);
}

/// The pypaimon `pk_dv_btree` table: every payload of its `pk_btree_payloads` layout reads back
/// exactly; every query answers the same with and without the index; score queries narrow.
#[tokio::test]
async fn pypaimon_pk_dv_btree() {
    use paimon_core::index::btree::{BTreeIndexReader, Key, KeyType};
    let Some(root) = crate::pypaimon::pypaimon_fixtures() else {
        return;
    };
    let exp: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root.join("expected/pk_dv_btree.json")).unwrap())
            .unwrap();
    let dir = root.join(exp["path"].as_str().unwrap());
    let payloads = exp["layout"]["pk_btree_payloads"].as_array().unwrap();
    assert!(!payloads.is_empty());
    for p in payloads {
        let file = dir.join(p["index_file"].as_str().unwrap());
        let bytes = bytes::Bytes::from(std::fs::read(&file).unwrap());
        let r = BTreeIndexReader::from_bytes("payload", bytes, KeyType::Int).unwrap();
        let nulls: Vec<u64> = r.is_null().unwrap().iter().collect();
        let want_nulls: Vec<u64> = p["null_row_ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(nulls, want_nulls);
        let got: Vec<(i64, Vec<u64>)> = r
            .entries()
            .unwrap()
            .into_iter()
            .map(|e| match e.key {
                Key::Int(k) => (i64::from(k), e.row_ids),
                other => panic!("{other:?}"),
            })
            .collect();
        let want: Vec<(i64, Vec<u64>)> = serde_json::from_value(p["entries"].clone()).unwrap();
        assert_eq!(got, want);
        // Our builder writes the same bytes from the same rows.
        let sources = p["source_files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                paimon_core::index::source_meta::SourceFile::new(
                    s["file_name"].as_str().unwrap(),
                    s["row_count"].as_i64().unwrap(),
                )
            })
            .collect();
        let field: paimon_core::spec::types::DataField = serde_json::from_value(
            serde_json::json!({"id": p["field_id"], "name": "score", "type": "INT"}),
        )
        .unwrap();
        let options = paimon_core::spec::options::BTreeBuildOptions {
            block_size: 64 << 10,
            compression: "none".into(),
            compression_level: 1,
        };
        let input = paimon_core::index::pk_sorted::PkSortedBuildInput {
            field: &field,
            options: &options,
            level: p["level"].as_i64().unwrap() as i32,
            sources,
            partition: vec![0, 0, 0, 0],
            bucket: p["bucket"].as_i64().unwrap() as i32,
            file_name: "rebuilt".into(),
            external_path: None,
        };
        let values = want
            .iter()
            .flat_map(|(k, ids)| ids.iter().map(move |id| (Some(Key::Int(*k as i32)), *id)))
            .chain(want_nulls.iter().map(|id| (None, *id)));
        let built = paimon_core::index::pk_sorted::build(input, values).unwrap();
        assert_eq!(
            built.bytes,
            std::fs::read(&file).unwrap(),
            "{}",
            file.display()
        );
    }
    let table = Table::open(dir.to_str().unwrap()).await.unwrap();
    let mut narrowed_queries = 0;
    for q in exp["queries"].as_array().unwrap() {
        if q["predicate"].is_null() {
            continue;
        }
        let pred = crate::pypaimon::predicate(&q["predicate"]);
        let mut rows = Vec::new();
        for enabled in [true, false] {
            let scan = table
                .scan()
                .with_predicate(pred.clone())
                .with_option("global-index.enabled", enabled.to_string())
                .build()
                .unwrap();
            let plan = scan.plan().await.unwrap();
            if enabled && narrowed(&plan) > 0 {
                narrowed_queries += 1;
            }
            rows.push(render(
                &json_rows(&scan.reader(), plan.splits).await.unwrap(),
            ));
        }
        assert_eq!(rows[0], rows[1], "query {}", q["name"]);
        assert_eq!(
            rows[0].len() as u64,
            q["row_count"].as_u64().unwrap(),
            "query {}",
            q["name"]
        );
    }
    assert!(
        narrowed_queries >= 3,
        "only {narrowed_queries} queries narrowed"
    );
}

fn read_long(b: &[u8], pos: &mut usize) -> i64 {
    let (mut v, mut shift) = (0u64, 0);
    loop {
        let byte = b[*pos];
        *pos += 1;
        v |= u64::from(byte & 0x7f) << shift;
        shift += 7;
        if byte & 0x80 == 0 {
            return (v >> 1) as i64 ^ -((v & 1) as i64);
        }
    }
}

fn write_long(v: i64) -> Vec<u8> {
    let mut z = ((v << 1) ^ (v >> 63)) as u64;
    let mut out = Vec::new();
    while z >= 0x80 {
        out.push((z as u8) | 0x80);
        z >>= 7;
    }
    out.push(z as u8);
    out
}

/// Sets the version of every `_SOURCE_META` in a one-block zstd Avro index manifest to 9.
fn corrupt_source_meta(manifest: &std::path::Path) -> usize {
    let d = std::fs::read(manifest).unwrap();
    let sync = d[d.len() - 16..].to_vec();
    let start = d.windows(16).position(|w| w == sync.as_slice()).unwrap() + 16;
    let mut pos = start;
    let count = read_long(&d, &mut pos);
    let size = read_long(&d, &mut pos) as usize;
    let mut raw = zstd::decode_all(&d[pos..pos + size]).unwrap();
    let mut hits = 0;
    for i in 14..raw.len() {
        if raw[i..].starts_with(b"data-") && raw[i - 14..i - 10] == [0, 0, 0, 1] {
            raw[i - 11] = 9;
            hits += 1;
        }
    }
    let comp = zstd::encode_all(&raw[..], 3).unwrap();
    let mut out = d[..start].to_vec();
    out.extend(write_long(count));
    out.extend(write_long(comp.len() as i64));
    out.extend(comp);
    out.extend(&d[pos + size..]);
    std::fs::write(manifest, out).unwrap();
    hits
}

#[tokio::test]
async fn corrupt_source_meta_falls_back() {
    let (_tmp, dir) = java_table_copy("parquet/pk_btree_e2e");
    let path = dir.to_str().unwrap().to_string();
    let (_, want) = run(&path, 2, "score = 0", false).await;
    let snapshot: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("snapshot/snapshot-2")).unwrap()).unwrap();
    let name = snapshot["indexManifest"].as_str().unwrap();
    assert!(corrupt_source_meta(&dir.join("manifest").join(name)) > 0);
    let (plan, got) = run(&path, 2, "score = 0", true).await;
    assert_eq!(got, want);
    assert_eq!(narrowed(&plan), 0);
    let m = &plan.metrics.global_index;
    assert!(
        m.payloads_rejected.contains_key("corrupt _SOURCE_META"),
        "{m:?}"
    );
}
