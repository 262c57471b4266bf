//! `Split`: one unit of reading work that pickles to compact bytes.
//!
//! The bytes are `PRS1` + zstd(JSON of [`SplitPayload`]): the table location, the scan's
//! dynamic options, filter text and projection, and paimon-core's serialisable split. A worker
//! that has only these bytes (plus storage credentials, never stored in them) reads the split
//! with [`crate::table::read_split`]. The encoding is only guaranteed between equal versions of
//! the package; the leading tag changes when the layout does.

use std::collections::BTreeMap;
use std::sync::Arc;

use paimon_core::Error;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};
use serde::{Deserialize, Serialize};

use crate::errors::IntoPyResult;

/// Leading tag of the encoded bytes (format version 1).
const MAGIC: &[u8; 4] = b"PRS1";

/// What a worker needs to read one split the way the planning scan would.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SplitPayload {
    /// Table location (directory or URL).
    pub table: String,
    /// The scan's dynamic options (`scan(options=...)`).
    pub options: BTreeMap<String, String>,
    /// The scan's filter text, if any.
    pub filter: Option<String>,
    /// The scan's projection, if any.
    pub columns: Option<Vec<String>>,
    /// paimon-core's split.
    pub split: paimon_core::Split,
}

impl SplitPayload {
    /// `PRS1` + zstd(JSON).
    pub fn encode(&self) -> paimon_core::Result<Vec<u8>> {
        let json = serde_json::to_vec(self)
            .map_err(|e| Error::internal(format!("cannot serialise a split: {e}")))?;
        let packed = zstd::bulk::compress(&json, 3)
            .map_err(|e| Error::internal(format!("cannot compress a split: {e}")))?;
        let mut out = Vec::with_capacity(MAGIC.len() + packed.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&packed);
        Ok(out)
    }

    /// The inverse of [`Self::encode`]; anything else is `DataInvalid`.
    pub fn decode(bytes: &[u8]) -> paimon_core::Result<SplitPayload> {
        let body = bytes
            .strip_prefix(MAGIC.as_slice())
            .ok_or_else(|| Error::data_invalid("not a paimon_rs split (expected the PRS1 tag)"))?;
        let mut json = Vec::new();
        zstd::stream::copy_decode(body, &mut json)
            .map_err(|e| Error::data_invalid(format!("corrupt paimon_rs split: {e}")))?;
        serde_json::from_slice(&json)
            .map_err(|e| Error::data_invalid(format!("corrupt paimon_rs split: {e}")))
    }
}

/// One unit of reading work of a planned scan: the data files of one (partition, bucket).
///
/// Picklable (`pickle.dumps(split)` is the compact `to_bytes()` form); read it with
/// `Table.read_split(split)` or `paimon_rs.read_split(split)` in any process.
#[pyclass(
    frozen,
    skip_from_py_object,
    module = "paimon_rs._native",
    name = "Split"
)]
#[derive(Clone)]
pub struct PySplit {
    pub(crate) payload: Arc<SplitPayload>,
}

#[pymethods]
impl PySplit {
    /// A split from the bytes of `to_bytes()` (or a pickle).
    #[new]
    fn new(data: &[u8]) -> PyResult<Self> {
        Ok(PySplit {
            payload: Arc::new(SplitPayload::decode(data).py()?),
        })
    }

    /// The split as compact bytes (`Split(bytes)` reads them back).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.payload.encode().py()?))
    }

    /// Pickles as `Split(to_bytes())`.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let cls = py.get_type::<PySplit>();
        let args = PyTuple::new(py, [self.to_bytes(py)?])?;
        PyTuple::new(py, [cls.into_any(), args.into_any()])
    }

    /// Location of the table the split belongs to.
    #[getter]
    fn table_location(&self) -> &str {
        &self.payload.table
    }

    /// The snapshot the split was planned from.
    #[getter]
    fn snapshot_id(&self) -> i64 {
        self.payload.split.as_data().snapshot_id
    }

    /// The bucket.
    #[getter]
    fn bucket(&self) -> i32 {
        self.payload.split.as_data().bucket
    }

    /// Partition values as strings (None for null), by partition key.
    #[getter]
    fn partition<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in &self.payload.split.as_data().partition_values {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    /// Rows in the split's files, before deletion vectors, merging and filtering.
    #[getter]
    fn row_count(&self) -> i64 {
        self.payload.split.as_data().row_count()
    }

    /// Full locations of the split's data files, in read order.
    #[getter]
    fn files(&self) -> Vec<String> {
        let d = self.payload.split.as_data();
        d.files.iter().map(|f| d.file_location(f)).collect()
    }

    /// Total size in bytes of the split's data files.
    #[getter]
    fn file_size(&self) -> i64 {
        self.payload
            .split
            .as_data()
            .files
            .iter()
            .map(|f| f.file_size)
            .sum()
    }

    fn __repr__(&self) -> String {
        let d = self.payload.split.as_data();
        let partition: Vec<String> = d
            .partition_values
            .iter()
            .map(|(k, v)| format!("{k}={}", v.as_deref().unwrap_or("null")))
            .collect();
        format!(
            "Split(snapshot={}, partition=[{}], bucket={}, files={}, rows={})",
            d.snapshot_id,
            partition.join(", "),
            d.bucket,
            d.files.len(),
            d.row_count()
        )
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<PySplit>() {
            Ok(o) => {
                let (a, b) = (&self.payload, &o.get().payload);
                a.split == b.split
                    && a.table == b.table
                    && a.options == b.options
                    && a.filter == b.filter
                    && a.columns == b.columns
            }
            Err(_) => false,
        }
    }
}
