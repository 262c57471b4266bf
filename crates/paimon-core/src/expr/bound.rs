//! Bound predicates: leaves refer to a field by id and carry literals of the field's type.
//!
//! A [`BoundPredicate`] is what [`Predicate::bind`](crate::expr::Predicate::bind) returns and
//! what every evaluator in [`visitors`](crate::expr::visitors) consumes. It plays the role of
//! Java `org.apache.paimon.predicate.LeafPredicate` / `CompoundPredicate` (Paimon 2.0), with one
//! deliberate difference: a leaf names its field by **id** (plus name and type for messages),
//! never by position, so one bound predicate serves every schema version of a table.
//!
//! Invariants of a bound predicate (established by binding, kept by [`BoundPredicate::and_all`]
//! and [`BoundPredicate::or_all`]):
//! - there is no `NOT` node: negation is pushed into the leaves (`NOT x < 1` is `x >= 1`,
//!   `NOT x IN (..)` is `NOT IN`, `NOT x LIKE 'a%'` is [`LeafOp::NotStartsWith`], a variant Java
//!   does not have);
//! - `AND` and `OR` are flattened, have at least two children and contain no constants;
//! - `AlwaysTrue` / `AlwaysFalse` appear only as the whole predicate.
//!
//! Leaves are evaluated with SQL three-valued logic in which a null operand makes every leaf
//! except `IS [NOT] NULL` unknown. Because the tree has only AND and OR above the leaves,
//! treating "unknown" as "false" at the leaves gives the same rows as full three-valued logic.

use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::fmt;

use crate::spec::datum::Datum;
use crate::spec::types::DataType;

/// The field a leaf refers to: its id (the identity), plus name and type as bound.
#[derive(Debug, Clone, PartialEq)]
pub struct BoundField {
    /// Field id, stable across renames and reorders.
    pub id: i32,
    /// The name in the schema the predicate was bound against (for messages only).
    pub name: String,
    /// The field type in that schema; literals have this type.
    pub data_type: DataType,
}

/// The operation of a leaf; literals are non-null and of the field's type.
#[derive(Debug, Clone, PartialEq)]
pub enum LeafOp {
    /// `= v`
    Eq(Datum),
    /// `<> v`
    NotEq(Datum),
    /// `< v`
    Lt(Datum),
    /// `<= v`
    LtEq(Datum),
    /// `> v`
    Gt(Datum),
    /// `>= v`
    GtEq(Datum),
    /// `IN (vs)`: at least two distinct values (one value is `Eq`).
    In(Vec<Datum>),
    /// `NOT IN (vs)`: at least two distinct values (one value is `NotEq`).
    NotIn(Vec<Datum>),
    /// `IS NULL`
    IsNull,
    /// `IS NOT NULL`
    IsNotNull,
    /// `LIKE 'prefix%'` on a character column.
    StartsWith(String),
    /// `NOT LIKE 'prefix%'`: non-null values not starting with the prefix.
    NotStartsWith(String),
}

impl LeafOp {
    /// The leaf giving the opposite answer on non-null values; `IS NULL` and `IS NOT NULL`
    /// swap. SQL-correct because every other leaf is unknown on null, and so is its negation.
    #[must_use]
    pub fn negate(&self) -> LeafOp {
        match self {
            LeafOp::Eq(v) => LeafOp::NotEq(v.clone()),
            LeafOp::NotEq(v) => LeafOp::Eq(v.clone()),
            LeafOp::Lt(v) => LeafOp::GtEq(v.clone()),
            LeafOp::LtEq(v) => LeafOp::Gt(v.clone()),
            LeafOp::Gt(v) => LeafOp::LtEq(v.clone()),
            LeafOp::GtEq(v) => LeafOp::Lt(v.clone()),
            LeafOp::In(v) => LeafOp::NotIn(v.clone()),
            LeafOp::NotIn(v) => LeafOp::In(v.clone()),
            LeafOp::IsNull => LeafOp::IsNotNull,
            LeafOp::IsNotNull => LeafOp::IsNull,
            LeafOp::StartsWith(p) => LeafOp::NotStartsWith(p.clone()),
            LeafOp::NotStartsWith(p) => LeafOp::StartsWith(p.clone()),
        }
    }

