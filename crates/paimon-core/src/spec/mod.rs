//! On-disk structures of Paimon tables and their decoding. No I/O here.

pub mod binary_row;
pub mod bytes;
pub mod datum;
pub mod partition_path;
pub mod schema;
pub mod types;

pub use datum::{Datum, Decimal, Timestamp};
pub use schema::TableSchema;
pub use types::{DataField, DataType, TypeKind};
