//! Arbitrary bytes as a serialized BinaryRow, decoded with a type list chosen by the first byte.
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_core::spec::binary_row::BinaryRow;
use paimon_core::spec::types::{DataType, TypeKind};

fn types(selector: u8) -> Vec<DataType> {
    let all = [
        TypeKind::Boolean,
        TypeKind::TinyInt,
        TypeKind::SmallInt,
        TypeKind::Int,
        TypeKind::BigInt,
        TypeKind::Float,
        TypeKind::Double,
        TypeKind::Decimal { precision: 10, scale: 2 },
        TypeKind::Decimal { precision: 30, scale: 5 },
        TypeKind::VarChar(u32::MAX >> 1),
        TypeKind::VarBinary(u32::MAX >> 1),
        TypeKind::Date,
        TypeKind::Timestamp(3),
        TypeKind::Timestamp(9),
        TypeKind::LocalZonedTimestamp(6),
    ];
    let n = usize::from(selector % 6);
    (0..n)
        .map(|i| DataType::nullable(all[(usize::from(selector) + i * 7) % all.len()].clone()))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else { return };
    if let Ok(row) = BinaryRow::from_serialized(rest) {
        let t = types(sel);
        if let Ok(values) = row.decode(&t) {
            // Whatever decodes must re-encode without panicking.
            let _ = BinaryRow::encode(&values, &t);
        }
        let _ = row.hash_code();
    }
});
