use std::sync::Arc;

use arrow_array::{ArrayRef, Int32Array, Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use bytes::Bytes;
use parquet::basic::{Compression, Encoding};
use parquet::column::page::Page;
use parquet::file::properties::WriterProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};

use super::*;
use crate::read::test_files::parquet_bytes;

fn section(bytes: &[u8]) -> PagePrefix {
    PagePrefix::plain(Bytes::copy_from_slice(bytes))
}

/// The values at `wanted` as INT64s (`width` 8) or INT32s (4).
fn picked(bytes: &[u8], width: usize, wanted: &[usize]) -> Option<Vec<i64>> {
    let mut out = Vec::new();
    pick(&mut section(bytes), 0, width, wanted, &mut out)?;
    Some(
        out.chunks(width)
            .map(|c| match width {
                4 => i64::from(i32::from_le_bytes(c.try_into().unwrap())),
                _ => i64::from_le_bytes(c.try_into().unwrap()),
            })
            .collect(),
    )
}

/// Example 1 of Parquet's `Encodings.md`: 1, 2, 3, 4, 5 (block of 128 values in 4
/// miniblocks; first value 1; minimum delta 1, every miniblock 0 bits wide).
const ONE_TO_FIVE: [u8; 10] = [0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 0, 0, 0];

/// Example 2: 7, 5, 3, 1, 2, 3, 4, 5 (minimum delta -2; the relative deltas 0, 0, 0, 3, 3,
/// 3, 3 in 2 bits each: the first miniblock, 32 values padded with zeros, 8 bytes).
const SEVEN_DOWN_AND_UP: [u8; 18] = [
    0x80, 0x01, 0x04, 0x08, 0x0e, // header: 128, 4, 8 values, first 7
    0x03, 2, 0, 0, 0, // min delta -2, bit widths
    0xc0, 0x3f, 0, 0, 0, 0, 0, 0, // 0 0 0 3 | 3 3 3 (0)...
];

#[test]
fn the_format_examples_decode() {
    for width in [4, 8] {
        assert_eq!(
            picked(&ONE_TO_FIVE, width, &[0, 1, 2, 3, 4]).unwrap(),
            vec![1, 2, 3, 4, 5]
        );
        assert_eq!(picked(&ONE_TO_FIVE, width, &[3]).unwrap(), vec![4]);
        assert_eq!(
            picked(&SEVEN_DOWN_AND_UP, width, &(0..8).collect::<Vec<_>>()).unwrap(),
            vec![7, 5, 3, 1, 2, 3, 4, 5]
        );
        // A value wanted twice is given twice; none wanted, nothing.
        assert_eq!(
            picked(&SEVEN_DOWN_AND_UP, width, &[0, 4, 4, 7]).unwrap(),
            vec![7, 2, 2, 5]
        );
        assert_eq!(
            picked(&SEVEN_DOWN_AND_UP, width, &[]).unwrap(),
            Vec::<i64>::new()
        );
        // Past the value count.
        assert!(picked(&SEVEN_DOWN_AND_UP, width, &[8]).is_none());
    }
    // Only 4- and 8-byte values.
    assert!(picked(&ONE_TO_FIVE, 2, &[0]).is_none());
}

#[test]
fn malformed_headers_and_widths_are_none() {
    let with = |at: usize, b: u8| {
        let mut v = SEVEN_DOWN_AND_UP.to_vec();
        v[at] = b;
        v
    };
    // Block size not a multiple of 128 (0x81 0x01 = 129); miniblocks not dividing it into
    // multiples of 32 (3, 8 → 16 values); no miniblocks.
    assert!(picked(&with(0, 0x81), 8, &[1]).is_none());
    assert!(picked(&with(2, 3), 8, &[1]).is_none());
    assert!(picked(&with(2, 8), 8, &[1]).is_none());
    assert!(picked(&with(2, 0), 8, &[1]).is_none());
    // A bit width over 64.
    assert!(picked(&with(6, 65), 8, &[1]).is_none());
    // A varint that never ends.
    assert!(picked(&[0xff; 12], 8, &[0]).is_none());
}

