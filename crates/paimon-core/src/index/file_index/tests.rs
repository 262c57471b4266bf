//! Golden bytes (Java-written fixtures and the examples of `shared/spec/file-index.md`) and
//! corrupt-input tests of the file-index decoders.

use roaring::RoaringBitmap;

use super::bitmap::{self, BitmapIndex};
use super::bloom::{hash_literal, wang, xx64, BloomFilter};
use super::bsi::BsiIndex;
use super::format::{FileIndexContainer, Payload};
use super::key::{Key, KeyType};
use super::range_bitmap::{self, RangeBitmapIndex};
use super::*;
use crate::expr::{BoundField, BoundPredicate, LeafOp};
use crate::spec::datum::{Datum, Timestamp};
use crate::spec::types::{DataField, DataType, TypeKind};

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| c.is_ascii_hexdigit()).collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn fixture(rel: &str) -> Vec<u8> {
    let p = format!("{}/../../testdata/java/{rel}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn int() -> DataType {
    DataType::nullable(TypeKind::Int)
}

fn rows(v: &[u32]) -> FileIndexResult {
    FileIndexResult::Rows(v.iter().copied().collect())
}

/// The payload of (`column`, `kind`) in a container.
fn payload<'a>(c: &'a FileIndexContainer<'_>, column: &str, kind: &str) -> &'a [u8] {
    let e = c.column(column).find(|e| e.index_type == kind).unwrap();
    match c.payload(e).unwrap() {
        Payload::Bytes(b) => b,
        Payload::Empty => panic!("empty"),
    }
}

/// Brute-force expectation of `op` over `values` with SQL semantics (null never matches but
/// `IS NULL`).
fn expected(values: &[Option<i64>], op: &LeafOp) -> FileIndexResult {
    let long = |d: &Datum| match d {
        Datum::Int(v) => *v as i64,
        Datum::BigInt(v) => *v,
        _ => unreachable!(),
    };
    let keep = |v: Option<i64>| match (op, v) {
        (LeafOp::IsNull, v) => v.is_none(),
        (LeafOp::IsNotNull, v) => v.is_some(),
        (_, None) => false,
        (LeafOp::Eq(l), Some(v)) => v == long(l),
        (LeafOp::NotEq(l), Some(v)) => v != long(l),
        (LeafOp::Lt(l), Some(v)) => v < long(l),
        (LeafOp::LtEq(l), Some(v)) => v <= long(l),
        (LeafOp::Gt(l), Some(v)) => v > long(l),
        (LeafOp::GtEq(l), Some(v)) => v >= long(l),
        _ => unreachable!(),
    };
    let r: RoaringBitmap = (0..values.len() as u32)
        .filter(|&i| keep(values[i as usize]))
        .collect();
    FileIndexResult::Rows(r)
}

fn int_ops(v: i32) -> Vec<LeafOp> {
    let d = Datum::Int(v);
    vec![
        LeafOp::Eq(d.clone()),
        LeafOp::NotEq(d.clone()),
        LeafOp::Lt(d.clone()),
        LeafOp::LtEq(d.clone()),
        LeafOp::Gt(d.clone()),
        LeafOp::GtEq(d),
    ]
}

#[test]
fn container_head_golden_pk1() {
    // shared/spec/file-index.md §2 (PK1 head) and §5.7 (PK1 f2 payload).
    let mut bytes = hex("00054e4ed01a35ae 00000001 00000060 00000003
         0002 6630 00000001 0006 6269746d6170 00000060 00000044
         0002 6631 00000001 0006 6269746d6170 000000a4 00000036
         0002 6632 00000001 0006 6269746d6170 000000da 0000003e
         00000000");
    assert_eq!(bytes.len(), 96);
    bytes.resize(218, 0);
    bytes.extend(hex("02 00000002 00000001 00
         00000001 00000001 00000000 00000010
         00000001 00000001 00000000 00000014
         3a300000 01000000 00000100 10000000 00000100"));
    assert_eq!(bytes.len(), 280);
    let c = FileIndexContainer::decode(&bytes).unwrap();
    assert_eq!(c.entries().len(), 3);
    let f2 = payload(&c, "f2", "bitmap");
    assert_eq!(f2.len(), 62);
    let b = BitmapIndex::decode(f2, KeyType::I32).unwrap();
    assert_eq!((b.version, b.row_count), (2, 2));
    assert_eq!(
        b.rows_of(&Key::Long(1)).unwrap(),
        [0u32, 1].into_iter().collect()
    );
    assert!(b.rows_of(&Key::Long(2)).unwrap().is_empty());
    // The real sidecar of PK1 is the same bytes for the head and f2.
    let real = fixture(
        "parquet/pk_with_bitmap_dv.db/pk_with_bitmap_dv/bucket-0/data-bfa36b28-40e7-4026-893b-d23116973174-1.parquet.index",
    );
    assert_eq!(real.get(..96), bytes.get(..96));
    assert_eq!(real.get(218..), bytes.get(218..));
}

#[test]
fn bitmap_v2_and_v1_golden_pk0_f2() {
    // §5.7: rows 1,1,0,0,1,1,0,null.
    let v2 = hex("02 00000008 00000002 01 fffffff8 00000012
        00000001 00000000 00000000 0000001c
        00000002 00000000 00000000 00000016 00000001 00000016 00000018
        3a300000 01000000 00000200 10000000 02000300 0600
        3a300000 01000000 00000300 10000000 00000100 04000500");
    assert_eq!(v2.len(), 108);
    let v1 = hex(
        "01 00000008 00000002 01 fffffff8 00000000 00000000 00000001 00000016
        3a300000 01000000 00000200 10000000 02000300 0600
        3a300000 01000000 00000300 10000000 00000100 04000500",
    );
    assert_eq!(v1.len(), 76);
    for bytes in [&v2, &v1] {
        let b = BitmapIndex::decode(bytes, KeyType::I32).unwrap();
        let q = |op| b.query(&op, &int()).unwrap();
        assert_eq!(q(LeafOp::Eq(Datum::Int(0))), rows(&[2, 3, 6]));
        assert_eq!(q(LeafOp::Eq(Datum::Int(1))), rows(&[0, 1, 4, 5]));
        assert_eq!(q(LeafOp::Eq(Datum::Int(7))), rows(&[]));
        assert_eq!(q(LeafOp::IsNull), rows(&[7]));
        assert_eq!(q(LeafOp::IsNotNull), rows(&[0, 1, 2, 3, 4, 5, 6]));
        assert_eq!(q(LeafOp::NotEq(Datum::Int(1))), rows(&[2, 3, 6, 7]));
        assert_eq!(
            q(LeafOp::In(vec![Datum::Int(0), Datum::Int(5)])),
            rows(&[2, 3, 6])
        );
        assert_eq!(q(LeafOp::Lt(Datum::Int(1))), FileIndexResult::Remain);
    }
}

#[test]
fn pk0_sidecar_queries() {
    // §8.6 before deletion vectors: f0 = 'Alice' → {0,7}; f1 = 30 → none; f2 IS NULL → {7}.
    let bytes = fixture(
        "parquet/pk_with_bitmap_dv.db/pk_with_bitmap_dv/bucket-0/data-bfa36b28-40e7-4026-893b-d23116973174-0.parquet.index",
    );
    let c = FileIndexContainer::decode(&bytes).unwrap();
    let fields = vec![
        DataField::new(
            1,
            "f0",
            DataType::nullable(TypeKind::VarChar(i32::MAX as u32)),
        ),
        DataField::new(2, "f1", int()),
        DataField::new(3, "f2", int()),
    ];
    let leaf = |i: usize, op| BoundPredicate::Leaf {
        field: BoundField {
            id: fields[i].id,
            name: fields[i].name.clone(),
            data_type: fields[i].data_type.clone(),
        },
        op,
    };
    let eval = |p: &BoundPredicate| evaluate(&c, p, &fields, 8).unwrap().result;
    assert_eq!(
        eval(&leaf(0, LeafOp::Eq(Datum::String("Alice".into())))),
        rows(&[0, 7])
    );
    assert_eq!(
        eval(&leaf(0, LeafOp::Eq(Datum::String("Emily".into())))),
        rows(&[2])
    );
    assert!(!eval(&leaf(1, LeafOp::Eq(Datum::Int(30)))).remain());
    assert_eq!(eval(&leaf(2, LeafOp::IsNull)), rows(&[7]));
    let and = BoundPredicate::And(vec![
        leaf(1, LeafOp::Eq(Datum::Int(20))),
        leaf(2, LeafOp::Eq(Datum::Int(1))),
    ]);
    assert_eq!(eval(&and), rows(&[4]));
    let or = BoundPredicate::Or(vec![
        leaf(1, LeafOp::Eq(Datum::Int(30))),
        leaf(2, LeafOp::IsNull),
    ]);
    assert_eq!(eval(&or), rows(&[7]));
    // A field the file does not have, or of another type, might match.
    let other = BoundPredicate::Leaf {
        field: BoundField {
            id: 9,
            name: "x".into(),
            data_type: int(),
        },
        op: LeafOp::Eq(Datum::Int(1)),
    };
    assert_eq!(eval(&other), FileIndexResult::Remain);
}

#[test]
fn bitmap_v1_and_v2_large_fixtures_agree() {
    let v1 = fixture("file_index/bitmap-index-v1");
    let v2 = fixture("file_index/bitmap-index-v2");
    let b1 = BitmapIndex::decode(&v1, KeyType::Str).unwrap();
    let b2 = BitmapIndex::decode(&v2, KeyType::Str).unwrap();
    assert_eq!((b1.version, b2.version), (1, 2));
    assert_eq!((b1.row_count, b2.row_count), (100_000, 100_000));
    let mut union = b1.null_rows().unwrap();
    assert_eq!(union, b2.null_rows().unwrap());
    for i in 0..10_000 {
        let key = Key::Bytes(format!("asdfghjkl123_{i}").into_bytes());
        let (r1, r2) = (b1.rows_of(&key).unwrap(), b2.rows_of(&key).unwrap());
        assert!(!r1.is_empty(), "value {i}");
        assert_eq!(r1, r2, "value {i}");
        assert!(union.is_disjoint(&r1));
        union |= r1;
    }
    assert_eq!(union.len(), 100_000);
    let absent = Key::Bytes(b"asdfghjkl123_10000".to_vec());
    assert!(b2.rows_of(&absent).unwrap().is_empty());
}

#[test]
fn bsi_fixture_matches_brute_force() {
    let bytes = fixture(
        "parquet/append_with_bsi.db/append_with_bsi/bucket-0/data-af9e31b7-b44d-4a0e-85ae-5877d224ec9f-0.parquet.index",
    );
    let c = FileIndexContainer::decode(&bytes).unwrap();
    let f2 = payload(&c, "f2", "bsi");
    assert_eq!(f2.len(), 175);
    let b = BsiIndex::decode(f2).unwrap();
    let values = [
        Some(-2),
        Some(-3),
        Some(1),
        Some(1),
        Some(-1),
        Some(2),
        Some(-2),
        None,
    ];
    for v in -5..=4 {
        for op in int_ops(v) {
            assert_eq!(b.query(&op, &int()), expected(&values, &op), "{op:?}");
        }
    }
    assert_eq!(b.query(&LeafOp::IsNull, &int()), rows(&[7]));
    let f1 = BsiIndex::decode(payload(&c, "f1", "bsi")).unwrap();
    let values = [100, 200, 300, 50, 500, 100, -1, 20].map(|v| (v >= 0).then_some(v));
    for v in [-1, 0, 20, 50, 99, 100, 101, 300, 500, 501] {
        for op in int_ops(v) {
            assert_eq!(f1.query(&op, &int()), expected(&values, &op), "{op:?}");
        }
    }
    // TIMESTAMP(9) as micros: −1744877000 ns is −1744877 µs.
    let f4 = BsiIndex::decode(payload(&c, "f4", "bsi")).unwrap();
    let ts = DataType::nullable(TypeKind::Timestamp(9));
    let lit = Datum::Timestamp(Timestamp::from_nanos(-1_744_877_000).unwrap());
    assert_eq!(f4.query(&LeafOp::Eq(lit), &ts), rows(&[3]));
}

#[test]
fn range_bitmap_golden_matches_brute_force() {
    let bytes = fixture("file_index/rangebitmap/rangebitmap.index");
    assert_eq!(bytes.len(), 210);
    let r = RangeBitmapIndex::decode(&bytes, KeyType::I32).unwrap();
    assert_eq!(r.keys.len(), 6);
    let values = [
        Some(1),
        Some(3),
        Some(5),
        Some(7),
        Some(9),
        None,
        None,
        Some(10),
    ];
    for v in 0..=11 {
        for op in int_ops(v) {
            assert_eq!(r.query(&op, &int()), expected(&values, &op), "{op:?}");
        }
    }
    assert_eq!(r.query(&LeafOp::IsNull, &int()), rows(&[5, 6]));
    assert_eq!(
        r.query(&LeafOp::Gt(Datum::Int(6)), &int()),
        rows(&[3, 4, 7])
    );
}

#[test]
fn range_bitmap_multi_chunk_fixture() {
    for fmt in ["parquet", "orc"] {
        let dir = format!(
            "{}/../../testdata/java/{fmt}/append_with_rangebitmap_multi_chunk.db/append_with_rangebitmap_multi_chunk/bucket-0",
            env!("CARGO_MANIFEST_DIR")
        );
        let index = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.to_string_lossy().ends_with(".index"))
            .unwrap();
        let bytes = std::fs::read(index).unwrap();
        let c = FileIndexContainer::decode(&bytes).unwrap();
        let kt = range_bitmap::key_type(&int()).unwrap();
        let r = RangeBitmapIndex::decode(payload(&c, "f0", "range-bitmap"), kt).unwrap();
        let values = [
            Some(17),
            Some(3),
            Some(5),
            Some(7),
            Some(9),
            None,
            None,
            Some(10),
        ];
        for v in 0..=18 {
            for op in int_ops(v) {
                assert_eq!(r.query(&op, &int()), expected(&values, &op), "{fmt} {op:?}");
            }
        }
        let big = DataType::nullable(TypeKind::BigInt);
        let f1 = RangeBitmapIndex::decode(payload(&c, "f1", "range-bitmap"), KeyType::I64).unwrap();
        assert_eq!(
            f1.query(&LeafOp::GtEq(Datum::BigInt(450)), &big),
            rows(&[4, 7])
        );
        let dbl = DataType::nullable(TypeKind::Double);
        let f3 = RangeBitmapIndex::decode(payload(&c, "f3", "range-bitmap"), KeyType::F64).unwrap();
        assert_eq!(
            f3.query(&LeafOp::Lt(Datum::Double(30.0)), &dbl),
            rows(&[0, 1])
        );
        assert_eq!(
            f3.query(&LeafOp::Eq(Datum::Double(44.44)), &dbl),
            rows(&[3])
        );
    }
}

#[test]
fn bloom_golden_hashes_and_positions() {
    assert_eq!(xx64(b"Alice") as u64, 0xd4a9_57e0_cf31_160b);
    assert_eq!(wang(100) as u64, 0xdb21_6d4e_b642_d87e);
    assert_eq!(wang(-123_456_789) as u64, 0xe60f_1a14_2420_2ebd);
    assert_eq!(wang(-1) as u64, 0x5bca_8684_3795_0d03);
    let f = DataType::nullable(TypeKind::Float);
    assert_eq!(
        hash_literal(&Datum::Float(f32::NAN), &f).map(|h| h as u64),
        Some(0x67c2_7c6d_9936_ae63)
    );
    let d = DataType::nullable(TypeKind::Double);
    assert_eq!(
        hash_literal(&Datum::Double(-0.0), &d).map(|h| h as u64),
        Some(0x3be7_d0f7_780d_e548)
    );
    assert_eq!(xx64(b"") as u64, 0xef46_db37_51d8_e999);
    let mut bits = vec![0u8; 4 + 599_067];
    bits[3] = 3;
    let bf = BloomFilter::decode(&bits).unwrap();
    let p: Vec<u64> = bf.positions(xx64(b"Alice")).collect();
    assert_eq!(p, vec![2_769_508, 4_244_115, 817_627]);
    let p: Vec<u64> = bf.positions(wang(100)).collect();
    assert_eq!(p, vec![988_075, 4_330_322, 4_001_144]);
}

#[test]
fn bloom_small_example_and_fixture() {
    // §4.5: INT rows {1, 1, null, 3}, numBits 160, k 7.
    let small = hex("00000007 0000000001100000020000000004400011 28c408");
    let b = BloomFilter::decode(&small).unwrap();
    let eq = |v| b.query(&LeafOp::Eq(Datum::Int(v)), &int());
    assert_eq!(eq(1), FileIndexResult::Remain);
    assert_eq!(eq(3), FileIndexResult::Remain);
    assert_eq!(eq(2), FileIndexResult::Skip);
    assert_eq!(
        b.query(&LeafOp::In(vec![Datum::Int(2), Datum::Int(3)]), &int()),
        FileIndexResult::Remain
    );
    assert_eq!(
        b.query(&LeafOp::Lt(Datum::Int(0)), &int()),
        FileIndexResult::Remain
    );

    let dir = format!(
        "{}/../../testdata/java/parquet/append_with_bloomfilter.db/append_with_bloomfilter/bucket-0",
        env!("CARGO_MANIFEST_DIR")
    );
    let index = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(".index"))
        .unwrap();
    let bytes = std::fs::read(index).unwrap();
    let c = FileIndexContainer::decode(&bytes).unwrap();
    let s = DataType::nullable(TypeKind::VarChar(100));
    let f0 = BloomFilter::decode(payload(&c, "f0", "bloom-filter")).unwrap();
    for name in ["Alice", "Bob", "Emily", "Tony", "Lucy"] {
        let op = LeafOp::Eq(Datum::String(name.into()));
        assert_eq!(f0.query(&op, &s), FileIndexResult::Remain, "{name}");
    }
    let op = LeafOp::Eq(Datum::String("Zed".into()));
    assert_eq!(f0.query(&op, &s), FileIndexResult::Skip);
    let f1 = BloomFilter::decode(payload(&c, "f1", "bloom-filter")).unwrap();
    for v in [100, 200, 300, 50, 500, 20] {
        assert_eq!(
            f1.query(&LeafOp::Eq(Datum::Int(v)), &int()),
            FileIndexResult::Remain
        );
    }
    assert_eq!(
        f1.query(&LeafOp::Eq(Datum::Int(7)), &int()),
        FileIndexResult::Skip
    );
    let ts = DataType::nullable(TypeKind::Timestamp(9));
    let f4 = BloomFilter::decode(payload(&c, "f4", "bloom-filter")).unwrap();
    let lit = Datum::Timestamp(Timestamp::from_nanos(1_745_542_802_000_123_001).unwrap());
    assert_eq!(f4.query(&LeafOp::Eq(lit), &ts), FileIndexResult::Remain);
}

#[test]
fn corrupt_and_truncated_inputs_are_errors_not_panics() {
    let sidecar = fixture(
        "parquet/pk_with_bitmap_dv.db/pk_with_bitmap_dv/bucket-0/data-bfa36b28-40e7-4026-893b-d23116973174-0.parquet.index",
    );
    let range = fixture("file_index/rangebitmap/rangebitmap.index");
    let bsi_file = fixture(
        "parquet/append_with_bsi.db/append_with_bsi/bucket-0/data-af9e31b7-b44d-4a0e-85ae-5877d224ec9f-0.parquet.index",
    );
    for len in 0..sidecar.len() {
        let _ = FileIndexContainer::decode(&sidecar[..len]);
    }
    assert!(FileIndexContainer::decode(&sidecar[..95]).is_err());
    let mut bad = sidecar.clone();
    bad[0] ^= 0xff;
    assert!(FileIndexContainer::decode(&bad).is_err());
    let c = FileIndexContainer::decode(&sidecar).unwrap();
    let f0 = payload(&c, "f0", "bitmap");
    let s = DataType::nullable(TypeKind::VarChar(10));
    let kt = bitmap::key_type(&s).unwrap();
    for len in 0..f0.len() {
        if let Ok(b) = BitmapIndex::decode(&f0[..len], kt) {
            let _ = b.query(&LeafOp::Eq(Datum::String("Alice".into())), &s);
            let _ = b.query(&LeafOp::IsNull, &s);
        }
    }
    for len in 0..range.len() {
        assert!(
            RangeBitmapIndex::decode(&range[..len], KeyType::I32).is_err(),
            "{len}"
        );
    }
    let bc = FileIndexContainer::decode(&bsi_file).unwrap();
    let f2 = payload(&bc, "f2", "bsi");
    for len in 0..f2.len() {
        assert!(BsiIndex::decode(&f2[..len]).is_err(), "{len}");
    }
    // Flipping any byte never panics.
    for (data, what) in [(&range, 0), (&f2.to_vec(), 1), (&f0.to_vec(), 2)] {
        for i in 0..data.len() {
            for x in [0x01u8, 0x80, 0xff] {
                let mut d = data.clone();
                d[i] ^= x;
                match what {
                    0 => {
                        if let Ok(r) = RangeBitmapIndex::decode(&d, KeyType::I32) {
                            let _ = r.query(&LeafOp::Gt(Datum::Int(4)), &int());
                        }
                    }
                    1 => {
                        if let Ok(b) = BsiIndex::decode(&d) {
                            let _ = b.query(&LeafOp::Lt(Datum::Int(0)), &int());
                        }
                    }
                    _ => {
                        if let Ok(b) = BitmapIndex::decode(&d, kt) {
                            let _ = b.query(&LeafOp::NotEq(Datum::String("Bob".into())), &s);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn bitmaps_beyond_the_row_count_and_foreign_indexes_are_rejected() {
    use super::key::roaring_exact;
    // {0, 1} under 2 rows decodes; under 1 row it names a row that does not exist.
    let b = hex("3a300000 01000000 00000100 10000000 00000100");
    assert_eq!(roaring_exact(&b, "t", 2).unwrap().len(), 2);
    assert!(roaring_exact(&b, "t", 1).is_err());
    // A container key (high 16 bits) beyond the rows is refused before decoding: a run
    // container {65536..131071} in 20 bytes would otherwise become 8 KiB.
    let run = hex("3b300000 01 0100 ffff 0100 0000 ffff");
    assert!(roaring_exact(&run, "t", 100).is_err());
    // Keys must ascend.
    let two = hex("3a300000 02000000 0000 0000 0000 0000 1800 0000 1a00 0000 0100 0200");
    assert!(roaring_exact(&two, "t", 1 << 20).is_err());

    // PK0's container covers 8 rows: evaluated for a file of 9 rows it is refused.
    let bytes = fixture(
        "parquet/pk_with_bitmap_dv.db/pk_with_bitmap_dv/bucket-0/data-bfa36b28-40e7-4026-893b-d23116973174-0.parquet.index",
    );
    let c = FileIndexContainer::decode(&bytes).unwrap();
    let fields = vec![DataField::new(3, "f2", int())];
    let p = BoundPredicate::Leaf {
        field: BoundField {
            id: 3,
            name: "f2".into(),
            data_type: int(),
        },
        op: LeafOp::IsNull,
    };
    assert_eq!(evaluate(&c, &p, &fields, 8).unwrap().result, rows(&[7]));
    let err = evaluate(&c, &p, &fields, 9).unwrap_err().to_string();
    assert!(err.contains("row count"), "{err}");
}

#[test]
fn bitmap_v2_blocks_must_be_contiguous() {
    // PK1's f2 payload with its one block said to start at 4 instead of 0.
    let mut v2 = hex("02 00000002 00000001 00
         00000001 00000001 00000000 00000010
         00000001 00000001 00000000 00000014
         3a300000 01000000 00000100 10000000 00000100");
    assert!(BitmapIndex::decode(&v2, KeyType::I32).is_ok());
    v2[21] = 4;
    assert!(BitmapIndex::decode(&v2, KeyType::I32).is_err());
}

/// Decodes `bytes` with every decoder and runs every query; nothing may panic.
fn exercise(bytes: &[u8]) {
    let ops = [
        LeafOp::Eq(Datum::Int(1)),
        LeafOp::NotIn(vec![Datum::Int(1), Datum::Int(9)]),
        LeafOp::Lt(Datum::Int(5)),
        LeafOp::GtEq(Datum::Int(-3)),
        LeafOp::IsNull,
        LeafOp::IsNotNull,
    ];
    if let Ok(c) = FileIndexContainer::decode(bytes) {
        let fields = vec![
            DataField::new(1, "f0", DataType::nullable(TypeKind::VarChar(9))),
            DataField::new(2, "f1", int()),
            DataField::new(3, "f2", int()),
        ];
        for op in &ops {
            let p = BoundPredicate::Leaf {
                field: BoundField {
                    id: 3,
                    name: "f2".into(),
                    data_type: int(),
                },
                op: op.clone(),
            };
            let _ = evaluate(&c, &p, &fields, 8);
        }
    }
    // As `evaluate` does, query only indexes whose row count matches a (small) file.
    const ROWS: u32 = 1 << 16;
    if let Ok(b) = BitmapIndex::decode(bytes, KeyType::I32) {
        if b.row_count <= ROWS {
            ops.iter().for_each(|op| drop(b.query(op, &int())));
        }
    }
    if let Ok(b) = BsiIndex::decode(bytes) {
        if b.row_count <= ROWS {
            ops.iter().for_each(|op| drop(b.query(op, &int())));
        }
    }
    if let Ok(r) = RangeBitmapIndex::decode(bytes, KeyType::I32) {
        if r.row_count <= ROWS {
            ops.iter().for_each(|op| drop(r.query(op, &int())));
        }
    }
    if let Ok(b) = BloomFilter::decode(bytes) {
        let _ = b.query(&ops[0], &int());
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300)) {
        exercise(&bytes);
    }

    #[test]
    fn mutated_fixtures_never_panic(
        which in 0usize..3,
        edits in proptest::collection::vec((proptest::prelude::any::<usize>(), proptest::prelude::any::<u8>()), 1..6),
    ) {
        let mut bytes = match which {
            0 => fixture("parquet/pk_with_bitmap_dv.db/pk_with_bitmap_dv/bucket-0/data-bfa36b28-40e7-4026-893b-d23116973174-0.parquet.index"),
            1 => fixture("file_index/rangebitmap/rangebitmap.index"),
            _ => fixture("parquet/append_with_bsi.db/append_with_bsi/bucket-0/data-af9e31b7-b44d-4a0e-85ae-5877d224ec9f-0.parquet.index"),
        };
        for (at, v) in edits {
            let n = bytes.len();
            bytes[at % n] = v;
        }
        exercise(&bytes);
        if let Ok(c) = FileIndexContainer::decode(&bytes) {
            for e in c.entries() {
                if let Ok(Payload::Bytes(p)) = c.payload(e) {
                    exercise(p);
                }
            }
        }
    }
}

/// A longer random-mutation run over every fixture index (a stand-in for the cargo-fuzz target
/// where it cannot be built): `PAIMON_FILE_INDEX_SOAK=<iterations> cargo test -p paimon-core
/// --lib file_index::tests::mutation_soak -- --ignored`.
#[test]
#[ignore]
fn mutation_soak() {
    let n: u64 = std::env::var("PAIMON_FILE_INDEX_SOAK")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let dir = format!("{}/../../testdata/java", env!("CARGO_MANIFEST_DIR"));
    let mut seeds = vec![fixture("file_index/rangebitmap/rangebitmap.index")];
    let mut stack = vec![std::path::PathBuf::from(dir)];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(".index") && p.metadata().unwrap().len() < 8192
            {
                seeds.push(std::fs::read(p).unwrap());
            }
        }
    }
    let mut r = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        r ^= r << 13;
        r ^= r >> 7;
        r ^= r << 17;
        r
    };
    for _ in 0..n {
        let mut b = seeds[(next() % seeds.len() as u64) as usize].clone();
        for _ in 0..1 + next() % 4 {
            let i = (next() % b.len() as u64) as usize;
            b[i] = next() as u8;
        }
        if next() % 8 == 0 {
            b.truncate((next() % b.len() as u64) as usize);
        }
        exercise(&b);
        if let Ok(c) = FileIndexContainer::decode(&b) {
            for e in c.entries() {
                if let Ok(Payload::Bytes(p)) = c.payload(e) {
                    exercise(p);
                }
            }
        }
    }
}
