//! The front door: `table.scan()` → `TableScanBuilder` → `TableScan { plan, reader, to_arrow }`.
//! One builder owns filter, projection, snapshot, options and limit; planning and reading both
//! take them from it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::RecordBatch;
use futures::TryStreamExt;
use object_store::memory::InMemory;
use object_store::path::Path as StorePath;
use object_store::ObjectStoreExt;
use paimon_core::{parse_predicate, ErrorKind, FileIO, Plan, SnapshotSelector, Table, TableScan};

use crate::common::{json_rows, render};

/// The bundled sample table `demo.orders` (append, partitioned by `dt`).
fn orders() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/warehouse/demo.db/orders")
}

async fn open_orders() -> Table {
    Table::open(orders().to_str().unwrap()).await.unwrap()
}

async fn batches(scan: &TableScan) -> Vec<RecordBatch> {
    scan.to_arrow().await.unwrap().try_collect().await.unwrap()
}

async fn rows(scan: &TableScan) -> Vec<String> {
    let plan = scan.plan().await.unwrap();
    render(&json_rows(&scan.reader(), plan.splits).await.unwrap())
}

#[tokio::test]
async fn options_set_on_the_scan_reach_the_read() {
    let table = open_orders().await;
    let small = table
        .scan()
        .with_option("read.batch-size", "7")
        .build()
        .unwrap();
    assert_eq!(small.table().options().read_batch_size.get(), 7);
    let got = batches(&small).await;
    assert!(got.len() > 1);
    assert!(
        got.iter().all(|b| b.num_rows() <= 7),
        "a batch exceeds 7 rows"
    );
    // The table itself keeps its stored options.
    let plain = batches(&table.scan().build().unwrap()).await;
    assert!(plain.iter().any(|b| b.num_rows() > 7));
    let total = |b: &[RecordBatch]| b.iter().map(RecordBatch::num_rows).sum::<usize>();
    assert_eq!(total(&got), total(&plain));
}

#[tokio::test]
async fn time_travel_by_option_or_selector_agree() {
    let table = open_orders().await;
    let first = table
        .scan()
        .with_snapshot(SnapshotSelector::Id(1))
        .build()
        .unwrap();
    let by_option = table
        .scan()
        .with_option("scan.snapshot-id", "1")
        .build()
        .unwrap();
    assert_eq!(first.plan().await.unwrap().snapshot_id, Some(1));
    assert_eq!(by_option.plan().await.unwrap().snapshot_id, Some(1));
    assert_eq!(rows(&first).await, rows(&by_option).await);
}

#[tokio::test]
async fn filter_text_and_predicate_agree() {
    let table = open_orders().await;
    let text = "dt = '2024-01-02' AND amount > 100";
    let by_text = rows(&table.scan().with_filter(text).unwrap().build().unwrap()).await;
    let by_predicate = table
        .scan()
        .with_filter(parse_predicate(text).unwrap())
        .unwrap()
        .build()
        .unwrap();
    let all = rows(&table.scan().build().unwrap()).await;
    assert!(!by_text.is_empty() && by_text.len() < all.len());
    assert_eq!(by_text, rows(&by_predicate).await);
    assert!(by_text.iter().all(|r| r.contains("2024-01-02")));
}

#[tokio::test]
async fn bad_requests_are_typed_errors() {
    let table = open_orders().await;
    let parse = table.scan().with_filter("amount >").unwrap_err();
    assert_eq!(parse.kind(), ErrorKind::InvalidArgument, "{parse}");
    let unknown = table
        .scan()
        .with_filter("nope = 1")
        .unwrap()
        .build()
        .unwrap_err();
    assert_eq!(unknown.kind(), ErrorKind::InvalidArgument, "{unknown}");
    assert!(unknown.to_string().contains("nope"), "{unknown}");
    let column = table.scan().select(["order_id", "nope"]).unwrap_err();
    assert_eq!(column.kind(), ErrorKind::InvalidArgument, "{column}");
    let option = table
        .scan()
        .with_option("read.batch-size", "many")
        .build()
        .unwrap_err();
    assert_eq!(option.kind(), ErrorKind::InvalidArgument, "{option}");
}

#[tokio::test]
async fn select_limit_and_metadata_shape_the_batches() {
    let table = open_orders().await;
    let scan = table
        .scan()
        .select(["amount", "order_id"])
        .unwrap()
        .with_limit(5)
        .build()
        .unwrap();
    let got = batches(&scan).await;
    assert_eq!(got.iter().map(RecordBatch::num_rows).sum::<usize>(), 5);
    let names: Vec<_> = got[0]
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    assert_eq!(names, ["amount", "order_id"]);
    let with_meta = table
        .scan()
        .select(["order_id"])
        .unwrap()
        .with_metadata(true)
        .with_limit(1)
        .build()
        .unwrap();
    let names: Vec<_> = with_meta
        .reader()
        .schema()
        .unwrap()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    assert_eq!(
        names,
        ["order_id", "__paimon_file_path", "__paimon_row_index"]
    );
}

/// Splits planned in one place (serialised) are read elsewhere by a scan with the same filter.
#[tokio::test]
async fn a_serialised_plan_is_read_by_another_scan() {
    let filter = "customer = 'alice'";
    let planner = open_orders()
        .await
        .scan()
        .with_filter(filter)
        .unwrap()
        .build()
        .unwrap();
    let json = serde_json::to_string(&planner.plan().await.unwrap()).unwrap();
    let plan: Plan = serde_json::from_str(&json).unwrap();
    let worker = open_orders()
        .await
        .scan()
        .with_filter(filter)
        .unwrap()
        .build()
        .unwrap();
    let got = render(&json_rows(&worker.reader(), plan.splits).await.unwrap());
    assert!(!got.is_empty());
    assert_eq!(got, rows(&planner).await);
}

async fn upload(store: &InMemory, from: &Path, prefix: &str) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = format!("{prefix}/{}", entry.file_name().to_str().unwrap());
        if entry.file_type().unwrap().is_dir() {
            Box::pin(upload(store, &entry.path(), &name)).await;
        } else {
            let bytes = std::fs::read(entry.path()).unwrap();
            store
                .put(&StorePath::from(name), bytes.into())
                .await
                .unwrap();
        }
    }
}

/// A table in a store handed over by an engine (here an in-memory store) reads like on disk.
#[tokio::test]
async fn tables_read_through_a_given_object_store() {
    let store = Arc::new(InMemory::new());
    upload(&store, &orders(), "demo.db/orders").await;
    let io = FileIO::from_store("memory://wh", store.clone()).unwrap();
    let table = Table::open_with(io.clone(), "memory://wh/demo.db/orders", &HashMap::new())
        .await
        .unwrap();
    let filter = "amount > 500";
    let remote = rows(&table.scan().with_filter(filter).unwrap().build().unwrap()).await;
    let local = rows(
        &open_orders()
            .await
            .scan()
            .with_filter(filter)
            .unwrap()
            .build()
            .unwrap(),
    )
    .await;
    assert!(!remote.is_empty());
    assert_eq!(remote, local);
    assert!(io.read_stats().bytes > 0);
}
