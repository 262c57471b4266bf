//! Arbitrary bytes as a BTree/SST index payload (INT and VARCHAR keys): open, decode every
//! entry and the null bitmap, and run point and range queries. Errors are fine; panics are not.
#![no_main]

use std::ops::Bound;

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use paimon_core::index::btree::{BTreeIndexReader, Key, KeyType, SortedIndexFileMeta};

fuzz_target!(|data: &[u8]| {
    let _ = SortedIndexFileMeta::decode(data).map(|m| m.key_range(&KeyType::Int));
    for (kt, probe) in [
        (KeyType::Int, Key::Int(77)),
        (KeyType::String, Key::String(b"m".to_vec())),
    ] {
        let Ok(r) = BTreeIndexReader::from_bytes("fuzz", Bytes::copy_from_slice(data), kt) else {
            continue;
        };
        let _ = r.entries();
        let _ = r.is_null();
        let _ = r.equal(&probe);
        let _ = r.range(Bound::Excluded(&probe), Bound::Unbounded);
        let _ = r.less_or_equal(&probe);
    }
});
