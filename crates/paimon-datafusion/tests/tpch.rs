//! A TPC-H-shaped query set over tables written by paimon-rs's own writer (primary-key tables
//! with updates and deletes over several commits, an append table, several buckets,
//! partitioned tables; see `common/tpch.rs`), against DataFusion over the same final rows as
//! plain Parquet files (written with arrow-rs, read back into `MemTable`s). Results compare
//! exactly: money is `DECIMAL(15, 2)`, so sums and averages are exact decimals.

mod common;

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::datasource::MemTable;
use datafusion::prelude::SessionContext;
use paimon_core::FileSystemCatalog;

use common::tpch;

/// The queries; `{p}` is the table prefix (`paimon.tpch.` or `plain_`).
const QUERIES: [(&str, &str); 14] = [
    // Q1 pricing summary: filter on a non-partition column, grouping, exact decimal aggregates.
    (
        "q1",
        "SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, \
         sum(l_extendedprice) AS sum_base_price, \
         sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price, \
         sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge, \
         avg(l_quantity) AS avg_qty, avg(l_extendedprice) AS avg_price, \
         avg(l_discount) AS avg_disc, count(*) AS count_order \
         FROM {p}lineitem WHERE l_shipdate <= DATE '1998-09-02' \
         GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus",
    ),
    // Q3 shipping priority: three-way join, top 10.
    (
        "q3",
        "SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate, \
         o_shippriority FROM {p}customer, {p}orders, {p}lineitem \
         WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey \
         AND o_orderdate < DATE '1995-03-15' AND l_shipdate > DATE '1995-03-15' \
         GROUP BY l_orderkey, o_orderdate, o_shippriority \
         ORDER BY revenue DESC, o_orderdate, l_orderkey LIMIT 10",
    ),
    // Q4 order priority checking: EXISTS (semi-join), grouping on the partition column.
    (
        "q4",
        "SELECT o_orderpriority, count(*) AS order_count FROM {p}orders \
         WHERE o_orderdate >= DATE '1993-07-01' AND o_orderdate < DATE '1993-10-01' \
         AND EXISTS (SELECT * FROM {p}lineitem WHERE l_orderkey = o_orderkey \
         AND l_commitdate < l_receiptdate) \
         GROUP BY o_orderpriority ORDER BY o_orderpriority",
    ),
    // Q5 local supplier volume: six-way join.
    (
        "q5",
        "SELECT n_name, sum(l_extendedprice * (1 - l_discount)) AS revenue \
         FROM {p}customer, {p}orders, {p}lineitem, {p}supplier, {p}nation, {p}region \
         WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND l_suppkey = s_suppkey \
         AND c_nationkey = s_nationkey AND s_nationkey = n_nationkey \
         AND n_regionkey = r_regionkey AND r_name IN ('ASIA', 'AMERICA') \
         AND o_orderdate >= DATE '1994-01-01' AND o_orderdate < DATE '1996-01-01' \
         GROUP BY n_name ORDER BY revenue DESC, n_name",
    ),
    // Q6 forecasting revenue change: range filters only.
    (
        "q6",
        "SELECT sum(l_extendedprice * l_discount) AS revenue FROM {p}lineitem \
         WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01' \
         AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24",
    ),
    // Q10 returned item reporting: four-way join, top 20.
    (
        "q10",
        "SELECT c_custkey, c_name, sum(l_extendedprice * (1 - l_discount)) AS revenue, \
         c_acctbal, n_name, c_phone FROM {p}customer, {p}orders, {p}lineitem, {p}nation \
         WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey \
         AND o_orderdate >= DATE '1993-10-01' AND o_orderdate < DATE '1994-07-01' \
         AND l_returnflag = 'R' AND c_nationkey = n_nationkey \
         GROUP BY c_custkey, c_name, c_acctbal, c_phone, n_name \
         ORDER BY revenue DESC, c_custkey LIMIT 20",
    ),
    // Q12 shipping modes: IN on the append table's partition column, CASE aggregates.
    (
        "q12",
        "SELECT l_shipmode, \
         sum(CASE WHEN o_orderpriority = '1-URGENT' OR o_orderpriority = '2-HIGH' \
         THEN 1 ELSE 0 END) AS high_line_count, \
         sum(CASE WHEN o_orderpriority <> '1-URGENT' AND o_orderpriority <> '2-HIGH' \
         THEN 1 ELSE 0 END) AS low_line_count \
         FROM {p}orders, {p}lineitem WHERE o_orderkey = l_orderkey \
         AND l_shipmode IN ('MAIL', 'SHIP') AND l_commitdate < l_receiptdate \
         AND l_shipdate < l_commitdate AND l_receiptdate >= DATE '1994-01-01' \
         AND l_receiptdate < DATE '1996-01-01' GROUP BY l_shipmode ORDER BY l_shipmode",
    ),
    // Q13 customer distribution: LEFT OUTER JOIN, NOT LIKE, nested aggregation.
    (
        "q13",
        "SELECT c_count, count(*) AS custdist FROM \
         (SELECT c_custkey, count(o_orderkey) AS c_count FROM {p}customer \
         LEFT OUTER JOIN {p}orders ON c_custkey = o_custkey \
         AND o_comment NOT LIKE '%special%requests%' GROUP BY c_custkey) AS c_orders \
         GROUP BY c_count ORDER BY custdist DESC, c_count DESC",
    ),
    // Q14 promotion effect: decimal division, LIKE prefix.
    (
        "q14",
        "SELECT 100.00 * sum(CASE WHEN p_type LIKE 'PROMO%' \
         THEN l_extendedprice * (1 - l_discount) ELSE 0 END) \
         / sum(l_extendedprice * (1 - l_discount)) AS promo_revenue \
         FROM {p}lineitem, {p}part WHERE l_partkey = p_partkey \
         AND l_shipdate >= DATE '1995-09-01' AND l_shipdate < DATE '1996-03-01'",
    ),
    // Q18 large volume customer: IN subquery with HAVING.
    (
        "q18",
        "SELECT c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, sum(l_quantity) \
         FROM {p}customer, {p}orders, {p}lineitem WHERE o_orderkey IN \
         (SELECT l_orderkey FROM {p}lineitem GROUP BY l_orderkey HAVING sum(l_quantity) > 180) \
         AND c_custkey = o_custkey AND o_orderkey = l_orderkey \
         GROUP BY c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice \
         ORDER BY o_totalprice DESC, o_orderdate, o_orderkey LIMIT 100",
    ),
    // Q19 discounted revenue: OR of conjunctions over a join.
    (
        "q19",
        "SELECT sum(l_extendedprice * (1 - l_discount)) AS revenue FROM {p}lineitem, {p}part \
         WHERE (p_partkey = l_partkey AND p_brand = 'Brand#12' \
         AND p_container IN ('SM CASE', 'SM BOX') AND l_quantity >= 1 AND l_quantity <= 30 \
         AND p_size BETWEEN 1 AND 25 AND l_shipmode IN ('AIR', 'REG AIR')) \
         OR (p_partkey = l_partkey AND p_brand = 'Brand#23' \
         AND p_container IN ('MED BAG', 'MED BOX') AND l_quantity >= 10 AND l_quantity <= 40 \
         AND p_size BETWEEN 1 AND 50 AND l_shipinstruct = 'DELIVER IN PERSON') \
         OR (p_partkey = l_partkey AND p_brand LIKE 'Brand#3%' AND l_quantity >= 20)",
    ),
    // Q22 global sales opportunity: NOT EXISTS (anti-join), scalar subquery, substring.
    (
        "q22",
        "SELECT cntrycode, count(*) AS numcust, sum(c_acctbal) AS totacctbal FROM \
         (SELECT substring(c_phone FROM 1 FOR 2) AS cntrycode, c_acctbal FROM {p}customer \
         WHERE substring(c_phone FROM 1 FOR 2) IN ('13', '31', '23', '29', '30', '18', '17') \
         AND c_acctbal > (SELECT avg(c_acctbal) FROM {p}customer WHERE c_acctbal > 0.00) \
         AND NOT EXISTS (SELECT * FROM {p}orders WHERE o_custkey = c_custkey)) AS custsale \
         GROUP BY cntrycode ORDER BY cntrycode",
    ),
    // Partition filter (exact) with a non-partition filter on the primary-key table.
    (
        "partition_filter",
        "SELECT o_orderpriority, o_orderstatus, count(*), sum(o_totalprice), \
         min(o_orderdate), max(o_orderkey) FROM {p}orders \
         WHERE o_orderpriority IN ('1-URGENT', '5-LOW') AND o_totalprice > 100000.00 \
         GROUP BY o_orderpriority, o_orderstatus ORDER BY o_orderpriority, o_orderstatus",
    ),
    // Key range on the updated and deleted primary-key table, with a limit.
    (
        "key_range",
        "SELECT c_custkey, c_acctbal, c_mktsegment FROM {p}customer \
         WHERE c_custkey BETWEEN 40 AND 140 AND c_mktsegment <> 'MACHINERY' \
         ORDER BY c_custkey LIMIT 50",
    ),
];

