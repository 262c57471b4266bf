//! Unbound predicates: column names and literals, as a user or the CLI writes them.
//!
//! Mirrors the building side of Java `org.apache.paimon.predicate.PredicateBuilder` (Paimon 2.0),
//! except that nothing here refers to a column position or a field type: a [`Predicate`] is
//! resolved against a schema only by [`Predicate::bind`](crate::expr::Predicate::bind), which
//! turns names into field ids and literals into typed [`Datum`]s.
//!
//! Column names: a name is matched case-sensitively first, then case-insensitively if that is
//! unique. A name written with surrounding double quotes (`"\"Name\""`, as the SQL parser emits
//! for quoted identifiers; `""` inside stands for one `"`) is matched exactly.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::spec::datum::Datum;

/// A literal as written, before it is converted to a column's type. Serialisable (serde), so
/// a predicate can travel with a scan to the workers of a distributed engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Literal {
    /// SQL `NULL`.
    Null,
    /// `TRUE` / `FALSE`.
    Boolean(bool),
    /// Exact text of a numeric literal, such as `"1.50"`, `"-3"` or `"1e3"`.
    Number(String),
    /// A character string literal; cast to the column's type where SQL would.
    String(String),
    /// `DATE '2024-01-01'`.
    Date(String),
    /// `TIMESTAMP '2024-01-01 10:00:00.123456'` (up to 9 fraction digits).
    Timestamp(String),
    /// An already typed value (also hex literals `X'0A0B'` as `Datum::Binary`).
    Typed(Datum),
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CompareOp {
    /// `=`
    Eq,
    /// `<>`
    NotEq,
    /// `<`
    Lt,
    /// `<=`
    LtEq,
    /// `>`
    Gt,
    /// `>=`
    GtEq,
}

impl CompareOp {
    /// The operator with its operands swapped (`1 < x` is `x > 1`).
    pub fn flip(self) -> CompareOp {
        match self {
            CompareOp::Eq | CompareOp::NotEq => self,
            CompareOp::Lt => CompareOp::Gt,
            CompareOp::LtEq => CompareOp::GtEq,
            CompareOp::Gt => CompareOp::Lt,
            CompareOp::GtEq => CompareOp::LtEq,
        }
    }
    /// The operator giving the opposite answer on non-null values (`NOT x < 1` is `x >= 1`).
    pub fn negate(self) -> CompareOp {
        match self {
            CompareOp::Eq => CompareOp::NotEq,
            CompareOp::NotEq => CompareOp::Eq,
            CompareOp::Lt => CompareOp::GtEq,
            CompareOp::LtEq => CompareOp::Gt,
            CompareOp::Gt => CompareOp::LtEq,
            CompareOp::GtEq => CompareOp::Lt,
        }
    }
    fn symbol(self) -> &'static str {
        match self {
            CompareOp::Eq => "=",
            CompareOp::NotEq => "<>",
            CompareOp::Lt => "<",
            CompareOp::LtEq => "<=",
            CompareOp::Gt => ">",
            CompareOp::GtEq => ">=",
        }
    }
}

/// A predicate over named columns with untyped literals. Serialisable (serde) with its literals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Predicate {
    /// Matches every row.
    AlwaysTrue,
    /// Matches no row.
    AlwaysFalse,
    /// All children hold (empty = true).
    And(Vec<Predicate>),
    /// Some child holds (empty = false).
    Or(Vec<Predicate>),
    /// The child does not hold (SQL three-valued: NOT unknown is unknown).
    Not(Box<Predicate>),
    /// `column op value`.
    Compare {
        /// Column name.
        column: String,
        /// Operator.
        op: CompareOp,
        /// Right-hand side.
        value: Literal,
    },
    /// `column [NOT] IN (values)`.
    In {
        /// Column name.
        column: String,
        /// The list.
        values: Vec<Literal>,
        /// `NOT IN`.
        negated: bool,
    },
    /// `column IS [NOT] NULL`.
    IsNull {
        /// Column name.
        column: String,
        /// `IS NOT NULL`.
        negated: bool,
    },
    /// `column [NOT] BETWEEN low AND high` (bounds inclusive).
    Between {
        /// Column name.
        column: String,
        /// Lower bound.
        low: Literal,
        /// Upper bound.
        high: Literal,
        /// `NOT BETWEEN`.
        negated: bool,
    },
    /// `column LIKE 'prefix%'`.
    StartsWith {
        /// Column name.
        column: String,
        /// The prefix.
        prefix: String,
    },
}

