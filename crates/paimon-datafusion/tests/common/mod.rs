//! Shared test data.

pub mod tpch;
