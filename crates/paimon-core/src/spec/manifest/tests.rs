//! Fixture tests of the manifest decoders against Java-written tables (0.9 to 1.x writers).

use std::path::{Path, PathBuf};

use super::*;
use crate::spec::snapshot::Snapshot;
use crate::test_util::java_fixtures;

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Every file inside a directory named `manifest`.
fn manifest_files() -> Vec<PathBuf> {
    let mut all = Vec::new();
    walk(&java_fixtures(), &mut all);
    all.retain(|p| p.parent().unwrap().file_name().unwrap() == "manifest");
    all.sort();
    all
}

enum Kind {
    List,
    Manifest,
    Index,
}

fn kind_of(p: &Path) -> Kind {
    let name = p.file_name().unwrap().to_str().unwrap();
    if name.starts_with("index-manifest") {
        Kind::Index
    } else if name.contains("manifest-list") || name.contains("manifest_list") {
        Kind::List
    } else {
        Kind::Manifest
    }
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap()
}

fn name(p: &Path) -> String {
    p.display().to_string()
}

fn decode_any(p: &Path) -> Result<usize> {
    let b = read(p);
    let n = name(p);
    Ok(match kind_of(p) {
        Kind::List => decode_manifest_list(&b, &n)?.len(),
        Kind::Manifest => decode_manifest(&b, &n)?.len(),
        Kind::Index => decode_index_manifest(&b, &n)?.len(),
    })
}

#[test]
fn every_fixture_manifest_decodes() {
    let files = manifest_files();
    let (mut avro, mut orc, mut rows) = (0, 0, 0);
    for p in &files {
        rows += decode_any(p).unwrap_or_else(|e| panic!("{e}"));
        match ManifestFormat::sniff(&read(p)) {
            Some(ManifestFormat::Avro) => avro += 1,
            Some(ManifestFormat::Orc) => orc += 1,
            other => panic!("{other:?}"),
        }
    }
    // 190 Avro + 120 ORC before the Java 2.0 pk-btree tables and the file-index tables joined
    // the fixtures (+75 Avro, +45 ORC).
    assert_eq!((avro, orc), (265, 165));
    assert!(rows > 500, "{rows}");
}

/// Table directories (those holding a `snapshot/` folder).
fn tables() -> Vec<PathBuf> {
    let mut all = Vec::new();
    walk(&java_fixtures(), &mut all);
    let mut t: Vec<PathBuf> = all
        .iter()
        .filter(|p| p.parent().unwrap().file_name().unwrap() == "snapshot")
        .map(|p| p.parent().unwrap().parent().unwrap().to_path_buf())
        .collect();
    t.sort();
    t.dedup();
    t
}

fn snapshot(table: &Path, id: i64) -> Snapshot {
    let p = table.join(format!("snapshot/snapshot-{id}"));
    Snapshot::from_json_bytes(&read(&p)).unwrap()
}

/// All entries of a manifest list, in order.
fn entries_of_list(table: &Path, list: &str) -> Vec<ManifestEntry> {
    let p = table.join("manifest").join(list);
    let metas = decode_manifest_list(&read(&p), list).unwrap();
    let mut out = Vec::new();
    for m in metas {
        let mp = table.join("manifest").join(&m.file_name);
        assert_eq!(std::fs::metadata(&mp).unwrap().len() as i64, m.file_size);
        let entries = decode_manifest(&read(&mp), &m.file_name).unwrap();
        let added = entries.iter().filter(|e| e.kind == FileKind::Add).count();
        assert_eq!(added as i64, m.num_added_files, "{}", m.file_name);
        assert_eq!((entries.len() - added) as i64, m.num_deleted_files);
        out.extend(entries);
    }
    out
}

fn signed_rows(entries: &[ManifestEntry]) -> i64 {
    entries
        .iter()
        .map(|e| match e.kind {
            FileKind::Add => e.file.row_count,
            FileKind::Delete => -e.file.row_count,
        })
        .sum()
}

