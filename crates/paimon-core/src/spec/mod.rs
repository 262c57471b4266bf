//! On-disk structures of Paimon tables and their decoding. No I/O here.

pub mod binary_row;
pub mod bytes;
pub mod datum;
pub mod manifest;
pub mod options;
pub mod orc_footer;
pub mod partition_path;
pub mod schema;
pub mod snapshot;
pub mod types;

pub use datum::{Datum, Decimal, Timestamp};
pub use schema::TableSchema;
pub use types::{DataField, DataType, TypeKind};
