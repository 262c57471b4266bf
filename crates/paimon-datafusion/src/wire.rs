//! What a scan needs to be rebuilt in another process: [`ReadWire`] (the read's settings) and
//! split rows (planned [`Split`]s as one JSON string per row, the rows of one partition in one
//! batch).
//!
//! A [`PaimonScanExec`](crate::scan::PaimonScanExec) reads the split rows of its child, an
//! in-memory DataFusion source with one partition per split group. Distributed engines narrow
//! the sources they know to a task's partitions (Ballista 55 narrows `MemorySourceConfig` and
//! leaves unknown leaves whole, so a leaf scan would be read in full by every task), and
//! DataFusion's own protobuf codec ships the rows; the scan node itself carries only the
//! [`ReadWire`]. Local and remote reads are built by the same [`ReadWire::scan_builder`].

use std::collections::{BTreeMap, HashMap};
use std::num::NonZeroUsize;
use std::sync::Arc;

use arrow::array::{Array, StringArray};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use datafusion::common::{exec_err, DataFusionError, Result};
use paimon_core::scan::TableScanBuilder;
use paimon_core::{FileIO, Predicate, Split, Table, TableRead};
use serde::{Deserialize, Serialize};

use crate::error::to_df_error;

/// The read settings of one scan node, enough to rebuild its [`TableRead`] from the table's
/// storage: no live handle, no credentials (each process brings its own [`FileIO`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadWire {
    /// Table root location (a local path or URL).
    pub location: String,
    /// `db.table`, for errors and plans.
    pub name: String,
    /// The schema id the scan was planned with: a reader that finds another latest schema
    /// refuses to read rather than resolve columns differently.
    pub schema_id: i64,
    /// Table option overrides of the scan (the session's `paimon.*` options).
    pub options: BTreeMap<String, String>,
    /// Columns read, by name.
    pub columns: Vec<String>,
    /// The predicate pushed into the scan.
    pub predicate: Option<Predicate>,
    /// The limit pushed into the scan.
    pub limit: Option<usize>,
    /// Rows per batch.
    pub batch_size: Option<usize>,
    /// Keys whose merged record is a retraction are kept (the audit log's read, Java
    /// `forceKeepDelete`).
    #[serde(default)]
    pub keep_delete: bool,
}

impl ReadWire {
    /// A scan builder of `table` with these settings (the same for planning and reading).
    pub fn scan_builder(&self, table: &Table) -> Result<TableScanBuilder> {
        let err = |e| to_df_error(e, &self.name);
        let mut builder = table
            .scan()
            .with_options(self.options.clone())
            .select(self.columns.iter().cloned())
            .map_err(err)?;
        if let Some(p) = &self.predicate {
            builder = builder.with_predicate(p.clone());
        }
        if let Some(l) = self.limit {
            builder = builder.with_limit(l);
        }
        if let Some(n) = self.batch_size.and_then(NonZeroUsize::new) {
            builder = builder.with_batch_size(n);
        }
        Ok(builder)
    }

    /// Opens the table through `io` and builds the read; fails when the table's latest schema
    /// is no longer the one the scan was planned with.
    pub async fn open(&self, io: FileIO) -> Result<TableRead> {
        let table = Table::open_with(io, &self.location, &HashMap::new())
            .await
            .map_err(|e| to_df_error(e, &self.name))?;
        if table.schema().id != self.schema_id {
            return exec_err!(
                "paimon table {}: planned with schema {}, but the latest schema is now {}",
                self.name,
                self.schema_id,
                table.schema().id
            );
        }
        let scan = self
            .scan_builder(&table)?
            .build()
            .map_err(|e| to_df_error(e, &self.name))?;
        Ok(scan
            .reader()
            .with_keep_delete(self.keep_delete)
            .with_string_views(true))
    }
}

/// The schema of split rows: one non-null `split` string (a [`Split`] as JSON).
pub fn split_rows_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new(
        "split",
        DataType::Utf8,
        false,
    )]))
}

/// The splits of one group as one batch of split rows.
pub fn encode_split_rows(splits: &[Split]) -> Result<RecordBatch> {
    let rows = splits
        .iter()
        .map(serde_json::to_string)
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| DataFusionError::Internal(format!("cannot serialise a split: {e}")))?;
    let column = Arc::new(StringArray::from(rows));
    Ok(RecordBatch::try_new(split_rows_schema(), vec![column])?)
}

/// The splits in a batch of split rows; `table` names the table in errors.
pub fn decode_split_rows(batch: &RecordBatch, table: &str) -> Result<Vec<Split>> {
    let rows = batch
        .columns()
        .first()
        .and_then(|c| c.as_any().downcast_ref::<StringArray>());
    let Some(rows) = rows else {
        return exec_err!("paimon table {table}: split rows are not one string column");
    };
    let mut out = Vec::with_capacity(rows.len());
    for i in 0..rows.len() {
        if rows.is_null(i) {
            return exec_err!("paimon table {table}: null split row {i}");
        }
        let split = serde_json::from_str(rows.value(i)).map_err(|e| {
            DataFusionError::Execution(format!("paimon table {table}: bad split row {i}: {e}"))
        })?;
        out.push(split);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_split_rows_are_errors_naming_the_table() {
        let batch = RecordBatch::try_new(
            split_rows_schema(),
            vec![Arc::new(StringArray::from(vec!["{\"Data\": 1}"]))],
        )
        .unwrap();
        let e = decode_split_rows(&batch, "db.t").unwrap_err().to_string();
        assert!(e.contains("db.t") && e.contains("bad split row 0"), "{e}");
        let empty = encode_split_rows(&[]).unwrap();
        assert!(decode_split_rows(&empty, "db.t").unwrap().is_empty());
    }
}
