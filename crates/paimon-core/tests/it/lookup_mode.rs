//! Lookup mode at read (Java `LookupMergeFunction`, issue 12 item 7): in a table whose
//! `CoreOptions#needLookup` holds (`force-lookup`, deletion vectors, `changelog-producer =
//! lookup`), a key's level-0 records are merged with only its record of the lowest level
//! above 0, because lookup compaction folded the deeper levels into that record. The tables
//! here are laid out as Java's lookup compaction leaves them (the merged state of a key at a
//! level above its older versions), with files committed at chosen levels.

use std::path::Path;

use paimon_core::{RowKind, Table};
use serde_json::{json, Value};

use crate::write::{batch, create_table, read_sorted, render_sorted};

/// Writes `rows` (`(id, a, b)`) and commits the new files at `level`.
async fn write_at_level(t: &Table, rows: &[(i32, Option<&str>, Option<i64>)], level: i32) {
    let lines: Vec<Value> = rows
        .iter()
        .map(|(id, a, b)| json!({"id": id, "a": a, "b": b}))
        .collect();
    let kinds = vec![RowKind::Insert; rows.len()];
    // `write-only`: the files are laid out by hand, not compacted at the commit.
    let mut write = t
        .new_write()
        .with_option("write-only", "true")
        .with_commit_user("lookup")
        .build()
        .unwrap();
    write
        .write_with_kinds(&batch(t, &lines), &kinds)
        .await
        .unwrap();
    let mut messages = write.prepare_commit().await.unwrap();
    for m in &mut messages {
        for f in &mut m.new_files {
            f.level = level;
        }
    }
    t.new_commit()
        .commit_messages(&messages, write.commit_user())
        .await
        .unwrap();
}

async fn table(name: &str, options: &[(&str, &str)]) -> Table {
    let mut all = vec![("bucket", "1")];
    all.extend_from_slice(options);
    create_table(
        name,
        &[("id", "INT NOT NULL"), ("a", "STRING"), ("b", "BIGINT")],
        &[],
        &["id"],
        &all,
    )
    .await
}

fn rows(t: &Table, rows: &[(i32, Option<&str>, Option<i64>)]) -> Vec<String> {
    let lines: Vec<Value> = rows
        .iter()
        .map(|(id, a, b)| json!({"id": id, "a": a, "b": b}))
        .collect();
    render_sorted(t, &[batch(t, &lines)])
}

/// Aggregation (sum): key 1 is written +10 (level 5), then lookup compaction's merged state
/// 15 (= 10 + 5, level 3), then +3 at level 0. Java reads 18; merging every level would read
/// 28. Key 2 sits on level 5 only; key 3 on levels 4 and 2 without level 0 (the level-2
/// record alone is the answer). (Partial-update is covered by the merge's unit tests:
/// summing fields there needs sequence groups.)
#[tokio::test]
async fn lookup_tables_read_the_lowest_high_level_only() {
    let engines: [(&str, &[(&str, &str)]); 1] = [(
        "lookup_read_agg",
        &[
            ("merge-engine", "aggregation"),
            ("fields.b.aggregate-function", "sum"),
        ],
    )];
    for (name, engine) in engines {
        for lookup in [true, false] {
            let mut options = engine.to_vec();
            options.push(("force-lookup", if lookup { "true" } else { "false" }));
            let t = table(name, &options).await;
            write_at_level(&t, &[(1, Some("x"), Some(10)), (2, Some("k"), Some(7))], 5).await;
            write_at_level(&t, &[(3, Some("p"), Some(1))], 4).await;
            write_at_level(&t, &[(1, Some("y"), Some(15)), (3, Some("q"), Some(2))], 3).await;
            write_at_level(&t, &[(1, None, Some(3))], 0).await;
            let got = read_sorted(Path::new(t.location())).await;
            let want = if lookup {
                rows(
                    &t,
                    &[
                        (1, Some("y"), Some(18)),
                        (2, Some("k"), Some(7)),
                        (3, Some("q"), Some(2)),
                    ],
                )
            } else {
                rows(
                    &t,
                    &[
                        (1, Some("y"), Some(28)),
                        (2, Some("k"), Some(7)),
                        (3, Some("q"), Some(3)),
                    ],
                )
            };
            assert_eq!(got, want, "{name} lookup={lookup}");
            // A full compaction merges the same way (Java's lookup tables compact through
            // the wrapped merge function too) and keeps the rows.
            let t = Table::open(t.location()).await.unwrap();
            t.compact().full(true).execute().await.unwrap();
            assert_eq!(
                read_sorted(Path::new(t.location())).await,
                want,
                "{name} compacted"
            );
            let _ = std::fs::remove_dir_all(t.location());
        }
    }
}
