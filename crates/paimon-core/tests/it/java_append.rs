//! Append tables written by Java Paimon: every row as the fixture README lists it.

use crate::common::{java_table, read_rows, rows, Query};

const APPEND_09_SNAPSHOT_1: [&str; 5] = [
    "Alice, 10, 1, 11.1",
    "Bob, 10, 0, 12.1",
    "Emily, 10, 0, 13.1",
    "Tony, 10, 0, 14.1",
    "Lucy, 20, 1, 14.1",
];

fn append_09_latest() -> Vec<String> {
    let mut all: Vec<&str> = APPEND_09_SNAPSHOT_1.to_vec();
    all.extend([
        "Emily, 10, 0, 15.1",
        "Bob, 10, 0, 12.1",
        "Alex, 10, 0, 16.1",
        "Paul, 20, 1, null",
        "David, 10, 0, 17.1",
        "Lily, 10, 0, 17.1",
    ]);
    rows(&all)
}

#[tokio::test]
async fn append_09_parquet_and_orc_at_every_snapshot() {
    for fmt in ["parquet", "orc"] {
        let t = java_table(&format!("{fmt}/append_09"));
        assert_eq!(
            read_rows(&t, Query::default()).await,
            append_09_latest(),
            "{fmt}"
        );
        let s1 = Query {
            snapshot: Some(1),
            ..Query::default()
        };
        assert_eq!(
            read_rows(&t, s1).await,
            rows(&APPEND_09_SNAPSHOT_1),
            "{fmt}"
        );
        let s3 = Query {
            snapshot: Some(3),
            ..Query::default()
        };
        assert_eq!(read_rows(&t, s3).await.len(), 10, "{fmt}");
    }
}

#[tokio::test]
async fn append_09_filters_and_projection() {
    let t = java_table("parquet/append_09");
    let q = Query {
        filter: Some("f1 = 20"),
        ..Query::default()
    };
    assert_eq!(
        read_rows(&t, q).await,
        rows(&["Lucy, 20, 1, 14.1", "Paul, 20, 1, null"])
    );
    let q = Query {
        filter: Some("f3 > 15 AND f0 LIKE 'A%'"),
        select: Some(vec!["f3", "f0"]),
        ..Query::default()
    };
    assert_eq!(read_rows(&t, q).await, rows(&["16.1, Alex"]));
    let q = Query {
        filter: Some("f3 IS NULL"),
        select: Some(vec!["f0"]),
        ..Query::default()
    };
    assert_eq!(read_rows(&t, q).await, rows(&["Paul"]));
}

#[tokio::test]
async fn append_10() {
    let t = java_table("parquet/append_10");
    assert_eq!(
        read_rows(&t, Query::default()).await,
        rows(&APPEND_09_SNAPSHOT_1)
    );
}

#[tokio::test]
async fn empty_and_null_partitions() {
    let t = java_table("parquet/append_with_empty_partition");
    assert_eq!(
        read_rows(&t, Query::default()).await,
        rows(&[
            "2025, 500, -1, 15.1",
            "2024, 100, -2, 11.1",
            "2024, 300, 1, 13.1",
            "null, 200, -3, 12.1",
            "null, 50, 1, 14.1",
            "null, 100, 2, 16.1",
        ])
    );
    let t = java_table("parquet/append_with_empty_partition_with_specific_name");
    let q = Query {
        filter: Some("f0 IS NULL"),
        select: Some(vec!["f1"]),
        ..Query::default()
    };
    assert_eq!(read_rows(&t, q).await, rows(&["200", "50", "100"]));
    let t = java_table("parquet/append_with_empty_partition_with_empty_value");
    assert_eq!(
        read_rows(&t, Query::default()).await,
        rows(&[
            ", 200, -3, 12.1",
            ", 50, 1, 14.1",
            "2025, 500, -1, 15.1",
            " , 100, 0, 15.1",
            "2024, 100, -2, 11.1",
            "2024, 300, 1, 13.1",
            "null, 100, 2, 16.1",
        ])
    );
}

