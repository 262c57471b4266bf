//! Paimon data types and their JSON form in schema files.
//!
//! Mirrors Java `org.apache.paimon.types.DataType` and `DataTypeJsonParser` (Paimon 2.0): atomic
//! types are strings such as `"DECIMAL(20, 2) NOT NULL"`, nested types are objects
//! (`{"type": "ARRAY", "element": ...}`). Nullability is a flag on every type.

use std::fmt;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::{Error, Result};

/// A Paimon type with its nullability.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DataType {
    /// Whether values may be null.
    pub nullable: bool,
    /// The type itself.
    pub kind: TypeKind,
}

/// The kinds of Paimon types.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TypeKind {
    /// `BOOLEAN`
    Boolean,
    /// `TINYINT`
    TinyInt,
    /// `SMALLINT`
    SmallInt,
    /// `INT`
    Int,
    /// `BIGINT`
    BigInt,
    /// `FLOAT`
    Float,
    /// `DOUBLE`
    Double,
    /// `DECIMAL(p, s)`, p in 1..=38.
    Decimal {
        /// Total digits.
        precision: u32,
        /// Fraction digits.
        scale: u32,
    },
    /// `CHAR(n)`
    Char(u32),
    /// `VARCHAR(n)`; `STRING` is `VARCHAR(2147483647)`.
    VarChar(u32),
    /// `BINARY(n)`
    Binary(u32),
    /// `VARBINARY(n)`; `BYTES` is `VARBINARY(2147483647)`.
    VarBinary(u32),
    /// `DATE`: days since 1970-01-01.
    Date,
    /// `TIME(p)`: millis of day.
    Time(u32),
    /// `TIMESTAMP(p)` without time zone (wall clock).
    Timestamp(u32),
    /// `TIMESTAMP(p) WITH LOCAL TIME ZONE` (an instant).
    LocalZonedTimestamp(u32),
    /// `VARIANT`
    Variant,
    /// `BLOB`
    Blob,
    /// `ARRAY<element>`
    Array(Box<DataType>),
    /// `MULTISET<element>`
    Multiset(Box<DataType>),
    /// `MAP<key, value>`
    Map(Box<DataType>, Box<DataType>),
    /// `ROW<fields>`
    Row(Vec<DataField>),
    /// `VECTOR<element, length>`
    Vector(Box<DataType>, u32),
}

impl TypeKind {
    /// TINYINT, SMALLINT, INT or BIGINT.
    pub fn is_integer(&self) -> bool {
        matches!(
            self,
            TypeKind::TinyInt | TypeKind::SmallInt | TypeKind::Int | TypeKind::BigInt
        )
    }

    /// An integer, FLOAT, DOUBLE or DECIMAL.
    pub fn is_numeric(&self) -> bool {
        self.is_integer()
            || matches!(
                self,
                TypeKind::Float | TypeKind::Double | TypeKind::Decimal { .. }
            )
    }
}

/// The length of `STRING` / `BYTES`.
pub const MAX_LENGTH: u32 = i32::MAX as u32;

/// A named, id-carrying field of a table or a ROW type.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DataField {
    /// Stable field id; survives renames.
    pub id: i32,
    /// Current name.
    pub name: String,
    /// Type.
    #[serde(rename = "type")]
    pub data_type: DataType,
    /// Optional description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Optional default value expression.
    #[serde(
        default,
        rename = "defaultValue",
        skip_serializing_if = "Option::is_none"
    )]
    pub default_value: Option<String>,
}

impl DataField {
    /// A field without description.
    pub fn new(id: i32, name: impl Into<String>, data_type: DataType) -> Self {
        DataField {
            id,
            name: name.into(),
            data_type,
            description: None,
            default_value: None,
        }
    }
}