fn render(batches: &[RecordBatch]) -> Vec<String> {
    let options = FormatOptions::default().with_null("null");
    let mut rows = Vec::new();
    for b in batches {
        let formatters: Vec<_> = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &options).unwrap())
            .collect();
        for i in 0..b.num_rows() {
            let cells: Vec<String> = formatters.iter().map(|f| f.value(i).to_string()).collect();
            rows.push(cells.join(" | "));
        }
    }
    rows
}

async fn run(ctx: &SessionContext, q: &str) -> Vec<String> {
    let df = ctx.sql(q).await.unwrap_or_else(|e| panic!("{q}: {e}"));
    render(&df.collect().await.unwrap_or_else(|e| panic!("{q}: {e}")))
}

/// Writes the final rows to a plain Parquet file and reads them back.
fn through_parquet(dir: &std::path::Path, name: &str, batch: &RecordBatch) -> Vec<RecordBatch> {
    let path = dir.join(format!("{name}.parquet"));
    let file = std::fs::File::create(&path).unwrap();
    let mut w =
        parquet::arrow::arrow_writer::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
    let file = std::fs::File::open(&path).unwrap();
    parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .with_batch_size(1000)
        .build()
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tpch_queries_match_plain_parquet() {
    let dir = tempfile::tempdir().unwrap();
    let warehouse = dir.path().join("warehouse");
    let plain = dir.path().join("plain");
    std::fs::create_dir_all(&warehouse).unwrap();
    std::fs::create_dir_all(&plain).unwrap();
    let catalog = FileSystemCatalog::new(warehouse.to_str().unwrap(), HashMap::new()).unwrap();
    catalog.create_database("tpch", false).await.unwrap();

    let config = paimon_datafusion::session_config().with_target_partitions(4);
    let ctx = SessionContext::new_with_config(config);
    let mut sizes = Vec::new();
    for t in tpch::generate() {
        let table = t.write(&catalog, "tpch").await;
        let schema = paimon_core::arrow::arrow_schema(&table.schema().fields).unwrap();
        let batch = t.final_batch(&schema);
        sizes.push((t.name, batch.num_rows()));
        let batches = through_parquet(&plain, t.name, &batch);
        let mem = MemTable::try_new(schema, vec![batches]).unwrap();
        ctx.register_table(format!("plain_{}", t.name), Arc::new(mem))
            .unwrap();
    }
    paimon_datafusion::register_warehouse(&ctx, "paimon", warehouse.to_str().unwrap())
        .await
        .unwrap();

    // Every table reads back as its model (updates and deletes applied).
    for (name, n) in &sizes {
        let q = |p: &str| format!("SELECT * FROM {p}{name}");
        let mut got = run(&ctx, &q("paimon.tpch.")).await;
        let mut want = run(&ctx, &q("plain_")).await;
        got.sort();
        want.sort();
        assert_eq!(want.len(), *n, "{name}");
        assert_eq!(got, want, "{name}: rows differ");
    }
    // The primary-key tables really hold several commits with retractions.
    let snapshots = run(
        &ctx,
        "SELECT count(*) >= 4 FROM paimon.tpch.\"customer$snapshots\"",
    )
    .await;
    assert_eq!(snapshots, ["true"]);

    for (name, q) in QUERIES {
        let got = run(&ctx, &q.replace("{p}", "paimon.tpch.")).await;
        let want = run(&ctx, &q.replace("{p}", "plain_")).await;
        assert!(!want.is_empty(), "{name}: no rows");
        let ordered = q.contains("ORDER BY");
        if ordered {
            assert_eq!(got, want, "{name}: rows or order differ");
        }
        let (mut got, mut want) = (got, want);
        got.sort();
        want.sort();
        assert_eq!(got, want, "{name}: rows differ");
    }
}