/// Live files after merging ADD/DELETE by identifier (Java `FileEntry#mergeEntries`).
fn live_files(entries: Vec<ManifestEntry>) -> Vec<ManifestEntry> {
    let mut live: Vec<ManifestEntry> = Vec::new();
    for e in entries {
        let same = |l: &ManifestEntry| {
            l.partition == e.partition
                && l.bucket == e.bucket
                && l.file.level == e.file.level
                && l.file.file_name == e.file.file_name
        };
        match e.kind {
            FileKind::Add => {
                assert!(!live.iter().any(same), "duplicate ADD {}", e.file.file_name);
                live.push(e);
            }
            FileKind::Delete => {
                let before = live.len();
                live.retain(|l| !same(l));
                assert_eq!(live.len() + 1, before, "DELETE of a missing file");
            }
        }
    }
    live
}

#[test]
fn row_counts_match_every_snapshot_of_every_table() {
    let mut checked = 0;
    for table in tables() {
        let hint = read(&table.join("snapshot/LATEST"));
        let latest = crate::spec::snapshot::parse_hint(&hint).unwrap();
        let earliest = read(&table.join("snapshot/EARLIEST"));
        let earliest = crate::spec::snapshot::parse_hint(&earliest).unwrap();
        for id in earliest..=latest {
            let s = snapshot(&table, id);
            let base = entries_of_list(&table, &s.base_manifest_list);
            let delta = entries_of_list(&table, &s.delta_manifest_list);
            assert_eq!(Some(signed_rows(&delta)), s.delta_record_count);
            let mut all = base;
            all.extend(delta);
            let total = signed_rows(&all);
            assert_eq!(
                Some(total),
                s.total_record_count,
                "{} {id}",
                table.display()
            );
            let live = live_files(all);
            assert_eq!(live.iter().map(|e| e.file.row_count).sum::<i64>(), total);
            checked += 1;
        }
    }
    // 98 before the pk-btree and file-index tables joined the fixtures (+36 snapshots).
    assert_eq!(checked, 134);
}

/// `f1=<int>` of a one-INT-column partition row (arity prefix, null bits, 8-byte slot).
fn int_partition(bytes: &[u8]) -> i32 {
    assert_eq!(&bytes[..4], &[0, 0, 0, 1]);
    i32::from_le_bytes(bytes[12..16].try_into().unwrap())
}

#[test]
fn append_09_orc_snapshot_5_state() {
    let table = java_fixtures().join("parquet/append_09.db/append_09");
    let s = snapshot(&table, 5);
    let list = read(&table.join("manifest").join(&s.delta_manifest_list));
    assert_eq!(ManifestFormat::sniff(&list), Some(ManifestFormat::Orc));
    let mut all = entries_of_list(&table, &s.base_manifest_list);
    let delta = entries_of_list(&table, &s.delta_manifest_list);
    // The full compaction of snapshot 5 replaced the four files of f1=10/bucket-1 by one.
    let deleted = delta.iter().filter(|e| e.kind == FileKind::Delete).count();
    assert_eq!((deleted, delta.len() - deleted), (4, 1));
    all.extend(delta);
    let live = live_files(all);
    let mut seen = Vec::new();
    for e in &live {
        assert_eq!(e.total_buckets, 2);
        assert_eq!(e.file.schema_id, 0);
        // ORC timestamp column → wall-clock millis, within a time-zone offset of the commit.
        let created = e.file.creation_time.unwrap();
        assert!(
            (created - s.time_millis).abs() < 15 * 3_600_000,
            "{created}"
        );
        assert_eq!(e.file.min_key, vec![0u8; 12], "append table: empty key row");
        let dir = format!("f1={}/bucket-{}", int_partition(&e.partition), e.bucket);
        assert!(table.join(&dir).join(&e.file.file_name).is_file(), "{dir}");
        seen.push((dir, e.file.row_count, e.file.level));
    }
    seen.sort();
    let want = [
        ("f1=10/bucket-0", 1, 0),
        ("f1=10/bucket-1", 8, 0),
        ("f1=20/bucket-0", 1, 0),
    ];
    let mut want: Vec<_> = want
        .iter()
        .map(|(d, r, l)| (d.to_string(), *r, *l))
        .collect();
    want.push(want[2].clone());
    assert_eq!(seen, want);
    assert_eq!(live.iter().map(|e| e.file.row_count).sum::<i64>(), 11);
}

