//! Golden bytes: the streams the patched orc-rust writer (`vendor/orc-rust`) produces for a
//! DECIMAL(38, 10), a DECIMAL(10, 2) and an ARRAY<INT> column, compared with the streams
//! pyarrow's ORC writer (Apache ORC C++ 2.0.0) wrote for the same values into
//! `testdata/orc-golden/golden.orc` (`make.py` there; both uncompressed, one stripe).
//!
//! For these values every stream is byte-equal: the decimal DATA streams (zigzag varints,
//! deterministic), the PRESENT streams (boolean byte RLE), and the RLE v2 streams (decimal
//! SECONDARY scales, list LENGTH, element DATA), where orc-rust's encoder, adapted from Java's
//! `RunLengthIntegerWriterV2`, picks the same sub-encodings as ORC C++. RLE v2 may legitimately
//! pick other sub-encodings for other values; should a stream differ after a change, compare
//! its decoded values instead ([`both_files_decode_to_the_values_written`] already reads both
//! files back equal to the values written).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, Decimal128Array, Int32Builder, ListBuilder, RecordBatch};
use arrow::datatypes::{Field, Schema};
use bytes::Bytes;
use orc_rust::arrow_writer::ArrowWriterBuilder;
use orc_rust::proto::{self, stream::Kind};
use orc_rust::ArrowReaderBuilder;
use prost::Message;

/// The values of `make.py`.
const MAX_38: i128 = 10_i128.pow(38) - 1;
const D38: [Option<i128>; 12] = [
    Some(0),
    Some(1),
    Some(-1),
    Some(123_456_789_012_345),
    Some(MAX_38),
    Some(-MAX_38),
    None,
    Some((1 << 126) + 7),
    Some(-(1 << 126) - 7),
    Some(10_i128.pow(30)),
    None,
    Some(-5),
];
const D10: [Option<i128>; 12] = [
    Some(0),
    Some(1250),
    Some(-1250),
    Some(9_999_999_999),
    Some(-9_999_999_999),
    None,
    Some(7),
    Some(7),
    Some(7),
    Some(7),
    Some(7),
    Some(-300),
];

fn lists() -> ArrayRef {
    let rows: [Option<&[Option<i32>]>; 12] = [
        Some(&[Some(1), Some(2), Some(3)]),
        Some(&[]),
        None,
        Some(&[None, Some(5)]),
        Some(&[Some(-7)]),
        Some(&[
            Some(100_000),
            Some(-100_000),
            Some(7),
            Some(7),
            Some(7),
            Some(7),
        ]),
        None,
        Some(&[]),
        Some(&[Some(0)]),
        Some(&[Some(i32::MAX), Some(i32::MIN)]),
        Some(&[None]),
        Some(&[
            Some(9),
            Some(8),
            Some(7),
            Some(6),
            Some(5),
            Some(4),
            Some(3),
            Some(2),
            Some(1),
            Some(0),
        ]),
    ];
    let mut b = ListBuilder::new(Int32Builder::new());
    for row in rows {
        match row {
            Some(values) => {
                for v in values {
                    b.values().append_option(*v);
                }
                b.append(true);
            }
            None => b.append(false),
        }
    }
    Arc::new(b.finish())
}

fn batch() -> RecordBatch {
    let d38 = Decimal128Array::from(D38.to_vec())
        .with_precision_and_scale(38, 10)
        .unwrap();
    let d10 = Decimal128Array::from(D10.to_vec())
        .with_precision_and_scale(10, 2)
        .unwrap();
    let l = lists();
    let schema = Schema::new(vec![
        Field::new("d38", d38.data_type().clone(), true),
        Field::new("d10", d10.data_type().clone(), true),
        Field::new("l", l.data_type().clone(), true),
    ]);
    RecordBatch::try_new(Arc::new(schema), vec![Arc::new(d38), Arc::new(d10), l]).unwrap()
}

/// The streams of an uncompressed single-stripe ORC file by (column, kind), index streams
/// left out.
fn streams(file: &[u8]) -> BTreeMap<(u32, Kind), Vec<u8>> {
    let ps_len = usize::from(file[file.len() - 1]);
    let ps_start = file.len() - 1 - ps_len;
    let ps = proto::PostScript::decode(&file[ps_start..file.len() - 1]).unwrap();
    assert_eq!(ps.compression(), proto::CompressionKind::None);
    let footer_start = ps_start - ps.footer_length() as usize;
    let footer = proto::Footer::decode(&file[footer_start..ps_start]).unwrap();
    assert_eq!(footer.stripes.len(), 1);
    let stripe = &footer.stripes[0];
    let footer_at = (stripe.offset() + stripe.index_length() + stripe.data_length()) as usize;
    let stripe_footer =
        proto::StripeFooter::decode(&file[footer_at..footer_at + stripe.footer_length() as usize])
            .unwrap();
    let mut out = BTreeMap::new();
    let mut offset = stripe.offset() as usize;
    for s in &stripe_footer.streams {
        let end = offset + s.length() as usize;
        if !matches!(s.kind(), Kind::RowIndex | Kind::BloomFilterUtf8) {
            out.insert((s.column(), s.kind()), file[offset..end].to_vec());
        }
        offset = end;
    }
    out
}

fn golden() -> Vec<u8> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/orc-golden/golden.orc");
    std::fs::read(path).unwrap()
}

fn ours() -> Vec<u8> {
    let mut f = vec![];
    let batch = batch();
    let mut writer = ArrowWriterBuilder::new(&mut f, batch.schema())
        .try_build()
        .unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    f
}

#[test]
fn decimal_and_list_streams_match_orc_cpp() {
    let (golden, ours) = (streams(&golden()), streams(&ours()));
    let kinds = |m: &BTreeMap<(u32, Kind), Vec<u8>>| m.keys().copied().collect::<Vec<_>>();
    // The same streams: PRESENT + DATA + SECONDARY per decimal, PRESENT + LENGTH for the
    // list, PRESENT + DATA for its elements.
    assert_eq!(kinds(&ours), kinds(&golden));
    for (key, bytes) in &golden {
        assert_eq!(
            &ours[key], bytes,
            "stream {key:?}: ours {:02x?}, ORC C++ {:02x?}",
            ours[key], bytes
        );
    }
}

#[test]
fn both_files_decode_to_the_values_written() {
    let expected = batch();
    for file in [golden(), ours()] {
        let reader = ArrowReaderBuilder::try_new(Bytes::from(file))
            .unwrap()
            .with_schema(expected.schema())
            .build();
        let read: Vec<RecordBatch> = reader.collect::<Result<_, _>>().unwrap();
        assert_eq!(read.len(), 1);
        for i in 0..3 {
            assert_eq!(read[0].column(i).as_ref(), expected.column(i).as_ref());
        }
    }
}
