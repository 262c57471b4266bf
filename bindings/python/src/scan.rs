//! `Scan` (a validated scan: plan it, or read it whole or streaming), `Plan` and the
//! streaming batch iterator behind `to_reader()`.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

use arrow::pyarrow::{IntoPyArrow, ToPyArrow};
use arrow::record_batch::{RecordBatchIterator, RecordBatchReader};
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use paimon_core::spec::options::READ_BATCH_SIZE;
use paimon_core::{Split, Table, TableScan};
use pyo3::exceptions::PyStopIteration;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::errors::{to_py, IntoPyResult};
use crate::runtime::{block_on, runtime};
use crate::split::{PySplit, SplitPayload};

/// What a scan was asked for, kept to build splits' payloads and re-create the scan in workers.
#[derive(Debug, Clone, Default)]
pub struct ScanRequest {
    /// Dynamic options.
    pub options: BTreeMap<String, String>,
    /// Filter text.
    pub filter: Option<String>,
    /// Projection.
    pub columns: Option<Vec<String>>,
}

/// Rows per batch when neither the table nor the scan sets `read.batch-size`: DataFusion's
/// default. Java's 1024 costs a Python consumer ~10 µs per batch (one C-stream import or one
/// `__next__`), ~15% of a `to_arrow()` of a 3M-row table; 8192 keeps it under 2%.
pub const DEFAULT_PYTHON_BATCH_ROWS: NonZeroUsize = NonZeroUsize::MIN.saturating_add(8191);

impl ScanRequest {
    /// The paimon-core scan builder of this request over `table` (no I/O).
    pub fn builder(&self, table: &Table) -> paimon_core::Result<paimon_core::TableScanBuilder> {
        let mut b = table.scan().with_options(self.options.clone());
        let batch_size_set = self.options.contains_key(READ_BATCH_SIZE)
            || table.schema().options.contains_key(READ_BATCH_SIZE);
        if !batch_size_set {
            b = b.with_batch_size(DEFAULT_PYTHON_BATCH_ROWS);
        }
        if let Some(f) = &self.filter {
            b = b.with_filter(f.as_str())?;
        }
        if let Some(c) = &self.columns {
            b = b.select(c.iter().map(String::as_str))?;
        }
        Ok(b)
    }
}

/// A planned-or-not scan of a table with its filter, projection, snapshot, options and limit.
/// Built by `Table.scan(...)`; every method releases the GIL while it plans and reads.
#[pyclass(frozen, module = "paimon_rs._native", name = "Scan")]
pub struct PyScan {
    pub(crate) scan: Arc<TableScan>,
    pub(crate) request: ScanRequest,
}

/// Collects a stream of batches into a pyarrow.Table of `schema` (zero-copy through the Arrow C
/// stream interface).
pub fn batches_to_pyarrow<'py>(
    py: Python<'py>,
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
) -> PyResult<Bound<'py, PyAny>> {
    let reader: Box<dyn RecordBatchReader + Send> = Box::new(RecordBatchIterator::new(
        batches.into_iter().map(Ok),
        schema,
    ));
    reader.into_pyarrow(py)?.call_method0("read_all")
}

/// Reads `stream` to the end with the GIL released.
pub fn collect(
    py: Python<'_>,
    stream: BoxStream<'static, paimon_core::Result<RecordBatch>>,
) -> PyResult<Vec<RecordBatch>> {
    block_on(py, move || stream.try_collect::<Vec<_>>())?.py()
}

#[pymethods]
impl PyScan {
    /// Plans the scan: its splits (picklable) and what planning pruned.
    fn plan(&self, py: Python<'_>) -> PyResult<PyPlan> {
        let scan = self.scan.clone();
        let plan = block_on(py, move || async move { scan.plan().await })?.py()?;
        let metrics = serde_json::to_string(&plan.metrics).map_err(|e| {
            to_py(paimon_core::Error::internal(format!(
                "cannot serialise metrics: {e}"
            )))
        })?;
        let table = self.scan.table().location().to_string();
        let splits = plan
            .splits
            .into_iter()
            .map(|split| PySplit {
                payload: Arc::new(SplitPayload {
                    table: table.clone(),
                    options: self.request.options.clone(),
                    filter: self.request.filter.clone(),
                    columns: self.request.columns.clone(),
                    split,
                }),
            })
            .collect();
        Ok(PyPlan {
            snapshot_id: plan.snapshot_id,
            splits,
            metrics_json: metrics,
        })
    }

