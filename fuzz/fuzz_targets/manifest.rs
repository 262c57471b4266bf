//! Arbitrary bytes as a manifest list, manifest and index manifest (Avro or Parquet).
//!
//! ORC input is skipped here: orc-rust 0.9 panics on many corrupt inputs (for example
//! `compression.rs:347` unwrapping a zstd "Data corruption detected" error). The library catches
//! those panics (`catch_unwind`) and returns `DataInvalid`, but libFuzzer's panic hook counts any
//! panic as a crash. The one ORC failure that could not be caught, a stack overflow on a cyclic
//! type tree, is prevented by `spec::orc_footer` and tested there by flipping every footer byte
//! of a Java-written ORC manifest.
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_core::spec::manifest::{decode_index_manifest, decode_manifest, decode_manifest_list};

fuzz_target!(|data: &[u8]| {
    if data.starts_with(b"ORC") {
        return;
    }
    let _ = decode_manifest_list(data, "fuzz");
    let _ = decode_manifest(data, "fuzz");
    let _ = decode_index_manifest(data, "fuzz");
});
