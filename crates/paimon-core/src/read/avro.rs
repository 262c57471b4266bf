//! Avro data files → Arrow record batches.
//!
//! Mirrors Java `org.apache.paimon.format.avro.AvroBulkFormat` / `FieldReaderFactory` (Paimon
//! 2.0; `docs/format.md` "Manifest and Avro files"). Records are decoded by
//! `apache_avro::Reader` into
//! generic values, then each projected column of a batch is built into an Arrow array of the
//! Paimon type the file was written with, and finally evolved like every other format.
//! Divergences / notes:
//! - The file is streamed in 4 MiB ranged reads on a blocking thread (`read_avro`), never
//!   fetched whole; Avro data files are row files without an index, so skipped rows (row
//!   ranges, deletion vectors) are decoded and dropped.
//! - Nullable values are `["null", T]` unions; 0.9 files wrap records in such unions too.
//! - Timestamps: the numbers of `timestamp-*` and `local-timestamp-*` are epoch values used as
//!   they are (Paimon inverts the logical types); only the unit is converted.
//! - DECIMAL is big-endian two's-complement bytes; MAP with STRING keys is an Avro map, read in
//!   file order through a header declaring it as an array of `{key, value}` records (the same
//!   bytes; [`super::avro_header`]), other keys an array of such records.

use std::io::Read;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use apache_avro::types::Value;
use apache_avro::Schema as AvroSchema;
use arrow_array::builder::{BinaryBuilder, BooleanBuilder, PrimitiveBuilder, StringBuilder};
use arrow_array::types::*;
use arrow_array::{
    new_null_array, ArrayRef, ArrowPrimitiveType, ListArray, MapArray, RecordBatch,
    RecordBatchOptions, StructArray,
};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType as ArrowType, Field, Fields, Schema, TimeUnit};
use bytes::Bytes;
use futures::StreamExt;
use tokio::sync::{mpsc, oneshot};

use super::evolution::ReadMapping;
use super::file_reader::{DataFileRead, OpenedFile};
use super::selection::selected_ranges;
use crate::arrow::schema::{arrow_type, timestamp_unit};
use crate::io::FileIO;
use crate::spec::types::{DataType, TypeKind};
use crate::{Error, Result};

/// The field names of the top-level record of an Avro writer schema.
fn record_field_names(schema: &AvroSchema) -> Result<Vec<String>> {
    match schema {
        AvroSchema::Record(r) => Ok(r.fields.iter().map(|f| f.name.clone()).collect()),
        AvroSchema::Union(u) => u
            .variants()
            .iter()
            .find(|v| !matches!(v, AvroSchema::Null))
            .map(record_field_names)
            .unwrap_or_else(|| Err(Error::data_invalid("Avro file schema has no record"))),
        other => Err(Error::data_invalid(format!(
            "Avro data file schema is not a record: {other:?}"
        ))),
    }
}

/// `v` with unions unwrapped; `None` for null.
fn non_null(v: &Value) -> Option<&Value> {
    match v {
        Value::Null => None,
        Value::Union(_, inner) => non_null(inner),
        other => Some(other),
    }
}

fn mismatch(v: &Value, t: &DataType) -> Error {
    let mut shown = format!("{v:?}");
    shown.truncate(60);
    Error::data_invalid(format!("Avro value {shown} does not match type {t}"))
}

fn primitive<T: ArrowPrimitiveType>(
    values: &[&Value],
    t: &DataType,
    target: ArrowType,
    get: impl Fn(&Value) -> Option<T::Native>,
) -> Result<ArrayRef> {
    let mut b = PrimitiveBuilder::<T>::with_capacity(values.len()).with_data_type(target);
    for v in values {
        match non_null(v) {
            None => b.append_null(),
            Some(x) => b.append_value(get(x).ok_or_else(|| mismatch(x, t))?),
        }
    }
    Ok(Arc::new(b.finish()))
}

fn int(v: &Value) -> Option<i32> {
    match v {
        Value::Int(i) | Value::Date(i) | Value::TimeMillis(i) => Some(*i),
        Value::TimeMicros(m) => i32::try_from(m / 1000).ok(),
        _ => None,
    }
}

