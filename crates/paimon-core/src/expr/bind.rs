//! Binding: resolving column names to field ids and converting literals to field types.
//!
//! Plays the role of Java `PredicateBuilder` resolving names against a `RowType` (Paimon 2.0)
//! and of iceberg-rust's `Bind` for `UnboundPredicate`. The result refers to fields by id only,
//! so it stays valid across renames and reorders of later schema versions.
//!
//! Normalisation happens while binding: `NOT` is pushed into the leaves, `AND`/`OR` are
//! flattened and constants folded (see [`crate::expr::bound`]). Null handling (SQL):
//! - a comparison, `BETWEEN` bound or `IN` element that is a NULL literal is *unknown*: `x = NULL`
//!   binds to `AlwaysFalse`, and so does `NOT (x = NULL)` (negating unknown stays unknown);
//!   `x IN (1, NULL)` is `x = 1`; `x NOT IN (1, NULL)` is `AlwaysFalse`;
//! - `IS NULL` on a NOT NULL column folds to `AlwaysFalse`, `IS NOT NULL` to `AlwaysTrue`;
//! - `x LIKE '%'` (empty prefix) is `x IS NOT NULL`; `IN ()` is `AlwaysFalse`, `NOT IN ()`
//!   `AlwaysTrue`.
//!
//! Errors (`InvalidArgument`): an unknown or ambiguous column (naming it), a literal that does not
//! convert exactly ([`crate::expr::convert`]), `LIKE` on a non-character column. Comparisons on
//! nested or opaque columns (ARRAY, MAP, ROW, VARIANT, BLOB, ...) are `Unsupported`.

use crate::expr::bound::{BoundField, BoundPredicate, LeafOp};
use crate::expr::convert::convert_literal;
use crate::expr::predicate::{CompareOp, Literal, Predicate};
use crate::spec::datum::Datum;
use crate::spec::schema::TableSchema;
use crate::spec::types::{DataField, TypeKind};
use crate::{Error, Result};

impl Predicate {
    /// Binds to `schema`: names → field ids, literals → the field types; normalised.
    pub fn bind(&self, schema: &TableSchema) -> Result<BoundPredicate> {
        self.bind_fields(&schema.fields)
    }

    /// Binds to a list of fields (for example only the partition fields).
    pub fn bind_fields(&self, fields: &[DataField]) -> Result<BoundPredicate> {
        bind_node(self, fields, false)
    }
}

/// Binds `p`, or `NOT p` when `negate`, pushing the negation into the leaves.
fn bind_node(p: &Predicate, fields: &[DataField], negate: bool) -> Result<BoundPredicate> {
    Ok(match p {
        Predicate::AlwaysTrue | Predicate::AlwaysFalse => {
            if matches!(p, Predicate::AlwaysTrue) != negate {
                BoundPredicate::AlwaysTrue
            } else {
                BoundPredicate::AlwaysFalse
            }
        }
        Predicate::And(cs) | Predicate::Or(cs) => {
            let children = cs
                .iter()
                .map(|c| bind_node(c, fields, negate))
                .collect::<Result<Vec<_>>>()?;
            if matches!(p, Predicate::And(_)) != negate {
                BoundPredicate::and_all(children)
            } else {
                BoundPredicate::or_all(children)
            }
        }
        Predicate::Not(c) => bind_node(c, fields, !negate)?,
        Predicate::Compare { column, op, value } => {
            let field = comparable_field(column, fields)?;
            let op = if negate { op.negate() } else { *op };
            bind_compare(&field, op, value)?
        }
        Predicate::In {
            column,
            values,
            negated,
        } => bind_in(column, values, *negated != negate, fields)?,
        Predicate::IsNull { column, negated } => {
            let field = resolve(column, fields)?;
            let not_null = *negated != negate;
            match (field.data_type.nullable, not_null) {
                (false, false) => BoundPredicate::AlwaysFalse,
                (false, true) => BoundPredicate::AlwaysTrue,
                (true, false) => BoundPredicate::leaf(field, LeafOp::IsNull),
                (true, true) => BoundPredicate::leaf(field, LeafOp::IsNotNull),
            }
        }
        Predicate::Between {
            column,
            low,
            high,
            negated,
        } => {
            let field = comparable_field(column, fields)?;
            if *negated != negate {
                BoundPredicate::or_all([
                    bind_compare(&field, CompareOp::Lt, low)?,
                    bind_compare(&field, CompareOp::Gt, high)?,
                ])
            } else {
                BoundPredicate::and_all([
                    bind_compare(&field, CompareOp::GtEq, low)?,
                    bind_compare(&field, CompareOp::LtEq, high)?,
                ])
            }
        }
        Predicate::StartsWith { column, prefix } => {
            bind_starts_with(column, prefix, negate, fields)?
        }
    })
}

fn bind_compare(field: &BoundField, op: CompareOp, value: &Literal) -> Result<BoundPredicate> {
    let Some(v) = convert(value, field)? else {
        return Ok(BoundPredicate::AlwaysFalse);
    };
    let leaf = match op {
        CompareOp::Eq => LeafOp::Eq(v),
        CompareOp::NotEq => LeafOp::NotEq(v),
        CompareOp::Lt => LeafOp::Lt(v),
        CompareOp::LtEq => LeafOp::LtEq(v),
        CompareOp::Gt => LeafOp::Gt(v),
        CompareOp::GtEq => LeafOp::GtEq(v),
    };
    Ok(BoundPredicate::leaf(field.clone(), leaf))
}

