//! Predicates: unbound (names and literals) → bound (field ids and typed values) → evaluators.
//!
//! - [`predicate`]: [`Predicate`] and [`Literal`] as users and the CLI write them;
//! - [`sql`]: [`parse_predicate`], SQL text (`--where`) → [`Predicate`];
//! - binding ([`Predicate::bind`]) resolves names to **field ids** and converts literals exactly
//!   (see `convert`), normalising on the way into a [`BoundPredicate`] ([`bound`]);
//! - [`visitors`]: one evaluator per file over bound predicates (partitions, file stats, Arrow
//!   batches).
//!
//! No I/O happens here. Mirrors Java `org.apache.paimon.predicate` (Paimon 2.0) with the
//! structure of iceberg-rust's `expr/`.

mod bind;
pub mod bound;
mod convert;
pub(crate) use convert::convert_literal;
pub mod predicate;
pub mod sql;
pub(crate) mod visitors;

pub use bound::{BoundField, BoundPredicate, LeafOp};
pub use predicate::{CompareOp, Literal, Predicate};
pub use sql::parse_predicate;
pub(crate) use visitors::partition_evaluator::eval_partition;
pub use visitors::row_filter::filter_batch;
pub(crate) use visitors::stats_evaluator::{eval_stats, StatsSource};
pub(crate) use visitors::Prune;