    /// Evaluates the leaf on one value (`None` = SQL null) with Java's value order
    /// ([`Datum::compare`]). Returns whether the row is kept (unknown counts as not kept), or
    /// `None` when the value's kind cannot be compared with the literal.
    pub fn eval(&self, value: Option<&Datum>) -> Option<bool> {
        let Some(v) = value else {
            return Some(matches!(self, LeafOp::IsNull));
        };
        let cmp = |lit: &Datum| v.compare(lit);
        Some(match self {
            LeafOp::Eq(l) => cmp(l)? == Ordering::Equal,
            LeafOp::NotEq(l) => cmp(l)? != Ordering::Equal,
            LeafOp::Lt(l) => cmp(l)? == Ordering::Less,
            LeafOp::LtEq(l) => cmp(l)? != Ordering::Greater,
            LeafOp::Gt(l) => cmp(l)? == Ordering::Greater,
            LeafOp::GtEq(l) => cmp(l)? != Ordering::Less,
            LeafOp::In(ls) => {
                let mut found = false;
                for l in ls {
                    found |= cmp(l)? == Ordering::Equal;
                }
                found
            }
            LeafOp::NotIn(ls) => {
                let mut found = false;
                for l in ls {
                    found |= cmp(l)? == Ordering::Equal;
                }
                !found
            }
            LeafOp::IsNull => false,
            LeafOp::IsNotNull => true,
            LeafOp::StartsWith(p) => match v {
                Datum::String(s) => s.starts_with(p.as_str()),
                _ => return None,
            },
            LeafOp::NotStartsWith(p) => match v {
                Datum::String(s) => !s.starts_with(p.as_str()),
                _ => return None,
            },
        })
    }

    fn fmt_with(&self, f: &mut fmt::Formatter<'_>, name: &str) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, vs: &[Datum]| -> fmt::Result {
            for (i, v) in vs.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{v}")?;
            }
            Ok(())
        };
        match self {
            LeafOp::Eq(v) => write!(f, "{name} = {v}"),
            LeafOp::NotEq(v) => write!(f, "{name} <> {v}"),
            LeafOp::Lt(v) => write!(f, "{name} < {v}"),
            LeafOp::LtEq(v) => write!(f, "{name} <= {v}"),
            LeafOp::Gt(v) => write!(f, "{name} > {v}"),
            LeafOp::GtEq(v) => write!(f, "{name} >= {v}"),
            LeafOp::In(vs) => {
                write!(f, "{name} IN (")?;
                list(f, vs)?;
                f.write_str(")")
            }
            LeafOp::NotIn(vs) => {
                write!(f, "{name} NOT IN (")?;
                list(f, vs)?;
                f.write_str(")")
            }
            LeafOp::IsNull => write!(f, "{name} IS NULL"),
            LeafOp::IsNotNull => write!(f, "{name} IS NOT NULL"),
            LeafOp::StartsWith(p) => write!(f, "{name} STARTS WITH '{p}'"),
            LeafOp::NotStartsWith(p) => write!(f, "{name} NOT STARTS WITH '{p}'"),
        }
    }
}

/// A normalised predicate over fields identified by id (see the module docs for invariants).
#[derive(Debug, Clone, PartialEq)]
pub enum BoundPredicate {
    /// Matches every row.
    AlwaysTrue,
    /// Matches no row (also the result of comparisons with a NULL literal).
    AlwaysFalse,
    /// All children hold.
    And(Vec<BoundPredicate>),
    /// Some child holds.
    Or(Vec<BoundPredicate>),
    /// One condition on one field.
    Leaf {
        /// The field.
        field: BoundField,
        /// The condition.
        op: LeafOp,
    },
}

impl BoundPredicate {
    /// The conjunction of `children`: flattened, `AlwaysTrue` dropped, `AlwaysFalse` absorbing,
    /// a single child returned as is, no child = `AlwaysTrue`.
    pub fn and_all(children: impl IntoIterator<Item = BoundPredicate>) -> BoundPredicate {
        let mut out = Vec::new();
        for c in children {
            match c {
                BoundPredicate::AlwaysTrue => {}
                BoundPredicate::AlwaysFalse => return BoundPredicate::AlwaysFalse,
                BoundPredicate::And(cs) => out.extend(cs),
                other => out.push(other),
            }
        }
        match out.len() {
            0 => BoundPredicate::AlwaysTrue,
            1 => out.pop().unwrap_or(BoundPredicate::AlwaysTrue),
            _ => BoundPredicate::And(out),
        }
    }

