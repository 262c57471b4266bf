//! `pk-btree` payloads that compaction builds from the values it writes (not read back): byte
//! for byte what `build_pk_btree_index` makes by reading the same files, for a full compaction
//! and for lookup compactions that rewrite level 0, with outputs rolled into more than ten
//! files (so file-name order, which the payload's ordinals follow, differs from write order:
//! `-10` sorts before `-2`), a string and a number column, nulls and repeated values; also
//! when the compaction's sorts spill to disk (a small `write-buffer-size`).

use std::collections::BTreeMap;
use std::path::Path;

use paimon_core::commit::build_pk_btree_index;
use paimon_core::spec::manifest::{decode_index_manifest, DataFileMeta, IndexManifestEntry};
use paimon_core::{RowKind, Table};
use serde_json::{json, Value};

use crate::compact_lookup::read;
use crate::write::{batch, create_table};

async fn table(name: &str) -> Table {
    create_table(
        name,
        &[("id", "INT NOT NULL"), ("a", "STRING"), ("b", "BIGINT")],
        &[],
        &["id"],
        &[
            ("bucket", "1"),
            ("target-file-size", "1 kb"),
            ("read.batch-size", "40"),
            ("deletion-vectors.enabled", "true"),
            ("pk-btree.index.columns", "a,b"),
        ],
    )
    .await
}

/// Rows `ids` with values of `version` (some nulls, few distinct values); `deletes` marks
/// every seventh id deleted.
async fn write(t: &Table, ids: std::ops::Range<i32>, version: i32, deletes: bool) {
    let mut lines: Vec<Value> = Vec::new();
    let mut kinds = Vec::new();
    for i in ids {
        let a = (i % 11 != 0).then(|| format!("a{}", (i * 7 + version) % 13));
        let b = (i % 5 != 1).then_some(i64::from((i * 3 + version) % 17) - 8);
        lines.push(json!({"id": i, "a": a, "b": b}));
        kinds.push(match deletes && i % 7 == 0 {
            true => RowKind::Delete,
            false => RowKind::Insert,
        });
    }
    let mut w = t
        .new_write()
        .with_option("write-only", "true")
        .with_commit_user("payload-test")
        .build()
        .unwrap();
    w.write_with_kinds(&batch(t, &lines), &kinds).await.unwrap();
    let messages = w.prepare_commit().await.unwrap();
    t.new_commit()
        .commit_messages(&messages, w.commit_user())
        .await
        .unwrap();
}

async fn index_entries(t: &Table) -> Vec<IndexManifestEntry> {
    let s = t
        .snapshot_manager()
        .latest_snapshot()
        .await
        .unwrap()
        .unwrap();
    let name = s.index_manifest.unwrap();
    let p = Path::new(t.location()).join("manifest").join(&name);
    decode_index_manifest(&std::fs::read(p).unwrap(), &name).unwrap()
}

/// The live files of the latest snapshot by level.
async fn levels(t: &Table) -> BTreeMap<i32, Vec<DataFileMeta>> {
    let plan = t
        .scan()
        .with_option("global-index.enabled", "false")
        .build()
        .unwrap()
        .plan()
        .await
        .unwrap();
    let mut out: BTreeMap<i32, Vec<DataFileMeta>> = BTreeMap::new();
    for s in &plan.splits {
        for f in &s.as_data().files {
            out.entry(f.level).or_default().push(f.clone());
        }
    }
    out
}

/// Every payload of the latest snapshot equals, byte for byte, the builder's payload over the
/// same source group (found by its `_SOURCE_META`); returns how many were compared.
async fn assert_payloads_as_built(t: &Table) -> usize {
    let payloads: Vec<_> = index_entries(t)
        .await
        .into_iter()
        .filter(|e| e.global_index.is_some())
        .collect();
    let built = build_pk_btree_index(t, "a", "payload-test").await.unwrap();
    build_pk_btree_index(t, "b", "payload-test").await.unwrap();
    assert!(built.payloads > 0);
    let rebuilt = index_entries(t).await;
    let meta = |e: &IndexManifestEntry| {
        e.global_index
            .as_ref()
            .map(|g| (g.index_field_id, g.source_meta.clone()))
    };
    let bytes = |name: &str| std::fs::read(Path::new(t.location()).join("index").join(name));
    for p in &payloads {
        let twin = rebuilt
            .iter()
            .find(|r| r.file_name != p.file_name && meta(r) == meta(p))
            .unwrap_or_else(|| panic!("no builder payload over the sources of {}", p.file_name));
        assert_eq!(
            bytes(&twin.file_name).unwrap(),
            bytes(&p.file_name).unwrap(),
            "{} against the builder's {}",
            p.file_name,
            twin.file_name
        );
    }
    payloads.len()
}

