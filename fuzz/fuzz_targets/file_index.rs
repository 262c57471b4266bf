//! Arbitrary bytes as a data-file index: the container (and a predicate evaluated against it)
//! and, on the same bytes, each payload decoder (bitmap V1/V2, BSI, range bitmap, bloom filter)
//! with its queries. Nothing may panic; whatever decodes must answer.
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_core::expr::{BoundField, BoundPredicate, LeafOp};
use paimon_core::index::file_index::bitmap::BitmapIndex;
use paimon_core::index::file_index::bloom::BloomFilter;
use paimon_core::index::file_index::bsi::BsiIndex;
use paimon_core::index::file_index::key::KeyType;
use paimon_core::index::file_index::range_bitmap::RangeBitmapIndex;
use paimon_core::index::file_index::{evaluate, FileIndexContainer};
use paimon_core::spec::datum::Datum;
use paimon_core::spec::types::{DataField, DataType, TypeKind};

fn ops() -> Vec<LeafOp> {
    vec![
        LeafOp::Eq(Datum::Int(1)),
        LeafOp::NotEq(Datum::Int(1)),
        LeafOp::Lt(Datum::Int(5)),
        LeafOp::GtEq(Datum::Int(-3)),
        LeafOp::In(vec![Datum::Int(0), Datum::Int(7)]),
        LeafOp::IsNull,
        LeafOp::IsNotNull,
    ]
}

const ROWS: u32 = 1 << 16;

fuzz_target!(|data: &[u8]| {
    let int = DataType::nullable(TypeKind::Int);
    let string = DataType::nullable(TypeKind::VarChar(100));
    if let Ok(c) = FileIndexContainer::decode(data) {
        let fields = vec![
            DataField::new(0, "f0", string.clone()),
            DataField::new(1, "f1", int.clone()),
        ];
        let f1 = BoundField {
            id: 1,
            name: "f1".into(),
            data_type: int.clone(),
        };
        let f0 = BoundField {
            id: 0,
            name: "f0".into(),
            data_type: string.clone(),
        };
        for op in ops() {
            let p = BoundPredicate::Or(vec![
                BoundPredicate::Leaf {
                    field: f1.clone(),
                    op,
                },
                BoundPredicate::Leaf {
                    field: f0.clone(),
                    op: LeafOp::Eq(Datum::String("Alice".into())),
                },
            ]);
            let _ = evaluate(&c, &p, &fields, 1000);
        }
    }
    for kt in [KeyType::I32, KeyType::Str] {
        let t = if kt == KeyType::Str { &string } else { &int };
        // As `evaluate` does, query only indexes whose row count matches a (small) file.
        if let Ok(b) = BitmapIndex::decode(data, kt) {
            if b.row_count <= ROWS {
                for op in ops() {
                    let _ = b.query(&op, t);
                }
                let _ = b.query(&LeafOp::Eq(Datum::String("a".into())), t);
            }
        }
        if let Ok(r) = RangeBitmapIndex::decode(data, kt) {
            if r.row_count <= ROWS {
                for op in ops() {
                    let _ = r.query(&op, t);
                }
            }
        }
    }
    if let Ok(b) = BsiIndex::decode(data) {
        for op in ops().into_iter().filter(|_| b.row_count <= ROWS) {
            let _ = b.query(&op, &int);
        }
    }
    if let Ok(b) = BloomFilter::decode(data) {
        let _ = b.query(&LeafOp::Eq(Datum::Int(3)), &int);
    }
});
