//! `paimon_rs._native`: the Rust half of the Python package `paimon_rs` (see
//! `bindings/python/README.md`). Thin over paimon-core's front door: catalogs and tables,
//! scans planned and read with the GIL released, Arrow crossing through the C data and stream
//! interfaces, picklable splits, writes, and (feature `datafusion`) a DataFusion-Python table
//! provider.
//!
//! The crate is empty under `cfg(test)`: `cargo test --workspace --all-targets` builds a test
//! harness of it (an executable), and an extension module does not link libpython (pyo3's
//! `extension-module`), so any Python C API call there would be an unresolved symbol. Its tests
//! are Python's (`bindings/python/tests`).
#![cfg(not(test))]

#[cfg(feature = "datafusion")]
mod datafusion;
mod errors;
mod runtime;
mod scan;
mod split;
mod table;
mod write;

use pyo3::prelude::*;

/// The extension's Rust allocations (Arrow buffers included) go to jemalloc, which reuses
/// freed memory where glibc's malloc returns it to the kernel and faults it in again (`to_arrow()`
/// of a 3M-row table ~8% faster; a streaming read's peak RSS ~10% higher). Python's own
/// allocations are unaffected (prefixed symbols); buffers handed to pyarrow are freed through
/// their release callback, which runs this crate's deallocator.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// The extension module, imported as `paimon_rs._native` and re-exported by `paimon_rs`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("WITH_DATAFUSION", cfg!(feature = "datafusion"))?;
    errors::register(m)?;
    m.add_class::<table::PyCatalog>()?;
    m.add_class::<table::PyTable>()?;
    m.add_class::<scan::PyScan>()?;
    m.add_class::<scan::PyPlan>()?;
    m.add_class::<scan::BatchIter>()?;
    m.add_class::<split::PySplit>()?;
    m.add_function(wrap_pyfunction!(table::open_table, m)?)?;
    m.add_function(wrap_pyfunction!(table::read_split, m)?)?;
    Ok(())
}
