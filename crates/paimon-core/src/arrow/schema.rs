//! Paimon type → Arrow type, field and schema.
//!
//! Mirrors Java `org.apache.paimon.arrow.ArrowUtils#toArrowType` (Paimon 2.0), with these fixed
//! choices used across the whole project:
//!
//! | Paimon | Arrow |
//! |---|---|
//! | BOOLEAN, TINYINT, SMALLINT, INT, BIGINT | Boolean, Int8, Int16, Int32, Int64 |
//! | FLOAT, DOUBLE | Float32, Float64 |
//! | DECIMAL(p, s) | Decimal128(p, s) |
//! | CHAR, VARCHAR, STRING | Utf8 |
//! | BINARY, VARBINARY, BYTES, BLOB | Binary |
//! | DATE | Date32 |
//! | TIME(p) | Time32(Millisecond) |
//! | TIMESTAMP(p) | Timestamp(Millisecond if p ≤ 3, Microsecond if p ≤ 6, else Nanosecond; no tz) |
//! | TIMESTAMP(p) WITH LOCAL TIME ZONE | the same unit with tz `"UTC"` |
//! | ARRAY<T> | List(field `"element"`) |
//! | MAP<K, V> | Map(entries struct `"key_value"` with fields `"key"` (never null) and `"value"`), unsorted |
//! | MULTISET<T> | Map<T, Int32> (count never null), same naming as MAP |
//! | ROW<...> | Struct |
//! | VECTOR<T, n> | FixedSizeList(field `"element"`, n) |
//! | VARIANT | unsupported |
//!
//! Nullability comes from the Paimon type. Top-level fields and ROW sub-fields carry their
//! Paimon field id as a decimal string under metadata key [`FIELD_ID_KEY`] (`PARQUET:field_id`);
//! list elements and map keys/values carry no metadata.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType as ArrowType, Field, Fields, Schema, SchemaRef, TimeUnit};

use crate::spec::types::{DataField, DataType, TypeKind};
use crate::{Error, Result};

/// Metadata key holding the Paimon field id of an Arrow field.
pub const FIELD_ID_KEY: &str = "PARQUET:field_id";

/// Name of the list element field.
pub const LIST_ELEMENT_NAME: &str = "element";
/// Name of the map entries struct field.
pub const MAP_ENTRIES_NAME: &str = "key_value";
/// Name of the map key field.
pub const MAP_KEY_NAME: &str = "key";
/// Name of the map value field.
pub const MAP_VALUE_NAME: &str = "value";

/// The Arrow time unit of a TIMESTAMP / TIMESTAMP_LTZ of precision `p`.
pub fn timestamp_unit(precision: u32) -> TimeUnit {
    match precision {
        0..=3 => TimeUnit::Millisecond,
        4..=6 => TimeUnit::Microsecond,
        _ => TimeUnit::Nanosecond,
    }
}

/// The Arrow type of a Paimon type (see the module table).
pub fn arrow_type(t: &DataType) -> Result<ArrowType> {
    Ok(match &t.kind {
        TypeKind::Boolean => ArrowType::Boolean,
        TypeKind::TinyInt => ArrowType::Int8,
        TypeKind::SmallInt => ArrowType::Int16,
        TypeKind::Int => ArrowType::Int32,
        TypeKind::BigInt => ArrowType::Int64,
        TypeKind::Float => ArrowType::Float32,
        TypeKind::Double => ArrowType::Float64,
        TypeKind::Decimal { precision, scale } => {
            let p = u8::try_from(*precision)
                .map_err(|_| Error::invalid_argument(format!("decimal precision in {t}")))?;
            let s = i8::try_from(*scale)
                .map_err(|_| Error::invalid_argument(format!("decimal scale in {t}")))?;
            ArrowType::Decimal128(p, s)
        }
        TypeKind::Char(_) | TypeKind::VarChar(_) => ArrowType::Utf8,
        TypeKind::Binary(_) | TypeKind::VarBinary(_) | TypeKind::Blob => ArrowType::Binary,
        TypeKind::Date => ArrowType::Date32,
        TypeKind::Time(_) => ArrowType::Time32(TimeUnit::Millisecond),
        TypeKind::Timestamp(p) => ArrowType::Timestamp(timestamp_unit(*p), None),
        TypeKind::LocalZonedTimestamp(p) => {
            ArrowType::Timestamp(timestamp_unit(*p), Some("UTC".into()))
        }
        TypeKind::Array(e) => ArrowType::List(Arc::new(element_field(e)?)),
        TypeKind::Vector(e, n) => {
            let n = i32::try_from(*n)
                .map_err(|_| Error::invalid_argument(format!("vector length in {t}")))?;
            ArrowType::FixedSizeList(Arc::new(element_field(e)?), n)
        }
        TypeKind::Map(k, v) => map_type(arrow_type(k)?, arrow_type(v)?, v.nullable),
        TypeKind::Multiset(e) => map_type(arrow_type(e)?, ArrowType::Int32, false),
        TypeKind::Row(fields) => ArrowType::Struct(struct_fields(fields)?),
        TypeKind::Variant => {
            return Err(Error::unsupported(format!(
                "type {t} has no Arrow mapping yet"
            )))
        }
    })
}

fn element_field(e: &DataType) -> Result<Field> {
    Ok(Field::new(LIST_ELEMENT_NAME, arrow_type(e)?, e.nullable))
}

