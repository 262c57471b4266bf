//! Merging decisions of [`super::merge`] over manifests written to memory.

use super::*;
use crate::commit::test_support::{entry, file, memory_io};
use crate::spec::options::{CommitOptions, MemorySize, TableOptions};

fn options(target: u64, min_count: usize, full: u64) -> CommitOptions {
    CommitOptions {
        manifest_target_file_size: MemorySize::from_bytes(target),
        manifest_merge_min_count: min_count,
        manifest_full_compaction_threshold_size: MemorySize::from_bytes(full),
        ..TableOptions::default().commit
    }
}

fn writer() -> MetaWriter {
    MetaWriter::new(memory_io(), "memory:///t", vec![], 0, 8 << 20)
}

/// One manifest per group of entries.
async fn manifests(w: &mut MetaWriter, groups: Vec<Vec<ManifestEntry>>) -> Vec<ManifestFileMeta> {
    let mut out = Vec::new();
    for g in groups {
        out.extend(w.write_manifests(&g).await.unwrap());
    }
    out
}

async fn live_names(w: &MetaWriter, metas: &[ManifestFileMeta]) -> Vec<(FileKind, String)> {
    let mut out = Vec::new();
    for m in metas {
        for e in w.reader().manifest(&m.file_name).await.unwrap() {
            out.push((e.kind, e.file.file_name));
        }
    }
    out
}

fn add(name: &str) -> ManifestEntry {
    entry(FileKind::Add, 0, file(name, 1, 0, 0, 0))
}

fn del(name: &str) -> ManifestEntry {
    entry(FileKind::Delete, 0, file(name, 1, 0, 0, 0))
}

#[tokio::test]
async fn few_small_manifests_are_kept() {
    let mut w = writer();
    let input = manifests(&mut w, vec![vec![add("a")], vec![add("b")], vec![del("a")]]).await;
    let written = w.written.len();
    let out = merge(input.clone(), &mut w, &options(1 << 20, 30, 16 << 20))
        .await
        .unwrap();
    assert_eq!(out, input);
    assert_eq!(w.written.len(), written, "nothing rewritten");
}

#[tokio::test]
async fn min_count_small_manifests_are_merged_with_netting() {
    let mut w = writer();
    let input = manifests(
        &mut w,
        vec![
            vec![add("a")],
            vec![add("b")],
            vec![del("a"), add("c")],
            vec![del("x")],
        ],
    )
    .await;
    let out = merge(input, &mut w, &options(1 << 20, 3, 16 << 20))
        .await
        .unwrap();
    assert_eq!(out.len(), 1);
    // ADD a + DELETE a cancel; the unmatched DELETE x stays.
    assert_eq!(
        live_names(&w, &out).await,
        [
            (FileKind::Add, "b".to_string()),
            (FileKind::Add, "c".to_string()),
            (FileKind::Delete, "x".to_string())
        ]
    );
    assert_eq!(out[0].num_added_files, 2);
    assert_eq!(out[0].num_deleted_files, 1);
}

#[tokio::test]
async fn groups_reaching_the_target_are_merged_and_the_tail_kept() {
    let mut w = writer();
    let input = manifests(
        &mut w,
        vec![
            vec![add("a")],
            vec![add("b")],
            vec![add("c")],
            vec![add("d")],
        ],
    )
    .await;
    let size = input[0].file_size as u64;
    // Two manifests reach the target: [a, b] and [c, d] are merged, no tail.
    let out = merge(input.clone(), &mut w, &options(2 * size, 30, 16 << 20))
        .await
        .unwrap();
    assert_eq!(out.len(), 2);
    assert_eq!(live_names(&w, &out).await.len(), 4);
    // Three reach it: [a, b, c] merged, [d] kept as is.
    let out = merge(input.clone(), &mut w, &options(3 * size - 1, 30, 16 << 20))
        .await
        .unwrap();
    assert_eq!(out.len(), 2);
    assert_eq!(out[1], input[3]);
}

#[tokio::test]
async fn full_compaction_drops_deletes_and_keeps_untouched_big_manifests() {
    let mut w = writer();
    let big: Vec<ManifestEntry> = (0..40).map(|i| add(&format!("big-{i}"))).collect();
    let input = manifests(
        &mut w,
        vec![big, vec![add("a")], vec![add("b")], vec![del("a")]],
    )
    .await;
    let big_size = input[0].file_size as u64;
    // Target below the big manifest: it needs no change and holds no deleted file.
    let out = merge(input.clone(), &mut w, &options(big_size - 1, 30, 1))
        .await
        .unwrap();
    assert_eq!(out[0], input[0]);
    assert_eq!(out.len(), 2);
    assert_eq!(
        live_names(&w, &out[1..]).await,
        [(FileKind::Add, "b".to_string())]
    );
}

#[tokio::test]
async fn full_compaction_rewrites_a_big_manifest_holding_a_deleted_file() {
    let mut w = writer();
    let big: Vec<ManifestEntry> = (0..40).map(|i| add(&format!("big-{i}"))).collect();
    let input = manifests(&mut w, vec![big, vec![del("big-3")], vec![add("z")]]).await;
    let big_size = input[0].file_size as u64;
    let out = merge(input, &mut w, &options(big_size - 1, 30, 1))
        .await
        .unwrap();
    let names = live_names(&w, &out).await;
    assert_eq!(names.len(), 40);
    assert!(names
        .iter()
        .all(|(k, n)| *k == FileKind::Add && n != "big-3"));
}

#[tokio::test]
async fn adding_a_file_twice_fails_the_merge() {
    let mut w = writer();
    let input = manifests(&mut w, vec![vec![add("a")], vec![add("a")]]).await;
    let e = merge(input, &mut w, &options(1 << 20, 2, 16 << 20))
        .await
        .unwrap_err();
    assert!(e.to_string().contains("added twice"), "{e}");
}
