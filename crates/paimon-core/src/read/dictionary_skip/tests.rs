use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use futures::TryStreamExt;
use parquet::arrow::arrow_reader::{RowSelection, RowSelector};
use parquet::arrow::{ParquetRecordBatchStreamBuilder, ProjectionMask};
use parquet::file::properties::{WriterProperties, WriterVersion};

use super::*;
use crate::read::test_files::{metadata, parquet_bytes, random_byte_strings, stored};

const ROWS: usize = 4000;

/// A file whose `id` (distinct) and `s` (distinct strings) fall back from a small dictionary
/// to PLAIN pages, and whose `k` (10 values) stays dictionary-encoded; pages of 100 rows.
fn file(version: WriterVersion) -> Bytes {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("k", DataType::Int64, false),
        Field::new("s", DataType::Utf8, true),
    ]));
    let ids: Vec<i64> = (0..ROWS as i64).collect();
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(Int64Array::from(ids.clone())),
            Arc::new(Int64Array::from_iter_values(ids.iter().map(|i| i % 10))),
            Arc::new(StringArray::from_iter(
                ids.iter().map(|i| (i % 13 != 0).then(|| format!("s-{i}"))),
            )),
        ],
    )
    .unwrap();
    let props = WriterProperties::builder()
        .set_writer_version(version)
        .set_dictionary_page_size_limit(2048)
        .set_data_page_row_count_limit(100)
        .set_write_batch_size(100)
        .build();
    parquet_bytes(&batch, props)
}

