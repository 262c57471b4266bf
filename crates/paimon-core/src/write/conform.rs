//! Checking a caller's batch against the table before anything is written: every table column
//! present by name (order free, no extra columns), each with the table's Arrow type (nested
//! field names, `Large*`/`*View` string and binary layouts and the time-zone spelling of UTC
//! timestamps are converted), and no nulls in NOT NULL columns. Errors name the column.

use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_cast::cast;
use arrow_schema::{DataType as ArrowType, SchemaRef};

use crate::spec::types::DataField;
use crate::{Error, Result};

/// Whether `from` may be converted to `to` without changing any value.
fn convertible(from: &ArrowType, to: &ArrowType) -> bool {
    use ArrowType as A;
    if from.equals_datatype(to) {
        return true;
    }
    match (from, to) {
        (A::LargeUtf8 | A::Utf8View, A::Utf8) => true,
        (A::LargeBinary | A::BinaryView, A::Binary) => true,
        (A::Timestamp(u1, Some(z1)), A::Timestamp(u2, Some(_))) => {
            u1 == u2 && matches!(z1.as_ref(), "UTC" | "+00:00" | "Z" | "utc" | "Etc/UTC")
        }
        (A::LargeList(f1) | A::ListView(f1), A::List(f2)) => {
            convertible(f1.data_type(), f2.data_type())
        }
        (A::List(f1), A::List(f2)) => convertible(f1.data_type(), f2.data_type()),
        (A::Struct(a), A::Struct(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|(x, y)| x.name() == y.name() && convertible(x.data_type(), y.data_type()))
        }
        _ => false,
    }
}

fn column_error(message: String, field: &DataField) -> Error {
    Error::invalid_argument(message).with_context("column", field.name.clone())
}

/// One table column from the batch, converted to the table's Arrow type.
fn conform_column(batch: &RecordBatch, field: &DataField, target: &ArrowType) -> Result<ArrayRef> {
    let array = batch
        .column_by_name(&field.name)
        .ok_or_else(|| column_error(format!("the batch has no column '{}'", field.name), field))?;
    let array = if array.data_type() == target {
        array.clone()
    } else if convertible(array.data_type(), target) {
        cast(array.as_ref(), target)?
    } else {
        return Err(column_error(
            format!(
                "column '{}' has Arrow type {}, the table expects {} (Paimon {})",
                field.name,
                array.data_type(),
                target,
                field.data_type
            ),
            field,
        ));
    };
    if !field.data_type.nullable && array.null_count() > 0 {
        return Err(column_error(
            format!(
                "column '{}' is NOT NULL but the batch has {} null value(s)",
                field.name,
                array.null_count()
            ),
            field,
        ));
    }
    Ok(array)
}

/// `batch` as a batch of the table's `fields` with Arrow schema `target`.
pub(crate) fn conform(
    batch: &RecordBatch,
    fields: &[DataField],
    target: &SchemaRef,
) -> Result<RecordBatch> {
    if let Some(extra) = batch
        .schema()
        .fields()
        .iter()
        .find(|f| !fields.iter().any(|t| &t.name == f.name()))
    {
        return Err(Error::invalid_argument(format!(
            "batch column '{}' is not a column of the table",
            extra.name()
        ))
        .with_context("column", extra.name().clone()));
    }
    let columns = fields
        .iter()
        .zip(target.fields())
        .map(|(f, t)| conform_column(batch, f, t.data_type()))
        .collect::<Result<Vec<_>>>()?;
    Ok(RecordBatch::try_new(target.clone(), columns)?)
}