/// An Avro timestamp value converted to `unit`.
fn timestamp(v: &Value, unit: TimeUnit) -> Option<i64> {
    let (raw, from) = match v {
        Value::TimestampMillis(x) | Value::LocalTimestampMillis(x) => (*x, TimeUnit::Millisecond),
        Value::TimestampMicros(x) | Value::LocalTimestampMicros(x) => (*x, TimeUnit::Microsecond),
        Value::TimestampNanos(x) | Value::LocalTimestampNanos(x) => (*x, TimeUnit::Nanosecond),
        Value::Long(x) => (*x, unit),
        _ => return None,
    };
    let scale = |u: TimeUnit| match u {
        TimeUnit::Second => 0i32,
        TimeUnit::Millisecond => 3,
        TimeUnit::Microsecond => 6,
        TimeUnit::Nanosecond => 9,
    };
    let diff = scale(unit) - scale(from);
    let f = 10i64.checked_pow(diff.unsigned_abs())?;
    if diff >= 0 {
        raw.checked_mul(f)
    } else {
        Some(raw.div_euclid(f))
    }
}

/// Big-endian two's-complement bytes as an i128.
fn be_i128(bytes: &[u8]) -> Option<i128> {
    if bytes.len() > 16 {
        return None;
    }
    let fill = if bytes.first().is_some_and(|b| b & 0x80 != 0) {
        0xFF
    } else {
        0
    };
    let mut buf = [fill; 16];
    buf[16 - bytes.len()..].copy_from_slice(bytes);
    Some(i128::from_be_bytes(buf))
}

fn decimal(v: &Value) -> Option<i128> {
    match v {
        Value::Decimal(d) => be_i128(&Vec::<u8>::try_from(d).ok()?),
        Value::Bytes(b) | Value::Fixed(_, b) => be_i128(b),
        _ => None,
    }
}

/// Builds the Arrow array (of `arrow_type(t)`) of one column of Avro values.
fn column(values: &[&Value], t: &DataType) -> Result<ArrayRef> {
    let target = arrow_type(t)?;
    match &t.kind {
        TypeKind::Boolean => {
            let mut b = BooleanBuilder::with_capacity(values.len());
            for v in values {
                match non_null(v) {
                    None => b.append_null(),
                    Some(Value::Boolean(x)) => b.append_value(*x),
                    Some(x) => return Err(mismatch(x, t)),
                }
            }
            Ok(Arc::new(b.finish()))
        }
        TypeKind::TinyInt => primitive::<Int8Type>(values, t, target, |v| int(v)?.try_into().ok()),
        TypeKind::SmallInt => {
            primitive::<Int16Type>(values, t, target, |v| int(v)?.try_into().ok())
        }
        TypeKind::Int => primitive::<Int32Type>(values, t, target, int),
        TypeKind::Date => primitive::<Date32Type>(values, t, target, int),
        TypeKind::Time(_) => primitive::<Time32MillisecondType>(values, t, target, int),
        TypeKind::BigInt => primitive::<Int64Type>(values, t, target, |v| match v {
            Value::Long(x) => Some(*x),
            Value::Int(x) => Some(i64::from(*x)),
            _ => None,
        }),
        TypeKind::Float => primitive::<Float32Type>(values, t, target, |v| match v {
            Value::Float(x) => Some(*x),
            _ => None,
        }),
        TypeKind::Double => primitive::<Float64Type>(values, t, target, |v| match v {
            Value::Double(x) => Some(*x),
            Value::Float(x) => Some(f64::from(*x)),
            _ => None,
        }),
        TypeKind::Decimal { .. } => primitive::<Decimal128Type>(values, t, target, decimal),
        TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => {
            let unit = timestamp_unit(*p);
            let get = |v: &Value| timestamp(v, unit);
            match unit {
                TimeUnit::Millisecond => {
                    primitive::<TimestampMillisecondType>(values, t, target, get)
                }
                TimeUnit::Microsecond => {
                    primitive::<TimestampMicrosecondType>(values, t, target, get)
                }
                _ => primitive::<TimestampNanosecondType>(values, t, target, get),
            }
        }
        TypeKind::Char(_) | TypeKind::VarChar(_) => {
            let mut b = StringBuilder::with_capacity(values.len(), 0);
            for v in values {
                match non_null(v) {
                    None => b.append_null(),
                    Some(Value::String(s)) | Some(Value::Enum(_, s)) => b.append_value(s),
                    Some(x) => return Err(mismatch(x, t)),
                }
            }
            Ok(Arc::new(b.finish()))
        }
        TypeKind::Binary(_) | TypeKind::VarBinary(_) | TypeKind::Blob => {
            let mut b = BinaryBuilder::with_capacity(values.len(), 0);
            for v in values {
                match non_null(v) {
                    None => b.append_null(),
                    Some(Value::Bytes(x)) | Some(Value::Fixed(_, x)) => b.append_value(x),
                    Some(x) => return Err(mismatch(x, t)),
                }
            }
            Ok(Arc::new(b.finish()))
        }
        TypeKind::Array(e) => list(values, t, e),
        TypeKind::Map(k, v) => map(values, t, k, v),
        TypeKind::Multiset(e) => map(values, t, e, &DataType::not_null(TypeKind::Int)),
        TypeKind::Row(fields) => row(values, t, fields),
        _ => Err(Error::unsupported(format!("Avro column of type {t}"))),
    }
}

