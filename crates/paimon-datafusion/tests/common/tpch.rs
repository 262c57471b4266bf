//! Deterministic TPC-H-like data written through paimon-rs's own writer, with the final
//! logical rows kept as a model.
//!
//! Seven tables at a tiny scale (`lineitem` ≈ 6 000 rows, `orders` 1 500, `customer` 300,
//! `part` 200, `supplier` 40, `nation` 25, `region` 5), TPC-H's columns with `DECIMAL(15, 2)`
//! money, `DATE`s and `STRING`s (no floating point, so every aggregate is exact). Layouts:
//!
//! - `lineitem`: append table partitioned by `l_shipmode`, 2 buckets on `l_orderkey`,
//!   3 commits;
//! - `orders`: primary key `(o_orderkey, o_orderpriority)`, partitioned by `o_orderpriority`,
//!   2 buckets; 3 insert commits, one of updates (`+U`), one of deletes (`-D`);
//! - `customer`: primary key, 4 buckets; 2 insert commits, updates (`-U`/`+U` pairs and
//!   lone `+U`), deletes; `part`: primary key, 3 buckets, inserts then updates;
//!   `supplier`: primary key, 2 buckets, inserts then deletes;
//! - `nation`: primary key, 1 bucket; `region`: append table without buckets.
//!
//! Only paimon-core is used here (no DataFusion), so other engines' tests (Ballista) can include
//! this file (`#[path = ".../paimon-datafusion/tests/common/tpch.rs"] mod tpch;`):
//! [`generate`] builds the tables and their commits, [`TpchTable::write`] creates and writes
//! one through `table.new_write()`, [`TpchTable::final_batch`] is the model's final rows.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{
    ArrayRef, Date32Builder, Decimal128Builder, Int32Builder, Int64Builder, RecordBatch,
    StringBuilder,
};
use arrow::datatypes::{DataType as ArrowType, SchemaRef};
use paimon_core::spec::type_text::parse_type;
use paimon_core::{FileSystemCatalog, Identifier, RowKind, Schema, Table};

/// One cell.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum V {
    /// INT.
    I(i32),
    /// BIGINT.
    L(i64),
    /// STRING.
    S(String),
    /// DECIMAL(15, 2), in cents.
    D(i128),
    /// DATE, days since the epoch.
    Date(i32),
}

/// A row: one cell per column.
pub type Row = Vec<V>;

/// A table: columns (name, Paimon type text), layout, and its commits in order.
#[derive(Debug, Clone)]
pub struct TpchTable {
    /// Table name.
    pub name: &'static str,
    /// Columns: name and type (`INT`, `BIGINT NOT NULL`, `STRING`, `DECIMAL(15, 2)`, `DATE`).
    pub columns: Vec<(&'static str, &'static str)>,
    /// Primary key (empty: append table).
    pub primary_key: Vec<&'static str>,
    /// Partition keys.
    pub partition: Vec<&'static str>,
    /// Table options.
    pub options: Vec<(&'static str, &'static str)>,
    /// Commits: rows with their kinds (append tables: inserts only).
    pub commits: Vec<Vec<(Row, RowKind)>>,
}

