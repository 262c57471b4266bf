//! The primary-key global index (pk-btree) on random tables written by paimon-rs: deletion-vector
//! primary-key tables (1-4 buckets, Parquet and ORC) with `pk-btree.index.columns = k`, built by
//! our writer, compaction and `build_pk_btree_index`, then changed step by step: level-0 upserts
//! and deletes (invisible until compacted, as with Java's deletion-vector tables), full
//! compactions of every bucket or of one bucket (payloads rebuilt), a compaction that keeps the
//! old payloads (all their sources retired), a rewrite of one compacted file (one source of a
//! payload retired, the others still covered), and ALTERs of unrelated columns (add a column,
//! rename another, set an option). After every step, random predicates on `k` (=, <, <=, >, >=,
//! IN, BETWEEN, IS NULL, IS NOT NULL, AND/OR with unindexed columns) must read exactly the rows
//! of an in-memory model, with the index and with `global-index.enabled = false`; predicates the
//! index cannot evaluate must not be narrowed, and the index must narrow most of the others.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use paimon_core::bucket::{BucketFunction, BucketFunctionType};
use paimon_core::commit::{build_pk_btree_index, CommitMessage};
use paimon_core::scan::Plan;
use paimon_core::spec::binary_row::BinaryRow;
use paimon_core::spec::datum::Datum;
use paimon_core::spec::types::{DataType, TypeKind};
use paimon_core::{RowKind, SchemaChange, Table};
use serde_json::{json, Value};

use crate::common::json_rows;
use crate::write::{batch, create_table};

/// SplitMix64: a small seeded generator, so every case is reproducible from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn int(&mut self, lo: i32, hi: i32) -> i32 {
        lo + self.below((hi - lo) as u64) as i32
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// One row's non-key columns; `x` is the column added by an ALTER (null before).
#[derive(Debug, Clone, PartialEq)]
struct Row {
    k: Option<i32>,
    s: Option<String>,
    v: Option<f64>,
    x: Option<i32>,
}

/// Distinct values of the indexed column (plus nulls).
const K_VALUES: i32 = 40;

fn random_row(rng: &mut Rng, has_x: bool) -> Row {
    Row {
        k: (!rng.chance(10)).then(|| rng.int(0, K_VALUES)),
        s: (!rng.chance(10)).then(|| ["a", "b", "c", "d"][rng.below(4) as usize].to_string()),
        v: (!rng.chance(10)).then(|| f64::from(rng.int(-40, 40)) / 4.0),
        x: (has_x && !rng.chance(20)).then(|| rng.int(0, 5)),
    }
}

/// A three-valued function of (id, row): `None` is SQL's unknown.
type Eval = Box<dyn Fn(i64, &Row) -> Option<bool>>;

/// A predicate as SQL text and as a three-valued function of (id, row).
struct Pred {
    sql: String,
    eval: Eval,
    /// Whether the index can evaluate it (an indexed leaf in an AND, or only indexed leaves in
    /// an OR).
    indexed: bool,
}

fn leaf(sql: String, indexed: bool, eval: impl Fn(i64, &Row) -> Option<bool> + 'static) -> Pred {
    Pred {
        sql,
        eval: Box::new(eval),
        indexed,
    }
}

