//! Reserved field ids and system fields of primary-key tables.
//!
//! Mirrors Java `org.apache.paimon.table.SpecialFields` (Paimon 2.0): the ids are part of the
//! file format (data files of primary-key tables store `_KEY_<k>` copies of the key and the
//! system columns under these ids), so readers, the merge tree and writers share them.

use crate::spec::types::{DataField, DataType, TypeKind};

/// First id of `_KEY_<k>` fields (`SpecialFields.KEY_FIELD_ID_START`).
pub const KEY_FIELD_ID_START: i32 = 1_073_741_823;
/// Smallest id of the other system fields (`_ROW_ID` = 2147483642 ... `_SEQUENCE_NUMBER`).
pub const SYSTEM_FIELD_ID_START: i32 = 2_147_483_642;
/// Field id of `_SEQUENCE_NUMBER`.
pub const SEQUENCE_NUMBER_ID: i32 = 2_147_483_646;
/// Field id of `_VALUE_KIND`.
pub const VALUE_KIND_ID: i32 = 2_147_483_645;

/// The `_SEQUENCE_NUMBER` system field.
pub fn sequence_number_field() -> DataField {
    DataField::new(
        SEQUENCE_NUMBER_ID,
        "_SEQUENCE_NUMBER",
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