#[test]
fn deletion_vector_index_entries() {
    let table =
        java_fixtures().join("parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv");
    let s = snapshot(&table, 6);
    let index = s.index_manifest.unwrap();
    let mut entries =
        decode_index_manifest(&read(&table.join("manifest").join(&index)), &index).unwrap();
    entries.sort_by_key(|e| e.bucket);
    assert_eq!(entries.len(), 2);
    let names = [
        (
            "index-16bec1d6-fa31-49bd-a240-deadcfff6003-0",
            "data-f19db350-7c55-4686-8839-78d15aa17fc1-0.parquet",
        ),
        (
            "index-16bec1d6-fa31-49bd-a240-deadcfff6003-1",
            "data-d18e5571-abce-4309-ad4a-37f0bc93679f-0.parquet",
        ),
    ];
    for (bucket, (e, (index_file, data_file))) in entries.iter().zip(names).enumerate() {
        assert_eq!(e.kind, FileKind::Add);
        assert_eq!(e.bucket, bucket as i32);
        assert_eq!(int_partition(&e.partition), 10);
        assert_eq!(e.index_type, "DELETION_VECTORS");
        assert_eq!(e.file_name, index_file);
        assert_eq!((e.file_size, e.row_count), (31, 1));
        assert_eq!(e.external_path, None);
        assert_eq!(e.global_index, None);
        let dv = e.deletion_vectors.as_ref().unwrap();
        let want = DeletionVectorMeta {
            data_file_name: data_file.to_string(),
            offset: 1,
            length: 22,
            cardinality: Some(1),
        };
        assert_eq!(dv, &vec![want]);
        let on_disk = std::fs::metadata(table.join("index").join(index_file))
            .unwrap()
            .len();
        // 1 version byte, then per vector: BE length, 22 bytes, BE CRC.
        assert_eq!(on_disk as i64, e.file_size);
        assert_eq!(1 + 4 + 22 + 4, on_disk);
        let data_dir = table.join(format!("f1=10/bucket-{bucket}"));
        assert!(data_dir.join(data_file).is_file());
    }
}

#[test]
fn external_path_index_entry() {
    let table = java_fixtures()
        .join("parquet/pk_dv_index_in_data_with_external.db/pk_dv_index_in_data_with_external");
    let index = "index-manifest-3745bdb2-09fa-48ea-a92c-af27004226cd-0";
    let entries = decode_index_manifest(&read(&table.join("manifest").join(index)), index).unwrap();
    let e = entries.iter().find(|e| e.bucket == 1).unwrap();
    assert_eq!(e.file_name, "index-770fb595-864b-4f3c-b921-a32972f01df0-1");
    assert_eq!(
        e.external_path.as_deref(),
        Some("FILE:/tmp/external/f1=10/bucket-1/index-770fb595-864b-4f3c-b921-a32972f01df0-1")
    );
    // The fixture keeps the external directory beside the table.
    let local = table.join("../external/f1=10/bucket-1").join(&e.file_name);
    assert_eq!(std::fs::metadata(local).unwrap().len() as i64, e.file_size);
}

#[test]
fn loose_avro_09_and_11_files() {
    let dir = java_fixtures().join("avro/manifest");
    let l09 = decode_manifest_list(&read(&dir.join("avro_manifest_list_09")), "l09").unwrap();
    let l11 = decode_manifest_list(&read(&dir.join("avro_manifest_list_11")), "l11").unwrap();
    assert_eq!(
        l09[0].file_name,
        "manifest-b09d5588-5614-46e2-b441-f196d29e60dc-0"
    );
    assert_eq!((l09[0].file_size, l09[0].num_added_files), (2010, 1));
    assert_eq!(l09[0].min_bucket, None, "0.9 lists have no bucket bounds");
    assert_eq!((l11[0].min_bucket, l11[0].max_level), (Some(0), Some(0)));
    let m09 = decode_manifest(&read(&dir.join("avro_manifest_09")), "m09").unwrap();
    let f = &m09[0].file;
    assert_eq!(
        f.file_name,
        "data-dd28db13-0f8f-43a5-a0df-684e7dc93c55-0.avro"
    );
    assert_eq!(
        (f.file_size, f.row_count, m09[0].total_buckets),
        (1625, 3, -1)
    );
    assert_eq!(f.key_stats.null_counts, Some(vec![]));
    let m11 = decode_manifest(&read(&dir.join("avro_manifest_11")), "m11").unwrap();
    assert_eq!(
        m11[0].file.file_name,
        "data-0ff223ba-0d95-4c43-a25f-bcee3c051e58-0.avro"
    );
}

