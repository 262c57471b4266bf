//! `Table.__datafusion_table_provider__`: the table as a DataFusion-Python table provider,
//! through datafusion-ffi's `FFI_TableProvider` in a `datafusion_table_provider` capsule; and
//! `Catalog.__datafusion_catalog_provider__`: the warehouse as a DataFusion-Python catalog
//! (databases are schemas; `FFI_CatalogProvider` in a `datafusion_catalog_provider` capsule).
//!
//! Three pitfalls handled here:
//! - The FFI structs are only compatible between equal DataFusion majors; a provider built for
//!   55 registered into PyPI `datafusion` 54 crashes the interpreter on the first query. The
//!   installed `datafusion` version is checked against `datafusion_ffi::version()` before any
//!   capsule is handed out.
//! - DataFusion-Python polls `TableProvider::scan` on its own tokio (another copy of the crate,
//!   in another shared library), where paimon-core's storage calls find no runtime. Every poll
//!   of the planning future therefore enters this package's runtime ([`OnRuntime`]); execution
//!   and stream polling enter it through the handle given to `FFI_TableProvider`. The same
//!   holds for the catalog's table lookups (`SchemaProvider::table`, [`OnRuntimeSchema`]), and
//!   the tables they return are wrapped in [`OnRuntime`] too.
//! - The consumer's physical optimizer sees (and rewrites) every node the FFI plan exports.
//!   `PaimonScanExec` keeps its splits in a child it must get back unchanged, so the scan plan
//!   is exported as a leaf ([`Leaf`]).

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::ptr::NonNull;
use std::sync::Arc;
use std::task::{Context, Poll};

use async_trait::async_trait;
use datafusion_ffi::catalog_provider::FFI_CatalogProvider;
use datafusion_ffi::proto::logical_extension_codec::FFI_LogicalExtensionCodec;
use datafusion_ffi::table_provider::FFI_TableProvider;
use paimon_core::{Error, FileSystemCatalog, Table};
use paimon_datafusion::datafusion::arrow::datatypes::SchemaRef;
use paimon_datafusion::datafusion::catalog::{
    CatalogProvider, SchemaProvider, Session, TableProvider,
};
use paimon_datafusion::datafusion::common::tree_node::TreeNodeRecursion;
use paimon_datafusion::datafusion::common::{internal_err, Result as DfResult, Statistics};
use paimon_datafusion::datafusion::execution::{SendableRecordBatchStream, TaskContext};
use paimon_datafusion::datafusion::logical_expr::{Expr, TableProviderFilterPushDown, TableType};
use paimon_datafusion::datafusion::physical_expr::PhysicalExpr;
use paimon_datafusion::datafusion::physical_plan::metrics::MetricsSet;
use paimon_datafusion::datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties, StatisticsArgs,
};
use paimon_datafusion::{PaimonCatalogProvider, PaimonTableProvider};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use tokio::runtime::Handle;

use crate::errors::{to_py, IntoPyResult};
use crate::runtime::{block_on, handle};

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
    // The provider's only failure is a schema Arrow cannot express: converted here first, it
    // raises with its paimon-core kind (the DataFusion error no longer carries it).
    paimon_core::arrow::arrow_schema(&table.schema().fields).py()?;
    let inner = PaimonTableProvider::try_new(table.clone(), table.full_name())
        .map_err(|e| to_py(Error::internal(e.to_string())))?;
    let handle = handle()?;
    let provider = Arc::new(OnRuntime {
        inner: Arc::new(inner),
        handle: handle.clone(),
    });
    let ffi = FFI_TableProvider::new_with_ffi_codec(provider, true, Some(handle), codec);
    PyCapsule::new_with_value(py, ffi, c"datafusion_table_provider")
}