fn nulls_of(values: &[&Value]) -> Option<NullBuffer> {
    let nb = NullBuffer::from_iter(values.iter().map(|v| non_null(v).is_some()));
    (nb.null_count() > 0).then_some(nb)
}

fn offsets(lens: &[usize]) -> Result<OffsetBuffer<i32>> {
    let total: usize = lens.iter().sum();
    i32::try_from(total).map_err(|_| Error::data_invalid("Avro list too long for one batch"))?;
    Ok(OffsetBuffer::from_lengths(lens.iter().copied()))
}

fn list(values: &[&Value], t: &DataType, e: &DataType) -> Result<ArrayRef> {
    let mut lens = Vec::with_capacity(values.len());
    let mut items: Vec<&Value> = Vec::new();
    for v in values {
        match non_null(v) {
            None => lens.push(0),
            Some(Value::Array(xs)) => {
                lens.push(xs.len());
                items.extend(xs.iter());
            }
            Some(x) => return Err(mismatch(x, t)),
        }
    }
    let child = column(&items, e)?;
    let field = Field::new("element", child.data_type().clone(), true);
    Ok(Arc::new(ListArray::try_new(
        Arc::new(field),
        offsets(&lens)?,
        child,
        nulls_of(values),
    )?))
}

fn map(values: &[&Value], t: &DataType, k: &DataType, val: &DataType) -> Result<ArrayRef> {
    let mut lens = Vec::with_capacity(values.len());
    let mut keys: Vec<Value> = Vec::new();
    let mut vals: Vec<&Value> = Vec::new();
    for v in values {
        match non_null(v) {
            None => lens.push(0),
            Some(Value::Map(m)) => {
                lens.push(m.len());
                for (key, value) in m {
                    keys.push(Value::String(key.clone()));
                    vals.push(value);
                }
            }
            Some(Value::Array(entries)) => {
                lens.push(entries.len());
                for entry in entries {
                    let Some(Value::Record(kv)) = non_null(entry) else {
                        return Err(mismatch(entry, t));
                    };
                    let (Some(kf), Some(vf)) = (kv.first(), kv.get(1)) else {
                        return Err(mismatch(entry, t));
                    };
                    keys.push(kf.1.clone());
                    vals.push(&vf.1);
                }
            }
            Some(x) => return Err(mismatch(x, t)),
        }
    }
    let key_refs: Vec<&Value> = keys.iter().collect();
    let key_col = column(&key_refs, k)?;
    let val_col = column(&vals, val)?;
    let kv = Fields::from(vec![
        Field::new("key", key_col.data_type().clone(), key_col.null_count() > 0),
        Field::new("value", val_col.data_type().clone(), true),
    ]);
    let entries = StructArray::try_new(kv.clone(), vec![key_col, val_col], None)?;
    let entries_field = Field::new("key_value", ArrowType::Struct(kv), false);
    Ok(Arc::new(MapArray::try_new(
        Arc::new(entries_field),
        offsets(&lens)?,
        entries,
        nulls_of(values),
        false,
    )?))
}

