//! The demo's queries: each is planned and read through `table.scan()`, timed, explained from
//! the plan's `ScanMetrics` and the read's metrics, and checked against the model (a mismatch
//! is an error, so the command fails).

use std::time::Instant;

use arrow::array::{Array, AsArray, RecordBatch};
use arrow::datatypes::{Float64Type, Int64Type};
use futures::TryStreamExt;
use paimon_core::read::ReadMetricsSnapshot;
use paimon_core::scan::ScanMetrics;
use paimon_core::{Error, Result, SnapshotSelector, Table};

use super::tables::{day_of, Model, Order, EVENT_FILES};

/// One query's result and what its plan and read did.
struct Outcome {
    rows: Vec<RecordBatch>,
    plan: ScanMetrics,
    read: ReadMetricsSnapshot,
    files_read: usize,
    rows_in_files: i64,
    ranges: usize,
    millis: f64,
}

/// Plans and reads `filter` on `table` (optionally at a snapshot, with option overrides).
async fn run(
    table: &Table,
    filter: Option<&str>,
    snapshot: Option<i64>,
    options: &[(&str, &str)],
) -> Result<Outcome> {
    let started = Instant::now();
    let mut builder = table.scan();
    if let Some(f) = filter {
        builder = builder.with_filter(f)?;
    }
    if let Some(id) = snapshot {
        builder = builder.with_snapshot(SnapshotSelector::Id(id));
    }
    for (k, v) in options {
        builder = builder.with_option(*k, *v);
    }
    let scan = builder.build()?;
    let plan = scan.plan().await?;
    let (mut files_read, mut rows_in_files, mut ranges) = (0, 0, 0);
    for s in &plan.splits {
        let d = s.as_data();
        files_read += d.files.len();
        rows_in_files += d.files.iter().map(|f| f.row_count).sum::<i64>();
        ranges += d
            .row_ranges
            .iter()
            .flatten()
            .flatten()
            .map(Vec::len)
            .sum::<usize>();
    }
    let metrics = plan.metrics.clone();
    let read = scan.reader();
    let rows: Vec<RecordBatch> = read.read(plan.splits)?.try_collect().await?;
    Ok(Outcome {
        rows,
        plan: metrics,
        read: read.metrics(),
        files_read,
        rows_in_files,
        ranges,
        millis: started.elapsed().as_secs_f64() * 1000.0,
    })
}

fn column<'a>(b: &'a RecordBatch, name: &str) -> Result<&'a dyn Array> {
    b.column_by_name(name)
        .map(|c| c.as_ref())
        .ok_or_else(|| Error::internal(format!("demo: column {name} missing")))
}

/// (order_id, customer, status, amount) of every row.
fn orders(o: &Outcome) -> Result<Vec<(i64, Order)>> {
    let mut out = Vec::new();
    for b in &o.rows {
        let ids = column(b, "order_id")?.as_primitive::<Int64Type>();
        let customers = column(b, "customer")?.as_primitive::<Int64Type>();
        let status = column(b, "status")?.as_string::<i32>();
        let amounts = column(b, "amount")?.as_primitive::<Float64Type>();
        for i in 0..b.num_rows() {
            let status = match status.value(i) {
                "new" => "new",
                "shipped" => "shipped",
                other => return Err(Error::data_invalid(format!("demo: status {other}"))),
            };
            out.push((
                ids.value(i),
                Order {
                    customer: customers.value(i),
                    status,
                    amount: amounts.value(i),
                },
            ));
        }
    }
    out.sort_by_key(|(id, _)| *id);
    Ok(out)
}

fn expect<T: PartialEq + std::fmt::Debug>(what: &str, got: T, want: T) -> Result<()> {
    if got == want {
        Ok(())
    } else {
        Err(Error::data_invalid(format!(
            "demo: {what}: read {got:?}, the model expects {want:?}"
        )))
    }
}

fn header(n: usize, title: &str, sql: &str) {
    println!("\n{n}. {title}\n   {sql}");
}

fn show_order(id: i64, o: &Order) {
    println!(
        "   → order {id} ({}): customer {}, {}, amount {:.2}",
        day_of(id),
        o.customer,
        o.status,
        o.amount
    );
}

fn footer(o: &Outcome, lines: &[String]) {
    for l in lines.iter().filter(|l| !l.is_empty()) {
        println!("   {l}");
    }
    println!(
        "   time: {:.1} ms (plan {:.1} ms)",
        o.millis,
        o.plan.plan_micros as f64 / 1000.0
    );
}

fn pruning(o: &Outcome) -> String {
    let m = &o.plan;
    let mut rules = Vec::new();
    let mut rule = |n: u64, what: String| {
        if n > 0 {
            rules.push(format!("{n} by {what}"));
        }
    };
    rule(m.files_skipped_by_partition, "partition".into());
    rule(
        m.files_skipped_by_bucket,
        format!("bucket ({} bucket(s) kept)", m.buckets_selected),
    );
    rule(m.files_skipped_by_level, "level".into());
    rule(m.files_skipped_by_stats, "statistics".into());
    rule(m.file_index.files_skipped, "file index".into());
    let skipped = match rules.is_empty() {
        true => "nothing skipped".to_string(),
        false => format!("skipped {}", rules.join(", ")),
    };
    format!(
        "plan: {} file(s) in {} split(s) to read; {skipped}",
        o.files_read, m.splits
    )
}

