//! Writing primary-key tables: rows sorted and deduplicated per bucket, sequence numbers
//! continued from the live files, updates and deletes across commits merged on read.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use arrow_array::RecordBatch;
use futures::TryStreamExt;
use paimon_core::scan::ManifestEntryCache;
use paimon_core::spec::binary_row::BinaryRow;
use paimon_core::spec::datum::Datum;
use paimon_core::spec::types::{DataType, TypeKind};
use paimon_core::{ErrorKind, RowKind, SchemaChange, Table};
use serde_json::{json, Value};

use crate::write::{batch, create_table, read_sorted, render_sorted, save_expected, write_commit};

fn int_key(bytes: &[u8]) -> i32 {
    let row = BinaryRow::from_serialized(bytes).unwrap();
    match row.get(0, &DataType::not_null(TypeKind::Int)).unwrap() {
        Some(Datum::Int(v)) => v,
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn primary_key_dedup_updates_and_deletes_across_commits() {
    let t = create_table(
        "pk_dedup",
        &[("id", "INT NOT NULL"), ("v", "STRING"), ("n", "BIGINT")],
        &[],
        &["id"],
        &[("bucket", "2")],
    )
    .await;
    // Commit 1: every key twice in one batch (the later one wins), plus once more in a
    // second batch for keys < 10.
    let lines: Vec<Value> = (0..100)
        .map(|i| json!({"id": i % 50, "v": format!("first-{i}"), "n": i}))
        .collect();
    let b2 = batch(
        &t,
        &(0..10)
            .map(|i| json!({"id": i, "v": "second", "n": -i}))
            .collect::<Vec<_>>(),
    );
    let files = write_commit(&t, &[batch(&t, &lines), b2]).await;
    let mut want: BTreeMap<i64, Value> = BTreeMap::new();
    for i in 0..100i64 {
        want.insert(
            i % 50,
            json!({"id": i % 50, "v": format!("first-{i}"), "n": i}),
        );
    }
    for i in 0..10i64 {
        want.insert(i, json!({"id": i, "v": "second", "n": -i}));
    }
    let expected = batch(&t, &want.values().cloned().collect::<Vec<_>>());
    assert_eq!(
        read_sorted(Path::new(t.location())).await,
        render_sorted(&t, &[expected])
    );
    for f in &files {
        // One row per key, sorted: min/max key are the file's first/last keys.
        assert!(int_key(&f.min_key) <= int_key(&f.max_key));
        assert_eq!(f.key_stats.null_counts, Some(vec![Some(0)]));
        assert_eq!(f.delete_row_count, Some(0));
    }
    assert_eq!(files.iter().map(|f| f.row_count).sum::<i64>(), 50);
    // Commit 2: updates and deletes with explicit kinds.
    let changes = batch(
        &t,
        &[
            json!({"id": 1, "v": "old"}),
            json!({"id": 1, "v": "updated", "n": 100}),
            json!({"id": 2}),
            json!({"id": 77, "v": "new"}),
        ],
    );
    let kinds = [
        RowKind::UpdateBefore,
        RowKind::UpdateAfter,
        RowKind::Delete,
        RowKind::Insert,
    ];
    let mut write = t.new_write().build().unwrap();
    write.write_with_kinds(&changes, &kinds).await.unwrap();
    let messages = write.prepare_commit().await.unwrap();
    // Each bucket continues after its own live maximum.
    for f in messages.iter().flat_map(|m| &m.new_files) {
        assert!(f.min_sequence_number >= 50, "{f:?}");
    }
    let deletes: i64 = messages
        .iter()
        .flat_map(|m| &m.new_files)
        .map(|f| f.delete_row_count.unwrap())
        .sum();
    assert_eq!(
        deletes, 1,
        "the -D of key 2 is written; -U of key 1 lost to +U"
    );
    t.new_commit()
        .commit_messages(&messages, write.commit_user())
        .await
        .unwrap();
    want.insert(1, json!({"id": 1, "v": "updated", "n": 100}));
    want.remove(&2);
    want.insert(77, json!({"id": 77, "v": "new"}));
    let expected = batch(&t, &want.values().cloned().collect::<Vec<_>>());
    assert_eq!(
        read_sorted(Path::new(t.location())).await,
        render_sorted(&t, std::slice::from_ref(&expected))
    );
    save_expected(&t, &[expected]);
}

#[tokio::test]
async fn sequence_numbers_continue_per_bucket() {
    let t = create_table(
        "pk_sequence",
        &[("id", "BIGINT NOT NULL"), ("v", "INT")],
        &[],
        &["id"],
        &[("bucket", "1")],
    )
    .await;
    let b = batch(
        &t,
        &(0..10)
            .map(|i| json!({"id": i, "v": i}))
            .collect::<Vec<_>>(),
    );
    let f1 = write_commit(&t, std::slice::from_ref(&b)).await;
    assert_eq!(
        (f1[0].min_sequence_number, f1[0].max_sequence_number),
        (0, 9)
    );
    let f2 = write_commit(&t, &[b]).await;
    assert_eq!(
        (f2[0].min_sequence_number, f2[0].max_sequence_number),
        (10, 19)
    );
}

#[tokio::test]
async fn partitioned_primary_key_with_rowkind_field() {
    let t = create_table(
        "pk_partitioned_rowkind",
        &[
            ("dt", "DATE NOT NULL"),
            ("id", "INT NOT NULL"),
            ("amount", "DECIMAL(12, 2)"),
            ("op", "STRING"),
        ],
        &["dt"],
        &["dt", "id"],
        &[
            ("bucket", "3"),
            ("rowkind.field", "op"),
            ("write-buffer-size", "4 kb"),
            ("write-buffer-spillable", "false"),
        ],
    )
    .await;
    let lines: Vec<Value> = (0..600)
        .map(|i| json!({"dt": if i % 2 == 0 {"2024-01-01"} else {"2024-01-02"}, "id": i % 200, "amount": format!("{i}.25"), "op": "+I"}))
        .collect();
    let batches: Vec<RecordBatch> = lines.chunks(60).map(|c| batch(&t, c)).collect();
    let files = write_commit(&t, &batches).await;
    // A 4 kb write buffer fills several times: more level-0 files than (partition, bucket)s.
    assert!(files.len() > 6, "{} files", files.len());
    let deletes: Vec<Value> = (0..20)
        .map(|i| json!({"dt": "2024-01-01", "id": i * 2, "op": "-D"}))
        .collect();
    write_commit(&t, &[batch(&t, &deletes)]).await;
    let mut want = BTreeMap::new();
    for i in 0..600 {
        let dt = if i % 2 == 0 {
            "2024-01-01"
        } else {
            "2024-01-02"
        };
        want.insert(
            (dt, i % 200),
            json!({"dt": dt, "id": i % 200, "amount": format!("{i}.25"), "op": "+I"}),
        );
    }
    for i in 0..20 {
        want.remove(&("2024-01-01", i * 2));
    }
    let expected = batch(&t, &want.values().cloned().collect::<Vec<_>>());
    assert_eq!(
        read_sorted(Path::new(t.location())).await,
        render_sorted(&t, std::slice::from_ref(&expected))
    );
    save_expected(&t, &[expected]);
}

#[tokio::test]
async fn null_primary_key_is_rejected() {
    let t = create_table(
        "pk_null_key",
        &[("id", "INT"), ("v", "STRING")],
        &[],
        &["id"],
        &[("bucket", "1")],
    )
    .await;
    let b = RecordBatch::try_from_iter([
        (
            "id",
            Arc::new(arrow_array::Int32Array::from(vec![Some(1), None])) as _,
        ),
        (
            "v",
            Arc::new(arrow_array::StringArray::from(vec!["a", "b"])) as _,
        ),
    ])
    .unwrap();
    let mut write = t.new_write().build().unwrap();
    let e = write.write(&b).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("primary-key column 'id'"), "{e}");
    // The same with a NOT NULL key column (as Java declares primary keys).
    let t2 = create_table(
        "pk_null_key_not_null",
        &[("id", "INT NOT NULL"), ("v", "STRING")],
        &[],
        &["id"],
        &[("bucket", "1")],
    )
    .await;
    let e = t2.new_write().build().unwrap().write(&b).await.unwrap_err();
    assert!(e.to_string().contains("primary-key column 'id'"), "{e}");
    let _ = std::fs::remove_dir_all(t2.location());
    assert!(write.prepare_commit().await.unwrap().is_empty());
    assert!(t
        .snapshot_manager()
        .latest_snapshot()
        .await
        .unwrap()
        .is_none());
}

#[tokio::test]
async fn unsupported_primary_key_tables_fail_at_build() {
    for (name, options) in [(
        "pk_changelog",
        vec![("bucket", "1"), ("changelog-producer", "input")],
    )] {
        let t = create_table(name, &[("id", "INT NOT NULL")], &[], &["id"], &options).await;
        let e = t.new_write().build().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unsupported, "{name}: {e}");
        let _ = std::fs::remove_dir_all(t.location());
    }
}

