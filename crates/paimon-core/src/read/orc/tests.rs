//! Tests of the ranged ORC reader against a multi-stripe file written by pyarrow (Apache ORC
//! C++ writer), `tests/data/multi_stripe.orc`: 20 000 rows in 10 stripes (2048 rows each, the
//! last 1568), ZSTD with 4 KiB blocks, row index stride 1000; columns `id BIGINT` (= row
//! position), `name STRING` (null when `id % 7 == 0`, else `n{id % 97}-{id}`), `v DOUBLE`
//! (= `id * 0.5`). Written with
//! `orc.write_table(t, path, stripe_size=4096, compression="zstd",
//! compression_block_size=4096, row_index_stride=1000, batch_size=1024)`.
#![allow(clippy::single_range_in_vec_init)]

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type};
use arrow_array::{Array, RecordBatch};
use futures::TryStreamExt;

use crate::io::FileIO;
use crate::read::{read_data_file, DataFileRead};
use crate::spec::types::{DataField, DataType, TypeKind};
use crate::ErrorKind;

const ROWS: i64 = 20_000;

fn multi_stripe() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/multi_stripe.orc")
}

fn fields() -> Vec<DataField> {
    vec![
        DataField::new(0, "id", DataType::nullable(TypeKind::BigInt)),
        DataField::new(
            1,
            "name",
            DataType::nullable(TypeKind::VarChar(i32::MAX as u32)),
        ),
        DataField::new(2, "v", DataType::nullable(TypeKind::Double)),
    ]
}

fn request(path: &std::path::Path, read: Vec<DataField>) -> DataFileRead {
    let mut r = DataFileRead::new(path.to_str().unwrap(), fields(), read).unwrap();
    r.file_size = Some(std::fs::metadata(path).unwrap().len());
    r
}

async fn collect(io: &FileIO, r: DataFileRead) -> crate::Result<Vec<RecordBatch>> {
    read_data_file(io, r).await?.try_collect().await
}

fn ids(batches: &[RecordBatch], col: usize) -> Vec<i64> {
    batches
        .iter()
        .flat_map(|b| b.column(col).as_primitive::<Int64Type>().values().to_vec())
        .collect()
}

fn name_of(id: i64) -> Option<String> {
    (id % 7 != 0).then(|| format!("n{}-{id}", id % 97))
}

#[tokio::test]
async fn every_row_of_every_stripe_reads_with_its_values() {
    let io = FileIO::default();
    let mut r = request(&multi_stripe(), fields());
    r.batch_size = 700;
    let batches = collect(&io, r).await.unwrap();
    assert!(batches.iter().all(|b| b.num_rows() <= 700));
    // batches do not span stripes: 10 stripes of 2048 (3 batches each) and 1568 (3 batches)
    assert_eq!(batches.len(), 30);
    assert_eq!(ids(&batches, 0), (0..ROWS).collect::<Vec<_>>());
    let mut id = 0i64;
    for b in &batches {
        let names = b.column(1).as_string::<i32>();
        let vs = b.column(2).as_primitive::<Float64Type>();
        for i in 0..b.num_rows() {
            let name = (!names.is_null(i)).then(|| names.value(i).to_string());
            assert_eq!(name, name_of(id), "row {id}");
            assert_eq!(vs.value(i), id as f64 * 0.5, "row {id}");
            id += 1;
        }
    }
}

#[tokio::test]
async fn the_same_batches_as_orc_rusts_whole_file_reader() {
    let bytes = bytes::Bytes::from(std::fs::read(multi_stripe()).unwrap());
    let want: Vec<RecordBatch> = orc_rust::ArrowReaderBuilder::try_new(bytes)
        .unwrap()
        .with_batch_size(1000)
        .build()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut r = request(&multi_stripe(), fields());
    r.batch_size = 1000;
    let got = collect(&FileIO::default(), r).await.unwrap();
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g.columns(), w.columns());
    }
}

#[tokio::test]
async fn selections_across_stripe_boundaries_keep_file_positions() {
    // one projected column, read schema reordered; ranges cross the stripe borders at 2048,
    // 4096 and 18432, deletions inside and at the edges of the ranges
    let mut r = request(
        &multi_stripe(),
        vec![fields()[2].clone(), fields()[0].clone()],
    );
    r.row_ranges = Some(vec![2040..2060, 4000..4200, 18_430..18_434, 19_998..30_000]);
    r.deleted_rows = Some(Arc::new(
        [2040u64, 2047, 2048, 4100, 18_433, 19_999]
            .into_iter()
            .collect(),
    ));
    r.batch_size = 64;
    let batches = collect(&FileIO::default(), r).await.unwrap();
    let want: Vec<i64> = (2040..2060)
        .chain(4000..4200)
        .chain(18_430..18_434)
        .chain(19_998..20_000)
        .filter(|i| ![2040, 2047, 2048, 4100, 18_433, 19_999].contains(i))
        .collect();
    // orc-rust 0.9 alone returned the rest of the stripe after 4199 (see MAX_PUSHED_RUN)
    assert_eq!(ids(&batches, 1), want);
    let vs: Vec<f64> = batches
        .iter()
        .flat_map(|b| b.column(0).as_primitive::<Float64Type>().values().to_vec())
        .collect();
    assert_eq!(vs, want.iter().map(|i| *i as f64 * 0.5).collect::<Vec<_>>());
    assert_eq!(batches[0].schema().field(0).name(), "v");
}