fn k_leaf(rng: &mut Rng) -> Pred {
    let c = rng.int(-2, K_VALUES + 2);
    match rng.below(9) {
        0 => leaf(format!("k = {c}"), true, move |_, r| r.k.map(|k| k == c)),
        1 => leaf(format!("k < {c}"), true, move |_, r| r.k.map(|k| k < c)),
        2 => leaf(format!("k <= {c}"), true, move |_, r| r.k.map(|k| k <= c)),
        3 => leaf(format!("k > {c}"), true, move |_, r| r.k.map(|k| k > c)),
        4 => leaf(format!("k >= {c}"), true, move |_, r| r.k.map(|k| k >= c)),
        5 => {
            let set: Vec<i32> = (0..1 + rng.below(4))
                .map(|_| rng.int(-2, K_VALUES + 2))
                .collect();
            let text = set
                .iter()
                .map(i32::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            leaf(format!("k IN ({text})"), true, move |_, r| {
                r.k.map(|k| set.contains(&k))
            })
        }
        6 => {
            let hi = c + rng.int(0, 8);
            leaf(format!("k BETWEEN {c} AND {hi}"), true, move |_, r| {
                r.k.map(|k| (c..=hi).contains(&k))
            })
        }
        7 => leaf("k IS NULL".into(), true, |_, r| Some(r.k.is_none())),
        _ => leaf("k IS NOT NULL".into(), true, |_, r| Some(r.k.is_some())),
    }
}

fn other_leaf(rng: &mut Rng, s_name: &str) -> Pred {
    match rng.below(4) {
        0 => {
            let c = rng.below(2000) as i64;
            leaf(format!("id < {c}"), false, move |id, _| Some(id < c))
        }
        1 => {
            let c = f64::from(rng.int(-10, 10));
            leaf(format!("v > {c:.1}"), false, move |_, r| r.v.map(|v| v > c))
        }
        2 => {
            let c = ["a", "b", "c", "d"][rng.below(4) as usize];
            leaf(format!("{s_name} = '{c}'"), false, move |_, r| {
                r.s.as_ref().map(|s| s == c)
            })
        }
        _ => leaf(format!("{s_name} IS NULL"), false, |_, r| {
            Some(r.s.is_none())
        }),
    }
}

fn and(a: Pred, b: Pred) -> Pred {
    let indexed = a.indexed || b.indexed;
    let (ea, eb) = (a.eval, b.eval);
    Pred {
        sql: format!("({}) AND ({})", a.sql, b.sql),
        eval: Box::new(move |id, r| match (ea(id, r), eb(id, r)) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        }),
        indexed,
    }
}

fn or(a: Pred, b: Pred) -> Pred {
    let indexed = a.indexed && b.indexed;
    let (ea, eb) = (a.eval, b.eval);
    Pred {
        sql: format!("({}) OR ({})", a.sql, b.sql),
        eval: Box::new(move |id, r| match (ea(id, r), eb(id, r)) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        }),
        indexed,
    }
}

fn random_pred(rng: &mut Rng, s_name: &str) -> Pred {
    match rng.below(20) {
        0..=8 => k_leaf(rng),
        9..=11 => and(k_leaf(rng), other_leaf(rng, s_name)),
        12 | 13 => and(k_leaf(rng), k_leaf(rng)),
        14 | 15 => or(k_leaf(rng), k_leaf(rng)),
        16 | 17 => or(k_leaf(rng), other_leaf(rng, s_name)),
        _ => and(or(k_leaf(rng), k_leaf(rng)), other_leaf(rng, s_name)),
    }
}

/// The table, its model and what the checks saw.
struct State {
    t: Table,
    rng: Rng,
    buckets: i32,
    keys: i64,
    s_name: String,
    renames: usize,
    has_x: bool,
    /// Every written row (level 0 included).
    latest: BTreeMap<i64, Row>,
    /// What a batch read shows: each bucket as of its last compaction.
    visible: BTreeMap<i64, Row>,
    bucket_fn: BucketFunction,
    /// (indexed queries, of them narrowed or dropped files) over the whole case.
    indexed_queries: usize,
    narrowed_queries: usize,
    retired: usize,
}

impl State {
    fn bucket(&self, id: i64) -> i32 {
        let key_type = DataType::not_null(TypeKind::BigInt);
        let row = BinaryRow::encode(&[Some(Datum::BigInt(id))], &[key_type]).unwrap();
        self.bucket_fn.bucket(&row, self.buckets).unwrap()
    }

    async fn reopen(&mut self) {
        self.t = Table::open(self.t.location()).await.unwrap();
    }