#[tokio::test]
async fn upserts_and_deletes_into_a_pypaimon_primary_key_table() {
    let Some(root) = crate::pypaimon::pypaimon_fixtures() else {
        return;
    };
    let dst = crate::write::written_db().join("pypaimon_pk_partitioned");
    let _ = std::fs::remove_dir_all(&dst);
    crate::common::copy_dir(&root.join("warehouse/fixtures.db/pk_partitioned"), &dst);
    let t = paimon_core::Table::open(dst.to_str().unwrap())
        .await
        .unwrap();
    let before: Vec<RecordBatch> =
        futures::TryStreamExt::try_collect(t.scan().build().unwrap().to_arrow().await.unwrap())
            .await
            .unwrap();
    let mut rows: BTreeMap<String, serde_json::Map<String, Value>> = BTreeMap::new();
    for b in &before {
        for r in paimon_core::render::batch_to_json_rows(b, &t.schema().fields).unwrap() {
            rows.insert(format!("{}|{}|{}", r["dt"], r["region"], r["id"]), r);
        }
    }
    assert!(rows.len() > 10);
    let mut changes = Vec::new();
    for (i, (k, r)) in rows.clone().into_iter().take(10).enumerate() {
        let mut r = r.clone();
        if i % 2 == 0 {
            r.insert("note".into(), json!("updated by paimon-rs"));
            r.insert("op".into(), json!("+U"));
            rows.insert(k, r.clone());
        } else {
            r.insert("op".into(), json!("-D"));
            rows.remove(&k);
        }
        changes.push(Value::Object(r));
    }
    let new = json!({"dt": "2030-01-01", "region": "rs", "id": 1, "amount": "9.99", "note": "new", "op": "+I"});
    rows.insert("new".into(), new.as_object().unwrap().clone());
    changes.push(new);
    write_commit(&t, &[batch(&t, &changes)]).await;
    let expected = batch(
        &t,
        &rows.into_values().map(Value::Object).collect::<Vec<_>>(),
    );
    assert_eq!(
        read_sorted(Path::new(t.location())).await,
        render_sorted(&t, std::slice::from_ref(&expected))
    );
    save_expected(&t, &[expected]);
}

