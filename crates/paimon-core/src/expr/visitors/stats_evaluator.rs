//! Inclusive evaluation of a bound predicate on a file's statistics.
//!
//! Mirrors Java `org.apache.paimon.predicate.LeafFunction#test(type, rowCount, min, max,
//! nullCount, literal)` as used by `AbstractFileStoreScan` stats filtering (Paimon 2.0), and
//! iceberg-rust's `inclusive_metrics_evaluator.rs`. Answers [`Prune::CannotMatch`] only when no
//! row with values inside the bounds can satisfy the predicate; everything else (missing stats,
//! incomparable kinds after schema evolution, NaN) is [`Prune::MightMatch`] (fail open).
//!
//! Assumptions about the [`StatsSource`]:
//! - stats are looked up by **field id**; the caller maps ids to the file's own schema
//!   (a column added after the file was written should report `null_count == row_count`, or no
//!   stats). Bounds of an older, narrower integer type are widened; FLOAT bounds compare with
//!   DOUBLE literals; other kind mismatches are incomparable;
//! - `min` is a lower bound and `max` an upper bound of the non-null values, not necessarily
//!   tight: truncated string bounds (min a prefix, max a prefix with its last character
//!   incremented) are fine. Timestamp bounds must also be bounds (ORC millisecond stats of
//!   finer columns must be widened by the caller);
//! - floating-point bounds may exclude NaN (Parquet does), while NaN is the largest value in
//!   Java order: so `max` is never used for FLOAT/DOUBLE, a NaN bound is ignored, zero bounds
//!   are widened (min to -0.0, max to +0.0), and NaN literals never prune. Deliberate divergence
//!   from Java, which trusts float max bounds;
//! - `IN` lists longer than [`IN_PREDICATE_LIMIT`] are not evaluated.

use std::cmp::Ordering;

use crate::expr::bound::{BoundField, BoundPredicate, LeafOp};
use crate::expr::visitors::{visit, BoundPredicateVisitor, Prune};
use crate::spec::datum::Datum;
use crate::Result;

/// `IN` lists longer than this are not evaluated against stats (as in iceberg-rust).
pub const IN_PREDICATE_LIMIT: usize = 200;

/// Per-file statistics by field id, implemented by the caller (manifest `DataFileMeta` stats).
pub trait StatsSource {
    /// Number of rows in the file, if known.
    fn row_count(&self) -> Option<i64>;
    /// A lower bound of the non-null values of field `field_id`.
    fn min(&self, field_id: i32) -> Option<Datum>;
    /// An upper bound of the non-null values of field `field_id`.
    fn max(&self, field_id: i32) -> Option<Datum>;
    /// The number of nulls of field `field_id`, if known.
    fn null_count(&self, field_id: i32) -> Option<i64>;
}

/// `CannotMatch` iff the stats prove that no row of the file satisfies `pred`.
pub fn eval_stats(pred: &BoundPredicate, stats: &dyn StatsSource) -> Result<Prune> {
    if stats.row_count() == Some(0) {
        return Ok(Prune::CannotMatch);
    }
    visit(pred, &mut StatsEvaluator { stats })
}

struct StatsEvaluator<'a> {
    stats: &'a dyn StatsSource,
}

impl BoundPredicateVisitor for StatsEvaluator<'_> {
    type Output = Prune;

    fn always_true(&mut self) -> Result<Prune> {
        Ok(Prune::MightMatch)
    }

    fn always_false(&mut self) -> Result<Prune> {
        Ok(Prune::CannotMatch)
    }

    fn and(&mut self, children: Vec<Prune>) -> Result<Prune> {
        Ok(Prune::all(children))
    }

    fn or(&mut self, children: Vec<Prune>) -> Result<Prune> {
        Ok(Prune::any(children))
    }

    fn leaf(&mut self, field: &BoundField, op: &LeafOp) -> Result<Prune> {
        let id = field.id;
        let nulls = self.stats.null_count(id);
        let all_null = matches!((nulls, self.stats.row_count()), (Some(n), Some(r)) if n == r);
        let might = match op {
            LeafOp::IsNull => nulls != Some(0),
            LeafOp::IsNotNull => !all_null,
            _ if all_null => false,
            _ => {
                let bounds = Bounds {
                    min: self.stats.min(id),
                    max: self.stats.max(id),
                };
                bounds.might_match(op)
            }
        };
        Ok(Prune::from_might(might))
    }
}

