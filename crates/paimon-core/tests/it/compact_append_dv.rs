//! Append tables with deletion vectors (issue 12 item 4): compaction reads its inputs with
//! their vectors applied (the deleted rows are gone from the output) and retires the vectors
//! of the compacted files, in fixed-bucket and bucket-unaware tables. The vectors are
//! written here as Java's `DELETE` statements leave them (one index file, committed with the
//! data files' partition and bucket).

use bytes::Bytes;
use paimon_core::commit::CommitMessage;
use paimon_core::index::dv_encode::{encode_index_file, DeletionVector};
use paimon_core::spec::manifest::{FileKind, IndexManifestEntry};
use paimon_core::Table;
use serde_json::{json, Value};

use crate::write::{batch, create_table, read_sorted, render_sorted, save_expected, write_commit};

/// The latest snapshot's splits (one per bucket here).
async fn splits(t: &Table) -> Vec<paimon_core::scan::DataSplit> {
    let t = Table::open(t.location()).await.unwrap();
    let plan = t.scan().build().unwrap().plan().await.unwrap();
    plan.splits.iter().map(|s| s.as_data().clone()).collect()
}

/// Commits vectors deleting `rows[i]` of data file `names[i]` of the only split.
async fn delete_rows(t: &Table, names: &[String], rows: &[&[u64]]) {
    let split = splits(t).await.remove(0);
    let vectors: Vec<(String, DeletionVector)> = names
        .iter()
        .zip(rows)
        .map(|(name, positions)| {
            let mut dv = DeletionVector::new(false);
            for p in positions.iter() {
                dv.delete(*p).unwrap();
            }
            (name.clone(), dv)
        })
        .collect();
    let (bytes, ranges) = encode_index_file(&vectors).unwrap();
    let name = format!("index-{}-0", uuid::Uuid::new_v4());
    let size = bytes.len() as i64;
    t.file_io()
        .write(
            &format!("{}/index/{name}", t.location()),
            Bytes::from(bytes),
        )
        .await
        .unwrap();
    let mut m = CommitMessage::new(split.partition.clone(), split.bucket, split.total_buckets);
    m.new_index_files.push(IndexManifestEntry {
        kind: FileKind::Add,
        partition: split.partition.clone(),
        bucket: split.bucket,
        index_type: "DELETION_VECTORS".into(),
        file_name: name,
        file_size: size,
        row_count: ranges.len() as i64,
        deletion_vectors: Some(ranges),
        external_path: None,
        global_index: None,
    });
    t.new_commit()
        .commit_messages(&[m], "dv-writer")
        .await
        .unwrap();
}

#[tokio::test]
async fn append_compaction_applies_and_retires_deletion_vectors() {
    for (name, options) in [
        (
            "compact_append_dv_fixed",
            vec![("bucket", "1"), ("bucket-key", "id")],
        ),
        ("compact_append_dv_unaware", vec![("bucket", "-1")]),
    ] {
        let mut options = options;
        options.push(("deletion-vectors.enabled", "true"));
        let t = create_table(
            name,
            &[("id", "BIGINT NOT NULL"), ("s", "STRING")],
            &[],
            &[],
            &options,
        )
        .await;
        let mut all: Vec<Value> = Vec::new();
        let mut names = Vec::new();
        for c in 0..3i64 {
            let lines: Vec<Value> = (0..10)
                .map(|i| json!({"id": c * 10 + i, "s": format!("r{c}-{i}")}))
                .collect();
            all.extend(lines.clone());
            let files = write_commit(&t, &[batch(&t, &lines)]).await;
            names.extend(files.into_iter().map(|f| f.file_name));
        }
        // File 0 loses rows 0, 3, 4 (over the 0.2 delete ratio), file 1 row 5.
        delete_rows(&t, &names, &[&[0, 3, 4], &[5]]).await;
        let kept: Vec<Value> = all
            .iter()
            .filter(|r| ![0, 3, 4, 15].contains(&r["id"].as_i64().unwrap()))
            .cloned()
            .collect();
        let want = render_sorted(&t, &[batch(&t, &kept)]);
        let path = std::path::Path::new(t.location());
        assert_eq!(read_sorted(path).await, want, "{name} before");
        // Three small files (below compaction.min.file-num = 5), but file 0's vector is over
        // the ratio: it is compacted, with every small file.
        let t = Table::open(t.location()).await.unwrap();
        let report = t.compact().execute().await.unwrap();
        assert!(report.snapshot_id.is_some(), "{name}: {report:?}");
        assert_eq!(report.buckets[0].rows_after, 26, "{name}");
        assert_eq!(read_sorted(path).await, want, "{name} after");
        let after = splits(&t).await;
        let files: Vec<_> = after.iter().flat_map(|s| s.files.clone()).collect();
        assert_eq!(files.len(), 1, "{name}");
        assert!(
            after
                .iter()
                .all(|s| s.deletion_files.iter().all(Option::is_none)),
            "{name}: vectors left"
        );
        save_expected(&t, &[batch(&t, &kept)]);
    }
}