/// The `datafusion_catalog_provider` capsule of `catalog`: its databases and tables are listed
/// now (with the GIL released); `table` lookups read the table's current schema.
pub fn catalog_provider<'py>(
    py: Python<'py>,
    catalog: &FileSystemCatalog,
    session: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyCapsule>> {
    check_version(py)?;
    let codec = logical_codec(session)?;
    let c = catalog.clone();
    // Listing the databases first gives a missing or unreadable warehouse its own exception
    // class (the provider's DataFusion error no longer carries the paimon-core kind).
    let listed = block_on(py, move || async move {
        c.list_databases().await?;
        PaimonCatalogProvider::try_new(c)
            .await
            .map_err(|e| Error::io(e.to_string()))
    })?;
    let inner = listed.py()?;
    let handle = handle()?;
    let provider = Arc::new(OnRuntimeCatalog {
        inner: Arc::new(inner),
        handle: handle.clone(),
    });
    let ffi = FFI_CatalogProvider::new_with_ffi_codec(provider, Some(handle), codec);
    PyCapsule::new_with_value(py, ffi, c"datafusion_catalog_provider")
}

/// A catalog whose schemas look their tables up inside this package's runtime.
#[derive(Debug)]
struct OnRuntimeCatalog {
    inner: Arc<dyn CatalogProvider>,
    handle: Handle,
}

impl CatalogProvider for OnRuntimeCatalog {
    fn schema_names(&self) -> Vec<String> {
        self.inner.schema_names()
    }

    fn schema(&self, name: &str) -> Option<Arc<dyn SchemaProvider>> {
        let inner = self.inner.schema(name)?;
        Some(Arc::new(OnRuntimeSchema {
            inner,
            handle: self.handle.clone(),
        }))
    }
}

/// A schema (database) whose table lookups run inside this package's runtime and whose
/// tables plan inside it ([`OnRuntime`]).
#[derive(Debug)]
struct OnRuntimeSchema {
    inner: Arc<dyn SchemaProvider>,
    handle: Handle,
}

#[async_trait]
impl SchemaProvider for OnRuntimeSchema {
    fn table_names(&self) -> Vec<String> {
        self.inner.table_names()
    }

    async fn table(&self, name: &str) -> DfResult<Option<Arc<dyn TableProvider>>> {
        let found = InRuntime {
            handle: self.handle.clone(),
            fut: self.inner.table(name),
        }
        .await?;
        Ok(found.map(|inner| {
            Arc::new(OnRuntime {
                inner,
                handle: self.handle.clone(),
            }) as Arc<dyn TableProvider>
        }))
    }

    fn table_exist(&self, name: &str) -> bool {
        self.inner.table_exist(name)
    }
}

/// A table provider whose planning runs inside this package's runtime.
#[derive(Debug)]
struct OnRuntime {
    inner: Arc<dyn TableProvider>,
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
        let plan = InRuntime {
            handle: self.handle.clone(),
            fut: self.inner.scan(state, projection, filters, limit),
        }
        .await?;
        Ok(Arc::new(Leaf { inner: plan }))
    }
}

/// The scan plan as a leaf. `PaimonScanExec` keeps its splits in a child node (an in-memory
/// source a distributed planner may narrow) and accepts only such a child back. Exported
/// through FFI, the child would be visible to DataFusion-Python's physical optimizer, which
/// rewrites leaves (`EnsureCooperative`) and hands our node a foreign child it cannot read;
/// hidden here, the node is a leaf to the consumer and executes its own child.
#[derive(Debug)]
struct Leaf {
    inner: Arc<dyn ExecutionPlan>,
}

impl DisplayAs for Leaf {
    fn fmt_as(&self, t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        self.inner.fmt_as(t, f)
    }
}

impl ExecutionPlan for Leaf {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        self.inner.properties()
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        Vec::new()
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> DfResult<TreeNodeRecursion>,
    ) -> DfResult<TreeNodeRecursion> {
        self.inner.apply_expressions(f)
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        if !children.is_empty() {
            return internal_err!("{} takes no children, got {}", self.name(), children.len());
        }
        Ok(self)
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> DfResult<SendableRecordBatchStream> {
        self.inner.execute(partition, context)
    }

    fn metrics(&self) -> Option<MetricsSet> {
        self.inner.metrics()
    }

    fn statistics_from_inputs(
        &self,
        _input_stats: &[Arc<Statistics>],
        args: &StatisticsArgs,
    ) -> DfResult<Arc<Statistics>> {
        // The scan's statistics come from its plan, not from its split-row child.
        self.inner.statistics_from_inputs(&[], args)
    }
}

/// Polls `fut` with `handle`'s runtime entered, so the tokio resources it creates (timers,
/// blocking tasks, I/O) belong to that runtime, whoever drives the future.
struct InRuntime<F: ?Sized> {
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