    /// The Arrow schema of what this scan returns (projection applied).
    #[getter]
    fn schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.scan.reader().schema().py()?.as_ref().to_pyarrow(py)
    }

    /// Plans and reads everything into one `pyarrow.Table`.
    fn to_arrow<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let scan = self.scan.clone();
        let (schema, batches) = block_on(py, move || async move {
            let plan = scan.plan().await?;
            let reader = scan.reader();
            let schema = reader.schema()?;
            let batches: Vec<RecordBatch> = reader.read(plan.splits)?.try_collect().await?;
            Ok::<_, paimon_core::Error>((schema, batches))
        })?
        .py()?;
        batches_to_pyarrow(py, schema, batches)
    }

    /// Plans, then streams the batches as a `pyarrow.RecordBatchReader` (decoding runs ahead on
    /// the package's runtime; errors raise the paimon_rs exception when reached).
    fn to_reader<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let scan = self.scan.clone();
        let (schema, stream) = block_on(py, move || async move {
            let plan = scan.plan().await?;
            let reader = scan.reader();
            let schema = reader.schema()?;
            Ok::<_, paimon_core::Error>((schema, reader.read(plan.splits)?))
        })?
        .py()?;
        batch_reader(py, schema, stream)
    }

    /// Plans and reads everything into a `pandas.DataFrame` (pyarrow's conversion).
    fn to_pandas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.to_arrow(py)?.call_method0("to_pandas")
    }

    /// Reads the given splits (of this scan's `plan()`) into one `pyarrow.Table`.
    fn read_splits<'py>(
        &self,
        py: Python<'py>,
        splits: Vec<PyRef<'py, PySplit>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let splits: Vec<Split> = splits.iter().map(|s| s.payload.split.clone()).collect();
        let reader = self.scan.reader();
        let schema = reader.schema().py()?;
        let stream = enter(|| reader.read(splits))?.py()?;
        let batches = collect(py, stream)?;
        batches_to_pyarrow(py, schema, batches)
    }
}

/// Runs `f` inside the runtime's context (paimon-core spawns its read tasks when a stream is
/// created).
pub fn enter<T>(f: impl FnOnce() -> T) -> PyResult<T> {
    let rt = runtime()?;
    let _guard = rt.enter();
    Ok(f())
}

/// A `pyarrow.RecordBatchReader` over `stream`: pyarrow pulls batches from a [`BatchIter`].
pub fn batch_reader<'py>(
    py: Python<'py>,
    schema: SchemaRef,
    stream: BoxStream<'static, paimon_core::Result<RecordBatch>>,
) -> PyResult<Bound<'py, PyAny>> {
    let iter = BatchIter {
        stream: Mutex::new(Some(stream)),
    };
    let reader_class = py.import("pyarrow")?.getattr("RecordBatchReader")?;
    reader_class.call_method1(
        "from_batches",
        (schema.as_ref().to_pyarrow(py)?, Bound::new(py, iter)?),
    )
}

/// A Python iterator of `pyarrow.RecordBatch`es over a paimon-core stream. Each `__next__`
/// waits for the next batch with the GIL released; a read error raises the mapped paimon_rs
/// exception (a C stream would turn it into `pyarrow.ArrowInvalid`).
#[pyclass(frozen, module = "paimon_rs._native", name = "BatchIter")]
pub struct BatchIter {
    stream: Mutex<Option<BoxStream<'static, paimon_core::Result<RecordBatch>>>>,
}

#[pymethods]
impl BatchIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        // One consumer per reader: the stream is taken out while waiting, put back after.
        let taken = self.stream.lock().unwrap_or_else(|e| e.into_inner()).take();
        let Some(mut stream) = taken else {
            return Err(PyStopIteration::new_err(()));
        };
        let (item, stream) = block_on(py, move || async move {
            let item = stream.next().await;
            (item, stream)
        })?;
        match item {
            Some(Ok(batch)) => {
                *self.stream.lock().unwrap_or_else(|e| e.into_inner()) = Some(stream);
                batch.to_pyarrow(py)
            }
            // End or error: the stream is done.
            Some(Err(e)) => Err(to_py(e)),
            None => Err(PyStopIteration::new_err(())),
        }
    }
}

/// The result of `Scan.plan()`.
#[pyclass(frozen, module = "paimon_rs._native", name = "Plan")]
pub struct PyPlan {
    snapshot_id: Option<i64>,
    splits: Vec<PySplit>,
    metrics_json: String,
}

#[pymethods]
impl PyPlan {
    /// The snapshot planned (None for a table without snapshots).
    #[getter]
    fn snapshot_id(&self) -> Option<i64> {
        self.snapshot_id
    }

    /// The splits, picklable.
    #[getter]
    fn splits<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.splits.iter().cloned())
    }

    /// What planning did (manifests read, partitions, buckets and files pruned, ...), as a
    /// dict.
    #[getter]
    fn metrics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("json")?
            .call_method1("loads", (self.metrics_json.as_str(),))
    }

    fn __len__(&self) -> usize {
        self.splits.len()
    }

    fn __repr__(&self) -> String {
        let snapshot = self
            .snapshot_id
            .map_or_else(|| "None".to_string(), |id| id.to_string());
        format!("Plan(snapshot_id={snapshot}, splits={})", self.splits.len())
    }
}
