//! One module per subcommand.

pub mod alter;
pub mod bench;
pub mod bench_direct;
pub mod bench_lookup;
pub mod bench_many_commits;
pub mod bench_plan;
pub mod bench_write;
pub mod compact;
pub mod create;
pub mod database;
pub mod demo;
pub mod drop;
pub mod expire;
pub mod index;
pub mod read;
pub mod remove_orphan_files;
pub mod scan;
pub mod schema;
pub mod snapshots;
#[cfg(feature = "sql")]
pub mod sql;
pub mod tables;
pub mod write;
