//! # paimon-core
//!
//! Read Apache Paimon tables (written by Java Paimon, pypaimon or paimon-cpp) into Apache Arrow.
//!
//! The crate is cut by stage: [`spec`] decodes on-disk structures, [`io`] reaches storage,
//! [`catalog`] finds tables, [`expr`] holds predicates, [`bucket`] computes buckets, [`scan`]
//! plans splits, and [`read`] turns splits into Arrow record batches.
#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod arrow;
pub mod bucket;
pub mod catalog;
pub mod error;
pub mod expr;
pub mod hash;
pub mod index;
pub mod io;
pub mod mergetree;
pub mod read;
pub mod render;
pub mod scan;
pub mod spec;

pub use error::{Error, ErrorKind, Result};

#[cfg(test)]
pub(crate) mod test_util;
