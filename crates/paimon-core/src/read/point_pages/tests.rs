//! Every read here is compared with arrow-rs reading the same rows of the same file.
#![allow(clippy::single_range_in_vec_init)]

use std::sync::Arc;

use arrow_array::{
    ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, FixedSizeBinaryArray,
    Float32Array, Float64Array, Int16Array, Int32Array, Int64Array, RecordBatch, StringArray,
    TimestampMicrosecondArray,
};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use arrow_select::concat::concat_batches;
use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use parquet::arrow::arrow_reader::{RowSelection, RowSelector};
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::file::metadata::PageIndexPolicy;
use parquet::file::properties::{WriterProperties, WriterPropertiesBuilder, WriterVersion};
use parquet::schema::types::ColumnPath;

use super::*;
use crate::read::test_files::{groups, metadata, parquet_bytes, reader, stored};

const ROWS: usize = 5000;

/// Deterministic pseudo-random numbers.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A batch with a column of every physical type, nullable ones with nulls (some in runs),
/// distinct values (dictionary fallback) and repeated ones (dictionary-encoded throughout).
fn batch(rows: usize) -> RecordBatch {
    let null = |i: usize| i % 7 == 3 || (1000..1100).contains(&i);
    let fields = vec![
        Field::new("id", DataType::Int64, false),
        Field::new("k", DataType::Int32, true),
        Field::new("small", DataType::Int16, false),
        Field::new("flag", DataType::Boolean, true),
        Field::new("f", DataType::Float32, false),
        Field::new("d", DataType::Float64, true),
        Field::new("s", DataType::Utf8, true),
        Field::new("word", DataType::Utf8, false),
        Field::new("b", DataType::Binary, true),
        Field::new("fixed", DataType::FixedSizeBinary(3), true),
        Field::new("dec", DataType::Decimal128(20, 3), true),
        Field::new("day", DataType::Date32, false),
        Field::new("ts", DataType::Timestamp(TimeUnit::Microsecond, None), true),
    ];
    let n = rows;
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from_iter_values((0..n as i64).map(|i| i * 3))),
        Arc::new(Int32Array::from_iter(
            (0..n).map(|i| (!null(i)).then_some((i % 10) as i32)),
        )),
        Arc::new(Int16Array::from_iter_values(
            (0..n).map(|i| (i % 300) as i16),
        )),
        Arc::new(BooleanArray::from_iter(
            (0..n).map(|i| (i % 5 != 1).then_some(i % 3 == 0)),
        )),
        Arc::new(Float32Array::from_iter_values(
            (0..n).map(|i| i as f32 * 0.5),
        )),
        Arc::new(Float64Array::from_iter(
            (0..n).map(|i| (!null(i)).then_some(i as f64 / 7.0)),
        )),
        Arc::new(StringArray::from_iter((0..n).map(|i| {
            (!null(i)).then(|| format!("string-{i}-{}", "x".repeat(i % 17)))
        }))),
        Arc::new(StringArray::from_iter_values(
            (0..n).map(|i| ["alpha", "beta", "gamma", ""][i % 4]),
        )),
        Arc::new(BinaryArray::from_iter(
            (0..n).map(|i| (i % 11 != 0).then(|| vec![i as u8; i % 9])),
        )),
        Arc::new(
            FixedSizeBinaryArray::try_from_sparse_iter_with_size(
                (0..n).map(|i| (!null(i)).then_some([i as u8, (i >> 8) as u8, 7])),
                3,
            )
            .unwrap(),
        ),
        Arc::new(
            Decimal128Array::from_iter((0..n).map(|i| (!null(i)).then_some(i as i128 * 1001)))
                .with_precision_and_scale(20, 3)
                .unwrap(),
        ),
        Arc::new(Date32Array::from_iter_values(
            (0..n).map(|i| i as i32 + 19000),
        )),
        Arc::new(TimestampMicrosecondArray::from_iter(
            (0..n).map(|i| (!null(i)).then_some(i as i64 * 1_000_003)),
        )),
    ];
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
}

/// `ROWS` rows in pages of at most 700 rows, with the fallback encoding (after a dictionary
/// or without one) `encoding` or the writer's default (PLAIN in v1, DELTA and RLE in v2).
fn written(
    version: WriterVersion,
    codec: Compression,
    dictionary: bool,
    rg_rows: usize,
    encoding: Option<Encoding>,
) -> Bytes {
    let mut props = WriterProperties::builder();
    if let Some(e) = encoding {
        props = props.set_encoding(e);
    }
    written_with(props, version, codec, dictionary, rg_rows)
}

