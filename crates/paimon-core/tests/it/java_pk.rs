//! Primary-key tables written by Java Paimon: merge-on-read, deletion vectors, merge engines,
//! schema evolution and time travel, with exactly the rows their READMEs give.

use crate::common::{java_table, metadata_reader, open_java, plan, read_rows, rows, Query};
use paimon_core::catalog::Table;

const TWO_ROADS: &str = "Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference.";

fn at(snapshot: i64) -> Query<'static> {
    Query {
        snapshot: Some(snapshot),
        ..Query::default()
    }
}

/// The nine rows of the first commit of the `pk_*` f0..f3 tables.
fn first_commit() -> Vec<String> {
    let two = format!("{TWO_ROADS}, 10, 1, 11.0");
    let mut v = vec![
        "Alice, 10, 1, 11.1",
        "Bob, 10, 0, 12.1",
        "Emily, 10, 0, 13.1",
        "Tony, 10, 0, 14.1",
        "Alex, 10, 0, 16.1",
        "David, 10, 0, 17.1",
        "Lucy, 20, 1, 14.1",
        "Paul, 20, 1, 18.1",
    ];
    v.push(&two);
    rows(&v)
}

/// After `DELETE Tony` and `UPDATE_AFTER Alice 19.1`.
fn second_commit() -> Vec<String> {
    let mut v: Vec<String> = first_commit()
        .into_iter()
        .filter(|r| !r.starts_with("Tony") && !r.starts_with("Alice"))
        .collect();
    v.push("Alice, 10, 1, 19.1".into());
    v.sort();
    v
}

#[tokio::test]
async fn merge_on_read_without_dv_every_snapshot() {
    let t = java_table("parquet/pk_table_scan_and_read_mor");
    assert_eq!(read_rows(&t, at(1)).await, first_commit());
    assert_eq!(read_rows(&t, at(2)).await, second_commit());
    assert_eq!(read_rows(&t, at(3)).await, second_commit());
    let mut s4 = second_commit();
    s4.retain(|r| !r.starts_with("Alex"));
    s4.extend([
        "Alex, 10, 0, 21.2".to_string(),
        "Skye, 10, 0, 21.0".into(),
        "Marco, 10, 0, 21.1".into(),
    ]);
    s4.sort();
    assert_eq!(read_rows(&t, at(4)).await, s4);
    let mut s5 = s4.clone();
    s5.retain(|r| !r.starts_with("Alex"));
    s5.extend([
        "Skye2, 10, 0, 31.0".to_string(),
        "Marco2, 10, 0, 31.1".into(),
    ]);
    s5.sort();
    assert_eq!(read_rows(&t, Query::default()).await, s5);
    // A predicate on a value column is applied after the merge: the stale Alex (16.1, level
    // 5) must not come back for f3 < 20 (paimon-rust PR #463).
    let q = Query {
        filter: Some("f3 < 17"),
        snapshot: Some(4),
        ..Query::default()
    };
    assert!(!read_rows(&t, q).await.iter().any(|r| r.starts_with("Alex")));
}

/// Deletion vectors without merge-on-read: level-0 files are invisible until compacted.
#[tokio::test]
async fn deletion_vectors_parquet_and_orc() {
    for fmt in ["parquet", "orc"] {
        let t = java_table(&format!("{fmt}/pk_table_scan_and_read_dv"));
        assert!(read_rows(&t, at(1)).await.is_empty(), "{fmt}");
        assert_eq!(read_rows(&t, at(2)).await, first_commit(), "{fmt}");
        assert_eq!(read_rows(&t, at(3)).await, first_commit(), "{fmt}");
        for s in 4..=6 {
            assert_eq!(read_rows(&t, at(s)).await, second_commit(), "{fmt} @{s}");
        }
    }
    for t in [
        "parquet/pk_dv_index_not_in_data_no_external",
        "parquet/pk_dv_index_in_data_no_external",
        "orc/pk_dv_index_with_commit_message_version10",
    ] {
        let t = java_table(t);
        assert_eq!(read_rows(&t, at(2)).await, first_commit());
        assert_eq!(read_rows(&t, Query::default()).await, second_commit());
    }
}

#[tokio::test]
async fn deletion_vector_cardinality_and_orc_09() {
    let t = java_table("parquet/pk_table_with_dv_cardinality");
    let got = read_rows(&t, Query::default()).await;
    let two = format!("{TWO_ROADS}, 10, 1, 11.0");
    let want = rows(&[
        "Alex, 10, 0, 16.1",
        "Alice, 10, 1, 19.1",
        "Bob, 10, 0, 12.1",
        "David, 10, 0, 17.1",
        "Emily, 10, 0, 13.1",
        &two,
        "Whether I shall turn out to be the hero of my own life., 10, 0, 19.1",
    ]);
    assert_eq!(got, want);
    let t = java_table("orc/pk_09_with_dv");
    let two = format!("{TWO_ROADS}, 10, 0, 14.1");
    let want = rows(&[
        "Bob, 10, 0, 113.1",
        &two,
        "Whether I shall turn out to be the hero of my own life., 10, 0, 11.0",
    ]);
    assert_eq!(read_rows(&t, Query::default()).await, want);
}