/// A small Avro manifest used by the bad-input tests.
fn sample_avro_manifest() -> (PathBuf, Vec<u8>) {
    let p = java_fixtures().join("avro/manifest/avro_manifest_11");
    let b = read(&p);
    (p, b)
}

/// Avro containers have no footer: a cut exactly at a block boundary is a valid, shorter file
/// (the header alone is an empty container). Every other prefix must be an error.
#[test]
fn every_prefix_of_a_manifest_is_an_error_or_fewer_rows() {
    let orc = manifest_files()
        .into_iter()
        .find(|p| ManifestFormat::sniff(&read(p)) == Some(ManifestFormat::Orc))
        .unwrap();
    for p in [sample_avro_manifest().0, orc] {
        let b = read(&p);
        let decode = |bytes: &[u8]| match kind_of(&p) {
            Kind::List => decode_manifest_list(bytes, "cut").map(|v| v.len()),
            Kind::Manifest => decode_manifest(bytes, "cut").map(|v| v.len()),
            Kind::Index => decode_index_manifest(bytes, "cut").map(|v| v.len()),
        };
        let full = decode(&b).unwrap();
        let mut ok_cuts = Vec::new();
        for cut in 0..b.len() {
            match decode(&b[..cut]) {
                Ok(rows) => {
                    assert!(rows < full);
                    ok_cuts.push(cut);
                }
                Err(e) => assert!(e.to_string().contains("(file: cut)"), "{e}"),
            }
        }
        let is_avro = ManifestFormat::sniff(&b) == Some(ManifestFormat::Avro);
        // One block: only the bare header decodes.
        assert_eq!(ok_cuts.len(), usize::from(is_avro), "{ok_cuts:?}");
    }
}

#[test]
fn garbage_and_flipped_bytes_are_errors_not_panics() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for len in [0usize, 1, 3, 4, 17, 100, 4096] {
        let bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        let e = decode_manifest(&bytes, "garbage.avro").unwrap_err();
        assert!(e.to_string().contains("garbage.avro"), "{e}");
        for magic in [&b"Obj\x01"[..], b"ORC", b"PAR1"] {
            let mut b = magic.to_vec();
            b.extend(&bytes);
            assert!(decode_manifest(&b, "g").is_err());
        }
    }
    // Flipping any single byte of a real file must not panic (it may still decode).
    let (_, good) = sample_avro_manifest();
    for i in 0..good.len() {
        let mut b = good.clone();
        b[i] ^= 0x5a;
        let _ = decode_manifest(&b, "flipped");
    }
}

/// Re-encodes a hand-built one-row Avro container (null codec) with the given schema and body.
fn container(schema: &str, body: &[u8]) -> Vec<u8> {
    fn zz(v: i64, out: &mut Vec<u8>) {
        let mut n = ((v << 1) ^ (v >> 63)) as u64;
        while n >= 0x80 {
            out.push((n as u8) | 0x80);
            n >>= 7;
        }
        out.push(n as u8);
    }
    let mut out = b"Obj\x01".to_vec();
    zz(1, &mut out);
    zz(11, &mut out);
    out.extend(b"avro.schema");
    zz(schema.len() as i64, &mut out);
    out.extend(schema.as_bytes());
    zz(0, &mut out);
    out.extend([9u8; 16]);
    zz(1, &mut out);
    zz(body.len() as i64, &mut out);
    out.extend(body);
    out.extend([9u8; 16]);
    out
}

