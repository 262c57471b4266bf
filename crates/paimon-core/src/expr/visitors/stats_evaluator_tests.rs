//! Tests of the inclusive stats evaluator, including the "never drops a matching row" property.

use std::collections::HashMap;

use proptest::prelude::*;

use super::*;
use crate::expr::bound::BoundField;
use crate::spec::types::{DataType, TypeKind};

/// Stats computed from (or declared for) a list of columns.
#[derive(Default)]
struct Stats {
    rows: Option<i64>,
    min: HashMap<i32, Datum>,
    max: HashMap<i32, Datum>,
    nulls: HashMap<i32, i64>,
}

impl StatsSource for Stats {
    fn row_count(&self) -> Option<i64> {
        self.rows
    }
    fn min(&self, id: i32) -> Option<Datum> {
        self.min.get(&id).cloned()
    }
    fn max(&self, id: i32) -> Option<Datum> {
        self.max.get(&id).cloned()
    }
    fn null_count(&self, id: i32) -> Option<i64> {
        self.nulls.get(&id).copied()
    }
}

/// Exact stats of `columns` (by field id 0..), NaN excluded from bounds as Parquet does.
fn stats_of(columns: &[Vec<Option<Datum>>]) -> Stats {
    let mut s = Stats {
        rows: columns.first().map(|c| c.len() as i64),
        ..Default::default()
    };
    for (id, col) in columns.iter().enumerate() {
        let id = id as i32;
        s.nulls
            .insert(id, col.iter().filter(|v| v.is_none()).count() as i64);
        let non_nan = col.iter().flatten().filter(|d| match d {
            Datum::Double(f) => !f.is_nan(),
            _ => true,
        });
        for v in non_nan {
            let lower = s
                .min
                .get(&id)
                .is_none_or(|m| v.compare(m) == Some(Ordering::Less));
            if lower {
                s.min.insert(id, v.clone());
            }
            let upper = s
                .max
                .get(&id)
                .is_none_or(|m| v.compare(m) == Some(Ordering::Greater));
            if upper {
                s.max.insert(id, v.clone());
            }
        }
    }
    s
}

fn field(id: i32, kind: TypeKind) -> BoundField {
    BoundField {
        id,
        name: format!("c{id}"),
        data_type: DataType::nullable(kind),
    }
}

fn leaf(id: i32, kind: TypeKind, op: LeafOp) -> BoundPredicate {
    BoundPredicate::leaf(field(id, kind), op)
}

/// Row-level oracle: does row `r` satisfy `pred`?
fn row_matches(pred: &BoundPredicate, columns: &[Vec<Option<Datum>>], r: usize) -> bool {
    match pred {
        BoundPredicate::AlwaysTrue => true,
        BoundPredicate::AlwaysFalse => false,
        BoundPredicate::And(cs) => cs.iter().all(|c| row_matches(c, columns, r)),
        BoundPredicate::Or(cs) => cs.iter().any(|c| row_matches(c, columns, r)),
        BoundPredicate::Leaf { field, op } => {
            let v = columns[field.id as usize][r].as_ref();
            op.eval(v).unwrap()
        }
    }
}

fn int_stats(min: i32, max: i32, nulls: i64, rows: i64) -> Stats {
    Stats {
        rows: Some(rows),
        min: [(0, Datum::Int(min))].into(),
        max: [(0, Datum::Int(max))].into(),
        nulls: [(0, nulls)].into(),
    }
}

fn ev(op: LeafOp, s: &Stats) -> Prune {
    eval_stats(&leaf(0, TypeKind::Int, op), s).unwrap()
}

use Prune::{CannotMatch as No, MightMatch as Yes};