#[tokio::test]
async fn long_selected_runs_are_filtered_after_decoding() {
    // runs longer than MAX_PUSHED_RUN (1000 under test): every row is decoded and filtered
    let deleted = [0u64, 5, 2047, 2048, 9000, 19_999];
    let mut r = request(&multi_stripe(), vec![fields()[0].clone()]);
    r.deleted_rows = Some(Arc::new(deleted.into_iter().collect()));
    r.batch_size = 500;
    let batches = collect(&FileIO::default(), r).await.unwrap();
    assert!(batches
        .iter()
        .all(|b| b.num_rows() <= 500 && b.num_rows() > 0));
    let want: Vec<i64> = (0..ROWS)
        .filter(|i| !deleted.contains(&(*i as u64)))
        .collect();
    assert_eq!(ids(&batches, 0), want);
    // and with row ranges: a short and a long run
    let mut r = request(&multi_stripe(), vec![fields()[0].clone()]);
    r.row_ranges = Some(vec![10..12, 3000..9500]);
    r.deleted_rows = Some(Arc::new(deleted.into_iter().collect()));
    let batches = collect(&FileIO::default(), r).await.unwrap();
    let want: Vec<i64> = (10..12).chain(3000..9500).filter(|i| *i != 9000).collect();
    assert_eq!(ids(&batches, 0), want);
}

#[tokio::test]
async fn a_projected_read_fetches_a_fraction_of_the_file_by_range() {
    let path = multi_stripe();
    let size = std::fs::metadata(&path).unwrap().len();
    let full = FileIO::default();
    collect(&full, request(&path, fields())).await.unwrap();
    let all = full.read_stats();
    let one = FileIO::default();
    let batches = collect(&one, request(&path, vec![fields()[0].clone()]))
        .await
        .unwrap();
    assert_eq!(ids(&batches, 0).len(), ROWS as usize);
    let proj = one.read_stats();
    // the whole read touches (nearly) every byte, but no byte twice except where the 16 KiB
    // tail read overlaps the stream that straddles its start
    assert!(all.bytes > size * 9 / 10, "{all:?} of {size}");
    assert!(all.bytes <= size + 4096, "{all:?} of {size}");
    // `id` is a small fraction of the file: name strings dominate
    assert!(proj.bytes < size / 3, "{proj:?} of {size}");
    // tail once, then per stripe: its footer and one batch of projected streams
    assert!(proj.requests <= 1 + 10 * 4, "{proj:?}");
}

#[tokio::test]
async fn truncated_and_corrupt_files_give_typed_errors_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(multi_stripe()).unwrap();
    let io = FileIO::default();
    let path = tmp.path().join("data-cut-0.orc");
    // every prefix (sized as written) fails as invalid data naming the file; no panic
    for cut in (0..bytes.len()).step_by(1013) {
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let e = collect(&io, request(&path, fields())).await.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::DataInvalid, "{cut}: {e}");
        assert!(e.to_string().contains("data-cut-0.orc"), "{e}");
    }
    // the meta's size larger than the file: a ranged read fails, naming the file
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let mut r = request(&path, fields());
    r.file_size = Some(bytes.len() as u64);
    let e = collect(&io, r).await.unwrap_err();
    assert!(e.to_string().contains("data-cut-0.orc"), "{e}");
    // flipped bytes all over the file: an error or rows, never a panic
    let path = tmp.path().join("data-flip-0.orc");
    let mut errors = 0;
    for i in (0..bytes.len()).step_by(331) {
        let mut b = bytes.clone();
        b[i] ^= 0x5a;
        std::fs::write(&path, &b).unwrap();
        if let Err(e) = collect(&io, request(&path, fields())).await {
            assert!(e.to_string().contains("data-flip-0.orc"), "{e}");
            errors += 1;
        }
    }
    assert!(errors > 0);
}

#[tokio::test]
async fn a_cyclic_type_tree_is_rejected_from_the_tail_alone() {
    // A 3-byte "ORC" file followed by a footer whose type 1 points back at type 0.
    let mut file = b"ORC".to_vec();
    let footer = vec![0x22, 5, 0x08, 12, 0x12, 1, 1, 0x22, 5, 0x08, 12, 0x12, 1, 0];
    let ps = vec![0x08, footer.len() as u8, 0x10, 0];
    file.extend(&footer);
    file.extend(&ps);
    file.push(ps.len() as u8);
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("data-cyclic-0.orc");
    std::fs::write(&path, &file).unwrap();
    let e = collect(&FileIO::default(), request(&path, fields()))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DataInvalid);
    assert!(e.to_string().contains("type 1 has subtype 0"), "{e}");
}
