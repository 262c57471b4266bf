//! The search of PLAIN key pages against a linear scan of the same values.
#![allow(clippy::single_range_in_vec_init)]

use std::sync::Arc;

use arrow_array::{ArrayRef, Int32Array, Int64Array, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field, Schema};
use bytes::Bytes;
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::file::properties::{WriterProperties, WriterVersion};

use super::*;
use crate::read::file_reader::DataFileRead;
use crate::read::key_search::key_intervals;
use crate::read::test_files::{groups, metadata, parquet_bytes, reader};
use crate::spec::types::DataType;

const ROWS: usize = 3000;

/// Sorted keys with runs of equal values and negatives.
fn keys() -> Vec<i64> {
    (0..ROWS as i64).map(|i| (i / 3) * 5 - 1000).collect()
}

fn field(kind: TypeKind, nullable: bool) -> DataField {
    let t = if nullable {
        DataType::nullable(kind)
    } else {
        DataType::not_null(kind)
    };
    DataField::new(0, "id", t)
}

/// `values` as column `id` (Int64 for BIGINT, Int32 otherwise) in a Parquet file of pages of
/// at most 100 rows.
fn file(values: &[i64], kind: &TypeKind, nullable: bool, props: WriterProperties) -> Bytes {
    let (ty, array): (ArrowType, ArrayRef) = match kind {
        TypeKind::BigInt => (
            ArrowType::Int64,
            Arc::new(Int64Array::from(values.to_vec())),
        ),
        _ => (
            ArrowType::Int32,
            Arc::new(Int32Array::from_iter_values(
                values.iter().map(|&v| v as i32),
            )),
        ),
    };
    let schema = Arc::new(Schema::new(vec![Field::new("id", ty, nullable)]));
    parquet_bytes(&RecordBatch::try_new(schema, vec![array]).unwrap(), props)
}

fn props(
    dictionary: bool,
    version: WriterVersion,
    codec: Compression,
) -> parquet::file::properties::WriterPropertiesBuilder {
    // PLAIN, not the DELTA_BINARY_PACKED arrow-rs falls back to in v2 files.
    WriterProperties::builder()
        .set_dictionary_enabled(dictionary)
        .set_encoding(Encoding::PLAIN)
        .set_writer_version(version)
        .set_compression(codec)
        .set_data_page_row_count_limit(100)
        .set_write_batch_size(50)
        .set_max_row_group_row_count(Some(1000))
}

/// The key intervals of `sql`.
fn intervals(key: &DataField, sql: &str) -> Vec<KeyInterval> {
    let schema = crate::test_util::schema_of(vec![key.clone()]);
    let predicate = crate::expr::parse_predicate(sql)
        .unwrap()
        .bind(&schema)
        .unwrap();
    key_intervals(&predicate, 0).unwrap()
}

/// The search of `sql` over every row of `bytes`.
async fn run(bytes: &Bytes, key: &DataField, sql: &str) -> Option<PlainKeys> {
    let reader = reader(bytes).await;
    let meta = metadata(bytes);
    let groups = groups(&meta);
    let all: Vec<RowRange> = groups.iter().map(|g| g.1.clone()).collect();
    let read = DataFileRead::new("f.parquet", vec![key.clone()], vec![key.clone()]).unwrap();
    let pass = KeyPass {
        reader: &reader,
        meta: &meta,
        read: &read,
        physical: &["id"],
        groups: &groups,
        ranges: None,
    };
    search(&pass, key, 0, &all, &intervals(key, sql)).await
}

/// The rows whose key satisfies `sql`, by a linear scan, as ranges.
fn linear(values: &[i64], key: &DataField, sql: &str) -> Vec<RowRange> {
    let intervals = intervals(key, sql);
    let inside = |v: i64| {
        intervals.iter().any(|iv| {
            let (lo, hi) = (integer(&iv.low).unwrap(), integer(&iv.high).unwrap());
            (v > lo || (v == lo && iv.low_inclusive)) && (v < hi || (v == hi && iv.high_inclusive))
        })
    };
    let mut out: Vec<RowRange> = Vec::new();
    for (i, &v) in values.iter().enumerate() {
        if inside(v) {
            let i = i as u64;
            match out.last_mut() {
                Some(last) if last.end == i => last.end = i + 1,
                _ => out.push(i..i + 1),
            }
        }
    }
    out
}

