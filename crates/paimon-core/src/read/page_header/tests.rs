use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use bytes::Bytes;
use parquet::basic::{Compression, Encoding};
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};

use super::*;
use crate::read::test_files::{metadata, parquet_bytes, random_byte_strings};

const ROWS: usize = 3000;

/// A file of a nullable `id` (every 7th row null) and a string `s`, pages of 500 rows, with
/// page statistics in the headers.
fn file(version: WriterVersion, dictionary: bool) -> Bytes {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, true),
        Field::new("s", DataType::Utf8, false),
    ]));
    let ids = Int64Array::from_iter((0..ROWS as i64).map(|i| (i % 7 != 0).then_some(i)));
    let s = StringArray::from_iter_values((0..ROWS).map(|i| format!("value-{i}")));
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(ids), Arc::new(s)]).unwrap();
    let props = WriterProperties::builder()
        .set_writer_version(version)
        .set_dictionary_enabled(dictionary)
        .set_encoding(Encoding::PLAIN)
        .set_compression(Compression::ZSTD(Default::default()))
        .set_data_page_row_count_limit(500)
        .set_write_batch_size(500)
        .set_statistics_enabled(EnabledStatistics::Page)
        .set_write_page_header_statistics(true)
        .build();
    parquet_bytes(&batch, props)
}

#[test]
fn reads_v1_and_v2_data_page_headers_written_by_arrow_rs() {
    for version in [WriterVersion::PARQUET_1_0, WriterVersion::PARQUET_2_0] {
        let bytes = file(version, false);
        let meta = metadata(&bytes);
        for column in 0..2 {
            let pages = meta.metadata().offset_index().unwrap()[0][column].page_locations();
            assert_eq!(pages.len(), ROWS / 500, "{version:?}");
            for (i, p) in pages.iter().enumerate() {
                let at = p.offset as usize;
                let h = PageHeader::parse(&bytes[at..at + p.compressed_page_size as usize])
                    .unwrap_or_else(|| panic!("{version:?} column {column} page {i}"));
                assert!(h.is_data_page());
                // The offset index counts header and data.
                assert_eq!(
                    h.header_len + h.compressed_size,
                    p.compressed_page_size as usize
                );
                assert_eq!(h.num_values, 500);
                assert_eq!(h.encoding, PLAIN, "{version:?}");
                match version {
                    WriterVersion::PARQUET_1_0 => {
                        assert_eq!(h.page_type, DATA_PAGE);
                        assert_eq!(h.def_encoding, RLE);
                    }
                    _ => {
                        assert_eq!(h.page_type, DATA_PAGE_V2);
                        assert_eq!(h.rep_len, 0);
                        // Optional `id` has definition levels, required `s` none.
                        assert_eq!(h.def_len > 0, column == 0);
                        assert!(h.is_compressed);
                    }
                }
                assert!(!h.needs_dictionary());
            }
        }
    }
}

#[test]
fn reads_dictionary_page_headers_and_dictionary_encoded_pages() {
    let bytes = file(WriterVersion::PARQUET_1_0, true);
    let meta = metadata(&bytes);
    let chunk = meta.metadata().row_group(0).column(1);
    let at = chunk.dictionary_page_offset().unwrap() as usize;
    let h = PageHeader::parse(&bytes[at..]).unwrap();
    assert_eq!(h.page_type, DICTIONARY_PAGE);
    assert_eq!(h.encoding, PLAIN);
    assert!(h.num_values > 0);
    assert_eq!(
        at + h.header_len + h.compressed_size,
        chunk.data_page_offset() as usize
    );
    let first = &meta.metadata().offset_index().unwrap()[0][1].page_locations()[0];
    let data = PageHeader::parse(&bytes[first.offset as usize..]).unwrap();
    assert!(data.needs_dictionary());
}

#[test]
fn hand_made_headers() {
    // type DATA_PAGE_V2 (3), uncompressed 10, compressed 8, then DataPageHeaderV2
    // { num_values 4, num_nulls 1, num_rows 4, encoding PLAIN, def_len 2, rep_len 0,
    // is_compressed false }.
    let v2 = [
        0x15, 0x06, 0x15, 0x14, 0x15, 0x10, 0x5c, 0x15, 0x08, 0x15, 0x02, 0x15, 0x08, 0x15, 0x00,
        0x15, 0x04, 0x15, 0x00, 0x12, 0x00, 0x00,
    ];
    let h = PageHeader::parse(&v2).unwrap();
    assert_eq!(
        h,
        PageHeader {
            page_type: DATA_PAGE_V2,
            uncompressed_size: 10,
            compressed_size: 8,
            header_len: v2.len(),
            num_values: 4,
            encoding: PLAIN,
            def_encoding: RLE,
            def_len: 2,
            rep_len: 0,
            is_compressed: false,
        }
    );
    // Unknown fields of every kind are skipped: a binary (9), a list of two i32s (10), a map
    // of one i32 → binary (11), a bool (12), then DataPageHeader { num_values 1, encoding 8 }.
    let skipped = [
        0x15, 0x00, // type DATA_PAGE
        0x88, 0x02, 0xaa, 0xbb, // field 9: binary of 2 bytes
        0x19, 0x25, 0x02, 0x04, // field 10: list<i32> [1, 2]
        0x1b, 0x01, 0x58, 0x02, 0x01, 0xcc, // field 11: map<i32, binary> {1: [0xcc]}
        0x11, // field 12: bool true
        0x0c, 0x0a, 0x15, 0x02, 0x15, 0x10, 0x00, // field 5 (long form): data page
        0x00,
    ];
    let h = PageHeader::parse(&skipped).unwrap();
    assert_eq!(h.page_type, DATA_PAGE);
    assert_eq!(h.num_values, 1);
    assert_eq!(h.encoding, RLE_DICTIONARY);
    assert_eq!(h.header_len, skipped.len());
    // Every cut of it is unreadable, never a panic.
    for n in 0..skipped.len() {
        assert_eq!(PageHeader::parse(&skipped[..n]), None, "cut at {n}");
    }
}

#[test]
fn malformed_headers_are_none() {
    // No page type; a struct where an i32 belongs; an unknown field type; nesting too deep.
    assert_eq!(PageHeader::parse(&[0x00]), None);
    assert_eq!(PageHeader::parse(&[0x1c, 0x00, 0x00]), None);
    assert_eq!(PageHeader::parse(&[0x15, 0x00, 0x1d, 0x00]), None);
    let mut deep = vec![0x15, 0x00];
    deep.extend(std::iter::repeat_n(0x1c, 40));
    deep.extend(std::iter::repeat_n(0x00, 41));
    assert_eq!(PageHeader::parse(&deep), None);
}

#[test]
fn arbitrary_bytes_never_panic() {
    let bytes = file(WriterVersion::PARQUET_2_0, true);
    let meta = metadata(&bytes);
    let p = &meta.metadata().offset_index().unwrap()[0][0].page_locations()[1];
    let header = &bytes[p.offset as usize..p.offset as usize + 96];
    for n in 0..header.len() {
        let _ = PageHeader::parse(&header[..n]);
    }
    for buf in random_byte_strings(20_000, 32) {
        let _ = PageHeader::parse(&buf);
    }
}