const LIST_SCHEMA: &str = r#"{"type":"record","name":"record","fields":[
    {"name":"_VERSION","type":"int"},{"name":"_FILE_NAME","type":"string"},
    {"name":"_FILE_SIZE","type":"long"},{"name":"_NUM_ADDED_FILES","type":"long"},
    {"name":"_NUM_DELETED_FILES","type":"long"},
    {"name":"_PARTITION_STATS","type":{"type":"record","name":"s","fields":[
        {"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},
        {"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}]}]}},
    {"name":"_SCHEMA_ID","type":"long"},{"name":"_FUTURE","type":"int"}]}"#;

fn list_row(version: u8) -> Vec<u8> {
    // _VERSION, "m", 10, 1, 0, stats {[], [], [null, 3]}, schema 4, _FUTURE 1
    vec![version * 2, 2, b'm', 20, 2, 0, 0, 0, 2, 4, 0, 2, 6, 0, 8, 2]
}

#[test]
fn hand_built_list_row_extra_and_missing_fields() {
    let rows = decode_manifest_list(&container(LIST_SCHEMA, &list_row(2)), "x").unwrap();
    let m = &rows[0];
    assert_eq!(
        (m.file_name.as_str(), m.file_size, m.schema_id),
        ("m", 10, 4)
    );
    assert_eq!(m.partition_stats.null_counts, Some(vec![None, Some(3)]));
    assert_eq!((m.min_bucket, m.max_row_id), (None, None));

    let e = decode_manifest_list(&container(LIST_SCHEMA, &list_row(3)), "bad-version").unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("unsupported _VERSION 3"), "{msg}");
    assert!(msg.contains("(file: bad-version) (row: 0)"), "{msg}");

    let no_size = LIST_SCHEMA.replace("_FILE_SIZE", "_SIZE_RENAMED");
    let e = decode_manifest_list(&container(&no_size, &list_row(2)), "missing").unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("missing required field `_FILE_SIZE`"), "{msg}");
    assert!(msg.contains("(file: missing)"), "{msg}");

    let e = decode_manifest(&container(LIST_SCHEMA, &list_row(2)), "not-entries").unwrap_err();
    assert!(
        e.to_string()
            .contains("ManifestEntry: missing required field `_KIND`"),
        "{e}"
    );
}

#[test]
fn missing_nested_required_field_names_it() {
    let (_, mut b) = sample_avro_manifest();
    // Rename a nested field in the embedded writer schema (same length keeps the header valid).
    let pos = b.windows(12).position(|w| w == b"\"_ROW_COUNT\"").unwrap();
    b[pos + 1..pos + 11].copy_from_slice(b"_ROW_COUN_");
    let e = decode_manifest(&b, "renamed").unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("ManifestEntry._FILE: missing required field `_ROW_COUNT`"),
        "{msg}"
    );
    assert!(msg.contains("(file: renamed) (row: 0)"), "{msg}");
}

#[test]
fn unknown_magic_names_the_file() {
    let e = decode_index_manifest(b"PK\x03\x04rest", "dir/index-manifest-1").unwrap_err();
    assert_eq!(e.kind(), crate::ErrorKind::DataInvalid);
    assert_eq!(
        e.to_string(),
        "invalid data: not an Avro, ORC or Parquet manifest file (expected: magic `Obj\\x01`, \
         `ORC` or `PAR1`) (found: 504b0304) (file: dir/index-manifest-1)"
    );
}

/// Re-writes an ORC manifest as Parquet (same Arrow batches) and decodes both.
fn orc_to_parquet(orc: &[u8]) -> Vec<u8> {
    let reader = orc_rust::ArrowReaderBuilder::try_new(bytes::Bytes::copy_from_slice(orc))
        .unwrap()
        .build();
    let batches: Vec<_> = reader.map(|b| b.unwrap()).collect();
    let mut out = Vec::new();
    let mut w = parquet::arrow::ArrowWriter::try_new(&mut out, batches[0].schema(), None).unwrap();
    for b in &batches {
        w.write(b).unwrap();
    }
    w.close().unwrap();
    out
}

