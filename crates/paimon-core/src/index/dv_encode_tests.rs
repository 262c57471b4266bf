//! The encoder against Java-written deletion-vector index files (golden bytes) and against
//! our decoder.

use std::path::{Path, PathBuf};

use roaring::RoaringTreemap;

use super::*;
use crate::index::deletion_vector::{decode_deletion_file, decode_deletion_vector};
use crate::spec::manifest::decode_index_manifest;

/// Every `index-manifest-*` file under `dir`, recursively.
fn index_manifests(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            index_manifests(&p, out);
        } else if p
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("index-manifest-"))
        {
            out.push(p);
        }
    }
}

/// Java-written 32-bit DV index files: decoding every vector and encoding them again in the
/// manifest's order gives the file byte for byte, with the same ranges.
#[test]
fn java_dv_index_files_reencode_byte_for_byte() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/java");
    let mut manifests = Vec::new();
    index_manifests(&root, &mut manifests);
    let mut checked = 0;
    for m in manifests {
        let table = m.parent().and_then(Path::parent).unwrap();
        let bytes = std::fs::read(&m).unwrap();
        let entries = decode_index_manifest(&bytes, &m.to_string_lossy()).unwrap();
        for e in entries
            .iter()
            .filter(|e| e.index_type == "DELETION_VECTORS")
        {
            let Some(ranges) = &e.deletion_vectors else {
                continue;
            };
            let path = match &e.external_path {
                Some(p) => PathBuf::from(p.trim_start_matches("file:")),
                None => table.join("index").join(&e.file_name),
            };
            let Ok(file) = std::fs::read(&path) else {
                // Index files in data directories or external paths of other layouts.
                continue;
            };
            let vectors: Vec<(String, DeletionVector)> = ranges
                .iter()
                .map(|r| {
                    let off = usize::try_from(r.offset).unwrap();
                    let pos = decode_deletion_file(&file, off, i64::from(r.length), "java", None)
                        .unwrap();
                    let dv = DeletionVector::from_positions(&pos, false).unwrap();
                    (r.data_file_name.clone(), dv)
                })
                .collect();
            let (ours, our_ranges) = encode_index_file(&vectors).unwrap();
            assert_eq!(ours, file, "{}", path.display());
            for (ours, java) in our_ranges.iter().zip(ranges) {
                // Java 0.9 recorded no cardinality.
                let java_card = java.cardinality.or(ours.cardinality);
                let key =
                    |m: &DeletionVectorMeta, c| (m.data_file_name.clone(), m.offset, m.length, c);
                assert_eq!(
                    key(ours, ours.cardinality),
                    key(java, java_card),
                    "{}",
                    path.display()
                );
            }
            assert_eq!(i64::try_from(ours.len()).unwrap(), e.file_size);
            checked += 1;
        }
    }
    assert!(checked >= 5, "only {checked} Java DV index files found");
}

/// The documented example of `docs/format.md` (one position, 4) and the decoder round trip
/// of both kinds, with runs, bitmap containers and positions beyond 32 bits.
#[test]
fn encoded_vectors_decode_with_our_decoder() {
    let mut dv = DeletionVector::new(false);
    assert!(dv.delete(4).unwrap());
    assert!(!dv.delete(4).unwrap());
    let (file, ranges) = encode_index_file(&[("f".into(), dv)]).unwrap();
    assert_eq!(
        crate::test_util::hex("01000000165e43f2d03a300000010000000000000010000000040087 5ca5d7"),
        file
    );
    assert_eq!((ranges[0].offset, ranges[0].length), (1, 22));
    let sets: Vec<Vec<u64>> = vec![
        vec![],
        vec![0, 1, 2, 3, 10],
        (0..10_000).step_by(2).collect(),
        (0..70_000).collect(),
        (5..9).chain(100..5000).chain(65_536..65_540).collect(),
        (0..200_000).filter(|x| x % 3 != 0).collect(),
    ];
    for bitmap64 in [false, true] {
        let mut vectors = Vec::new();
        for (i, s) in sets.iter().enumerate() {
            let mut dv = DeletionVector::new(bitmap64);
            for p in s {
                dv.delete(*p).unwrap();
            }
            vectors.push((format!("data-{i}"), dv));
        }
        if bitmap64 {
            let mut dv = DeletionVector::new(true);
            for p in [1u64, 7, (1 << 33) + 5, (1 << 33) + 6, (1 << 33) + 7] {
                dv.delete(p).unwrap();
            }
            vectors.push(("wide".into(), dv));
        }
        let (file, ranges) = encode_index_file(&vectors).unwrap();
        for ((_, dv), r) in vectors.iter().zip(&ranges) {
            let off = usize::try_from(r.offset).unwrap();
            let got = decode_deletion_file(&file, off, i64::from(r.length), "t", None).unwrap();
            assert_eq!(
                got,
                dv.positions(),
                "bitmap64={bitmap64} {}",
                r.data_file_name
            );
            assert_eq!(got, decode_deletion_vector(&file, off, "t", None).unwrap());
            assert_eq!(r.cardinality, Some(got.len() as i64));
        }
    }
    // A 32-bit vector refuses positions beyond i32::MAX; a 64-bit one takes them.
    let e = DeletionVector::new(false).delete(1 << 31).unwrap_err();
    assert!(e.to_string().contains("bitmap64"), "{e}");
    let wide: RoaringTreemap = [1u64 << 40].into_iter().collect();
    assert!(DeletionVector::from_positions(&wide, true).is_ok());
}

/// Java's `runOptimize` choice for 64-bit vectors: a run container only when smaller than the
/// array (2 bytes a value) or bitmap (8 KiB) container; the run cookie carries size − 1 and
/// no offsets below four containers.
#[test]
fn bitmap64_containers_are_run_optimized_like_java() {
    let mut dv = DeletionVector::new(true);
    for p in 0..100u64 {
        dv.delete(p).unwrap();
    }
    let (blob, f2) = dv.encode().unwrap();
    // L = magic 4 + count 8 + key 4 + (cookie 4 + flags 1 + key/card 4 + run 2 + 4).
    assert_eq!(i32::from_be_bytes(blob[..4].try_into().unwrap()), 31);
    assert_eq!(f2, 39);
    let bitmap = &blob[20..35];
    assert_eq!(
        bitmap,
        &[0x3b, 0x30, 0, 0, 1, 0, 0, 99, 0, 1, 0, 0, 0, 99, 0][..]
    );
    // Two isolated positions stay an array container (4 bytes < 2 + 8).
    let mut dv = DeletionVector::new(true);
    dv.delete(3).unwrap();
    dv.delete(9).unwrap();
    let (blob, _) = dv.encode().unwrap();
    assert_eq!(&blob[20..24], &SERIAL_COOKIE_NO_RUN.to_le_bytes());
}
