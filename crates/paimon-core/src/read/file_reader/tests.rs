//! Fixture tests of [`read_data_file`] against Java-written tables.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use futures::TryStreamExt;

use super::*;
use crate::arrow::arrow_schema;
use crate::spec::schema::TableSchema;
use crate::test_util::java_fixtures;
use crate::ErrorKind;

fn table_dir(rel: &str) -> PathBuf {
    let name = rel.rsplit('/').next().unwrap();
    java_fixtures()
        .canonicalize()
        .unwrap()
        .join(format!("{rel}.db/{name}"))
}

fn schemas(table: &Path) -> Vec<TableSchema> {
    let mut out: Vec<TableSchema> = std::fs::read_dir(table.join("schema"))
        .unwrap()
        .map(|e| TableSchema::from_json_bytes(&std::fs::read(e.unwrap().path()).unwrap()).unwrap())
        .collect();
    out.sort_by_key(|s| s.id);
    out
}

fn data_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        if p.is_dir() && !["manifest", "snapshot", "schema", "index"].contains(&name.as_str()) {
            data_files(&p, out);
        } else if name.starts_with("data-") {
            out.push(p);
        }
    }
    out.sort();
}

/// The latest schema whose field names are the file's physical columns (parquet), else the
/// latest schema.
fn schema_of_file(table: &Path, file: &Path) -> TableSchema {
    let all = schemas(table);
    if file.extension().unwrap() == "parquet" {
        use parquet::file::reader::FileReader;
        let r =
            parquet::file::reader::SerializedFileReader::new(std::fs::File::open(file).unwrap())
                .unwrap();
        let names: Vec<String> = r
            .metadata()
            .file_metadata()
            .schema_descr()
            .root_schema()
            .get_fields()
            .iter()
            .map(|f| f.name().to_string())
            .collect();
        if let Some(s) = all
            .iter()
            .rev()
            .find(|s| s.fields.iter().map(|f| &f.name).eq(names.iter()))
        {
            return s.clone();
        }
    }
    all.last().unwrap().clone()
}

fn request(file: &Path, file_fields: Vec<DataField>, read_fields: Vec<DataField>) -> DataFileRead {
    DataFileRead::new(file.to_str().unwrap(), file_fields, read_fields).unwrap()
}

async fn collect(read: DataFileRead) -> Result<Vec<RecordBatch>> {
    let io = FileIO::default();
    read_data_file(&io, read).await?.try_collect().await
}

fn render(batches: &[RecordBatch]) -> Vec<String> {
    let opts = FormatOptions::default()
        .with_null("null")
        .with_timestamp_tz_format(Some("%Y-%m-%dT%H:%M:%S%.f"));
    let mut rows = vec![];
    for b in batches {
        let fmts: Vec<_> = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &opts).unwrap())
            .collect();
        for i in 0..b.num_rows() {
            rows.push(
                fmts.iter()
                    .map(|f| f.value(i).to_string())
                    .collect::<Vec<_>>()
                    .join(","),
            );
        }
    }
    rows
}

/// Reads every data file of a table with its own schema; returns all rendered rows.
async fn read_table(rel: &str) -> Vec<String> {
    let dir = table_dir(rel);
    let mut files = vec![];
    data_files(&dir, &mut files);
    assert!(!files.is_empty(), "{rel}");
    let mut rows = vec![];
    for f in files {
        let s = schema_of_file(&dir, &f);
        let batches = collect(request(&f, s.fields.clone(), s.fields.clone()))
            .await
            .unwrap();
        let want = arrow_schema(&s.fields).unwrap();
        for b in &batches {
            assert_eq!(b.schema(), want, "{}", f.display());
        }
        let r = render(&batches);
        assert!(!r.is_empty(), "{}", f.display());
        rows.extend(r);
    }
    rows
}

#[tokio::test]
async fn every_append_fixture_file_reads() {
    for t in [
        "parquet/append_09",
        "parquet/append_10",
        "parquet/append_with_empty_partition",
        "parquet/append_with_empty_partition_with_empty_value",
        "parquet/append_with_empty_partition_with_specific_name",
        "parquet/append_complex_build_in_fieldid",
        "parquet/append_with_cast_timestamp",
        "parquet/parquet_append_table",
        "orc/append_09",
        "avro/append_with_multiple_ts_precision_and_timezone",
        "append_table_with_multiple_file_format",
    ] {
        read_table(t).await;
    }
}

fn set(rows: &[&str]) -> BTreeSet<String> {
    rows.iter().map(|s| s.to_string()).collect()
}

#[tokio::test]
async fn append_09_parquet_and_orc_values() {
    let want = set(&[
        "Alice,10,1,11.1",
        "Bob,10,0,12.1",
        "Emily,10,0,13.1",
        "Tony,10,0,14.1",
        "Lucy,20,1,14.1",
        "Emily,10,0,15.1",
        "Alex,10,0,16.1",
        "Paul,20,1,null",
        "David,10,0,17.1",
        "Lily,10,0,17.1",
    ]);
    for t in ["parquet/append_09", "orc/append_09"] {
        let got: BTreeSet<String> = read_table(t).await.into_iter().collect();
        assert_eq!(got, want, "{t}");
    }
}

#[tokio::test]
async fn multiple_file_format_table() {
    let rows = read_table("append_table_with_multiple_file_format").await;
    let got: BTreeSet<String> = rows.iter().cloned().collect();
    assert_eq!(rows.len(), 7);
    assert_eq!(
        got,
        set(&[
            "Alice,10,1,11.1",
            "Bob,10,0,12.1",
            "Emily,10,0,13.1",
            "Tony,10,0,14.1",
            "Lucy,20,1,14.1",
            "Skye,20,1,19.1",
            "Bob,10,0,20.1",
        ])
    );
}

#[tokio::test]
async fn timestamps_of_every_precision() {
    let parquet = read_table("parquet/append_with_multiple_ts_precision_and_timezone").await;
    assert_eq!(
        parquet,
        vec![
            "1970-01-01T00:00:01,1970-01-01T00:00:00.001,1970-01-01T00:00:00.000001,1970-01-01T00:00:00.000000001,1970-01-01T00:00:02,1970-01-01T00:00:00.002,1970-01-01T00:00:00.000002,1970-01-01T00:00:00.000000002",
            "1970-01-01T00:00:03,1970-01-01T00:00:00.003,null,1970-01-01T00:00:00.000000003,1970-01-01T00:00:04,1970-01-01T00:00:00.004,1970-01-01T00:00:00.000004,1970-01-01T00:00:00.000000004",
            "1970-01-01T00:00:05,1970-01-01T00:00:00.005,null,null,1970-01-01T00:00:06,null,1970-01-01T00:00:00.000006,null",
        ]
    );
    let avro = read_table("avro/append_with_multiple_ts_precision_and_timezone").await;
    assert_eq!(
        avro,
        vec![
            "1970-01-01T00:00:01,1970-01-01T00:00:00.001,1970-01-01T00:00:00.000001,1970-01-01T00:00:02,1970-01-01T00:00:00.002,1970-01-01T00:00:00.000002",
            "null,1970-01-01T00:00:00.003,null,null,1970-01-01T00:00:00.004,null",
            "1970-01-01T00:00:05,null,1970-01-01T00:00:00.000005,1970-01-01T00:00:06,null,1970-01-01T00:00:00.000006",
        ]
    );
}