    /// The disjunction of `children`: flattened, `AlwaysFalse` dropped, `AlwaysTrue` absorbing,
    /// a single child returned as is, no child = `AlwaysFalse`.
    pub fn or_all(children: impl IntoIterator<Item = BoundPredicate>) -> BoundPredicate {
        let mut out = Vec::new();
        for c in children {
            match c {
                BoundPredicate::AlwaysFalse => {}
                BoundPredicate::AlwaysTrue => return BoundPredicate::AlwaysTrue,
                BoundPredicate::Or(cs) => out.extend(cs),
                other => out.push(other),
            }
        }
        match out.len() {
            0 => BoundPredicate::AlwaysFalse,
            1 => out.pop().unwrap_or(BoundPredicate::AlwaysFalse),
            _ => BoundPredicate::Or(out),
        }
    }

    /// A leaf.
    pub fn leaf(field: BoundField, op: LeafOp) -> BoundPredicate {
        BoundPredicate::Leaf { field, op }
    }

    /// The ids of all fields the predicate refers to.
    pub fn field_ids(&self) -> BTreeSet<i32> {
        let mut out = BTreeSet::new();
        self.collect_ids(&mut out);
        out
    }

    fn collect_ids(&self, out: &mut BTreeSet<i32>) {
        match self {
            BoundPredicate::AlwaysTrue | BoundPredicate::AlwaysFalse => {}
            BoundPredicate::And(cs) | BoundPredicate::Or(cs) => {
                cs.iter().for_each(|c| c.collect_ids(out));
            }
            BoundPredicate::Leaf { field, .. } => {
                out.insert(field.id);
            }
        }
    }

    /// The top-level conjuncts: the children of an `And`, nothing for `AlwaysTrue`, else
    /// the predicate itself. `and_all(split_and())` gives the predicate back.
    pub fn split_and(&self) -> Vec<BoundPredicate> {
        match self {
            BoundPredicate::AlwaysTrue => Vec::new(),
            BoundPredicate::And(cs) => cs.clone(),
            other => vec![other.clone()],
        }
    }

    /// Whether every field the predicate refers to is in `ids` (true for constants).
    pub fn references_only(&self, ids: &BTreeSet<i32>) -> bool {
        match self {
            BoundPredicate::AlwaysTrue | BoundPredicate::AlwaysFalse => true,
            BoundPredicate::And(cs) | BoundPredicate::Or(cs) => {
                cs.iter().all(|c| c.references_only(ids))
            }
            BoundPredicate::Leaf { field, .. } => ids.contains(&field.id),
        }
    }
}