struct Bounds {
    min: Option<Datum>,
    max: Option<Datum>,
}

impl Bounds {
    /// Whether some non-null value in `[min, max]` might satisfy `op` (not IS [NOT] NULL).
    fn might_match(&self, op: &LeafOp) -> bool {
        // `Some(o)` = how the usable lower / upper bound compares with `lit`.
        let lo = |lit: &Datum| self.min.as_ref().and_then(|m| cmp_bound(m, lit, Side::Min));
        let hi = |lit: &Datum| self.max.as_ref().and_then(|m| cmp_bound(m, lit, Side::Max));
        let outside =
            |lit: &Datum| lo(lit) == Some(Ordering::Greater) || hi(lit) == Some(Ordering::Less);
        let single_value =
            |lit: &Datum| lo(lit) == Some(Ordering::Equal) && hi(lit) == Some(Ordering::Equal);
        match op {
            LeafOp::Eq(v) => !outside(v),
            LeafOp::NotEq(v) => !single_value(v),
            LeafOp::Lt(v) => !matches!(lo(v), Some(Ordering::Greater | Ordering::Equal)),
            LeafOp::LtEq(v) => lo(v) != Some(Ordering::Greater),
            LeafOp::Gt(v) => !matches!(hi(v), Some(Ordering::Less | Ordering::Equal)),
            LeafOp::GtEq(v) => hi(v) != Some(Ordering::Less),
            LeafOp::In(vs) => vs.len() > IN_PREDICATE_LIMIT || !vs.iter().all(outside),
            LeafOp::NotIn(vs) => !vs.iter().any(single_value),
            LeafOp::StartsWith(p) => self.might_start_with(p),
            LeafOp::NotStartsWith(p) => {
                let starts = |b: &Option<Datum>| matches!(b, Some(Datum::String(s)) if s.starts_with(p.as_str()));
                !(starts(&self.min) && starts(&self.max))
            }
            LeafOp::IsNull | LeafOp::IsNotNull => true,
        }
    }

    /// Strings with prefix `p` form the interval `[p, p + 0xFF...)`; compare the bounds'
    /// leading bytes with it (valid for truncated bounds too).
    fn might_start_with(&self, p: &str) -> bool {
        let head = |s: &str| -> Vec<u8> {
            let b = s.as_bytes();
            b.get(..p.len().min(b.len())).unwrap_or(b).to_vec()
        };
        if let Some(Datum::String(min)) = &self.min {
            if head(min).as_slice() > p.as_bytes() {
                return false;
            }
        }
        if let Some(Datum::String(max)) = &self.max {
            if head(max).as_slice() < p.as_bytes() {
                return false;
            }
        }
        true
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Min,
    Max,
}

/// Compares a bound with a literal, `None` when the bound is unusable or incomparable.
fn cmp_bound(bound: &Datum, lit: &Datum, side: Side) -> Option<Ordering> {
    if let (Some(b), Some(l)) = (as_f64(bound), as_f64(lit)) {
        if side == Side::Max || b.is_nan() || l.is_nan() {
            return None;
        }
        let b = if b == 0.0 { -0.0 } else { b };
        return Some(crate::spec::datum::java_float_cmp(b, l));
    }
    if let Some(o) = bound.compare(lit) {
        return Some(o);
    }
    match (as_i64(bound), as_i64(lit)) {
        (Some(b), Some(l)) => Some(b.cmp(&l)),
        _ => None,
    }
}

fn as_f64(d: &Datum) -> Option<f64> {
    match d {
        Datum::Float(f) => Some(f64::from(*f)),
        Datum::Double(f) => Some(*f),
        _ => None,
    }
}

fn as_i64(d: &Datum) -> Option<i64> {
    match d {
        Datum::TinyInt(v) => Some(i64::from(*v)),
        Datum::SmallInt(v) => Some(i64::from(*v)),
        Datum::Int(v) => Some(i64::from(*v)),
        Datum::BigInt(v) => Some(*v),
        _ => None,
    }
}

#[cfg(test)]
#[path = "stats_evaluator_tests.rs"]
mod tests;