/// Runs every query; the first mismatch is an error.
pub async fn run_all(orders_t: &Table, events: &Table, model: &Model) -> Result<()> {
    let n = model.latest.len() as i64;
    // An updated order (status shipped) that survived the deletes.
    let key = (n * 3 / 5 / 10) * 10 + 3;
    let want = model.latest.get(key as usize).cloned().flatten();
    let sql = format!("dt = '{}' AND order_id = {key}", day_of(key));

    header(
        1,
        "Point lookup (primary key)",
        &format!("SELECT * FROM demo.orders WHERE {sql}"),
    );
    let o = run(orders_t, Some(&sql), None, &[]).await?;
    let got = orders(&o)?;
    got.iter().for_each(|(id, r)| show_order(*id, r));
    expect(
        "point lookup",
        got,
        want.map(|w| vec![(key, w)]).unwrap_or_default(),
    )?;
    let r = &o.read;
    footer(&o, &[
        pruning(&o),
        format!(
            "read: {} of {} rows in the file decoded; page index skipped {} pages ({} rows), row groups skipped {}",
            o.rows_in_files.saturating_sub(r.page_rows_skipped as i64),
            o.rows_in_files,
            r.pages_skipped,
            r.page_rows_skipped,
            r.raw_row_groups_skipped + r.merge_row_groups_skipped
        ),
    ]);

    let customer = model
        .latest
        .get(key as usize)
        .and_then(|o| o.as_ref())
        .map_or(0, |o| o.customer);
    let want: Vec<(i64, Order)> = model
        .latest
        .iter()
        .enumerate()
        .filter_map(|(i, o)| {
            o.clone()
                .filter(|o| o.customer == customer)
                .map(|o| (i as i64, o))
        })
        .collect();
    header(
        2,
        "Indexed value lookup (pk-btree global index on customer)",
        &format!("SELECT * FROM demo.orders WHERE customer = {customer}"),
    );
    let o = run(orders_t, Some(&format!("customer = {customer}")), None, &[]).await?;
    let got = orders(&o)?;
    println!("   → {} orders of customer {customer}", got.len());
    expect("indexed lookup", &got, &want)?;
    let g = &o.plan.global_index;
    footer(&o, &[
        pruning(&o),
        format!(
            "global index: {} payloads opened, {} files narrowed to {} row ranges ({} rows), {} files dropped",
            g.payloads_opened, g.files_narrowed, o.ranges, g.rows_selected, g.files_dropped
        ),
    ]);

    let before = model.before_compaction;
    let live = model.latest.iter().flatten().count();
    let shipped = model
        .latest
        .iter()
        .flatten()
        .filter(|o| o.status == "shipped")
        .count();
    header(
        3,
        "Merge-on-read aggregate (before compaction: three sorted runs per bucket)",
        &format!(
            "SELECT count(*), count_if(status = 'shipped') FROM demo.orders VERSION AS OF {before}"
        ),
    );
    // Snapshot `before` was written without deletion vectors: read it with that schema's option.
    let dv_off = [("deletion-vectors.enabled", "false")];
    let o = run(orders_t, None, Some(before), &dv_off).await?;
    let got = orders(&o)?;
    let got_shipped = got.iter().filter(|(_, o)| o.status == "shipped").count();
    println!("   → count = {}, shipped = {got_shipped}", got.len());
    expect(
        "merge-on-read count",
        (got.len(), got_shipped),
        (live, shipped),
    )?;
    footer(
        &o,
        &[
            pruning(&o),
            format!(
                "merge: {} rows in {} files (inserts, updates, deletes) merged by key into {} rows",
                o.rows_in_files,
                o.files_read,
                got.len()
            ),
        ],
    );

    let refunds: Vec<i64> = model
        .events
        .iter()
        .filter(|(_, k)| *k == "refund")
        .map(|(id, _)| *id)
        .collect();
    header(
        4,
        "File-index pruned append query (bitmap index on kind)",
        "SELECT id FROM demo.events WHERE kind = 'refund'",
    );
    let o = run(events, Some("kind = 'refund'"), None, &[]).await?;
    let mut got = Vec::new();
    for b in &o.rows {
        let ids = column(b, "id")?.as_primitive::<Int64Type>();
        got.extend(ids.values().iter().copied());
    }
    got.sort_unstable();
    println!(
        "   → {} refunds (ids {:?} …)",
        got.len(),
        &got[..got.len().min(4)]
    );
    expect("append query", &got, &refunds)?;
    let r = &o.read;
    footer(&o, &[
        pruning(&o),
        format!(
            "read: the bitmap of the {} file(s) left selected {} of {} rows ({} rows skipped by the index); {} of {EVENT_FILES} files pruned at planning by their embedded index",
            o.files_read,
            got.len(),
            o.rows_in_files,
            r.file_index_rows_skipped,
            o.plan.file_index.files_skipped,
        ),
    ]);

    let old = model.v1.get(key as usize).cloned().flatten();
    header(
        5,
        "Time travel (the same order at snapshot 1)",
        &format!("SELECT * FROM demo.orders VERSION AS OF 1 WHERE {sql}"),
    );
    let o = run(orders_t, Some(&sql), Some(1), &dv_off).await?;
    let got = orders(&o)?;
    got.iter().for_each(|(id, r)| show_order(*id, r));
    expect(
        "time travel",
        got,
        old.map(|w| vec![(key, w)]).unwrap_or_default(),
    )?;
    footer(&o, &[pruning(&o)]);
    Ok(())
}
