//! Which column type changes ALTER TABLE accepts.
//!
//! Mirrors the type-root rules of Java `org.apache.paimon.types.DataTypeCasts#supportsCast`
//! (Paimon 2.0): implicit casts (integer widening, numerics to FLOAT/DOUBLE/DECIMAL, strings to
//! VARCHAR, binaries to VARBINARY, TIMESTAMP ↔ TIMESTAMP_LTZ, TIMESTAMP → DATE/TIME) always,
//! explicit casts (numeric ↔ numeric, anything atomic ↔ string, BOOLEAN ↔ integers,
//! date-times ↔ date-times and numerics) only when `allow_explicit`. Nested types change only
//! by nullability. Java additionally requires a cast executor; the few explicit pairs Java has
//! no executor for are not distinguished here.

use crate::spec::types::{DataType, TypeKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Root {
    Char,
    VarChar,
    Boolean,
    Binary,
    VarBinary,
    Decimal,
    TinyInt,
    SmallInt,
    Int,
    BigInt,
    Float,
    Double,
    Date,
    Time,
    Timestamp,
    TimestampLtz,
    Other,
}

fn root(t: &DataType) -> Root {
    match t.kind {
        TypeKind::Char(_) => Root::Char,
        TypeKind::VarChar(_) => Root::VarChar,
        TypeKind::Boolean => Root::Boolean,
        TypeKind::Binary(_) => Root::Binary,
        TypeKind::VarBinary(_) => Root::VarBinary,
        TypeKind::Decimal { .. } => Root::Decimal,
        TypeKind::TinyInt => Root::TinyInt,
        TypeKind::SmallInt => Root::SmallInt,
        TypeKind::Int => Root::Int,
        TypeKind::BigInt => Root::BigInt,
        TypeKind::Float => Root::Float,
        TypeKind::Double => Root::Double,
        TypeKind::Date => Root::Date,
        TypeKind::Time(_) => Root::Time,
        TypeKind::Timestamp(_) => Root::Timestamp,
        TypeKind::LocalZonedTimestamp(_) => Root::TimestampLtz,
        _ => Root::Other,
    }
}

fn is_string(r: Root) -> bool {
    matches!(r, Root::Char | Root::VarChar)
}
fn is_integer(r: Root) -> bool {
    matches!(r, Root::TinyInt | Root::SmallInt | Root::Int | Root::BigInt)
}
fn is_numeric(r: Root) -> bool {
    is_integer(r) || matches!(r, Root::Float | Root::Double | Root::Decimal)
}
fn is_datetime(r: Root) -> bool {
    matches!(
        r,
        Root::Date | Root::Time | Root::Timestamp | Root::TimestampLtz
    )
}
fn integer_rank(r: Root) -> u8 {
    match r {
        Root::TinyInt => 1,
        Root::SmallInt => 2,
        Root::Int => 3,
        _ => 4,
    }
}

fn implicit(src: Root, dst: Root) -> bool {
    use Root::*;
    match dst {
        _ if src == dst && src != Other => true,
        VarChar => is_string(src),
        VarBinary => matches!(src, Binary | VarBinary),
        Decimal | Double => is_numeric(src),
        Float => is_integer(src) || src == Decimal,
        SmallInt | Int | BigInt => is_integer(src) && integer_rank(src) <= integer_rank(dst),
        Date | Time => src == Timestamp,
        Timestamp => src == TimestampLtz,
        TimestampLtz => src == Timestamp,
        _ => false,
    }
}

fn explicit(src: Root, dst: Root) -> bool {
    use Root::*;
    if src == Other || dst == Other {
        return false;
    }
    match dst {
        Char | VarChar => true,
        Boolean => is_string(src) || is_integer(src),
        Binary | VarBinary => is_string(src) || matches!(src, Binary | VarBinary),
        Decimal => is_numeric(src) || is_string(src) || src == Boolean,
        TinyInt | SmallInt | Int | BigInt => {
            is_numeric(src) || is_string(src) || matches!(src, Boolean | Timestamp | TimestampLtz)
        }
        Float | Double => is_numeric(src) || is_string(src) || src == Boolean,
        Date => matches!(src, Timestamp | TimestampLtz) || is_string(src),
        Time => matches!(src, Time | Timestamp | TimestampLtz) || is_string(src),
        Timestamp | TimestampLtz => is_datetime(src) || is_string(src) || is_numeric(src),
        Other => false,
    }
}

/// Whether a column of type `src` may become `dst` (nullability is checked separately).
pub fn supports_cast(src: &DataType, dst: &DataType, allow_explicit: bool) -> bool {
    if src.equals_ignore_nullable(dst) {
        return true;
    }
    let (s, d) = (root(src), root(dst));
    implicit(s, d) || (allow_explicit && explicit(s, d))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::type_text::parse_type;

    fn cast(a: &str, b: &str, explicit: bool) -> bool {
        supports_cast(&parse_type(a).unwrap(), &parse_type(b).unwrap(), explicit)
    }

    #[test]
    fn widening_and_explicit_casts() {
        assert!(cast("INT", "BIGINT", false));
        assert!(cast("TINYINT", "DECIMAL(10, 2)", false));
        assert!(cast("CHAR(3)", "STRING", false));
        assert!(cast("TIMESTAMP(3)", "DATE", false));
        assert!(!cast("BIGINT", "INT", false));
        assert!(cast("BIGINT", "INT", true));
        // The Java fixture `append_with_cast_timestamp` changes TIMESTAMP to INT and STRING.
        assert!(cast("TIMESTAMP(0)", "INT", true));
        assert!(cast("TIMESTAMP(6)", "STRING", true));
        assert!(!cast("STRING", "INT", false));
        assert!(!cast("ARRAY<INT>", "ARRAY<BIGINT>", true));
        assert!(cast("ARRAY<INT>", "ARRAY<INT NOT NULL>", false));
        assert!(!cast("DATE", "BOOLEAN", true));
    }
}
