//! Fixture tests of [`read_data_file`] against Java-written tables.
#![allow(clippy::single_range_in_vec_init)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::RecordBatch;
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use futures::TryStreamExt;

use super::*;
use crate::arrow::arrow_schema;
use crate::spec::schema::TableSchema;
use crate::spec::types::{DataType, TypeKind};
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

/// The earliest schema whose field names are the file's physical columns (parquet), else the
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

/// Reads every data file of a table with its own schema (strings as views with `views`);
/// returns all rendered rows.
async fn read_table(rel: &str, views: bool) -> Vec<String> {
    let dir = table_dir(rel);
    let mut files = vec![];
    data_files(&dir, &mut files);
    assert!(!files.is_empty(), "{rel}");
    let mut rows = vec![];
    for f in files {
        let s = schema_of_file(&dir, &f);
        let mut read = request(&f, s.fields.clone(), s.fields.clone());
        read.string_views = views;
        let batches = collect(read).await.unwrap();
        let mut want = arrow_schema(&s.fields).unwrap();
        if views {
            want = crate::arrow::view_schema(&want);
        }
        for b in &batches {
            assert_eq!(b.schema(), want, "{}", f.display());
        }
        let r = render(&batches);
        assert!(!r.is_empty(), "{}", f.display());
        rows.extend(r);
    }
    rows
}

/// The append tables whose every data file is read with its own schema.
const APPEND_FIXTURES: [&str; 11] = [
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
];

#[tokio::test]
async fn every_append_fixture_file_reads() {
    for t in APPEND_FIXTURES {
        read_table(t, false).await;
    }
}

/// Strings and binaries as views: every batch in the view schema, the same values, in Parquet
/// (decoded as views), ORC and Avro (converted).
#[tokio::test]
async fn string_views_read_the_same_values_in_every_format() {
    let mut viewed = 0;
    for t in APPEND_FIXTURES {
        let schema = arrow_schema(&schemas(&table_dir(t)).pop().unwrap().fields).unwrap();
        viewed += usize::from(crate::arrow::view_schema(&schema) != schema);
        assert_eq!(read_table(t, true).await, read_table(t, false).await, "{t}");
    }
    assert!(viewed >= 5, "only {viewed} tables have a string column");
}

/// Strings as views through schema evolution: an added column (all null), a column retyped
/// int → string (cast, then a view) and an unchanged string column.
#[tokio::test]
async fn string_views_through_schema_evolution() {
    let (f, s0) = alter_file_of_schema(0);
    let f = &f;
    let latest = schemas(&table_dir("parquet/append_table_with_alter_table"))
        .pop()
        .unwrap();
    let mut fields = latest.fields.clone();
    for f in fields.iter_mut() {
        f.data_type = DataType::nullable(TypeKind::VarChar(20));
    }
    fields.push(DataField::new(
        9_999,
        "added",
        DataType::nullable(TypeKind::VarChar(5)),
    ));
    let plain = collect(request(f, s0.fields.clone(), fields.clone()))
        .await
        .unwrap();
    let mut read = request(f, s0.fields.clone(), fields.clone());
    read.string_views = true;
    let views = collect(read).await.unwrap();
    let want = crate::arrow::view_schema(&arrow_schema(&fields).unwrap());
    assert!(want
        .fields()
        .iter()
        .all(|f| f.data_type() == &arrow_schema::DataType::Utf8View));
    for b in &views {
        assert_eq!(b.schema(), want);
    }
    assert_eq!(render(&views), render(&plain));
    assert!(render(&views)[0].ends_with(",null"), "{:?}", render(&views));
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
        let got: BTreeSet<String> = read_table(t, false).await.into_iter().collect();
        assert_eq!(got, want, "{t}");
    }
}

