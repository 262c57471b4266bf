//! The direct Avro decoder (`avro_direct`) against the generic record path: the same entries
//! for every fixture manifest, Java golden values, row filters, and bad input.

use std::path::PathBuf;

use super::avro_direct;
use super::*;
use crate::test_util::java_fixtures;
use crate::ErrorKind;

fn walk(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Every Avro manifest or manifest list (not index manifest) inside a `manifest` directory.
fn avro_fixtures() -> Vec<(PathBuf, Vec<u8>, bool)> {
    let mut all = Vec::new();
    walk(&java_fixtures(), &mut all);
    all.sort();
    all.into_iter()
        .filter(|p| p.parent().unwrap().file_name().unwrap() == "manifest")
        .filter_map(|p| {
            let name = p.file_name().unwrap().to_str().unwrap().to_string();
            if name.starts_with("index-manifest") {
                return None;
            }
            let b = std::fs::read(&p).unwrap();
            let list = name.contains("manifest-list") || name.contains("manifest_list");
            (ManifestFormat::sniff(&b) == Some(ManifestFormat::Avro)).then_some((p, b, list))
        })
        .collect()
}

#[test]
fn direct_and_record_paths_agree_on_every_fixture() {
    let (mut lists, mut manifests, mut entries) = (0, 0, 0);
    for (p, b, list) in avro_fixtures() {
        let n = p.display().to_string();
        if list {
            let direct = avro_direct::decode_manifest_list(&b, &n).unwrap();
            let generic = decode_manifest_list_via_records(&b, &n).unwrap();
            assert_eq!(direct, generic, "{n}");
            lists += 1;
        } else {
            let direct = avro_direct::decode_manifest(&b, &n, None).unwrap();
            let generic = decode_manifest_via_records(&b, &n).unwrap();
            assert_eq!(direct.len(), generic.len(), "{n}");
            for (d, g) in direct.iter().zip(&generic) {
                // Field by field, so a difference names the field.
                assert_eq!((d.kind, &d.partition), (g.kind, &g.partition), "{n}");
                assert_eq!(
                    (d.bucket, d.total_buckets),
                    (g.bucket, g.total_buckets),
                    "{n}"
                );
                let (df, gf) = (&d.file, &g.file);
                assert_eq!(df.file_name, gf.file_name, "{n}");
                assert_eq!((df.file_size, df.row_count), (gf.file_size, gf.row_count));
                assert_eq!((&df.min_key, &df.max_key), (&gf.min_key, &gf.max_key));
                assert_eq!(df.key_stats, gf.key_stats, "{n}");
                assert_eq!(df.value_stats, gf.value_stats, "{n}");
                assert_eq!(
                    (
                        df.min_sequence_number,
                        df.max_sequence_number,
                        df.schema_id,
                        df.level
                    ),
                    (
                        gf.min_sequence_number,
                        gf.max_sequence_number,
                        gf.schema_id,
                        gf.level
                    )
                );
                assert_eq!(df.extra_files, gf.extra_files, "{n}");
                assert_eq!(
                    (df.creation_time, df.delete_row_count, df.file_source),
                    (gf.creation_time, gf.delete_row_count, gf.file_source)
                );
                assert_eq!(df.embedded_index, gf.embedded_index, "{n}");
                assert_eq!(df.value_stats_cols, gf.value_stats_cols, "{n}");
                assert_eq!(df.external_path, gf.external_path, "{n}");
                assert_eq!(df.first_row_id, gf.first_row_id, "{n}");
                assert_eq!(df.write_cols, gf.write_cols, "{n}");
                assert_eq!(d, g, "{n}");
            }
            manifests += 1;
            entries += direct.len();
        }
    }
    // 0.9 to 2.0 writers (0.9's nullable rows included).
    assert!(
        lists >= 150 && manifests >= 80,
        "{lists} lists, {manifests} manifests"
    );
    assert!(entries > 200, "{entries}");
}

#[test]
fn round_trip_of_our_encoder_through_both_paths() {
    for (p, b, list) in avro_fixtures().into_iter().take(60) {
        let n = p.display().to_string();
        if list {
            let metas = decode_manifest_list(&b, &n).unwrap();
            let again = encode_manifest_list(&metas).unwrap();
            assert_eq!(
                avro_direct::decode_manifest_list(&again, "re").unwrap(),
                metas
            );
        } else {
            let entries = decode_manifest(&b, &n).unwrap();
            let again = encode_manifest(&entries).unwrap();
            assert_eq!(
                avro_direct::decode_manifest(&again, "re", None).unwrap(),
                entries
            );
            assert_eq!(decode_manifest_via_records(&again, "re").unwrap(), entries);
        }
    }
}

type Golden = (
    FileKind,
    i32,
    i32,
    &'static str,
    i64,
    i64,
    i32,
    (i64, i64),
    &'static [u8],
);

/// Values as Java wrote them (read independently with fastavro): Java 1.1's
/// `avro_manifest_11`, and a Java 2.0 primary-key compaction manifest (4 DELETEs, 3 ADDs).
#[test]
fn golden_java_manifest_values() {
    const KEY_1: &[u8] = &[0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0];
    const KEY_20: &[u8] = &[0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0, 0, 0, 0, 0];
    const KEY_1001: &[u8] = &[0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 233, 3, 0, 0, 0, 0, 0, 0];
    const KEY_2001: &[u8] = &[0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 209, 7, 0, 0, 0, 0, 0, 0];
    const EMPTY_ROW: &[u8] = &[0; 12];
    use FileKind::{Add, Delete};
    let cases: [(&str, Vec<Golden>); 2] = [
        (
            "avro/manifest/avro_manifest_11",
            vec![(
                Add,
                0,
                -1,
                "data-0ff223ba-0d95-4c43-a25f-bcee3c051e58-0.avro",
                1615,
                3,
                0,
                (0, 2),
                EMPTY_ROW,
            )],
        ),
        (
            "parquet/pk_btree_e2e.db/pk_btree_e2e/manifest/manifest-a01531dd-94c8-4b58-b844-b0e1f26a464c-0",
            vec![
                (Delete, 0, 1, "data-14f3c2d2-86bc-4305-8ddc-3d7587b8e8ac-0.parquet", 1269, 1, 9999, (2003, 2003), KEY_20),
                (Delete, 0, 1, "data-6d915c8e-2c9f-46a7-ad5d-4423f7cc5d59-0.parquet", 6666, 1000, 10000, (0, 999), KEY_1),
                (Delete, 0, 1, "data-6d915c8e-2c9f-46a7-ad5d-4423f7cc5d59-1.parquet", 6570, 1000, 10000, (1000, 1999), KEY_1001),
                (Delete, 0, 1, "data-0caae41e-5153-4d29-8a48-dbbdf015f77a-0.parquet", 1322, 2, 10000, (2000, 2001), KEY_2001),
                (Add, 0, 1, "data-f31d04c3-09a9-4c6e-b16a-9081d4a3faa7-0.parquet", 6392, 999, 10000, (0, 2003), KEY_1),
                (Add, 0, 1, "data-f31d04c3-09a9-4c6e-b16a-9081d4a3faa7-1.parquet", 6570, 1000, 10000, (1000, 1999), KEY_1001),
                (Add, 0, 1, "data-f31d04c3-09a9-4c6e-b16a-9081d4a3faa7-2.parquet", 1322, 2, 10000, (2000, 2001), KEY_2001),
            ],
        ),
    ];
    for (path, golden) in cases {
        let b = std::fs::read(java_fixtures().join(path)).unwrap();
        let entries = avro_direct::decode_manifest(&b, path, None).unwrap();
        assert_eq!(entries.len(), golden.len(), "{path}");
        for (e, g) in entries.iter().zip(golden) {
            let (kind, bucket, total, name, size, rows, level, seq, key_min) = g;
            assert_eq!((e.kind, e.bucket, e.total_buckets), (kind, bucket, total));
            assert_eq!(e.file.file_name, name);
            assert_eq!((e.file.file_size, e.file.row_count), (size, rows));
            assert_eq!(e.file.level, level);
            let f = &e.file;
            assert_eq!((f.min_sequence_number, f.max_sequence_number), seq);
            assert_eq!(f.key_stats.min_values, key_min);
            let nulls = if key_min == EMPTY_ROW {
                vec![]
            } else {
                vec![Some(0)]
            };
            assert_eq!(f.key_stats.null_counts, Some(nulls));
        }
    }
}

#[test]
fn head_filter_skips_rows_and_matches_filtering_after() {
    let mut compared = 0;
    for (p, b, list) in avro_fixtures() {
        if list {
            continue;
        }
        let n = p.display().to_string();
        let all = decode_manifest_via_records(&b, &n).unwrap();
        for bucket in [0, 1] {
            let mut seen = 0;
            let mut keep = |h: &EntryHead<'_>| {
                seen += 1;
                h.bucket == bucket && h.schema_id.is_some()
            };
            let some = decode_manifest_filtered(&b, &n, Some(&mut keep)).unwrap();
            let expected: Vec<_> = all.iter().filter(|e| e.bucket == bucket).cloned().collect();
            assert_eq!(some, expected, "{n}");
            assert_eq!(seen, all.len(), "{n}");
            compared += 1;
        }
        // The schema id read ahead is the file's.
        let mut ids = Vec::new();
        let mut keep = |h: &EntryHead<'_>| {
            ids.push(h.schema_id);
            true
        };
        decode_manifest_filtered(&b, &n, Some(&mut keep)).unwrap();
        let want: Vec<_> = all.iter().map(|e| Some(e.file.schema_id)).collect();
        assert_eq!(ids, want, "{n}");
    }
    assert!(compared > 100);
}