impl fmt::Display for BoundPredicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let join = |f: &mut fmt::Formatter<'_>, cs: &[BoundPredicate], sep: &str| {
            f.write_str("(")?;
            for (i, c) in cs.iter().enumerate() {
                if i > 0 {
                    f.write_str(sep)?;
                }
                write!(f, "{c}")?;
            }
            f.write_str(")")
        };
        match self {
            BoundPredicate::AlwaysTrue => f.write_str("TRUE"),
            BoundPredicate::AlwaysFalse => f.write_str("FALSE"),
            BoundPredicate::And(cs) => join(f, cs, " AND "),
            BoundPredicate::Or(cs) => join(f, cs, " OR "),
            BoundPredicate::Leaf { field, op } => op.fmt_with(f, &field.name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::types::TypeKind;

    fn field(id: i32) -> BoundField {
        BoundField {
            id,
            name: format!("f{id}"),
            data_type: DataType::nullable(TypeKind::Int),
        }
    }

    fn leaf(id: i32, op: LeafOp) -> BoundPredicate {
        BoundPredicate::leaf(field(id), op)
    }

    #[test]
    fn and_or_fold_and_flatten() {
        let a = leaf(1, LeafOp::IsNull);
        let b = leaf(2, LeafOp::Eq(Datum::Int(3)));
        let c = leaf(3, LeafOp::IsNotNull);
        let ab = BoundPredicate::and_all([a.clone(), BoundPredicate::AlwaysTrue, b.clone()]);
        assert_eq!(ab, BoundPredicate::And(vec![a.clone(), b.clone()]));
        let abc = BoundPredicate::and_all([ab.clone(), c.clone()]);
        assert_eq!(
            abc,
            BoundPredicate::And(vec![a.clone(), b.clone(), c.clone()])
        );
        assert_eq!(
            BoundPredicate::and_all([a.clone(), BoundPredicate::AlwaysFalse]),
            BoundPredicate::AlwaysFalse
        );
        assert_eq!(
            BoundPredicate::or_all([a.clone(), BoundPredicate::AlwaysTrue]),
            BoundPredicate::AlwaysTrue
        );
        assert_eq!(
            BoundPredicate::or_all([BoundPredicate::AlwaysFalse, a.clone()]),
            a
        );
        assert_eq!(BoundPredicate::or_all([]), BoundPredicate::AlwaysFalse);
        assert_eq!(BoundPredicate::and_all([]), BoundPredicate::AlwaysTrue);
        assert_eq!(abc.split_and().len(), 3);
        assert_eq!(BoundPredicate::AlwaysTrue.split_and(), vec![]);
        assert_eq!(abc.field_ids(), BTreeSet::from([1, 2, 3]));
        assert!(abc.references_only(&BTreeSet::from([1, 2, 3, 4])));
        assert!(!abc.references_only(&BTreeSet::from([1, 2])));
        assert_eq!(
            abc.to_string(),
            "(f1 IS NULL AND f2 = 3 AND f3 IS NOT NULL)"
        );
    }

    #[test]
    fn leaf_eval_is_sql_with_java_order() {
        let three = Datum::Int(3);
        assert_eq!(LeafOp::Eq(three.clone()).eval(Some(&three)), Some(true));
        assert_eq!(LeafOp::Eq(three.clone()).eval(None), Some(false));
        assert_eq!(LeafOp::NotEq(three.clone()).eval(None), Some(false));
        assert_eq!(LeafOp::NotIn(vec![three.clone()]).eval(None), Some(false));
        assert_eq!(LeafOp::IsNull.eval(None), Some(true));
        assert_eq!(LeafOp::IsNotNull.eval(None), Some(false));
        assert_eq!(
            LeafOp::Lt(three.clone()).eval(Some(&Datum::Int(2))),
            Some(true)
        );
        assert_eq!(
            LeafOp::Lt(three.clone()).eval(Some(&Datum::BigInt(2))),
            None
        );
        let nan = Datum::Double(f64::NAN);
        assert_eq!(
            LeafOp::Gt(Datum::Double(1e300)).eval(Some(&nan)),
            Some(true)
        );
        assert_eq!(LeafOp::Eq(nan.clone()).eval(Some(&nan)), Some(true));
        let s = Datum::String("abc".into());
        assert_eq!(LeafOp::StartsWith("ab".into()).eval(Some(&s)), Some(true));
        assert_eq!(
            LeafOp::NotStartsWith("ab".into()).eval(Some(&s)),
            Some(false)
        );
        assert_eq!(LeafOp::NotStartsWith("ab".into()).eval(None), Some(false));
    }

    #[test]
    fn negate_is_an_involution() {
        let ops = [
            LeafOp::Eq(Datum::Int(1)),
            LeafOp::Lt(Datum::Int(1)),
            LeafOp::LtEq(Datum::Int(1)),
            LeafOp::In(vec![Datum::Int(1), Datum::Int(2)]),
            LeafOp::IsNull,
            LeafOp::StartsWith("a".into()),
        ];
        for op in ops {
            assert_ne!(op.negate(), op);
            assert_eq!(op.negate().negate(), op);
            for v in [Datum::Int(0), Datum::Int(1), Datum::Int(2)] {
                if let (Some(a), Some(b)) = (op.eval(Some(&v)), op.negate().eval(Some(&v))) {
                    assert_ne!(a, b, "{op:?} on {v:?}");
                }
            }
        }
    }
}