#[tokio::test]
async fn multiple_file_format_table() {
    let rows = read_table("append_table_with_multiple_file_format", false).await;
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
    let parquet = read_table(
        "parquet/append_with_multiple_ts_precision_and_timezone",
        false,
    )
    .await;
    assert_eq!(
        parquet,
        vec![
            "1970-01-01T00:00:01,1970-01-01T00:00:00.001,1970-01-01T00:00:00.000001,1970-01-01T00:00:00.000000001,1970-01-01T00:00:02,1970-01-01T00:00:00.002,1970-01-01T00:00:00.000002,1970-01-01T00:00:00.000000002",
            "1970-01-01T00:00:03,1970-01-01T00:00:00.003,null,1970-01-01T00:00:00.000000003,1970-01-01T00:00:04,1970-01-01T00:00:00.004,1970-01-01T00:00:00.000004,1970-01-01T00:00:00.000000004",
            "1970-01-01T00:00:05,1970-01-01T00:00:00.005,null,null,1970-01-01T00:00:06,null,1970-01-01T00:00:00.000006,null",
        ]
    );
    let avro = read_table("avro/append_with_multiple_ts_precision_and_timezone", false).await;
    assert_eq!(
        avro,
        vec![
            "1970-01-01T00:00:01,1970-01-01T00:00:00.001,1970-01-01T00:00:00.000001,1970-01-01T00:00:02,1970-01-01T00:00:00.002,1970-01-01T00:00:00.000002",
            "null,1970-01-01T00:00:00.003,null,null,1970-01-01T00:00:00.004,null",
            "1970-01-01T00:00:05,null,1970-01-01T00:00:00.000005,1970-01-01T00:00:06,null,1970-01-01T00:00:00.000006",
        ]
    );
}

#[tokio::test]
async fn nested_and_complex_types() {
    let rows = read_table("parquet/parquet_append_table", false).await;
    assert_eq!(rows.len(), 9);
    assert_eq!(
        rows[3],
        "false,34,304,300004,3000000004,3.4,300.000000004,s34,613334,\
         {[5.141, 5.241]: {f0: false, f1: 641}, [5.14, 5.24]: {f0: false, f1: 64}},\
         1970-01-01T00:00:00.000074,1970-03-26,0.94"
    );
    assert!(rows[2].contains(",s33,613333,null,"));
    assert!(rows[5].contains("{[5.16, 5.26]: null}"));
    let rows = read_table("parquet/append_complex_build_in_fieldid", false).await;
    assert!(
        rows.contains(
            &"{127: 32767, -128: -32768},[1.1, 1.2],{f0: false, f1: 2222},\
        1970-01-01T00:02:03.123123,1970-09-03,0.12"
                .to_string()
        ),
        "{rows:?}"
    );
    let got: BTreeSet<String> = read_table("parquet/append_complex_data", false)
        .await
        .into_iter()
        .collect();
    let want = set(&[
        "10,1,1973-05-19,2033-05-18T03:33:20,123456789987654321.45678,616464",
        "20,1,1966-08-16,1899-01-01T00:59:20.001001001,-123456789987654321.45678,626164",
        "10,1,2024-07-05,2033-05-18T03:33:20.000001001,12.30000,636174",
        "10,1,1970-01-01,2008-12-28T00:00:00.000123456,null,646164",
        "10,1,1970-04-11,2008-12-28T00:00:00.000123450,-123.45000,656174",
        "10,1,null,1899-01-01T00:59:20.001001001,0.00000,666174",
        "20,0,1969-09-23,null,0.00000,676574",
        "10,1,2024-10-10,2024-10-10T10:10:10.100100100,1728551410100.10010,null",
    ]);
    assert_eq!(got, want);
}

#[tokio::test]
async fn nested_arrow_types_are_the_project_mapping() {
    let dir = table_dir("parquet/parquet_append_table");
    let mut files = vec![];
    data_files(&dir, &mut files);
    let s = schema_of_file(&dir, &files[0]);
    let b = collect(request(&files[0], s.fields.clone(), s.fields.clone()))
        .await
        .unwrap();
    let m = b[0].column(9).as_map();
    assert_eq!(m.entries().fields()[0].name(), "key");
    let k = m.keys().as_list::<i32>();
    assert_eq!(k.values().as_primitive::<Float32Type>().value(0), 5.11);
    assert_eq!(
        b[0].column(10).data_type(),
        &arrow_schema::DataType::Timestamp(arrow_schema::TimeUnit::Nanosecond, None)
    );
    assert_eq!(
        b[0].column(10)
            .as_primitive::<TimestampNanosecondType>()
            .value(0),
        71_000
    );
}

