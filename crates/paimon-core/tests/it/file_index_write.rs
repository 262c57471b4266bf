//! Data-file indexes written by paimon-rs: golden bytes against Java-written fixtures (the
//! index rebuilt from the data file's own rows equals Java's container byte for byte), tables
//! written with `file-index.*` options (embedded vs `.index` file by the threshold, decoded by
//! our reader, used by the planner and the reader, kept by compaction).

use std::collections::BTreeMap;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray};
use futures::TryStreamExt;
use paimon_core::arrow::schema::arrow_type;
use paimon_core::index::file_index::FileIndexContainer;
use paimon_core::spec::manifest::DataFileMeta;
use paimon_core::spec::type_text::parse_fields;
use paimon_core::write::file_index_container;
use paimon_core::{Schema, Table};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::common::java_table;

/// Every live data file of `t` with its bucket directory.
async fn live_files(t: &Table, skip_level0: bool) -> Vec<(String, DataFileMeta)> {
    let mut scan = t.scan();
    if !skip_level0 {
        scan = scan.with_option("deletion-vectors.enabled", "false");
    }
    let plan = scan.build().unwrap().plan().await.unwrap();
    let mut out = Vec::new();
    for s in plan.splits {
        let d = s.as_data().clone();
        for f in d.files {
            // The external-path fixture keeps a copy of its files in the bucket directory too.
            let dir = d
                .bucket_path
                .trim_start_matches("file://")
                .trim_start_matches("file:");
            let dir = dir.to_string();
            out.push((dir, f));
        }
    }
    out
}

/// The Java container of `f`: embedded, else its `.index` file.
fn java_index(dir: &str, f: &DataFileMeta) -> Vec<u8> {
    match &f.embedded_index {
        Some(b) => b.clone(),
        None => {
            let name = f
                .extra_files
                .iter()
                .find(|n| n.ends_with(".index"))
                .unwrap();
            std::fs::read(Path::new(dir).join(name)).unwrap()
        }
    }
}

/// The rows of a Parquet data file, as the table's columns (Arrow types of the table).
fn table_rows(t: &Table, path: &Path) -> RecordBatch {
    let reader = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap())
        .unwrap()
        .build()
        .unwrap();
    let batches: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
    let batch = arrow_select::concat::concat_batches(&batches[0].schema(), &batches).unwrap();
    let fields = &t.schema().fields;
    let columns: Vec<ArrayRef> = fields
        .iter()
        .map(|f| {
            let c = batch.column_by_name(&f.name).unwrap();
            arrow_cast::cast(c, &arrow_type(&f.data_type).unwrap()).unwrap()
        })
        .collect();
    let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
    RecordBatch::try_from_iter(names.into_iter().zip(columns)).unwrap()
}

#[tokio::test]
async fn rebuilt_indexes_equal_javas_bytes() {
    let mut checked = BTreeMap::new();
    for (rel, skip0) in [
        ("parquet/append_with_bitmap", true),
        ("parquet/append_with_bitmap_no_embedding", true),
        ("parquet/append_with_bitmap_v1", true),
        ("parquet/append_with_bloomfilter", true),
        ("parquet/pk_with_bitmap_dv", false),
    ] {
        let t = Table::open(&java_table(rel)).await.unwrap();
        for (dir, f) in live_files(&t, skip0).await {
            let want = java_index(&dir, &f);
            let rows = table_rows(&t, &Path::new(&dir).join(&f.file_name));
            let got = file_index_container(t.options(), &t.schema().fields, &rows)
                .unwrap()
                .unwrap();
            assert_eq!(got, want, "{rel}: {}", f.file_name);
            *checked.entry(rel).or_insert(0) += 1;
        }
    }
    assert_eq!(checked.len(), 5, "{checked:?}");
}

