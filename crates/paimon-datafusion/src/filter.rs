//! DataFusion filter expressions → paimon-core [`Predicate`]s, with how far each can be pushed.
//!
//! One pure function, [`classify`], answers both `supports_filters_pushdown` and `scan`, so the
//! two always agree. A conjunct is
//! - **Exact** only when it translates completely, binds to the table schema and refers to
//!   partition keys only (partition pruning is exact: whole files of matching partitions are
//!   kept, every other file dropped; the read applies the predicate to rows as well);
//! - **Inexact** when (part of) it translates: the scan prunes files and filters rows with it,
//!   and DataFusion keeps its own `Filter` above the scan;
//! - **Unsupported** otherwise (DataFusion alone evaluates it).
//!
//! Translated: `= <> < <= > >=` with a column on either side, `AND` (a side that does not
//! translate is dropped, making the result Inexact), `OR`, `NOT` (never Exact), `IS [NOT] NULL`,
//! `[NOT] IN (literals)`, `[NOT] BETWEEN`, `LIKE 'prefix%'` (case-sensitive, no escape, no other
//! wildcard), a bare boolean column. Casts are never stripped: `CAST(c AS ..) = 1` is
//! Unsupported. NULL literals, NaN and infinite floats are refused.

use std::collections::BTreeSet;

use datafusion::common::ScalarValue;
use datafusion::logical_expr::{
    Between, BinaryExpr, Expr, Like, Operator, TableProviderFilterPushDown,
};
use paimon_core::expr::predicate::{CompareOp, Literal};
use paimon_core::spec::datum::{Datum, Decimal, Timestamp};
use paimon_core::spec::schema::TableSchema;
use paimon_core::Predicate;

/// How far one filter conjunct is pushed into the scan, with its translation.
#[derive(Debug, Clone)]
pub struct Classified {
    /// The predicate handed to the scan (`None` when Unsupported).
    pub predicate: Option<Predicate>,
    /// What DataFusion is told.
    pub pushdown: TableProviderFilterPushDown,
}

/// Classifies one filter conjunct against `schema` (see the module doc).
pub fn classify(expr: &Expr, schema: &TableSchema) -> Classified {
    let unsupported = Classified {
        predicate: None,
        pushdown: TableProviderFilterPushDown::Unsupported,
    };
    let Some(t) = translate(expr) else {
        return unsupported;
    };
    let Ok(bound) = t.predicate.bind(schema) else {
        return unsupported;
    };
    let partition_ids: BTreeSet<i32> = schema
        .fields
        .iter()
        .filter(|f| schema.partition_keys.contains(&f.name))
        .map(|f| f.id)
        .collect();
    let exact = t.complete && !t.has_not && bound.references_only(&partition_ids);
    Classified {
        predicate: Some(t.predicate),
        pushdown: if exact {
            TableProviderFilterPushDown::Exact
        } else {
            TableProviderFilterPushDown::Inexact
        },
    }
}

/// A translation: the predicate, whether it is the whole expression, whether it has a `NOT`.
struct Translated {
    predicate: Predicate,
    complete: bool,
    has_not: bool,
}

impl Translated {
    fn full(predicate: Predicate) -> Self {
        Translated {
            predicate,
            complete: true,
            has_not: false,
        }
    }
}

fn translate(expr: &Expr) -> Option<Translated> {
    match expr {
        Expr::BinaryExpr(b) => translate_binary(b),
        Expr::Not(inner) => {
            let t = translate(inner)?;
            if !t.complete {
                return None;
            }
            Some(Translated {
                predicate: t.predicate.not(),
                complete: true,
                has_not: true,
            })
        }
        Expr::IsNull(e) => Some(Translated::full(Predicate::is_null(column(e)?))),
        Expr::IsNotNull(e) => Some(Translated::full(Predicate::is_not_null(column(e)?))),
        Expr::InList(l) => {
            let c = column(&l.expr)?;
            let values = l.list.iter().map(literal_of).collect::<Option<Vec<_>>>()?;
            Some(Translated::full(if l.negated {
                Predicate::not_in(c, values)
            } else {
                Predicate::is_in(c, values)
            }))
        }
        Expr::Between(b) => translate_between(b),
        Expr::Like(l) => translate_like(l),
        Expr::Column(_) => Some(Translated::full(Predicate::eq(
            column(expr)?,
            Literal::Boolean(true),
        ))),
        _ => None,
    }
}