    /// Level-0 upserts and deletes, written as Java's writer does for deletion-vector tables
    /// (through `deletion-vectors.merge-on-read`, as compaction's own writer).
    async fn write(&mut self, ids: &[i64], deletes: u64) {
        let mut lines = Vec::new();
        let mut kinds = Vec::new();
        for &id in ids {
            let row = random_row(&mut self.rng, self.has_x);
            let delete = self.rng.chance(deletes);
            let mut line = json!({"id": id, "k": row.k, "v": row.v});
            line[self.s_name.as_str()] = json!(row.s);
            if self.has_x {
                line["x"] = json!(row.x);
            }
            lines.push(line);
            if delete {
                kinds.push(RowKind::Delete);
                self.latest.remove(&id);
            } else {
                kinds.push(RowKind::Insert);
                self.latest.insert(id, row);
            }
        }
        let mut o = HashMap::new();
        o.insert("deletion-vectors.merge-on-read".to_string(), "true".into());
        // Level 0 only: the compactions are the test's own steps.
        o.insert("write-only".to_string(), "true".into());
        let mut w = self
            .t
            .with_options(&o)
            .unwrap()
            .new_write()
            .with_commit_user("pk-index-random")
            .build()
            .unwrap();
        w.write_with_kinds(&batch(&self.t, &lines), &kinds)
            .await
            .unwrap();
        let messages = w.prepare_commit().await.unwrap();
        self.t
            .new_commit()
            .commit_messages(&messages, w.commit_user())
            .await
            .unwrap();
    }

    /// Makes the compacted buckets show their latest rows.
    fn compacted(&mut self, buckets: &BTreeSet<i32>) {
        let ids: BTreeSet<i64> = self
            .latest
            .keys()
            .chain(self.visible.keys())
            .copied()
            .collect();
        for id in ids {
            if buckets.contains(&self.bucket(id)) {
                match self.latest.get(&id) {
                    Some(r) => self.visible.insert(id, r.clone()),
                    None => self.visible.remove(&id),
                };
            }
        }
    }

    /// A full compaction of every bucket or of one; `keep_index` compacts through a table
    /// without index definitions, so the bucket's old payloads stay and all their sources are
    /// retired.
    async fn compact(&mut self, bucket: Option<i32>, keep_index: bool) {
        let mut t = self.t.clone();
        if keep_index {
            let mut o = HashMap::new();
            o.insert("pk-btree.index.columns".to_string(), String::new());
            t = t.with_options(&o).unwrap();
        }
        let mut c = t.compact().full(true).with_commit_user("pk-index-random");
        if let Some(b) = bucket {
            c = c.with_bucket(b);
        }
        let report = c.execute().await.unwrap_or_else(|e| {
            panic!(
                "{e}: columns {:?}, schema {}",
                self.t.options().pk_btree_index_columns,
                self.t.schema().id
            )
        });
        let done: BTreeSet<i32> = report.buckets.iter().map(|b| b.bucket).collect();
        if let Some(b) = bucket {
            assert!(done.iter().all(|d| *d == b), "{report:?}");
        }
        self.compacted(&done);
    }

    /// Replaces one compacted file of a multi-file bucket by a copy under a new name (a
    /// compaction that keeps the rows): the bucket's payload keeps the old file as a retired
    /// source and still covers the others.
    async fn rewrite_one_file(&mut self) -> bool {
        let plan = self
            .t
            .scan()
            .with_option("global-index.enabled", "false")
            .build()
            .unwrap()
            .plan()
            .await
            .unwrap();
        let mut by_bucket: BTreeMap<i32, Vec<_>> = BTreeMap::new();
        for s in &plan.splits {
            let d = s.as_data();
            for f in &d.files {
                by_bucket
                    .entry(d.bucket)
                    .or_default()
                    .push((d.clone(), f.clone()));
            }
        }
        let candidates: Vec<_> = by_bucket.values().filter(|v| v.len() > 1).collect();
        if candidates.is_empty() {
            return false;
        }
        let files = candidates[self.rng.below(candidates.len() as u64) as usize];
        let (split, file) = files[self.rng.below(files.len() as u64) as usize].clone();
        let ext = file.file_name.rsplit('.').next().unwrap();
        let name = format!(
            "data-{:08x}-0000-4000-8000-{:012x}-0.{ext}",
            self.rng.next() as u32,
            self.rng.next() & 0xffff_ffff_ffff
        );
        let dir = Path::new(self.t.location()).join(format!("bucket-{}", split.bucket));
        std::fs::copy(dir.join(&file.file_name), dir.join(&name)).unwrap();
        let mut copy = file.clone();
        copy.file_name = name;
        let mut m = CommitMessage::new(split.partition.clone(), split.bucket, split.total_buckets);
        m.compact_before = vec![file];
        m.compact_after = vec![copy];
        self.t
            .new_commit()
            .commit_messages(&[m], "pk-index-random")
            .await
            .unwrap();
        self.retired += 1;
        true
    }

