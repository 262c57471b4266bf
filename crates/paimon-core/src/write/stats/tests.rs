use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, BinaryArray, Int32Array, ListArray, RecordBatch, StringArray};

use super::*;
use crate::spec::types::{DataType, TypeKind};

fn t(s: &str) -> DataType {
    DataType::from_json(&serde_json::Value::String(s.into())).unwrap()
}

fn field(id: i32, name: &str, ty: &str) -> DataField {
    DataField::new(id, name, t(ty))
}

fn batch(columns: Vec<ArrayRef>) -> RecordBatch {
    RecordBatch::try_from_iter(
        columns
            .into_iter()
            .enumerate()
            .map(|(i, c)| (format!("c{i}"), c)),
    )
    .unwrap()
}

fn decode(stats: &SimpleStats, types: &[DataType]) -> (Vec<Option<Datum>>, Vec<Option<Datum>>) {
    let lo = BinaryRow::from_serialized(&stats.min_values)
        .unwrap()
        .decode(types)
        .unwrap();
    let hi = BinaryRow::from_serialized(&stats.max_values)
        .unwrap()
        .decode(types)
        .unwrap();
    (lo, hi)
}

fn s(v: &str) -> Option<Datum> {
    Some(Datum::String(v.into()))
}

#[test]
fn truncate_strings_like_java() {
    assert_eq!(
        truncate_min(Datum::String("abcdef".into()), 3),
        Datum::String("abc".into())
    );
    assert_eq!(truncate_max(Datum::String("abcdef".into()), 3), s("abd"));
    assert_eq!(truncate_max(Datum::String("ab".into()), 3), s("ab"));
    // Code points, not bytes.
    assert_eq!(
        truncate_max(Datum::String("日本語です".into()), 2),
        s("日札")
    );
    // The last code point cannot grow: the one before it does.
    let top = format!("a{}{}", char::MAX, char::MAX);
    assert_eq!(truncate_max(Datum::String(top), 2), s("b"));
    // Nothing can grow: no upper bound.
    let none = format!("{}{}", char::MAX, char::MAX);
    assert_eq!(truncate_max(Datum::String(none), 1), None);
    assert_eq!(truncate_max(Datum::Int(5), 1), Some(Datum::Int(5)));
}

#[test]
fn modes_counts_bounds_and_dense_columns() {
    let fields = [
        field(0, "i", "INT"),
        field(1, "s", "STRING"),
        field(2, "n", "INT"),
        field(3, "c", "INT"),
        DataField::new(
            4,
            "l",
            DataType::nullable(TypeKind::Array(Box::new(t("INT")))),
        ),
    ];
    let list =
        ListArray::from_iter_primitive::<Int32Type, _, _>(vec![Some(vec![Some(1)]), None, None]);
    let b = batch(vec![
        Arc::new(Int32Array::from(vec![Some(3), None, Some(-7)])),
        Arc::new(StringArray::from(vec![
            Some("a very long string value"),
            Some("b"),
            None,
        ])),
        Arc::new(Int32Array::from(vec![1, 2, 3])),
        Arc::new(Int32Array::from(vec![Some(1), None, None])),
        Arc::new(list),
    ]);
    let modes = [
        StatsMode::Truncate(4),
        StatsMode::Truncate(4),
        StatsMode::None,
        StatsMode::Counts,
        StatsMode::Full,
    ];
    let columns: Vec<StatsColumn<'_>> = fields
        .iter()
        .zip(modes)
        .enumerate()
        .map(|(position, (field, mode))| StatsColumn {
            field,
            position,
            mode,
        })
        .collect();
    let mut dense = StatsCollector::new(&columns, true, StatsOrigin::Parquet);
    dense.update(&b).unwrap();
    dense.update(&b.slice(0, 1)).unwrap();
    assert_eq!(
        dense.stats_cols(),
        Some(vec!["i".into(), "s".into(), "c".into()])
    );
    let r = dense.result().unwrap();
    assert_eq!(r.null_counts, Some(vec![Some(1), Some(1), Some(2)]));
    let (lo, hi) = decode(&r, &[t("INT"), t("STRING"), t("INT")]);
    assert_eq!(lo, vec![Some(Datum::Int(-7)), s("a ve"), None]);
    assert_eq!(hi, vec![Some(Datum::Int(3)), s("b"), None]);

    let mut full_width = StatsCollector::new(&columns, false, StatsOrigin::Parquet);
    full_width.update(&b).unwrap();
    assert_eq!(full_width.stats_cols(), None);
    let r = full_width.result().unwrap();
    assert_eq!(
        r.null_counts,
        Some(vec![Some(1), Some(1), None, Some(2), None])
    );
}