#[test]
fn int_ranges() {
    let s = int_stats(10, 20, 0, 5);
    let i = Datum::Int;
    assert_eq!(ev(LeafOp::Eq(i(5)), &s), No);
    assert_eq!(ev(LeafOp::Eq(i(10)), &s), Yes);
    assert_eq!(ev(LeafOp::Eq(i(21)), &s), No);
    assert_eq!(ev(LeafOp::Lt(i(10)), &s), No);
    assert_eq!(ev(LeafOp::Lt(i(11)), &s), Yes);
    assert_eq!(ev(LeafOp::LtEq(i(10)), &s), Yes);
    assert_eq!(ev(LeafOp::Gt(i(20)), &s), No);
    assert_eq!(ev(LeafOp::GtEq(i(20)), &s), Yes);
    assert_eq!(ev(LeafOp::GtEq(i(21)), &s), No);
    assert_eq!(ev(LeafOp::NotEq(i(10)), &s), Yes);
    assert_eq!(ev(LeafOp::NotEq(i(10)), &int_stats(10, 10, 2, 5)), No);
    assert_eq!(ev(LeafOp::In(vec![i(1), i(25)]), &s), No);
    assert_eq!(ev(LeafOp::In(vec![i(1), i(15)]), &s), Yes);
    assert_eq!(
        ev(LeafOp::NotIn(vec![i(10), i(11)]), &int_stats(10, 10, 0, 5)),
        No
    );
    assert_eq!(ev(LeafOp::NotIn(vec![i(10), i(11)]), &s), Yes);
    assert_eq!(ev(LeafOp::IsNull, &s), No);
    assert_eq!(ev(LeafOp::IsNotNull, &s), Yes);
    let big: Vec<Datum> = (100..400).map(i).collect();
    assert_eq!(
        ev(LeafOp::In(big), &s),
        Yes,
        "long IN lists are not evaluated"
    );
}

#[test]
fn nulls_and_missing_stats() {
    let all_null = Stats {
        rows: Some(3),
        nulls: [(0, 3)].into(),
        ..Default::default()
    };
    assert_eq!(ev(LeafOp::Eq(Datum::Int(1)), &all_null), No);
    assert_eq!(ev(LeafOp::NotEq(Datum::Int(1)), &all_null), No);
    assert_eq!(ev(LeafOp::IsNotNull, &all_null), No);
    assert_eq!(ev(LeafOp::IsNull, &all_null), Yes);
    let none = Stats::default();
    for op in [
        LeafOp::Eq(Datum::Int(1)),
        LeafOp::Lt(Datum::Int(1)),
        LeafOp::IsNull,
        LeafOp::IsNotNull,
        LeafOp::NotIn(vec![Datum::Int(1), Datum::Int(2)]),
    ] {
        assert_eq!(ev(op, &none), Yes);
    }
    let empty = Stats {
        rows: Some(0),
        ..Default::default()
    };
    assert_eq!(eval_stats(&BoundPredicate::AlwaysTrue, &empty).unwrap(), No);
    assert_eq!(eval_stats(&BoundPredicate::AlwaysFalse, &none).unwrap(), No);
}

#[test]
fn schema_evolution_widens_or_fails_open() {
    // File written when the column was INT, predicate bound to BIGINT.
    let s = int_stats(10, 20, 0, 5);
    let p = |op| eval_stats(&leaf(0, TypeKind::BigInt, op), &s).unwrap();
    assert_eq!(p(LeafOp::Eq(Datum::BigInt(30))), No);
    assert_eq!(p(LeafOp::Eq(Datum::BigInt(15))), Yes);
    // Column changed to STRING: incomparable bounds never prune.
    let q = |op| eval_stats(&leaf(0, TypeKind::VarChar(9), op), &s).unwrap();
    assert_eq!(q(LeafOp::Eq(Datum::String("zzz".into()))), Yes);
}

fn str_stats(min: &str, max: &str) -> Stats {
    Stats {
        rows: Some(4),
        min: [(0, Datum::String(min.into()))].into(),
        max: [(0, Datum::String(max.into()))].into(),
        nulls: [(0, 0)].into(),
    }
}

fn sev(op: LeafOp, s: &Stats) -> Prune {
    eval_stats(&leaf(0, TypeKind::VarChar(100), op), s).unwrap()
}

