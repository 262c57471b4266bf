//! Builds the demo warehouse through the library's front door (catalog, `new_write`,
//! `new_commit`, `alter_table`, `compact`) and keeps a model of what every table holds.
//!
//! `demo.orders`: a primary-key table (`dt` partition × `order_id`, 4 buckets) written in
//! three commits — every order inserted, 10% updated, 2% deleted — then switched to deletion
//! vectors with a `pk-btree` index on `customer`, and fully compacted (the compaction writes
//! the index payloads). `demo.events`: an append table with a bitmap file index on `kind`,
//! written in eight commits; only one of them holds `refund` events.

use std::sync::Arc;
use std::time::Instant;

use arrow::array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use paimon_core::spec::type_text::parse_fields;
use paimon_core::{
    Error, FileSystemCatalog, Identifier, Result, RowKind, Schema, SchemaChange, Table,
};

/// Days (partitions) of the orders table.
pub const DAYS: [&str; 4] = ["2024-05-01", "2024-05-02", "2024-05-03", "2024-05-04"];
/// Event kinds; `refund` is written by one commit only.
pub const KINDS: [&str; 4] = ["buy", "cart", "click", "view"];
/// Files of the events table (one per commit).
pub const EVENT_FILES: u64 = 8;
/// The commit holding the refunds.
pub const REFUND_FILE: u64 = 5;

/// One order as the model holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct Order {
    pub customer: i64,
    pub status: &'static str,
    pub amount: f64,
}

/// What the demo wrote, to check the queries against.
pub struct Model {
    /// Orders after the first commit (snapshot 1), by `order_id`.
    pub v1: Vec<Option<Order>>,
    /// Orders after the third commit (latest data), by `order_id`.
    pub latest: Vec<Option<Order>>,
    /// Snapshot id of the last write before compaction.
    pub before_compaction: i64,
    /// Rows written into the orders table (inserts, updates, deletes).
    pub rows_written: u64,
    /// Events: (id, kind) in write order.
    pub events: Vec<(i64, &'static str)>,
}

/// The partition of an order.
pub fn day_of(order_id: i64) -> &'static str {
    DAYS[(order_id % DAYS.len() as i64) as usize]
}

fn scramble(x: u64) -> u64 {
    x.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17)
}

fn customer_of(order_id: i64, customers: i64) -> i64 {
    (scramble(order_id as u64) % customers as u64) as i64
}

/// Builds both tables in `warehouse`; progress lines go to stdout.
pub async fn build(warehouse: &str, rows: u64) -> Result<(Table, Table, Model)> {
    let catalog = FileSystemCatalog::new(warehouse, Default::default())?;
    catalog.create_database("demo", true).await?;
    let (orders, model) = build_orders(&catalog, rows).await?;
    let (events, list) = build_events(&catalog, rows / 2).await?;
    let model = Model {
        events: list,
        ..model
    };
    Ok((orders, events, model))
}

async fn build_orders(catalog: &FileSystemCatalog, rows: u64) -> Result<(Table, Model)> {
    let id = Identifier::parse("demo.orders")?;
    let schema = Schema::builder()
        .columns(parse_fields(
            "order_id BIGINT NOT NULL, dt STRING NOT NULL, customer BIGINT, status STRING, amount DOUBLE",
        )?)
        .primary_key(["dt", "order_id"])
        .partition_keys(["dt"])
        .option("bucket", "4")
        .option("deletion-vectors.modifiable", "true")
        .build()?;
    let table = catalog.create_table(&id, schema, false).await?;
    let n = rows as i64;
    let customers = (n / 20).max(1);
    let v1: Vec<Option<Order>> = (0..n)
        .map(|i| {
            Some(Order {
                customer: customer_of(i, customers),
                status: "new",
                amount: (i % 1000) as f64 + 0.5,
            })
        })
        .collect();
    let mut latest = v1.clone();
    let inserts: Vec<i64> = (0..n).collect();
    commit(&table, "insert every order", &inserts, &v1, RowKind::Insert).await?;
    let updates: Vec<i64> = (0..n).filter(|i| i % 10 == 3).collect();
    for &i in &updates {
        if let Some(o) = latest.get_mut(i as usize).and_then(Option::as_mut) {
            o.status = "shipped";
            o.amount += 10.0;
        }
    }
    commit(
        &table,
        "update 10% (shipped)",
        &updates,
        &latest,
        RowKind::UpdateAfter,
    )
    .await?;
    let deletes: Vec<i64> = (0..n).filter(|i| i % 50 == 7).collect();
    commit(&table, "delete 2%", &deletes, &latest, RowKind::Delete).await?;
    for &i in &deletes {
        if let Some(o) = latest.get_mut(i as usize) {
            *o = None;
        }
    }
    let before_compaction = table
        .snapshot_manager()
        .latest_snapshot_id()
        .await?
        .unwrap_or(0);
    let changes = [
        SchemaChange::set_option("deletion-vectors.enabled", "true"),
        SchemaChange::set_option("pk-btree.index.columns", "customer"),
    ];
    catalog.alter_table(&id, changes.to_vec(), false).await?;
    println!("  alter: deletion-vectors.enabled = true, pk-btree.index.columns = customer");
    let table = catalog.get_table(&id).await?;
    let started = Instant::now();
    let report = table.compact().full(true).execute().await?;
    let files: usize = report.buckets.iter().map(|b| b.files_after).sum();
    println!(
        "  compact: {} (partition, bucket)s rewritten into {files} top-level files with pk-btree payloads (snapshot {}, {:.2} s)",
        report.buckets.len(),
        report.snapshot_id.unwrap_or(0),
        started.elapsed().as_secs_f64()
    );
    let model = Model {
        v1,
        latest,
        before_compaction,
        rows_written: (inserts.len() + updates.len() + deletes.len()) as u64,
        events: Vec::new(),
    };
    Ok((catalog.get_table(&id).await?, model))
}

