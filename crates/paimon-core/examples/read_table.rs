//! Reads a Paimon table through the library's front door and prints its rows.
//!
//! ```sh
//! cargo run --example read_table                                  # the bundled sample table
//! cargo run --example read_table -- /path/to/db.db/table "id = 42" # any table, any filter
//! ```
//!
//! Opens the table, builds one scan (filter, columns, limit), plans it (printing what was
//! pruned) and reads the splits as Arrow record batches.

use arrow::util::pretty::pretty_format_batches;
use futures::TryStreamExt;
use paimon_core::{Result, Table};

#[tokio::main]
async fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let sample = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/warehouse/demo.db/orders"
    );
    let location = args.next().unwrap_or_else(|| sample.to_string());
    let filter = args
        .next()
        .unwrap_or_else(|| "dt = '2024-01-02' AND amount > 100".to_string());

    let table = Table::open(&location).await?;
    let scan = table
        .scan()
        .with_filter(filter.as_str())?
        .with_limit(20)
        .build()?;

    let plan = scan.plan().await?;
    let m = &plan.metrics;
    println!(
        "table {} | filter {filter} | snapshot {:?} | {} splits, {} files planned \
         ({} skipped by partition, {} by bucket, {} by stats)",
        table.name(),
        plan.snapshot_id,
        m.splits,
        m.files_planned,
        m.files_skipped_by_partition,
        m.files_skipped_by_bucket,
        m.files_skipped_by_stats,
    );

    let batches: Vec<_> = scan.reader().read(plan.splits)?.try_collect().await?;
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    let text = pretty_format_batches(&batches).map_err(paimon_core::Error::from)?;
    println!("{text}\n{rows} rows");
    Ok(())
}