async fn new_table(name: &str, columns: &str, pk: &[&str], options: &[(&str, &str)]) -> Table {
    // Under `target/written` so `scripts/check-written.py` has pypaimon read them.
    let dir = crate::write::written_db().join(format!("file_index_{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    let mut b = Schema::builder().columns(parse_fields(columns).unwrap());
    if !pk.is_empty() {
        b = b.primary_key(pk.to_vec());
    }
    for (k, v) in options {
        b = b.option(*k, *v);
    }
    Table::create(dir.to_str().unwrap(), b.build().unwrap())
        .await
        .unwrap()
}

fn batch(ids: Vec<i64>, kinds: Vec<Option<&str>>, k: Vec<i32>) -> RecordBatch {
    // Nullable fields in every batch (the expectation file for pypaimon has one schema).
    RecordBatch::try_from_iter_with_nullable([
        ("id", Arc::new(Int64Array::from(ids)) as ArrayRef, false),
        ("kind", Arc::new(StringArray::from(kinds)) as ArrayRef, true),
        ("k", Arc::new(Int32Array::from(k)) as ArrayRef, true),
    ])
    .unwrap()
}

async fn write(t: &Table, b: &RecordBatch) {
    let mut w = t.new_write().build().unwrap();
    w.write(b).await.unwrap();
    let m = w.prepare_commit().await.unwrap();
    t.new_commit()
        .commit_messages(&m, w.commit_user())
        .await
        .unwrap();
}

async fn ids(t: &Table, filter: &str, index: bool) -> (Vec<i64>, u64, u64, u64) {
    let scan = t
        .scan()
        .with_filter(filter)
        .unwrap()
        .with_option("file-index.read.enabled", index.to_string())
        .build()
        .unwrap();
    let plan = scan.plan().await.unwrap();
    let planned = plan.metrics.file_index.files_skipped;
    let read = scan.reader();
    let batches: Vec<RecordBatch> = read.read(plan.splits).unwrap().try_collect().await.unwrap();
    let mut out: Vec<i64> = batches
        .iter()
        .flat_map(|b| {
            let c = b.column_by_name("id").unwrap();
            c.as_any()
                .downcast_ref::<Int64Array>()
                .unwrap()
                .values()
                .to_vec()
        })
        .collect();
    out.sort_unstable();
    let m = read.metrics();
    (
        out,
        planned,
        m.file_index_files_skipped,
        m.file_index_rows_skipped,
    )
}

/// Three files of runs of `a`, `z`, `m` (so min/max statistics keep every file); the third
/// also has nulls and a rare value.
async fn write_three(t: &Table) -> Vec<RecordBatch> {
    let mut out = Vec::new();
    let kinds = |f: usize, i: i64| match (f, i % 10) {
        (2, 0) => None,
        (2, 1) => Some("rare"),
        _ => Some(["a", "z", "m"][(f + i as usize / 50) % 3]),
    };
    for f in 0..3usize {
        let ids: Vec<i64> = (0..300).map(|i| f as i64 * 1000 + i).collect();
        let k = ids.iter().map(|i| (i % 5) as i32 * 2).collect();
        let kinds = ids.iter().map(|i| kinds(f, i % 1000)).collect();
        let b = batch(ids, kinds, k);
        write(t, &b).await;
        out.push(b);
    }
    out
}

#[tokio::test]
async fn written_indexes_are_embedded_or_sidecars_and_prune() {
    for (name, threshold) in [("embedded", "500 B"), ("sidecar", "1 B")] {
        let t = new_table(
            name,
            "id BIGINT NOT NULL, kind STRING, k INT",
            &[],
            &[
                ("file-index.bitmap.columns", "kind"),
                ("file-index.bloom-filter.columns", "k"),
                ("file-index.bloom-filter.k.items", "10"),
                ("file-index.in-manifest-threshold", threshold),
            ],
        )
        .await;
        let written = write_three(&t).await;
        crate::write::save_expected(&t, &written);
        let files = live_files(&t, true).await;
        assert_eq!(files.len(), 3);
        let mut embedded = 0;
        for (dir, f) in &files {
            let bytes = java_index(dir, f);
            let small = bytes.len() <= if name == "embedded" { 500 } else { 1 };
            assert_eq!(f.embedded_index.is_some(), small, "{name}");
            assert_eq!(f.extra_files.len(), usize::from(!small), "{name}");
            embedded += usize::from(small);
            let c = FileIndexContainer::decode(&bytes).unwrap();
            let mut kinds: Vec<_> = c.entries().iter().map(|e| e.index_type.clone()).collect();
            kinds.sort();
            assert_eq!(kinds, ["bitmap", "bloom-filter"]);
        }
        assert_eq!(embedded, if name == "embedded" { 3 } else { 0 }, "{name}");
        // 'rare' sits in the third file only, at rows ≡ 1 mod 10.
        let want: Vec<i64> = (0..300).filter(|i| i % 10 == 1).map(|i| 2000 + i).collect();
        let (on, planned, opened, rows) = ids(&t, "kind = 'rare'", true).await;
        assert_eq!(on, want, "{name}");
        assert_eq!(ids(&t, "kind = 'rare'", false).await.0, want);
        match name {
            "embedded" => assert_eq!((planned, opened), (2, 0)),
            _ => assert_eq!((planned, opened), (0, 2)),
        }
        assert_eq!(rows, 270, "{name}: bitmap rows skipped in the third file");
        let (on, ..) = ids(&t, "kind IS NULL", true).await;
        assert_eq!(on.len(), 30);
        // Bloom filter on k (even values 0..8; statistics cannot rule 5 out).
        let (on, planned, opened, _) = ids(&t, "k = 5", true).await;
        assert!(on.is_empty());
        assert_eq!(planned + opened, 3, "{name}");
    }
}

#[tokio::test]
async fn compaction_writes_indexes_for_its_files() {
    let t = new_table(
        "compacted_append",
        "id BIGINT NOT NULL, kind STRING, k INT",
        &[],
        &[("file-index.bitmap.columns", "kind")],
    )
    .await;
    write_three(&t).await;
    t.compact().full(true).execute().await.unwrap();
    let t = Table::open(t.location()).await.unwrap();
    let files = live_files(&t, true).await;
    assert_eq!(files.len(), 1);
    let (dir, f) = &files[0];
    let rows = table_rows(&t, &Path::new(dir).join(&f.file_name));
    let want = file_index_container(t.options(), &t.schema().fields, &rows)
        .unwrap()
        .unwrap();
    assert_eq!(java_index(dir, f), want);
    let (on, _, _, skipped) = ids(&t, "kind = 'rare'", true).await;
    assert_eq!(on.len(), 30);
    assert_eq!(skipped, 870);

    let pk = new_table(
        "compacted_pk",
        "id BIGINT NOT NULL, kind STRING, k INT",
        &["id"],
        &[("bucket", "1"), ("file-index.bitmap.columns", "kind,k")],
    )
    .await;
    write_three(&pk).await;
    write_three(&pk).await;
    pk.compact().full(true).execute().await.unwrap();
    let pk = Table::open(pk.location()).await.unwrap();
    let files = live_files(&pk, true).await;
    assert_eq!(files.len(), 1);
    let (dir, f) = &files[0];
    assert_eq!(f.level, pk.options().num_levels() - 1);
    let rows = table_rows(&pk, &Path::new(dir).join(&f.file_name));
    let want = file_index_container(pk.options(), &pk.schema().fields, &rows)
        .unwrap()
        .unwrap();
    assert_eq!(java_index(dir, f), want);
}

#[tokio::test]
async fn unsupported_index_kinds_are_refused_at_build() {
    let t = new_table(
        "bsi",
        "id BIGINT NOT NULL, kind STRING, k INT",
        &[],
        &[("file-index.bsi.columns", "k")],
    )
    .await;
    let e = t.new_write().build().unwrap_err();
    assert_eq!(e.kind(), paimon_core::ErrorKind::Unsupported, "{e}");
    let t = new_table(
        "missing",
        "id BIGINT NOT NULL, kind STRING, k INT",
        &[],
        &[("file-index.bitmap.columns", "nope")],
    )
    .await;
    assert!(t.new_write().build().is_err());
}