/// The Arrow MAP type with the project's naming (`key_value` / `key` / `value`).
pub fn map_type(key: ArrowType, value: ArrowType, value_nullable: bool) -> ArrowType {
    let entries = Fields::from(vec![
        Field::new(MAP_KEY_NAME, key, false),
        Field::new(MAP_VALUE_NAME, value, value_nullable),
    ]);
    ArrowType::Map(
        Arc::new(Field::new(
            MAP_ENTRIES_NAME,
            ArrowType::Struct(entries),
            false,
        )),
        false,
    )
}

/// The Arrow fields of a ROW's sub-fields.
pub fn struct_fields(fields: &[DataField]) -> Result<Fields> {
    fields
        .iter()
        .map(arrow_field)
        .collect::<Result<Vec<_>>>()
        .map(Fields::from)
}

/// The Arrow field of a Paimon field: its name, type, nullability and id metadata.
pub fn arrow_field(f: &DataField) -> Result<Field> {
    let t = arrow_type(&f.data_type).map_err(|e| e.with_context("field", f.name.clone()))?;
    let metadata = HashMap::from([(FIELD_ID_KEY.to_string(), f.id.to_string())]);
    Ok(Field::new(&f.name, t, f.data_type.nullable).with_metadata(metadata))
}

/// The Arrow schema of a list of Paimon fields, in order.
pub fn arrow_schema(fields: &[DataField]) -> Result<SchemaRef> {
    Ok(Arc::new(Schema::new(struct_fields(fields)?)))
}

/// The view layout of a top-level string or binary type (`Utf8` → `Utf8View`, `Binary` →
/// `BinaryView`); other types unchanged. SQL engines (DataFusion's own Parquet source) read
/// strings as views: decoding refers to the page's bytes instead of copying them into one
/// buffer, and comparisons look at the inlined prefix first.
pub fn view_type(t: &ArrowType) -> ArrowType {
    match t {
        ArrowType::Utf8 => ArrowType::Utf8View,
        ArrowType::Binary => ArrowType::BinaryView,
        other => other.clone(),
    }
}

/// `schema` with its top-level string and binary fields in the view layout ([`view_type`]);
/// nested fields keep the canonical mapping.
pub fn view_schema(schema: &SchemaRef) -> SchemaRef {
    if !schema
        .fields()
        .iter()
        .any(|f| view_type(f.data_type()) != *f.data_type())
    {
        return schema.clone();
    }
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| f.as_ref().clone().with_data_type(view_type(f.data_type())))
        .collect();
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::types::MAX_LENGTH;

    fn n(kind: TypeKind) -> DataType {
        DataType::nullable(kind)
    }

    #[test]
    fn atomic_types_map_as_documented() {
        let cases = [
            (n(TypeKind::TinyInt), ArrowType::Int8),
            (
                n(TypeKind::Decimal {
                    precision: 23,
                    scale: 5,
                }),
                ArrowType::Decimal128(23, 5),
            ),
            (n(TypeKind::VarChar(MAX_LENGTH)), ArrowType::Utf8),
            (n(TypeKind::Binary(3)), ArrowType::Binary),
            (
                n(TypeKind::Time(3)),
                ArrowType::Time32(TimeUnit::Millisecond),
            ),
            (
                n(TypeKind::Timestamp(0)),
                ArrowType::Timestamp(TimeUnit::Millisecond, None),
            ),
            (
                n(TypeKind::Timestamp(6)),
                ArrowType::Timestamp(TimeUnit::Microsecond, None),
            ),
            (
                n(TypeKind::Timestamp(9)),
                ArrowType::Timestamp(TimeUnit::Nanosecond, None),
            ),
            (
                n(TypeKind::LocalZonedTimestamp(4)),
                ArrowType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            ),
        ];
        for (p, a) in cases {
            assert_eq!(arrow_type(&p).unwrap(), a, "{p}");
        }
        assert!(arrow_type(&n(TypeKind::Variant)).is_err());
    }

    #[test]
    fn nested_types_and_metadata() {
        let row = n(TypeKind::Row(vec![
            DataField::new(3, "a", DataType::not_null(TypeKind::Boolean)),
            DataField::new(4, "b", n(TypeKind::BigInt)),
        ]));
        let map = n(TypeKind::Map(
            Box::new(n(TypeKind::Array(Box::new(n(TypeKind::Float))))),
            Box::new(row),
        ));
        let f = arrow_field(&DataField::new(9, "m", map)).unwrap();
        assert_eq!(
            f.metadata().get(FIELD_ID_KEY).map(String::as_str),
            Some("9")
        );
        let ArrowType::Map(entries, false) = f.data_type() else {
            panic!("not a map: {f:?}")
        };
        assert_eq!(entries.name(), "key_value");
        let ArrowType::Struct(kv) = entries.data_type() else {
            panic!()
        };
        assert_eq!(kv[0].name(), "key");
        assert!(!kv[0].is_nullable());
        assert_eq!(
            kv[0].data_type(),
            &ArrowType::List(Arc::new(Field::new("element", ArrowType::Float32, true)))
        );
        let ArrowType::Struct(sub) = kv[1].data_type() else {
            panic!()
        };
        assert_eq!(
            sub[0].metadata().get(FIELD_ID_KEY).map(String::as_str),
            Some("3")
        );
        assert!(!sub[0].is_nullable());
        let ms = arrow_type(&n(TypeKind::Multiset(Box::new(n(TypeKind::Int))))).unwrap();
        assert_eq!(ms, map_type(ArrowType::Int32, ArrowType::Int32, false));
    }
}
