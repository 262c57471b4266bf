//! Interval derivation and binary search on decoded key values.
#![allow(clippy::single_range_in_vec_init)]

use arrow_array::{Int32Array, Int64Array, StringArray};

use super::*;
use crate::spec::types::DataField;

fn schema() -> crate::spec::schema::TableSchema {
    crate::test_util::schema_of(vec![
        DataField::new(0, "id", DataType::not_null(TypeKind::BigInt)),
        DataField::new(1, "v", DataType::nullable(TypeKind::BigInt)),
        DataField::new(2, "s", DataType::not_null(TypeKind::VarChar(100))),
    ])
}

fn bound(sql: &str) -> BoundPredicate {
    crate::expr::parse_predicate(sql)
        .unwrap()
        .bind(&schema())
        .unwrap()
}

fn bigint() -> DataType {
    DataType::not_null(TypeKind::BigInt)
}

/// Rows of `keys` the search keeps for `sql` on field 0, or `None` when it does not apply.
fn found(keys: &[i64], sql: &str) -> Option<Vec<Range<usize>>> {
    let iv = key_intervals(&bound(sql), 0)?;
    match search(&Int64Array::from(keys.to_vec()), &bigint(), &iv) {
        KeySearch::Found(r) => Some(r),
        KeySearch::Unsorted => None,
    }
}

#[test]
fn intervals_need_both_bounds_on_the_key() {
    assert!(key_intervals(&bound("id = 3"), 0).is_some());
    assert!(key_intervals(&bound("id IN (3, 9) AND v > 1"), 0).is_some());
    assert!(key_intervals(&bound("id >= 3 AND id < 9"), 0).is_some());
    assert!(key_intervals(&bound("id BETWEEN 3 AND 9 OR id = 20"), 0).is_some());
    assert!(key_intervals(&bound("id > 3"), 0).is_none());
    assert!(key_intervals(&bound("id = 3 OR v = 1"), 0).is_none());
    assert!(key_intervals(&bound("v = 1"), 0).is_none());
    assert!(key_intervals(&bound("id <> 3"), 0).is_none());
    // Contradictions leave no interval.
    assert_eq!(key_intervals(&bound("id = 3 AND id > 5"), 0), Some(vec![]));
    assert_eq!(key_intervals(&bound("id > 5 AND id < 5"), 0), Some(vec![]));
}

#[test]
fn binary_search_finds_runs() {
    let keys = [1, 3, 3, 3, 5, 7, 9, 9, 12];
    assert_eq!(found(&keys, "id = 3"), Some(vec![1..4]));
    assert_eq!(found(&keys, "id = 4"), Some(vec![]));
    assert_eq!(found(&keys, "id = 0"), Some(vec![]));
    assert_eq!(found(&keys, "id = 13"), Some(vec![]));
    assert_eq!(found(&keys, "id = 12"), Some(vec![8..9]));
    assert_eq!(found(&keys, "id IN (1, 9, 10)"), Some(vec![0..1, 6..8]));
    assert_eq!(found(&keys, "id > 3 AND id <= 9"), Some(vec![4..8]));
    assert_eq!(found(&keys, "id >= 3 AND id < 9"), Some(vec![1..6]));
    assert_eq!(
        found(&keys, "id BETWEEN 3 AND 5 OR id BETWEEN 5 AND 7"),
        Some(vec![1..6])
    );
    assert_eq!(
        found(&keys, "(id = 1 OR id = 12) AND id IN (12, 13)"),
        Some(vec![8..9])
    );
}

/// `p` on a row whose field 0 is `key` (the tests use no other field).
fn eval(p: &BoundPredicate, key: &Datum) -> bool {
    match p {
        BoundPredicate::AlwaysTrue => true,
        BoundPredicate::AlwaysFalse => false,
        BoundPredicate::And(cs) => cs.iter().all(|c| eval(c, key)),
        BoundPredicate::Or(cs) => cs.iter().any(|c| eval(c, key)),
        BoundPredicate::Leaf { op, .. } => op.eval(Some(key)) == Some(true),
    }
}

#[test]
fn matches_a_linear_scan_on_random_sorted_keys() {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for round in 0..200 {
        let n = (next() % 64) as usize;
        let mut keys: Vec<i64> = (0..n).map(|_| (next() % 40) as i64).collect();
        keys.sort_unstable();
        let (a, b) = ((next() % 44) as i64 - 2, (next() % 44) as i64 - 2);
        for sql in [
            format!("id = {a}"),
            format!("id IN ({a}, {b})"),
            format!("id BETWEEN {a} AND {b}"),
            format!("id > {a} AND id < {b}"),
            format!("id >= {a} AND id <= {b} OR id = {b}"),
        ] {
            let want: Vec<usize> = {
                let p = bound(&sql);
                (0..n)
                    .filter(|&i| eval(&p, &Datum::BigInt(keys[i])))
                    .collect()
            };
            let got: Vec<usize> = found(&keys, &sql).unwrap().into_iter().flatten().collect();
            assert_eq!(got, want, "round {round} {sql} {keys:?}");
        }
    }
}

#[test]
fn unsorted_or_null_keys_fall_back() {
    assert_eq!(found(&[1, 3, 2], "id = 3"), None);
    let iv = key_intervals(&bound("id = 3"), 0).unwrap();
    let with_null = Int64Array::from(vec![Some(1), None, Some(3)]);
    assert_eq!(search(&with_null, &bigint(), &iv), KeySearch::Unsorted);
    // A column whose Arrow type is not the key type cannot be read: no narrowing.
    let wrong = Int32Array::from(vec![1, 2, 3]);
    assert_eq!(search(&wrong, &bigint(), &iv), KeySearch::Unsorted);
    // Doubles are not searched (Arrow's order of NaN differs from Java's).
    let double = DataType::not_null(TypeKind::Double);
    assert_eq!(search(&wrong, &double, &iv), KeySearch::Unsorted);
}

#[test]
fn strings_compare_by_bytes() {
    let keys = StringArray::from(vec!["A", "a", "ab", "b", "é", "éa"]);
    let ty = DataType::not_null(TypeKind::VarChar(100));
    let iv = key_intervals(&bound("s IN ('ab', 'é')"), 2).unwrap();
    assert_eq!(search(&keys, &ty, &iv), KeySearch::Found(vec![2..3, 4..5]));
    let iv = key_intervals(&bound("s BETWEEN 'a' AND 'b'"), 2).unwrap();
    assert_eq!(search(&keys, &ty, &iv), KeySearch::Found(vec![1..4]));
}