fn compare(column: impl Into<String>, op: CompareOp, value: Literal) -> Predicate {
    Predicate::Compare {
        column: column.into(),
        op,
        value,
    }
}

impl Predicate {
    /// `column = value`.
    pub fn eq(column: impl Into<String>, value: Literal) -> Self {
        compare(column, CompareOp::Eq, value)
    }
    /// `column <> value`.
    pub fn not_eq(column: impl Into<String>, value: Literal) -> Self {
        compare(column, CompareOp::NotEq, value)
    }
    /// `column < value`.
    pub fn lt(column: impl Into<String>, value: Literal) -> Self {
        compare(column, CompareOp::Lt, value)
    }
    /// `column <= value`.
    pub fn lt_eq(column: impl Into<String>, value: Literal) -> Self {
        compare(column, CompareOp::LtEq, value)
    }
    /// `column > value`.
    pub fn gt(column: impl Into<String>, value: Literal) -> Self {
        compare(column, CompareOp::Gt, value)
    }
    /// `column >= value`.
    pub fn gt_eq(column: impl Into<String>, value: Literal) -> Self {
        compare(column, CompareOp::GtEq, value)
    }
    /// `column IN (values)`.
    pub fn is_in(column: impl Into<String>, values: Vec<Literal>) -> Self {
        Predicate::In {
            column: column.into(),
            values,
            negated: false,
        }
    }
    /// `column NOT IN (values)`.
    pub fn not_in(column: impl Into<String>, values: Vec<Literal>) -> Self {
        Predicate::In {
            column: column.into(),
            values,
            negated: true,
        }
    }
    /// `column IS NULL`.
    pub fn is_null(column: impl Into<String>) -> Self {
        Predicate::IsNull {
            column: column.into(),
            negated: false,
        }
    }
    /// `column IS NOT NULL`.
    pub fn is_not_null(column: impl Into<String>) -> Self {
        Predicate::IsNull {
            column: column.into(),
            negated: true,
        }
    }
    /// `column BETWEEN low AND high`.
    pub fn between(column: impl Into<String>, low: Literal, high: Literal) -> Self {
        Predicate::Between {
            column: column.into(),
            low,
            high,
            negated: false,
        }
    }
    /// `column LIKE 'prefix%'`.
    pub fn starts_with(column: impl Into<String>, prefix: impl Into<String>) -> Self {
        Predicate::StartsWith {
            column: column.into(),
            prefix: prefix.into(),
        }
    }
    /// `self AND other`, flattening nested ANDs.
    #[must_use]
    pub fn and(self, other: Predicate) -> Self {
        let mut children = match self {
            Predicate::And(c) => c,
            p => vec![p],
        };
        match other {
            Predicate::And(c) => children.extend(c),
            p => children.push(p),
        }
        Predicate::And(children)
    }
    /// `self OR other`, flattening nested ORs.
    #[must_use]
    pub fn or(self, other: Predicate) -> Self {
        let mut children = match self {
            Predicate::Or(c) => c,
            p => vec![p],
        };
        match other {
            Predicate::Or(c) => children.extend(c),
            p => children.push(p),
        }
        Predicate::Or(children)
    }
    /// `NOT self`.
    #[allow(clippy::should_implement_trait)]
    #[must_use]
    pub fn not(self) -> Self {
        Predicate::Not(Box::new(self))
    }
}

impl Literal {
    /// A numeric literal from an integer.
    pub fn int(v: i64) -> Self {
        Literal::Number(v.to_string())
    }
    /// A numeric literal from its exact text (`"1.50"`).
    pub fn number(text: impl Into<String>) -> Self {
        Literal::Number(text.into())
    }
    /// A string literal.
    pub fn string(s: impl Into<String>) -> Self {
        Literal::String(s.into())
    }
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Null => f.write_str("NULL"),
            Literal::Boolean(b) => f.write_str(if *b { "TRUE" } else { "FALSE" }),
            Literal::Number(n) => f.write_str(n),
            Literal::String(s) => write!(f, "'{}'", s.replace('\'', "''")),
            Literal::Date(s) => write!(f, "DATE '{s}'"),
            Literal::Timestamp(s) => write!(f, "TIMESTAMP '{s}'"),
            Literal::Typed(d) => write!(f, "{d}"),
        }
    }
}