/// The rows `rows` of every column, decoded with `meta`.
async fn decode(
    reader: &FileIoParquetReader,
    meta: ArrowReaderMetadata,
    rows: &RowRange,
) -> Vec<RecordBatch> {
    let mask = ProjectionMask::all();
    let start = rows.start as usize;
    let len = (rows.end - rows.start) as usize;
    let selection = RowSelection::from(vec![
        RowSelector::skip(start),
        RowSelector::select(len),
        RowSelector::skip(ROWS - start - len),
    ]);
    ParquetRecordBatchStreamBuilder::new_with_metadata(reader.clone(), meta)
        .with_projection(mask)
        .with_row_selection(selection)
        .build()
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

/// Each page header's encoding in column `c` of the only row group.
fn encodings(bytes: &Bytes, meta: &ArrowReaderMetadata, c: usize) -> Vec<Option<i32>> {
    let index = &meta.metadata().offset_index().unwrap()[0][c];
    index
        .page_locations()
        .iter()
        .map(|p| {
            let start = p.offset as usize;
            data_page_encoding(&bytes[start..start + p.compressed_page_size as usize])
        })
        .collect()
}

#[test]
fn reads_the_encoding_of_v1_and_v2_data_page_headers() {
    for version in [WriterVersion::PARQUET_1_0, WriterVersion::PARQUET_2_0] {
        let bytes = file(version);
        let meta = metadata(&bytes);
        // `id`: dictionary pages first, then the fallback encoding (PLAIN in v1,
        // DELTA_BINARY_PACKED in v2), never back.
        let fallback_encoding = match version {
            WriterVersion::PARQUET_1_0 => 0,
            _ => 5,
        };
        let id = encodings(&bytes, &meta, 0);
        assert_eq!(id.len(), ROWS / 100, "{version:?}");
        assert_eq!(id[0], Some(RLE_DICTIONARY), "{version:?}");
        let fallback = id
            .iter()
            .position(|e| *e == Some(fallback_encoding))
            .unwrap();
        assert!(fallback > 0);
        assert!(id[fallback..].iter().all(|e| *e == Some(fallback_encoding)));
        // `k`: dictionary-encoded throughout.
        assert!(encodings(&bytes, &meta, 1)
            .iter()
            .all(|e| *e == Some(RLE_DICTIONARY)));
    }
}

#[test]
fn unreadable_headers_have_no_encoding() {
    // A dictionary page header (type 2) is not a data page.
    assert_eq!(data_page_encoding(&[0x15, 0x04, 0x00]), None);
    // Truncated, empty, and a struct where an i32 belongs.
    assert_eq!(data_page_encoding(&[0x15]), None);
    assert_eq!(data_page_encoding(&[]), None);
    assert_eq!(data_page_encoding(&[0x1c, 0x00]), None);
    // type DATA_PAGE, sizes 1, then DataPageHeader { num_values: 1, encoding: PLAIN }.
    assert_eq!(
        data_page_encoding(&[
            0x15, 0x00, 0x15, 0x02, 0x15, 0x02, 0x2c, 0x15, 0x02, 0x15, 0x00, 0x00, 0x00
        ]),
        Some(0)
    );
    // The same with encoding RLE_DICTIONARY (zigzag 16); cut before its end: unreadable.
    let rle = [0x15, 0x00, 0x4c, 0x15, 0x02, 0x15, 0x10, 0x00, 0x00];
    assert_eq!(data_page_encoding(&rle), Some(RLE_DICTIONARY));
    assert_eq!(data_page_encoding(&rle[..7]), None);
}

#[tokio::test]
async fn a_row_in_plain_pages_is_read_without_their_dictionaries() {
    for version in [WriterVersion::PARQUET_1_0, WriterVersion::PARQUET_2_0] {
        let bytes = file(version);
        let meta = metadata(&bytes);
        let groups = [(0usize, 0..ROWS as u64)];
        let leaves = [0usize, 1, 2];
        let row = (ROWS as u64 - 7)..(ROWS as u64 - 6);

        let (io, reader) = stored(&bytes).await;
        let lean = without_unused_dictionaries(
            &meta,
            &reader,
            &groups,
            std::slice::from_ref(&row),
            &leaves,
        )
        .await
        .expect("dictionaries of id and s dropped");
        let chunks = lean.metadata().row_group(0).columns();
        assert!(chunks[0].dictionary_page_offset().is_none());
        assert!(
            chunks[1].dictionary_page_offset().is_some(),
            "k needs its dictionary"
        );
        assert!(chunks[2].dictionary_page_offset().is_none());
        let before = io.read_stats().bytes;
        let got = decode(&reader, lean, &row).await;
        // Every page was fetched by the check above; only k's dictionary is left to fetch.
        let k = meta.metadata().row_group(0).column(1);
        let k_dict = k.data_page_offset() - k.dictionary_page_offset().unwrap();
        assert_eq!(io.read_stats().bytes - before, k_dict as u64, "{version:?}");

        let (_, plain_reader) = stored(&bytes).await;
        let want = decode(&plain_reader, meta.clone(), &row).await;
        assert_eq!(got, want, "{version:?}");
        assert_eq!(want.iter().map(RecordBatch::num_rows).sum::<usize>(), 1);
    }
}

#[tokio::test]
async fn a_row_in_a_dictionary_page_keeps_every_dictionary() {
    let bytes = file(WriterVersion::PARQUET_1_0);
    let meta = metadata(&bytes);
    let (_, reader) = stored(&bytes).await;
    let groups = [(0usize, 0..ROWS as u64)];
    // Row 3 is in the first pages, which are dictionary-encoded in every column.
    let lean = without_unused_dictionaries(
        &meta,
        &reader,
        &groups,
        std::slice::from_ref(&(3..4)),
        &[0, 1, 2],
    )
    .await;
    assert!(lean.is_none());
    // A selection spanning a dictionary page and a plain page keeps the dictionary too.
    let lean =
        without_unused_dictionaries(&meta, &reader, &groups, &[0..1, 3990..3991], &[0]).await;
    assert!(lean.is_none());
}

#[test]
fn arbitrary_bytes_never_panic() {
    // Every prefix of a real header, and pseudo-random bytes: an answer or `None`, no panic.
    let bytes = file(WriterVersion::PARQUET_1_0);
    let meta = metadata(&bytes);
    let p = &meta.metadata().offset_index().unwrap()[0][0].page_locations()[0];
    let header = &bytes[p.offset as usize..p.offset as usize + 64];
    for n in 0..header.len() {
        let _ = data_page_encoding(&header[..n]);
    }
    for buf in random_byte_strings(20_000, 24) {
        let _ = data_page_encoding(&buf);
    }
}