fn bind_in(
    column: &str,
    values: &[Literal],
    negated: bool,
    fields: &[DataField],
) -> Result<BoundPredicate> {
    let field = comparable_field(column, fields)?;
    let mut distinct: Vec<Datum> = Vec::new();
    let mut saw_null = false;
    for lit in values {
        match convert(lit, &field)? {
            None => saw_null = true,
            Some(v) => {
                let dup = distinct
                    .iter()
                    .any(|d| d.compare(&v) == Some(std::cmp::Ordering::Equal));
                if !dup {
                    distinct.push(v);
                }
            }
        }
    }
    if negated && saw_null {
        // x NOT IN (.., NULL) is never true.
        return Ok(BoundPredicate::AlwaysFalse);
    }
    let op = match (distinct.len(), negated) {
        (0, false) => return Ok(BoundPredicate::AlwaysFalse),
        (0, true) => return Ok(BoundPredicate::AlwaysTrue),
        (1, false) => LeafOp::Eq(distinct.remove(0)),
        (1, true) => LeafOp::NotEq(distinct.remove(0)),
        (_, false) => LeafOp::In(distinct),
        (_, true) => LeafOp::NotIn(distinct),
    };
    Ok(BoundPredicate::leaf(field, op))
}

fn bind_starts_with(
    column: &str,
    prefix: &str,
    negate: bool,
    fields: &[DataField],
) -> Result<BoundPredicate> {
    let field = resolve(column, fields)?;
    if !matches!(
        field.data_type.kind,
        TypeKind::Char(_) | TypeKind::VarChar(_)
    ) {
        return Err(Error::invalid_argument(format!(
            "LIKE needs a character column, but '{}' is {}",
            field.name, field.data_type
        ))
        .with_context("column", field.name));
    }
    Ok(match (prefix.is_empty(), negate) {
        (true, false) => not_null_leaf(field),
        // Every non-null value starts with "": NOT LIKE '%' keeps nothing.
        (true, true) => BoundPredicate::AlwaysFalse,
        (false, false) => BoundPredicate::leaf(field, LeafOp::StartsWith(prefix.to_string())),
        (false, true) => BoundPredicate::leaf(field, LeafOp::NotStartsWith(prefix.to_string())),
    })
}

fn not_null_leaf(field: BoundField) -> BoundPredicate {
    if field.data_type.nullable {
        BoundPredicate::leaf(field, LeafOp::IsNotNull)
    } else {
        BoundPredicate::AlwaysTrue
    }
}

fn convert(lit: &Literal, field: &BoundField) -> Result<Option<Datum>> {
    convert_literal(lit, &field.data_type).map_err(|e| e.with_context("column", field.name.clone()))
}

/// Resolves a column that takes ordered comparisons (any atomic type).
fn comparable_field(column: &str, fields: &[DataField]) -> Result<BoundField> {
    let field = resolve(column, fields)?;
    let comparable = !matches!(
        field.data_type.kind,
        TypeKind::Array(_)
            | TypeKind::Multiset(_)
            | TypeKind::Map(..)
            | TypeKind::Row(_)
            | TypeKind::Vector(..)
            | TypeKind::Variant
            | TypeKind::Blob
    );
    if !comparable {
        return Err(Error::unsupported(format!(
            "comparisons on column '{}' of type {} are not supported",
            field.name, field.data_type
        ))
        .with_context("column", field.name));
    }
    Ok(field)
}

/// Resolves a column name: `"quoted"` exactly, otherwise case-sensitively first, then
/// case-insensitively if that is unique.
pub(crate) fn resolve(column: &str, fields: &[DataField]) -> Result<BoundField> {
    let found = match unquote(column) {
        Some(exact) => fields.iter().find(|f| f.name == exact),
        None => match fields.iter().find(|f| f.name == column) {
            Some(f) => Some(f),
            None => {
                let mut matches = fields
                    .iter()
                    .filter(|f| f.name.eq_ignore_ascii_case(column));
                let first = matches.next();
                if let (Some(a), Some(b)) = (first, matches.next()) {
                    return Err(Error::invalid_argument(format!(
                        "column name '{column}' is ambiguous: it matches '{}' and '{}'; \
                         quote it with double quotes",
                        a.name, b.name
                    ))
                    .with_context("column", column));
                }
                first
            }
        },
    };
    let f = found.ok_or_else(|| unknown_column(column, fields))?;
    Ok(BoundField {
        id: f.id,
        name: f.name.clone(),
        data_type: f.data_type.clone(),
    })
}

fn unquote(column: &str) -> Option<String> {
    let inner = column.strip_prefix('"')?.strip_suffix('"')?;
    Some(inner.replace("\"\"", "\""))
}

fn unknown_column(column: &str, fields: &[DataField]) -> Error {
    const MAX_LISTED: usize = 30;
    let mut names: Vec<&str> = fields
        .iter()
        .take(MAX_LISTED)
        .map(|f| f.name.as_str())
        .collect();
    if fields.len() > MAX_LISTED {
        names.push("...");
    }
    Error::invalid_argument(format!(
        "unknown column '{column}' (columns: {})",
        names.join(", ")
    ))
    .with_context("column", column)
}

#[cfg(test)]
#[path = "bind_tests.rs"]
mod tests;
