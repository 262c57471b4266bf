//! Arrow value → `serde_json::Value` by Paimon type.

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType as ArrowType, TimeUnit};
use serde_json::{Map, Value};

use crate::spec::types::{DataField, DataType, TypeKind};
use crate::spec::Decimal;
use crate::{Error, Result};

/// Renders every row of `batch` (whose columns are `fields`) as a JSON object keyed by column
/// name, keys in column order.
pub fn batch_to_json_rows(
    batch: &RecordBatch,
    fields: &[DataField],
) -> Result<Vec<Map<String, Value>>> {
    if batch.num_columns() != fields.len() {
        return Err(Error::internal("batch and field list differ in width"));
    }
    let mut rows = Vec::with_capacity(batch.num_rows());
    for row in 0..batch.num_rows() {
        let mut obj = Map::new();
        for (col, f) in batch.columns().iter().zip(fields) {
            obj.insert(
                f.name.clone(),
                value_to_json(col.as_ref(), &f.data_type, row)?,
            );
        }
        rows.push(obj);
    }
    Ok(rows)
}

fn float_json(v: f64) -> Value {
    if v.is_nan() {
        Value::String("NaN".into())
    } else if v.is_infinite() {
        Value::String(if v > 0.0 { "Infinity" } else { "-Infinity" }.into())
    } else {
        serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
    }
}

/// A FLOAT as the shortest decimal that round-trips through `f32` (3.1, not 3.0999999046…).
fn float32_json(v: f32) -> Value {
    let widened = v.to_string().parse::<f64>().unwrap_or(f64::from(v));
    float_json(if v.is_finite() { widened } else { f64::from(v) })
}

fn timestamp_json(array: &dyn Array, row: usize, precision: u32, utc: bool) -> Result<Value> {
    let nanos: i128 = match array.data_type() {
        ArrowType::Timestamp(TimeUnit::Second, _) => {
            i128::from(array.as_primitive::<TimestampSecondType>().value(row)) * 1_000_000_000
        }
        ArrowType::Timestamp(TimeUnit::Millisecond, _) => {
            i128::from(array.as_primitive::<TimestampMillisecondType>().value(row)) * 1_000_000
        }
        ArrowType::Timestamp(TimeUnit::Microsecond, _) => {
            i128::from(array.as_primitive::<TimestampMicrosecondType>().value(row)) * 1_000
        }
        ArrowType::Timestamp(TimeUnit::Nanosecond, _) => {
            i128::from(array.as_primitive::<TimestampNanosecondType>().value(row))
        }
        other => {
            return Err(Error::internal(format!(
                "timestamp column has arrow type {other}"
            )))
        }
    };
    let secs = i64::try_from(nanos.div_euclid(1_000_000_000))
        .map_err(|_| Error::data_invalid("timestamp out of range"))?;
    let sub = nanos.rem_euclid(1_000_000_000) as u32;
    let dt = chrono::DateTime::from_timestamp(secs, sub)
        .ok_or_else(|| Error::data_invalid("timestamp out of range"))?
        .naive_utc();
    let mut s = dt.format("%Y-%m-%dT%H:%M:%S").to_string();
    if precision > 0 {
        let frac = format!("{sub:09}");
        s.push('.');
        s.push_str(&frac[..precision.min(9) as usize]);
    }
    if utc {
        s.push('Z');
    }
    Ok(Value::String(s))
}

