//! The validation cases of the C++ `pk_sorted_bucket_index_state_test.cpp` that apply to
//! semantics (A) (`docs/format.md` "Primary-key global index").

use super::*;
use crate::index::btree::SortedIndexFileMeta;
use crate::spec::manifest::GlobalIndexMeta;

pub(crate) fn index_meta() -> Vec<u8> {
    SortedIndexFileMeta {
        first_key: Some(0i64.to_le_bytes().to_vec()),
        last_key: Some(598i64.to_le_bytes().to_vec()),
        has_nulls: false,
    }
    .encode()
}

/// A btree payload on field 1 over `sources` at `level`.
pub(crate) fn payload(name: &str, level: i32, sources: &[(&str, i64)]) -> IndexManifestEntry {
    let files = sources
        .iter()
        .map(|(n, r)| SourceFile::new(*n, *r))
        .collect();
    let meta = SourceMeta::new(level, files).unwrap().encode().unwrap();
    let n: i64 = sources.iter().map(|(_, r)| r).sum();
    IndexManifestEntry {
        kind: FileKind::Add,
        partition: vec![0, 0, 0, 0],
        bucket: 0,
        index_type: "btree".into(),
        file_name: name.into(),
        file_size: 100,
        row_count: n,
        deletion_vectors: None,
        external_path: None,
        global_index: Some(GlobalIndexMeta {
            row_range_start: 0,
            row_range_end: n - 1,
            index_field_id: 1,
            extra_field_ids: None,
            index_meta: Some(index_meta()),
            source_meta: Some(meta),
        }),
    }
}

pub(crate) fn file(name: &str, rows: i64, level: i32) -> ActiveFile<'_> {
    ActiveFile {
        name,
        row_count: rows,
        level,
        file_source: Some(1),
    }
}

fn run(active: &[ActiveFile<'_>], payloads: &[IndexManifestEntry]) -> BucketIndexState {
    let refs: Vec<_> = payloads.iter().collect();
    validate_bucket("btree", 1, active, &refs)
}

fn covered(s: &BucketIndexState) -> Vec<&str> {
    let mut v: Vec<_> = s.covered.keys().map(String::as_str).collect();
    v.sort_unstable();
    v
}

fn reasons(s: &BucketIndexState) -> Vec<&'static str> {
    s.rejected.iter().map(|(_, r)| *r).collect()
}

#[test]
fn builds_group_when_payload_matches_level_sources() {
    let active = [file("b", 200, 5), file("a", 100, 5)];
    let s = run(&active, &[payload("p", 5, &[("a", 100), ("b", 200)])]);
    assert_eq!(s.groups.len(), 1);
    assert_eq!(s.groups[0].total(), 300);
    assert_eq!(s.groups[0].prefix, vec![0, 100, 300]);
    assert_eq!(covered(&s), ["a", "b"]);
    assert!(s.rejected.is_empty());
    assert_eq!(s.covered["b"], (0, 1));
}

#[test]
fn only_compacted_files_above_level_zero_are_sources() {
    let mut l0 = file("a", 100, 0);
    l0.level = 0;
    let mut append = file("b", 200, 5);
    append.file_source = Some(0);
    let mut unknown = file("d", 10, 5);
    unknown.file_source = None;
    let active = [l0, append, file("c", 50, 5), unknown];
    let s = run(&active, &[payload("p", 5, &[("a", 100), ("b", 200)])]);
    assert!(s.groups.is_empty());
    assert_eq!(reasons(&s), ["every source retired"]);
    let s = run(&active, &[payload("p", 5, &[("c", 50)])]);
    assert_eq!(covered(&s), ["c"]);
}

