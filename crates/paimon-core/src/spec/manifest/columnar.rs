//! ORC and Parquet manifests decoded into [`Record`]s through Arrow.
//!
//! Java writes ORC manifests when `manifest.format = orc`
//! (`org.apache.paimon.format.orc.OrcFileFormat`, Paimon 2.0); Parquet is possible with
//! `manifest.format = parquet`. Both carry the same fields as the Avro rows. The file is read
//! into Arrow record batches (orc-rust / parquet) and each row becomes a [`Record`] with the
//! same normalisation as Avro: tinyint/smallint/int → `Int`, bigint → `Long`, timestamps →
//! `Long` epoch millis of the stored (wall-clock) value, list → `Array`, struct → `Record`.
//!
//! Robustness: orc-rust 0.9 is not hardened against corrupt files. Its panics are caught and
//! returned as `DataInvalid` (see `guard`), but a footer whose type ids form a cycle makes it
//! recurse until the stack overflows, which aborts the process. Checking the footer's type tree
//! before handing the file to orc-rust would need our own ORC tail decoder (not done yet).

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType,
};
use arrow_array::{Array, RecordBatch, StructArray};
use arrow_schema::{DataType, Fields, TimeUnit};
use bytes::Bytes;

use super::record::{Record, Shape, Value};
use crate::{Error, Result};

/// ORC files start with this magic.
pub(crate) const ORC_MAGIC: &[u8; 3] = b"ORC";
/// Parquet files start (and end) with this magic.
pub(crate) const PARQUET_MAGIC: &[u8; 4] = b"PAR1";

/// How to turn one Arrow column into values; built once per batch schema.
enum Conv {
    Leaf,
    Struct(Shape, Vec<Conv>),
    List(Box<Conv>),
}

fn shape(fields: &Fields) -> Shape {
    fields
        .iter()
        .map(|f| f.name().clone())
        .collect::<Vec<_>>()
        .into()
}

fn conv_for(dt: &DataType) -> Conv {
    match dt {
        DataType::Struct(fields) => Conv::Struct(
            shape(fields),
            fields.iter().map(|f| conv_for(f.data_type())).collect(),
        ),
        DataType::List(f) | DataType::LargeList(f) => Conv::List(Box::new(conv_for(f.data_type()))),
        _ => Conv::Leaf,
    }
}

fn unsupported_type(dt: &DataType) -> Error {
    Error::data_invalid(format!("unexpected column type {dt} in a manifest"))
}

fn leaf(arr: &dyn Array, i: usize) -> Result<Value> {
    Ok(match arr.data_type() {
        DataType::Boolean => Value::Boolean(arr.as_boolean().value(i)),
        DataType::Int8 => Value::Int(i32::from(arr.as_primitive::<Int8Type>().value(i))),
        DataType::Int16 => Value::Int(i32::from(arr.as_primitive::<Int16Type>().value(i))),
        DataType::Int32 => Value::Int(arr.as_primitive::<Int32Type>().value(i)),
        DataType::Int64 => Value::Long(arr.as_primitive::<Int64Type>().value(i)),
        DataType::Float32 => Value::Float(arr.as_primitive::<Float32Type>().value(i)),
        DataType::Float64 => Value::Double(arr.as_primitive::<Float64Type>().value(i)),
        DataType::Utf8 => Value::String(arr.as_string::<i32>().value(i).to_string()),
        DataType::LargeUtf8 => Value::String(arr.as_string::<i64>().value(i).to_string()),
        DataType::Utf8View => Value::String(arr.as_string_view().value(i).to_string()),
        DataType::Binary => Value::Bytes(arr.as_binary::<i32>().value(i).to_vec()),
        DataType::LargeBinary => Value::Bytes(arr.as_binary::<i64>().value(i).to_vec()),
        DataType::BinaryView => Value::Bytes(arr.as_binary_view().value(i).to_vec()),
        DataType::Timestamp(unit, _) => Value::Long(timestamp_millis(arr, *unit, i)),
        other => return Err(unsupported_type(other)),
    })
}

fn timestamp_millis(arr: &dyn Array, unit: TimeUnit, i: usize) -> i64 {
    match unit {
        TimeUnit::Second => arr
            .as_primitive::<TimestampSecondType>()
            .value(i)
            .saturating_mul(1000),
        TimeUnit::Millisecond => arr.as_primitive::<TimestampMillisecondType>().value(i),
        TimeUnit::Microsecond => arr
            .as_primitive::<TimestampMicrosecondType>()
            .value(i)
            .div_euclid(1000),
        TimeUnit::Nanosecond => arr
            .as_primitive::<TimestampNanosecondType>()
            .value(i)
            .div_euclid(1_000_000),
    }
}