impl DataType {
    /// A nullable type of `kind`.
    pub fn nullable(kind: TypeKind) -> Self {
        DataType {
            nullable: true,
            kind,
        }
    }
    /// A NOT NULL type of `kind`.
    pub fn not_null(kind: TypeKind) -> Self {
        DataType {
            nullable: false,
            kind,
        }
    }
    /// This type with another nullability.
    #[must_use]
    pub fn with_nullable(mut self, nullable: bool) -> Self {
        self.nullable = nullable;
        self
    }
    /// Whether two types are the same ignoring nullability (at every depth).
    pub fn equals_ignore_nullable(&self, other: &DataType) -> bool {
        self.clone().with_nullable(true).kind_deep_nullable()
            == other.clone().with_nullable(true).kind_deep_nullable()
    }
    fn kind_deep_nullable(self) -> DataType {
        let kind = match self.kind {
            TypeKind::Array(e) => {
                TypeKind::Array(Box::new(e.with_nullable(true).kind_deep_nullable()))
            }
            TypeKind::Multiset(e) => {
                TypeKind::Multiset(Box::new(e.with_nullable(true).kind_deep_nullable()))
            }
            TypeKind::Map(k, v) => TypeKind::Map(
                Box::new(k.with_nullable(true).kind_deep_nullable()),
                Box::new(v.with_nullable(true).kind_deep_nullable()),
            ),
            TypeKind::Row(fields) => TypeKind::Row(
                fields
                    .into_iter()
                    .map(|mut f| {
                        f.data_type = f.data_type.with_nullable(true).kind_deep_nullable();
                        f.description = None;
                        f
                    })
                    .collect(),
            ),
            other => other,
        };
        DataType {
            nullable: true,
            kind,
        }
    }

    /// Parses the JSON form of a type (string or object).
    pub fn from_json(value: &Value) -> Result<Self> {
        match value {
            Value::String(s) => parse_atomic(s),
            Value::Object(map) => {
                let head = map
                    .get("type")
                    .and_then(Value::as_str)
                    .ok_or_else(|| Error::data_invalid("nested type without \"type\""))?;
                let (name, nullable) = split_nullability(head)?;
                let child = |key: &str| -> Result<Box<DataType>> {
                    let v = map.get(key).ok_or_else(|| {
                        Error::data_invalid(format!("type {head} lacks \"{key}\""))
                    })?;
                    Ok(Box::new(DataType::from_json(v)?))
                };
                let kind = match name.to_ascii_uppercase().as_str() {
                    "ARRAY" => TypeKind::Array(child("element")?),
                    "MULTISET" => TypeKind::Multiset(child("element")?),
                    "MAP" => TypeKind::Map(child("key")?, child("value")?),
                    "VECTOR" => {
                        let len = map
                            .get("length")
                            .and_then(Value::as_u64)
                            .and_then(|l| u32::try_from(l).ok())
                            .ok_or_else(|| Error::data_invalid("VECTOR type without length"))?;
                        TypeKind::Vector(child("element")?, len)
                    }
                    "ROW" => {
                        let fields = map
                            .get("fields")
                            .ok_or_else(|| Error::data_invalid("ROW type without fields"))?;
                        TypeKind::Row(Vec::<DataField>::deserialize(fields)?)
                    }
                    _ => return Err(Error::data_invalid(format!("unknown nested type '{head}'"))),
                };
                Ok(DataType { nullable, kind })
            }
            other => Err(Error::data_invalid(format!("invalid type JSON: {other}"))),
        }
    }

    /// The JSON form Java writes.
    pub fn to_json(&self) -> Value {
        let suffix = if self.nullable { "" } else { " NOT NULL" };
        let obj = |name: &str, entries: Vec<(&str, Value)>| {
            let mut m = serde_json::Map::new();
            m.insert("type".into(), Value::String(format!("{name}{suffix}")));
            for (k, v) in entries {
                m.insert(k.into(), v);
            }
            Value::Object(m)
        };
        match &self.kind {
            TypeKind::Array(e) => obj("ARRAY", vec![("element", e.to_json())]),
            TypeKind::Multiset(e) => obj("MULTISET", vec![("element", e.to_json())]),
            TypeKind::Map(k, v) => obj("MAP", vec![("key", k.to_json()), ("value", v.to_json())]),
            TypeKind::Vector(e, n) => obj(
                "VECTOR",
                vec![("element", e.to_json()), ("length", Value::from(*n))],
            ),
            TypeKind::Row(fields) => obj(
                "ROW",
                vec![(
                    "fields",
                    serde_json::to_value(fields).unwrap_or(Value::Null),
                )],
            ),
            _ => Value::String(self.to_string()),
        }
    }

