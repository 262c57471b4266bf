//! Key-sorted lookups (`read::key_search`): a predicate bounding the leading primary-key column
//! (`=`, `IN`, `BETWEEN`, `>= a AND < b`, ORs of these, with or without value conjuncts) is
//! answered by a binary search of that column in each Parquet data file. For random such
//! predicates the selective read returns exactly the rows of the read with selective reads off
//! (`TableRead::with_selective(false)`), on:
//! - the random primary-key tables written by pypaimon (merge engines, levels, deletion
//!   vectors, partitions), read with batches of 2 rows so that their small files have more
//!   candidate rows than one batch (the search's threshold), as written and with their Parquet
//!   files rewritten with small pages;
//! - primary-key tables written here in Parquet and in ORC (ORC files are never searched:
//!   results must still agree), several commits, so that reads merge level-0 runs;
//! - a compacted table whose data file was rewritten unsorted (the search falls back);
//! - a file whose one PLAIN key page holds a matching row out of order far past the key: the
//!   search stops at the first value beyond the key and trusts the rest of the page sorted, as
//!   primary-key files are, so that row is not seen (the limit of the order check, pinned).
//!
//! The search must fire (files searched, rows skipped), and fall back only where keys are not
//! sorted.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use paimon_core::catalog::Table;
use paimon_core::parse_predicate;
use paimon_core::read::ReadMetricsSnapshot;
use serde_json::{json, Value};

use crate::bucket_pruning::Rng;
use crate::common::{copy_dir, generated_tables, json_rows, render};
use crate::write::{batch, create_table, write_commit};

#[derive(Default, Debug)]
struct Tally {
    reads: usize,
    non_empty: usize,
    searched: u64,
    rows_skipped: u64,
    fallbacks: u64,
}

impl Tally {
    fn add(&mut self, m: ReadMetricsSnapshot) {
        self.searched += m.key_search_files;
        self.rows_skipped += m.key_search_rows_skipped;
        self.fallbacks += m.key_search_fallbacks;
    }
}

/// Reads `filter` with selective reads on and off (batches of `batch` rows); the rows must be
/// the same.
async fn compare(table: &Table, name: &str, filter: &str, batch: usize, tally: &mut Tally) {
    let scan = table
        .scan()
        .with_predicate(parse_predicate(filter).unwrap())
        .build()
        .unwrap();
    let plan = scan.plan().await.unwrap();
    let n = NonZeroUsize::new(batch).unwrap();
    let on = scan.reader().with_batch_size(n);
    let off = scan.reader().with_batch_size(n).with_selective(false);
    let want = json_rows(&off, plan.splits.clone()).await.unwrap();
    let got = json_rows(&on, plan.splits)
        .await
        .unwrap_or_else(|e| panic!("{name} {filter}: {e}"));
    assert_eq!(render(&got), render(&want), "{name}: {filter}");
    tally.reads += 1;
    tally.non_empty += usize::from(!want.is_empty());
    tally.add(on.metrics());
}

/// Random predicates on `key` (an integer column) with values drawn from `values`, and on
/// the value column `other` when given.
fn predicates(
    rng: &mut Rng,
    key: &str,
    values: &[i64],
    other: Option<&str>,
    n: usize,
) -> Vec<String> {
    let mut out = Vec::new();
    for _ in 0..n {
        let mut v = || *rng.pick(values) + (rng.next() % 3) as i64 - 1;
        let (a, b, c) = (v(), v(), v());
        let (lo, hi) = (a.min(b), a.max(b));
        let p = match rng.next() % 7 {
            0 | 1 => format!("{key} = {a}"),
            2 => format!("{key} IN ({a}, {b}, {c})"),
            3 => format!("{key} BETWEEN {lo} AND {hi}"),
            4 => format!("{key} >= {lo} AND {key} < {hi}"),
            5 => format!("{key} = {a} OR {key} BETWEEN {lo} AND {hi}"),
            _ => match other {
                Some(o) => format!("{key} IN ({a}, {b}) AND {o} IS NOT NULL"),
                None => format!("{key} <= {c} AND {key} >= {a}"),
            },
        };
        out.push(p);
    }
    out
}

/// Key values and the name of the leading key column of `table` when it is an integer.
async fn key_values(table: &Table) -> Option<(String, Vec<i64>)> {
    let key = table.schema().trimmed_primary_keys().first()?.clone();
    let scan = table.scan().build().ok()?;
    let plan = scan.plan().await.ok()?;
    let rows = json_rows(&scan.reader(), plan.splits).await.ok()?;
    let values: Vec<i64> = rows.iter().filter_map(|r| r.get(&key)?.as_i64()).collect();
    (!values.is_empty()).then_some((key, values))
}