fn sample() -> Vec<u8> {
    std::fs::read(java_fixtures().join("avro/manifest/avro_manifest_11")).unwrap()
}

fn direct_err(b: &[u8]) -> crate::Error {
    avro_direct::decode_manifest(b, "dir/manifest-bad", None).unwrap_err()
}

fn assert_names_file(e: &crate::Error, needle: &str) {
    assert_eq!(e.kind(), ErrorKind::DataInvalid, "{e}");
    let msg = e.to_string();
    assert!(msg.contains("(file: dir/manifest-bad)"), "{msg}");
    assert!(msg.contains(needle), "{msg}");
}

#[test]
fn truncated_block_and_bad_sync_marker() {
    let b = sample();
    let e = direct_err(&b[..b.len() - 20]);
    assert_names_file(&e, "truncated");
    let mut bad = b.clone();
    let last = bad.len() - 1;
    bad[last] ^= 0xff;
    assert_names_file(&direct_err(&bad), "sync marker mismatch");
    for cut in 0..b.len() {
        if let Err(e) = avro_direct::decode_manifest(&b[..cut], "dir/manifest-bad", None) {
            assert_names_file(&e, "");
        }
    }
}

/// A one-row null-codec container with `schema` and `body`.
fn container(schema: &str, body: &[u8]) -> Vec<u8> {
    let mut e = RowEncoderForTests::default();
    e.raw(b"Obj\x01");
    e.long(1);
    e.bytes(b"avro.schema");
    e.bytes(schema.as_bytes());
    e.long(0);
    e.raw(&[3u8; 16]);
    e.long(1);
    e.bytes(body);
    e.raw(&[3u8; 16]);
    e.0
}