    async fn alter(&mut self) {
        let change = match self.rng.below(3) {
            0 if !self.has_x => {
                self.has_x = true;
                SchemaChange::add_column("x", DataType::nullable(TypeKind::Int))
            }
            1 => {
                self.renames += 1;
                let to = format!("s{}", self.renames);
                let from = std::mem::replace(&mut self.s_name, to.clone());
                SchemaChange::rename_column(from, to)
            }
            _ => SchemaChange::set_option(
                "snapshot.num-retained.max",
                (100 + self.rng.below(100)).to_string(),
            ),
        };
        self.t = self.t.alter(&[change]).await.unwrap();
    }

    /// Plans and reads `sql` with the index on or off: the plan and the rows.
    async fn read(&self, sql: &str, enabled: bool) -> (Plan, Vec<String>) {
        let mut cols = vec!["id", "k", self.s_name.as_str(), "v"];
        if self.has_x {
            cols.push("x");
        }
        let scan = self
            .t
            .scan()
            .with_filter(sql)
            .unwrap()
            .select(cols)
            .unwrap()
            .with_option("global-index.enabled", enabled.to_string())
            .build()
            .unwrap();
        let plan = scan.plan().await.unwrap();
        let rows = json_rows(&scan.reader(), plan.splits.clone())
            .await
            .unwrap_or_else(|e| panic!("`{sql}` (index {enabled}): {e}"));
        let mut out: Vec<String> = rows
            .iter()
            .map(|r| {
                r.values()
                    .map(Value::to_string)
                    .collect::<Vec<_>>()
                    .join("|")
            })
            .collect();
        out.sort();
        (plan, out)
    }

    fn expected(&self, p: &Pred) -> Vec<String> {
        let mut out: Vec<String> = self
            .visible
            .iter()
            .filter(|(id, r)| (p.eval)(**id, r) == Some(true))
            .map(|(id, r)| {
                let mut v = vec![json!(id), json!(r.k), json!(r.s), json!(r.v)];
                if self.has_x {
                    v.push(json!(r.x));
                }
                v.iter().map(Value::to_string).collect::<Vec<_>>().join("|")
            })
            .collect();
        out.sort();
        out
    }

    /// Random queries: the model's rows with and without the index.
    async fn check(&mut self, step: &str, queries: usize) {
        for _ in 0..queries {
            let p = random_pred(&mut self.rng, &self.s_name.clone());
            let want = self.expected(&p);
            let (on_plan, on) = self.read(&p.sql, true).await;
            let (off_plan, off) = self.read(&p.sql, false).await;
            let m = &on_plan.metrics.global_index;
            let ctx = format!("{} after {step}: `{}` {m:?}", self.t.location(), p.sql);
            assert_eq!(off, want, "without the index: {ctx}");
            assert_eq!(on, want, "with the index: {ctx}");
            assert_eq!(off_plan.metrics.global_index.skipped, "disabled");
            assert!(off_plan
                .splits
                .iter()
                .all(|s| s.as_data().row_ranges.is_none()));
            if p.indexed {
                assert_eq!(m.skipped, "", "{ctx}");
                self.indexed_queries += 1;
                self.narrowed_queries += usize::from(m.files_narrowed + m.files_dropped > 0);
            } else {
                assert_eq!(m.skipped, "no indexed predicate", "{ctx}");
                assert!(on_plan
                    .splits
                    .iter()
                    .all(|s| s.as_data().row_ranges.is_none()));
            }
        }
    }
}

