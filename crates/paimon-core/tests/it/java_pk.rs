//! Primary-key tables written by Java Paimon: merge-on-read, deletion vectors, merge engines.

use crate::common::{java_table, read_rows, rows, Query};

#[tokio::test]
#[ignore]
async fn dump() {
    for t in [
         
        "parquet/pk_dv_index_not_in_data_no_external", "parquet/pk_table_nested_type", "parquet/pk_table_partial_update",
        "parquet/pk_table_scan_and_read_dv", "parquet/pk_table_scan_and_read_first_row", "parquet/pk_table_scan_and_read_mor",
        "parquet/pk_table_with_dv_cardinality", "parquet/pk_table_with_mor", "parquet/pk_with_bitmap_dv",
        "orc/pk_09_with_dv", "orc/pk_dv_index_with_commit_message_version10", "orc/pk_table_scan_and_read_dv", "orc/pk_table_scan_and_read_first_row",
    ] {
        let path = java_table(t);
        let table = paimon_core::catalog::Table::open(&path).await.unwrap();
        let latest = table.snapshot_manager().latest_snapshot().await.unwrap().map(|s| s.id).unwrap_or(0);
        for s in 1..=latest {
            let q = Query { snapshot: Some(s), ..Query::default() };
            let r = tokio::spawn(async move { read_rows(&java_table(t), q).await }).await;
            match r {
                Ok(r) => println!("{t} @{s}: {r:#?}"),
                Err(e) => println!("{t} @{s}: PANIC {e}"),
            }
        }
    }
    let _ = rows(&[]);
}