/// Value at row `i` of `arr` (`i < arr.len()` is the caller's loop bound).
fn value(arr: &dyn Array, conv: &Conv, i: usize) -> Result<Value> {
    if arr.is_null(i) {
        return Ok(Value::Null);
    }
    match conv {
        Conv::Leaf => leaf(arr, i),
        Conv::Struct(names, convs) => {
            let s = arr
                .as_struct_opt()
                .ok_or_else(|| unsupported_type(arr.data_type()))?;
            Ok(Value::Record(struct_row(s, names, convs, i)?))
        }
        Conv::List(item) => {
            let items = match arr.data_type() {
                DataType::List(_) => arr.as_list::<i32>().value(i),
                DataType::LargeList(_) => arr.as_list::<i64>().value(i),
                other => return Err(unsupported_type(other)),
            };
            (0..items.len())
                .map(|j| value(items.as_ref(), item, j))
                .collect::<Result<Vec<_>>>()
                .map(Value::Array)
        }
    }
}

fn struct_row(s: &StructArray, names: &Shape, convs: &[Conv], i: usize) -> Result<Record> {
    let values = s
        .columns()
        .iter()
        .zip(convs)
        .map(|(col, c)| value(col.as_ref(), c, i))
        .collect::<Result<Vec<_>>>()?;
    Ok(Record::new(names.clone(), values))
}

fn batch_records(batch: RecordBatch, out: &mut Vec<Record>) -> Result<()> {
    let s = StructArray::from(batch);
    let fields = s.fields().clone();
    let names = shape(&fields);
    let convs: Vec<Conv> = fields.iter().map(|f| conv_for(f.data_type())).collect();
    for i in 0..s.len() {
        out.push(struct_row(&s, &names, &convs, i)?);
    }
    Ok(())
}

/// Runs a third-party decoder, turning a panic on corrupt input into `DataInvalid`.
///
/// orc-rust 0.9 panics on some corrupt files (e.g. `BytesMut::split_to` out of bounds on a bad
/// stream length); a manifest reader must fail closed with an error instead. This does not
/// help under `panic = "abort"`, and the panic hook still runs.
fn guard(format: &str, run: impl FnOnce() -> Result<Vec<Record>>) -> Result<Vec<Record>> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).unwrap_or_else(|_| {
        Err(Error::data_invalid(format!(
            "corrupt {format} file (the {format} decoder panicked)"
        )))
    })
}

/// Decodes every row of an ORC file.
pub(crate) fn read_orc(bytes: &[u8]) -> Result<Vec<Record>> {
    // orc-rust overflows the stack on a cyclic type tree: reject it first.
    crate::spec::orc_footer::check_orc_type_tree(bytes, "ORC manifest")?;
    guard("ORC", || read_orc_unguarded(bytes))
}

fn read_orc_unguarded(bytes: &[u8]) -> Result<Vec<Record>> {
    let data = Bytes::copy_from_slice(bytes);
    let reader = orc_rust::ArrowReaderBuilder::try_new(data)?.build();
    let mut out = Vec::new();
    for batch in reader {
        batch_records(batch?, &mut out)?;
    }
    Ok(out)
}

/// Decodes every row of a Parquet file.
pub(crate) fn read_parquet(bytes: &[u8]) -> Result<Vec<Record>> {
    guard("Parquet", || read_parquet_unguarded(bytes))
}

fn read_parquet_unguarded(bytes: &[u8]) -> Result<Vec<Record>> {
    let data = Bytes::copy_from_slice(bytes);
    let builder = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(data)?;
    let mut out = Vec::new();
    for batch in builder.build()? {
        batch_records(batch?, &mut out)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::builder::{ListBuilder, StringBuilder};
    use arrow_array::{ArrayRef, BinaryArray, Int8Array, TimestampNanosecondArray};
    use arrow_schema::{Field, Schema};
    use std::sync::Arc;

    #[test]
    fn arrow_batch_to_records() {
        let mut list = ListBuilder::new(StringBuilder::new());
        list.values().append_value("a.index");
        list.append(true);
        list.append(false);
        let cols: Vec<ArrayRef> = vec![
            Arc::new(Int8Array::from(vec![Some(1), None])),
            Arc::new(BinaryArray::from(vec![&b"xy"[..], &b""[..]])),
            Arc::new(TimestampNanosecondArray::from(vec![1_500_999_999, -1])),
            Arc::new(list.finish()),
        ];
        let schema = Schema::new(vec![
            Field::new("_KIND", DataType::Int8, true),
            Field::new("_PARTITION", DataType::Binary, true),
            Field::new("_CREATION_TIME", cols[2].data_type().clone(), true),
            Field::new("_EXTRA_FILES", cols[3].data_type().clone(), true),
        ]);
        let batch = RecordBatch::try_new(Arc::new(schema), cols).unwrap();
        let mut out = Vec::new();
        batch_records(batch, &mut out).unwrap();
        assert_eq!(out[0].get("_KIND"), Some(&Value::Int(1)));
        assert_eq!(out[1].get("_KIND"), Some(&Value::Null));
        assert_eq!(
            out[0].get("_PARTITION"),
            Some(&Value::Bytes(b"xy".to_vec()))
        );
        assert_eq!(out[0].get("_CREATION_TIME"), Some(&Value::Long(1500)));
        assert_eq!(out[1].get("_CREATION_TIME"), Some(&Value::Long(-1)));
        assert_eq!(
            out[0].get("_EXTRA_FILES"),
            Some(&Value::Array(vec![Value::String("a.index".into())]))
        );
        assert_eq!(out[1].get("_EXTRA_FILES"), Some(&Value::Null));
    }
}
