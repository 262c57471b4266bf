//! [`PaimonSink`]: `INSERT INTO` / `INSERT OVERWRITE` of a Paimon table as a DataFusion
//! [`DataSink`] (DataFusion runs it under a `DataSinkExec` that merges the input into one
//! partition and returns one `count` row).
//!
//! Every batch goes through one [`TableWrite`](paimon_core::TableWrite) (the library's front
//! door: columns matched by name and type, rows routed to partitions and buckets, primary-key
//! buffers merged and sorted); the messages are committed as one snapshot when the input ends.
//! `INSERT OVERWRITE` follows Java's default (`dynamic-partition-overwrite = true`): only the
//! partitions receiving rows are replaced, the whole table when it is unpartitioned. A failed
//! statement commits nothing (files written before the failure are left for orphan removal).

use std::fmt;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use async_trait::async_trait;
use datafusion::common::{DataFusionError, Result};
use datafusion::datasource::sink::DataSink;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::{DisplayAs, DisplayFormatType};
use futures::StreamExt;
use paimon_core::Table;

use crate::error::to_df_error;

/// Writes a statement's rows into a Paimon table and commits them once.
#[derive(Debug)]
pub struct PaimonSink {
    table: Table,
    name: String,
    schema: SchemaRef,
    overwrite: bool,
}

impl PaimonSink {
    /// A sink into `table` (named `name` in errors) taking batches of `schema`; `overwrite`
    /// replaces the partitions written (or the whole unpartitioned table).
    pub fn new(table: Table, name: String, schema: SchemaRef, overwrite: bool) -> Self {
        PaimonSink {
            table,
            name,
            schema,
            overwrite,
        }
    }
}

impl DisplayAs for PaimonSink {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let op = if self.overwrite {
            "overwrite"
        } else {
            "append"
        };
        write!(f, "PaimonSink: table={}, {op}", self.name)
    }
}

#[async_trait]
impl DataSink for PaimonSink {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    async fn write_all(
        &self,
        data: SendableRecordBatchStream,
        _context: &Arc<TaskContext>,
    ) -> Result<u64> {
        write_and_commit(self.table.clone(), self.name.clone(), self.overwrite, data).await
    }
}

/// Writes `data` and commits once, on a blocking thread of the current runtime: the
/// futures of paimon-core's `TableWrite` are not `Send` (its Parquet and ORC encoders are not
/// `Sync`), which DataFusion's `async_trait` methods require; `block_on` there needs only the
/// inputs to be `Send`.
async fn write_and_commit(
    table: Table,
    name: String,
    overwrite: bool,
    data: SendableRecordBatchStream,
) -> Result<u64> {
    let handle = tokio::runtime::Handle::current();
    let task = tokio::task::spawn_blocking(move || {
        handle.block_on(write_all(table, name, overwrite, data))
    });
    match task.await {
        Ok(r) => r,
        Err(e) => Err(DataFusionError::Execution(format!(
            "paimon write task failed: {e}"
        ))),
    }
}

async fn write_all(
    table: Table,
    name: String,
    overwrite: bool,
    mut data: SendableRecordBatchStream,
) -> Result<u64> {
    let err = |e| to_df_error(e, &name);
    let mut write = table.new_write().build().map_err(err)?;
    let mut rows = 0u64;
    while let Some(batch) = data.next().await {
        let batch = batch?;
        if batch.num_rows() == 0 {
            continue;
        }
        write.write(&batch).await.map_err(err)?;
        rows += batch.num_rows() as u64;
    }
    let messages = write.prepare_commit().await.map_err(err)?;
    let commit = table.new_commit();
    let user = write.commit_user().to_string();
    if overwrite {
        commit
            .overwrite_messages(&messages, &user, None)
            .await
            .map_err(err)?;
    } else if rows > 0 {
        commit
            .commit_messages(&messages, &user)
            .await
            .map_err(err)?;
    }
    Ok(rows)
}
