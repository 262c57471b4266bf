//! Key-sorted lookups: in a primary-key data file the rows are sorted by the (trimmed) primary
//! key, so the rows whose leading key column lies in a bounded set of intervals (`=`, `IN`,
//! `BETWEEN`, `>= a AND < b`, ORs of these) are a few contiguous runs, found by binary search.
//!
//! Java Paimon 2.0 has no counterpart in its readers (its lookup path builds local lookup files,
//! `org.apache.paimon.mergetree.LookupLevels`); paimon-cpp and paimon-rust neither. Here the
//! leading key column is decoded first, for the rows the page index kept
//! ([`super::page_index`]); the runs found become the row selection of every other column, so a
//! point lookup decodes a handful of values per column. The whole predicate is still applied
//! by the caller afterwards: the runs are a superset of the answer, never a wrong one.
//!
//! Fails open: the sort order is checked on the decoded values (a file that is not sorted, a
//! null key, a type whose Arrow order may differ from Paimon's, or a value that cannot be
//! compared leaves the selection as it was, counted as a fallback in [`super::metrics`]).

use std::cmp::Ordering;
use std::ops::Range;

use arrow_array::cast::AsArray;
use arrow_array::types::{Date32Type, Int16Type, Int32Type, Int64Type, Int8Type};
use arrow_array::{Array, ArrowPrimitiveType};
use arrow_ord::ord::make_comparator;
use arrow_schema::SortOptions;

use super::selection::push_merged;
use crate::expr::{BoundPredicate, LeafOp};
use crate::spec::types::{DataType, TypeKind};
use crate::spec::Datum;
use crate::write::datum::datum_at;

/// A closed interval of key values (`low <= key <= high`, each end inclusive or not).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct KeyInterval {
    pub(crate) low: Datum,
    pub(crate) low_inclusive: bool,
    pub(crate) high: Datum,
    pub(crate) high_inclusive: bool,
}

/// One end of an interval while intervals are combined: `None` is unbounded.
#[derive(Debug, Clone, PartialEq)]
struct Span {
    low: Option<(Datum, bool)>,
    high: Option<(Datum, bool)>,
}

impl Span {
    fn point(v: &Datum) -> Span {
        Span {
            low: Some((v.clone(), true)),
            high: Some((v.clone(), true)),
        }
    }

    /// Whether no value lies in the span (`None` when the bounds cannot be compared).
    fn is_empty(&self) -> Option<bool> {
        match (&self.low, &self.high) {
            (Some((l, li)), Some((h, hi))) => Some(match l.compare(h)? {
                Ordering::Greater => true,
                Ordering::Equal => !(*li && *hi),
                Ordering::Less => false,
            }),
            _ => Some(false),
        }
    }

    fn intersect(&self, other: &Span) -> Option<Span> {
        Some(Span {
            low: tighter(&self.low, &other.low, Ordering::Greater)?,
            high: tighter(&self.high, &other.high, Ordering::Less)?,
        })
    }
}

/// The tighter of two bounds: the larger low (`want = Greater`) or the smaller high (`Less`);
/// on equal values the exclusive one. `None` when they cannot be compared.
fn tighter(
    a: &Option<(Datum, bool)>,
    b: &Option<(Datum, bool)>,
    want: Ordering,
) -> Option<Option<(Datum, bool)>> {
    Some(match (a, b) {
        (None, x) | (x, None) => x.clone(),
        (Some((va, ia)), Some((vb, ib))) => match va.compare(vb)? {
            Ordering::Equal => Some((va.clone(), *ia && *ib)),
            o if o == want => Some((va.clone(), *ia)),
            _ => Some((vb.clone(), *ib)),
        },
    })
}

/// The key values a predicate allows, as a union of spans; `None` when unknown (everything).
fn spans(p: &BoundPredicate, key: i32) -> Option<Vec<Span>> {
    match p {
        BoundPredicate::AlwaysFalse => Some(vec![]),
        BoundPredicate::AlwaysTrue => None,
        BoundPredicate::Leaf { field, op } if field.id == key => match op {
            LeafOp::Eq(v) => Some(vec![Span::point(v)]),
            LeafOp::In(vs) => Some(vs.iter().map(Span::point).collect()),
            LeafOp::Lt(v) | LeafOp::LtEq(v) => Some(vec![Span {
                low: None,
                high: Some((v.clone(), matches!(op, LeafOp::LtEq(_)))),
            }]),
            LeafOp::Gt(v) | LeafOp::GtEq(v) => Some(vec![Span {
                low: Some((v.clone(), matches!(op, LeafOp::GtEq(_)))),
                high: None,
            }]),
            _ => None,
        },
        BoundPredicate::Leaf { .. } => None,
        BoundPredicate::Or(children) => {
            let mut out = Vec::new();
            for c in children {
                out.extend(spans(c, key)?);
            }
            Some(out)
        }
        BoundPredicate::And(children) => {
            let mut acc: Option<Vec<Span>> = None;
            for c in children {
                let Some(s) = spans(c, key) else { continue };
                acc = Some(match acc {
                    None => s,
                    Some(a) => intersect_all(&a, &s)?,
                });
            }
            acc
        }
    }
}

