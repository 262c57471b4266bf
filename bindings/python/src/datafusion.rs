//! `Table.__datafusion_table_provider__`: the table as a DataFusion-Python table provider,
//! through datafusion-ffi's `FFI_TableProvider` in a `datafusion_table_provider` capsule.
//!
//! Two pitfalls handled here:
//! - The FFI structs are only compatible between equal DataFusion majors; a provider built for
//!   55 registered into PyPI `datafusion` 54 crashes the interpreter on the first query. The
//!   installed `datafusion` version is checked against `datafusion_ffi::version()` before any
//!   capsule is handed out.
//! - DataFusion-Python polls `TableProvider::scan` on its own tokio (another copy of the crate,
//!   in another shared library), where paimon-core's storage calls find no runtime. Every poll
//!   of the planning future therefore enters this package's runtime ([`OnRuntime`]); execution
//!   and stream polling enter it through the handle given to `FFI_TableProvider`.

use std::future::Future;
use std::pin::Pin;
use std::ptr::NonNull;
use std::sync::Arc;
use std::task::{Context, Poll};

use async_trait::async_trait;
use datafusion_ffi::proto::logical_extension_codec::FFI_LogicalExtensionCodec;
use datafusion_ffi::table_provider::FFI_TableProvider;
use paimon_core::{Error, Table};
use paimon_datafusion::datafusion::arrow::datatypes::SchemaRef;
use paimon_datafusion::datafusion::catalog::{Session, TableProvider};
use paimon_datafusion::datafusion::common::Result as DfResult;
use paimon_datafusion::datafusion::logical_expr::{Expr, TableProviderFilterPushDown, TableType};
use paimon_datafusion::datafusion::physical_plan::ExecutionPlan;
use paimon_datafusion::PaimonTableProvider;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use tokio::runtime::Handle;

use crate::errors::{to_py, IntoPyResult};
use crate::runtime::handle;

/// Fails unless the installed PyPI `datafusion` has the major version of the datafusion-ffi
/// this package was built with.
fn check_version(py: Python<'_>) -> PyResult<()> {
    let want = datafusion_ffi::version();
    let found: String = py
        .import("importlib.metadata")?
        .call_method1("version", ("datafusion",))?
        .extract()?;
    let major = found.split('.').next().and_then(|m| m.parse::<u64>().ok());
    if major != Some(want) {
        return Err(to_py(Error::unsupported(format!(
            "paimon_rs was built for DataFusion {want} (datafusion-ffi {want}), but the \
             installed Python package datafusion is {found}; the FFI structures of different \
             majors are incompatible: install datafusion=={want}.*"
        ))));
    }
    Ok(())
}

/// The session's logical extension codec (DataFusion-Python passes its `SessionContext`).
fn logical_codec(session: &Bound<'_, PyAny>) -> PyResult<FFI_LogicalExtensionCodec> {
    let attr = "__datafusion_logical_extension_codec__";
    let capsule = if session.hasattr(attr)? {
        session.getattr(attr)?.call0()?
    } else {
        session.clone()
    };
    let capsule = capsule.cast::<PyCapsule>()?;
    let data: NonNull<FFI_LogicalExtensionCodec> = capsule
        .pointer_checked(Some(c"datafusion_logical_extension_codec"))?
        .cast();
    // SAFETY: `pointer_checked` verified the capsule's name, which DataFusion-Python gives only
    // to capsules holding an `FFI_LogicalExtensionCodec`; the capsule (held by `capsule`)
    // keeps it alive while it is cloned here, and the clone owns its own reference.
    let codec = unsafe { data.as_ref() };
    Ok(codec.clone())
}

/// The `datafusion_table_provider` capsule of `table`.
pub fn table_provider<'py>(
    py: Python<'py>,
    table: &Table,
    session: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyCapsule>> {
    check_version(py)?;
    let codec = logical_codec(session)?;
    let inner = PaimonTableProvider::try_new(table.clone(), table.full_name()).py()?;
    let handle = handle()?;
    let provider = Arc::new(OnRuntime {
        inner,
        handle: handle.clone(),
    });
    let ffi = FFI_TableProvider::new_with_ffi_codec(provider, true, Some(handle), codec);
    PyCapsule::new_with_value(py, ffi, c"datafusion_table_provider")
}

/// [`PaimonTableProvider`] whose planning runs inside this package's runtime.
#[derive(Debug)]
struct OnRuntime {
    inner: PaimonTableProvider,
    handle: Handle,
}

#[async_trait]
impl TableProvider for OnRuntime {
    fn schema(&self) -> SchemaRef {
        self.inner.schema()
    }

    fn table_type(&self) -> TableType {
        self.inner.table_type()
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> DfResult<Vec<TableProviderFilterPushDown>> {
        self.inner.supports_filters_pushdown(filters)
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        InRuntime {
            handle: self.handle.clone(),
            fut: self.inner.scan(state, projection, filters, limit),
        }
        .await
    }
}

/// Polls `fut` with `handle`'s runtime entered, so the tokio resources it creates (timers,
/// blocking tasks, I/O) belong to that runtime, whoever drives the future.
struct InRuntime<F> {
    handle: Handle,
    fut: Pin<Box<F>>,
}

impl<F: Future + ?Sized> Future for InRuntime<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // `InRuntime` is `Unpin` (its future is boxed), so no pin projection is needed.
        let this = self.get_mut();
        let _guard = this.handle.enter();
        this.fut.as_mut().poll(cx)
    }
}
