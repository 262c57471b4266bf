//! Primary-key conjuncts pushed below the merge (row-group pruning and pre-merge filtering):
//! results must equal the unpushed read (everything merged, then filtered), and value
//! conjuncts must never reach below the merge.

use futures::TryStreamExt;
use paimon_core::catalog::Table;
use paimon_core::expr::{filter_batch, parse_predicate, BoundPredicate};
use paimon_core::read::ReadMetricsSnapshot;
use paimon_core::render::batch_to_json_rows;

use crate::common::{json_rows, open_java, plan, render, Query};
use crate::pypaimon::pypaimon_fixtures;

/// `filter` parsed and bound to the table's schema.
fn bound(table: &Table, filter: &str) -> BoundPredicate {
    parse_predicate(filter)
        .unwrap()
        .bind(table.schema())
        .unwrap()
}

/// Reads with the predicate pushed as usual; also returns the read's metrics.
async fn pushed(
    table: &Table,
    filter: &str,
    snapshot: Option<i64>,
) -> (Vec<String>, ReadMetricsSnapshot) {
    let q = Query {
        filter: Some(filter),
        snapshot,
        ..Query::default()
    };
    let p = plan(table, &q).await;
    let pred = bound(table, filter);
    let read = table
        .scan()
        .build()
        .unwrap()
        .reader()
        .with_predicate(Some(pred));
    let rows = json_rows(&read, p.splits).await.unwrap();
    (render(&rows), read.metrics())
}

/// Plans without the filter (every file kept), then reads with it pushed: the read path's own
/// key pushdown, with no planning-time key-stats pruning in front of it.
async fn read_pushed(table: &Table, filter: &str) -> (Vec<String>, ReadMetricsSnapshot) {
    let p = plan(table, &Query::default()).await;
    let read = table
        .scan()
        .build()
        .unwrap()
        .reader()
        .with_predicate(Some(bound(table, filter)));
    let rows = json_rows(&read, p.splits).await.unwrap();
    (render(&rows), read.metrics())
}

/// Reads everything (no pruning, no pushdown), then filters the merged rows.
async fn unpushed(table: &Table, filter: &str, snapshot: Option<i64>) -> Vec<String> {
    let q = Query {
        snapshot,
        ..Query::default()
    };
    let p = plan(table, &q).await;
    let pred = bound(table, filter);
    let read = table.scan().build().unwrap().reader();
    let fields = read.output_fields().to_vec();
    let batches: Vec<_> = read.read(p.splits).unwrap().try_collect().await.unwrap();
    let mut rows = vec![];
    for b in &batches {
        let mask = filter_batch(&pred, b, &fields).unwrap();
        let b = arrow_select::filter::filter_record_batch(b, &mask).unwrap();
        rows.extend(batch_to_json_rows(&b, &fields).unwrap());
    }
    render(&rows)
}

async fn assert_same(table: &Table, filters: &[&str], snapshot: Option<i64>) {
    for f in filters {
        let (got, _) = pushed(table, f, snapshot).await;
        assert_eq!(
            got,
            unpushed(table, f, snapshot).await,
            "{} @{snapshot:?}: {f}",
            table.name()
        );
    }
}

#[tokio::test]
async fn key_predicates_on_java_pk_tables_match_the_unpushed_read() {
    let mor = open_java("parquet/pk_table_scan_and_read_mor").await;
    let filters = [
        "f0 = 'Alex'",
        "f0 = 'Bob'",
        "f0 > 'C'",
        "f0 IN ('Alex', 'Skye', 'Tony')",
        "f2 = 0 AND f0 < 'N'",
        "f0 = 'Alex' AND f3 = 16.1",
        "f0 < 'M' OR f3 > 20",
        "f3 > 15",
    ];
    for snapshot in [None, Some(2), Some(4)] {
        assert_same(&mor, &filters, snapshot).await;
    }
    let partial = open_java("parquet/pk_table_partial_update").await;
    assert_same(
        &partial,
        &["k0 = 1", "k1 = 1 AND v0 > 100", "k0 >= 1 AND k1 < 1"],
        None,
    )
    .await;
    // Renamed and swapped key columns, `sequence.field` ordering.
    let evolved = open_java("parquet/pk_table_with_mor").await;
    assert_same(
        &evolved,
        &["k0 = 0", "k1 = 1 AND p0 = 0", "k0 = 1 AND s1 = 'driver'"],
        None,
    )
    .await;
    for fmt in ["parquet", "orc"] {
        let dv = open_java(&format!("{fmt}/pk_table_scan_and_read_dv")).await;
        assert_same(&dv, &["f0 = 'Alex'", "f0 > 'D' AND f3 < 20"], None).await;
    }
}