fn intersect_all(a: &[Span], b: &[Span]) -> Option<Vec<Span>> {
    let mut out = Vec::new();
    for x in a {
        for y in b {
            let s = x.intersect(y)?;
            if !s.is_empty()? {
                out.push(s);
            }
        }
    }
    Some(out)
}

/// The bounded intervals of the leading key column (field id `key`) that every row matching
/// `predicate` lies in; `None` when the predicate does not bound that column on both sides (a
/// search would narrow nothing worth a second pass) or its literals cannot be compared.
pub(crate) fn key_intervals(predicate: &BoundPredicate, key: i32) -> Option<Vec<KeyInterval>> {
    let spans = spans(predicate, key)?;
    let mut out = Vec::with_capacity(spans.len());
    for s in spans {
        if s.is_empty()? {
            continue;
        }
        let (Some((low, low_inclusive)), Some((high, high_inclusive))) = (s.low, s.high) else {
            return None;
        };
        out.push(KeyInterval {
            low,
            low_inclusive,
            high,
            high_inclusive,
        });
    }
    Some(out)
}

/// Whether a key column of type `kind` may be searched: types whose Arrow order (used to check
/// that the decoded values are sorted) is Paimon's key order (Java `RecordComparator`), and
/// whose literals compare like the row filter's (not CHAR, whose padding rules differ).
pub(crate) fn searchable(kind: &TypeKind) -> bool {
    matches!(
        kind,
        TypeKind::TinyInt
            | TypeKind::SmallInt
            | TypeKind::Int
            | TypeKind::BigInt
            | TypeKind::Date
            | TypeKind::VarChar(_)
    )
}

/// What a search of one file's decoded key values found.
#[derive(Debug, PartialEq)]
pub(crate) enum KeySearch {
    /// Index ranges (into the decoded values, sorted, disjoint) that may match.
    Found(Vec<Range<usize>>),
    /// The values are not sorted, hold a null, or could not be compared: no narrowing.
    Unsorted,
}

/// Searches `keys` (the leading key column of type `ty` for some rows of a file, in file order)
/// for `intervals`.
pub(crate) fn search(keys: &dyn Array, ty: &DataType, intervals: &[KeyInterval]) -> KeySearch {
    if !searchable(&ty.kind) || keys.null_count() > 0 || !is_sorted(keys) {
        return KeySearch::Unsorted;
    }
    let mut found: Vec<Range<usize>> = Vec::with_capacity(intervals.len());
    for iv in intervals {
        // Values below the interval form a prefix, and so do values not above it.
        let start = partition_point(keys, ty, |v| {
            Some(match v.compare(&iv.low)? {
                Ordering::Less => true,
                Ordering::Equal => !iv.low_inclusive,
                Ordering::Greater => false,
            })
        });
        let end = partition_point(keys, ty, |v| {
            Some(match v.compare(&iv.high)? {
                Ordering::Less => true,
                Ordering::Equal => iv.high_inclusive,
                Ordering::Greater => false,
            })
        });
        let (Some(start), Some(end)) = (start, end) else {
            return KeySearch::Unsorted;
        };
        if start < end {
            found.push(start..end);
        }
    }
    found.sort_by_key(|r| r.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(found.len());
    for r in found {
        push_merged(&mut merged, r);
    }
    KeySearch::Found(merged)
}

/// The first index whose value does not satisfy `pred` (which must hold for a prefix of the
/// sorted values); `None` when a value cannot be read or compared.
fn partition_point(
    keys: &dyn Array,
    ty: &DataType,
    pred: impl Fn(&Datum) -> Option<bool>,
) -> Option<usize> {
    let (mut lo, mut hi) = (0usize, keys.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let v = datum_at(keys, mid, ty).ok()??;
        if pred(&v)? {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    Some(lo)
}

/// Whether the values are in non-decreasing Arrow order.
fn is_sorted(keys: &dyn Array) -> bool {
    // Integers are compared directly: a dynamic comparator call per value costs more than the
    // search it guards.
    fn ascending<T: ArrowPrimitiveType>(keys: &dyn Array) -> Option<bool>
    where
        T::Native: PartialOrd,
    {
        let values = keys.as_primitive_opt::<T>()?.values();
        Some(values.windows(2).all(|w| w[0] <= w[1]))
    }
    let direct = ascending::<Int64Type>(keys)
        .or_else(|| ascending::<Int32Type>(keys))
        .or_else(|| ascending::<Int16Type>(keys))
        .or_else(|| ascending::<Int8Type>(keys))
        .or_else(|| ascending::<Date32Type>(keys));
    if let Some(sorted) = direct {
        return sorted;
    }
    let Ok(cmp) = make_comparator(keys, keys, SortOptions::default()) else {
        return false;
    };
    (1..keys.len()).all(|i| cmp(i - 1, i) != Ordering::Greater)
}

#[cfg(test)]
mod tests;
