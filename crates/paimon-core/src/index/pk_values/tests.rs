use std::sync::Arc;

use arrow_array::{
    BooleanArray, Date32Array, Decimal128Array, Float32Array, Float64Array, Int16Array, Int32Array,
    Int64Array, Int8Array, StringArray, TimestampMicrosecondArray, TimestampMillisecondArray,
    TimestampNanosecondArray,
};

use arrow_array::ArrayRef;

use super::*;

/// Every value of `column` as a key, converted one type at a time (the builder's
/// conversion before the packed sort, kept as the oracle).
fn oracle_keys(column: &ArrayRef) -> Vec<Option<Key>> {
    macro_rules! prim {
        ($t:ty, $f:expr) => {
            column
                .as_primitive::<$t>()
                .iter()
                .map(|v| v.map($f))
                .collect()
        };
    }
    match column.data_type() {
        ArrowType::Int8 => prim!(Int8Type, Key::TinyInt),
        ArrowType::Int16 => prim!(Int16Type, Key::SmallInt),
        ArrowType::Int32 => prim!(Int32Type, Key::Int),
        ArrowType::Date32 => prim!(Date32Type, Key::Int),
        ArrowType::Int64 => prim!(Int64Type, Key::BigInt),
        ArrowType::Float32 => prim!(Float32Type, Key::Float),
        ArrowType::Float64 => prim!(Float64Type, Key::Double),
        ArrowType::Decimal128(_, _) => prim!(Decimal128Type, Key::Decimal),
        ArrowType::Boolean => column
            .as_boolean()
            .iter()
            .map(|v| v.map(Key::Boolean))
            .collect(),
        ArrowType::Utf8 => column
            .as_string::<i32>()
            .iter()
            .map(|v| v.map(|s| Key::String(s.as_bytes().to_vec())))
            .collect(),
        ArrowType::Timestamp(unit, _) => {
            let nanos_per = match unit {
                TimeUnit::Millisecond => 1_000_000,
                TimeUnit::Microsecond => 1_000,
                _ => 1,
            };
            let a = arrow_cast::cast(column, &ArrowType::Int64).unwrap();
            a.as_primitive::<Int64Type>()
                .iter()
                .map(|v| {
                    v.map(|v| {
                        let nanos = i128::from(v) * nanos_per;
                        Key::Timestamp {
                            millis: nanos.div_euclid(1_000_000) as i64,
                            nanos_of_milli: nanos.rem_euclid(1_000_000) as i32,
                        }
                    })
                })
                .collect()
        }
        other => panic!("no oracle for {other}"),
    }
}

/// The order the payload builder has always used: every key converted, sorted by Java's
/// comparator with the ordinal as tie-break, nulls last by ordinal.
fn reference(column: &ArrayRef) -> Vec<(Option<Key>, u64)> {
    let mut v: Vec<(Option<Key>, u64)> = oracle_keys(column)
        .into_iter()
        .enumerate()
        .map(|(i, k)| (k, i as u64))
        .collect();
    v.sort_by(|a, b| {
        match (&a.0, &b.0) {
            (Some(x), Some(y)) => compare(x, y),
            (None, None) => std::cmp::Ordering::Equal,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (Some(_), None) => std::cmp::Ordering::Less,
        }
        .then(a.1.cmp(&b.1))
    });
    v
}

/// Keys compared by their serialized identity (NaN payloads, −0.0).
fn canonical(v: Vec<(Option<Key>, u64)>) -> Vec<(Option<String>, u64)> {
    v.into_iter()
        .map(|(k, o)| {
            let k = k.map(|k| match k {
                Key::Float(f) => format!("f{:x}", java_float_bits(f)),
                Key::Double(d) => format!("d{:x}", java_double_bits(d)),
                other => format!("{other:?}"),
            });
            (k, o)
        })
        .collect()
}

/// The values of a sorter given `parts` (in arrival order) and `map`.
fn sorted(parts: &[ArrayRef], budget: usize, map: Option<OrdinalMap>) -> Vec<(Option<Key>, u64)> {
    let one_by_one = sorted_by(parts, budget, map.clone(), 0);
    // In batches (the fast path of a packed column sorted in memory), of sizes crossing
    // the end of the non-null values.
    for max in [1, 5, 4096] {
        assert_eq!(
            canonical(sorted_by(parts, budget, map.clone(), max)),
            canonical(one_by_one.clone()),
            "fill({max})"
        );
    }
    one_by_one
}

/// [`sorted`] read by `next_value` (`max` 0) or by `fill(max)`.
fn sorted_by(
    parts: &[ArrayRef],
    budget: usize,
    map: Option<OrdinalMap>,
    max: usize,
) -> Vec<(Option<Key>, u64)> {
    let dir = tempfile::tempdir().unwrap();
    let mut sorter =
        PayloadSorter::new(parts[0].data_type(), budget, Some(dir.path().into())).unwrap();
    for p in parts {
        sorter.push(p.as_ref()).unwrap();
    }
    let entries = parts
        .iter()
        .map(|p| p.len() - p.null_count())
        .sum::<usize>();
    if budget <= 16 * 7 && entries > 7 {
        assert!(sorter.spilled_runs() > 0);
    }
    let mut values = sorter.finish(map).unwrap();
    let mut got = Vec::new();
    if max == 0 {
        while let Some(v) = values.next_value().unwrap() {
            got.push(v);
        }
    } else {
        let mut batch = Vec::new();
        loop {
            values.fill(&mut batch, max).unwrap();
            if batch.is_empty() {
                break;
            }
            assert!(batch.len() <= max);
            got.append(&mut batch);
        }
    }
    drop(values);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    got
}