fn translate_binary(b: &BinaryExpr) -> Option<Translated> {
    match b.op {
        Operator::And => {
            let (l, r) = (translate(&b.left), translate(&b.right));
            match (l, r) {
                (Some(l), Some(r)) => Some(Translated {
                    predicate: l.predicate.and(r.predicate),
                    complete: l.complete && r.complete,
                    has_not: l.has_not || r.has_not,
                }),
                (Some(one), None) | (None, Some(one)) => Some(Translated {
                    complete: false,
                    ..one
                }),
                (None, None) => None,
            }
        }
        Operator::Or => {
            let (l, r) = (translate(&b.left)?, translate(&b.right)?);
            if !(l.complete && r.complete) {
                return None;
            }
            Some(Translated {
                predicate: l.predicate.or(r.predicate),
                complete: true,
                has_not: l.has_not || r.has_not,
            })
        }
        op => {
            let op = compare_op(op)?;
            let (c, value, op) = match (column(&b.left), column(&b.right)) {
                (Some(c), None) => (c, literal_of(&b.right)?, op),
                (None, Some(c)) => (c, literal_of(&b.left)?, op.flip()),
                _ => return None,
            };
            Some(Translated::full(Predicate::Compare {
                column: c,
                op,
                value,
            }))
        }
    }
}

fn translate_between(b: &Between) -> Option<Translated> {
    let c = column(&b.expr)?;
    let p = Predicate::Between {
        column: c,
        low: literal_of(&b.low)?,
        high: literal_of(&b.high)?,
        negated: b.negated,
    };
    Some(Translated::full(p))
}

fn translate_like(l: &Like) -> Option<Translated> {
    if l.negated || l.case_insensitive || l.escape_char.is_some() {
        return None;
    }
    let c = column(&l.expr)?;
    let pattern = match literal_of(&l.pattern)? {
        Literal::String(s) => s,
        _ => return None,
    };
    let prefix = pattern.strip_suffix('%')?;
    if prefix.contains(['%', '_', '\\']) {
        return None;
    }
    Some(Translated::full(Predicate::starts_with(c, prefix)))
}

fn compare_op(op: Operator) -> Option<CompareOp> {
    Some(match op {
        Operator::Eq => CompareOp::Eq,
        Operator::NotEq => CompareOp::NotEq,
        Operator::Lt => CompareOp::Lt,
        Operator::LtEq => CompareOp::LtEq,
        Operator::Gt => CompareOp::Gt,
        Operator::GtEq => CompareOp::GtEq,
        _ => return None,
    })
}

/// The column name, quoted so paimon-core matches it exactly.
fn column(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Column(c) => Some(format!("\"{}\"", c.name.replace('"', "\"\""))),
        _ => None,
    }
}

fn literal_of(expr: &Expr) -> Option<Literal> {
    match expr {
        Expr::Literal(v, _) => scalar_literal(v),
        _ => None,
    }
}

/// A non-null DataFusion scalar as a paimon-core literal; `None` for NULL and unsupported types.
pub fn scalar_literal(v: &ScalarValue) -> Option<Literal> {
    use ScalarValue as S;
    let typed = |d: Datum| Some(Literal::Typed(d));
    match v {
        S::Boolean(Some(b)) => Some(Literal::Boolean(*b)),
        S::Int8(Some(n)) => typed(Datum::TinyInt(*n)),
        S::Int16(Some(n)) => typed(Datum::SmallInt(*n)),
        S::Int32(Some(n)) => typed(Datum::Int(*n)),
        S::Int64(Some(n)) => typed(Datum::BigInt(*n)),
        S::UInt8(Some(n)) => typed(Datum::SmallInt(i16::from(*n))),
        S::UInt16(Some(n)) => typed(Datum::Int(i32::from(*n))),
        S::UInt32(Some(n)) => typed(Datum::BigInt(i64::from(*n))),
        S::Float32(Some(f)) if f.is_finite() => typed(Datum::Float(*f)),
        S::Float64(Some(f)) if f.is_finite() => typed(Datum::Double(*f)),
        S::Utf8(Some(s)) | S::LargeUtf8(Some(s)) | S::Utf8View(Some(s)) => {
            Some(Literal::String(s.clone()))
        }
        S::Binary(Some(b)) | S::LargeBinary(Some(b)) | S::BinaryView(Some(b)) => {
            typed(Datum::Binary(b.clone()))
        }
        S::Date32(Some(d)) => typed(Datum::Date(*d)),
        S::Decimal128(Some(u), p, s) => {
            let scale = u32::try_from(*s).ok()?;
            typed(Datum::Decimal(Decimal {
                unscaled: *u,
                precision: u32::from(*p),
                scale,
            }))
        }
        S::TimestampSecond(Some(n), tz) => timestamp(n.checked_mul(1_000_000_000)?, tz),
        S::TimestampMillisecond(Some(n), tz) => timestamp(n.checked_mul(1_000_000)?, tz),
        S::TimestampMicrosecond(Some(n), tz) => timestamp(n.checked_mul(1_000)?, tz),
        S::TimestampNanosecond(Some(n), tz) => timestamp(*n, tz),
        _ => None,
    }
}

fn timestamp(nanos: i64, tz: &Option<std::sync::Arc<str>>) -> Option<Literal> {
    let ts = Timestamp {
        millis: nanos.div_euclid(1_000_000),
        nanos: u32::try_from(nanos.rem_euclid(1_000_000)).ok()?,
    };
    Some(Literal::Typed(match tz {
        None => Datum::Timestamp(ts),
        Some(_) => Datum::LocalZonedTimestamp(ts),
    }))
}
