//! Arbitrary bytes as a manifest list, manifest and index manifest (Avro or Parquet).
//!
//! ORC input is skipped: orc-rust 0.9 recurses without bound on a footer whose type ids form a
//! cycle and overflows the stack (an abort no `catch_unwind` can stop). That is a known open
//! problem, recorded in the project's issue notes, not something this target should rediscover
//! on every run.
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
