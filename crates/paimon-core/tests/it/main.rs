//! End-to-end tests: one binary, a module per topic.

mod bad_input;
mod bucket_pruning;
mod bucket_random_tables;
mod common;
mod java_append;
mod java_metadata;
mod java_pk;
mod key_pushdown;
mod pypaimon;
mod read_metadata;
mod time_travel;
