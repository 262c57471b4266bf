//! Lookup compaction (deletion vectors, on write) of tables whose keys do not pack into an
//! integer (`compact::key_list` keeps them as byte strings): a string key and a composite key
//! wider than 16 bytes; after every commit the rows equal a model.

use std::collections::BTreeMap;

use paimon_core::RowKind;
use serde_json::{json, Value};

use crate::compact_lookup::read;
use crate::write::{batch, create_table, render_sorted};

async fn run(name: &str, fields: &[(&str, &str)], keys: &[&str], key: fn(i64) -> Value) {
    let t = create_table(
        name,
        fields,
        &[],
        keys,
        &[("bucket", "2"), ("deletion-vectors.enabled", "true")],
    )
    .await;
    let mut model: BTreeMap<String, Value> = BTreeMap::new();
    for round in 0..4i64 {
        let mut lines = Vec::new();
        let mut kinds = Vec::new();
        for i in (round * 50)..(round * 50 + 300) {
            let mut line = key(i % 400);
            line["v"] = json!(i * 10 + round);
            let delete = (i + round) % 9 == 0;
            let id = key(i % 400).to_string();
            match delete {
                true => model.remove(&id),
                false => model.insert(id, line.clone()),
            };
            kinds.push(match delete {
                true => RowKind::Delete,
                false => RowKind::Insert,
            });
            lines.push(line);
        }
        // Compaction on write (`write-only` false): level 0 looked up and moved up at once.
        let mut w = t.new_write().with_commit_user("wide-keys").build().unwrap();
        w.write_with_kinds(&batch(&t, &lines), &kinds)
            .await
            .unwrap();
        let messages = w.prepare_commit().await.unwrap();
        t.new_commit()
            .commit_messages(&messages, w.commit_user())
            .await
            .unwrap();
        let want: Vec<Value> = model.values().cloned().collect();
        assert_eq!(
            read(&t, false).await,
            render_sorted(&t, &[batch(&t, &want)]),
            "round {round}"
        );
    }
    let _ = std::fs::remove_dir_all(t.location());
}

#[tokio::test]
async fn string_keys_compact_by_lookup() {
    run(
        "compact_string_keys",
        &[("k", "STRING NOT NULL"), ("v", "BIGINT")],
        &["k"],
        |i| json!({"k": format!("key-{}", i * 7919 % 400)}),
    )
    .await;
}

#[tokio::test]
async fn wide_composite_keys_compact_by_lookup() {
    run(
        "compact_wide_keys",
        &[
            ("a", "BIGINT NOT NULL"),
            ("b", "BIGINT NOT NULL"),
            ("v", "BIGINT"),
        ],
        &["a", "b"],
        |i| json!({"a": i % 3 - 1, "b": i * 7919 % 400}),
    )
    .await;
}
