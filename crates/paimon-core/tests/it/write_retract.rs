//! Retractions (`-U`, `-D`) written into partial-update and aggregation tables.
//!
//! The reference is the read side: every row written as its own level-0 file (a 1-byte write
//! buffer without spilling), so that only the read-side merge combines them. The same rows
//! written in one commit through the write buffer (merged at flush) and through a spilling
//! buffer must read back the same. Across commits Java merges each flush on its own and the
//! read merges the flushes' results (with their `-D` kinds), which is not the same as merging
//! all records at once for every engine (a `-D` then `+I` of one flush becomes a `+I`); small
//! cases over one and several commits are checked against hand-computed rows.
//! Retractions an engine cannot merge are refused before anything is written, with Java's
//! message.

use std::path::Path;

use arrow_array::RecordBatch;
use paimon_core::spec::manifest::DataFileMeta;
use paimon_core::{ErrorKind, RowKind, Table};
use serde_json::{json, Value};

use crate::write::{batch, create_table, read_sorted};

const FIELDS: &[(&str, &str)] = &[
    ("id", "INT NOT NULL"),
    ("a", "STRING"),
    ("b", "BIGINT"),
    ("c", "BIGINT"),
    ("g", "INT"),
];

/// Deterministic operations: (row, kind).
fn ops(seed: u64, n: usize) -> Vec<(Value, RowKind)> {
    let mut x = seed;
    let mut next = move |m: u64| {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (x >> 33) % m
    };
    (0..n)
        .map(|i| {
            let kind = match next(20) {
                0..=9 => RowKind::Insert,
                10..=12 => RowKind::UpdateAfter,
                13..=15 => RowKind::UpdateBefore,
                _ => RowKind::Delete,
            };
            let maybe = |v: Value, r: u64| if r == 0 { Value::Null } else { v };
            let row = json!({
                "id": next(25),
                "a": maybe(json!(format!("a{i}")), next(4)),
                "b": maybe(json!(next(100) as i64 - 20), next(5)),
                "c": maybe(json!(next(50) as i64), next(5)),
                "g": maybe(json!(next(30) as i64), next(6)),
            });
            (row, kind)
        })
        .collect()
}

fn configs() -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
    vec![
        (
            "pu_remove_on_delete",
            vec![
                ("merge-engine", "partial-update"),
                ("partial-update.remove-record-on-delete", "true"),
            ],
        ),
        (
            "pu_sequence_group",
            vec![
                ("merge-engine", "partial-update"),
                ("fields.g.sequence-group", "a,b"),
                ("partial-update.remove-record-on-sequence-group", "g"),
            ],
        ),
        (
            "pu_ignore_delete",
            vec![
                ("merge-engine", "partial-update"),
                ("ignore-delete", "true"),
            ],
        ),
        (
            "agg_sum",
            vec![
                ("merge-engine", "aggregation"),
                ("fields.b.aggregate-function", "sum"),
                ("fields.c.aggregate-function", "sum"),
            ],
        ),
        (
            "agg_remove_on_delete",
            vec![
                ("merge-engine", "aggregation"),
                ("aggregation.remove-record-on-delete", "true"),
                ("fields.b.aggregate-function", "sum"),
                ("fields.c.aggregate-function", "product"),
                ("fields.g.aggregate-function", "last_value"),
            ],
        ),
        (
            "agg_ignore_retract",
            vec![
                ("merge-engine", "aggregation"),
                ("fields.b.aggregate-function", "max"),
                ("fields.b.ignore-retract", "true"),
                ("fields.c.aggregate-function", "sum"),
            ],
        ),
    ]
}

/// Writes `ops` with `options` plus `extra`: in `commits` commits of batches of `batch_rows`.
async fn write_ops(
    name: &str,
    options: &[(&str, &str)],
    extra: &[(&str, &str)],
    ops: &[(Value, RowKind)],
    commits: usize,
    batch_rows: usize,
) -> (Table, Vec<DataFileMeta>) {
    // Write-only: the buffer's merge against the read side's, without compaction on write.
    let mut all: Vec<(&str, &str)> = vec![("bucket", "2"), ("write-only", "true")];
    all.extend(options.iter().copied());
    all.extend(extra.iter().copied());
    let t = create_table(name, FIELDS, &[], &["id"], &all).await;
    let spill = tempfile::tempdir().unwrap();
    let mut write = t
        .new_write()
        .with_commit_user("retract")
        .with_spill_dir(spill.path())
        .build()
        .unwrap();
    let mut files = Vec::new();
    for part in ops.chunks(ops.len().div_ceil(commits)) {
        for chunk in part.chunks(batch_rows) {
            let rows: Vec<Value> = chunk.iter().map(|(r, _)| r.clone()).collect();
            let kinds: Vec<RowKind> = chunk.iter().map(|(_, k)| *k).collect();
            write
                .write_with_kinds(&batch(&t, &rows), &kinds)
                .await
                .unwrap();
        }
        let messages = write.prepare_commit().await.unwrap();
        t.new_commit()
            .commit_messages(&messages, write.commit_user())
            .await
            .unwrap();
        files.extend(messages.into_iter().flat_map(|m| m.new_files));
    }
    (t, files)
}