/// Renders row `row` of `array`, a column of Paimon type `t`.
pub fn value_to_json(array: &dyn Array, t: &DataType, row: usize) -> Result<Value> {
    if array.is_null(row) {
        return Ok(Value::Null);
    }
    Ok(match &t.kind {
        TypeKind::Boolean => Value::Bool(array.as_boolean().value(row)),
        TypeKind::TinyInt => Value::from(array.as_primitive::<Int8Type>().value(row)),
        TypeKind::SmallInt => Value::from(array.as_primitive::<Int16Type>().value(row)),
        TypeKind::Int => Value::from(array.as_primitive::<Int32Type>().value(row)),
        TypeKind::BigInt => Value::from(array.as_primitive::<Int64Type>().value(row)),
        TypeKind::Float => float32_json(array.as_primitive::<Float32Type>().value(row)),
        TypeKind::Double => float_json(array.as_primitive::<Float64Type>().value(row)),
        TypeKind::Decimal { precision, scale } => {
            let unscaled = array.as_primitive::<Decimal128Type>().value(row);
            Value::String(
                Decimal {
                    unscaled,
                    precision: *precision,
                    scale: *scale,
                }
                .to_string(),
            )
        }
        TypeKind::Char(_) | TypeKind::VarChar(_) => match array.data_type() {
            ArrowType::LargeUtf8 => Value::String(array.as_string::<i64>().value(row).to_string()),
            ArrowType::Utf8View => Value::String(array.as_string_view().value(row).to_string()),
            _ => Value::String(array.as_string::<i32>().value(row).to_string()),
        },
        TypeKind::Binary(_) | TypeKind::VarBinary(_) | TypeKind::Blob => {
            use base64::Engine as _;
            let bytes: &[u8] = match array.data_type() {
                ArrowType::LargeBinary => array.as_binary::<i64>().value(row),
                ArrowType::FixedSizeBinary(_) => array.as_fixed_size_binary().value(row),
                ArrowType::BinaryView => array.as_binary_view().value(row),
                _ => array.as_binary::<i32>().value(row),
            };
            Value::String(base64::engine::general_purpose::STANDARD.encode(bytes))
        }
        TypeKind::Date => {
            let d = array.as_primitive::<Date32Type>().value(row);
            Value::String(crate::spec::Datum::Date(d).to_string())
        }
        TypeKind::Time(p) => {
            let ms = array.as_primitive::<Time32MillisecondType>().value(row);
            let t = chrono::NaiveTime::from_num_seconds_from_midnight_opt(
                (ms / 1000) as u32,
                ((ms % 1000) * 1_000_000) as u32,
            )
            .ok_or_else(|| Error::data_invalid("time out of range"))?;
            let mut s = t.format("%H:%M:%S").to_string();
            if *p > 0 {
                s.push('.');
                s.push_str(&format!("{:03}", ms % 1000)[..(*p).min(3) as usize]);
            }
            Value::String(s)
        }
        TypeKind::Timestamp(p) => timestamp_json(array, row, *p, false)?,
        TypeKind::LocalZonedTimestamp(p) => timestamp_json(array, row, *p, true)?,
        TypeKind::Array(e) | TypeKind::Multiset(e)
            if matches!(array.data_type(), ArrowType::List(_)) =>
        {
            let list = array.as_list::<i32>().value(row);
            Value::Array(
                (0..list.len())
                    .map(|i| value_to_json(list.as_ref(), e, i))
                    .collect::<Result<_>>()?,
            )
        }
        TypeKind::Map(k, v) => map_json(array, row, k, v)?,
        TypeKind::Multiset(e) => map_json(array, row, e, &DataType::not_null(TypeKind::Int))?,
        TypeKind::Row(fields) => {
            let s = array.as_struct();
            let mut obj = Map::new();
            for (i, f) in fields.iter().enumerate() {
                let col = s.column(i);
                obj.insert(
                    f.name.clone(),
                    value_to_json(col.as_ref(), &f.data_type, row)?,
                );
            }
            Value::Object(obj)
        }
        other => return Err(Error::unsupported(format!("rendering {other:?} values"))),
    })
}

fn map_json(array: &dyn Array, row: usize, k: &DataType, v: &DataType) -> Result<Value> {
    let m = array.as_map();
    let entries = m.value(row);
    let keys = entries.column(0);
    let values = entries.column(1);
    let mut out = Vec::with_capacity(entries.len());
    for i in 0..entries.len() {
        out.push(Value::Array(vec![
            value_to_json(keys.as_ref(), k, i)?,
            value_to_json(values.as_ref(), v, i)?,
        ]));
    }
    Ok(Value::Array(out))
}

/// Renders one value (a partition value, a stats bound) with the same rules as row values.
pub fn datum_to_json(value: Option<&crate::spec::Datum>, t: &DataType) -> Value {
    use crate::spec::Datum as D;
    let Some(v) = value else { return Value::Null };
    match v {
        D::Boolean(b) => Value::Bool(*b),
        D::TinyInt(x) => Value::from(*x),
        D::SmallInt(x) => Value::from(*x),
        D::Int(x) => Value::from(*x),
        D::BigInt(x) => Value::from(*x),
        D::Float(x) => float32_json(*x),
        D::Double(x) => float_json(*x),
        D::Decimal(d) => Value::String(d.to_string()),
        D::String(s) => Value::String(s.clone()),
        D::Binary(b) => {
            use base64::Engine as _;
            Value::String(base64::engine::general_purpose::STANDARD.encode(b))
        }
        D::Date(_) | D::Time(_) => Value::String(v.to_string()),
        D::Timestamp(_) | D::LocalZonedTimestamp(_) => {
            let p = match t.kind {
                TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => p,
                _ => 9,
            };
            let mut s = v.to_string();
            // `Datum` prints 9 fraction digits; keep the type's precision.
            let cut = s.len() - (9 - p.min(9) as usize) - usize::from(p == 0);
            s.truncate(cut);
            if matches!(v, D::LocalZonedTimestamp(_)) {
                s.push('Z');
            }
            Value::String(s)
        }
    }
}