#[test]
fn strings_with_truncated_bounds() {
    let sw = |p: &str| LeafOp::StartsWith(p.into());
    let nsw = |p: &str| LeafOp::NotStartsWith(p.into());
    // Real values "abcde".."abzzz"; min truncated to "abc", max truncated and bumped to "ac".
    let s = str_stats("abc", "ac");
    assert_eq!(sev(sw("abd"), &s), Yes);
    assert_eq!(sev(sw("ab"), &s), Yes);
    assert_eq!(sev(sw("abcdefgh"), &s), Yes);
    assert_eq!(sev(sw("abb"), &s), No);
    assert_eq!(sev(sw("ad"), &s), No);
    assert_eq!(sev(sw("a"), &s), Yes);
    assert_eq!(sev(sw("b"), &s), No);
    assert_eq!(sev(nsw("ab"), &s), Yes, "max 'ac' does not start with 'ab'");
    assert_eq!(sev(nsw("ab"), &str_stats("abc", "abz")), No);
    assert_eq!(sev(nsw("abc"), &str_stats("abc", "abz")), Yes);
    assert_eq!(sev(LeafOp::Eq(Datum::String("abzz".into())), &s), Yes);
    assert_eq!(sev(LeafOp::Eq(Datum::String("ab".into())), &s), No);
    assert_eq!(sev(LeafOp::Gt(Datum::String("ac".into())), &s), No);
    // Multi-byte UTF-8 compares by bytes.
    let u = str_stats("é", "é");
    assert_eq!(sev(sw("z"), &u), No);
    assert_eq!(sev(sw("é"), &u), Yes);
}

#[test]
fn floats_never_trust_max_or_nan() {
    let d = |v: f64| Datum::Double(v);
    let s = Stats {
        rows: Some(3),
        min: [(0, d(1.0))].into(),
        max: [(0, d(2.0))].into(),
        nulls: [(0, 0)].into(),
    };
    let fev = |op| eval_stats(&leaf(0, TypeKind::Double, op), &s).unwrap();
    assert_eq!(fev(LeafOp::Lt(d(1.0))), No);
    assert_eq!(fev(LeafOp::Eq(d(0.5))), No);
    // A NaN row may hide above max (Parquet bounds exclude NaN; NaN is largest in Java).
    assert_eq!(fev(LeafOp::Gt(d(5.0))), Yes);
    assert_eq!(fev(LeafOp::Eq(d(f64::NAN))), Yes);
    assert_eq!(fev(LeafOp::Lt(d(f64::NAN))), Yes);
    // A zero min may stand for -0.0.
    let z = Stats {
        rows: Some(1),
        min: [(0, d(0.0))].into(),
        max: [(0, d(0.0))].into(),
        nulls: [(0, 0)].into(),
    };
    let zev = |op| eval_stats(&leaf(0, TypeKind::Double, op), &z).unwrap();
    assert_eq!(zev(LeafOp::Lt(d(0.0))), Yes);
    assert_eq!(zev(LeafOp::NotEq(d(0.0))), Yes);
    assert_eq!(zev(LeafOp::Lt(d(-1.0))), No);
}

#[test]
fn and_or_combine() {
    let s = int_stats(10, 20, 0, 5);
    let a = leaf(0, TypeKind::Int, LeafOp::Eq(Datum::Int(1)));
    let b = leaf(0, TypeKind::Int, LeafOp::Eq(Datum::Int(15)));
    let or = BoundPredicate::or_all([a.clone(), b.clone()]);
    let and = BoundPredicate::and_all([a, b]);
    assert_eq!(eval_stats(&or, &s).unwrap(), Yes);
    assert_eq!(eval_stats(&and, &s).unwrap(), No);
}

fn int_leaf_op() -> impl Strategy<Value = LeafOp> {
    let v = || (-12i32..12).prop_map(Datum::Int);
    let vs = || proptest::collection::vec(v(), 2..4);
    prop_oneof![
        v().prop_map(LeafOp::Eq),
        v().prop_map(LeafOp::NotEq),
        v().prop_map(LeafOp::Lt),
        v().prop_map(LeafOp::LtEq),
        v().prop_map(LeafOp::Gt),
        v().prop_map(LeafOp::GtEq),
        vs().prop_map(LeafOp::In),
        vs().prop_map(LeafOp::NotIn),
        Just(LeafOp::IsNull),
        Just(LeafOp::IsNotNull),
    ]
}

fn tree<L: Strategy<Value = BoundPredicate> + 'static>(
    leaf: L,
) -> impl Strategy<Value = BoundPredicate> {
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 1..4).prop_map(BoundPredicate::and_all),
            proptest::collection::vec(inner, 1..4).prop_map(BoundPredicate::or_all),
        ]
    })
}

fn int_pred() -> impl Strategy<Value = BoundPredicate> {
    tree((0i32..2, int_leaf_op()).prop_map(|(id, op)| leaf(id, TypeKind::Int, op)))
}