async fn run_case(seed: u64) -> (usize, usize, usize) {
    let mut rng = Rng(seed);
    let buckets = 1 + (seed % 4) as i32;
    let format = ["parquet", "orc"][(seed / 4 % 2) as usize];
    // Half of the cases hold more than 1000 rows per bucket and a tiny target file size, so a
    // compacted bucket is several files (payload groups of several sources).
    let rolling = seed % 2 == 0;
    let keys = i64::from(buckets) * if rolling { 1100 } else { 150 };
    let name = format!("pk_index_random_{seed}");
    let bucket = buckets.to_string();
    let mut options = vec![
        ("bucket", bucket.as_str()),
        ("deletion-vectors.enabled", "true"),
        ("pk-btree.index.columns", "k"),
        // Small BTree blocks: lookups cross block boundaries. (A per-field
        // `fields.k.pk-btree.index.options` would make every ALTER fail our schema validation,
        // which takes `k.pk-btree.index` for the column name.)
        ("btree-index.block-size", "1 kb"),
        ("file.format", format),
    ];
    if rolling {
        options.push(("target-file-size", "1 kb"));
    }
    let t = create_table(
        &name,
        &[
            ("id", "BIGINT NOT NULL"),
            ("k", "INT"),
            ("s", "STRING"),
            ("v", "DOUBLE"),
        ],
        &[],
        &["id"],
        &options,
    )
    .await;
    let key_type = DataType::not_null(TypeKind::BigInt);
    let mut st = State {
        t,
        rng: Rng(rng.next()),
        buckets,
        keys,
        s_name: "s".into(),
        renames: 0,
        has_x: false,
        latest: BTreeMap::new(),
        visible: BTreeMap::new(),
        bucket_fn: BucketFunction::new(BucketFunctionType::Default, vec![key_type]).unwrap(),
        indexed_queries: 0,
        narrowed_queries: 0,
        retired: 0,
    };
    let all: Vec<i64> = (0..keys).collect();
    st.write(&all, 0).await;
    st.check("a level-0 write", 2).await;
    st.compact(None, false).await;
    st.check("the first compaction", 6).await;
    for i in 0..8 {
        let kind = rng.below(12);
        eprintln!("seed {seed} step {i}: kind {kind}");
        let step = match kind {
            0..=3 => {
                let n = 20 + rng.below(200);
                let ids: Vec<i64> = (0..n).map(|_| rng.below(st.keys as u64) as i64).collect();
                st.write(&ids, 25).await;
                "write"
            }
            4 => {
                st.compact(None, false).await;
                "full compaction"
            }
            5 | 6 => {
                st.compact(Some(rng.below(buckets as u64) as i32), false)
                    .await;
                "bucket compaction"
            }
            7 => {
                st.compact(Some(rng.below(buckets as u64) as i32), true)
                    .await;
                "compaction keeping payloads"
            }
            8 => {
                build_pk_btree_index(&st.t, "k", "pk-index-random")
                    .await
                    .unwrap();
                "index build"
            }
            9 => {
                if st.rewrite_one_file().await {
                    "file rewrite"
                } else {
                    "no file to rewrite"
                }
            }
            _ => {
                st.alter().await;
                "alter"
            }
        };
        st.reopen().await;
        st.check(&format!("step {i} ({step})"), 5).await;
    }
    let _ = std::fs::remove_dir_all(st.t.location());
    (st.indexed_queries, st.narrowed_queries, st.retired)
}

/// 8 seeds: bucket counts 1-4, Parquet and ORC, single- and multi-file buckets.
#[tokio::test]
async fn random_pk_btree_tables_read_like_the_model() {
    let (mut indexed, mut narrowed, mut retired) = (0, 0, 0);
    for seed in 0..8 {
        let (i, n, r) = run_case(seed).await;
        indexed += i;
        narrowed += n;
        retired += r;
    }
    assert!(
        narrowed * 2 >= indexed,
        "the index narrowed only {narrowed} of {indexed} indexed queries"
    );
    eprintln!("{narrowed} of {indexed} indexed queries narrowed; {retired} sources retired");
}
