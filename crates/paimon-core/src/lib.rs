//! # paimon-core
//!
//! Read Apache Paimon tables (written by Java Paimon, pypaimon or paimon-cpp) into Apache Arrow.
//!
//! ```no_run
//! # async fn demo() -> paimon_core::Result<()> {
//! use futures::TryStreamExt;
//! use paimon_core::Table;
//!
//! let table = Table::open("/warehouse/demo.db/orders").await?; // or FileSystemCatalog::get_table
//! let scan = table
//!     .scan()
//!     .with_filter("dt = '2024-01-02' AND amount > 100")?
//!     .select(["order_id", "amount"])?
//!     .with_limit(100)
//!     .build()?;
//! let plan = scan.plan().await?; // serialisable splits + pruning metrics
//! let mut batches = scan.reader().read(plan.splits)?; // or scan.to_arrow()
//! while let Some(batch) = batches.try_next().await? {
//!     println!("{} rows", batch.num_rows());
//! }
//! # Ok(())
//! # }
//! ```
//!
//! Writing goes through [`Table::new_write`] ([`WriteBuilder`] → [`TableWrite`]) and
//! [`Table::new_commit`]:
//!
//! ```no_run
//! # async fn demo(batch: arrow_array::RecordBatch) -> paimon_core::Result<()> {
//! let table = paimon_core::Table::open("/warehouse/demo.db/orders").await?;
//! let mut write = table.new_write().build()?;
//! write.write(&batch).await?;
//! let messages = write.prepare_commit().await?;
//! table.new_commit().commit_messages(&messages, write.commit_user()).await?;
//! # Ok(())
//! # }
//! ```
//!
//! The crate is cut by stage: [`spec`] decodes on-disk structures, [`io`] reaches storage,
//! [`catalog`] finds tables, [`expr`] holds predicates, [`bucket`] computes buckets, [`scan`]
//! plans splits, [`read`] turns splits into Arrow record batches, and [`write`] and [`commit`]
//! write data files and publish snapshots. What a program embedding
//! the library needs is re-exported here.
#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod arrow;
pub(crate) mod blocking;
pub mod bucket;
pub mod catalog;
pub mod commit;
pub mod compact;
pub mod error;
pub mod expr;
pub(crate) mod hash;
pub mod index;
pub mod io;
pub mod maintenance;
pub(crate) mod mergetree;
pub mod read;
pub mod render;
pub mod scan;
pub mod spec;
pub mod write;

pub use catalog::{FileSystemCatalog, Identifier, Schema, SchemaChange, Table};
pub use error::{Error, ErrorKind, Result};
pub use expr::{parse_predicate, Predicate};
pub use io::FileIO;
pub use read::TableRead;
pub use scan::{
    DataSplit, IntoPredicate, Plan, ScanMetrics, SnapshotSelector, Split, TableScan,
    TableScanBuilder,
};
pub use write::{RowKind, TableWrite, WriteBuilder};

#[cfg(test)]
pub(crate) mod test_util;