#[tokio::test]
async fn sequence_field_decides_which_version_survives_the_buffer() {
    let t = create_table(
        "pk_sequence_field",
        &[("id", "INT NOT NULL"), ("v", "STRING"), ("ts", "BIGINT")],
        &[],
        &["id"],
        &[("bucket", "1"), ("sequence.field", "ts")],
    )
    .await;
    // The later arrival has the smaller `ts`: the earlier row wins.
    let b = batch(
        &t,
        &[
            json!({"id": 1, "v": "newer", "ts": 20}),
            json!({"id": 1, "v": "older", "ts": 10}),
            json!({"id": 2, "v": "a", "ts": 1}),
            json!({"id": 2, "v": "b", "ts": 2}),
        ],
    );
    let files = write_commit(&t, &[b]).await;
    assert_eq!(files[0].row_count, 2);
    let expected = batch(
        &t,
        &[
            json!({"id": 1, "v": "newer", "ts": 20}),
            json!({"id": 2, "v": "b", "ts": 2}),
        ],
    );
    assert_eq!(
        read_sorted(Path::new(t.location())).await,
        render_sorted(&t, std::slice::from_ref(&expected))
    );
    save_expected(&t, &[expected]);
}

/// Every Parquet data file under `dir`.
fn parquet_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            parquet_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "parquet") {
            out.push(p);
        }
    }
}

