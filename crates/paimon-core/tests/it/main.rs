//! End-to-end tests: one binary, a module per topic.

mod bad_input;
mod bucket_pruning;
mod bucket_random_tables;
mod catalog;
mod commit;
mod common;
mod dv64;
mod expire;
mod front_door;
mod global_index;
mod index_build;
mod java_append;
mod java_expected;
mod java_metadata;
mod java_pk;
mod key_pushdown;
mod merge_engines;
mod pk_random_tables;
mod pypaimon;
mod read_metadata;
mod reencoded;
mod regressions;
mod selective;
mod time_travel;
