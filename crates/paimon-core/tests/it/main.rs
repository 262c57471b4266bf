//! End-to-end tests: one binary, a module per topic.

mod common;
mod java_append;
mod java_metadata;
mod java_pk;
mod pypaimon;