/// Reads every file of the alter-table fixture with the latest schema.
#[tokio::test]
async fn schema_evolution_reads_old_files_with_latest_schema() {
    let dir = table_dir("parquet/append_table_with_alter_table");
    let latest = schemas(&dir).pop().unwrap();
    let mut files = vec![];
    data_files(&dir, &mut files);
    let mut rows = vec![];
    for f in &files {
        let s = schema_of_file(&dir, f);
        rows.extend(render(
            &collect(request(f, s.fields.clone(), latest.fields.clone()))
                .await
                .unwrap(),
        ));
    }
    rows.sort_by_key(|r| {
        r.split(',')
            .map(|v| v.parse::<i64>().unwrap_or(-1))
            .collect::<Vec<_>>()
    });
    assert_eq!(
        rows,
        vec![
            "0,1,16,13,null,15,null",
            "0,1,26,23,null,25,null",
            "0,1,36,33,null,35,null",
            "0,1,66,63,517,65,618",
            "0,1,76,73,527,75,628",
            "0,1,86,83,537,85,638",
            "1,1,46,43,null,45,null",
            "1,1,56,53,null,55,null",
            "1,1,96,93,547,95,648",
            "1,1,106,103,557,105,658",
        ]
    );
}

#[tokio::test]
async fn retyped_columns_are_cast() {
    // int -> bigint / string / double on the alter-table files written with schema-0
    let (f, s0) = alter_file_of_schema(0);
    let f = &f;
    let mut read = s0.fields.clone();
    read[2].data_type = DataType::nullable(TypeKind::BigInt);
    read[3].data_type = DataType::nullable(TypeKind::VarChar(10));
    read[4].data_type = DataType::not_null(TypeKind::Double);
    let b = collect(request(f, s0.fields.clone(), read.clone()))
        .await
        .unwrap();
    assert_eq!(b[0].schema(), arrow_schema(&read).unwrap());
    assert!(matches!(
        b[0].column(2).as_primitive::<Int64Type>().value(0),
        12 | 42
    ));
    assert!(["13", "43"].contains(&b[0].column(3).as_string::<i32>().value(0)));
    assert!(matches!(
        b[0].column(4).as_primitive::<Float64Type>().value(0),
        14.0 | 44.0
    ));

    // TIMESTAMP -> INT/DATE/STRING/LTZ and INT -> TIMESTAMP (Java: seconds)
    let dir = table_dir("parquet/append_with_cast_timestamp");
    let all = schemas(&dir);
    let mut files = vec![];
    data_files(&dir, &mut files);
    let rows = render(
        &collect(request(
            &files[0],
            all[0].fields.clone(),
            all[1].fields.clone(),
        ))
        .await
        .unwrap(),
    );
    assert_eq!(
        rows[0],
        "1,1970-01-01,1970-01-01 00:00:00.000001,1970-01-01T00:00:00.000000001,2,1970-01-01,\
         1970-01-01 00:00:00.000002,1970-01-01T00:00:00.000000002,1970-01-01T00:00:00,1970-01-01T00:00:00"
    );
    assert!(
        rows[1].ends_with(",1970-01-01T00:00:01,1970-01-01T00:00:01"),
        "{}",
        rows[1]
    );
}

fn alter_file() -> (PathBuf, TableSchema) {
    alter_file_of_schema(1)
}

/// A file of the alter-table fixture written with schema `id`, and that schema.
fn alter_file_of_schema(id: i64) -> (PathBuf, TableSchema) {
    let dir = table_dir("parquet/append_table_with_alter_table");
    let mut files = vec![];
    data_files(&dir, &mut files);
    let f = files
        .into_iter()
        .find(|f| schema_of_file(&dir, f).id == id)
        .unwrap();
    let s = schema_of_file(&dir, &f);
    (f, s)
}

