//! Tests of the chunked Avro reader on container files written by `apache_avro` (snappy blocks
//! of about 2 KiB; [`super::CHUNK`] is 4 KiB under test, so blocks straddle chunk borders).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use apache_avro::types::{Record, Value};
use apache_avro::{Codec, Schema as AvroSchema, Writer};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type};
use arrow_array::{Array, RecordBatch};
use futures::{StreamExt, TryStreamExt};

use crate::io::FileIO;
use crate::read::{read_data_file, DataFileRead};
use crate::spec::types::{DataField, DataType, TypeKind};
use crate::ErrorKind;

const ROWS: i64 = 20_000;

/// `id` = position, `name` null when `id % 7 == 0` else `n{id}`, `v` = `id * 0.5`.
fn write_file(dir: &Path) -> PathBuf {
    let schema = AvroSchema::parse_str(
        r#"{"type":"record","name":"record","fields":[
            {"name":"id","type":"long"},
            {"name":"name","type":["null","string"],"default":null},
            {"name":"v","type":"double"}]}"#,
    )
    .unwrap();
    let mut w = Writer::builder()
        .schema(&schema)
        .writer(Vec::new())
        .codec(Codec::Snappy)
        .block_size(2048)
        .build();
    for id in 0..ROWS {
        let mut r = Record::new(&schema).unwrap();
        r.put("id", id);
        let name = match id % 7 {
            0 => Value::Union(0, Box::new(Value::Null)),
            _ => Value::Union(1, Box::new(Value::String(format!("n{id}")))),
        };
        r.put("name", name);
        r.put("v", id as f64 * 0.5);
        w.append(r).unwrap();
    }
    let path = dir.join("data-chunks-0.avro");
    std::fs::write(&path, w.into_inner().unwrap()).unwrap();
    path
}

fn fields() -> Vec<DataField> {
    vec![
        DataField::new(0, "id", DataType::not_null(TypeKind::BigInt)),
        DataField::new(1, "name", DataType::nullable(TypeKind::VarChar(100))),
        DataField::new(2, "v", DataType::not_null(TypeKind::Double)),
    ]
}

fn request(path: &Path, read: Vec<DataField>) -> DataFileRead {
    let mut r = DataFileRead::new(path.to_str().unwrap(), fields(), read).unwrap();
    r.file_size = Some(std::fs::metadata(path).unwrap().len());
    r
}

async fn collect(io: &FileIO, r: DataFileRead) -> crate::Result<Vec<RecordBatch>> {
    read_data_file(io, r).await?.try_collect().await
}

fn ids(batches: &[RecordBatch]) -> Vec<i64> {
    batches
        .iter()
        .flat_map(|b| b.column(0).as_primitive::<Int64Type>().values().to_vec())
        .collect()
}

#[tokio::test]
async fn a_file_of_many_chunks_reads_every_value_fetching_each_byte_once() {
    let tmp = tempfile::tempdir().unwrap();
    let path = write_file(tmp.path());
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size > 20 * super::CHUNK, "{size}");
    let io = FileIO::default();
    let mut r = request(&path, fields());
    r.batch_size = 999;
    let batches = collect(&io, r).await.unwrap();
    assert_eq!(ids(&batches), (0..ROWS).collect::<Vec<_>>());
    let mut id = 0i64;
    for b in &batches {
        let names = b.column(1).as_string::<i32>();
        let vs = b.column(2).as_primitive::<Float64Type>();
        for i in 0..b.num_rows() {
            let name = (!names.is_null(i)).then(|| names.value(i).to_string());
            assert_eq!(name, (id % 7 != 0).then(|| format!("n{id}")), "row {id}");
            assert_eq!(vs.value(i), id as f64 * 0.5);
            id += 1;
        }
    }
    let stats = io.read_stats();
    assert_eq!(stats.bytes, size);
    assert_eq!(stats.requests, size.div_ceil(super::CHUNK));
}

#[tokio::test]
async fn selections_and_a_file_size_from_listing() {
    let tmp = tempfile::tempdir().unwrap();
    let path = write_file(tmp.path());
    let mut r = request(&path, vec![fields()[0].clone()]);
    r.file_size = None;
    r.row_ranges = Some(vec![5..10, 19_990..30_000]);
    r.deleted_rows = Some(Arc::new([6u64, 19_999].into_iter().collect()));
    let got = ids(&collect(&FileIO::default(), r).await.unwrap());
    assert_eq!(
        got,
        vec![5, 7, 8, 9, 19_990, 19_991, 19_992, 19_993, 19_994, 19_995, 19_996, 19_997, 19_998]
    );
}

#[tokio::test]
async fn a_stream_read_in_part_fetches_part_of_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let path = write_file(tmp.path());
    let size = std::fs::metadata(&path).unwrap().len();
    let io = FileIO::default();
    let mut r = request(&path, fields());
    r.batch_size = 100;
    let mut stream = read_data_file(&io, r).await.unwrap();
    let first = stream.next().await.unwrap().unwrap();
    assert_eq!(first.num_rows(), 100);
    let fetched = io.read_stats().bytes;
    drop(stream);
    // a chunk, the block being decoded and two batches in flight: far from the whole file
    assert!(fetched < size / 4, "{fetched} of {size}");
}

#[tokio::test]
async fn truncated_and_corrupt_files_give_typed_errors_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(write_file(tmp.path())).unwrap();
    let io = FileIO::default();
    let path = tmp.path().join("data-cut-0.avro");
    let mut errors = 0;
    for cut in (0..bytes.len()).step_by(997) {
        std::fs::write(&path, &bytes[..cut]).unwrap();
        match collect(&io, request(&path, fields())).await {
            Err(e) => {
                assert_eq!(e.kind(), ErrorKind::DataInvalid, "{cut}: {e}");
                assert!(e.to_string().contains("data-cut-0.avro"), "{e}");
                errors += 1;
            }
            // a cut at a block border is a shorter valid file
            Ok(b) => assert!(ids(&b).len() < ROWS as usize),
        }
    }
    assert!(errors * 10 > bytes.len() / 997 * 9, "{errors}");
    // a file shorter than its meta says: the short ranged read is the error
    std::fs::write(&path, &bytes[..bytes.len() - 10]).unwrap();
    let mut r = request(&path, fields());
    r.file_size = Some(bytes.len() as u64);
    let e = collect(&io, r).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DataInvalid, "{e}");
    assert!(e.to_string().contains("short read"), "{e}");
    assert!(e.to_string().contains("data-cut-0.avro"), "{e}");
    // flipped bytes: rows or an error naming the file, never a panic or a hang
    let path = tmp.path().join("data-flip-0.avro");
    for i in (0..bytes.len()).step_by(769) {
        let mut b = bytes.clone();
        b[i] ^= 0x5a;
        std::fs::write(&path, &b).unwrap();
        if let Err(e) = collect(&io, request(&path, fields())).await {
            assert!(e.to_string().contains("data-flip-0.avro"), "{e}");
        }
    }
    // a missing file is not found
    let e = collect(
        &io,
        DataFileRead::new(
            tmp.path().join("data-none-0.avro").to_str().unwrap(),
            fields(),
            fields(),
        )
        .unwrap(),
    )
    .await
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");
}