#[tokio::test]
async fn primary_key_files_are_sorted_runs_with_javas_layout() {
    let t = create_table(
        "pk_layout",
        &[
            ("k", "STRING NOT NULL"),
            ("id", "INT NOT NULL"),
            ("v", "DOUBLE"),
        ],
        &[],
        &["id", "k"],
        &[
            ("bucket", "2"),
            ("write-buffer-size", "2 kb"),
            ("write-buffer-spillable", "false"),
        ],
    )
    .await;
    let lines: Vec<Value> = (0..400)
        .map(|i| json!({"k": format!("k{}", i % 7), "id": (i * 37) % 90, "v": i}))
        .collect();
    let batches: Vec<RecordBatch> = lines.chunks(40).map(|c| batch(&t, c)).collect();
    write_commit(&t, &batches).await;
    let mut files = Vec::new();
    parquet_files(Path::new(t.location()), &mut files);
    assert!(files.len() > 2);
    for f in files {
        let reader =
            parquet::file::reader::SerializedFileReader::new(std::fs::File::open(&f).unwrap())
                .unwrap();
        let schema = parquet::file::reader::FileReader::metadata(&reader)
            .file_metadata()
            .schema_descr_ptr();
        let root = schema.root_schema();
        assert_eq!(root.name(), "paimon_schema");
        let fields: Vec<(String, i32)> = root
            .get_fields()
            .iter()
            .map(|c| (c.name().to_string(), c.get_basic_info().id()))
            .collect();
        let want = [
            ("_KEY_id", 1_073_741_824),
            ("_KEY_k", 1_073_741_823),
            ("_SEQUENCE_NUMBER", 2_147_483_646),
            ("_VALUE_KIND", 2_147_483_645),
            ("k", 0),
            ("id", 1),
            ("v", 2),
        ];
        let want: Vec<(String, i32)> = want.iter().map(|(n, i)| (n.to_string(), *i)).collect();
        assert_eq!(fields, want);
        // Keys in declared primary-key order (id, k), strictly increasing: one row per key.
        let file = std::fs::File::open(&f).unwrap();
        let rows = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .build()
            .unwrap();
        let mut keys = Vec::new();
        for b in rows {
            let b = b.unwrap();
            let ids = b
                .column(0)
                .as_any()
                .downcast_ref::<arrow_array::Int32Array>()
                .unwrap();
            let ks = b
                .column(1)
                .as_any()
                .downcast_ref::<arrow_array::StringArray>()
                .unwrap();
            for i in 0..b.num_rows() {
                keys.push((ids.value(i), ks.value(i).to_string()));
            }
        }
        assert!(
            keys.windows(2).all(|w| w[0] < w[1]),
            "{}: {keys:?}",
            f.display()
        );
    }
    let _ = std::fs::remove_dir_all(t.location());
}

#[tokio::test]
async fn upserts_and_deletes_into_a_java_primary_key_table() {
    let (_tmp, dir) = crate::common::java_table_copy("parquet/pk_table_scan_and_read_mor");
    let t = paimon_core::Table::open(dir.to_str().unwrap())
        .await
        .unwrap();
    let before: Vec<RecordBatch> =
        futures::TryStreamExt::try_collect(t.scan().build().unwrap().to_arrow().await.unwrap())
            .await
            .unwrap();
    let mut rows: BTreeMap<String, serde_json::Map<String, Value>> = BTreeMap::new();
    for b in &before {
        for r in paimon_core::render::batch_to_json_rows(b, &t.schema().fields).unwrap() {
            rows.insert(format!("{}|{}|{}", r["f0"], r["f1"], r["f2"]), r);
        }
    }
    assert!(rows.len() >= 2, "{rows:?}");
    let mut changes = Vec::new();
    let mut kinds = Vec::new();
    for (i, (k, r)) in rows.clone().into_iter().enumerate() {
        let mut r = r.clone();
        if i % 2 == 0 {
            r.insert("f3".into(), json!(1234.5));
            rows.insert(k, r.clone());
            kinds.push(RowKind::UpdateAfter);
        } else {
            rows.remove(&k);
            kinds.push(RowKind::Delete);
        }
        changes.push(Value::Object(r));
    }
    let new = json!({"f0": "rust", "f1": 7, "f2": 8, "f3": 0.5});
    rows.insert("new".into(), new.as_object().unwrap().clone());
    changes.push(new);
    kinds.push(RowKind::Insert);
    let mut write = t.new_write().build().unwrap();
    write
        .write_with_kinds(&batch(&t, &changes), &kinds)
        .await
        .unwrap();
    let messages = write.prepare_commit().await.unwrap();
    t.new_commit()
        .commit_messages(&messages, write.commit_user())
        .await
        .unwrap();
    let expected = batch(
        &t,
        &rows.into_values().map(Value::Object).collect::<Vec<_>>(),
    );
    assert_eq!(read_sorted(&dir).await, render_sorted(&t, &[expected]));
}

