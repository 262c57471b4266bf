//! Column statistics of a scan from the manifests' value stats (min, max, null count per
//! output column), for DataFusion's planner (join order, filter selectivity).
//!
//! Fail safe: only append tables (primary-key files hold versions before merging, so their
//! bounds and null counts do not describe the rows read); a column's bound is given only when
//! every file's bound is known (a file whose column is entirely null needs none) and the type
//! is numeric, boolean, date or timestamp (string and binary bounds may be truncated, decimals
//! are left out); bounds are always `Inexact` (deletion vectors and filters remove rows). Null
//! counts are `Exact` only when the caller knows every file row is emitted
//! (`exact`: no deletion vectors, row ranges, residual filters or limit), else `Inexact`.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::Arc;

use arrow::datatypes::{DataType as ArrowType, SchemaRef, TimeUnit};
use datafusion::common::stats::Precision;
use datafusion::common::{ColumnStatistics, ScalarValue};
use paimon_core::spec::schema::TableSchema;
use paimon_core::spec::types::DataField;
use paimon_core::spec::Datum;
use paimon_core::{Split, Table};

/// Aggregated stats of one column over the files of a scan.
#[derive(Default)]
struct Acc {
    min: Option<Datum>,
    max: Option<Datum>,
    bounds_unknown: bool,
    nulls: i64,
    nulls_unknown: bool,
}

fn fold(current: &mut Option<Datum>, v: &Datum, keep: Ordering) -> bool {
    match current {
        None => {
            *current = Some(v.clone());
            true
        }
        Some(c) => match v.compare(c) {
            Some(o) => {
                if o == keep {
                    *current = Some(v.clone());
                }
                true
            }
            None => false,
        },
    }
}

/// The value as a scalar of the column's Arrow type, for the types whose bounds are given.
fn scalar(v: &Datum, t: &ArrowType) -> Option<ScalarValue> {
    Some(match (v, t) {
        (Datum::Boolean(b), ArrowType::Boolean) => ScalarValue::Boolean(Some(*b)),
        (Datum::TinyInt(x), ArrowType::Int8) => ScalarValue::Int8(Some(*x)),
        (Datum::SmallInt(x), ArrowType::Int16) => ScalarValue::Int16(Some(*x)),
        (Datum::Int(x), ArrowType::Int32) => ScalarValue::Int32(Some(*x)),
        (Datum::BigInt(x), ArrowType::Int64) => ScalarValue::Int64(Some(*x)),
        (Datum::Float(x), ArrowType::Float32) if !x.is_nan() => ScalarValue::Float32(Some(*x)),
        (Datum::Double(x), ArrowType::Float64) if !x.is_nan() => ScalarValue::Float64(Some(*x)),
        (Datum::Date(d), ArrowType::Date32) => ScalarValue::Date32(Some(*d)),
        (Datum::Timestamp(ts) | Datum::LocalZonedTimestamp(ts), ArrowType::Timestamp(unit, tz)) => {
            let nanos = i64::from(ts.nanos);
            let tz = tz.clone();
            match unit {
                TimeUnit::Second => {
                    ScalarValue::TimestampSecond(Some(ts.millis.div_euclid(1000)), tz)
                }
                TimeUnit::Millisecond => ScalarValue::TimestampMillisecond(Some(ts.millis), tz),
                TimeUnit::Microsecond => ScalarValue::TimestampMicrosecond(
                    ts.millis.checked_mul(1000)?.checked_add(nanos / 1000),
                    tz,
                ),
                TimeUnit::Nanosecond => ScalarValue::TimestampNanosecond(
                    ts.millis.checked_mul(1_000_000)?.checked_add(nanos),
                    tz,
                ),
            }
        }
        _ => return None,
    })
}

/// Statistics of the output columns `fields` (Arrow `schema`) of a scan of `splits`.
pub(crate) async fn column_statistics(
    table: &Table,
    splits: &[Split],
    fields: &[DataField],
    schema: &SchemaRef,
    exact: bool,
) -> Vec<ColumnStatistics> {
    let unknown = || vec![ColumnStatistics::new_unknown(); schema.fields().len()];
    if table.schema().has_primary_key() || fields.len() != schema.fields().len() {
        return unknown();
    }
    let current = &table.schema().fields;
    let sm = table.snapshot_manager();
    let mut schemas: HashMap<i64, Arc<TableSchema>> = HashMap::new();
    let mut acc: Vec<Acc> = fields.iter().map(|_| Acc::default()).collect();
    for split in splits {
        for file in &split.as_data().files {
            let file_schema = match schemas.get(&file.schema_id) {
                Some(s) => s.clone(),
                None => match sm.schema(file.schema_id).await {
                    Ok(s) => {
                        schemas.insert(file.schema_id, s.clone());
                        s
                    }
                    // Unreadable schema: nothing is known.
                    Err(_) => return unknown(),
                },
            };
            let stats = paimon_core::scan::value_stats(file, &file_schema.fields, current);
            for (f, a) in fields.iter().zip(acc.iter_mut()) {
                let nulls = stats.nulls(f.id);
                match nulls {
                    Some(n) => a.nulls += n,
                    None => a.nulls_unknown = true,
                }
                if nulls == Some(file.row_count) {
                    continue; // all null: no bound needed
                }
                match (stats.min_value(f.id), stats.max_value(f.id)) {
                    (Some(lo), Some(hi)) => {
                        let ok = fold(&mut a.min, lo, Ordering::Less)
                            && fold(&mut a.max, hi, Ordering::Greater);
                        a.bounds_unknown |= !ok;
                    }
                    _ => a.bounds_unknown = true,
                }
            }
        }
    }
    acc.iter()
        .zip(schema.fields())
        .map(|(a, field)| {
            let mut c = ColumnStatistics::new_unknown();
            if !a.nulls_unknown {
                let n = usize::try_from(a.nulls).unwrap_or(0);
                c.null_count = if exact {
                    Precision::Exact(n)
                } else {
                    Precision::Inexact(n)
                };
            }
            if !a.bounds_unknown {
                let t = field.data_type();
                if let (Some(lo), Some(hi)) = (a.min.as_ref(), a.max.as_ref()) {
                    if let (Some(lo), Some(hi)) = (scalar(lo, t), scalar(hi, t)) {
                        c.min_value = Precision::Inexact(lo);
                        c.max_value = Precision::Inexact(hi);
                    }
                }
            }
            c
        })
        .collect()
}