/// Predicates on the key around `values`: points (present and absent), IN lists, ranges open
/// and closed at either end, below and above every key.
fn predicates(values: &[i64]) -> Vec<String> {
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut out = vec![
        "id = -5000".to_string(),
        "id = 999999".to_string(),
        format!(
            "id BETWEEN {} AND {}",
            values[0] - 10,
            values[ROWS - 1] + 10
        ),
    ];
    for _ in 0..40 {
        let mut v = || values[(next() % ROWS as u64) as usize] + (next() % 3) as i64 - 1;
        let (a, b, c) = (v(), v(), v());
        let (lo, hi) = (a.min(b), a.max(b));
        out.push(format!("id = {a}"));
        out.push(format!("id IN ({a}, {b}, {c})"));
        out.push(format!("id BETWEEN {lo} AND {hi}"));
        out.push(format!("id > {lo} AND id < {hi}"));
        out.push(format!("id >= {lo} AND id < {hi} OR id = {c}"));
    }
    out
}

#[tokio::test]
async fn plain_pages_are_searched_like_a_linear_scan() {
    let values = keys();
    let layouts = [
        (
            WriterVersion::PARQUET_1_0,
            Compression::ZSTD(ZstdLevel::default()),
        ),
        (
            WriterVersion::PARQUET_2_0,
            Compression::ZSTD(ZstdLevel::default()),
        ),
        (WriterVersion::PARQUET_1_0, Compression::SNAPPY),
        (WriterVersion::PARQUET_2_0, Compression::UNCOMPRESSED),
    ];
    for kind in [TypeKind::BigInt, TypeKind::Int] {
        let key = field(kind.clone(), false);
        for (version, codec) in layouts {
            let bytes = file(&values, &kind, false, props(false, version, codec).build());
            for sql in predicates(&values) {
                let got = run(&bytes, &key, &sql).await;
                let want = PlainKeys::Found(linear(&values, &key, &sql));
                assert_eq!(got, Some(want), "{kind:?} {version:?} {codec:?}: {sql}");
            }
        }
    }
}

#[tokio::test]
async fn unsorted_values_are_reported() {
    let key = field(TypeKind::BigInt, false);
    let layout = props(false, WriterVersion::PARQUET_1_0, Compression::SNAPPY).build();
    // Out of order inside one page, and across pages (each page sorted).
    let mut inside = keys();
    inside.swap(2, 3);
    let mut across = keys();
    across[..100].iter_mut().for_each(|v| *v += 1_000_000);
    for values in [inside, across] {
        let bytes = file(&values, &TypeKind::BigInt, false, layout.clone());
        assert_eq!(run(&bytes, &key, "id = 5").await, Some(PlainKeys::Unsorted));
    }
}

#[tokio::test]
async fn other_layouts_are_left_to_arrow_rs() {
    let values = keys();
    let zstd = Compression::ZSTD(ZstdLevel::default());
    // Dictionary-encoded pages, a nullable key column, a key typed apart from its column.
    let dictionary = file(
        &values,
        &TypeKind::BigInt,
        false,
        props(true, WriterVersion::PARQUET_1_0, zstd).build(),
    );
    let key = field(TypeKind::BigInt, false);
    assert_eq!(run(&dictionary, &key, "id = 5").await, None);
    let plain = props(false, WriterVersion::PARQUET_1_0, zstd).build();
    let nullable = file(&values, &TypeKind::BigInt, true, plain.clone());
    assert_eq!(
        run(&nullable, &field(TypeKind::BigInt, true), "id = 5").await,
        None
    );
    let ints = file(&values, &TypeKind::Int, false, plain);
    assert_eq!(run(&ints, &key, "id = 5").await, None);
}

#[test]
fn integers_are_little_endian_and_sign_extended() {
    let bytes = [0xfe, 0xff, 0xff, 0xff, 0x01, 0x02, 0x00, 0x00];
    assert_eq!(at::<4>(&bytes, 0), -2);
    assert_eq!(at::<4>(&bytes, 1), 0x0201);
    assert_eq!(at::<8>(&bytes, 0), 0x0000_0201_ffff_fffe);
    let min = i64::MIN.to_le_bytes();
    assert_eq!(at::<8>(&min, 0), i64::MIN);
}