    /// Whether this is a CHAR/VARCHAR type.
    pub fn is_string(&self) -> bool {
        matches!(self.kind, TypeKind::Char(_) | TypeKind::VarChar(_))
    }
    /// Whether this is ARRAY, MULTISET, MAP, ROW, VECTOR or VARIANT.
    pub fn is_nested(&self) -> bool {
        matches!(
            self.kind,
            TypeKind::Array(_)
                | TypeKind::Multiset(_)
                | TypeKind::Map(..)
                | TypeKind::Row(_)
                | TypeKind::Vector(..)
                | TypeKind::Variant
        )
    }
}

fn split_nullability(s: &str) -> Result<(&str, bool)> {
    let t = s.trim();
    let upper = t.to_ascii_uppercase();
    if let Some(stripped) = upper.strip_suffix("NOT NULL") {
        let n = stripped.trim_end().len();
        Ok((t[..n].trim_end(), false))
    } else if let Some(stripped) = upper.strip_suffix(" NULL") {
        let n = stripped.trim_end().len();
        Ok((t[..n].trim_end(), true))
    } else {
        Ok((t, true))
    }
}

fn parse_args(s: &str) -> Result<(String, Vec<u32>)> {
    match s.find('(') {
        None => Ok((s.trim().to_ascii_uppercase(), vec![])),
        Some(open) => {
            let close = s
                .rfind(')')
                .filter(|c| *c > open)
                .ok_or_else(|| Error::data_invalid(format!("unbalanced type string '{s}'")))?;
            let args = s[open + 1..close]
                .split(',')
                .map(|a| {
                    a.trim()
                        .parse::<u32>()
                        .map_err(|_| Error::data_invalid(format!("bad type parameter in '{s}'")))
                })
                .collect::<Result<Vec<_>>>()?;
            let name = format!("{}{}", s[..open].trim(), &s[close + 1..]);
            Ok((name.trim().to_ascii_uppercase(), args))
        }
    }
}

fn parse_atomic(s: &str) -> Result<DataType> {
    let (body, nullable) = split_nullability(s)?;
    let (name, args) = parse_args(body)?;
    let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
    let arg = |i: usize, default: u32| args.get(i).copied().unwrap_or(default);
    let kind = match name.as_str() {
        "BOOLEAN" => TypeKind::Boolean,
        "TINYINT" => TypeKind::TinyInt,
        "SMALLINT" => TypeKind::SmallInt,
        "INT" | "INTEGER" => TypeKind::Int,
        "BIGINT" => TypeKind::BigInt,
        "FLOAT" => TypeKind::Float,
        "DOUBLE" | "DOUBLE PRECISION" => TypeKind::Double,
        "DECIMAL" | "NUMERIC" | "DEC" => {
            let (p, sc) = (arg(0, 10), arg(1, 0));
            if !(1..=38).contains(&p) || sc > p {
                return Err(Error::data_invalid(format!("invalid decimal type '{s}'")));
            }
            TypeKind::Decimal {
                precision: p,
                scale: sc,
            }
        }
        "CHAR" => TypeKind::Char(arg(0, 1)),
        "VARCHAR" => TypeKind::VarChar(arg(0, 1)),
        "STRING" => TypeKind::VarChar(MAX_LENGTH),
        "BINARY" => TypeKind::Binary(arg(0, 1)),
        "VARBINARY" => TypeKind::VarBinary(arg(0, 1)),
        "BYTES" => TypeKind::VarBinary(MAX_LENGTH),
        "DATE" => TypeKind::Date,
        "TIME" | "TIME WITHOUT TIME ZONE" => TypeKind::Time(arg(0, 0)),
        "TIMESTAMP" | "TIMESTAMP WITHOUT TIME ZONE" => TypeKind::Timestamp(arg(0, 6)),
        "TIMESTAMP WITH LOCAL TIME ZONE" | "TIMESTAMP_LTZ" => {
            TypeKind::LocalZonedTimestamp(arg(0, 6))
        }
        "VARIANT" => TypeKind::Variant,
        "BLOB" => TypeKind::Blob,
        _ => return Err(Error::data_invalid(format!("unknown type '{s}'"))),
    };
    if let TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) | TypeKind::Time(p) = kind {
        if p > 9 {
            return Err(Error::data_invalid(format!("invalid precision in '{s}'")));
        }
    }
    Ok(DataType { nullable, kind })
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            TypeKind::Boolean => f.write_str("BOOLEAN")?,
            TypeKind::TinyInt => f.write_str("TINYINT")?,
            TypeKind::SmallInt => f.write_str("SMALLINT")?,
            TypeKind::Int => f.write_str("INT")?,
            TypeKind::BigInt => f.write_str("BIGINT")?,
            TypeKind::Float => f.write_str("FLOAT")?,
            TypeKind::Double => f.write_str("DOUBLE")?,
            TypeKind::Decimal { precision, scale } => write!(f, "DECIMAL({precision}, {scale})")?,
            TypeKind::Char(n) => write!(f, "CHAR({n})")?,
            TypeKind::VarChar(MAX_LENGTH) => f.write_str("STRING")?,
            TypeKind::VarChar(n) => write!(f, "VARCHAR({n})")?,
            TypeKind::Binary(n) => write!(f, "BINARY({n})")?,
            TypeKind::VarBinary(MAX_LENGTH) => f.write_str("BYTES")?,
            TypeKind::VarBinary(n) => write!(f, "VARBINARY({n})")?,
            TypeKind::Date => f.write_str("DATE")?,
            TypeKind::Time(p) => write!(f, "TIME({p})")?,
            TypeKind::Timestamp(p) => write!(f, "TIMESTAMP({p})")?,
            TypeKind::LocalZonedTimestamp(p) => write!(f, "TIMESTAMP({p}) WITH LOCAL TIME ZONE")?,
            TypeKind::Variant => f.write_str("VARIANT")?,
            TypeKind::Blob => f.write_str("BLOB")?,
            TypeKind::Array(e) => write!(f, "ARRAY<{e}>")?,
            TypeKind::Multiset(e) => write!(f, "MULTISET<{e}>")?,
            TypeKind::Map(k, v) => write!(f, "MAP<{k}, {v}>")?,
            TypeKind::Vector(e, n) => write!(f, "VECTOR<{e}, {n}>")?,
            TypeKind::Row(fields) => {
                f.write_str("ROW<")?;
                for (i, fl) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "`{}` {}", fl.name, fl.data_type)?;
                }
                f.write_str(">")?;
            }
        }
        if !self.nullable {
            f.write_str(" NOT NULL")?;
        }
        Ok(())
    }
}

