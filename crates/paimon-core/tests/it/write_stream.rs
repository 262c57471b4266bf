//! Data files are streamed to the store as their format completes them: a file larger than
//! one part goes out as a multipart upload, reads back whole with its recorded size, and a
//! failed upload leaves nothing behind.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{ArrayRef, Int64Array, RecordBatch};
use futures::TryStreamExt;
use paimon_core::arrow::schema::arrow_schema;
use paimon_core::Table;

use crate::fault_store::FailingStore;
use crate::write::create_table;

/// Rows written: more than arrow-rs' 1,048,576-row row groups, so a Parquet file has two,
/// and with random 8-byte values more than 8 MiB, the size above which files are uploaded in
/// parts.
const ROWS: i64 = 1_200_000;

/// xorshift64: incompressible values that a test can recompute.
fn values(n: i64) -> Vec<i64> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as i64
        })
        .collect()
}

/// An append table `(id, v)` opened through `store`.
async fn table(name: &str, format: &str, store: &Arc<FailingStore>) -> Table {
    let options = [("file.format", format), ("target-file-size", "256 mb")];
    let t = create_table(
        name,
        &[("id", "BIGINT"), ("v", "BIGINT")],
        &[],
        &[],
        &options,
    )
    .await;
    Table::open_with(store.file_io(), t.location(), &HashMap::new())
        .await
        .unwrap()
}

/// Writes the rows in batches of 64K and prepares the commit.
async fn write_rows(t: &Table) -> paimon_core::Result<Vec<paimon_core::commit::CommitMessage>> {
    let schema = arrow_schema(&t.schema().fields).unwrap();
    let v = values(ROWS);
    let mut write = t.new_write().with_commit_user("stream").build()?;
    for start in (0..ROWS).step_by(1 << 16) {
        let end = (start + (1 << 16)).min(ROWS);
        let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(start..end));
        let vs: ArrayRef = Arc::new(Int64Array::from(v[start as usize..end as usize].to_vec()));
        let batch = RecordBatch::try_new(schema.clone(), vec![ids, vs]).unwrap();
        write.write(&batch).await?;
    }
    write.prepare_commit().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_files_are_uploaded_in_parts_and_read_back_whole() {
    for format in ["parquet", "orc", "avro"] {
        let store = FailingStore::local();
        let t = table(&format!("stream_{format}"), format, &store).await;
        let messages = write_rows(&t).await.unwrap();
        t.new_commit()
            .commit_messages(&messages, "stream")
            .await
            .unwrap();
        let files: Vec<_> = messages.iter().flat_map(|m| &m.new_files).collect();
        assert_eq!(files.len(), 1, "{format}: one file under the target size");
        let file = files[0];
        let path = format!("{}/bucket-0/{}", t.location(), file.file_name);
        let on_disk = std::fs::metadata(&path).unwrap().len();
        assert_eq!(file.file_size as u64, on_disk, "{format}: recorded size");
        assert!(on_disk > 8 << 20, "{format}: {on_disk} bytes");
        let uploads = store.multiparts.lock().unwrap().clone();
        assert!(
            uploads.iter().any(|u| u.ends_with(&file.file_name)),
            "{format}: {uploads:?}"
        );
        let sizes = std::mem::take(&mut *store.part_sizes.lock().unwrap());
        let (last, full) = sizes.split_last().unwrap();
        assert!(full.iter().all(|&n| n == 8 << 20), "{format}: {sizes:?}");
        assert_eq!(sizes.iter().sum::<usize>() as u64, on_disk);
        assert!(*last > 0 && *last <= 8 << 20, "{format}: {sizes:?}");
        if format == "parquet" {
            let bytes = bytes::Bytes::from(std::fs::read(&path).unwrap());
            let reader =
                parquet::file::serialized_reader::SerializedFileReader::new(bytes).unwrap();
            use parquet::file::reader::FileReader;
            assert_eq!(reader.metadata().num_row_groups(), 2);
        }

        let scan = t.scan().build().unwrap();
        let batches: Vec<RecordBatch> = scan.to_arrow().await.unwrap().try_collect().await.unwrap();
        let mut got: Vec<(i64, i64)> = batches
            .iter()
            .flat_map(|b| {
                let ids = b.column(0).as_primitive::<Int64Type>().clone();
                let vs = b.column(1).as_primitive::<Int64Type>().clone();
                (0..b.num_rows()).map(move |i| (ids.value(i), vs.value(i)))
            })
            .collect();
        got.sort_unstable();
        let want: Vec<(i64, i64)> = (0..ROWS).zip(values(ROWS)).collect();
        assert!(got == want, "{format}: rows differ");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_upload_leaves_no_file() {
    let store = FailingStore::local();
    let t = table("stream_fail", "parquet", &store).await;
    *store.fail_parts.lock().unwrap() = Some("data-".to_string());
    let err = write_rows(&t).await.unwrap_err();
    assert!(err.to_string().contains("injected failure"), "{err}");
    assert!(err.to_string().contains("/bucket-0/data-"), "{err}");
    let bucket = std::path::Path::new(t.location()).join("bucket-0");
    let left: Vec<_> = std::fs::read_dir(&bucket)
        .map(|d| d.map(|e| e.unwrap().file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
    assert!(!store.multiparts.lock().unwrap().is_empty());
    // Aborted, not merely dropped (a dropped S3 upload keeps its parts).
    assert_eq!(store.aborts.load(std::sync::atomic::Ordering::SeqCst), 1);
}

#[tokio::test]
async fn avro_files_roll_on_the_bytes_written() {
    let options = [
        ("file.format", "avro"),
        ("file.compression", "none"),
        ("target-file-size", "64 kb"),
    ];
    let t = create_table("stream_avro_roll", &[("id", "BIGINT")], &[], &[], &options).await;
    let schema = arrow_schema(&t.schema().fields).unwrap();
    let ids: ArrayRef = Arc::new(Int64Array::from(values(20_000)));
    let batch = RecordBatch::try_new(schema, vec![ids]).unwrap();
    let files = crate::write::write_commit(&t, &[batch]).await;
    // ~10 bytes a row: about 200 KB in files of at least 64 KB but the last.
    assert!(files.len() >= 3, "{} files", files.len());
    for f in &files[..files.len() - 1] {
        assert!(f.file_size >= 64 << 10, "{} bytes", f.file_size);
    }
    assert_eq!(files.iter().map(|f| f.row_count).sum::<i64>(), 20_000);
}