fn int_columns() -> impl Strategy<Value = Vec<Vec<Option<Datum>>>> {
    (1usize..8).prop_flat_map(|n| {
        let cell = proptest::option::weighted(0.8, (-10i32..10).prop_map(Datum::Int));
        proptest::collection::vec(proptest::collection::vec(cell, n), 2)
    })
}

fn double_pred() -> impl Strategy<Value = BoundPredicate> {
    let v = || {
        prop_oneof![
            Just(f64::NAN),
            Just(0.0),
            Just(-0.0),
            Just(1.5),
            Just(-2.0),
            Just(f64::INFINITY)
        ]
        .prop_map(Datum::Double)
    };
    let op = prop_oneof![
        v().prop_map(LeafOp::Eq),
        v().prop_map(LeafOp::NotEq),
        v().prop_map(LeafOp::Lt),
        v().prop_map(LeafOp::LtEq),
        v().prop_map(LeafOp::Gt),
        v().prop_map(LeafOp::GtEq),
        proptest::collection::vec(v(), 2..3).prop_map(LeafOp::In),
        proptest::collection::vec(v(), 2..3).prop_map(LeafOp::NotIn),
    ];
    tree(op.prop_map(|op| leaf(0, TypeKind::Double, op)))
}

fn double_columns() -> impl Strategy<Value = Vec<Vec<Option<Datum>>>> {
    let cell = proptest::option::weighted(
        0.8,
        prop_oneof![
            Just(f64::NAN),
            Just(0.0),
            Just(-0.0),
            Just(1.5),
            Just(3.0),
            Just(-2.0)
        ]
        .prop_map(Datum::Double),
    );
    proptest::collection::vec(proptest::collection::vec(cell, 1..6), 1)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn stats_never_drop_a_matching_int_row(cols in int_columns(), pred in int_pred()) {
        let stats = stats_of(&cols);
        let any_row = (0..cols[0].len()).any(|r| row_matches(&pred, &cols, r));
        if any_row {
            prop_assert_eq!(eval_stats(&pred, &stats).unwrap(), Prune::MightMatch, "{}", pred);
        }
    }

    #[test]
    fn stats_never_drop_a_matching_double_row(cols in double_columns(), pred in double_pred()) {
        let stats = stats_of(&cols);
        let any_row = (0..cols[0].len()).any(|r| row_matches(&pred, &cols, r));
        if any_row {
            prop_assert_eq!(eval_stats(&pred, &stats).unwrap(), Prune::MightMatch, "{}", pred);
        }
    }

    #[test]
    fn stats_never_drop_a_matching_string_row(
        vals in proptest::collection::vec("[a-c]{0,4}", 1..6),
        prefix in "[a-c]{0,3}",
        lit in "[a-c]{0,4}",
        trunc in 1usize..4,
    ) {
        let mut sorted = vals.clone();
        sorted.sort();
        // Truncated bounds: min = prefix of the real min, max = prefix with last char bumped.
        let min: String = sorted[0].chars().take(trunc).collect();
        let real_max = sorted[sorted.len() - 1].clone();
        let max = if real_max.chars().count() > trunc {
            let mut m: Vec<char> = real_max.chars().take(trunc).collect();
            let last = m.pop().unwrap();
            m.push(char::from_u32(last as u32 + 1).unwrap());
            m.into_iter().collect()
        } else {
            real_max
        };
        let stats = str_stats(&min, &max);
        let col: Vec<Option<Datum>> = vals.iter().map(|v| Some(Datum::String(v.clone()))).collect();
        let s = || Datum::String(lit.clone());
        let ops = [
            LeafOp::StartsWith(prefix.clone()),
            LeafOp::NotStartsWith(prefix.clone()),
            LeafOp::Eq(s()), LeafOp::NotEq(s()), LeafOp::Lt(s()), LeafOp::LtEq(s()),
            LeafOp::Gt(s()), LeafOp::GtEq(s()),
        ];
        for op in ops {
            let pred = leaf(0, TypeKind::VarChar(10), op);
            let cols = vec![col.clone()];
            let any_row = (0..col.len()).any(|r| row_matches(&pred, &cols, r));
            if any_row {
                prop_assert_eq!(eval_stats(&pred, &stats).unwrap(), Prune::MightMatch,
                    "{} min={} max={}", pred, min, max);
            }
        }
    }
}