impl Serialize for DataType {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

impl<'de> Deserialize<'de> for DataType {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        DataType::from_json(&v).map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p(s: &str) -> DataType {
        DataType::from_json(&Value::String(s.into())).unwrap()
    }

    #[test]
    fn atomic_types_parse_and_print_back() {
        for s in [
            "BOOLEAN",
            "TINYINT NOT NULL",
            "DECIMAL(20, 2)",
            "STRING NOT NULL",
            "BYTES",
            "VARCHAR(10)",
            "CHAR(3)",
            "DATE",
            "TIME(0)",
            "TIMESTAMP(9)",
            "TIMESTAMP(3) WITH LOCAL TIME ZONE",
        ] {
            assert_eq!(p(s).to_string(), s);
        }
        assert_eq!(
            p("DECIMAL").kind,
            TypeKind::Decimal {
                precision: 10,
                scale: 0
            }
        );
        assert_eq!(p("TIMESTAMP").kind, TypeKind::Timestamp(6));
        assert_eq!(p("integer").kind, TypeKind::Int);
        assert_eq!(p("TIMESTAMP_LTZ(6)").kind, TypeKind::LocalZonedTimestamp(6));
    }

    #[test]
    fn nested_types() {
        let v = json!({"type":"MAP NOT NULL","key":"STRING NOT NULL","value":{"type":"ARRAY","element":"INT"}});
        let t = DataType::from_json(&v).unwrap();
        assert!(!t.nullable);
        assert_eq!(t.to_json(), v);
        let r = json!({"type":"ROW","fields":[{"id":3,"name":"a","type":"INT"}]});
        let t = DataType::from_json(&r).unwrap();
        assert!(matches!(&t.kind, TypeKind::Row(f) if f[0].id == 3));
    }

    #[test]
    fn unknown_type_is_an_error() {
        assert!(DataType::from_json(&json!("FOO")).is_err());
        assert!(DataType::from_json(&json!("DECIMAL(40, 2)")).is_err());
        assert!(DataType::from_json(&json!({"type":"ARRAY"})).is_err());
        assert!(DataType::from_json(&json!(3)).is_err());
    }
}