/// Sorted in memory and with spills (a budget of a few entries), in group order and
/// as three files arriving out of name order; always the reference order.
fn check(column: ArrayRef) {
    let want = canonical(reference(&column));
    let n = column.len();
    for budget in [usize::MAX, 16 * 50, 16 * 7] {
        let got = sorted(std::slice::from_ref(&column), budget, None);
        assert_eq!(
            canonical(got),
            want,
            "{:?} budget {budget}",
            column.data_type()
        );
        if n < 3 {
            continue;
        }
        // Files by name: [0, a), [a, b), [b, n); they arrive as the last, the first, the
        // middle one.
        let (a, b) = (n / 3, 2 * n / 3);
        let parts = [
            column.slice(b, n - b),
            column.slice(0, a),
            column.slice(a, b - a),
        ];
        let map = OrdinalMap::new([
            ((n - b) as u64, b as u64),
            (a as u64, 0),
            ((b - a) as u64, a as u64),
        ]);
        assert!(!map.in_order);
        let got = sorted(&parts, budget, Some(map));
        assert_eq!(
            canonical(got),
            want,
            "{:?} budget {budget} remapped",
            column.data_type()
        );
    }
}

/// A small deterministic generator.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 11
    }
}

#[test]
fn every_type_sorts_as_the_key_comparator_does() {
    let mut g = Lcg(7);
    for round in 0..40 {
        let n = (g.next() % 300) as usize;
        let null = |g: &mut Lcg| round % 3 == 0 && g.next() % 5 == 0;
        // Few distinct values, so ties (ordinal order) are common.
        let ints = |g: &mut Lcg| -> Vec<Option<i64>> {
            (0..n)
                .map(|_| match null(g) {
                    true => None,
                    false => Some(match g.next() % 4 {
                        0 => i64::MIN + (g.next() % 3) as i64,
                        1 => i64::MAX - (g.next() % 3) as i64,
                        _ => (g.next() % 21) as i64 - 10,
                    }),
                })
                .collect()
        };
        let v = ints(&mut g);
        check(Arc::new(Int64Array::from(v.clone())));
        check(Arc::new(Int8Array::from(
            v.iter().map(|x| x.map(|x| x as i8)).collect::<Vec<_>>(),
        )));
        check(Arc::new(Int16Array::from(
            v.iter().map(|x| x.map(|x| x as i16)).collect::<Vec<_>>(),
        )));
        check(Arc::new(Int32Array::from(
            v.iter().map(|x| x.map(|x| x as i32)).collect::<Vec<_>>(),
        )));
        check(Arc::new(Date32Array::from(
            v.iter().map(|x| x.map(|x| x as i32)).collect::<Vec<_>>(),
        )));
        let ts: Vec<Option<i64>> = v.iter().map(|x| x.map(|x| x / 4)).collect();
        check(Arc::new(TimestampMillisecondArray::from(ts.clone())));
        check(Arc::new(TimestampMicrosecondArray::from(ts.clone())));
        check(Arc::new(TimestampNanosecondArray::from(ts)));
        check(Arc::new(BooleanArray::from(
            v.iter().map(|x| x.map(|x| x % 2 == 0)).collect::<Vec<_>>(),
        )));
        check(Arc::new(Decimal128Array::from(
            v.iter().map(|x| x.map(i128::from)).collect::<Vec<_>>(),
        )));
        check(Arc::new(StringArray::from(
            v.iter()
                .map(|x| x.map(|x| format!("s{}", x.rem_euclid(7))))
                .collect::<Vec<_>>(),
        )));
        let specials = [
            0.0,
            -0.0,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            -1.5,
            2.5,
        ];
        let d: Vec<Option<f64>> = (0..n)
            .map(|_| match null(&mut g) {
                true => None,
                false => Some(specials[(g.next() % specials.len() as u64) as usize]),
            })
            .collect();
        check(Arc::new(Float64Array::from(d.clone())));
        check(Arc::new(Float32Array::from(
            d.iter().map(|x| x.map(|x| x as f32)).collect::<Vec<_>>(),
        )));
    }
}

#[test]
fn floats_follow_java_compare() {
    let a: ArrayRef = Arc::new(Float64Array::from(vec![
        f64::NAN,
        0.0,
        -0.0,
        f64::INFINITY,
        -1.0,
    ]));
    let ordinals: Vec<u64> = sorted(&[a], usize::MAX, None)
        .iter()
        .map(|(_, o)| *o)
        .collect();
    assert_eq!(ordinals, vec![4, 2, 1, 3, 0]);
}

#[test]
fn unsupported_types_are_refused() {
    let a: ArrayRef = Arc::new(arrow_array::BinaryArray::from(vec![&b"x"[..]]));
    let e = PayloadSorter::new(a.data_type(), 1 << 20, None)
        .err()
        .unwrap();
    assert!(e.to_string().contains("Arrow type Binary"), "{e}");
}
