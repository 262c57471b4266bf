//! On-disk structures of Paimon tables and their decoding. No I/O here.

pub mod binary_row;
pub(crate) mod bytes;
pub mod datum;
pub mod json_pretty;
pub mod manifest;
pub mod options;
pub mod orc_footer;
pub mod partition_path;
pub mod row_range;
pub mod schema;
pub mod snapshot;
pub mod special_fields;
pub mod type_casts;
pub mod type_text;
pub mod types;

pub use datum::{Datum, Decimal, Timestamp};
pub use row_range::RowRange;
pub use schema::TableSchema;
pub use types::{DataField, DataType, TypeKind};