/// [`written`] with `props`' settings besides.
fn written_with(
    props: WriterPropertiesBuilder,
    version: WriterVersion,
    codec: Compression,
    dictionary: bool,
    rg_rows: usize,
) -> Bytes {
    let b = batch(ROWS);
    let props = props
        .set_writer_version(version)
        .set_compression(codec)
        .set_dictionary_enabled(dictionary)
        .set_dictionary_page_size_limit(4096)
        .set_data_page_row_count_limit(700)
        .set_write_batch_size(100)
        .set_max_row_group_row_count(Some(rg_rows))
        .build();
    parquet_bytes(&b, props)
}

fn write(version: WriterVersion, codec: Compression, dictionary: bool, rg_rows: usize) -> Bytes {
    written(version, codec, dictionary, rg_rows, Some(Encoding::PLAIN))
}

/// What arrow-rs reads of `ranges`, all columns `roots`, as one batch.
fn expected(bytes: &Bytes, roots: &[usize], ranges: &[RowRange]) -> RecordBatch {
    let mut selectors = Vec::new();
    let mut at = 0u64;
    for r in ranges {
        selectors.push(RowSelector::skip((r.start - at) as usize));
        selectors.push(RowSelector::select((r.end - r.start) as usize));
        at = r.end;
    }
    let builder = ParquetRecordBatchReaderBuilder::try_new(bytes.clone()).unwrap();
    let mask = ProjectionMask::roots(builder.parquet_schema(), roots.iter().copied());
    let reader = builder
        .with_projection(mask)
        .with_row_selection(RowSelection::from(selectors))
        .build()
        .unwrap();
    let schema = arrow_array::RecordBatchReader::schema(&reader);
    let batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
    concat_batches(&schema, &batches).unwrap()
}

/// The point read of `ranges` of columns `roots`, in batches of 1024 rows.
fn point_read<'a>(
    reader: &'a FileIoParquetReader,
    meta: &'a ArrowReaderMetadata,
    groups: &'a [(usize, RowRange)],
    ranges: &'a [RowRange],
    roots: &'a [usize],
) -> PointRead<'a> {
    PointRead {
        reader,
        meta,
        groups,
        ranges,
        roots,
        batch_size: 1024,
    }
}

async fn ours(bytes: &Bytes, roots: &[usize], ranges: &[RowRange]) -> Option<RecordBatch> {
    let meta = metadata(bytes);
    let r = reader(bytes).await;
    let g = groups(&meta);
    let batches = decode(point_read(&r, &meta, &g, ranges, roots)).await?;
    let schema = batches.first()?.schema();
    Some(concat_batches(&schema, &batches).unwrap())
}

fn random_ranges(rng: &mut Rng) -> Vec<RowRange> {
    let mut starts: Vec<u64> = (0..1 + rng.below(4))
        .map(|_| rng.below(ROWS) as u64)
        .collect();
    starts.sort_unstable();
    starts.dedup();
    let mut out: Vec<RowRange> = Vec::new();
    for s in starts {
        let end = (s + 1 + rng.below(3) as u64).min(ROWS as u64);
        match out.last_mut() {
            Some(last) if last.end >= s => last.end = last.end.max(end),
            _ => out.push(s..end),
        }
    }
    out
}

async fn check_random(bytes: Bytes, label: &str, seed: u64) {
    let all: Vec<usize> = (0..batch(1).num_columns()).collect();
    check_random_in(bytes, label, seed, &all).await;
}

