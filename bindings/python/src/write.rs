//! `Table.write`: Arrow data from Python into one commit.

use std::collections::HashMap;

use arrow::ffi_stream::ArrowArrayStreamReader;
use arrow::pyarrow::FromPyArrow;
use paimon_core::{Error, Table};
use pyo3::prelude::*;

use crate::errors::IntoPyResult;
use crate::runtime::runtime;

/// How to commit a write.
pub struct WriteRequest {
    /// Replace instead of append.
    pub overwrite: bool,
    /// With `overwrite`: a static partition spec (column → value text).
    pub partition: Option<HashMap<String, String>>,
    /// The snapshots' commit user (default: a random UUID).
    pub commit_user: Option<String>,
}

/// `data` as an Arrow C stream: anything with `__arrow_c_stream__` (or pyarrow's
/// `_export_to_c`); other objects (a pandas DataFrame of pandas < 2.2, a dict of columns) go
/// through `pyarrow.table(data)` first.
fn input_stream(data: &Bound<'_, PyAny>) -> PyResult<ArrowArrayStreamReader> {
    if data.hasattr("__arrow_c_stream__")? || data.hasattr("_export_to_c")? {
        return ArrowArrayStreamReader::from_pyarrow_bound(data);
    }
    let table = data
        .py()
        .import("pyarrow")?
        .call_method1("table", (data,))?;
    ArrowArrayStreamReader::from_pyarrow_bound(&table)
}

/// Drains `data` into a `TableWrite` on the calling thread (the stream may call back into
/// Python, so never inside a runtime task) with the GIL released, then commits once.
pub fn write(
    py: Python<'_>,
    table: &Table,
    data: &Bound<'_, PyAny>,
    req: WriteRequest,
) -> PyResult<Option<i64>> {
    if req.partition.is_some() && !req.overwrite {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "partition is only meaningful with overwrite=True",
        ));
    }
    let stream = input_stream(data)?;
    let rt = runtime()?;
    let mut table = table.clone();
    if req.partition.is_some() {
        // An explicit spec is a static overwrite (as `paimon write --partition`).
        let dynamic_off = HashMap::from([(
            "dynamic-partition-overwrite".to_string(),
            "false".to_string(),
        )]);
        table = table.with_options(&dynamic_off).py()?;
    }
    py.detach(move || -> paimon_core::Result<Option<i64>> {
        let mut builder = table.new_write();
        if let Some(u) = req.commit_user {
            builder = builder.with_commit_user(u);
        }
        let mut write = builder.build()?;
        for batch in stream {
            let batch = batch.map_err(|e| {
                Error::invalid_argument(format!("cannot read the data to write: {e}"))
            })?;
            rt.block_on(write.write(&batch))?;
        }
        rt.block_on(async {
            let messages = write.prepare_commit().await?;
            let commit = table.new_commit();
            let snapshots = if req.overwrite {
                commit
                    .overwrite_messages(&messages, write.commit_user(), req.partition.as_ref())
                    .await?
            } else {
                commit
                    .commit_messages(&messages, write.commit_user())
                    .await?
            };
            Ok(snapshots.last().map(|s| s.id))
        })
    })
    .py()
}
