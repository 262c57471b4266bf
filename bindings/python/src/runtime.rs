//! The package's one tokio runtime, keyed by process id.
//!
//! A multi-thread runtime's worker threads do not exist in a `fork()`ed child: the first
//! `block_on` there would hang. The runtime therefore remembers the process that built it; a
//! child gets a fresh runtime and the inherited one is leaked (dropping it would join threads
//! that are not there).

use std::future::Future;
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use tokio::runtime::{Handle, Runtime};

static RUNTIME: Mutex<Option<(u32, Arc<Runtime>)>> = Mutex::new(None);

/// The runtime of this process, built on first use (and again after a fork).
pub fn runtime() -> PyResult<Arc<Runtime>> {
    let pid = std::process::id();
    // A poisoned lock only means another thread panicked while building: the slot is still
    // consistent (it holds a whole value or none).
    let mut slot = RUNTIME.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((owner, rt)) = slot.as_ref() {
        if *owner == pid {
            return Ok(rt.clone());
        }
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("paimon-rs")
        .build()
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start the tokio runtime: {e}")))?;
    let rt = Arc::new(rt);
    if let Some((_, inherited)) = slot.replace((pid, rt.clone())) {
        // Inherited through fork(): its threads are gone, so it must never be dropped.
        std::mem::forget(inherited);
    }
    Ok(rt)
}

/// The handle of [`runtime`].
#[cfg_attr(not(feature = "datafusion"), allow(dead_code))]
pub fn handle() -> PyResult<Handle> {
    Ok(runtime()?.handle().clone())
}

/// Runs the future `make()` builds to completion on the runtime with the GIL released. The
/// future is built on the waiting thread, so it need not be `Send` (only `make` must be).
pub fn block_on<M, F>(py: Python<'_>, make: M) -> PyResult<F::Output>
where
    M: FnOnce() -> F + Send,
    F: Future,
    F::Output: Send,
{
    let rt = runtime()?;
    Ok(py.detach(move || rt.block_on(make())))
}