#[tokio::test]
async fn a_stale_version_never_answers_a_mixed_predicate() {
    let mor = open_java("parquet/pk_table_scan_and_read_mor").await;
    // Alex: 16.1 (commit 1), 21.2 (commit 4), deleted (commit 5).
    let alex = |v: f64| format!("f0 = 'Alex' AND f3 = {v}");
    assert!(pushed(&mor, &alex(16.1), Some(4)).await.0.is_empty());
    assert_eq!(
        pushed(&mor, &alex(21.2), Some(4)).await.0,
        ["Alex, 10, 0, 21.2"]
    );
    assert!(pushed(&mor, &alex(16.1), None).await.0.is_empty());
    assert!(pushed(&mor, &alex(21.2), None).await.0.is_empty());
    // Value conjuncts never prune or filter below the merge.
    let (_, m) = pushed(&mor, "f3 = 16.1", Some(4)).await;
    assert_eq!(
        (m.merge_row_groups_skipped, m.rows_dropped_before_merge),
        (0, 0)
    );
}

fn pypaimon_table(name: &str) -> Option<String> {
    let root = pypaimon_fixtures()?;
    Some(
        root.join("warehouse/fixtures.db")
            .join(name)
            .to_str()?
            .to_string(),
    )
}

#[tokio::test]
async fn key_predicates_on_pypaimon_pk_tables_match_the_unpushed_read() {
    let Some(merge) = pypaimon_table("pk_merge") else {
        return;
    };
    let merge = Table::open(&merge).await.unwrap();
    let filters = [
        "id = 5",
        "id < 10",
        "id >= 1000 AND id < 1050",
        "id IN (1, 2, 3, 500, 2199)",
        "id < 100 AND qty > 100",
        "id > 2150 OR name = 'gamma'",
    ];
    assert_same(&merge, &filters, None).await;
    assert_same(&merge, &filters, Some(4)).await;
    let Some(part) = pypaimon_table("pk_partitioned") else {
        return;
    };
    let part = Table::open(&part).await.unwrap();
    assert_same(
        &part,
        &[
            "id = 7",
            "id < 20 AND region = 'eu'",
            "id > 200 AND amount < 100",
            "region = 'us'",
        ],
        None,
    )
    .await;
}

#[tokio::test]
async fn pypaimon_updated_keys_keep_stale_row_semantics() {
    let Some(path) = pypaimon_table("pk_merge") else {
        return;
    };
    let table = Table::open(&path).await.unwrap();
    // Snapshot 3 is the compacted state; later commits update and delete some of its keys.
    let old = unpushed(&table, "id < 300", Some(3)).await;
    let new = unpushed(&table, "id < 300", None).await;
    let id_name = |r: &String| {
        let mut it = r.split(", ");
        (
            it.next().unwrap().to_string(),
            it.next().unwrap().to_string(),
        )
    };
    let new_pairs: Vec<(String, String)> = new.iter().map(id_name).collect();
    let mut checked = 0;
    for (id, name) in old.iter().map(id_name) {
        if new_pairs.contains(&(id.clone(), name.clone())) || name.contains('\'') {
            continue;
        }
        // The latest version of `id` changed its name (or was deleted): the old name must not
        // come back through the older level-5 record.
        let f = format!("id = {id} AND name = '{name}'");
        let (got, _) = pushed(&table, &f, None).await;
        assert!(got.is_empty(), "{f}: {got:?}");
        checked += 1;
    }
    assert!(checked > 0, "the fixture updates some keys below 300");
}

#[tokio::test]
async fn merge_path_skips_row_groups_by_key_predicates() {
    let Some(path) = pypaimon_table("pk_merge") else {
        return;
    };
    let table = Table::open(&path).await.unwrap();
    // Several level-0 files of pk_merge start above id 10: their row groups are skipped.
    let (got, m) = read_pushed(&table, "id < 10").await;
    assert_eq!(got, unpushed(&table, "id < 10", None).await);
    assert!(!got.is_empty());
    assert!(m.merge_row_groups_skipped > 0, "{m:?}");
    assert!(m.rows_dropped_before_merge > 0, "{m:?}");
    // A value-only predicate pushes nothing below the merge.
    let (_, m) = pushed(&table, "qty < 10", None).await;
    assert_eq!(m, ReadMetricsSnapshot::default());
    // Beyond every key: all row groups of all files are skipped.
    let files: usize = plan(&table, &Query::default())
        .await
        .splits
        .iter()
        .map(|s| s.as_data().files.len())
        .sum();
    let (got, m) = read_pushed(&table, "id > 100000").await;
    assert!(got.is_empty());
    assert_eq!(
        (m.merge_row_groups_skipped + m.raw_row_groups_skipped) as usize,
        files
    );
    assert!(m.merge_row_groups_skipped > 0);
    // Planned with the predicate, the same files are dropped by their key stats instead.
    let q = Query {
        filter: Some("id > 100000"),
        ..Query::default()
    };
    let p = plan(&table, &q).await;
    assert!(p.splits.is_empty());
    assert_eq!(p.metrics.files_skipped_by_stats as usize, files);
}
