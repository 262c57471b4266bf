//! Manifest-list rows of merged manifests against Java's: for every Java fixture table whose
//! latest snapshot has several manifests without DELETE entries, an empty commit with
//! `manifest.merge-min-count = 1` merges them into one manifest, whose row must carry the
//! union of Java's rows field by field (ADD count, partition min / max / null counts, schema
//! id, bucket, level and row-id ranges), and the table must read the same.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use paimon_core::commit::CommitChanges;
use paimon_core::spec::binary_row::BinaryRow;
use paimon_core::spec::manifest::{decode_manifest_list, ManifestFileMeta};
use paimon_core::spec::snapshot::CommitKind;
use paimon_core::spec::Datum;
use paimon_core::Table;
use serde_json::json;

use crate::commit_util::{all_rows, committed_root};
use crate::common::{copy_dir, java_fixtures};

fn tables(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if !p.is_dir() {
            continue;
        }
        if p.join("snapshot").is_dir() && p.join("schema").is_dir() {
            out.push(p);
        } else {
            tables(&p, out);
        }
    }
}

fn list(table: &Path, name: &str) -> Vec<ManifestFileMeta> {
    let bytes = std::fs::read(table.join("manifest").join(name)).unwrap();
    decode_manifest_list(&bytes, name).unwrap()
}

/// Min (or max) of one partition column over the rows' stats.
fn fold(values: Vec<Option<Datum>>, want: Ordering) -> Option<Datum> {
    values.into_iter().flatten().fold(None, |acc, v| match acc {
        Some(a) if v.compare(&a) != Some(want) => Some(a),
        _ => Some(v),
    })
}

fn union_range<T: Ord + Copy>(
    rows: &[ManifestFileMeta],
    f: impl Fn(&ManifestFileMeta) -> Option<(T, T)>,
) -> Option<Option<(T, T)>> {
    let ranges: Option<Vec<(T, T)>> = rows.iter().map(&f).collect();
    // `None` when some Java row predates the field: nothing to compare.
    let r = ranges?;
    Some(Some((
        r.iter().map(|x| x.0).min()?,
        r.iter().map(|x| x.1).max()?,
    )))
}

/// Checks the merged row against the Java rows it replaces.
fn check_union(name: &str, merged: &ManifestFileMeta, java: &[ManifestFileMeta], table: &Table) {
    let types = table.schema().partition_types().unwrap();
    assert_eq!(
        merged.num_added_files,
        java.iter().map(|m| m.num_added_files).sum::<i64>(),
        "{name}"
    );
    assert_eq!(merged.num_deleted_files, 0, "{name}");
    assert_eq!(
        merged.schema_id,
        java.iter().map(|m| m.schema_id).max().unwrap(),
        "{name}"
    );
    let decode = |b: &[u8]| {
        BinaryRow::from_serialized(b)
            .unwrap()
            .decode(&types)
            .unwrap()
    };
    let mins: Vec<_> = java
        .iter()
        .map(|m| decode(&m.partition_stats.min_values))
        .collect();
    let maxs: Vec<_> = java
        .iter()
        .map(|m| decode(&m.partition_stats.max_values))
        .collect();
    let got_min = decode(&merged.partition_stats.min_values);
    let got_max = decode(&merged.partition_stats.max_values);
    for c in 0..types.len() {
        let col = |rows: &[Vec<Option<Datum>>]| rows.iter().map(|r| r[c].clone()).collect();
        assert_eq!(
            got_min[c],
            fold(col(&mins), Ordering::Less),
            "{name} min of column {c}"
        );
        assert_eq!(
            got_max[c],
            fold(col(&maxs), Ordering::Greater),
            "{name} max of column {c}"
        );
        let nulls: i64 = java
            .iter()
            .map(|m| m.partition_stats.null_counts.as_ref().unwrap()[c].unwrap_or(0))
            .sum();
        let got = merged.partition_stats.null_counts.as_ref().unwrap()[c];
        assert_eq!(got, Some(nulls), "{name} null count of column {c}");
    }
    let both = |a: Option<i32>, b: Option<i32>| Some((a?, b?));
    if let Some(want) = union_range(java, |m| both(m.min_bucket, m.max_bucket)) {
        assert_eq!(
            both(merged.min_bucket, merged.max_bucket),
            want,
            "{name} buckets"
        );
    }
    if let Some(want) = union_range(java, |m| both(m.min_level, m.max_level)) {
        assert_eq!(
            both(merged.min_level, merged.max_level),
            want,
            "{name} levels"
        );
    }
    let rows = |m: &ManifestFileMeta| Some((m.min_row_id?, m.max_row_id?));
    match union_range(java, rows) {
        Some(want) => assert_eq!(rows(merged), want, "{name} row ids"),
        None => assert_eq!(rows(merged), None, "{name} row ids"),
    }
}

