//! # paimon-datafusion
//!
//! SQL over Apache Paimon tables with Apache DataFusion 55.
//!
//! ```no_run
//! # async fn demo() -> datafusion::common::Result<()> {
//! let ctx = paimon_datafusion::session_context();
//! paimon_datafusion::register_warehouse(&ctx, "paimon", "/path/to/warehouse").await?;
//! let df = ctx.sql("SELECT * FROM paimon.db.orders WHERE dt = '2024-01-01'").await?;
//! df.show().await?;
//! // system tables, as Java Paimon names them
//! ctx.sql("SELECT snapshot_id, commit_kind FROM paimon.db.\"orders$snapshots\"").await?;
//! // time travel for the following queries
//! ctx.sql("SET paimon.scan_snapshot_id = 1").await?;
//! # Ok(())
//! # }
//! ```
//!
//! - [`catalog`]: a warehouse as a `CatalogProvider` (databases → schemas, tables → providers);
//! - [`table`]: one table as a `TableProvider` (projection, filter and limit pushdown);
//! - [`filter`]: DataFusion `Expr` → paimon-core `Predicate`, with Exact/Inexact/Unsupported;
//! - [`scan`]: the `ExecutionPlan` reading serialisable splits grouped into partitions (held
//!   as split rows by its in-memory child, so distributed engines narrow them per task);
//! - [`wire`]: what a scan ships to other processes (read settings, split rows);
//! - [`remote_table`]: a table provider decoded in another process (opened when scanned);
//! - `codec` (feature `proto`): DataFusion logical and physical extension codecs;
//! - [`system`]: `t$snapshots`, `t$schemas`, `t$options`, `t$files`, `t$manifests`,
//!   `t$partitions`, `t$buckets`, `t$tags`, and [`audit`]'s `t$audit_log`;
//! - [`ddl`]: `CREATE TABLE ... WITH (...)` and `DROP TABLE` ([`ddl::sql`] runs any SQL);
//! - [`sink`]: `INSERT INTO` / `INSERT OVERWRITE` (one commit per statement);
//! - [`options`]: `SET paimon.*` session options (time travel).
#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod audit;
pub mod catalog;
#[cfg(feature = "proto")]
pub mod codec;
pub mod ddl;
pub mod error;
#[cfg(feature = "failpoints")]
pub mod failpoint;
pub mod filter;
pub mod options;
pub mod remote_table;
pub mod scan;
pub mod sink;
mod stats;
pub mod system;
pub mod table;
pub mod wire;

/// The DataFusion this crate is built against.
pub use datafusion;

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::common::Result;
use datafusion::prelude::{SessionConfig, SessionContext};
use paimon_core::FileSystemCatalog;

pub use catalog::{PaimonCatalogProvider, PaimonSchemaProvider};
#[cfg(feature = "proto")]
pub use codec::{PaimonLogicalCodec, PaimonPhysicalCodec};
#[cfg(feature = "proto")]
pub use datafusion_proto;
pub use options::PaimonOptions;
pub use scan::{PaimonScanExec, ReadSite};
pub use table::PaimonTableProvider;

/// A session configuration with the `paimon.*` options ([`PaimonOptions`]) registered.
pub fn session_config() -> SessionConfig {
    SessionConfig::new().with_option_extension(PaimonOptions::default())
}

/// A session whose configuration has the `paimon.*` options registered.
pub fn session_context() -> SessionContext {
    SessionContext::new_with_config(session_config())
}

/// Registers the warehouse at `warehouse` (a path or URL) as catalog `name`, so that its
/// tables are `name.database.table`.
pub async fn register_warehouse(ctx: &SessionContext, name: &str, warehouse: &str) -> Result<()> {
    let catalog = FileSystemCatalog::new(warehouse, HashMap::new())
        .map_err(|e| error::to_df_error(e, warehouse))?;
    let provider = PaimonCatalogProvider::try_new(catalog).await?;
    ctx.register_catalog(name, Arc::new(provider));
    Ok(())
}