#[test]
fn parquet_manifests_decode_like_their_orc_originals() {
    let dir = java_fixtures().join("parquet/append_09.db/append_09/manifest");
    let list = read(&dir.join("manifest-list-739ea106-ac05-4953-a13f-c7260482dbf1-3"));
    let pq = orc_to_parquet(&list);
    assert_eq!(ManifestFormat::sniff(&pq), Some(ManifestFormat::Parquet));
    let from_orc = decode_manifest_list(&list, "l").unwrap();
    assert_eq!(decode_manifest_list(&pq, "l").unwrap(), from_orc);
    for m in from_orc {
        let orc = read(&dir.join(&m.file_name));
        let want = decode_manifest(&orc, "m").unwrap();
        assert!(!want.is_empty());
        assert_eq!(decode_manifest(&orc_to_parquet(&orc), "m").unwrap(), want);
    }
    let pq = orc_to_parquet(&list);
    for cut in [0, 4, 100, pq.len() / 2, pq.len() - 8, pq.len() - 1] {
        let e = decode_manifest_list(&pq[..cut], "cut.parquet").unwrap_err();
        assert!(e.to_string().contains("cut.parquet"), "{e}");
    }
}

/// Flips every byte of the stripe region of an ORC manifest: orc-rust panics on some of these
/// (caught and reported as `DataInvalid` by `columnar::guard`).
///
/// The file tail (footer, postscript) is left alone: orc-rust 0.9 recurses without bound on a
/// footer whose type ids form a cycle (flipping byte 1827 of this file does it), which is a
/// stack overflow that aborts the process and cannot be caught. See the module notes.
#[test]
fn flipped_bytes_of_an_orc_manifest_stripe_do_not_panic() {
    let p = java_fixtures().join(
        "parquet/append_09.db/append_09/manifest/manifest-7008d4c0-b1b0-4237-ac6d-845b887efc92-0",
    );
    let good = read(&p);
    let mut errors = 0;
    let stripe_end = 1500;
    for i in 0..stripe_end {
        let mut b = good.clone();
        b[i] ^= 0x5a;
        errors += usize::from(decode_manifest(&b, "flipped").is_err());
    }
    assert!(errors > stripe_end / 10, "{errors}");
}

/// The Java 2.0 pk-btree tables: every index manifest (Avro and ORC) decodes, and every
/// global-index entry is a source-backed btree payload on `score` (field 1) with a
/// `[0, N-1]` row range, decodable `_SOURCE_META` and `_INDEX_META`, stored in `index/`.
#[test]
fn pk_btree_global_index_entries() {
    use crate::index::btree::SortedIndexFileMeta;
    use crate::index::source_meta::SourceMeta;
    let mut payloads = 0;
    for rel in [
        "parquet/pk_btree_e2e.db/pk_btree_e2e",
        "orc/pk_btree_e2e.db/pk_btree_e2e",
        "orc/pk_btree_source_meta.db/pk_btree_source_meta",
    ] {
        let table = java_fixtures().join(rel);
        for e in std::fs::read_dir(table.join("manifest")).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_str().unwrap().to_string();
            if !name.starts_with("index-manifest") {
                continue;
            }
            for ie in decode_index_manifest(&read(&p), &name).unwrap() {
                let Some(g) = &ie.global_index else {
                    assert_eq!(ie.index_type, "DELETION_VECTORS");
                    continue;
                };
                payloads += 1;
                assert_eq!(ie.kind, FileKind::Add);
                assert_eq!(ie.index_type, "btree");
                assert_eq!(g.index_field_id, 1);
                assert_eq!(g.extra_field_ids, None);
                assert_eq!((g.row_range_start, g.row_range_end), (0, ie.row_count - 1));
                let sm = SourceMeta::decode(g.source_meta.as_deref().unwrap(), &name).unwrap();
                assert_eq!(sm.total_row_count(), Some(ie.row_count));
                assert!(sm.data_level() > 0);
                SortedIndexFileMeta::decode(g.index_meta.as_deref().unwrap()).unwrap();
                assert_eq!(ie.external_path, None);
                let on_disk = std::fs::metadata(table.join("index").join(&ie.file_name)).unwrap();
                assert_eq!(on_disk.len() as i64, ie.file_size);
            }
        }
    }
    assert!(payloads >= 6, "{payloads}");
}
