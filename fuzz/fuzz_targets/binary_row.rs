//! Fuzz target: arbitrary bytes and a type list through `BinaryRow::from_serialized` + `decode`.
//!
//! Input layout: byte 0 = number of types (mod 8), then one byte per type (index into `TYPES`),
//! then the serialized row (4-byte BE arity + row bytes). Decoding must never panic; a row that
//! decodes must re-encode (when its values fit their types) to a row that decodes to the same
//! values.
//!
//! Run with `cargo fuzz run binary_row -- -rss_limit_mb=512` from the repository root.
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_core::spec::binary_row::BinaryRow;
use paimon_core::spec::types::DataType;

const TYPES: &[&str] = &[
    "BOOLEAN",
    "TINYINT",
    "SMALLINT",
    "INT",
    "BIGINT",
    "FLOAT",
    "DOUBLE",
    "DATE",
    "TIME(3)",
    "DECIMAL(10, 2)",
    "DECIMAL(30, 4)",
    "STRING",
    "BYTES",
    "TIMESTAMP(3)",
    "TIMESTAMP(9)",
    "TIMESTAMP(6) WITH LOCAL TIME ZONE",
];

fn parse(s: &str) -> Option<DataType> {
    DataType::from_json(&serde_json::Value::String(s.to_string())).ok()
}

fuzz_target!(|data: &[u8]| {
    let Some((&n, rest)) = data.split_first() else {
        return;
    };
    let n = usize::from(n % 8).min(rest.len());
    let (picks, row_bytes) = rest.split_at(n);
    let types: Vec<DataType> = picks
        .iter()
        .filter_map(|p| parse(TYPES[usize::from(*p) % TYPES.len()]))
        .collect();
    let Ok(row) = BinaryRow::from_serialized(row_bytes) else {
        return;
    };
    let _ = row.hash_code();
    for (i, ty) in types.iter().enumerate() {
        let _ = row.is_null_at(i);
        let _ = row.get(i, ty);
    }
    let Ok(values) = row.decode(&types) else {
        return;
    };
    if let Ok(again) = BinaryRow::encode(&values, &types) {
        let round = again.decode(&types).expect("a freshly encoded row decodes");
        assert_eq!(format!("{round:?}"), format!("{values:?}"));
    }
});
