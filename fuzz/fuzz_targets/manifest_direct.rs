//! Arbitrary bytes through the direct Avro manifest decoder (`spec::manifest::avro_direct`,
//! behind `decode_manifest` / `decode_manifest_list` / `decode_manifest_filtered`): it must
//! return a value or an error, never panic, and when the generic record path also decodes the
//! input, both must give the same rows.
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_core::spec::manifest::{
    decode_manifest, decode_manifest_filtered, decode_manifest_list,
    decode_manifest_list_via_records, decode_manifest_via_records, EntryHead,
};

fuzz_target!(|data: &[u8]| {
    // Only Avro takes the direct path; other formats are the `manifest` target's.
    if !data.starts_with(b"Obj\x01") {
        return;
    }
    let direct = decode_manifest(data, "fuzz");
    if let (Ok(d), Ok(g)) = (&direct, decode_manifest_via_records(data, "fuzz")) {
        assert_eq!(d, &g);
    }
    let mut keep = |h: &EntryHead<'_>| h.bucket % 2 == 0;
    if let (Ok(all), Ok(some)) = (&direct, decode_manifest_filtered(data, "fuzz", Some(&mut keep))) {
        let even: Vec<_> = all.iter().filter(|e| e.bucket % 2 == 0).cloned().collect();
        assert_eq!(even, some);
    }
    let list = decode_manifest_list(data, "fuzz");
    if let (Ok(d), Ok(g)) = (&list, decode_manifest_list_via_records(data, "fuzz")) {
        assert_eq!(d, &g);
    }
});