#[test]
fn rejections() {
    let active = [file("a", 100, 5), file("b", 200, 5)];
    let misordered = payload("p", 5, &[("b", 200), ("a", 100)]);
    let mismatch = payload("p", 5, &[("a", 100), ("b", 201)]);
    let retired = payload("p", 5, &[("x", 100)]);
    let no_level = payload("p", 4, &[("a", 100)]);
    let mut wrong_field = payload("p", 5, &[("a", 100)]);
    wrong_field.global_index.as_mut().unwrap().index_field_id = 2;
    let mut wrong_type = payload("p", 5, &[("a", 100)]);
    wrong_type.index_type = "bitmap".into();
    let mut wrong_range = payload("p", 5, &[("a", 100), ("b", 200)]);
    wrong_range.global_index.as_mut().unwrap().row_range_end = 300;
    let mut wrong_count = payload("p", 5, &[("a", 100), ("b", 200)]);
    wrong_count.row_count = 299;
    let mut corrupt = payload("p", 5, &[("a", 100)]);
    corrupt.global_index.as_mut().unwrap().source_meta = Some(vec![0, 0, 0, 1, 0, 0]);
    let mut bad_meta = payload("p", 5, &[("a", 100)]);
    bad_meta.global_index.as_mut().unwrap().index_meta = Some(vec![1]);
    let cases = [
        (misordered, "sources not strictly ascending"),
        (mismatch, "source row count mismatch"),
        (retired, "every source retired"),
        (no_level, "no active source at its level"),
        (wrong_field, "wrong field id"),
        (wrong_type, "wrong index type"),
        (wrong_range, "invalid row range"),
        (wrong_count, "row count differs from sources"),
        (corrupt, "corrupt _SOURCE_META"),
        (bad_meta, "invalid _INDEX_META"),
    ];
    for (p, why) in cases {
        let s = run(&active, &[p]);
        assert!(s.groups.is_empty(), "{why}");
        assert!(s.covered.is_empty(), "{why}");
        assert_eq!(reasons(&s), [why]);
    }
}

#[test]
fn accepts_active_subset_and_keeps_retired_sources_in_namespace() {
    let active = [file("a", 100, 5), file("b", 200, 5)];
    let s = run(&active, &[payload("p", 5, &[("a", 100)])]);
    assert_eq!(covered(&s), ["a"]);
    let s = run(&active, &[payload("p", 5, &[("a", 100), ("retired", 40)])]);
    assert_eq!(covered(&s), ["a"]);
    assert_eq!(s.groups[0].total(), 140);
}

#[test]
fn at_most_one_payload_per_level() {
    let active = [file("a", 100, 5), file("b", 200, 5), file("c", 10, 4)];
    let ps = [
        payload("p1", 5, &[("a", 100)]),
        payload("p2", 5, &[("b", 200)]),
        payload("p3", 4, &[("c", 10)]),
    ];
    let s = run(&active, &ps);
    assert_eq!(covered(&s), ["c"]);
    assert_eq!(
        reasons(&s),
        [
            "another payload at the same level",
            "another payload at the same level"
        ]
    );
    // A wrong candidate does not mask a valid payload; a broken level leaves others covered.
    let mut wrong = payload("p0", 5, &[("a", 100)]);
    wrong.global_index.as_mut().unwrap().index_field_id = 9;
    let mut broken = payload("p4", 4, &[("c", 10)]);
    broken.global_index.as_mut().unwrap().source_meta = Some(vec![0, 0, 0, 1]);
    let s = run(
        &active,
        &[wrong, payload("p1", 5, &[("a", 100), ("b", 200)]), broken],
    );
    assert_eq!(covered(&s), ["a", "b"]);
    assert_eq!(s.rejected.len(), 2);
}

#[test]
fn localization() {
    let active = [file("a", 100, 5), file("b", 200, 5)];
    let s = run(&active, &[payload("p", 5, &[("a", 100), ("b", 200)])]);
    let g = &s.groups[0];
    let r: RoaringTreemap = [5u64, 99, 100, 105, 299].into_iter().collect();
    let a: Vec<u64> = g.localize(&r, 0).unwrap().iter().collect();
    let b: Vec<u64> = g.localize(&r, 1).unwrap().iter().collect();
    assert_eq!(a, [5, 99]);
    assert_eq!(b, [0, 5, 199]);
    let out: RoaringTreemap = [5u64, 310].into_iter().collect();
    assert!(g.localize(&out, 0).is_none());
}