#[tokio::test]
async fn projection_row_ranges_deletions_and_row_group_filter() {
    let (f, s) = alter_file();
    // rows of this file: "k,c,d,a,e" after the keys; project e, key0, c (reordered subset)
    let pick = |n: &str| s.fields.iter().find(|f| f.name == n).unwrap().clone();
    let read = vec![pick("e"), pick("key0"), pick("c")];
    let all = render(
        &collect(request(&f, s.fields.clone(), read.clone()))
            .await
            .unwrap(),
    );
    assert_eq!(all.len(), 3);
    assert_eq!(all[0].split(',').count(), 3);
    let mut r = request(&f, s.fields.clone(), read.clone());
    r.row_ranges = Some(vec![1..3]);
    assert_eq!(render(&collect(r).await.unwrap()), all[1..3].to_vec());
    let mut r = request(&f, s.fields.clone(), read.clone());
    r.deleted_rows = Some(Arc::new([0u64, 2].into_iter().collect()));
    assert_eq!(render(&collect(r).await.unwrap()), vec![all[1].clone()]);
    let mut r = request(&f, s.fields.clone(), read.clone());
    r.row_ranges = Some(vec![0..2]);
    r.deleted_rows = Some(Arc::new([0u64].into_iter().collect()));
    r.batch_size = 1;
    assert_eq!(render(&collect(r).await.unwrap()), vec![all[1].clone()]);
    for (keep, rows) in [(false, 0), (true, 3)] {
        let calls = Arc::new(AtomicUsize::new(0));
        let c = calls.clone();
        let mut r = request(&f, s.fields.clone(), read.clone());
        r.row_group_filter = Some(Arc::new(move |rg: &RowGroupMetaData| {
            c.fetch_add(1, Ordering::SeqCst);
            assert_eq!(rg.num_rows(), 3);
            keep
        }));
        assert_eq!(render(&collect(r).await.unwrap()).len(), rows);
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }
    // empty projection still counts rows
    let b = collect(request(&f, s.fields.clone(), vec![]))
        .await
        .unwrap();
    assert_eq!(b.iter().map(|b| b.num_rows()).sum::<usize>(), 3);
}

#[tokio::test]
async fn selections_on_orc_and_avro() {
    for rel in [
        "orc/append_09",
        "avro/append_with_multiple_ts_precision_and_timezone",
    ] {
        let dir = table_dir(rel);
        let mut files = vec![];
        data_files(&dir, &mut files);
        let f = files
            .iter()
            .max_by_key(|f| std::fs::metadata(f).unwrap().len())
            .unwrap();
        let s = schema_of_file(&dir, f);
        let read: Vec<DataField> = s.fields.iter().rev().cloned().collect();
        let all = render(
            &collect(request(f, s.fields.clone(), read.clone()))
                .await
                .unwrap(),
        );
        assert!(all.len() >= 3, "{rel}");
        let mut r = request(f, s.fields.clone(), read.clone());
        r.row_ranges = Some(vec![0..1, 2..3]);
        r.deleted_rows = Some(Arc::new([0u64].into_iter().collect()));
        assert_eq!(
            render(&collect(r).await.unwrap()),
            vec![all[2].clone()],
            "{rel}"
        );
    }
}

/// A parquet file with 10 row groups of 10 rows (`v` = 0..100) written by the parquet crate.
fn multi_group_file(dir: &Path) -> PathBuf {
    use arrow_array::Int64Array;
    let path = dir.join("data-multi-0.parquet");
    let schema = Arc::new(arrow_schema::Schema::new(vec![arrow_schema::Field::new(
        "v",
        arrow_schema::DataType::Int64,
        false,
    )]));
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(10))
        .build();
    let file = std::fs::File::create(&path).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(file, schema.clone(), Some(props)).unwrap();
    let batch =
        RecordBatch::try_new(schema, vec![Arc::new(Int64Array::from_iter_values(0..100))]).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    path
}