fn row(
    values: &[&Value],
    t: &DataType,
    fields: &[crate::spec::types::DataField],
) -> Result<ArrayRef> {
    let null = Value::Null;
    let mut children: Vec<Vec<&Value>> = fields
        .iter()
        .map(|_| Vec::with_capacity(values.len()))
        .collect();
    for v in values {
        match non_null(v) {
            None => children.iter_mut().for_each(|c| c.push(&null)),
            Some(Value::Record(rec)) => {
                for (f, c) in fields.iter().zip(children.iter_mut()) {
                    c.push(
                        rec.iter()
                            .find(|(n, _)| *n == f.name)
                            .map_or(&null, |(_, x)| x),
                    );
                }
            }
            Some(x) => return Err(mismatch(x, t)),
        }
    }
    let mut arrow_fields = Vec::with_capacity(fields.len());
    let mut columns = Vec::with_capacity(fields.len());
    for (f, c) in fields.iter().zip(&children) {
        let col = column(c, &f.data_type)?;
        arrow_fields.push(Field::new(&f.name, col.data_type().clone(), true));
        columns.push(col);
    }
    if fields.is_empty() {
        return Ok(Arc::new(StructArray::new_empty_fields(
            values.len(),
            nulls_of(values),
        )));
    }
    Ok(Arc::new(StructArray::try_new(
        Fields::from(arrow_fields),
        columns,
        nulls_of(values),
    )?))
}

/// Builds the projected file batch of `records` (top-level record values).
fn file_batch(records: &[Value], mapping: &ReadMapping, names: &[String]) -> Result<RecordBatch> {
    let null = Value::Null;
    let mut fields = Vec::with_capacity(mapping.roots().len());
    let mut columns = Vec::with_capacity(mapping.roots().len());
    for (i, root) in mapping.roots().iter().enumerate() {
        let t = mapping
            .root_type(i)
            .ok_or_else(|| Error::internal("projected Avro column without type"))?;
        let name = names.get(*root).map(String::as_str).unwrap_or_default();
        let vals: Vec<&Value> = records
            .iter()
            .map(|r| match non_null(r) {
                Some(Value::Record(fs)) => fs.get(*root).map_or(&null, |(_, v)| v),
                _ => &null,
            })
            .collect();
        let col = if records.is_empty() {
            new_null_array(&arrow_type(t)?, 0)
        } else {
            column(&vals, t).map_err(|e| e.with_context("column", name))?
        };
        fields.push(Field::new(name, col.data_type().clone(), true));
        columns.push(col);
    }
    let options = RecordBatchOptions::new().with_row_count(Some(records.len()));
    Ok(RecordBatch::try_new_with_options(
        Arc::new(Schema::new(fields)),
        columns,
        &options,
    )?)
}

/// Bytes fetched per ranged read while streaming an Avro file (4 KiB under test).
const CHUNK: u64 = if cfg!(test) { 4096 } else { 4 << 20 };

/// Output batches buffered between the decoding thread and the stream's consumer.
const BATCHES_IN_FLIGHT: usize = 2;

/// An `std::io::Read` over one file of a [`FileIO`] that fetches the next [`CHUNK`] by range
/// when its buffer runs out. Blocking: it runs on a `spawn_blocking` thread and drives the async
/// read with the runtime handle. The first storage failure is kept in `failure` so the error
/// keeps its kind (apache-avro wraps I/O errors as its own).
struct RangeRead {
    io: FileIO,
    location: String,
    size: u64,
    pos: u64,
    buf: Bytes,
    runtime: tokio::runtime::Handle,
    failure: Arc<Mutex<Option<Error>>>,
}

impl Read for RangeRead {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.buf.is_empty() {
            if self.pos >= self.size || out.is_empty() {
                return Ok(0);
            }
            let end = self.pos.saturating_add(CHUNK).min(self.size);
            let fetched = self
                .runtime
                .block_on(self.io.read_range(&self.location, self.pos..end));
            match fetched {
                Ok(b) => self.buf = b,
                Err(e) => {
                    let msg = e.to_string();
                    if let Ok(mut slot) = self.failure.lock() {
                        slot.get_or_insert(e);
                    }
                    return Err(std::io::Error::other(msg));
                }
            }
            self.pos = end;
        }
        let n = out.len().min(self.buf.len());
        let chunk = self.buf.split_to(n);
        if let Some(dst) = out.get_mut(..n) {
            dst.copy_from_slice(&chunk);
        }
        Ok(n)
    }
}

/// The decoding side of an Avro read: opens the container, then sends batches until the end,
/// an error, or the consumer going away.
struct Decode {
    read: DataFileRead,
    failure: Arc<Mutex<Option<Error>>>,
    opened: Option<oneshot::Sender<Result<()>>>,
    batches: mpsc::Sender<Result<RecordBatch>>,
}

impl Decode {
    /// `e` naming the file, or the storage failure behind it.
    fn error(&self, e: Error) -> Error {
        match self.failure.lock().ok().and_then(|mut f| f.take()) {
            Some(storage) => storage,
            None => e.with_context("file", self.read.location.clone()),
        }
    }

