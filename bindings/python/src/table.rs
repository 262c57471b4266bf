//! `Catalog` and `Table`: opening tables, their schema, options and snapshots, scans, reading
//! splits (also in other processes) and writing.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use arrow::pyarrow::{PyArrowType, ToPyArrow};
use paimon_core::{FileIO, FileSystemCatalog, Identifier, Schema, SnapshotSelector, Table};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{to_py, IntoPyResult};
use crate::runtime::block_on;
use crate::scan::{batches_to_pyarrow, collect, enter, PyScan, ScanRequest};
use crate::split::PySplit;

/// A filesystem catalog: databases are `<name>.db` directories of the warehouse (a local path
/// or an `s3://`, `gs://`, `az://` URL when built with those stores). `options` are storage
/// options (credentials, endpoints).
#[pyclass(frozen, module = "paimon_rs._native", name = "Catalog")]
pub struct PyCatalog {
    catalog: FileSystemCatalog,
}

#[pymethods]
impl PyCatalog {
    #[new]
    #[pyo3(signature = (warehouse, options = None))]
    fn new(warehouse: &str, options: Option<HashMap<String, String>>) -> PyResult<Self> {
        Ok(PyCatalog {
            catalog: FileSystemCatalog::new(warehouse, options.unwrap_or_default()).py()?,
        })
    }

    /// The warehouse root.
    #[getter]
    fn warehouse(&self) -> &str {
        self.catalog.warehouse()
    }

    /// The databases, by name.
    fn list_databases(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        let c = self.catalog.clone();
        block_on(py, move || async move { c.list_databases().await })?.py()
    }

    /// The tables of `database`, by name.
    fn list_tables(&self, py: Python<'_>, database: String) -> PyResult<Vec<String>> {
        let c = self.catalog.clone();
        block_on(py, move || async move { c.list_tables(&database).await })?.py()
    }

    /// The table `db.table` (NotFoundError when it does not exist).
    fn get_table(&self, py: Python<'_>, name: &str) -> PyResult<PyTable> {
        let id = Identifier::parse(name).py()?;
        let c = self.catalog.clone();
        let table = block_on(py, move || async move { c.get_table(&id).await })?.py()?;
        Ok(PyTable { table })
    }

    /// Creates database `name` (AlreadyExistsError unless `ignore_if_exists`).
    #[pyo3(signature = (name, ignore_if_exists = false))]
    fn create_database(
        &self,
        py: Python<'_>,
        name: String,
        ignore_if_exists: bool,
    ) -> PyResult<()> {
        let c = self.catalog.clone();
        block_on(py, move || async move {
            c.create_database(&name, ignore_if_exists).await
        })?
        .py()
    }

    /// Creates table `db.table` with the columns of the `pyarrow.Schema` `schema` (Java's
    /// schema file, field ids, validation and messages) and returns it.
    #[pyo3(signature = (name, schema, primary_keys = None, partition_keys = None,
                        options = None, ignore_if_exists = false))]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments
    fn create_table(
        &self,
        py: Python<'_>,
        name: &str,
        schema: PyArrowType<arrow_schema::Schema>,
        primary_keys: Option<Vec<String>>,
        partition_keys: Option<Vec<String>>,
        options: Option<BTreeMap<String, String>>,
        ignore_if_exists: bool,
    ) -> PyResult<PyTable> {
        let id = Identifier::parse(name).py()?;
        let mut b = Schema::builder()
            .arrow_columns(&schema.0)
            .py()?
            .primary_key(primary_keys.unwrap_or_default())
            .partition_keys(partition_keys.unwrap_or_default());
        for (k, v) in options.unwrap_or_default() {
            b = b.option(k, v);
        }
        let schema = b.build().py()?;
        let c = self.catalog.clone();
        let table = block_on(py, move || async move {
            c.create_table(&id, schema, ignore_if_exists).await
        })?
        .py()?;
        Ok(PyTable { table })
    }

    /// This warehouse as a DataFusion-Python catalog (`ctx.register_catalog_provider("paimon",
    /// catalog)`, then `SELECT ... FROM paimon.db.table`); databases and tables are listed when
    /// it is registered. Requires PyPI `datafusion` with the major version this package was
    /// built against.
    #[cfg(feature = "datafusion")]
    fn __datafusion_catalog_provider__<'py>(
        &self,
        py: Python<'py>,
        session: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, pyo3::types::PyCapsule>> {
        crate::datafusion::catalog_provider(py, &self.catalog, session)
    }

    fn __repr__(&self) -> String {
        format!("Catalog({:?})", self.catalog.warehouse())
    }
}

