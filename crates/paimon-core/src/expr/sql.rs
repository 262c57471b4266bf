//! SQL text → [`Predicate`], for the CLI's `--where`.
//!
//! Parses one boolean SQL expression with `sqlparser` (generic dialect) and maps it onto the
//! unbound predicate tree. Supported: `= <> != < <= > >=` (column on either side), `[NOT] IN`,
//! `IS [NOT] NULL`, `IS [NOT] TRUE|FALSE`, `[NOT] BETWEEN`, `[NOT] LIKE 'abc%'` (only one trailing
//! `%` and no `_`; a pattern without wildcards is an equality), `AND`, `OR`, `NOT`, parentheses,
//! `TRUE`/`FALSE`, and a bare boolean column. Literals: numbers (text kept exactly, with a
//! leading sign), `'strings'`, `NULL`, `TRUE`/`FALSE`, `DATE '…'`, `TIMESTAMP '…'`, `TIME '…'`,
//! `DECIMAL '…'` and hex `X'0A0B'` (a binary value). Double-quoted identifiers keep their
//! exact spelling (see [`crate::expr::predicate`]); compound names (`a.b`) are not supported.
//!
//! Syntax errors are `InvalidArgument` carrying the parser's message; valid SQL we cannot
//! express (other `LIKE` patterns, functions, column-to-column comparisons) is `Unsupported`.

use sqlparser::ast::{BinaryOperator, DataType as SqlType, Expr, Ident, UnaryOperator, Value};
use sqlparser::dialect::GenericDialect;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::Token;

use crate::expr::predicate::{CompareOp, Literal, Predicate};
use crate::spec::datum::Datum;
use crate::{Error, Result};

/// Parses a SQL boolean expression such as `dt = '2024-01-01' AND id IN (1, 2)`.
pub fn parse_predicate(sql: &str) -> Result<Predicate> {
    let dialect = GenericDialect {};
    let syntax = |e: sqlparser::parser::ParserError| {
        Error::invalid_argument(format!("invalid filter: {e}")).with_context("filter", sql)
    };
    let mut parser = Parser::new(&dialect).try_with_sql(sql).map_err(syntax)?;
    let expr = parser.parse_expr().map_err(syntax)?;
    let next = parser.peek_token();
    if next.token != Token::EOF {
        return Err(Error::invalid_argument(format!(
            "invalid filter: unexpected '{}' after the expression",
            next.token
        ))
        .with_context("filter", sql));
    }
    to_predicate(&expr).map_err(|e| e.with_context("filter", sql))
}

fn unsupported(what: &str, e: &Expr) -> Error {
    Error::unsupported(format!("{what} in filter: {e}"))
}

fn to_predicate(e: &Expr) -> Result<Predicate> {
    Ok(match e {
        Expr::Nested(inner) => to_predicate(inner)?,
        Expr::BinaryOp { left, op, right } => binary(left, op, right, e)?,
        Expr::UnaryOp {
            op: UnaryOperator::Not,
            expr,
        } => Predicate::Not(Box::new(to_predicate(expr)?)),
        Expr::IsNull(x) => Predicate::is_null(column(x)?),
        Expr::IsNotNull(x) => Predicate::is_not_null(column(x)?),
        Expr::IsTrue(x) => is_bool(column(x)?, true),
        Expr::IsFalse(x) => is_bool(column(x)?, false),
        Expr::IsNotTrue(x) => Predicate::Not(Box::new(is_bool(column(x)?, true))),
        Expr::IsNotFalse(x) => Predicate::Not(Box::new(is_bool(column(x)?, false))),
        Expr::InList {
            expr,
            list,
            negated,
        } => Predicate::In {
            column: column(expr)?,
            values: list.iter().map(literal).collect::<Result<_>>()?,
            negated: *negated,
        },
        Expr::Between {
            expr,
            negated,
            low,
            high,
        } => Predicate::Between {
            column: column(expr)?,
            low: literal(low)?,
            high: literal(high)?,
            negated: *negated,
        },
        Expr::Like {
            negated,
            any: false,
            expr,
            pattern,
            escape_char: None,
        } => {
            let p = like(column(expr)?, pattern, e)?;
            if *negated {
                Predicate::Not(Box::new(p))
            } else {
                p
            }
        }
        Expr::Value(v) => match &v.value {
            Value::Boolean(true) => Predicate::AlwaysTrue,
            Value::Boolean(false) => Predicate::AlwaysFalse,
            _ => return Err(unsupported("a non-boolean literal as a condition", e)),
        },
        Expr::Identifier(_) => Predicate::eq(column(e)?, Literal::Boolean(true)),
        _ => return Err(unsupported("this expression", e)),
    })
}

/// `x IS TRUE` is two-valued: `x IS NOT NULL AND x = TRUE`, so that `NOT` keeps the nulls.
fn is_bool(column: String, value: bool) -> Predicate {
    Predicate::is_not_null(column.clone()).and(Predicate::eq(column, Literal::Boolean(value)))
}