#[test]
fn truncated_or_damaged_sections_never_panic() {
    let (bytes, values) = arrow_rs_section(DataType::Int64, 3000, 11);
    let all: Vec<usize> = (0..values.len()).collect();
    assert_eq!(picked(&bytes, 8, &all).unwrap(), values);
    // Cut anywhere: the values it still holds, or none.
    for cut in (0..bytes.len()).step_by(7) {
        if let Some(got) = picked(&bytes[..cut], 8, &all) {
            assert_eq!(got, values, "cut at {cut}");
        }
    }
    // Bytes flipped anywhere: any answer, but no panic.
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..2000 {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let mut bad = bytes.clone();
        let at = (rng % bad.len() as u64) as usize;
        bad[at] ^= (rng >> 32) as u8 | 1;
        let _ = picked(&bad, 8, &[(rng >> 40) as usize % values.len()]);
    }
}

/// Values an arrow-rs `DELTA_BINARY_PACKED` page holds: random, sorted, constant and
/// extreme stretches (deltas that wrap and need all 64 bits).
fn values(n: usize, seed: u64) -> Vec<i64> {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..n)
        .map(|i| match (i / 300) % 4 {
            0 => (next() % 1_000_000) as i64 - 500_000,
            1 => i as i64 * 17,
            2 => 42,
            _ => [i64::MIN, i64::MAX, 0, -1][i % 4].wrapping_add((next() % 3) as i64),
        })
        .collect()
}

/// One page's values section, as arrow-rs wrote it (uncompressed, a required column), and
/// the values, of an INT64 or INT32 (the values' low 32 bits) column.
fn arrow_rs_section(t: DataType, n: usize, seed: u64) -> (Vec<u8>, Vec<i64>) {
    let raw = values(n, seed);
    let (array, want): (ArrayRef, Vec<i64>) = match t {
        DataType::Int32 => {
            let v: Vec<i32> = raw.iter().map(|&v| v as i32).collect();
            let want = v.iter().map(|&v| i64::from(v)).collect();
            (Arc::new(Int32Array::from(v)), want)
        }
        _ => (Arc::new(Int64Array::from(raw.clone())), raw),
    };
    let schema = Arc::new(Schema::new(vec![Field::new("x", t, false)]));
    let batch = RecordBatch::try_new(schema, vec![array]).unwrap();
    let props = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_encoding(Encoding::DELTA_BINARY_PACKED)
        .set_compression(Compression::UNCOMPRESSED)
        .set_data_page_row_count_limit(n)
        .set_write_batch_size(n)
        .build();
    let file = SerializedFileReader::new(parquet_bytes(&batch, props)).unwrap();
    let mut pages = file
        .get_row_group(0)
        .unwrap()
        .get_column_page_reader(0)
        .unwrap();
    match pages.get_next_page().unwrap().unwrap() {
        Page::DataPage {
            buf,
            encoding,
            num_values,
            ..
        } => {
            assert_eq!(encoding, Encoding::DELTA_BINARY_PACKED);
            assert_eq!(num_values as usize, n);
            (buf.to_vec(), want)
        }
        other => panic!("not a data page: {:?}", other.page_type()),
    }
}

#[test]
fn values_arrow_rs_wrote_are_picked_as_arrow_rs_reads_them() {
    for (t, width) in [(DataType::Int64, 8), (DataType::Int32, 4)] {
        for (n, seed) in [(1, 3), (127, 5), (129, 7), (1500, 9), (4099, 13)] {
            let (bytes, want) = arrow_rs_section(t.clone(), n, seed);
            let all: Vec<usize> = (0..n).collect();
            assert_eq!(picked(&bytes, width, &all).unwrap(), want, "{t} {n}");
            // Single values and a sparse few, each as read in full.
            for i in [0, n / 3, n - 1] {
                assert_eq!(
                    picked(&bytes, width, &[i]).unwrap(),
                    vec![want[i]],
                    "{t} {n} {i}"
                );
            }
            let few: Vec<usize> = (0..n).step_by(97).collect();
            let got = picked(&bytes, width, &few).unwrap();
            assert_eq!(
                got,
                few.iter().map(|&i| want[i]).collect::<Vec<_>>(),
                "{t} {n}"
            );
        }
    }
}