/// A Paimon table (its latest schema). Scan it, read splits, write to it.
#[pyclass(frozen, module = "paimon_rs._native", name = "Table")]
pub struct PyTable {
    pub(crate) table: Table,
}

/// Opens the table at `location` with storage `options`.
pub fn open(py: Python<'_>, location: &str, storage: HashMap<String, String>) -> PyResult<PyTable> {
    let io = FileIO::new(storage);
    let location = location.to_string();
    let table = block_on(py, move || async move {
        Table::open_with(io, &location, &HashMap::new()).await
    })?
    .py()?;
    Ok(PyTable { table })
}

/// Opens a table directory (or URL) without a catalog.
#[pyfunction]
#[pyo3(signature = (location, options = None))]
pub fn open_table(
    py: Python<'_>,
    location: &str,
    options: Option<HashMap<String, String>>,
) -> PyResult<PyTable> {
    open(py, location, options.unwrap_or_default())
}

/// Reads one split (from `Scan.plan()`, possibly pickled in another process) into a
/// `pyarrow.Table`, with the filter, projection and options of the scan that planned it.
/// `options` are storage options for opening the split's table.
#[pyfunction]
#[pyo3(signature = (split, options = None))]
pub fn read_split<'py>(
    py: Python<'py>,
    split: PyRef<'py, PySplit>,
    options: Option<HashMap<String, String>>,
) -> PyResult<Bound<'py, PyAny>> {
    let table = open(py, &split.payload.table, options.unwrap_or_default())?;
    table.read_split(py, split)
}

fn selector(
    snapshot: Option<i64>,
    tag: Option<String>,
    timestamp_millis: Option<i64>,
) -> PyResult<SnapshotSelector> {
    match (snapshot, tag, timestamp_millis) {
        (None, None, None) => Ok(SnapshotSelector::Latest),
        (Some(id), None, None) => Ok(SnapshotSelector::Id(id)),
        (None, Some(t), None) => Ok(SnapshotSelector::Tag(t)),
        (None, None, Some(ms)) => Ok(SnapshotSelector::TimestampMillis(ms)),
        _ => Err(PyValueError::new_err(
            "give at most one of snapshot, tag and timestamp_millis",
        )),
    }
}

#[pymethods]
impl PyTable {
    /// The table directory (or URL).
    #[getter]
    fn location(&self) -> &str {
        self.table.location()
    }

    /// `db.table` (or the location when not inside a `<db>.db` directory).
    #[getter]
    fn name(&self) -> String {
        self.table.full_name()
    }