#[tokio::test]
async fn partial_update_and_aggregation_merge_in_the_buffer_and_across_commits() {
    let pu = create_table(
        "pk_partial_update",
        &[("id", "INT NOT NULL"), ("a", "STRING"), ("b", "INT")],
        &[],
        &["id"],
        &[("bucket", "2"), ("merge-engine", "partial-update")],
    )
    .await;
    let files = write_commit(
        &pu,
        &[batch(
            &pu,
            &[
                json!({"id": 1, "a": "x"}),
                json!({"id": 1, "b": 5}),
                json!({"id": 2, "a": "y", "b": 1}),
            ],
        )],
    )
    .await;
    assert_eq!(
        files.iter().map(|f| f.row_count).sum::<i64>(),
        2,
        "merged in the buffer"
    );
    write_commit(&pu, &[batch(&pu, &[json!({"id": 1, "b": 7})])]).await;
    let want = batch(
        &pu,
        &[
            json!({"id": 1, "a": "x", "b": 7}),
            json!({"id": 2, "a": "y", "b": 1}),
        ],
    );
    assert_eq!(
        read_sorted(Path::new(pu.location())).await,
        render_sorted(&pu, std::slice::from_ref(&want))
    );
    save_expected(&pu, &[want]);

    let agg = create_table(
        "pk_aggregation",
        &[("id", "INT NOT NULL"), ("s", "BIGINT"), ("m", "INT")],
        &[],
        &["id"],
        &[
            ("bucket", "2"),
            ("merge-engine", "aggregation"),
            ("fields.s.aggregate-function", "sum"),
            ("fields.m.aggregate-function", "max"),
        ],
    )
    .await;
    let files = write_commit(
        &agg,
        &[batch(
            &agg,
            &[
                json!({"id": 1, "s": 10, "m": 3}),
                json!({"id": 1, "s": 5, "m": 9}),
                json!({"id": 2, "s": 1, "m": 1}),
            ],
        )],
    )
    .await;
    assert_eq!(files.iter().map(|f| f.row_count).sum::<i64>(), 2);
    write_commit(&agg, &[batch(&agg, &[json!({"id": 1, "s": 100, "m": 2})])]).await;
    let want = batch(
        &agg,
        &[
            json!({"id": 1, "s": 115, "m": 9}),
            json!({"id": 2, "s": 1, "m": 1}),
        ],
    );
    assert_eq!(
        read_sorted(Path::new(agg.location())).await,
        render_sorted(&agg, std::slice::from_ref(&want))
    );
    save_expected(&agg, &[want]);
    // A retraction the engine cannot merge (`m` is a max) is refused with Java's message
    // (`write_retract` covers the ones it can).
    let mut write = agg.new_write().build().unwrap();
    let e = write
        .write_with_kinds(
            &batch(&agg, &[json!({"id": 1, "s": 1})]),
            &[RowKind::UpdateBefore],
        )
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("does not support retraction"), "{e}");
}