#[test]
fn all_columns_kept_means_null_stats_cols_and_parquet_binary_has_no_bounds() {
    let fields = [field(0, "b", "BYTES"), field(1, "ts", "TIMESTAMP(9)")];
    let columns = full_columns(&fields);
    let b = batch(vec![
        Arc::new(BinaryArray::from(vec![Some(b"x".as_ref()), None])),
        Arc::new(arrow_array::TimestampNanosecondArray::from(vec![
            Some(1),
            Some(5),
        ])),
    ]);
    let mut parquet = StatsCollector::new(&columns, true, StatsOrigin::Parquet);
    parquet.update(&b).unwrap();
    assert_eq!(parquet.stats_cols(), None);
    let r = parquet.result().unwrap();
    assert_eq!(r.null_counts, Some(vec![Some(1), Some(0)]));
    assert_eq!(
        decode(&r, &[t("BYTES"), t("TIMESTAMP(9)")]).0,
        vec![None, None]
    );
    let mut other = StatsCollector::new(&columns, true, StatsOrigin::Values);
    other.update(&b).unwrap();
    let (lo, hi) = decode(&other.result().unwrap(), &[t("BYTES"), t("TIMESTAMP(9)")]);
    assert_eq!(lo[0], Some(Datum::Binary(b"x".to_vec())));
    assert_eq!(
        hi[1],
        Some(Datum::Timestamp(crate::spec::datum::Timestamp {
            millis: 0,
            nanos: 5
        }))
    );
}

#[test]
fn orc_char_bounds_are_padded_as_orc_java_stores_them() {
    let fields = [field(0, "c", "CHAR(5)"), field(1, "v", "VARCHAR(5)")];
    let columns = full_columns(&fields);
    let b = batch(vec![
        Arc::new(StringArray::from(vec![Some("b"), Some("ab"), None])),
        Arc::new(StringArray::from(vec![Some("b"), Some("ab"), None])),
    ]);
    let types = [t("CHAR(5)"), t("VARCHAR(5)")];
    let s = |v: &str| Some(Datum::String(v.to_string()));
    let mut orc = StatsCollector::new(&columns, true, StatsOrigin::Orc);
    orc.update(&b).unwrap();
    let (lo, hi) = decode(&orc.result().unwrap(), &types);
    assert_eq!(lo, vec![s("ab   "), s("ab")]);
    assert_eq!(hi, vec![s("b    "), s("b")]);
    for source in [StatsOrigin::Parquet, StatsOrigin::Values] {
        let mut other = StatsCollector::new(&columns, true, source);
        other.update(&b).unwrap();
        let (lo, hi) = decode(&other.result().unwrap(), &types);
        assert_eq!(lo, vec![s("ab"), s("ab")], "{source:?}");
        assert_eq!(hi, vec![s("b"), s("b")], "{source:?}");
    }
}

/// Every field in mode `full`, at its position.
fn full_columns(fields: &[DataField]) -> Vec<StatsColumn<'_>> {
    fields
        .iter()
        .enumerate()
        .map(|(position, field)| StatsColumn {
            field,
            position,
            mode: StatsMode::Full,
        })
        .collect()
}
