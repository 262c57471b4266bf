//! TIMESTAMP(7-9) and TIMESTAMP_LTZ(7-9) columns written as Parquet INT96, as Java Paimon
//! writes them (`ParquetSchemaConverter`): the data files' footers, our reader and (through
//! `scripts/check-written.py`) pypaimon / pyarrow see the same nanosecond instants.

use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::TimestampNanosecondType;
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, TimeUnit};
use futures::TryStreamExt;
use paimon_core::Table;
use parquet::basic::Type as PhysicalType;
use parquet::file::reader::{FileReader, SerializedFileReader};
use serde_json::{json, Value};

use crate::write::{batch, create_table, read_sorted, render_sorted, save_expected, write_commit};

/// Every Parquet data file under the table's bucket directories.
pub fn data_files(table: &Table) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for bucket in std::fs::read_dir(table.location()).unwrap() {
        let bucket = bucket.unwrap().path();
        if !bucket
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("bucket-")
        {
            continue;
        }
        for f in std::fs::read_dir(&bucket).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "parquet") {
                out.push(f);
            }
        }
    }
    out
}

/// (column, physical type) of every leaf of `file`; INT96 chunks carry a null count and no
/// min/max unless min = max (parquet-mr's rule for INT96, whose order is undefined), and no
/// column index.
fn physical_types(file: &Path) -> Vec<(String, PhysicalType)> {
    let reader = SerializedFileReader::new(std::fs::File::open(file).unwrap()).unwrap();
    let meta = reader.metadata();
    for rg in meta.row_groups() {
        for c in rg.columns() {
            let int96 = c.column_type() == PhysicalType::INT96;
            let parquet_mr = |s: &parquet::file::statistics::Statistics| {
                s.null_count_opt().is_some() && s.min_bytes_opt() == s.max_bytes_opt()
            };
            let ok = c.statistics().is_some_and(parquet_mr) && c.column_index_offset().is_none();
            assert!(!int96 || ok, "{}", c.column_path());
        }
    }
    let descr = meta.file_metadata().schema_descr_ptr();
    descr
        .columns()
        .iter()
        .map(|c| (c.path().string(), c.physical_type()))
        .collect()
}

fn rows() -> Vec<Value> {
    vec![
        json!({"id": 1, "ts9": "1970-01-01T00:00:00.000000001", "ltz7": "1970-01-01T00:00:00.0000001Z",
               "ts6": "2024-01-01T10:00:01.123456", "s": "a"}),
        json!({"id": 2, "ts9": null, "ltz7": null, "ts6": null, "s": null}),
        json!({"id": 3, "ts9": "1969-12-31T23:59:59.999999999", "ltz7": "1969-12-30T12:00:00.5000001Z",
               "ts6": "1969-12-31T23:59:59.999999", "s": "b"}),
        json!({"id": 4, "ts9": "2262-04-11T23:47:16.854775807", "ltz7": "2024-02-29T23:59:59.9999999Z",
               "ts6": "2024-02-29T00:00:00", "s": "c"}),
        json!({"id": 5, "ts9": "1900-01-01T00:00:00.123456789", "ltz7": null, "ts6": null, "s": "d"}),
    ]
}

const FIELDS: [(&str, &str); 5] = [
    ("id", "INT NOT NULL"),
    ("ts9", "TIMESTAMP(9)"),
    ("ltz7", "TIMESTAMP(7) WITH LOCAL TIME ZONE"),
    ("ts6", "TIMESTAMP(6)"),
    ("s", "STRING"),
];

/// The nanosecond values of column `name` in `batches`, in row order.
fn nanos(batches: &[RecordBatch], name: &str) -> Vec<Option<i64>> {
    batches
        .iter()
        .flat_map(|b| {
            let a = b
                .column_by_name(name)
                .unwrap()
                .as_primitive::<TimestampNanosecondType>();
            (0..a.len())
                .map(|i| a.is_valid(i).then(|| a.value(i)))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Writes `table`, checks every data file's footer (INT96 for the precision 7-9 columns only)
/// and the instants our reader returns, and leaves the expectation for pypaimon.
async fn check(table: &Table, sort_by_id: bool) {
    let written = batch(table, &rows());
    let files = write_commit(table, std::slice::from_ref(&written)).await;
    for f in &files {
        let cols = f.value_stats_cols.clone().unwrap_or_default();
        assert!(!cols.iter().any(|c| c == "ts9" || c == "ltz7"), "{cols:?}");
    }
    let paths = data_files(table);
    assert!(!paths.is_empty());
    for p in &paths {
        let types = physical_types(p);
        let of = |name: &str| types.iter().find(|(c, _)| c == name).unwrap().1;
        assert_eq!(of("ts9"), PhysicalType::INT96, "{}", p.display());
        assert_eq!(of("ltz7"), PhysicalType::INT96, "{}", p.display());
        assert_eq!(of("ts6"), PhysicalType::INT64, "{}", p.display());
        assert_eq!(of("id"), PhysicalType::INT32, "{}", p.display());
    }
    let got = read_sorted(Path::new(table.location())).await;
    assert_eq!(got, render_sorted(table, std::slice::from_ref(&written)));
    let mut read: Vec<RecordBatch> = table
        .scan()
        .build()
        .unwrap()
        .to_arrow()
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    if sort_by_id {
        let all = arrow::compute::concat_batches(&read[0].schema(), &read).unwrap();
        let idx = arrow::compute::sort_to_indices(all.column(0), None, None).unwrap();
        read = vec![arrow::compute::take_record_batch(&all, &idx).unwrap()];
    }
    // ts6 is microseconds in Arrow: compared after a cast to nanoseconds.
    let ns = DataType::Timestamp(TimeUnit::Nanosecond, None);
    let as_ns = |b: &RecordBatch, col: &str| {
        let a = arrow::compute::cast(b.column_by_name(col).unwrap(), &ns).unwrap();
        RecordBatch::try_from_iter([(col, a)]).unwrap()
    };
    for col in ["ts9", "ltz7", "ts6"] {
        let want = nanos(&[as_ns(&written, col)], col);
        let got: Vec<RecordBatch> = read.iter().map(|b| as_ns(b, col)).collect();
        assert_eq!(nanos(&got, col), want, "{col}");
    }
    save_expected(table, &[written]);
}

#[tokio::test]
async fn append_table_writes_int96_timestamps() {
    let t = create_table("append_int96", &FIELDS, &[], &[], &[]).await;
    check(&t, false).await;
}

#[tokio::test]
async fn pk_table_writes_int96_timestamps() {
    let t = create_table("pk_int96", &FIELDS, &[], &["id"], &[("bucket", "2")]).await;
    check(&t, true).await;
}