#[tokio::test]
async fn retractions_written_through_the_buffer_read_like_the_read_side_merge() {
    for (i, (name, options)) in configs().into_iter().enumerate() {
        let ops = ops(17 + i as u64, 300);
        // Reference: one level-0 file per row, merged only when read.
        let one_per_row = [
            ("write-buffer-size", "1 b"),
            ("write-buffer-spillable", "false"),
        ];
        let (reference, ref_files) = write_ops(
            &format!("retract_{name}_ref"),
            &options,
            &one_per_row,
            &ops,
            1,
            1,
        )
        .await;
        let want = read_sorted(Path::new(reference.location())).await;
        // Compaction (universal, then full) keeps what a read sees: merged partial-update and
        // aggregation rows are written as `+I`, as Java's `getResult` gives them.
        for full in [false, true] {
            let compacted = write_ops(
                &format!("retract_{name}_compacted"),
                &options,
                &one_per_row,
                &ops,
                1,
                1,
            )
            .await
            .0;
            compacted.compact().full(full).execute().await.unwrap();
            let got = read_sorted(Path::new(compacted.location())).await;
            assert_eq!(got, want, "{name}: after compaction (full = {full})");
            let _ = std::fs::remove_dir_all(compacted.location());
        }
        let kept = ops
            .iter()
            .filter(|(_, k)| !(name == "pu_ignore_delete" && is_retract(*k)))
            .count();
        assert_eq!(ref_files.len(), kept, "{name}: one file per row");
        assert!(want.len() > 5, "{name}: {} rows", want.len());
        let (buffered, files) =
            write_ops(&format!("retract_{name}_buf"), &options, &[], &ops, 1, 50).await;
        assert_eq!(
            read_sorted(Path::new(buffered.location())).await,
            want,
            "{name}: merged in the write buffer"
        );
        assert!(files.len() <= 2, "{name}: {} files", files.len());
        // One row per key written; those whose merge ends deleted are written as -D.
        let keys: std::collections::BTreeSet<i64> = ops
            .iter()
            .filter(|(_, k)| !(name == "pu_ignore_delete" && is_retract(*k)))
            .map(|(r, _)| r["id"].as_i64().unwrap())
            .collect();
        let rows: i64 = files.iter().map(|f| f.row_count).sum();
        let deletes: i64 = files.iter().filter_map(|f| f.delete_row_count).sum();
        assert_eq!(rows, keys.len() as i64, "{name}");
        assert_eq!(
            rows - deletes,
            want.len() as i64,
            "{name}: {deletes} -D rows"
        );
        let small = [("write-buffer-size", "4 kb")];
        let (spilled, _) = write_ops(
            &format!("retract_{name}_spill"),
            &options,
            &small,
            &ops,
            1,
            20,
        )
        .await;
        assert_eq!(
            read_sorted(Path::new(spilled.location())).await,
            want,
            "{name}: merged with spilled runs"
        );
    }
}

fn is_retract(k: RowKind) -> bool {
    matches!(k, RowKind::UpdateBefore | RowKind::Delete)
}

