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
use crate::read::page_header::PageHeader;
use crate::read::parquet::FileIoParquetReader;
use crate::read::test_files::{groups, metadata, parquet_bytes, random_byte_strings, reader};
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

/// `keys()` as PLAIN BIGINT pages of a v1 file compressed with `codec`.
fn plain_file(codec: Compression) -> Bytes {
    let layout = props(false, WriterVersion::PARQUET_1_0, codec).build();
    file(&keys(), &TypeKind::BigInt, false, layout)
}

/// Where the pages of the first column's first row group start.
fn page_offsets(bytes: &Bytes) -> Vec<usize> {
    metadata(bytes).metadata().offset_index().unwrap()[0][0]
        .page_locations()
        .iter()
        .map(|p| p.offset as usize)
        .collect()
}

/// The search of `sql` over every row of `bytes`.
async fn run(bytes: &Bytes, key: &DataField, sql: &str) -> Option<KeyPages> {
    run_on(&reader(bytes).await, bytes, key, sql).await
}

/// The search of `sql` over every row of `bytes`, read with `reader`.
async fn run_on(
    reader: &FileIoParquetReader,
    bytes: &Bytes,
    key: &DataField,
    sql: &str,
) -> Option<KeyPages> {
    let meta = metadata(bytes);
    let groups = groups(&meta);
    let all: Vec<RowRange> = groups.iter().map(|g| g.1.clone()).collect();
    let read = DataFileRead::new("f.parquet", vec![key.clone()], vec![key.clone()]).unwrap();
    let pass = KeyPass {
        reader,
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

/// Data pages of `bytes` (column 0) that are dictionary-encoded, and those that are PLAIN.
fn page_kinds(bytes: &Bytes) -> (usize, usize) {
    let meta = metadata(bytes);
    let (mut dictionary, mut plain) = (0, 0);
    for group in meta.metadata().offset_index().unwrap() {
        for loc in group[0].page_locations() {
            let at = loc.offset as usize;
            let h = PageHeader::parse(&bytes[at..]).unwrap();
            if h.needs_dictionary() {
                dictionary += 1;
            } else {
                plain += 1;
            }
        }
    }
    (dictionary, plain)
}

#[tokio::test]
async fn pages_are_searched_like_a_linear_scan() {
    let values = keys();
    let zstd = Compression::ZSTD(ZstdLevel::default());
    let layouts = [
        (WriterVersion::PARQUET_1_0, zstd),
        (WriterVersion::PARQUET_2_0, zstd),
        (WriterVersion::PARQUET_1_0, Compression::SNAPPY),
        (WriterVersion::PARQUET_2_0, Compression::UNCOMPRESSED),
    ];
    // PLAIN pages; dictionary pages throughout; a dictionary full after ~50 values, then
    // PLAIN pages (as writers do on distinct keys).
    let dictionaries = [None, Some(1 << 20), Some(400)];
    for kind in [TypeKind::BigInt, TypeKind::Int] {
        let key = field(kind.clone(), false);
        for (version, codec) in layouts {
            for dictionary in dictionaries {
                let mut p = props(dictionary.is_some(), version, codec);
                if let Some(limit) = dictionary {
                    p = p.set_dictionary_page_size_limit(limit);
                }
                let bytes = file(&values, &kind, false, p.build());
                let (dict_pages, plain_pages) = page_kinds(&bytes);
                match dictionary {
                    None => assert_eq!(dict_pages, 0),
                    Some(400) => assert!(dict_pages > 0 && plain_pages > 0),
                    Some(_) => assert_eq!(plain_pages, 0),
                }
                for sql in predicates(&values) {
                    let got = run(&bytes, &key, &sql).await;
                    let want = KeyPages::Found(linear(&values, &key, &sql));
                    assert_eq!(
                        got,
                        Some(want),
                        "{kind:?} {version:?} {codec:?} {dictionary:?}: {sql}"
                    );
                }
            }
        }
    }
}

#[tokio::test]
async fn unsorted_values_are_reported() {
    let key = field(TypeKind::BigInt, false);
    // Out of order inside one page, and across pages (each page sorted); PLAIN and dictionary
    // pages.
    let mut inside = keys();
    inside.swap(2, 3);
    let mut across = keys();
    across[..100].iter_mut().for_each(|v| *v += 1_000_000);
    for dictionary in [false, true] {
        let layout = props(dictionary, WriterVersion::PARQUET_1_0, Compression::SNAPPY).build();
        for values in [&inside, &across] {
            let bytes = file(values, &TypeKind::BigInt, false, layout.clone());
            assert_eq!(run(&bytes, &key, "id = 5").await, Some(KeyPages::Unsorted));
        }
    }
}

#[tokio::test]
async fn other_layouts_are_left_to_arrow_rs() {
    let values = keys();
    let zstd = Compression::ZSTD(ZstdLevel::default());
    // A nullable key column, a key typed apart from its column.
    let key = field(TypeKind::BigInt, false);
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

/// The dictionary indices of the values section `section`.
fn indices(section: &[u8], count: usize) -> Option<Vec<u32>> {
    let mut p = PagePrefix::plain(Bytes::copy_from_slice(section));
    let mut runs = IndexRuns::new(&mut p, 0)?;
    let mut out = Vec::new();
    while out.len() < count {
        runs.next(&mut p, count - out.len(), &mut out)?;
    }
    Some(out)
}

#[test]
fn dictionary_indices_of_bit_packed_and_rle_runs() {
    // Width 3; a bit-packed group of 0..8 (header 1 << 1 | 1), then 0..8 packed LSB first;
    // an RLE run of four 5s (header 4 << 1).
    let section = [3, 3, 136, 198, 250, 8, 5];
    let mut want: Vec<u32> = (0..8).collect();
    want.extend([5; 4]);
    assert_eq!(indices(&section, 12), Some(want.clone()));
    // Fewer values than the runs hold: the padding of a run is not read.
    assert_eq!(indices(&section, 10), Some(want[..10].to_vec()));
    // More than the runs hold, a cut run, a width over 32: none.
    assert_eq!(indices(&section, 13), None);
    assert_eq!(indices(&section[..4], 8), None);
    assert_eq!(indices(&[33, 2, 0], 1), None);
    // Width 0: every index is 0, whatever a run's length says.
    assert_eq!(indices(&[0, 6], 3), Some(vec![0; 3]));
    let huge = [0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f];
    assert_eq!(indices(&huge, 3), Some(vec![0; 3]));
    // Every cut of the section, and arbitrary bytes, are an answer or none, never a panic
    // (nor an allocation beyond the count asked for).
    for cut in 0..section.len() {
        let _ = indices(&section[..cut], 12);
    }
    for mut buf in random_byte_strings(20_000, 24) {
        buf[0] %= 40;
        if let Some(ids) = indices(&buf, 64) {
            assert_eq!(ids.len(), 64);
        }
    }
}

#[tokio::test]
async fn pages_cut_short_are_refused_not_read_past() {
    // A key page whose header claims more bytes than there are (a corrupt header, or a page
    // cut short): its values cannot be had, and nothing is read out of bounds.
    for codec in [
        Compression::ZSTD(ZstdLevel::default()),
        Compression::UNCOMPRESSED,
    ] {
        let bytes = plain_file(codec);
        let at = page_offsets(&bytes)[1];
        let page = bytes.slice(at..at + 40);
        let leaf = Leaf::new(parquet::basic::Type::INT64, 0, 0).unwrap();
        let (mut section, start, count, indices) = required_values(page, &leaf, codec).unwrap();
        assert!(!indices);
        assert_eq!(section.get(start, start + count * 8), None);
    }
}

#[tokio::test]
async fn a_page_whose_value_count_is_not_its_row_count_is_refused() {
    // The second page's header says 99 values (thrift: struct field 5, then i32 field 1 =
    // zigzag 198) where the offset index says 100 rows: where its rows lie is unknown.
    let bytes = plain_file(Compression::UNCOMPRESSED);
    let key = field(TypeKind::BigInt, false);
    assert!(matches!(
        run(&bytes, &key, "id = 5").await,
        Some(KeyPages::Found(_))
    ));
    let at = page_offsets(&bytes)[1];
    let mut patched = bytes.to_vec();
    let header = &mut patched[at..at + 32];
    let i = header
        .windows(4)
        .position(|w| w == [0x2c, 0x15, 0xc8, 0x01])
        .unwrap();
    header[i + 2] = 0xc6;
    let patched = Bytes::from(patched);
    assert_eq!(run(&patched, &key, "id = 5").await, None);
}

#[tokio::test]
async fn only_the_pages_of_a_point_read_stay_decompressed() {
    // Pages of 100 rows, batches of 1024: the page holding `id = 5` (rows 603..606) is kept
    // for the point read; a range over every row keeps none.
    let bytes = plain_file(Compression::SNAPPY);
    let key = field(TypeKind::BigInt, false);
    let offsets: Vec<u64> = page_offsets(&bytes).into_iter().map(|o| o as u64).collect();
    let r = reader(&bytes).await;
    let found = run_on(&r, &bytes, &key, "id = 5").await;
    assert_eq!(found, Some(KeyPages::Found(vec![603..606])));
    let kept: Vec<usize> = (0..offsets.len())
        .filter(|&i| r.take_decompressed(offsets[i]).is_some())
        .collect();
    assert_eq!(kept, vec![6]);
    let r = reader(&bytes).await;
    let all = run_on(&r, &bytes, &key, "id BETWEEN -2000 AND 9000").await;
    assert_eq!(all, Some(KeyPages::Found(vec![0..ROWS as u64])));
    assert!(offsets.iter().all(|&o| r.take_decompressed(o).is_none()));
}

/// One zstd page per column of up to 2^20 rows, PLAIN or dictionary-encoded.
fn one_page(dictionary: bool) -> WriterProperties {
    let zstd = Compression::ZSTD(ZstdLevel::default());
    props(dictionary, WriterVersion::PARQUET_1_0, zstd)
        .set_data_page_row_count_limit(1 << 20)
        .set_data_page_size_limit(1 << 30)
        .set_dictionary_page_size_limit(1 << 30)
        .set_write_batch_size(1 << 20)
        .set_max_row_group_row_count(None)
        .build()
}

/// 400,000 keys `0, 3, 6, ...`, and the same with key 3000 (row 1000) also at row 399,990,
/// after larger keys.
fn sorted_and_late() -> (Vec<i64>, Vec<i64>) {
    let sorted: Vec<i64> = (0..400_000).map(|i| i * 3).collect();
    let mut late = sorted.clone();
    late[399_990] = 3000;
    (sorted, late)
}

/// One zstd page of 400,000 keys, PLAIN or dictionary-encoded (`dictionary`): a key near its
/// start is found after a step of values (4,096) or a few runs of indices, and the page (and
/// its dictionary) is decompressed no further. Its rest is trusted sorted, as primary-key
/// files are: a match placed late, after larger keys, is not seen. A key near the end has the
/// page decoded whole; a disorder before the key is reported.
async fn last_page_searched_up_to_the_first_value_beyond(dictionary: bool) {
    let (sorted, late) = sorted_and_late();
    let key = field(TypeKind::BigInt, false);
    let layout = one_page(dictionary);
    for values in [&sorted, &late] {
        let bytes = file(values, &TypeKind::BigInt, false, layout.clone());
        assert_eq!(page_offsets(&bytes).len(), 1);
        let kinds = (usize::from(dictionary), usize::from(!dictionary));
        assert_eq!(page_kinds(&bytes), kinds);
        let r = reader(&bytes).await;
        let found = run_on(&r, &bytes, &key, "id = 3000").await;
        assert_eq!(found, Some(KeyPages::Found(vec![1000..1001])));
        // Handed on to the point read as far as it was decompressed.
        let mut kept = r.take_decompressed(page_offsets(&bytes)[0] as u64).unwrap();
        let so_far = kept.decompressed();
        assert!(so_far < kept.total() / 4, "{so_far} of {}", kept.total());
        if !dictionary {
            assert_eq!(kept.get(8000, 8008).unwrap(), &3000i64.to_le_bytes());
            continue;
        }
        // And its dictionary, as far as it was decompressed: key 3000 is entry 1000.
        let chunk = metadata(&bytes).metadata().row_group(0).column(0).clone();
        let at = chunk.dictionary_page_offset().unwrap() as u64;
        let mut kept = r.take_decompressed(at).unwrap();
        let so_far = kept.decompressed();
        assert!(so_far < kept.total() / 4, "{so_far} of {}", kept.total());
        assert_eq!(kept.get(8000, 8008).unwrap(), &3000i64.to_le_bytes());
    }
    let bytes = file(&sorted, &TypeKind::BigInt, false, layout.clone());
    let r = reader(&bytes).await;
    let found = run_on(&r, &bytes, &key, "id = 1199997").await;
    assert_eq!(found, Some(KeyPages::Found(vec![399_999..400_000])));
    let kept = r.take_decompressed(page_offsets(&bytes)[0] as u64).unwrap();
    assert_eq!(kept.decompressed(), kept.total());
    let mut early = sorted.clone();
    early.swap(10, 11);
    let bytes = file(&early, &TypeKind::BigInt, false, layout);
    let found = run(&bytes, &key, "id = 3000").await;
    assert_eq!(found, Some(KeyPages::Unsorted));
}

#[tokio::test]
async fn the_last_plain_page_is_searched_up_to_the_first_value_beyond() {
    last_page_searched_up_to_the_first_value_beyond(false).await;
}

#[tokio::test]
async fn a_dictionary_page_is_searched_up_to_the_first_value_beyond() {
    last_page_searched_up_to_the_first_value_beyond(true).await;
}
