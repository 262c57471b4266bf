//! Arbitrary bytes as `_SOURCE_META`; whatever decodes must re-encode to the same bytes
//! unless it used Java's lenient forms (raw NUL, overlong sequences).
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_core::index::source_meta::SourceMeta;

fuzz_target!(|data: &[u8]| {
    if let Ok(meta) = SourceMeta::decode(data, "fuzz") {
        let again = meta.encode().expect("decoded names fit writeUTF");
        assert_eq!(SourceMeta::decode(&again, "fuzz").expect("round trip"), meta);
    }
});