async fn check(path: &Path, rng: &mut Rng, batch: usize, tally: &mut Tally) {
    let name = path.display().to_string();
    let table = Table::open(path.to_str().unwrap()).await.unwrap();
    let Some((key, values)) = key_values(&table).await else {
        return;
    };
    let other = table
        .schema()
        .fields
        .iter()
        .find(|f| !table.schema().primary_keys.contains(&f.name))
        .map(|f| f.name.clone());
    for p in predicates(rng, &key, &values, other.as_deref(), 10) {
        compare(&table, &name, &p, batch, tally).await;
    }
}

fn table_dirs(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.filter_map(|e| e.ok()) {
            let p = e.path();
            if !p.is_dir() {
                continue;
            }
            if p.join("schema").is_dir() && p.join("snapshot").is_dir() {
                out.push(p);
            } else {
                stack.push(p);
            }
        }
    }
    out.sort();
    out
}

#[tokio::test]
async fn key_search_matches_plain_reads_on_random_pk_tables() {
    let Some(root) = generated_tables(
        "PAIMON_PK_RANDOM_TABLES",
        "pk-random-tables",
        "tables.json",
        "random primary-key tables",
        "run scripts/test.sh",
    ) else {
        return;
    };
    let mut rng = Rng(0x6b65_795f_7365_6172);
    let mut tally = Tally::default();
    let tables = table_dirs(&root);
    for t in &tables {
        check(t, &mut rng, 2, &mut tally).await;
    }
    // The same tables with small pages: the search runs on what page pruning kept.
    let tmp = tempfile::tempdir().unwrap();
    for t in &tables {
        let to = tmp.path().join(t.file_name().unwrap());
        copy_dir(t, &to);
        let rewritten = crate::selective::rewrite_parquet_small_pages(&to);
        if rewritten > 0 {
            check(&to, &mut rng, 2, &mut tally).await;
        }
    }
    eprintln!("{} tables, {tally:?}", tables.len());
    assert!(
        tally.reads >= 100 && tally.non_empty * 3 >= tally.reads,
        "{tally:?}"
    );
    assert!(tally.searched > 0 && tally.rows_skipped > 0, "{tally:?}");
    assert_eq!(tally.fallbacks, 0, "{tally:?}");
}

/// A primary-key table of three commits of 2,000 random keys in 0..5,000 (level-0 runs read
/// merged) in `format`.
async fn written_table(name: &str, format: &str) -> Table {
    let t = create_table(
        name,
        &[("id", "BIGINT NOT NULL"), ("v", "STRING"), ("n", "INT")],
        &[],
        &["id"],
        &[("bucket", "2"), ("file.format", format)],
    )
    .await;
    let mut rng = Rng(0x7772_6974_7465_6e00 ^ format.len() as u64);
    for c in 0..3 {
        let lines: Vec<Value> = (0..2000)
            .map(|i| {
                let id = rng.next() % 5000;
                let v = (i % 7 != 0).then(|| format!("c{c}-{i}"));
                json!({"id": id, "v": v, "n": i})
            })
            .collect();
        write_commit(&t, &[batch(&t, &lines)]).await;
    }
    Table::open(t.location()).await.unwrap()
}

#[tokio::test]
async fn key_search_on_written_parquet_and_orc_tables() {
    for format in ["parquet", "orc"] {
        let t = written_table(&format!("key_lookup_{format}"), format).await;
        let mut rng = Rng(0x6b6c_0000_0000_0001);
        let mut tally = Tally::default();
        let values: Vec<i64> = (0..5000).collect();
        for p in predicates(&mut rng, "id", &values, Some("v"), 40) {
            compare(&t, format, &p, 256, &mut tally).await;
        }
        eprintln!("{format}: {tally:?}");
        assert!(tally.non_empty * 2 >= tally.reads, "{tally:?}");
        if format == "parquet" {
            // Runs of ~1,000 rows per file (more than a batch of 256); a point lookup keeps
            // one row of each.
            assert!(tally.searched > 0 && tally.rows_skipped > 1000, "{tally:?}");
        } else {
            assert_eq!(tally.searched + tally.fallbacks, 0, "{tally:?}");
        }
        assert_eq!(tally.fallbacks, 0, "{tally:?}");
    }
}

/// Rewrites every Parquet data file under `dir` with its rows in reverse order; how many.
fn reverse_rows(dir: &Path) -> usize {
    let reverse = |batches: Vec<arrow_array::RecordBatch>| {
        batches
            .iter()
            .rev()
            .map(|b| {
                let n = u32::try_from(b.num_rows()).unwrap();
                let idx = arrow_array::UInt32Array::from_iter_values((0..n).rev());
                arrow_select::take::take_record_batch(b, &idx).unwrap()
            })
            .collect()
    };
    crate::selective::parquet_data_files(dir)
        .iter()
        .filter(|f| crate::selective::rewrite_parquet_with(f, reverse, &[1, 2, 4]))
        .count()
}

