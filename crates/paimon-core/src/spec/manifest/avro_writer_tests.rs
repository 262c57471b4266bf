use std::path::{Path, PathBuf};

use super::*;
use crate::spec::manifest::{decode_index_manifest, decode_manifest, decode_manifest_list};
use crate::test_util::java_fixtures;

/// The parts of a container: schema text, codec, rows of every block (decompressed).
struct Container {
    schema: String,
    codec: String,
    rows: Vec<u8>,
    blocks: usize,
}

fn varint(b: &[u8], at: &mut usize) -> i64 {
    let (mut v, mut shift) = (0u64, 0);
    loop {
        let x = b[*at];
        *at += 1;
        v |= u64::from(x & 0x7f) << shift;
        if x < 0x80 {
            break;
        }
        shift += 7;
    }
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

fn take<'a>(b: &'a [u8], at: &mut usize) -> &'a [u8] {
    let n = varint(b, at) as usize;
    *at += n;
    &b[*at - n..*at]
}

fn parse(b: &[u8]) -> Container {
    assert_eq!(&b[..4], b"Obj\x01");
    let mut at = 4;
    let (mut schema, mut codec) = (String::new(), "null".to_string());
    loop {
        let n = varint(b, &mut at);
        if n == 0 {
            break;
        }
        if n < 0 {
            varint(b, &mut at);
        }
        for _ in 0..n.unsigned_abs() {
            let k = String::from_utf8(take(b, &mut at).to_vec()).unwrap();
            let v = String::from_utf8(take(b, &mut at).to_vec()).unwrap();
            match k.as_str() {
                "avro.schema" => schema = v,
                "avro.codec" => codec = v,
                _ => {}
            }
        }
    }
    let sync = &b[at..at + 16];
    at += 16;
    let (mut rows, mut blocks) = (Vec::new(), 0);
    while at < b.len() {
        varint(b, &mut at);
        let data = take(b, &mut at);
        match codec.as_str() {
            "null" => rows.extend_from_slice(data),
            "zstandard" => rows.extend(zstd::stream::decode_all(data).unwrap()),
            _ => {}
        }
        assert_eq!(&b[at..at + 16], sync);
        at += 16;
        blocks += 1;
    }
    Container {
        schema,
        codec,
        rows,
        blocks,
    }
}

fn avro_files(prefix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![java_fixtures()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.parent().is_some_and(|d| d.ends_with("manifest"))
                && name(&p).starts_with(prefix)
                && std::fs::read(&p).unwrap().starts_with(b"Obj\x01")
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn name(p: &Path) -> &str {
    p.file_name().unwrap().to_str().unwrap()
}

/// Java 2.0's manifest lists re-encode to the same schema text and row bytes; every list (older
/// writers included) decodes back to the same rows.
#[test]
fn manifest_lists_encode_as_java_writes_them() {
    let (mut golden, mut all) = (0, 0);
    for p in avro_files("manifest-list-") {
        let bytes = std::fs::read(&p).unwrap();
        let metas = decode_manifest_list(&bytes, name(&p)).unwrap();
        let ours = encode_manifest_list(&metas).unwrap();
        assert_eq!(
            decode_manifest_list(&ours, "ours").unwrap(),
            metas,
            "{}",
            p.display()
        );
        let (java, mine) = (parse(&bytes), parse(&ours));
        assert_eq!(mine.schema, MANIFEST_LIST_SCHEMA);
        assert_eq!(mine.codec, "zstandard");
        if java.schema == MANIFEST_LIST_SCHEMA && java.codec == "zstandard" {
            assert_eq!(mine.rows, java.rows, "{}", p.display());
            golden += 1;
        }
        all += 1;
    }
    assert!(golden >= 10 && all > golden, "{golden} golden of {all}");
}

/// The same for manifests.
#[test]
fn manifests_encode_as_java_writes_them() {
    let (mut golden, mut all) = (0, 0);
    for p in avro_files("manifest-") {
        if name(&p).starts_with("manifest-list-") {
            continue;
        }
        let bytes = std::fs::read(&p).unwrap();
        let entries = decode_manifest(&bytes, name(&p)).unwrap();
        let ours = encode_manifest(&entries).unwrap();
        assert_eq!(
            decode_manifest(&ours, "ours").unwrap(),
            entries,
            "{}",
            p.display()
        );
        let (java, mine) = (parse(&bytes), parse(&ours));
        assert_eq!(mine.schema, MANIFEST_SCHEMA);
        if java.schema == MANIFEST_SCHEMA && java.codec == "zstandard" {
            assert_eq!(mine.rows, java.rows, "{}", p.display());
            golden += 1;
        }
        all += 1;
    }
    assert!(golden >= 10 && all > golden, "{golden} golden of {all}");
}

/// The same for index manifests (deletion vectors and global-index payloads).
#[test]
fn index_manifests_encode_as_java_writes_them() {
    let (mut golden, mut all, mut global) = (0, 0, 0);
    for p in avro_files("index-manifest-") {
        let bytes = std::fs::read(&p).unwrap();
        let entries = decode_index_manifest(&bytes, name(&p)).unwrap();
        global += entries.iter().filter(|e| e.global_index.is_some()).count();
        let ours = encode_index_manifest(&entries).unwrap();
        assert_eq!(
            decode_index_manifest(&ours, "ours").unwrap(),
            entries,
            "{}",
            p.display()
        );
        let (java, mine) = (parse(&bytes), parse(&ours));
        assert_eq!(mine.schema, INDEX_MANIFEST_SCHEMA);
        if java.schema == INDEX_MANIFEST_SCHEMA && java.codec == "zstandard" {
            assert_eq!(mine.rows, java.rows, "{}", p.display());
            golden += 1;
        }
        all += 1;
    }
    assert!(
        golden >= 5 && global > 0,
        "{golden} golden of {all}, {global} global-index rows"
    );
}

#[test]
fn varints_empty_files_and_block_splits() {
    let mut e = RowEncoder::default();
    for v in [0, -1, 1, 63, -64, 64, i64::MAX, i64::MIN] {
        e.long(v);
    }
    let mut at = 0;
    for v in [0, -1, 1, 63, -64, 64, i64::MAX, i64::MIN] {
        assert_eq!(varint(&e.buf, &mut at), v);
    }
    assert_eq!(&e.buf[..4], &[0x00, 0x01, 0x02, 0x7e]);
    let empty = encode_manifest_list(&[]).unwrap();
    assert!(decode_manifest_list(&empty, "empty").unwrap().is_empty());
    assert_eq!(parse(&empty).blocks, 0);
    // Enough rows to pass the sync interval: several blocks, all rows back.
    let p = avro_files("manifest-list-").pop().unwrap();
    let one = decode_manifest_list(&std::fs::read(&p).unwrap(), "x").unwrap();
    let many: Vec<_> = one.iter().cycle().take(3000).cloned().collect();
    let bytes = encode_manifest_list(&many).unwrap();
    assert!(parse(&bytes).blocks > 1);
    assert_eq!(decode_manifest_list(&bytes, "many").unwrap(), many);
}
