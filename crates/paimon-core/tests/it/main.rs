//! End-to-end tests: one binary, a module per topic.

mod bucket_pruning;
mod common;
mod java_append;
mod java_metadata;
mod pypaimon;