/// splitmix64: a small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.range(0, items.len() as i64 - 1) as usize]
    }

    fn text(&mut self, words: usize) -> String {
        const WORDS: [&str; 16] = [
            "furiously",
            "special",
            "requests",
            "carefully",
            "final",
            "deposits",
            "blithely",
            "regular",
            "accounts",
            "pending",
            "ironic",
            "packages",
            "quickly",
            "express",
            "bold",
            "theodolites",
        ];
        (0..words)
            .map(|_| self.pick(&WORDS))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Days since 1970-01-01 of 1992-01-01 (TPC-H's first order date).
const START_DATE: i32 = 8035;
/// Order dates span 1992-01-01 .. 1998-08-02.
const DATE_SPAN: i64 = 2405;

const SEGMENTS: [&str; 5] = [
    "AUTOMOBILE",
    "BUILDING",
    "FURNITURE",
    "HOUSEHOLD",
    "MACHINERY",
];
const PRIORITIES: [&str; 5] = ["1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"];
const SHIPMODES: [&str; 7] = ["AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"];
const INSTRUCT: [&str; 4] = [
    "COLLECT COD",
    "DELIVER IN PERSON",
    "NONE",
    "TAKE BACK RETURN",
];
const TYPES_1: [&str; 6] = ["STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"];
const TYPES_2: [&str; 5] = ["ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"];
const TYPES_3: [&str; 5] = ["TIN", "NICKEL", "BRASS", "STEEL", "COPPER"];
const CONTAINERS: [&str; 8] = [
    "SM CASE",
    "SM BOX",
    "MED BAG",
    "MED BOX",
    "LG CASE",
    "LG BOX",
    "JUMBO PKG",
    "WRAP PACK",
];
const REGIONS: [&str; 5] = ["AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"];
const NATIONS: [(&str, i32); 25] = [
    ("ALGERIA", 0),
    ("ARGENTINA", 1),
    ("BRAZIL", 1),
    ("CANADA", 1),
    ("EGYPT", 4),
    ("ETHIOPIA", 0),
    ("FRANCE", 3),
    ("GERMANY", 3),
    ("INDIA", 2),
    ("INDONESIA", 2),
    ("IRAN", 4),
    ("IRAQ", 4),
    ("JAPAN", 2),
    ("JORDAN", 4),
    ("KENYA", 0),
    ("MOROCCO", 0),
    ("MOZAMBIQUE", 0),
    ("PERU", 1),
    ("CHINA", 2),
    ("ROMANIA", 3),
    ("SAUDI ARABIA", 4),
    ("VIETNAM", 2),
    ("RUSSIA", 3),
    ("UNITED KINGDOM", 3),
    ("UNITED STATES", 1),
];

/// Table sizes at this scale.
const SUPPLIERS: i64 = 40;
const CUSTOMERS: i64 = 300;
const PARTS: i64 = 200;
const ORDERS: i64 = 1500;

fn s(v: impl Into<String>) -> V {
    V::S(v.into())
}

fn inserts(rows: impl IntoIterator<Item = Row>) -> Vec<(Row, RowKind)> {
    rows.into_iter().map(|r| (r, RowKind::Insert)).collect()
}

fn phone(rng: &mut Rng, nation: i32) -> V {
    s(format!(
        "{}-{}-{}-{}",
        nation + 10,
        rng.range(100, 999),
        rng.range(100, 999),
        rng.range(1000, 9999)
    ))
}

fn region() -> TpchTable {
    let mut rng = Rng(1);
    let rows = REGIONS
        .iter()
        .enumerate()
        .map(|(i, r)| vec![V::I(i as i32), s(*r), s(rng.text(4))]);
    TpchTable {
        name: "region",
        columns: vec![
            ("r_regionkey", "INT NOT NULL"),
            ("r_name", "STRING"),
            ("r_comment", "STRING"),
        ],
        primary_key: vec![],
        partition: vec![],
        options: vec![("bucket", "-1")],
        commits: vec![inserts(rows)],
    }
}

fn nation() -> TpchTable {
    let mut rng = Rng(2);
    let rows = NATIONS
        .iter()
        .enumerate()
        .map(|(i, (n, r))| vec![V::I(i as i32), s(*n), V::I(*r), s(rng.text(5))]);
    TpchTable {
        name: "nation",
        columns: vec![
            ("n_nationkey", "INT NOT NULL"),
            ("n_name", "STRING"),
            ("n_regionkey", "INT"),
            ("n_comment", "STRING"),
        ],
        primary_key: vec!["n_nationkey"],
        partition: vec![],
        options: vec![("bucket", "1")],
        commits: vec![inserts(rows)],
    }
}

fn supplier() -> TpchTable {
    let mut rng = Rng(3);
    let rows: Vec<Row> = (1..=SUPPLIERS)
        .map(|k| {
            let nation = rng.range(0, 24) as i32;
            vec![
                V::L(k),
                s(format!("Supplier#{k:09}")),
                s(rng.text(2)),
                V::I(nation),
                phone(&mut rng, nation),
                V::D(i128::from(rng.range(-99_999, 999_999))),
                s(rng.text(6)),
            ]
        })
        .collect();
    // Every seventh supplier deleted (the delete record carries the old values).
    let deletes: Vec<(Row, RowKind)> = rows
        .iter()
        .filter(|r| matches!(r[0], V::L(k) if k % 7 == 0))
        .map(|r| (r.clone(), RowKind::Delete))
        .collect();
    TpchTable {
        name: "supplier",
        columns: vec![
            ("s_suppkey", "BIGINT NOT NULL"),
            ("s_name", "STRING"),
            ("s_address", "STRING"),
            ("s_nationkey", "INT"),
            ("s_phone", "STRING"),
            ("s_acctbal", "DECIMAL(15, 2)"),
            ("s_comment", "STRING"),
        ],
        primary_key: vec!["s_suppkey"],
        partition: vec![],
        options: vec![("bucket", "2")],
        commits: vec![inserts(rows), deletes],
    }
}

fn customer() -> TpchTable {
    let mut rng = Rng(4);
    let rows: Vec<Row> = (1..=CUSTOMERS)
        .map(|k| {
            let nation = rng.range(0, 24) as i32;
            vec![
                V::L(k),
                s(format!("Customer#{k:09}")),
                s(rng.text(2)),
                V::I(nation),
                phone(&mut rng, nation),
                V::D(i128::from(rng.range(-99_999, 999_999))),
                s(rng.pick(&SEGMENTS)),
                s(rng.text(5)),
            ]
        })
        .collect();
    let (first, second) = rows.split_at(rows.len() / 2);
    let mut updates = Vec::new();
    for r in rows
        .iter()
        .filter(|r| matches!(r[0], V::L(k) if k % 10 == 3))
    {
        let mut after = r.clone();
        after[5] = V::D(i128::from(rng.range(-99_999, 999_999)));
        after[6] = s(rng.pick(&SEGMENTS));
        if matches!(r[0], V::L(k) if k % 20 == 3) {
            updates.push((r.clone(), RowKind::UpdateBefore));
        }
        updates.push((after, RowKind::UpdateAfter));
    }
    let deletes: Vec<(Row, RowKind)> = rows
        .iter()
        .filter(|r| matches!(r[0], V::L(k) if k % 17 == 5))
        .map(|r| (r.clone(), RowKind::Delete))
        .collect();
    TpchTable {
        name: "customer",
        columns: vec![
            ("c_custkey", "BIGINT NOT NULL"),
            ("c_name", "STRING"),
            ("c_address", "STRING"),
            ("c_nationkey", "INT"),
            ("c_phone", "STRING"),
            ("c_acctbal", "DECIMAL(15, 2)"),
            ("c_mktsegment", "STRING"),
            ("c_comment", "STRING"),
        ],
        primary_key: vec!["c_custkey"],
        partition: vec![],
        options: vec![("bucket", "4")],
        commits: vec![
            inserts(first.to_vec()),
            inserts(second.to_vec()),
            updates,
            deletes,
        ],
    }
}

fn part() -> TpchTable {
    let mut rng = Rng(5);
    let rows: Vec<Row> = (1..=PARTS)
        .map(|k| {
            let m = rng.range(1, 5);
            let ty = format!(
                "{} {} {}",
                rng.pick(&TYPES_1),
                rng.pick(&TYPES_2),
                rng.pick(&TYPES_3)
            );
            vec![
                V::L(k),
                s(rng.text(3)),
                s(format!("Manufacturer#{m}")),
                s(format!("Brand#{m}{}", rng.range(1, 5))),
                s(ty),
                V::I(rng.range(1, 50) as i32),
                s(rng.pick(&CONTAINERS)),
                V::D(i128::from(90_000 + (k % 200) * 100 + rng.range(0, 99))),
            ]
        })
        .collect();
    let updates: Vec<(Row, RowKind)> = rows
        .iter()
        .filter(|r| matches!(r[0], V::L(k) if k % 9 == 1))
        .map(|r| {
            let mut after = r.clone();
            after[7] = V::D(i128::from(rng.range(90_000, 200_000)));
            (after, RowKind::UpdateAfter)
        })
        .collect();
    TpchTable {
        name: "part",
        columns: vec![
            ("p_partkey", "BIGINT NOT NULL"),
            ("p_name", "STRING"),
            ("p_mfgr", "STRING"),
            ("p_brand", "STRING"),
            ("p_type", "STRING"),
            ("p_size", "INT"),
            ("p_container", "STRING"),
            ("p_retailprice", "DECIMAL(15, 2)"),
        ],
        primary_key: vec!["p_partkey"],
        partition: vec![],
        options: vec![("bucket", "3")],
        commits: vec![inserts(rows), updates],
    }
}

/// `orders` and `lineitem` together (line items belong to orders).
fn orders_and_lineitem() -> (TpchTable, TpchTable) {
    let mut rng = Rng(6);
    let mut orders: Vec<Row> = Vec::new();
    let mut lines: Vec<Row> = Vec::new();
    for k in 1..=ORDERS {
        // TPC-H leaves every third customer without orders.
        let mut cust = rng.range(1, CUSTOMERS);
        if cust % 3 == 0 {
            cust += 1;
        }
        let date = START_DATE + rng.range(0, DATE_SPAN) as i32;
        let n = rng.range(1, 7);
        let mut total = 0i128;
        let mut shipped = 0;
        for ln in 1..=n {
            let qty = rng.range(1, 50);
            let price = i128::from(qty) * i128::from(rng.range(90_000, 110_000));
            let disc = i128::from(rng.range(0, 10));
            let tax = i128::from(rng.range(0, 8));
            let ship = date + rng.range(1, 121) as i32;
            let commit = date + rng.range(30, 90) as i32;
            let receipt = ship + rng.range(1, 30) as i32;
            // 1995-06-17: TPC-H's current date for flags and status.
            let returned = receipt <= 9298 && rng.range(0, 1) == 0;
            let status = if ship > 9298 { "O" } else { "F" };
            shipped += i32::from(status == "F");
            total += price * (100 - disc) * (100 + tax) / 10_000;
            lines.push(vec![
                V::L(k),
                V::L(rng.range(1, PARTS)),
                V::L(rng.range(1, SUPPLIERS)),
                V::I(ln as i32),
                V::D(i128::from(qty) * 100),
                V::D(price),
                V::D(disc),
                V::D(tax),
                s(if returned {
                    "R"
                } else if status == "F" {
                    "A"
                } else {
                    "N"
                }),
                s(status),
                V::Date(ship),
                V::Date(commit),
                V::Date(receipt),
                s(rng.pick(&INSTRUCT)),
                s(rng.pick(&SHIPMODES)),
                s(rng.text(3)),
            ]);
        }
        let status = match shipped {
            0 => "O",
            x if x == n as i32 => "F",
            _ => "P",
        };
        orders.push(vec![
            V::L(k),
            V::L(cust),
            s(status),
            V::D(total),
            V::Date(date),
            s(rng.pick(&PRIORITIES)),
            s(format!("Clerk#{:09}", rng.range(1, 50))),
            V::I(0),
            s(rng.text(4)),
        ]);
    }
    let chunk = orders.len() / 3 + 1;
    let mut order_commits: Vec<Vec<(Row, RowKind)>> =
        orders.chunks(chunk).map(|c| inserts(c.to_vec())).collect();
    order_commits.push(
        orders
            .iter()
            .filter(|r| matches!(r[0], V::L(k) if k % 11 == 4))
            .map(|r| {
                let mut after = r.clone();
                after[3] = V::D(i128::from(rng.range(100_000, 50_000_000)));
                after[8] = s(rng.text(4));
                (after, RowKind::UpdateAfter)
            })
            .collect(),
    );
    order_commits.push(
        orders
            .iter()
            .filter(|r| matches!(r[0], V::L(k) if k % 29 == 7))
            .map(|r| (r.clone(), RowKind::Delete))
            .collect(),
    );
    let chunk = lines.len() / 3 + 1;
    let line_commits = lines.chunks(chunk).map(|c| inserts(c.to_vec())).collect();
    let orders = TpchTable {
        name: "orders",
        columns: vec![
            ("o_orderkey", "BIGINT NOT NULL"),
            ("o_custkey", "BIGINT"),
            ("o_orderstatus", "STRING"),
            ("o_totalprice", "DECIMAL(15, 2)"),
            ("o_orderdate", "DATE"),
            ("o_orderpriority", "STRING NOT NULL"),
            ("o_clerk", "STRING"),
            ("o_shippriority", "INT"),
            ("o_comment", "STRING"),
        ],
        primary_key: vec!["o_orderkey", "o_orderpriority"],
        partition: vec!["o_orderpriority"],
        options: vec![("bucket", "2")],
        commits: order_commits,
    };
    let lineitem = TpchTable {
        name: "lineitem",
        columns: vec![
            ("l_orderkey", "BIGINT NOT NULL"),
            ("l_partkey", "BIGINT"),
            ("l_suppkey", "BIGINT"),
            ("l_linenumber", "INT"),
            ("l_quantity", "DECIMAL(15, 2)"),
            ("l_extendedprice", "DECIMAL(15, 2)"),
            ("l_discount", "DECIMAL(15, 2)"),
            ("l_tax", "DECIMAL(15, 2)"),
            ("l_returnflag", "STRING"),
            ("l_linestatus", "STRING"),
            ("l_shipdate", "DATE"),
            ("l_commitdate", "DATE"),
            ("l_receiptdate", "DATE"),
            ("l_shipinstruct", "STRING"),
            ("l_shipmode", "STRING"),
            ("l_comment", "STRING"),
        ],
        primary_key: vec![],
        partition: vec!["l_shipmode"],
        options: vec![("bucket", "2"), ("bucket-key", "l_orderkey")],
        commits: line_commits,
    };
    (orders, lineitem)
}

/// The seven tables, each with its commits.
pub fn generate() -> Vec<TpchTable> {
    let (orders, lineitem) = orders_and_lineitem();
    vec![
        region(),
        nation(),
        supplier(),
        customer(),
        part(),
        orders,
        lineitem,
    ]
}

impl TpchTable {
    /// The Paimon schema of the table.
    pub fn schema(&self) -> Schema {
        let mut b = Schema::builder();
        for (name, ty) in &self.columns {
            b = b.column(*name, parse_type(ty).expect("generator type"));
        }
        b = b
            .primary_key(self.primary_key.clone())
            .partition_keys(self.partition.clone());
        for (k, v) in &self.options {
            b = b.option(*k, *v);
        }
        b.build().expect("generator schema")
    }

    fn key_of(&self, row: &Row) -> Vec<V> {
        self.primary_key
            .iter()
            .map(|k| {
                let i = self.columns.iter().position(|c| c.0 == *k).expect("key");
                row[i].clone()
            })
            .collect()
    }

    /// The final logical rows (primary-key tables: the last `+I`/`+U` of each key unless a
    /// later `-U`/`-D` retracted it; append tables: every row), sorted.
    pub fn final_rows(&self) -> Vec<Row> {
        if self.primary_key.is_empty() {
            let mut rows: Vec<Row> = self.commits.iter().flatten().map(|r| r.0.clone()).collect();
            rows.sort();
            return rows;
        }
        let mut live: BTreeMap<Vec<V>, Row> = BTreeMap::new();
        for (row, kind) in self.commits.iter().flatten() {
            match kind {
                RowKind::Insert | RowKind::UpdateAfter => {
                    live.insert(self.key_of(row), row.clone());
                }
                RowKind::UpdateBefore | RowKind::Delete => {
                    live.remove(&self.key_of(row));
                }
            }
        }
        live.into_values().collect()
    }

    /// The final rows as one batch of `schema` (the table's Arrow schema).
    pub fn final_batch(&self, schema: &SchemaRef) -> RecordBatch {
        to_batch(schema, &self.final_rows())
    }

    /// Creates the table as `database.name` in `catalog` and writes its commits through
    /// `table.new_write()` (one write and one commit per commit).
    pub async fn write(&self, catalog: &FileSystemCatalog, database: &str) -> Table {
        let id = Identifier::parse(&format!("{database}.{}", self.name)).expect("identifier");
        let table = catalog
            .create_table(&id, self.schema(), false)
            .await
            .expect("create table");
        let schema = paimon_core::arrow::arrow_schema(&table.schema().fields).expect("schema");
        for commit in &self.commits {
            let rows: Vec<Row> = commit.iter().map(|r| r.0.clone()).collect();
            let kinds: Vec<RowKind> = commit.iter().map(|r| r.1).collect();
            let batch = to_batch(&schema, &rows);
            let mut write = table.new_write().build().expect("write");
            write
                .write_with_kinds(&batch, &kinds)
                .await
                .expect("write rows");
            let messages = write.prepare_commit().await.expect("prepare commit");
            table
                .new_commit()
                .commit_messages(&messages, write.commit_user())
                .await
                .expect("commit");
        }
        table
    }
}

/// `rows` as a batch of `schema` (INT, BIGINT, STRING, DECIMAL(15, 2), DATE columns).
pub fn to_batch(schema: &SchemaRef, rows: &[Row]) -> RecordBatch {
    let columns: Vec<ArrayRef> = schema
        .fields()
        .iter()
        .enumerate()
        .map(|(c, f)| -> ArrayRef {
            let cells = rows.iter().map(|r| &r[c]);
            match f.data_type() {
                ArrowType::Int32 => {
                    let mut b = Int32Builder::new();
                    cells.for_each(|v| {
                        b.append_option(if let V::I(x) = v { Some(*x) } else { None })
                    });
                    Arc::new(b.finish())
                }
                ArrowType::Int64 => {
                    let mut b = Int64Builder::new();
                    cells.for_each(|v| {
                        b.append_option(if let V::L(x) = v { Some(*x) } else { None })
                    });
                    Arc::new(b.finish())
                }
                ArrowType::Utf8 => {
                    let mut b = StringBuilder::new();
                    cells.for_each(|v| {
                        b.append_option(if let V::S(x) = v { Some(x) } else { None })
                    });
                    Arc::new(b.finish())
                }
                ArrowType::Date32 => {
                    let mut b = Date32Builder::new();
                    cells.for_each(|v| {
                        b.append_option(if let V::Date(x) = v { Some(*x) } else { None })
                    });
                    Arc::new(b.finish())
                }
                ArrowType::Decimal128(p, sc) => {
                    let mut b = Decimal128Builder::new()
                        .with_precision_and_scale(*p, *sc)
                        .expect("decimal type");
                    cells.for_each(|v| {
                        b.append_option(if let V::D(x) = v { Some(*x) } else { None })
                    });
                    Arc::new(b.finish())
                }
                other => panic!("generator has no {other} column"),
            }
        })
        .collect();
    RecordBatch::try_new(schema.clone(), columns).expect("generator batch")
}
