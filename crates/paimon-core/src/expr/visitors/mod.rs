//! Evaluators over bound predicates, one per file, all driven by [`visit`].
//!
//! Mirrors iceberg-rust's `expr/visitors/bound_predicate_visitor.rs`: a post-order visitor
//! generic over its output, with one method per node kind and an exhaustive `match` on the
//! [`LeafOp`] inside `leaf`. `AND`/`OR` receive all children's outputs at once (bound
//! predicates are flattened, n-ary trees).
//!
//! - [`partition_evaluator`]: exact, on one partition's values (Java `PartitionPredicate`).
//! - [`stats_evaluator`]: inclusive, on a file's min/max/null counts (Java
//!   `LeafFunction.test(rowCount, min, max, nullCount)`).
//! - [`row_filter`]: exact, on Arrow record batches (residual filter).
//!
//! Pruning evaluators fail open: what they cannot decide is [`Prune::MightMatch`].

pub mod partition_evaluator;
pub mod row_filter;
pub mod stats_evaluator;

use crate::expr::bound::{BoundField, BoundPredicate, LeafOp};
use crate::Result;

/// The answer of an inclusive (pruning) evaluator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Prune {
    /// No row can match: the partition or file can be skipped.
    CannotMatch,
    /// Some row might match: it must be read.
    MightMatch,
}

impl Prune {
    /// `MightMatch` iff `might`.
    pub fn from_might(might: bool) -> Prune {
        if might {
            Prune::MightMatch
        } else {
            Prune::CannotMatch
        }
    }
    /// Conjunction: `CannotMatch` if any part cannot match.
    pub fn all(parts: impl IntoIterator<Item = Prune>) -> Prune {
        let mut parts = parts.into_iter();
        Prune::from_might(parts.all(|p| p == Prune::MightMatch))
    }
    /// Disjunction: `CannotMatch` only if every part cannot match.
    pub fn any(parts: impl IntoIterator<Item = Prune>) -> Prune {
        let mut parts = parts.into_iter();
        Prune::from_might(parts.any(|p| p == Prune::MightMatch))
    }
}

/// A post-order visitor over a [`BoundPredicate`].
pub trait BoundPredicateVisitor {
    /// What each node evaluates to.
    type Output;
    /// The whole predicate is `AlwaysTrue`.
    fn always_true(&mut self) -> Result<Self::Output>;
    /// The whole predicate is `AlwaysFalse`.
    fn always_false(&mut self) -> Result<Self::Output>;
    /// An `AND` of the children's outputs (at least two after normalisation).
    fn and(&mut self, children: Vec<Self::Output>) -> Result<Self::Output>;
    /// An `OR` of the children's outputs (at least two after normalisation).
    fn or(&mut self, children: Vec<Self::Output>) -> Result<Self::Output>;
    /// One leaf.
    fn leaf(&mut self, field: &BoundField, op: &LeafOp) -> Result<Self::Output>;
}

/// Drives `visitor` over `pred` in post-order.
pub fn visit<V: BoundPredicateVisitor>(
    pred: &BoundPredicate,
    visitor: &mut V,
) -> Result<V::Output> {
    match pred {
        BoundPredicate::AlwaysTrue => visitor.always_true(),
        BoundPredicate::AlwaysFalse => visitor.always_false(),
        BoundPredicate::And(cs) => {
            let outs = cs
                .iter()
                .map(|c| visit(c, visitor))
                .collect::<Result<Vec<_>>>()?;
            visitor.and(outs)
        }
        BoundPredicate::Or(cs) => {
            let outs = cs
                .iter()
                .map(|c| visit(c, visitor))
                .collect::<Result<Vec<_>>>()?;
            visitor.or(outs)
        }
        BoundPredicate::Leaf { field, op } => visitor.leaf(field, op),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::datum::Datum;
    use crate::spec::types::{DataType, TypeKind};

    /// Counts leaves and renders the tree, to check the traversal order.
    struct Render;
    impl BoundPredicateVisitor for Render {
        type Output = String;
        fn always_true(&mut self) -> Result<String> {
            Ok("T".into())
        }
        fn always_false(&mut self) -> Result<String> {
            Ok("F".into())
        }
        fn and(&mut self, c: Vec<String>) -> Result<String> {
            Ok(format!("and({})", c.join(",")))
        }
        fn or(&mut self, c: Vec<String>) -> Result<String> {
            Ok(format!("or({})", c.join(",")))
        }
        fn leaf(&mut self, field: &BoundField, _op: &LeafOp) -> Result<String> {
            Ok(field.id.to_string())
        }
    }

    #[test]
    fn visit_is_post_order_over_children() {
        let f = |id| BoundField {
            id,
            name: "x".into(),
            data_type: DataType::nullable(TypeKind::Int),
        };
        let l = |id| BoundPredicate::leaf(f(id), LeafOp::Eq(Datum::Int(1)));
        let p = BoundPredicate::And(vec![l(1), BoundPredicate::Or(vec![l(2), l(3)])]);
        assert_eq!(visit(&p, &mut Render).unwrap(), "and(1,or(2,3))");
        assert_eq!(
            visit(&BoundPredicate::AlwaysFalse, &mut Render).unwrap(),
            "F"
        );
        assert_eq!(Prune::all([]), Prune::MightMatch);
        assert_eq!(Prune::any([]), Prune::CannotMatch);
        assert_eq!(
            Prune::any([Prune::CannotMatch, Prune::MightMatch]),
            Prune::MightMatch
        );
    }
}
