//! Java-written payloads (`testdata/java/btree`, `testdata/java/global_index/btree`) decoded
//! completely and queried; mutated bytes give typed errors, never panics.

use std::collections::BTreeMap;

use super::*;
use crate::index::btree::meta::SortedIndexFileMeta;
use crate::index::sst::block_crc;
use crate::ErrorKind;

fn testdata(rel: &str) -> Vec<u8> {
    let p = format!("{}/../../testdata/java/{rel}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn open(bytes: Vec<u8>, kt: KeyType) -> Result<BTreeIndexReader> {
    BTreeIndexReader::from_bytes("payload", Bytes::from(bytes), kt)
}

fn ids(t: &RoaringTreemap) -> Vec<u64> {
    t.iter().collect()
}

fn int(k: i32) -> Key {
    Key::Int(k)
}

/// The five payloads of `testdata/java/btree`: INT keys 0, 2, ..., 198, key 2k → row k.
fn check_int_100(file: &str) {
    let r = open(testdata(&format!("btree/{file}")), KeyType::Int).unwrap();
    let entries = r.entries().unwrap();
    assert_eq!(entries.len(), 100, "{file}");
    for (k, e) in entries.iter().enumerate() {
        assert_eq!(e.key, int(2 * k as i32));
        assert_eq!(e.row_ids, [k as u64]);
    }
    assert_eq!(ids(&r.equal(&int(50)).unwrap()), [25]);
    assert_eq!(ids(&r.equal(&int(100)).unwrap()), [50]);
    assert!(r.equal(&int(1)).unwrap().is_empty());
    assert_eq!(
        ids(&r.between(&int(10), &int(20)).unwrap()),
        [5, 6, 7, 8, 9, 10]
    );
    assert_eq!(r.is_not_null().unwrap().len(), 100);
    assert!(r.is_null().unwrap().is_empty());
    assert!(r.footer().null_bitmap.is_none());
    assert!(r.footer().bloom_filter.is_none());
}

#[test]
fn java_int_uncompressed_zstd_lz4() {
    for f in [
        "btree_int_100_no_compress.bin",
        "btree_int_100_zstd.bin",
        "btree_int_100_lz4.bin",
    ] {
        check_int_100(f);
    }
}

#[test]
fn java_int_range_queries() {
    let r = open(
        testdata("btree/btree_int_100_no_compress.bin"),
        KeyType::Int,
    )
    .unwrap();
    assert_eq!(ids(&r.less_than(&int(6)).unwrap()), [0, 1, 2]);
    assert_eq!(ids(&r.less_or_equal(&int(6)).unwrap()), [0, 1, 2, 3]);
    assert_eq!(ids(&r.less_or_equal(&int(5)).unwrap()), [0, 1, 2]);
    assert_eq!(ids(&r.greater_than(&int(194)).unwrap()), [98, 99]);
    assert_eq!(ids(&r.greater_or_equal(&int(194)).unwrap()), [97, 98, 99]);
    assert_eq!(ids(&r.greater_or_equal(&int(195)).unwrap()), [98, 99]);
    assert!(r.greater_than(&int(198)).unwrap().is_empty());
    assert!(r.less_than(&int(0)).unwrap().is_empty());
    assert!(r.between(&int(20), &int(10)).unwrap().is_empty());
    assert_eq!(
        ids(&r.in_list(&[int(4), int(5), int(198)]).unwrap()),
        [2, 99]
    );
    assert_eq!(r.not_equal(&int(4)).unwrap().len(), 99);
    assert_eq!(r.not_in(&[int(0), int(2), int(7)]).unwrap().len(), 98);
    // Every key, and every gap, against brute force (crosses all block boundaries).
    for k in -1..=200 {
        let want: Vec<u64> = (0..100u64).filter(|i| 2 * (*i as i32) >= k).collect();
        assert_eq!(ids(&r.greater_or_equal(&int(k)).unwrap()), want, "k={k}");
        let want: Vec<u64> = (0..100u64).filter(|i| 2 * (*i as i32) < k).collect();
        assert_eq!(ids(&r.less_than(&int(k)).unwrap()), want, "k={k}");
    }
}

#[test]
fn java_int_with_nulls() {
    let r = open(testdata("btree/btree_int_100_with_nulls.bin"), KeyType::Int).unwrap();
    let nulls = r.is_null().unwrap();
    assert_eq!(ids(&nulls), (100..120).collect::<Vec<_>>());
    let non_null = r.is_not_null().unwrap();
    assert!(!non_null.is_empty());
    assert!((&*nulls & &non_null).is_empty(), "disjoint");
    assert_eq!(r.equal(&int(0)).unwrap().len(), 1);
    assert_eq!(r.entries().unwrap().len() as u64, non_null.len());
}

#[test]
fn java_varchar() {
    let r = open(
        testdata("btree/btree_varchar_100_no_compress.bin"),
        KeyType::String,
    )
    .unwrap();
    let entries = r.entries().unwrap();
    assert_eq!(entries.len(), 100);
    let s = |x: &str| Key::String(x.as_bytes().to_vec());
    assert_eq!(entries.first().unwrap().key, s("a"));
    assert_eq!(entries.last().unwrap().key, s("yyyy"));
    assert_eq!(r.equal(&s("a")).unwrap().len(), 1);
    assert!(r.equal(&s("zzzzz")).unwrap().is_empty());
    assert_eq!(r.is_not_null().unwrap().len(), 100);
    // `a` < `aa` < `aaa` < `aaaa` < `b`
    let a_to_b = r
        .range(Bound::Included(&s("a")), Bound::Excluded(&s("b")))
        .unwrap();
    assert!(a_to_b.len() >= 4);
}

/// One row of a compatibility CSV: `row_id,key,is_null`.
struct Row {
    id: u64,
    key: Option<Key>,
}

fn parse_float(s: &str) -> f32 {
    match s {
        "NaN" => f32::NAN,
        "infinity" | "Infinity" => f32::INFINITY,
        "-infinity" | "-Infinity" => f32::NEG_INFINITY,
        _ => s.trim_end_matches('f').parse().unwrap(),
    }
}

fn read_csv(name: &str, kt: KeyType) -> Vec<Row> {
    let text = String::from_utf8(testdata(&format!(
        "global_index/btree/btree_compatibility_data/{name}.csv"
    )))
    .unwrap();
    text.lines()
        .skip(1)
        .map(|line| {
            let mut f = line.splitn(3, ',');
            let id = f.next().unwrap().parse().unwrap();
            let key = f.next().unwrap();
            let null = f.next().unwrap() == "true";
            let key = (!null).then(|| match kt {
                KeyType::Int => Key::Int(key.parse().unwrap()),
                KeyType::Float => Key::Float(parse_float(key)),
                KeyType::String => Key::String(key.as_bytes().to_vec()),
                _ => unreachable!(),
            });
            Row { id, key }
        })
        .collect()
}

fn same(a: &Key, b: &Key) -> bool {
    compare(a, b) == Ordering::Equal
}

/// Decodes the payload completely against its CSV; if its keys are sorted also checks queries
/// against brute force and returns true.
fn check_compat(name: &str, kt: KeyType) -> bool {
    let base = format!("global_index/btree/btree_compatibility_data/{name}.bin");
    let rows = read_csv(name, kt);
    let r = open(testdata(&base), kt).unwrap();
    let meta = SortedIndexFileMeta::decode(&testdata(&format!("{base}.meta"))).unwrap();

    // Every key and null read back equals the CSV.
    let mut by_row: BTreeMap<u64, Option<Key>> = BTreeMap::new();
    for e in r.entries().unwrap() {
        for id in &e.row_ids {
            assert!(
                by_row.insert(*id, Some(e.key.clone())).is_none(),
                "{name}: row {id} twice"
            );
        }
    }
    for id in r.is_null().unwrap().iter() {
        assert!(
            by_row.insert(id, None).is_none(),
            "{name}: row {id} null and not"
        );
    }
    assert_eq!(by_row.len(), rows.len(), "{name}");
    for row in &rows {
        let got = by_row.get(&row.id).unwrap();
        match (got, &row.key) {
            (Some(g), Some(w)) => assert!(same(g, w), "{name} row {}: {g:?} != {w:?}", row.id),
            (None, None) => {}
            _ => panic!("{name} row {}: {got:?} != {:?}", row.id, row.key),
        }
    }

    // _INDEX_META: min/max of the non-null keys and whether nulls exist.
    let keys: Vec<&Key> = rows.iter().filter_map(|r| r.key.as_ref()).collect();
    assert_eq!(meta.has_nulls, keys.len() < rows.len(), "{name}");
    match meta.key_range(&kt).unwrap() {
        None => assert!(keys.is_empty()),
        Some((min, max)) => {
            let lo = keys.iter().copied().min_by(|a, b| compare(a, b)).unwrap();
            let hi = keys.iter().copied().max_by(|a, b| compare(a, b)).unwrap();
            assert!(same(&min, lo) && same(&max, hi), "{name}");
        }
    }

    // Files written from unsorted input (Java does not check) are detected, not queried.
    if let Err(e) = r.verify_order() {
        assert_eq!(e.kind(), ErrorKind::DataInvalid);
        assert!(e.to_string().contains("not strictly increasing"), "{e}");
        assert!(
            r.is_not_null().is_err(),
            "{name}: a full scan meets the disorder"
        );
        return false;
    }

    // Queries against brute force over the CSV, for a spread of probe keys.
    let mut probes: Vec<&Key> = keys
        .iter()
        .step_by((keys.len() / 25).max(1))
        .copied()
        .collect();
    probes.extend(keys.last());
    let want = |f: &dyn Fn(&Key) -> bool| -> Vec<u64> {
        let mut v: Vec<u64> = rows
            .iter()
            .filter(|r| r.key.as_ref().is_some_and(f))
            .map(|r| r.id)
            .collect();
        v.sort_unstable();
        v
    };
    for p in probes {
        let eq = want(&|k| same(k, p));
        assert_eq!(ids(&r.equal(p).unwrap()), eq, "{name} = {p:?}");
        let lt = want(&|k| compare(k, p) == Ordering::Less);
        assert_eq!(ids(&r.less_than(p).unwrap()), lt, "{name} < {p:?}");
        let ge = want(&|k| compare(k, p) != Ordering::Less);
        assert_eq!(ids(&r.greater_or_equal(p).unwrap()), ge, "{name} >= {p:?}");
        let gt = want(&|k| compare(k, p) == Ordering::Greater);
        assert_eq!(ids(&r.greater_than(p).unwrap()), gt, "{name} > {p:?}");
    }
    assert_eq!(r.is_not_null().unwrap().len() as usize, keys.len());
    assert_eq!(r.is_null().unwrap().len() as usize, rows.len() - keys.len());
    true
}

#[test]
fn java_compatibility_data_matches_csv() {
    let mut unsorted = Vec::new();
    let mut check = |name: String, kt| {
        if !check_compat(&name, kt) {
            unsorted.push(name);
        }
    };
    for n in [
        "50",
        "100",
        "500",
        "1000",
        "5000",
        "no_nulls",
        "all_nulls",
        "duplicates",
    ] {
        check(format!("btree_test_int_{n}"), KeyType::Int);
    }
    for n in ["50", "100", "500", "1000", "5000"] {
        check(format!("btree_test_string_{n}"), KeyType::String);
    }
    check("btree_test_float_50".to_string(), KeyType::Float);
    // These were generated from input that was not sorted by key.
    assert_eq!(unsorted, UNSORTED);
}

const UNSORTED: [&str; 4] = [
    "btree_test_int_100",
    "btree_test_int_500",
    "btree_test_int_1000",
    "btree_test_int_5000",
];

#[test]
fn float_zero_and_nan_semantics() {
    let r = open(
        testdata("global_index/btree/btree_compatibility_data/btree_test_float_50.bin"),
        KeyType::Float,
    )
    .unwrap();
    // Java's Float.compare: NaN is one key, the greatest.
    assert_eq!(r.equal(&Key::Float(f32::NAN)).unwrap().len(), 1);
    assert!(r.greater_than(&Key::Float(f32::NAN)).unwrap().is_empty());
    let neg_zero = r.equal(&Key::Float(-0.0)).unwrap();
    let pos_zero = r.equal(&Key::Float(0.0)).unwrap();
    assert!(
        (&neg_zero & &pos_zero).is_empty(),
        "-0.0 and 0.0 are different keys"
    );
}

// ---- bad input -------------------------------------------------------------------------

fn kind_of(bytes: Vec<u8>) -> ErrorKind {
    match open(bytes, KeyType::Int).and_then(|r| r.entries().map(|_| ())) {
        Ok(()) => panic!("accepted"),
        Err(e) => e.kind(),
    }
}

#[test]
fn truncated_footer_and_bad_magic() {
    let g = testdata("btree/btree_int_100_no_compress.bin");
    assert_eq!(kind_of(g[..g.len() - 1].to_vec()), ErrorKind::DataInvalid);
    assert_eq!(kind_of(g[..51].to_vec()), ErrorKind::DataInvalid);
    assert_eq!(kind_of(vec![]), ErrorKind::DataInvalid);
    let mut b = g.clone();
    *b.last_mut().unwrap() ^= 0x01;
    let e = open(b, KeyType::Int).unwrap_err();
    assert!(e.to_string().contains("bad magic"), "{e}");
    assert!(e.to_string().contains("(file: payload)"), "{e}");
    let mut b = g.clone();
    let v = b.len() - 8;
    b[v] = 2;
    assert_eq!(kind_of(b), ErrorKind::Unsupported);
}

fn first_data_handle(bytes: &[u8]) -> BlockHandle {
    let r = open(bytes.to_vec(), KeyType::Int).unwrap();
    let index = r.index().unwrap();
    BlockHandle::decode(&index.entry(0).unwrap().value).unwrap()
}

#[test]
fn bad_crc_and_handles_past_the_end() {
    let g = testdata("btree/btree_int_100_no_compress.bin");
    let mut b = g.clone();
    b[3] ^= 0x40;
    let r = open(b, KeyType::Int).unwrap();
    let e = r.equal(&int(0)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DataInvalid);
    assert!(e.to_string().contains("CRC-32 mismatch"), "{e}");
    assert!(e.to_string().contains("(block offset: 0)"), "{e}");

    // The footer's index handle pointing past the footer start.
    let footer = g.len() - 52;
    let mut b = g.clone();
    b[footer + 20..footer + 28].copy_from_slice(&(g.len() as u64).to_le_bytes());
    let e = open(b, KeyType::Int).unwrap().entries().unwrap_err();
    assert!(e.to_string().contains("past the end"), "{e}");
    let mut b = g.clone();
    b[footer + 20..footer + 28].copy_from_slice(&(-5i64).to_le_bytes());
    assert_eq!(
        open(b, KeyType::Int).unwrap_err().kind(),
        ErrorKind::DataInvalid
    );
    let mut b = g.clone();
    b[footer + 28..footer + 32].copy_from_slice(&i32::MAX.to_le_bytes());
    assert_eq!(kind_of(b), ErrorKind::DataInvalid);

    // A null-bitmap handle past the end, and a corrupted null bitmap.
    let n = testdata("btree/btree_int_100_with_nulls.bin");
    let footer = n.len() - 52;
    let mut b = n.clone();
    b[footer + 40..footer + 44].copy_from_slice(&5000i32.to_le_bytes());
    assert!(open(b, KeyType::Int).unwrap().is_null().is_err());
    let nb = u64::from_le_bytes(n[footer + 32..footer + 40].try_into().unwrap()) as usize;
    let mut b = n.clone();
    b[nb + 12] ^= 0x10;
    let e = open(b, KeyType::Int).unwrap().is_null().unwrap_err();
    assert!(e.to_string().contains("null bitmap CRC-32 mismatch"), "{e}");
}

#[test]
fn corrupt_compressed_blocks() {
    for f in ["btree_int_100_zstd.bin", "btree_int_100_lz4.bin"] {
        let g = testdata(&format!("btree/{f}"));
        let h = first_data_handle(&g);
        let (start, end) = (h.offset as usize, (h.offset + u64::from(h.size)) as usize);
        assert_ne!(g[end], 0, "{f}: first block is compressed");
        for at in [start + 1, start + 4, start + 12, (start + end) / 2, end - 1] {
            let mut b = g.clone();
            b[at] ^= 0xA5;
            // Recompute the CRC so the damage reaches the decompressor.
            let crc = block_crc(&b[start..end], b[end]);
            b[end + 1..end + 5].copy_from_slice(&crc.to_le_bytes());
            let r = open(b, KeyType::Int).unwrap();
            if let Err(e) = r.entries() {
                assert_eq!(e.kind(), ErrorKind::DataInvalid, "{f} @{at}: {e}");
            }
        }
        // A wrong uncompressed length is always caught.
        let mut b = g.clone();
        b[start] ^= 0x01;
        let crc = block_crc(&b[start..end], b[end]);
        b[end + 1..end + 5].copy_from_slice(&crc.to_le_bytes());
        assert_eq!(kind_of(b), ErrorKind::DataInvalid, "{f}");
    }
}

#[test]
fn every_byte_flip_and_truncation_is_handled() {
    for f in [
        "btree/btree_int_100_no_compress.bin",
        "btree/btree_int_100_zstd.bin",
        "btree/btree_int_100_lz4.bin",
        "btree/btree_int_100_with_nulls.bin",
        "btree/btree_varchar_100_no_compress.bin",
    ] {
        let g = testdata(f);
        let kt = if f.contains("varchar") {
            KeyType::String
        } else {
            KeyType::Int
        };
        let probe = if f.contains("varchar") {
            Key::String(b"m".to_vec())
        } else {
            int(77)
        };
        let run = |b: Vec<u8>| {
            if let Ok(r) = open(b, kt) {
                let _ = r.entries();
                let _ = r.is_null();
                let _ = r.equal(&probe);
                let _ = r.greater_than(&probe);
            }
        };
        for i in 0..g.len() {
            let mut b = g.clone();
            b[i] ^= 0xFF;
            run(b);
            run(g[..i].to_vec());
        }
    }
}

#[test]
fn decode_row_ids_guards() {
    assert_eq!(
        decode_row_ids(&encode_row_ids(&[1, 300, 1 << 40])).unwrap(),
        [1, 300, 1 << 40]
    );
    assert!(decode_row_ids(&[0]).is_err());
    assert!(decode_row_ids(&[0xff, 0xff, 0xff, 0xff, 0x07, 1]).is_err());
    assert!(decode_row_ids(&[2, 1]).is_err());
    assert!(decode_row_ids(&[1, 1, 1]).is_err());
    assert!(decode_row_ids(&[]).is_err());
}