    /// Reports `e`: as the open result before the file is open, else as the stream's last item.
    fn fail(&mut self, e: Error) {
        let e = self.error(e);
        match self.opened.take() {
            Some(tx) => {
                let _ = tx.send(Err(e));
            }
            None => {
                let _ = self.batches.blocking_send(Err(e));
            }
        }
    }

    fn run(&mut self, src: RangeRead) -> Result<()> {
        // Maps in file order (see `avro_header`): the header declares them as entry arrays.
        let reader = apache_avro::Reader::new(super::avro_header::ordered_maps(src)?)?;
        let names = record_field_names(reader.writer_schema())?;
        let physical: Vec<&str> = names.iter().map(String::as_str).collect();
        let mapping = ReadMapping::new(&self.read.read_fields, &self.read.file_fields, &physical)?
            .with_string_views(self.read.string_views);
        let ranges = selected_ranges(
            u64::MAX,
            self.read.row_ranges.as_deref(),
            self.read.deleted_rows.as_deref(),
        )?;
        if let Some(tx) = self.opened.take() {
            let _ = tx.send(Ok(()));
        }
        let batch_size = self.read.batch_size.max(1);
        let mut records = reader.enumerate().filter(move |(pos, _)| {
            let pos = *pos as u64;
            ranges.as_ref().is_none_or(|rs| {
                let i = rs.partition_point(|r| r.end <= pos);
                rs.get(i).is_some_and(|r| r.start <= pos)
            })
        });
        loop {
            let mut batch = Vec::new();
            for (_, rec) in records.by_ref() {
                batch.push(rec?);
                if batch.len() >= batch_size {
                    break;
                }
            }
            if batch.is_empty() {
                return Ok(());
            }
            let out = file_batch(&batch, &mapping, &names).and_then(|b| mapping.project(&b));
            let out = out.map_err(|e| self.error(e));
            let failed = out.is_err();
            if self.batches.blocking_send(out).is_err() || failed {
                return Ok(());
            }
        }
    }
}

/// Opens an Avro data file and streams it in the read schema.
///
/// The file is read in [`CHUNK`]s by range on a blocking thread that decodes records and sends
/// batches through a bounded channel: memory holds a chunk, the Avro block being decoded and at
/// most [`BATCHES_IN_FLIGHT`] batches. Dropping the stream stops the thread at its next batch.
/// Also returns the file positions of the emitted rows (open-ended: the row count is known only
/// after decoding).
pub(crate) async fn read_avro(io: &FileIO, read: DataFileRead) -> Result<OpenedFile> {
    let loc = read.location.clone();
    let positions = selected_ranges(
        u64::MAX,
        read.row_ranges.as_deref(),
        read.deleted_rows.as_deref(),
    )?
    .unwrap_or_else(|| std::iter::once(0..u64::MAX).collect());
    let size = match read.file_size {
        Some(s) => s,
        None => io.size(&loc).await?,
    };
    let runtime = tokio::runtime::Handle::try_current().map_err(|_| {
        Error::unsupported("reading Avro data files needs a Tokio runtime")
            .with_context("file", &loc)
    })?;
    let failure = Arc::new(Mutex::new(None));
    let src = RangeRead {
        io: io.clone(),
        location: loc.clone(),
        size,
        pos: 0,
        buf: Bytes::new(),
        runtime: runtime.clone(),
        failure: failure.clone(),
    };
    let (opened_tx, opened_rx) = oneshot::channel();
    let (tx, rx) = mpsc::channel(BATCHES_IN_FLIGHT);
    let mut decode = Decode {
        read,
        failure,
        opened: Some(opened_tx),
        batches: tx,
    };
    runtime.spawn_blocking(move || {
        let run = catch_unwind(AssertUnwindSafe(|| decode.run(src)));
        match run {
            Ok(Ok(())) => {}
            Ok(Err(e)) => decode.fail(e),
            Err(_) => decode.fail(Error::data_invalid("Avro decoder failed on corrupt input")),
        }
    });
    opened_rx
        .await
        .map_err(|_| Error::internal("Avro decoder stopped").with_context("file", &loc))??;
    let batches = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|item| (item, rx))
    });
    Ok(OpenedFile {
        batches: batches.boxed(),
        positions,
        in_memory: false,
    })
}

#[cfg(test)]
mod tests;
