//! Paimon ↔ Apache Arrow type conversion, shared by every reader in the crate.
//!
//! Mirrors the role of Java `org.apache.paimon.arrow.ArrowUtils` (paimon-arrow, Paimon 2.0):
//! one fixed mapping from Paimon [`DataType`](crate::spec::types::DataType)s to Arrow types, so
//! all record batches produced by the crate agree on types, nested field names and metadata.

pub mod schema;

pub use schema::{arrow_field, arrow_schema, arrow_type, view_schema, view_type, FIELD_ID_KEY};

/// A stream of record batches (decoded files, sorted runs, merged output).
pub type RecordBatchStream =
    futures::stream::BoxStream<'static, crate::Result<arrow_array::RecordBatch>>;