#[tokio::test]
async fn unsorted_keys_fall_back() {
    let t = written_table("key_lookup_unsorted", "parquet").await;
    let tmp = tempfile::tempdir().unwrap();
    let to = tmp.path().join("t");
    copy_dir(Path::new(t.location()), &to);
    assert!(reverse_rows(&to) > 0);
    let table = Table::open(to.to_str().unwrap()).await.unwrap();
    let mut tally = Tally::default();
    for p in ["id = 17", "id IN (1, 2000, 4999)", "id BETWEEN 100 AND 300"] {
        compare(&table, "reversed", p, 256, &mut tally).await;
    }
    assert!(tally.fallbacks > 0, "{tally:?}");
    assert_eq!(tally.searched, 0, "{tally:?}");
}

/// Rewrites every Parquet data file under `dir` as one PLAIN page per column with the row of
/// key `id` moved to the end; how many.
fn move_row_to_end(dir: &Path, id: i64) -> usize {
    let moved = move |batches: Vec<arrow_array::RecordBatch>| {
        let all = arrow_select::concat::concat_batches(&batches[0].schema(), &batches).unwrap();
        let ids = all
            .column_by_name("id")
            .unwrap()
            .as_any()
            .downcast_ref::<arrow_array::Int64Array>()
            .unwrap();
        let at = ids.iter().position(|v| v == Some(id)).unwrap();
        let n = u32::try_from(all.num_rows()).unwrap();
        let order = (0..n).filter(|&i| i as usize != at).chain([at as u32]);
        let idx = arrow_array::UInt32Array::from_iter_values(order);
        vec![arrow_select::take::take_record_batch(&all, &idx).unwrap()]
    };
    crate::selective::parquet_data_files(dir)
        .iter()
        .filter(|f| crate::selective::rewrite_parquet_as(f, moved, &[1], &[false]))
        .count()
}

#[tokio::test]
async fn a_lookup_stops_at_the_key() {
    lookup_stops_at_the_key("key_lookup_moved").await;
}

/// The same on two workers, where the point read picks its columns on both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lookup_stops_at_the_key_on_workers() {
    lookup_stops_at_the_key("key_lookup_moved_mt").await;
}

async fn lookup_stops_at_the_key(name: &str) {
    // 20,000 keys in one file of one bucket: a lookup stops searching the key page after a
    // step of 4,096 values. With the row of key 100 moved to the page's end, other keys are
    // found as before, and key 100 is not: the page's rest is trusted sorted, not checked.
    let t = create_table(
        name,
        &[("id", "BIGINT NOT NULL"), ("v", "STRING")],
        &[],
        &["id"],
        &[("bucket", "1"), ("file.format", "parquet")],
    )
    .await;
    let lines: Vec<Value> = (0..20_000)
        .map(|i| json!({"id": i, "v": format!("v{i}")}))
        .collect();
    write_commit(&t, &[batch(&t, &lines)]).await;
    let mut tally = Tally::default();
    for p in ["id = 100", "id = 15000"] {
        compare(&t, "sorted", p, 256, &mut tally).await;
    }
    assert_eq!((tally.searched, tally.fallbacks), (2, 0), "{tally:?}");
    let tmp = tempfile::tempdir().unwrap();
    let to = tmp.path().join("t");
    copy_dir(Path::new(t.location()), &to);
    assert_eq!(move_row_to_end(&to, 100), 1);
    let table = Table::open(to.to_str().unwrap()).await.unwrap();
    let mut tally = Tally::default();
    for p in ["id = 101", "id IN (5000, 7)"] {
        compare(&table, "moved", p, 256, &mut tally).await;
    }
    assert_eq!((tally.searched, tally.fallbacks), (2, 0), "{tally:?}");
    let scan = table
        .scan()
        .with_predicate(parse_predicate("id = 100").unwrap())
        .build()
        .unwrap();
    let plan = scan.plan().await.unwrap();
    let n = NonZeroUsize::new(256).unwrap();
    let on = scan.reader().with_batch_size(n);
    let off = scan.reader().with_batch_size(n).with_selective(false);
    assert_eq!(json_rows(&off, plan.splits.clone()).await.unwrap().len(), 1);
    assert_eq!(json_rows(&on, plan.splits).await.unwrap().len(), 0);
    assert_eq!(on.metrics().key_search_files, 1);
}