#[tokio::test]
async fn hand_computed_retractions() {
    let row = |id: i64, a: Value, b: Value, c: Value| json!({"id": id, "a": a, "b": b, "c": c});
    let (i, ub, ua, d) = (
        RowKind::Insert,
        RowKind::UpdateBefore,
        RowKind::UpdateAfter,
        RowKind::Delete,
    );
    // aggregation: b sum, c sum, a last non-null.
    let agg = configs().remove(3).1;
    let ops = vec![
        (row(1, json!("x"), json!(5), json!(1)), i),
        (row(1, json!(null), json!(3), json!(1)), i),
        (row(1, json!("x"), json!(5), json!(1)), ub),
        (row(1, json!("y"), json!(7), json!(null)), ua),
        (row(2, json!("z"), json!(4), json!(4)), i),
        (row(2, json!("z"), json!(4), json!(4)), d),
        (row(3, json!("w"), json!(2), json!(2)), d),
    ];
    let (t, _) = write_ops("retract_hand_agg", &agg, &[], &ops[..4], 1, 10).await;
    let (t2, _) = write_ops("retract_hand_agg2", &agg, &[], &ops, 2, 10).await;
    // Key 1: 5 + 3 - 5 + 7 = 10, c = 1 + 1 - 1 = 1, a: retracting 'x' nulls it, then 'y'.
    assert_eq!(
        read_sorted(Path::new(t.location())).await,
        vec![r#"{"id":1,"a":"y","b":10,"c":1,"g":null}"#]
    );
    // Key 2 sums to zero but stays (no remove-record-on-delete); key 3 is a lone -D: dropped.
    assert_eq!(
        read_sorted(Path::new(t2.location())).await,
        vec![
            r#"{"id":1,"a":"y","b":10,"c":1,"g":null}"#,
            r#"{"id":2,"a":null,"b":0,"c":0,"g":null}"#,
        ]
    );
    // partial-update with remove-record-on-delete: -D removes the row, later +I starts anew.
    let pu = configs().remove(0).1;
    let ops = vec![
        (row(1, json!("x"), json!(1), json!(null)), i),
        (row(1, json!(null), json!(2), json!(3)), i),
        (row(1, json!(null), json!(null), json!(null)), d),
        (row(1, json!(null), json!(9), json!(null)), i),
        (row(2, json!("k"), json!(1), json!(1)), i),
        (row(2, json!("k"), json!(1), json!(1)), ub),
    ];
    let (t, files) = write_ops("retract_hand_pu", &pu, &[], &ops, 1, 10).await;
    assert_eq!(
        read_sorted(Path::new(t.location())).await,
        vec![
            r#"{"id":1,"a":null,"b":9,"c":null,"g":null}"#,
            r#"{"id":2,"a":"k","b":1,"c":1,"g":null}"#,
        ]
    );
    assert_eq!(files.iter().map(|f| f.row_count).sum::<i64>(), 2);
    // Three commits: the second flush merges (-D, +I) of key 1 into a +I of its own values,
    // which the read then lays over the first commit's row, as Java does.
    let (t, _) = write_ops("retract_hand_pu3", &pu, &[], &ops, 3, 10).await;
    assert_eq!(
        read_sorted(Path::new(t.location())).await,
        vec![
            r#"{"id":1,"a":"x","b":9,"c":3,"g":null}"#,
            r#"{"id":2,"a":"k","b":1,"c":1,"g":null}"#,
        ]
    );
    // A flush holding only the -D writes it as a -D, which deletes the earlier commits' row.
    let ops = vec![
        (row(1, json!("x"), json!(1), json!(null)), i),
        (row(2, json!("k"), json!(1), json!(1)), i),
        (row(1, json!(null), json!(null), json!(null)), d),
        (row(2, json!(null), json!(null), json!(null)), ub),
    ];
    let (t, files) = write_ops("retract_hand_pu_d", &pu, &[], &ops, 2, 10).await;
    assert_eq!(
        read_sorted(Path::new(t.location())).await,
        vec![r#"{"id":2,"a":"k","b":1,"c":1,"g":null}"#]
    );
    assert_eq!(
        files.iter().filter_map(|f| f.delete_row_count).sum::<i64>(),
        2
    );
}

async fn refused(name: &str, options: &[(&str, &str)], kind: RowKind) -> String {
    let t = create_table(name, FIELDS, &[], &["id"], options).await;
    let mut write = t.new_write().build().unwrap();
    let rows: RecordBatch = batch(&t, &[json!({"id": 1, "b": 1}), json!({"id": 1, "b": 1})]);
    let err = write
        .write_with_kinds(&rows, &[RowKind::Insert, kind])
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument, "{err}");
    assert!(write.prepare_commit().await.unwrap().is_empty());
    err.to_string()
}

#[tokio::test]
async fn retractions_an_engine_cannot_merge_are_refused_with_javas_message() {
    let pu = [("bucket", "1"), ("merge-engine", "partial-update")];
    let e = refused("retract_refused_pu", &pu, RowKind::Delete).await;
    assert!(
        e.contains("By default, Partial update can not accept delete records"),
        "{e}"
    );
    let agg = [
        ("bucket", "1"),
        ("merge-engine", "aggregation"),
        ("fields.b.aggregate-function", "max"),
    ];
    let e = refused("retract_refused_agg", &agg, RowKind::UpdateBefore).await;
    assert!(
        e.contains("Aggregate function 'max' does not support retraction"),
        "{e}"
    );
    assert!(e.contains('b'), "{e}");
    // With remove-record-on-delete a -D replaces the row: accepted; a -U still retracts.
    let mut remove = agg.to_vec();
    remove.push(("aggregation.remove-record-on-delete", "true"));
    refused("retract_refused_agg_u", &remove, RowKind::UpdateBefore).await;
    let ops = vec![
        (json!({"id": 1, "b": 1}), RowKind::Insert),
        (json!({"id": 1, "b": 5}), RowKind::Delete),
        (json!({"id": 2, "b": 5}), RowKind::Insert),
    ];
    let (t, _) = write_ops("retract_agg_d", &remove, &[], &ops, 1, 10).await;
    assert_eq!(
        read_sorted(Path::new(t.location())).await,
        vec![r#"{"id":2,"a":null,"b":5,"c":null,"g":null}"#]
    );
}