#[tokio::test]
async fn full_compaction_payloads_equal_the_builders() {
    let t = table("compact_payloads_full").await;
    write(&t, 0..1500, 0, false).await;
    write(&t, 500..1200, 1, true).await;
    let before = read(&t, true).await;
    assert_eq!(before.len(), 1400);
    t.compact().full(true).execute().await.unwrap();
    let t = Table::open(t.location()).await.unwrap();
    assert_eq!(read(&t, true).await, before);
    let top = levels(&t).await;
    assert_eq!(top.keys().copied().collect::<Vec<_>>(), vec![5]);
    assert!(top[&5].len() > 10, "{} files", top[&5].len());
    assert_eq!(assert_payloads_as_built(&t).await, 2);
    let _ = std::fs::remove_dir_all(t.location());
}

#[tokio::test]
async fn payloads_sorted_with_spills_equal_the_builders() {
    let t = table("compact_payloads_spilled").await;
    write(&t, 0..1500, 0, false).await;
    write(&t, 500..1200, 1, true).await;
    let before = read(&t, true).await;
    // The builds' share of 16 KiB: at most a few hundred values sorted in memory at once;
    // their runs merged three at a time.
    let small: std::collections::HashMap<String, String> = [
        ("write-buffer-size".to_string(), "16 kb".to_string()),
        (
            "local-sort.max-num-file-handles".to_string(),
            "3".to_string(),
        ),
    ]
    .into();
    let report = t
        .with_options(&small)
        .unwrap()
        .compact()
        .full(true)
        .execute()
        .await
        .unwrap();
    assert!(report.index_sort_spills >= 4, "{report:?}");
    let t = Table::open(t.location()).await.unwrap();
    assert_eq!(read(&t, true).await, before);
    // The builder with the table's own 256 MiB sorts in memory.
    assert_eq!(assert_payloads_as_built(&t).await, 2);
    let _ = std::fs::remove_dir_all(t.location());
}

#[tokio::test]
async fn payload_sorts_spill_under_the_given_dir() {
    let t = table("compact_payloads_spill_dir").await;
    write(&t, 0..1500, 0, false).await;
    let before = read(&t, true).await;
    let small: std::collections::HashMap<String, String> =
        [("write-buffer-size".to_string(), "16 kb".to_string())].into();
    let t = t.with_options(&small).unwrap();
    let scratch = tempfile::tempdir().unwrap();
    // A file where the directory should be: the first spill fails, naming it, and nothing is
    // committed.
    let not_a_dir = scratch.path().join("not-a-dir");
    std::fs::write(&not_a_dir, b"x").unwrap();
    let compact_under =
        |dir: &std::path::Path| t.compact().full(true).with_spill_dir(dir).execute();
    let err = compact_under(&not_a_dir).await.unwrap_err();
    assert!(
        err.to_string().contains(not_a_dir.to_str().unwrap()),
        "{err}"
    );
    assert_eq!(read(&t, true).await, before);
    let dir = scratch.path().join("spills");
    std::fs::create_dir(&dir).unwrap();
    let report = compact_under(&dir).await.unwrap();
    assert!(report.index_sort_spills >= 1, "{report:?}");
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "scratch dirs left: {left:?}");
    let t = Table::open(t.location()).await.unwrap();
    assert_eq!(read(&t, true).await, before);
    let _ = std::fs::remove_dir_all(t.location());
}

#[tokio::test]
async fn lookup_compaction_payloads_equal_the_builders() {
    let t = table("compact_payloads_lookup").await;
    write(&t, 0..1500, 0, true).await;
    // The first compaction rewrites level 0 to the top (nothing above it to look up).
    t.compact().execute().await.unwrap();
    // Level 0 with deletes is rewritten to the level below the top, its keys looked up above.
    write(&t, 300..1000, 1, true).await;
    let before = read(&t, true).await;
    assert_eq!(before.len(), 1285);
    t.compact().execute().await.unwrap();
    let t = Table::open(t.location()).await.unwrap();
    assert_eq!(read(&t, true).await, before);
    let by_level = levels(&t).await;
    assert_eq!(by_level.keys().copied().collect::<Vec<_>>(), vec![4, 5]);
    assert!(by_level[&4].len() > 10, "{} files", by_level[&4].len());
    // Two levels, two columns.
    assert_eq!(assert_payloads_as_built(&t).await, 4);
    let _ = std::fs::remove_dir_all(t.location());
}