/// [`check_random`] over the columns `all` (and subsets of them).
async fn check_random_in(bytes: Bytes, label: &str, seed: u64, all: &[usize]) {
    let all = all.to_vec();
    let mut rng = Rng(seed);
    for round in 0..40 {
        let ranges = random_ranges(&mut rng);
        let roots: Vec<usize> = if round % 3 == 0 {
            all.clone()
        } else {
            let mut r: Vec<usize> = all.iter().copied().filter(|_| rng.below(2) == 0).collect();
            if r.is_empty() {
                r.push(all[rng.below(all.len())]);
            }
            r
        };
        let got = ours(&bytes, &roots, &ranges)
            .await
            .unwrap_or_else(|| panic!("{label}: not read for {ranges:?}"));
        let want = expected(&bytes, &roots, &ranges);
        assert_eq!(got.num_rows(), want.num_rows(), "{label} {ranges:?}");
        assert_eq!(got.schema().fields(), want.schema().fields(), "{label}");
        for c in 0..want.num_columns() {
            assert_eq!(
                got.column(c).as_ref(),
                want.column(c).as_ref(),
                "{label} {ranges:?} column {}",
                want.schema().field(c).name()
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_rows_equal_arrow_rs_for_every_layout() {
    let zstd = Compression::ZSTD(ZstdLevel::try_new(3).unwrap());
    let mut seed = 7;
    for version in [WriterVersion::PARQUET_1_0, WriterVersion::PARQUET_2_0] {
        for codec in [
            zstd,
            Compression::SNAPPY,
            Compression::LZ4_RAW,
            Compression::UNCOMPRESSED,
        ] {
            for dictionary in [true, false] {
                for rg_rows in [ROWS, 1800] {
                    let label = format!("{version:?} {codec:?} dict={dictionary} rg={rg_rows}");
                    seed += 1;
                    check_random(write(version, codec, dictionary, rg_rows), &label, seed).await;
                }
            }
        }
    }
}

/// The integer and floating-point columns of [`batch`]: `id`, `k`, `small`, `f`, `d`, `day`,
/// `ts`.
const NUMBERS: [usize; 7] = [0, 1, 2, 4, 5, 11, 12];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delta_packed_integers_equal_arrow_rs() {
    // v2's default without dictionary (`DELTA_BINARY_PACKED` integers, PLAIN floats), and v1
    // pages encoded so (as our `_SEQUENCE_NUMBER`), in every codec read here.
    let zstd = Compression::ZSTD(ZstdLevel::try_new(3).unwrap());
    let mut seed = 101;
    for codec in [zstd, Compression::SNAPPY, Compression::UNCOMPRESSED] {
        for version in [WriterVersion::PARQUET_2_0, WriterVersion::PARQUET_1_0] {
            let mut props = WriterProperties::builder();
            if version == WriterVersion::PARQUET_1_0 {
                for name in ["id", "k", "small", "day", "ts"] {
                    let path = ColumnPath::new(vec![name.to_string()]);
                    props = props.set_column_encoding(path, Encoding::DELTA_BINARY_PACKED);
                }
            }
            for rg_rows in [ROWS, 1800] {
                let bytes = written_with(props.clone(), version, codec, false, rg_rows);
                let meta = metadata(&bytes);
                let chunk = meta.metadata().row_group(0).column(0);
                assert!(chunk
                    .encodings()
                    .any(|e| e == Encoding::DELTA_BINARY_PACKED));
                let label = format!("{version:?} {codec:?} rg={rg_rows}");
                seed += 1;
                check_random_in(bytes, &label, seed, &NUMBERS).await;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_is_not_read_here_falls_back() {
    let zstd = Compression::ZSTD(ZstdLevel::try_new(3).unwrap());
    let ranges = [10u64..12];
    // DELTA encodings of byte arrays (v2's default without dictionary) for the string column.
    let delta = written(WriterVersion::PARQUET_2_0, zstd, false, ROWS, None);
    assert!(ours(&delta, &[6], &ranges).await.is_none());
    assert!(ours(&delta, &[0, 6], &ranges).await.is_none());
    // GZIP is not decompressed here.
    let gzip = write(
        WriterVersion::PARQUET_1_0,
        Compression::GZIP(Default::default()),
        true,
        ROWS,
    );
    assert!(ours(&gzip, &[0], &ranges).await.is_none());
    // Without an offset index.
    let plain = write(WriterVersion::PARQUET_1_0, zstd, false, ROWS);
    let options = ArrowReaderOptions::new().with_page_index_policy(PageIndexPolicy::Skip);
    let meta = ArrowReaderMetadata::load(&plain, options).unwrap();
    let r = reader(&plain).await;
    let g = groups(&meta);
    assert!(decode(point_read(&r, &meta, &g, &ranges, &[0]))
        .await
        .is_none());
    // The plain file itself is read.
    assert!(ours(&plain, &[0, 6], &ranges).await.is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn corrupt_pages_fall_back_instead_of_answering() {
    let zstd = Compression::ZSTD(ZstdLevel::try_new(3).unwrap());
    let good = write(WriterVersion::PARQUET_1_0, zstd, false, ROWS);
    let meta = metadata(&good);
    let page = &meta.metadata().offset_index().unwrap()[0][6].page_locations()[2];
    let (at, size) = (page.offset as usize, page.compressed_page_size as usize);
    let row = page.first_row_index as u64 + 3;
    // The header, then the data, overwritten.
    for (from, to) in [(at, at + 6), (at + size - 40, at + size)] {
        let mut bad = good.to_vec();
        for b in &mut bad[from..to] {
            *b ^= 0x5a;
        }
        let bad = Bytes::from(bad);
        match ours(&bad, &[6], &[row..row + 1]).await {
            None => {}
            // A page that still decodes must give the row arrow-rs gives.
            Some(got) => assert_eq!(got, expected(&bad, &[6], &[row..row + 1])),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_point_read_decompresses_part_of_a_page() {
    // One row early in a large zstd page (~1 MiB of strings): the page's prefix only.
    let b = batch(60_000);
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(3).unwrap()))
        .set_dictionary_enabled(false)
        .build();
    let bytes = parquet_bytes(&b, props);
    let meta = metadata(&bytes);
    let loc = &meta.metadata().offset_index().unwrap()[0][6].page_locations()[0];
    let page =
        bytes.slice(loc.offset as usize..(loc.offset + loc.compressed_page_size as i64) as usize);
    let h = PageHeader::parse(&page).unwrap();
    let mut picked = Picked::default();
    let leaf = Leaf::new(parquet::basic::Type::BYTE_ARRAY, 0, 1).unwrap();
    let codec = meta.metadata().row_group(0).column(6).compression();
    // Count what is decompressed through a prefix of the same page.
    let data = page.slice(h.header_len..h.header_len + h.compressed_size);
    let mut p = prefix::PagePrefix::new(data, h.uncompressed_size, codec).unwrap();
    p.get(0, 64).unwrap();
    assert!(
        p.decompressed() < h.uncompressed_size / 2,
        "{} of {}",
        p.decompressed(),
        h.uncompressed_size
    );
    let page = FetchedPage {
        bytes: page,
        codec,
        ready: None,
    };
    pick(page, &leaf, None, &[5], &mut picked).unwrap();
    assert_eq!(picked.rows, 1);
    assert_eq!(&picked.plain[4..], b"string-5-xxxxx");
}

/// Column 0 (`id`) of row 5 by a point read of `bytes`, with `kept` (a section by its page's
/// offset) handed over as a key pass would; and the reader, to see what was left unused.
async fn id_of_row_5(bytes: &Bytes, kept: (u64, prefix::PagePrefix)) -> (i64, FileIoParquetReader) {
    let meta = metadata(bytes);
    let g = groups(&meta);
    let r = reader(bytes).await;
    r.keep_decompressed(kept.0, kept.1);
    let batches = decode(point_read(&r, &meta, &g, &[5..6], &[0]))
        .await
        .unwrap();
    let b = concat_batches(&batches[0].schema(), &batches).unwrap();
    let ids = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
    (ids.value(0), r)
}

/// The values section of the page at `at..end` of `bytes` (header first), and the section
/// decompressed whole with value 5 (8 bytes wide) changed to 77.
fn section_with_77_at_5(bytes: &Bytes, at: usize, end: usize) -> (Bytes, PageHeader, Vec<u8>) {
    let page = bytes.slice(at..end);
    let h = PageHeader::parse(&page).unwrap();
    let meta = metadata(bytes);
    let codec = meta.metadata().row_group(0).column(0).compression();
    let data = page.slice(h.header_len..h.header_len + h.compressed_size);
    let mut section = prefix::PagePrefix::new(data.clone(), h.uncompressed_size, codec).unwrap();
    let mut whole = section.get(0, h.uncompressed_size).unwrap().to_vec();
    // Value 5 (5 * 3) becomes 77.
    assert_eq!(whole[40..48], 15i64.to_le_bytes());
    whole[40..48].copy_from_slice(&77i64.to_le_bytes());
    (data, h, whole)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sections_a_key_pass_decompressed_are_not_decompressed_again() {
    // Column 0 (`id`, required INT64, PLAIN): its first page's section, kept decompressed with
    // one value changed, is what the point read returns; a section of the wrong size is not
    // used.
    let b = batch(ROWS);
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_dictionary_enabled(false)
        .set_data_page_row_count_limit(700)
        .set_write_batch_size(100)
        .build();
    let bytes = parquet_bytes(&b, props);
    let meta = metadata(&bytes);
    let loc = &meta.metadata().offset_index().unwrap()[0][0].page_locations()[0];
    let (at, end) = (
        loc.offset as usize,
        (loc.offset + loc.compressed_page_size as i64) as usize,
    );
    let (data, h, whole) = section_with_77_at_5(&bytes, at, end);
    let plain = |b: &[u8]| prefix::PagePrefix::plain(Bytes::copy_from_slice(b));
    let at = at as u64;
    assert_eq!(id_of_row_5(&bytes, (at, plain(&whole))).await.0, 77);
    assert_eq!(id_of_row_5(&bytes, (at, plain(&whole[..40]))).await.0, 15);
    // A section decompressed only in part (row 0) is decompressed further for row 5.
    let codec = meta.metadata().row_group(0).column(0).compression();
    let mut part = prefix::PagePrefix::new(data, h.uncompressed_size, codec).unwrap();
    part.get(0, 8).unwrap();
    let (id, r) = id_of_row_5(&bytes, (at, part)).await;
    assert_eq!(id, 15);
    assert!(r.take_decompressed(at).is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dictionary_a_key_pass_decompressed_is_not_decompressed_again() {
    // Column 0 (`id`, required INT64) dictionary-encoded: its dictionary's values section, kept
    // decompressed with one value changed, is what the point read looks row 5 up in; a section
    // of the wrong size is not used.
    let b = batch(ROWS);
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_data_page_row_count_limit(700)
        .set_write_batch_size(100)
        .build();
    let bytes = parquet_bytes(&b, props);
    let meta = metadata(&bytes);
    let chunk = meta.metadata().row_group(0).column(0);
    let at = chunk.dictionary_page_offset().unwrap() as usize;
    let (_, h, whole) = section_with_77_at_5(&bytes, at, chunk.data_page_offset() as usize);
    assert!(!h.is_data_page());
    let plain = |b: &[u8]| prefix::PagePrefix::plain(Bytes::copy_from_slice(b));
    let at = at as u64;
    let (id, r) = id_of_row_5(&bytes, (at, plain(&whole))).await;
    assert_eq!(id, 77);
    assert!(r.take_decompressed(at).is_none());
    assert_eq!(id_of_row_5(&bytes, (at, plain(&whole[..48]))).await.0, 15);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zstd_pages_are_fetched_in_part_and_whole_when_that_proves_short() {
    // One zstd page of 200,000 BIGINTs: random in its first half (incompressible), one value
    // repeated in the second (next to nothing compressed), so its compressed bytes all lie in
    // the first half of its rows.
    let mut rng = Rng(99);
    let values: Vec<i64> = (0..200_000)
        .map(|i| if i < 100_000 { rng.next() as i64 } else { 7 })
        .collect();
    let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, false)]));
    let b = RecordBatch::try_new(schema, vec![Arc::new(Int64Array::from(values))]).unwrap();
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(3).unwrap()))
        .set_dictionary_enabled(false)
        .set_data_page_row_count_limit(1 << 20)
        .set_data_page_size_limit(1 << 30)
        .set_write_batch_size(1 << 20)
        .build();
    let bytes = parquet_bytes(&b, props);
    let meta = metadata(&bytes);
    let page = meta.metadata().offset_index().unwrap()[0][0].page_locations()[0].clone();
    assert_eq!(
        meta.metadata().offset_index().unwrap()[0][0]
            .page_locations()
            .len(),
        1
    );
    let (io, r) = stored(&bytes).await;
    let g = groups(&meta);
    // (row, requests expected, whether less than half the page is fetched)
    let cases = [(10u64, 1, true), (90_000, 2, false), (199_990, 1, false)];
    for (row, requests, part) in cases {
        let ranges = [row..row + 1];
        let before = io.read_stats();
        let batches = decode(point_read(&r, &meta, &g, &ranges, &[0]))
            .await
            .unwrap();
        let after = io.read_stats();
        let got = concat_batches(&batches[0].schema(), &batches).unwrap();
        assert_eq!(got, expected(&bytes, &[0], &ranges), "row {row}");
        assert_eq!(after.requests - before.requests, requests, "row {row}");
        let fetched = after.bytes - before.bytes;
        let size = page.compressed_page_size as u64;
        assert_eq!(fetched < size / 2, part, "row {row}: {fetched} of {size}");
    }
}
