//! Arbitrary bytes as a manifest list, manifest and index manifest (Avro, ORC or Parquet).
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_core::spec::manifest::{decode_index_manifest, decode_manifest, decode_manifest_list};

fuzz_target!(|data: &[u8]| {
    let _ = decode_manifest_list(data, "fuzz");
    let _ = decode_manifest(data, "fuzz");
    let _ = decode_index_manifest(data, "fuzz");
});