#[tokio::test]
async fn row_group_filter_with_ranges_and_deletions_keeps_global_positions() {
    let tmp = tempfile::tempdir().unwrap();
    let f = multi_group_file(tmp.path());
    let fields = vec![DataField::new(0, "v", DataType::not_null(TypeKind::BigInt))];
    let mut r = request(&f, fields.clone(), fields.clone());
    // skip row groups holding 10..20 and 30..40
    r.row_group_filter = Some(Arc::new(|rg: &RowGroupMetaData| {
        let s = rg
            .column(0)
            .statistics()
            .and_then(|s| s.min_bytes_opt().map(|b| b[0]))
            .unwrap();
        s != 10 && s != 30
    }));
    r.row_ranges = Some(vec![5..35, 95..200]);
    r.deleted_rows = Some(Arc::new([6u64, 7, 20, 96].into_iter().collect()));
    r.batch_size = 7;
    let got: Vec<i64> = collect(r)
        .await
        .unwrap()
        .iter()
        .flat_map(|b| b.column(0).as_primitive::<Int64Type>().values().to_vec())
        .collect();
    let want: Vec<i64> = (5..10)
        .chain(21..30)
        .chain([95, 97, 98, 99])
        .filter(|v| *v != 6 && *v != 7)
        .collect();
    assert_eq!(got, want);
}

/// With string views the file path (a metadata column) is a view too.
#[tokio::test]
async fn metadata_file_path_is_a_view_with_string_views() {
    use crate::spec::special_fields::{file_path_field, row_index_field};
    let tmp = tempfile::tempdir().unwrap();
    let f = multi_group_file(tmp.path());
    let v = DataField::new(0, "v", DataType::not_null(TypeKind::BigInt));
    let read_fields = vec![file_path_field(), v.clone(), row_index_field()];
    let mut r = request(&f, vec![v], read_fields.clone());
    r.string_views = true;
    let location = r.location.clone();
    let batches = collect(r).await.unwrap();
    let schema = crate::arrow::view_schema(&arrow_schema(&read_fields).unwrap());
    assert_eq!(
        schema.field(0).data_type(),
        &arrow_schema::DataType::Utf8View
    );
    let mut rows = 0;
    for b in &batches {
        assert_eq!(b.schema(), schema);
        assert!(b
            .column(0)
            .as_string_view()
            .iter()
            .all(|p| p == Some(location.as_str())));
        rows += b.num_rows();
    }
    assert!(rows > 0);
}

#[tokio::test]
async fn row_index_is_the_physical_position_after_pruning_ranges_and_deletions() {
    use crate::spec::special_fields::{file_path_field, row_index_field};
    let tmp = tempfile::tempdir().unwrap();
    let f = multi_group_file(tmp.path());
    let v = DataField::new(0, "v", DataType::not_null(TypeKind::BigInt));
    let read_fields = vec![row_index_field(), v.clone(), file_path_field()];
    let mut r = request(&f, vec![v], read_fields.clone());
    // skip the row groups holding 10..20 and 30..40 (v equals the row position)
    r.row_group_filter = Some(Arc::new(|rg: &RowGroupMetaData| {
        let min = rg
            .column(0)
            .statistics()
            .and_then(|s| s.min_bytes_opt().map(|b| b[0]));
        min != Some(10) && min != Some(30)
    }));
    r.row_ranges = Some(vec![5..35, 95..200]);
    r.deleted_rows = Some(Arc::new([6u64, 7, 20, 96].into_iter().collect()));
    r.batch_size = 4;
    let location = r.location.clone();
    let batches = collect(r).await.unwrap();
    let schema = arrow_schema(&read_fields).unwrap();
    let mut positions = vec![];
    for b in &batches {
        assert_eq!(b.schema(), schema);
        let pos = b.column(0).as_primitive::<Int64Type>().values().to_vec();
        assert_eq!(
            pos,
            b.column(1).as_primitive::<Int64Type>().values().to_vec()
        );
        let paths = b.column(2).as_string::<i32>();
        assert!(paths.iter().all(|p| p == Some(location.as_str())));
        positions.extend(pos);
    }
    let want: Vec<i64> = (5..10)
        .chain(21..30)
        .chain([95, 97, 98, 99])
        .filter(|v| *v != 6 && *v != 7)
        .collect();
    assert_eq!(positions, want);
}