#[tokio::test]
async fn schema_evolution_by_field_id() {
    let t = java_table("parquet/append_table_with_alter_table");
    assert_eq!(
        read_rows(&t, Query::default()).await,
        rows(&[
            "0, 1, 16, 13, null, 15, null",
            "0, 1, 26, 23, null, 25, null",
            "0, 1, 36, 33, null, 35, null",
            "0, 1, 66, 63, 517, 65, 618",
            "0, 1, 76, 73, 527, 75, 628",
            "0, 1, 86, 83, 537, 85, 638",
            "1, 1, 46, 43, null, 45, null",
            "1, 1, 56, 53, null, 55, null",
            "1, 1, 96, 93, 547, 95, 648",
            "1, 1, 106, 103, 557, 105, 658",
        ])
    );
    // A predicate on a renamed column (b -> c, field id 3) reads old and new files alike.
    let q = Query {
        filter: Some("c < 40"),
        select: Some(vec!["k"]),
        ..Query::default()
    };
    assert_eq!(read_rows(&t, q).await, rows(&["16", "26", "36"]));
    // A predicate on a column added later: old files hold nulls.
    let q = Query {
        filter: Some("e IS NULL"),
        select: Some(vec!["k"]),
        ..Query::default()
    };
    assert_eq!(read_rows(&t, q).await.len(), 5);
}

const TS_ROWS: [&str; 3] = [
    "1970-01-01T00:00:01, 1970-01-01T00:00:00.001, 1970-01-01T00:00:00.000001, 1970-01-01T00:00:00.000000001, 1970-01-01T00:00:02, 1970-01-01T00:00:00.002, 1970-01-01T00:00:00.000002, 1970-01-01T00:00:00.000000002",
    "1970-01-01T00:00:03, 1970-01-01T00:00:00.003, null, 1970-01-01T00:00:00.000000003, 1970-01-01T00:00:04, 1970-01-01T00:00:00.004, 1970-01-01T00:00:00.000004, 1970-01-01T00:00:00.000000004",
    "1970-01-01T00:00:05, 1970-01-01T00:00:00.005, null, null, 1970-01-01T00:00:06, null, 1970-01-01T00:00:00.000006, null",
];

#[tokio::test]
async fn timestamps_of_every_precision_parquet() {
    let t = java_table("parquet/append_with_multiple_ts_precision_and_timezone");
    assert_eq!(read_rows(&t, Query::default()).await, rows(&TS_ROWS));
}

#[tokio::test]
async fn timestamps_of_every_precision_avro() {
    let t = java_table("avro/append_with_multiple_ts_precision_and_timezone");
    assert_eq!(
        read_rows(&t, Query::default()).await,
        rows(&[
            "1970-01-01T00:00:01, 1970-01-01T00:00:00.001, 1970-01-01T00:00:00.000001, 1970-01-01T00:00:02, 1970-01-01T00:00:00.002, 1970-01-01T00:00:00.000002",
            "null, 1970-01-01T00:00:00.003, null, null, 1970-01-01T00:00:00.004, null",
            "1970-01-01T00:00:05, null, 1970-01-01T00:00:00.000005, 1970-01-01T00:00:06, null, 1970-01-01T00:00:00.000006",
        ])
    );
}

#[tokio::test]
async fn mixed_file_formats_in_one_table() {
    let t = java_table("append_table_with_multiple_file_format");
    let mut all = APPEND_09_SNAPSHOT_1.to_vec();
    all.extend(["Skye, 20, 1, 19.1", "Bob, 10, 0, 20.1"]);
    assert_eq!(read_rows(&t, Query::default()).await, rows(&all));
}

#[tokio::test]
async fn complex_data_types() {
    let t = java_table("parquet/append_complex_data");
    let got = read_rows(
        &t,
        Query {
            select: Some(vec!["f1", "f2", "f3", "f5"]),
            ..Query::default()
        },
    )
    .await;
    assert_eq!(
        got,
        rows(&[
            "10, 1, 1973-05-19, 123456789987654321.45678",
            "20, 1, 1966-08-16, -123456789987654321.45678",
            "10, 1, 2024-07-05, 12.30000",
            "10, 1, 1970-01-01, null",
            "10, 1, 1970-04-11, -123.45000",
            "10, 1, null, 0.00000",
            "20, 0, 1969-09-23, 0.00000",
            "10, 1, 2024-10-10, 1728551410100.10010",
        ])
    );
}

#[tokio::test]
async fn nested_types_render_as_json() {
    let t = java_table("parquet/parquet_append_table");
    let got = read_rows(
        &t,
        Query {
            filter: Some("f4 IN (300001, 300004, 300006)"),
            select: Some(vec!["f4", "f10", "f13"]),
            ..Query::default()
        },
    )
    .await;
    assert_eq!(
        got,
        rows(&[
            r#"300001, [[[5.11,5.21],{"f0":true,"f1":61}]], 0.91"#,
            r#"300004, [[[5.141,5.241],{"f0":false,"f1":641}],[[5.14,5.24],{"f0":false,"f1":64}]], 0.94"#,
            r#"300006, [[[5.16,5.26],null]], 0.96"#,
        ])
    );
}