fn binary(left: &Expr, op: &BinaryOperator, right: &Expr, e: &Expr) -> Result<Predicate> {
    let cmp = match op {
        BinaryOperator::And => {
            return Ok(to_predicate(left)?.and(to_predicate(right)?));
        }
        BinaryOperator::Or => return Ok(to_predicate(left)?.or(to_predicate(right)?)),
        BinaryOperator::Eq => CompareOp::Eq,
        BinaryOperator::NotEq => CompareOp::NotEq,
        BinaryOperator::Lt => CompareOp::Lt,
        BinaryOperator::LtEq => CompareOp::LtEq,
        BinaryOperator::Gt => CompareOp::Gt,
        BinaryOperator::GtEq => CompareOp::GtEq,
        _ => return Err(unsupported("this operator", e)),
    };
    let (col, lit, op) = match (is_column(left), is_column(right)) {
        (true, false) => (left, right, cmp),
        (false, true) => (right, left, cmp.flip()),
        (true, true) => return Err(unsupported("a comparison of two columns", e)),
        (false, false) => return Err(unsupported("a comparison without a column", e)),
    };
    Ok(Predicate::Compare {
        column: column(col)?,
        op,
        value: literal(lit)?,
    })
}

fn is_column(e: &Expr) -> bool {
    match e {
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) => true,
        Expr::Nested(inner) => is_column(inner),
        _ => false,
    }
}

fn column(e: &Expr) -> Result<String> {
    match e {
        Expr::Identifier(id) => Ok(ident(id)),
        Expr::Nested(inner) => column(inner),
        Expr::CompoundIdentifier(_) => Err(Error::unsupported(format!(
            "nested column references are not supported: {e} (quote a name containing a dot)"
        ))),
        _ => Err(unsupported("expected a column, found an expression", e)),
    }
}

/// Quoted identifiers are kept in double quotes so that binding matches them exactly.
fn ident(id: &Ident) -> String {
    match id.quote_style {
        Some(_) => format!("\"{}\"", id.value.replace('"', "\"\"")),
        None => id.value.clone(),
    }
}

fn literal(e: &Expr) -> Result<Literal> {
    let bad = || unsupported("expected a literal", e);
    Ok(match e {
        Expr::Nested(inner) => literal(inner)?,
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => Literal::Number(n.to_string()),
            Value::SingleQuotedString(s)
            | Value::NationalStringLiteral(s)
            | Value::EscapedStringLiteral(s)
            | Value::TripleSingleQuotedString(s) => Literal::String(s.clone()),
            Value::Boolean(b) => Literal::Boolean(*b),
            Value::Null => Literal::Null,
            Value::HexStringLiteral(h) => Literal::Typed(Datum::Binary(hex(h, e)?)),
            _ => return Err(bad()),
        },
        Expr::UnaryOp { op, expr } => {
            let sign = match op {
                UnaryOperator::Minus => "-",
                UnaryOperator::Plus => "",
                _ => return Err(bad()),
            };
            match literal(expr)? {
                Literal::Number(n) if !n.starts_with(['-', '+']) => {
                    Literal::Number(format!("{sign}{n}"))
                }
                _ => return Err(bad()),
            }
        }
        Expr::TypedString(ts) => {
            let text = ts.value.clone().into_string().ok_or_else(bad)?;
            match &ts.data_type {
                SqlType::Date => Literal::Date(text),
                SqlType::Timestamp(..) | SqlType::Datetime(_) => Literal::Timestamp(text),
                SqlType::Time(..) => Literal::String(text),
                SqlType::Decimal(_) | SqlType::Numeric(_) => Literal::Number(text),
                _ => return Err(unsupported("this typed literal", e)),
            }
        }
        _ => return Err(bad()),
    })
}

fn hex(h: &str, e: &Expr) -> Result<Vec<u8>> {
    let bad = || Error::invalid_argument(format!("invalid hex literal: {e}"));
    if h.len() % 2 != 0 {
        return Err(bad());
    }
    (0..h.len())
        .step_by(2)
        .map(|i| {
            h.get(i..i + 2)
                .and_then(|b| u8::from_str_radix(b, 16).ok())
                .ok_or_else(bad)
        })
        .collect()
}

/// `LIKE 'abc%'` → starts-with; `LIKE 'abc'` → equality; anything else is unsupported.
fn like(column: String, pattern: &Expr, e: &Expr) -> Result<Predicate> {
    let Literal::String(p) = literal(pattern)? else {
        return Err(unsupported("LIKE needs a string pattern", e));
    };
    let body = p.strip_suffix('%').unwrap_or(&p);
    if body.contains(['%', '_']) {
        return Err(Error::unsupported(format!(
            "LIKE pattern '{p}' is not supported: only 'prefix%' (one trailing %, no _)"
        )));
    }
    Ok(if body.len() == p.len() {
        Predicate::eq(column, Literal::String(p))
    } else {
        Predicate::starts_with(column, body)
    })
}

#[cfg(test)]
#[path = "sql_tests.rs"]
mod tests;