#[derive(Default)]
struct RowEncoderForTests(Vec<u8>);

impl RowEncoderForTests {
    fn raw(&mut self, b: &[u8]) {
        self.0.extend_from_slice(b);
    }
    fn long(&mut self, v: i64) {
        let mut z = ((v << 1) ^ (v >> 63)) as u64;
        while z >= 0x80 {
            self.0.push((z as u8) | 0x80);
            z >>= 7;
        }
        self.0.push(z as u8);
    }
    fn bytes(&mut self, b: &[u8]) {
        self.long(b.len() as i64);
        self.raw(b);
    }
}

#[test]
fn wrong_schema_and_bad_varint() {
    // `_BUCKET` written as a string.
    let schema = MANIFEST_SCHEMA.replace(
        r#"{"name":"_BUCKET","type":"int"}"#,
        r#"{"name":"_BUCKET","type":"string"}"#,
    );
    assert_ne!(schema, MANIFEST_SCHEMA);
    let mut row = RowEncoderForTests::default();
    row.long(2); // _VERSION
    row.long(0); // _KIND
    row.bytes(&[]); // _PARTITION
    row.bytes(b"7"); // _BUCKET
    let e = direct_err(&container(&schema, &row.0));
    assert_names_file(&e, "field `_BUCKET` has the wrong type");
    assert!(e.to_string().contains("(row: 0)"), "{e}");

    // A varint of 11 bytes where `_VERSION` starts.
    let e = direct_err(&container(MANIFEST_SCHEMA, &[0xff; 11]));
    assert_names_file(&e, "varint longer than 10 bytes");

    // A manifest list is not a manifest.
    let list = std::fs::read(java_fixtures().join("avro/manifest/avro_manifest_list_11")).unwrap();
    assert_names_file(&direct_err(&list), "missing required field");

    // A row that is not a record; an unknown union branch.
    assert_names_file(&direct_err(&container(r#""long""#, &[2])), "wrong type");
    let nullable = format!(r#"["null", {MANIFEST_SCHEMA}]"#);
    assert_names_file(&direct_err(&container(&nullable, &[4])), "union branch 2");
}