/// Writes the orders `ids` (values from `state`) with `kind` and commits once.
async fn commit(
    table: &Table,
    what: &str,
    ids: &[i64],
    state: &[Option<Order>],
    kind: RowKind,
) -> Result<()> {
    let started = Instant::now();
    let mut write = table.new_write().with_commit_user("paimon-demo").build()?;
    for chunk in ids.chunks(65_536) {
        let orders: Vec<&Order> = chunk
            .iter()
            .filter_map(|&i| state.get(i as usize).and_then(Option::as_ref))
            .collect();
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(chunk.to_vec())),
            Arc::new(StringArray::from_iter_values(
                chunk.iter().map(|&i| day_of(i)),
            )),
            Arc::new(Int64Array::from_iter_values(
                orders.iter().map(|o| o.customer),
            )),
            Arc::new(StringArray::from_iter_values(
                orders.iter().map(|o| o.status),
            )),
            Arc::new(Float64Array::from_iter_values(
                orders.iter().map(|o| o.amount),
            )),
        ];
        let batch = RecordBatch::try_from_iter(
            ["order_id", "dt", "customer", "status", "amount"]
                .into_iter()
                .zip(columns),
        )
        .map_err(|e| Error::internal(format!("demo batch: {e}")))?;
        write
            .write_with_kinds(&batch, &vec![kind; chunk.len()])
            .await?;
    }
    let messages = write.prepare_commit().await?;
    table
        .new_commit()
        .commit_messages(&messages, write.commit_user())
        .await?;
    let id = table
        .snapshot_manager()
        .latest_snapshot_id()
        .await?
        .unwrap_or(0);
    println!(
        "  commit {id}: {what}: {} rows ({:.2} s)",
        ids.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

async fn build_events(
    catalog: &FileSystemCatalog,
    rows: u64,
) -> Result<(Table, Vec<(i64, &'static str)>)> {
    let id = Identifier::parse("demo.events")?;
    let schema = Schema::builder()
        .columns(parse_fields(
            "id BIGINT NOT NULL, kind STRING, amount DOUBLE",
        )?)
        .option("file-index.bitmap.columns", "kind")
        .build()?;
    let table = catalog.create_table(&id, schema, false).await?;
    let started = Instant::now();
    let per_file = rows.div_ceil(EVENT_FILES).max(1);
    let mut events = Vec::with_capacity(rows as usize);
    for file in 0..EVENT_FILES {
        let ids: Vec<i64> = (file * per_file..((file + 1) * per_file).min(rows))
            .map(|i| i as i64)
            .collect();
        // Every file holds every common kind, in 16 runs (as sessions would write them), so
        // min/max statistics cannot rule a kind out but the bitmaps stay small.
        let start = file * per_file;
        let kinds: Vec<&'static str> = ids
            .iter()
            .map(|&i| match file == REFUND_FILE && i % 97 == 0 {
                true => "refund",
                false => {
                    let run = (i as u64 - start) * 16 / per_file;
                    KINDS[((run + file) % KINDS.len() as u64) as usize]
                }
            })
            .collect();
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(ids.clone())),
            Arc::new(StringArray::from_iter_values(kinds.iter().copied())),
            Arc::new(Float64Array::from_iter_values(
                ids.iter().map(|i| (i % 100) as f64),
            )),
        ];
        let batch = RecordBatch::try_from_iter(["id", "kind", "amount"].into_iter().zip(columns))
            .map_err(|e| Error::internal(format!("demo batch: {e}")))?;
        let mut write = table.new_write().with_commit_user("paimon-demo").build()?;
        write.write(&batch).await?;
        let messages = write.prepare_commit().await?;
        table
            .new_commit()
            .commit_messages(&messages, write.commit_user())
            .await?;
        events.extend(ids.into_iter().zip(kinds));
    }
    println!(
        "  demo.events: {rows} events in {EVENT_FILES} commits, bitmap file index on kind ({:.2} s)",
        started.elapsed().as_secs_f64()
    );
    Ok((table, events))
}
