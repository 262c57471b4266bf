//! Arbitrary bytes as a deletion-vector index file, vector at offset 1.
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_core::index::deletion_vector::decode_deletion_vector;

fuzz_target!(|data: &[u8]| {
    let _ = decode_deletion_vector(data, 1, "fuzz", Some(1 << 20));
});