async fn open_err(path: &Path, fields: &[DataField]) -> Error {
    let r = request(path, fields.to_vec(), fields.to_vec());
    collect(r).await.unwrap_err()
}

#[tokio::test]
async fn bad_input_gives_typed_errors_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let (good, s) = alter_file();
    let bytes = std::fs::read(&good).unwrap();
    let mut cases = vec![];
    for (name, content) in [
        ("data-trunc-0.parquet", bytes[..bytes.len() / 2].to_vec()),
        ("data-tail-0.parquet", bytes[bytes.len() / 2..].to_vec()),
        (
            "data-garbage-0.parquet",
            b"PAR1 this is not parquet at all PAR1".to_vec(),
        ),
        (
            "data-garbage-0.orc",
            b"ORC garbage garbage garbage garbage".to_vec(),
        ),
        ("data-garbage-0.avro", b"Obj\x01garbage".to_vec()),
        ("data-empty-0.orc", vec![]),
    ] {
        let p = tmp.path().join(name);
        std::fs::write(&p, content).unwrap();
        cases.push(p);
    }
    for p in &cases {
        let e = open_err(p, &s.fields).await;
        assert_eq!(e.kind(), ErrorKind::DataInvalid, "{e}");
        assert!(
            e.to_string()
                .contains(p.file_name().unwrap().to_str().unwrap()),
            "{e}"
        );
    }
    // every strict prefix of a real parquet file fails cleanly
    for cut in (0..bytes.len()).step_by(97) {
        let p = tmp.path().join("data-prefix-0.parquet");
        std::fs::write(&p, &bytes[..cut]).unwrap();
        let _ = open_err(&p, &s.fields).await;
    }
    let missing = tmp.path().join("data-missing-0.parquet");
    let e = open_err(&missing, &s.fields).await;
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert!(e.to_string().contains("data-missing-0.parquet"), "{e}");
    // a file schema naming a column the file lacks
    let mut wrong = s.fields.clone();
    wrong[2].name = "nope".into();
    let e = collect(request(&good, wrong.clone(), wrong))
        .await
        .unwrap_err();
    assert!(e.to_string().contains("nope"), "{e}");
}

#[tokio::test]
async fn pk_files_hide_system_columns_unless_requested() {
    let dir = table_dir("parquet/pk_09");
    let mut files = vec![];
    data_files(&dir, &mut files);
    let s = schemas(&dir).pop().unwrap();
    let seq = DataField::new(
        2147483646,
        "_SEQUENCE_NUMBER",
        DataType::not_null(TypeKind::BigInt),
    );
    let kind = DataField::new(
        2147483645,
        "_VALUE_KIND",
        DataType::not_null(TypeKind::TinyInt),
    );
    let pk = s.field(&s.trimmed_primary_keys()[0]).unwrap();
    let key = DataField::new(
        1073741823 + pk.id,
        format!("_KEY_{}", pk.name),
        pk.data_type.clone(),
    );
    let plain = collect(request(&files[0], s.fields.clone(), s.fields.clone()))
        .await
        .unwrap();
    assert_eq!(plain[0].num_columns(), s.fields.len());
    let mut read = vec![seq, kind, key];
    read.extend(s.fields.iter().cloned());
    let b = collect(request(&files[0], s.fields.clone(), read))
        .await
        .unwrap();
    assert_eq!(b[0].column(0).null_count(), 0);
    assert!(b[0]
        .column(1)
        .as_primitive::<Int8Type>()
        .values()
        .iter()
        .all(|k| (0..4).contains(k)));
    let pk_pos = 3 + s.index_of(&pk.name).unwrap();
    assert_eq!(b[0].column(2).as_ref(), b[0].column(pk_pos).as_ref());
}