#[tokio::test]
async fn merged_java_manifests_carry_the_union_of_javas_rows() {
    let mut all = Vec::new();
    tables(&java_fixtures(), &mut all);
    all.sort();
    let tmp = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for src in all {
        let Ok(table) = Table::open(src.to_str().unwrap()).await else {
            continue;
        };
        let Ok(Some(latest)) = table.snapshot_manager().latest_snapshot().await else {
            continue;
        };
        let java = [
            list(&src, &latest.base_manifest_list),
            list(&src, &latest.delta_manifest_list),
        ]
        .concat();
        if java.len() < 2 || java.iter().any(|m| m.num_deleted_files > 0) {
            continue;
        }
        let name = src
            .strip_prefix(java_fixtures())
            .unwrap()
            .display()
            .to_string();
        let copy = tmp
            .path()
            .join(checked.to_string())
            .join(src.file_name().unwrap());
        copy_dir(&src, &copy);
        let want = all_rows(&copy).await;
        let opts = HashMap::from([("manifest.merge-min-count".to_string(), "1".to_string())]);
        let table = Table::open_with(
            paimon_core::FileIO::default(),
            copy.to_str().unwrap(),
            &opts,
        )
        .await
        .unwrap();
        let s = table
            .new_commit()
            .commit(&CommitChanges::new(vec![], CommitKind::Append, "layout"))
            .await
            .unwrap();
        let merged = list(&copy, &s.base_manifest_list);
        assert_eq!(merged.len(), 1, "{name}: one merged manifest");
        check_union(&name, &merged[0], &java, &table);
        assert_eq!(all_rows(&copy).await, want, "{name}");
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} Java tables checked");
    eprintln!("{checked} Java tables merged");
}

/// Merged Java tables left for pypaimon (`target/committed/java_merged`): those of the
/// fixtures pypaimon 2.1 reads.
#[tokio::test]
async fn merged_java_tables_for_pypaimon() {
    let root = committed_root().join("java_merged");
    let _ = std::fs::remove_dir_all(&root);
    let mut entries = Vec::new();
    for name in [
        "pk_table_scan_and_read_mor",
        "append_table_with_alter_table",
        "pk_btree_e2e",
        "pk_table_scan_and_read_dv",
    ] {
        let src = java_fixtures().join(format!("parquet/{name}.db/{name}"));
        let warehouse = root.join(name);
        let copy = warehouse.join(format!("{name}.db/{name}"));
        copy_dir(&src, &copy);
        let want = all_rows(&copy).await;
        let opts = HashMap::from([("manifest.merge-min-count".to_string(), "1".to_string())]);
        let table = Table::open_with(
            paimon_core::FileIO::default(),
            copy.to_str().unwrap(),
            &opts,
        )
        .await
        .unwrap();
        let s = table
            .new_commit()
            .commit(&CommitChanges::new(vec![], CommitKind::Append, "layout"))
            .await
            .unwrap();
        assert!(list(&copy, &s.base_manifest_list).len() <= 1, "{name}");
        assert_eq!(all_rows(&copy).await, want, "{name}");
        entries.push(json!({
            "table": format!("{name}.{name}"),
            "original": java_fixtures().join("parquet").to_str().unwrap(),
            "rewritten": warehouse.to_str().unwrap(),
        }));
    }
    std::fs::write(
        committed_root().join("tables-java_merged.json"),
        json!({ "tables": entries }).to_string(),
    )
    .unwrap();
}

/// A deletion-vector file replaced through a writer message: the index manifest keeps one DV
/// file per (partition, bucket), the commit is an OVERWRITE, and readers (ours and pypaimon)
/// see the same rows.
#[tokio::test]
async fn a_replaced_deletion_vector_file_replaces_its_bucket_entry() {
    use paimon_core::commit::CommitMessage;
    use paimon_core::spec::manifest::decode_index_manifest;
    let name = "pk_table_scan_and_read_dv";
    let src = java_fixtures().join(format!("parquet/{name}.db/{name}"));
    let root = committed_root().join("dv_replaced");
    let _ = std::fs::remove_dir_all(&root);
    let copy = root.join(format!("warehouse/{name}.db/{name}"));
    copy_dir(&src, &copy);
    let want = all_rows(&copy).await;
    let table = Table::open(copy.to_str().unwrap()).await.unwrap();
    let latest = table
        .snapshot_manager()
        .latest_snapshot()
        .await
        .unwrap()
        .unwrap();
    let index_name = latest.index_manifest.clone().unwrap();
    let read_index = |n: &str| {
        decode_index_manifest(&std::fs::read(copy.join("manifest").join(n)).unwrap(), n).unwrap()
    };
    let before = read_index(&index_name);
    let old = before
        .iter()
        .find(|e| e.index_type == "DELETION_VECTORS")
        .unwrap()
        .clone();
    let mut new = old.clone();
    new.file_name = format!("index-{}-0", uuid::Uuid::new_v4());
    std::fs::copy(
        copy.join("index").join(&old.file_name),
        copy.join("index").join(&new.file_name),
    )
    .unwrap();
    let mut m = CommitMessage::new(old.partition.clone(), old.bucket, 2);
    m.deleted_index_files = vec![old.clone()];
    m.new_index_files = vec![new.clone()];
    let s = table
        .new_commit()
        .commit_messages(&[m], "dv")
        .await
        .unwrap()
        .remove(0);
    assert_eq!(s.commit_kind, CommitKind::Overwrite);
    let after = read_index(s.index_manifest.as_deref().unwrap());
    assert_eq!(after.len(), before.len());
    assert!(after.iter().any(|e| e.file_name == new.file_name));
    assert!(!after.iter().any(|e| e.file_name == old.file_name));
    let per_bucket: std::collections::HashSet<_> = after
        .iter()
        .filter(|e| e.index_type == "DELETION_VECTORS")
        .map(|e| (e.partition.clone(), e.bucket))
        .collect();
    assert_eq!(
        per_bucket.len(),
        after
            .iter()
            .filter(|e| e.index_type == "DELETION_VECTORS")
            .count()
    );
    assert_eq!(all_rows(&copy).await, want);
    let index = json!({ "tables": [{
        "table": format!("{name}.{name}"),
        "original": java_fixtures().join("parquet").to_str().unwrap(),
        "rewritten": root.join("warehouse").to_str().unwrap(),
    }]});
    std::fs::write(
        committed_root().join("tables-dv_replaced.json"),
        index.to_string(),
    )
    .unwrap();
}