/// Primary-key files whose key range excludes the key conjuncts are skipped at planning (Java's
/// key filter); files holding any version of a matching key are kept, so updates still merge.
/// A one-bucket primary-key table (`id INT`, `v STRING`) of four level-0 files with the key
/// ranges [0, 9], [10, 19], [20, 29] and [15, 15] (an update of key 15).
async fn key_range_table(name: &str) -> Table {
    let t = create_table(
        name,
        &[("id", "INT NOT NULL"), ("v", "STRING")],
        &[],
        &["id"],
        &[("bucket", "1")],
    )
    .await;
    for lo in [0, 10, 20] {
        let rows: Vec<Value> = (lo..lo + 10)
            .map(|i| json!({"id": i, "v": format!("v{i}")}))
            .collect();
        write_commit(&t, &[batch(&t, &rows)]).await;
    }
    write_commit(&t, &[batch(&t, &[json!({"id": 15, "v": "updated"})])]).await;
    t
}

#[tokio::test]
async fn key_stats_prune_files_without_the_key() {
    let t = key_range_table("pk_key_stats").await;
    let query = |filter: &'static str| {
        let t = t.clone();
        async move {
            let scan = t.scan().with_filter(filter).unwrap().build().unwrap();
            let plan = scan.plan().await.unwrap();
            let skipped = plan.metrics.files_skipped_by_stats;
            let batches: Vec<RecordBatch> =
                scan.to_arrow().await.unwrap().try_collect().await.unwrap();
            let rows = render_sorted(&t, &batches);
            (skipped, rows)
        }
    };
    let (skipped, rows) = query("id = 15").await;
    assert_eq!(skipped, 2, "files [0, 9] and [20, 29] cannot hold key 15");
    assert_eq!(
        rows,
        render_sorted(&t, &[batch(&t, &[json!({"id": 15, "v": "updated"})])])
    );
    // A value conjunct never prunes primary-key files (it could resurrect an old version).
    let (skipped, rows) = query("id = 15 AND v = 'v15'").await;
    assert_eq!(skipped, 2);
    assert!(rows.is_empty(), "{rows:?}");
    let (skipped, _) = query("v = 'v15'").await;
    assert_eq!(skipped, 0);
    let (skipped, rows) = query("id >= 25 OR id < 2").await;
    assert_eq!(skipped, 2, "only [0, 9] and [20, 29] can match");
    assert_eq!(rows.len(), 7);
}

/// The live-entry cache keeps each entry's decoded key stats beside it: warm plans of several
/// key predicates (an explicit bucket, so every one of them uses the cache) prune exactly the
/// files uncached plans prune, also after a schema change that the cached entries predate.
#[tokio::test]
async fn cached_key_stats_prune_like_uncached_plans() {
    let t = key_range_table("pk_key_stats_cached").await;
    let altered = t
        .alter(&[SchemaChange::add_column(
            "w",
            paimon_core::spec::type_text::parse_type("INT").unwrap(),
        )])
        .await
        .unwrap();
    assert_ne!(altered.schema().id, t.schema().id);
    let cache = ManifestEntryCache::new();
    let plan = |table: &Table, filter: &'static str, cached: bool| {
        let mut b = table
            .scan()
            .with_filter(filter)
            .unwrap()
            .with_bucket_filter(0);
        if cached {
            b = b
                .with_entry_cache(cache.clone())
                .with_option("scan.manifest-entry-cache.max-snapshots", "2");
        }
        async move { b.build().unwrap().plan().await.unwrap() }
    };
    let filters = [
        "id = 15",
        "id = 3",
        "id >= 25 OR id < 2",
        "id = 99",
        "v = 'v3'",
    ];
    let (mut hits, mut pruned) = (0, 0);
    for table in [&t, &altered] {
        for filter in filters {
            let cold = plan(table, filter, false).await;
            let warm = plan(table, filter, true).await;
            assert_eq!(warm.splits, cold.splits, "{filter}");
            let skipped = warm.metrics.files_skipped_by_stats;
            assert_eq!(skipped, cold.metrics.files_skipped_by_stats, "{filter}");
            hits += warm.metrics.cache_hits;
            pruned += skipped;
        }
    }
    assert_eq!(
        hits,
        2 * filters.len() as u64 - 1,
        "every warm plan but the first hits"
    );
    assert!(pruned >= 12, "key stats pruned {pruned} files");
}