fn write_list<T: fmt::Display>(f: &mut fmt::Formatter<'_>, items: &[T], sep: &str) -> fmt::Result {
    for (i, p) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(sep)?;
        }
        write!(f, "{p}")?;
    }
    Ok(())
}

impl fmt::Display for Predicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Predicate::AlwaysTrue => f.write_str("TRUE"),
            Predicate::AlwaysFalse => f.write_str("FALSE"),
            Predicate::And(c) => {
                f.write_str("(")?;
                write_list(f, c, " AND ")?;
                f.write_str(")")
            }
            Predicate::Or(c) => {
                f.write_str("(")?;
                write_list(f, c, " OR ")?;
                f.write_str(")")
            }
            Predicate::Not(p) => write!(f, "NOT {p}"),
            Predicate::Compare { column, op, value } => {
                write!(f, "{column} {} {value}", op.symbol())
            }
            Predicate::In {
                column,
                values,
                negated,
            } => {
                let not = if *negated { "NOT " } else { "" };
                write!(f, "{column} {not}IN (")?;
                write_list(f, values, ", ")?;
                f.write_str(")")
            }
            Predicate::IsNull { column, negated } => {
                let not = if *negated { "NOT " } else { "" };
                write!(f, "{column} IS {not}NULL")
            }
            Predicate::Between {
                column,
                low,
                high,
                negated,
            } => {
                let not = if *negated { "NOT " } else { "" };
                write!(f, "{column} {not}BETWEEN {low} AND {high}")
            }
            Predicate::StartsWith { column, prefix } => {
                write!(f, "{column} LIKE '{}%'", prefix.replace('\'', "''"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builders_flatten_and_display() {
        let p = Predicate::eq("a", Literal::int(1))
            .and(Predicate::gt("b", Literal::number("2.5")))
            .and(Predicate::is_null("c"));
        match &p {
            Predicate::And(c) => assert_eq!(c.len(), 3),
            other => panic!("{other:?}"),
        }
        assert_eq!(p.to_string(), "(a = 1 AND b > 2.5 AND c IS NULL)");
        let o = Predicate::starts_with("s", "ab'c").or(Predicate::not_in(
            "x",
            vec![Literal::string("q"), Literal::Null],
        ));
        assert_eq!(o.to_string(), "(s LIKE 'ab''c%' OR x NOT IN ('q', NULL))");
    }

    #[test]
    fn serde_round_trip_keeps_every_variant() {
        use crate::spec::datum::{Decimal, Timestamp};
        let p = Predicate::eq("\"A b\"", Literal::int(1))
            .and(Predicate::between(
                "d",
                Literal::Typed(Datum::Decimal(Decimal {
                    unscaled: -12345,
                    precision: 10,
                    scale: 2,
                })),
                Literal::Typed(Datum::Timestamp(Timestamp {
                    millis: 1_700_000_000_123,
                    nanos: 456,
                })),
            ))
            .and(Predicate::not_in(
                "x",
                vec![Literal::string("q"), Literal::Null],
            ))
            .and(
                Predicate::starts_with("s", "ab")
                    .or(Predicate::is_not_null("c"))
                    .not(),
            )
            .and(Predicate::Compare {
                column: "b".into(),
                op: CompareOp::GtEq,
                value: Literal::Typed(Datum::Binary(vec![0, 255])),
            })
            .and(Predicate::AlwaysFalse.or(Predicate::AlwaysTrue));
        let json = serde_json::to_string(&p).unwrap();
        let back: Predicate = serde_json::from_str(&json).unwrap();
        assert_eq!(back, p);
        assert_eq!(back.to_string(), p.to_string());
    }

    #[test]
    fn compare_op_flip_and_negate() {
        assert_eq!(CompareOp::Lt.flip(), CompareOp::Gt);
        assert_eq!(CompareOp::LtEq.negate(), CompareOp::Gt);
        assert_eq!(CompareOp::Eq.negate(), CompareOp::NotEq);
        for op in [CompareOp::Lt, CompareOp::GtEq, CompareOp::NotEq] {
            assert_eq!(op.negate().negate(), op);
            assert_eq!(op.flip().flip(), op);
        }
    }
}
