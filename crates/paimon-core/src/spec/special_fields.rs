//! Reserved field ids, system fields of primary-key tables and the metadata columns a read
//! can add.
//!
//! Mirrors Java `org.apache.paimon.table.SpecialFields` (Paimon 2.0): the ids are part of the
//! file format (data files of primary-key tables store `_KEY_<k>` copies of the key and the
//! system columns under these ids), so readers, the merge tree and writers share them.

use crate::spec::types::{DataField, DataType, TypeKind};

/// First id of `_KEY_<k>` fields (`SpecialFields.KEY_FIELD_ID_START`).
pub const KEY_FIELD_ID_START: i32 = 1_073_741_823;
/// Smallest id of the other system fields (`_ROW_ID` = 2147483642 ... `_SEQUENCE_NUMBER`).
pub const SYSTEM_FIELD_ID_START: i32 = 2_147_483_642;
/// Name of the `_SEQUENCE_NUMBER` system field.
pub const SEQUENCE_NUMBER: &str = "_SEQUENCE_NUMBER";
/// Field id of `_SEQUENCE_NUMBER`.
pub const SEQUENCE_NUMBER_ID: i32 = 2_147_483_646;
/// Field id of `_VALUE_KIND`.
pub const VALUE_KIND_ID: i32 = 2_147_483_645;

/// The `_SEQUENCE_NUMBER` system field.
pub fn sequence_number_field() -> DataField {
    DataField::new(
        SEQUENCE_NUMBER_ID,
        SEQUENCE_NUMBER,
        DataType::not_null(TypeKind::BigInt),
    )
}

/// The `_VALUE_KIND` system field.
pub fn value_kind_field() -> DataField {
    DataField::new(
        VALUE_KIND_ID,
        "_VALUE_KIND",
        DataType::not_null(TypeKind::TinyInt),
    )
}

/// Field id of `__paimon_row_index` (Java `PaimonMetadataColumn.ROW_INDEX`).
pub const ROW_INDEX_ID: i32 = i32::MAX - 100;
/// Field id of `__paimon_file_path` (Java `PaimonMetadataColumn.FILE_PATH`).
pub const FILE_PATH_ID: i32 = i32::MAX - 101;
/// Name of the row-position column.
pub const ROW_INDEX_NAME: &str = "__paimon_row_index";
/// Name of the file-path column.
pub const FILE_PATH_NAME: &str = "__paimon_file_path";

/// The `__paimon_row_index` field: the row's 0-based physical position in its data file.
pub fn row_index_field() -> DataField {
    DataField::new(
        ROW_INDEX_ID,
        ROW_INDEX_NAME,
        DataType::not_null(TypeKind::BigInt),
    )
}

/// The `__paimon_file_path` field: the location of the row's data file.
pub fn file_path_field() -> DataField {
    DataField::new(
        FILE_PATH_ID,
        FILE_PATH_NAME,
        DataType::not_null(TypeKind::VarChar(u32::MAX >> 1)),
    )
}

/// The metadata columns a read of a table with this schema offers: `_SEQUENCE_NUMBER` and
/// `_VALUE_KIND` for primary-key tables, then `__paimon_file_path` and `__paimon_row_index`.
pub fn metadata_fields(has_primary_key: bool) -> Vec<DataField> {
    let mut out = Vec::new();
    if has_primary_key {
        out.push(sequence_number_field());
        out.push(value_kind_field());
    }
    out.push(file_path_field());
    out.push(row_index_field());
    out
}
