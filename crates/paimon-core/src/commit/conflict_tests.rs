//! Conflict rules of [`super::check`].

use super::*;
use crate::commit::test_support::{entry, file, int_type};
use crate::spec::manifest::IndexManifestEntry;

fn ctx<'a>(keys: Option<&'a [DataType]>) -> ConflictContext<'a> {
    ConflictContext {
        partition_fields: &[],
        key_types: keys,
        base_user: "other",
        dv_index: None,
    }
}

fn add(bucket: i32, name: &str, level: i32, min: i32, max: i32) -> ManifestEntry {
    entry(FileKind::Add, bucket, file(name, 1, level, min, max))
}

fn del(e: &ManifestEntry) -> ManifestEntry {
    ManifestEntry {
        kind: FileKind::Delete,
        ..e.clone()
    }
}

#[test]
fn deleting_a_file_that_is_no_longer_live_conflicts() {
    let a = add(0, "a", 0, 0, 9);
    let b = add(0, "b", 0, 0, 9);
    let e = check(
        &ctx(None),
        std::slice::from_ref(&b),
        &[del(&a)],
        CommitKind::Compact,
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Conflict);
    assert!(e.message().contains("File deletion conflicts"), "{e}");
    assert!(e.context().iter().any(|(k, v)| *k == "file" && v == "a"));
    assert!(e.context().iter().any(|(k, v)| *k == "bucket" && v == "0"));
    check(&ctx(None), &[a.clone(), b], &[del(&a)], CommitKind::Compact).unwrap();
}

#[test]
fn the_delta_must_net_cleanly() {
    let a = add(0, "a", 0, 0, 9);
    let twice = check(&ctx(None), &[], &[a.clone(), a.clone()], CommitKind::Append);
    assert_eq!(twice.unwrap_err().kind(), ErrorKind::Conflict);
    let readd = check(
        &ctx(None),
        std::slice::from_ref(&a),
        &[del(&a), a.clone()],
        CommitKind::Overwrite,
    );
    assert_eq!(readd.unwrap_err().kind(), ErrorKind::Conflict);
    let live = check(
        &ctx(None),
        std::slice::from_ref(&a),
        std::slice::from_ref(&a),
        CommitKind::Append,
    );
    assert_eq!(live.unwrap_err().kind(), ErrorKind::Conflict);
}

#[test]
fn overlapping_keys_conflict_above_level_zero_only() {
    let keys = [int_type()];
    let k = ctx(Some(&keys));
    let base = [add(0, "l1", 1, 0, 10), add(0, "l0", 0, 0, 100)];
    // Level 0 overlaps are fine.
    check(&k, &base, &[add(0, "n0", 0, 5, 6)], CommitKind::Compact).unwrap();
    // Disjoint level-1 files are fine, in other buckets too.
    check(&k, &base, &[add(0, "n1", 1, 11, 20)], CommitKind::Compact).unwrap();
    check(&k, &base, &[add(1, "n1", 1, 5, 6)], CommitKind::Compact).unwrap();
    // Touching or overlapping ranges on one level conflict.
    let e = check(&k, &base, &[add(0, "n1", 1, 10, 20)], CommitKind::Compact).unwrap_err();
    assert!(e.message().contains("LSM conflicts detected"), "{e}");
    assert!(
        e.message().contains("l1") && e.message().contains("n1"),
        "{e}"
    );
    // Replacing the overlapped file in the same commit is fine.
    let delta = [del(&base[0]), add(0, "n1", 1, 0, 20)];
    check(&k, &base, &delta, CommitKind::Compact).unwrap();
}

#[test]
fn total_buckets_must_stay_unless_overwriting() {
    let a = add(0, "a", 0, 0, 9);
    let mut b = add(1, "b", 0, 0, 9);
    b.total_buckets = 4;
    let e = check(
        &ctx(None),
        std::slice::from_ref(&a),
        std::slice::from_ref(&b),
        CommitKind::Append,
    )
    .unwrap_err();
    assert!(e.message().contains("changed from 2 to 4"), "{e}");
    check(
        &ctx(None),
        std::slice::from_ref(&a),
        &[del(&a), b],
        CommitKind::Overwrite,
    )
    .unwrap();
}

fn dv(kind: FileKind, name: &str, data: &str) -> IndexManifestEntry {
    IndexManifestEntry {
        kind,
        partition: add(0, "x", 0, 0, 0).partition,
        bucket: 0,
        index_type: "DELETION_VECTORS".into(),
        file_name: name.into(),
        file_size: 1,
        row_count: 1,
        deletion_vectors: Some(vec![crate::spec::manifest::DeletionVectorMeta {
            data_file_name: data.into(),
            offset: 0,
            length: 1,
            cardinality: Some(1),
        }]),
        external_path: None,
        global_index: None,
    }
}

#[test]
fn replacing_a_deletion_vector_that_another_commit_replaced_conflicts() {
    let f = add(0, "f", 0, 0, 0);
    let base = [f.clone()];
    let dv_ctx = |bi, di| ConflictContext {
        dv_index: Some((bi, di)),
        ..ctx(None)
    };
    // A first vector for f: fine.
    let first = [dv(FileKind::Add, "dv-1", "f")];
    check(&dv_ctx(&[], &first), &base, &[], CommitKind::Overwrite).unwrap();
    // Replacing dv-1 by dv-2 while dv-1 is live: fine.
    let live = [dv(FileKind::Add, "dv-1", "f")];
    let replace = [
        dv(FileKind::Delete, "dv-1", "f"),
        dv(FileKind::Add, "dv-2", "f"),
    ];
    check(&dv_ctx(&live, &replace), &base, &[], CommitKind::Overwrite).unwrap();
    // The same replacement after another commit already moved f to dv-3: conflict.
    let moved = [dv(FileKind::Add, "dv-3", "f")];
    let e = check(&dv_ctx(&moved, &replace), &base, &[], CommitKind::Overwrite).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Conflict);
    assert!(e.message().contains("File deletion conflicts"), "{e}");
    // A first vector for f after another commit gave it one: conflict too.
    let e = check(&dv_ctx(&moved, &first), &base, &[], CommitKind::Overwrite).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Conflict);
    // A vector for a file that is not live.
    let stray = [dv(FileKind::Add, "dv-9", "gone")];
    let e = check(&dv_ctx(&[], &stray), &base, &[], CommitKind::Overwrite).unwrap_err();
    assert!(e.message().contains("not previously added"), "{e}");
}
