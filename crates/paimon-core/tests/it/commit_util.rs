//! Helpers of the commit tests: private copies of pypaimon fixture tables under
//! `target/committed/<test>` (registered for `scripts/check-reencoded.py`), writer messages
//! made of copies of live data files.

use std::path::{Path, PathBuf};

use paimon_core::commit::CommitMessage;
use paimon_core::scan::DataSplit;
use paimon_core::Table;
use serde_json::json;

use crate::common::{copy_dir, json_rows, render};
use crate::pypaimon::pypaimon_fixtures;

/// `target/committed` of the repository.
pub fn committed_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/committed")
}

/// A fresh copy of pypaimon fixture `table` at `target/committed/<test>/warehouse/fixtures.db`
/// (`None` when the fixtures are missing); returns the table directory.
pub fn fixture_copy(test: &str, table: &str) -> Option<PathBuf> {
    let root = pypaimon_fixtures()?;
    let warehouse = committed_root().join(test).join("warehouse");
    let _ = std::fs::remove_dir_all(committed_root().join(test));
    let to = warehouse.join("fixtures.db").join(table);
    copy_dir(&root.join("warehouse/fixtures.db").join(table), &to);
    Some(to)
}

/// Registers the copy made by [`fixture_copy`] for the pypaimon check: pypaimon must read it
/// as the original minus the rows whose `drop_where` columns print as the given values.
pub fn register_for_pypaimon(test: &str, table: &str, drop_where: serde_json::Value) {
    let Some(root) = pypaimon_fixtures() else {
        return;
    };
    let index = json!({ "tables": [{
        "table": format!("fixtures.{table}"),
        "original": root.join("warehouse").to_str().unwrap(),
        "rewritten": committed_root().join(test).join("warehouse").to_str().unwrap(),
        "drop_where": drop_where,
    }]});
    let path = committed_root().join(format!("tables-{test}.json"));
    std::fs::write(path, index.to_string()).unwrap();
}

/// Opens the table at `path`.
pub async fn open(path: &Path) -> Table {
    Table::open(path.to_str().unwrap()).await.unwrap()
}

/// The data splits of the latest snapshot (or of `snapshot`).
pub async fn splits(table: &Table, snapshot: Option<i64>) -> Vec<DataSplit> {
    let mut b = table.scan();
    if let Some(id) = snapshot {
        b = b.with_snapshot(paimon_core::scan::SnapshotSelector::Id(id));
    }
    let plan = b.build().unwrap().plan().await.unwrap();
    plan.splits.iter().map(|s| s.as_data().clone()).collect()
}

/// Messages adding copies (new names, as a writer would write them) of the files of
/// `splits`, one message per split.
pub fn copies(splits: &[DataSplit]) -> Vec<CommitMessage> {
    splits
        .iter()
        .map(|d| {
            let mut m = CommitMessage::new(d.partition.clone(), d.bucket, d.total_buckets);
            for f in &d.files {
                let mut file = f.clone();
                let ext = f.file_name.rsplit('.').next().unwrap_or("parquet");
                file.file_name = format!("data-{}-0.{ext}", uuid::Uuid::new_v4());
                std::fs::copy(
                    d.file_location(f),
                    format!("{}/{}", d.bucket_path, file.file_name),
                )
                .unwrap();
                m.new_files.push(file);
            }
            m
        })
        .collect()
}

/// The rows of `splits`, rendered and sorted.
pub async fn rows_of(table: &Table, splits: &[DataSplit]) -> Vec<String> {
    let splits = splits
        .iter()
        .map(|d| paimon_core::Split::Data(d.clone()))
        .collect();
    render(
        &json_rows(&table.scan().build().unwrap().reader(), splits)
            .await
            .unwrap(),
    )
}

/// Every row of the latest snapshot of the table at `path`, rendered and sorted.
pub async fn all_rows(path: &Path) -> Vec<String> {
    let t = open(path).await;
    let s = splits(&t, None).await;
    rows_of(&t, &s).await
}

/// Names of the files in `<table>/manifest`, sorted.
pub fn manifest_files(table: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(table.join("manifest"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    v.sort();
    v
}
