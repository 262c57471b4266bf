//! Arbitrary bytes as a deletion-vector index file (vector at offset 1) and as a ranged-read
//! blob whose recorded length is taken from the first two bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_core::index::deletion_vector::{decode_deletion_blob, decode_deletion_vector};

fuzz_target!(|data: &[u8]| {
    let _ = decode_deletion_vector(data, 1, "fuzz", Some(1 << 20));
    if let [a, b, rest @ ..] = data {
        let length = i64::from(i16::from_le_bytes([*a, *b]));
        let _ = decode_deletion_blob(rest, length, "fuzz", Some(1 << 20));
    }
});