    /// The latest schema as a `pyarrow.Schema` (Paimon field ids in the field metadata).
    #[getter]
    fn schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let schema = paimon_core::arrow::arrow_schema(&self.table.schema().fields).py()?;
        schema.as_ref().to_pyarrow(py)
    }

    /// The stored table options, in stored order.
    #[getter]
    fn options<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in self.table.schema().options.iter() {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    /// The primary-key columns (empty for append tables).
    #[getter]
    fn primary_keys(&self) -> Vec<String> {
        self.table.schema().primary_keys.clone()
    }

    /// The partition columns.
    #[getter]
    fn partition_keys(&self) -> Vec<String> {
        self.table.schema().partition_keys.clone()
    }

    /// Every readable snapshot, oldest first, as dicts with Java's field names (`id`,
    /// `schemaId`, `commitKind`, `timeMillis`, `totalRecordCount`, ...).
    fn snapshots<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let sm = self.table.snapshot_manager().clone();
        let snapshots = block_on(py, move || async move { sm.snapshots().await })?.py()?;
        let json = serde_json::to_string(&snapshots).map_err(|e| {
            to_py(paimon_core::Error::internal(format!(
                "cannot serialise snapshots: {e}"
            )))
        })?;
        py.import("json")?.call_method1("loads", (json,))
    }

    /// The tag names.
    fn tags(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        let sm = self.table.snapshot_manager().clone();
        block_on(py, move || async move { sm.tag_names().await })?.py()
    }

    /// A scan: `filter` is SQL text (`"dt = '2024-01-02' AND amount > 100"`, as the CLI's
    /// `--where`), `columns` a projection, at most one of `snapshot` / `tag` /
    /// `timestamp_millis` for time travel, `options` Java dynamic options for this scan,
    /// `limit` an upper bound of rows. Batches hold 8192 rows unless the table or `options`
    /// set `read.batch-size`. Validated now; no I/O until it is planned or read.
    #[pyo3(signature = (filter = None, columns = None, snapshot = None, tag = None,
                        timestamp_millis = None, options = None, limit = None))]
    #[allow(clippy::too_many_arguments)]
    fn scan(
        &self,
        filter: Option<String>,
        columns: Option<Vec<String>>,
        snapshot: Option<i64>,
        tag: Option<String>,
        timestamp_millis: Option<i64>,
        options: Option<BTreeMap<String, String>>,
        limit: Option<usize>,
    ) -> PyResult<PyScan> {
        let request = ScanRequest {
            options: options.unwrap_or_default(),
            filter,
            columns,
        };
        let mut builder = request.builder(&self.table).py()?.with_snapshot(selector(
            snapshot,
            tag,
            timestamp_millis,
        )?);
        if let Some(n) = limit {
            builder = builder.with_limit(n);
        }
        Ok(PyScan {
            scan: Arc::new(builder.build().py()?),
            request,
        })
    }

    /// Reads one split of a `plan()` of this table into a `pyarrow.Table`, with the filter,
    /// projection and options of the scan that planned it.
    fn read_split<'py>(
        &self,
        py: Python<'py>,
        split: PyRef<'py, PySplit>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let payload = split.payload.clone();
        if payload.table != self.table.location() {
            return Err(to_py(paimon_core::Error::invalid_argument(format!(
                "the split belongs to table {}, not to {}",
                payload.table,
                self.table.location()
            ))));
        }
        let request = ScanRequest {
            options: payload.options.clone(),
            filter: payload.filter.clone(),
            columns: payload.columns.clone(),
        };
        let reader = request.builder(&self.table).py()?.build().py()?.reader();
        let schema = reader.schema().py()?;
        let stream = enter(|| reader.read(vec![payload.split.clone()]))?.py()?;
        let batches = collect(py, stream)?;
        batches_to_pyarrow(py, schema, batches)
    }

    /// Writes `data` (a `pyarrow.Table`, `RecordBatch`, `RecordBatchReader`, pandas
    /// `DataFrame` or anything with `__arrow_c_stream__`; columns by name) as one commit:
    /// appended (primary-key tables: upserted), or with `overwrite=True` replacing the written
    /// partitions (dynamic overwrite; `partition={"dt": "..."}`: that static partition; an
    /// unpartitioned table: everything). Returns the new snapshot id, or None when `data` has
    /// no rows.
    #[pyo3(signature = (data, overwrite = false, partition = None, commit_user = None))]
    fn write(
        &self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        overwrite: bool,
        partition: Option<HashMap<String, String>>,
        commit_user: Option<String>,
    ) -> PyResult<Option<i64>> {
        crate::write::write(
            py,
            &self.table,
            data,
            crate::write::WriteRequest {
                overwrite,
                partition,
                commit_user,
            },
        )
    }

    /// This table as a DataFusion-Python table provider (`ctx.register_table("t", table)`);
    /// requires PyPI `datafusion` with the major version this package was built against.
    #[cfg(feature = "datafusion")]
    fn __datafusion_table_provider__<'py>(
        &self,
        py: Python<'py>,
        session: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, pyo3::types::PyCapsule>> {
        crate::datafusion::table_provider(py, &self.table, session)
    }

    fn __repr__(&self) -> String {
        format!("Table({:?})", self.table.location())
    }
}