/// paimon-rust PR #249: first-row must skip level-0 files in batch reads (their rows are not
/// yet first-row-deduplicated against older levels).
#[tokio::test]
async fn first_row_with_level0_files() {
    for fmt in ["parquet", "orc"] {
        let t = java_table(&format!("{fmt}/pk_table_scan_and_read_first_row"));
        assert!(read_rows(&t, at(1)).await.is_empty(), "{fmt}");
        assert!(read_rows(&t, at(2)).await.is_empty(), "{fmt}");
        for s in 3..=5 {
            assert_eq!(read_rows(&t, at(s)).await, first_commit(), "{fmt} @{s}");
        }
        let table = Table::open(&t).await.unwrap();
        let p = plan(&table, &Query::default()).await;
        assert!(p
            .splits
            .iter()
            .all(|s| s.as_data().files.iter().all(|f| f.level > 0)));
    }
}

#[tokio::test]
async fn partial_update_engine() {
    let t = java_table("parquet/pk_table_partial_update");
    assert_eq!(
        read_rows(&t, at(1)).await,
        rows(&[
            "0, 1, null, false, apple",
            "1, 0, 2.0, false, null",
            "1, 1, null, true, banana"
        ])
    );
    assert_eq!(
        read_rows(&t, Query::default()).await,
        rows(&[
            "0, 1, 100.0, true, new_apple",
            "1, 0, 2.0, false, null",
            "1, 1, 133.3, false, banana",
            "2, 1, 144.4, true, orange",
        ])
    );
}

/// Renamed, retyped, swapped and added columns across files merged together; a predicate on a
/// renamed key column (paimon-rust PR #642 class of bugs).
#[tokio::test]
async fn schema_evolution_inside_one_merge() {
    let t = java_table("parquet/pk_table_with_mor");
    // s0 is binary now (rendered base64): c2Vl = "see", eW91 = "you", ...
    let latest = rows(&[
        "0, 0, 0, 0, apple, c2Vl, 110, false, null",
        "0, 1, 0, 0, banana, eW91, 11, false, null",
        "1, 0, 0, 0, car, bGF0ZXI=, 12, true, null",
        "1, 1, 0, 0, driver, IQ==, 13, false, null",
        "1, 2, 0, 0, driver, IQ==, 13, false, null",
        "100, 200, 0, 0, max, bnVtYmVy, 140, false, null",
        "0, 1, 0, 1, zoo, eW91, 130, false, null",
        "0, 0, 1, 0, elephant, aGk=, 120, false, null",
    ]);
    assert_eq!(read_rows(&t, Query::default()).await, latest);
    let table = Table::open(&t).await.unwrap();
    let first = table.schema().fields[0].name.clone();
    let filter = format!("{first} = 100");
    let q = Query {
        filter: Some(&filter),
        ..Query::default()
    };
    assert_eq!(
        read_rows(&t, q).await,
        rows(&["100, 200, 0, 0, max, bnVtYmVy, 140, false, null"])
    );
    assert_eq!(read_rows(&t, at(1)).await.len(), 6);
    assert_eq!(read_rows(&t, at(2)).await.len(), 7);
}

#[tokio::test]
async fn nested_types_and_bitmap_index_table() {
    let t = java_table("parquet/pk_table_nested_type");
    let got = read_rows(&t, Query::default()).await;
    let keys: Vec<&str> = got.iter().map(|r| &r[..4]).collect();
    // 1000 and 1002 deleted, 1003 retracted by UPDATE_BEFORE
    assert_eq!(keys, vec!["1001", "1004", "1005", "1006", "1007"]);
    assert_eq!(read_rows(&t, at(1)).await.len(), 8);
    let t = java_table("parquet/pk_with_bitmap_dv");
    assert_eq!(
        read_rows(&t, Query::default()).await,
        rows(&[
            "1, Bob, 10, 1, 12.1",
            "2, Emily, 10, 0, 13.1",
            "3, Tony, 10, 0, 14.1",
            "5, Bob, 10, 1, 16.1",
            "6, Tony, 20, 0, 17.1",
            "7, Alice, 20, null, 18.1",
        ])
    );
}

#[tokio::test]
async fn metadata_columns_show_the_winning_version() {
    use futures::TryStreamExt;
    use paimon_core::render::batch_to_json_rows;
    let t = java_table("parquet/pk_table_scan_and_read_mor");
    let table = Table::open(&t).await.unwrap();
    let p = plan(&table, &Query::default()).await;
    let read = metadata_reader(&table);
    let fields = read.output_fields().to_vec();
    assert_eq!(fields.len(), 8);
    let batches: Vec<_> = read.read(p.splits).unwrap().try_collect().await.unwrap();
    let mut seen = 0;
    for b in &batches {
        for r in batch_to_json_rows(b, &fields).unwrap() {
            assert!(r["_SEQUENCE_NUMBER"].as_i64().unwrap() >= 0);
            let kind = r["_VALUE_KIND"].as_i64().unwrap();
            assert!(kind == 0 || kind == 2, "retracts are never emitted");
            seen += 1;
        }
    }
    assert_eq!(seen, 11);
    // Append tables have the file-path and row-index columns only.
    let append = open_java("parquet/append_09").await;
    let read = metadata_reader(&append);
    let names: Vec<&str> = read
        .output_fields()
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(
        names[names.len() - 2..],
        ["__paimon_file_path", "__paimon_row_index"]
    );
    assert!(!names.contains(&"_SEQUENCE_NUMBER"));
}
