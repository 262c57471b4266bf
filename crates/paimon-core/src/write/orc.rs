//! ORC data files through orc-rust's `ArrowWriter`: Java's default codec (`file.compression`,
//! zstd), stripes of `orc.stripe.size` 64 MiB (or less when `target-file-size` is smaller, so
//! rolling sees the size). orc-rust 0.9.0 has no DECIMAL, STRUCT, LIST or MAP writer, no
//! CHAR / VARCHAR types and no type attributes: the workspace uses the patched copy in
//! `vendor/orc-rust` (`vendor/orc-rust/PATCHES.md`), whose footer also carries per-column
//! statistics (value counts, `hasNull`, decimal bounds and sums).
//!
//! The type tree is the one Java's `OrcTypeUtil#convertToOrcSchema` (Paimon 2.0) builds from
//! the row type `OrcFileFormat#refineDataType` refined:
//! - every type but the root struct carries the attribute `paimon.id`: a column's and a ROW
//!   sub-field's own field id, a ROW's struct its field's id, an ARRAY element
//!   `SpecialFields#getArrayElementFieldId(owner, depth)`, a MAP key / value
//!   `getMapKeyFieldId` / `getMapValueFieldId(owner, depth)`, where owner is the column or ROW
//!   sub-field holding the nested type and depth counts the ARRAY / MAP levels down to it
//!   (Java converts an element with the parent's id at depth + 1, then overwrites its
//!   attribute). These are exactly the Parquet field ids (`super::parquet::parquet_schema`),
//!   which the file schema already carries at every depth, so they are copied from there;
//! - CHAR(n) is ORC `char(n)`, VARCHAR(n) below 2147483647 `varchar(n)`, STRING `string`.
//!   Values are written as ORC Java's writer does (`CharTreeWriter`: padded with spaces or cut
//!   to n characters; `VarcharTreeWriter`: cut to n characters) and read back as ORC Java's
//!   reader returns them (`TreeReaderFactory.CharTreeReader`: cut to n characters, trailing
//!   spaces removed; `VarcharTreeReader`: cut), both in `vendor/orc-rust`. So `'ab '` written
//!   into CHAR(5) is stored `'ab   '` and read `'ab'` by us and by Java; pyarrow 21 (ORC C++)
//!   and pypaimon 2.1.0 return the stored `'ab   '`. Value statistics are computed from the
//!   values written, before padding (Java's `OrcSimpleStatsExtractor` reads the file's, padded);
//! - BINARY(n) and VARBINARY(n) are ORC `binary` (Java refines them to BYTES);
//! - TIME (at any depth) is ORC `int` (milliseconds of the day); DECIMAL(p, s) is
//!   `decimal(p,s)`; TIMESTAMP is `timestamp`, TIMESTAMP_LTZ `timestamp with local time zone`;
//!   ROW is `struct` with the field names, ARRAY `array`, MAP `map`, and MULTISET<T>
//!   `map<T,int>` (Java refines it to MAP<T, INT NOT NULL>, key and value ids as a MAP's).
//!
//! VARIANT, BLOB and VECTOR columns are still refused (`support`). Java and our reader match
//! ORC columns by name.

use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex};

use arrow_array::{make_array, Array, ArrayRef, RecordBatch};
use arrow_cast::cast;
use arrow_schema::{DataType as ArrowType, Field, FieldRef, Schema, SchemaRef};
use bytes::Bytes;
use orc_rust::arrow_writer::{ArrowWriter, ArrowWriterBuilder, ORC_ATTRIBUTE_PREFIX, ORC_TYPE_KEY};
use orc_rust::compression::CompressionType;

use super::chunks::Chunks;
use super::parquet::retype;
use crate::arrow::schema::FIELD_ID_KEY;
use crate::spec::options::TableOptions;
use crate::spec::types::{DataField, DataType, TypeKind, MAX_LENGTH};
use crate::{Error, Result};

/// The ORC type attribute holding a Paimon field id (Java `OrcTypeUtil.PAIMON_ORC_FIELD_ID_KEY`).
pub(crate) const PAIMON_ID: &str = "paimon.id";

/// An in-memory sink shared with the writer, so the bytes survive `close`.
#[derive(Clone, Default)]
struct SharedBuf(Arc<Mutex<Chunks>>);

impl SharedBuf {
    /// Bytes written so far, taken ones included.
    fn written(&self) -> u64 {
        self.0.lock().map_or(0, |b| b.written())
    }
    /// The bytes not taken yet (none once poisoned: [`Self::into_rest`] then fails).
    fn take(&self) -> Vec<Bytes> {
        self.0.lock().map(|mut b| b.take()).unwrap_or_default()
    }
    /// Every byte not taken yet.
    fn into_rest(self) -> Result<Chunks> {
        self.0
            .lock()
            .map(|mut b| std::mem::take(&mut *b))
            .map_err(|_| Error::internal("ORC buffer poisoned"))
    }
}

impl Write for SharedBuf {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let mut b = self
            .0
            .lock()
            .map_err(|_| std::io::Error::other("ORC buffer poisoned"))?;
        b.write_all(data)?;
        Ok(data.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Whether the ORC writer can write a column of `t` (and of every type nested in it).
pub(crate) fn orc_writable(t: &DataType) -> bool {
    use TypeKind as K;
    match &t.kind {
        K::Boolean
        | K::TinyInt
        | K::SmallInt
        | K::Int
        | K::BigInt
        | K::Float
        | K::Double
        | K::Decimal { .. }
        | K::Char(_)
        | K::VarChar(_)
        | K::Binary(_)
        | K::VarBinary(_)
        | K::Date
        | K::Time(_)
        | K::Timestamp(_)
        | K::LocalZonedTimestamp(_) => true,
        K::Array(e) | K::Multiset(e) => orc_writable(e),
        K::Map(k, v) => orc_writable(k) && orc_writable(v),
        K::Row(fields) => fields.iter().all(|f| orc_writable(&f.data_type)),
        K::Variant | K::Blob | K::Vector(..) => false,
    }
}

/// The ORC file type of an Arrow column type without its Paimon type: TIME (`Time32(ms)`)
/// becomes `Int32`, at any depth; nested fields lose their metadata.
fn orc_type(t: &ArrowType) -> ArrowType {
    let field = |f: &FieldRef| {
        Arc::new(Field::new(
            f.name(),
            orc_type(f.data_type()),
            f.is_nullable(),
        ))
    };
    match t {
        ArrowType::Time32(_) => ArrowType::Int32,
        ArrowType::List(e) => ArrowType::List(field(e)),
        ArrowType::Map(entries, sorted) => ArrowType::Map(field(entries), *sorted),
        ArrowType::Struct(fields) => ArrowType::Struct(fields.iter().map(field).collect()),
        other => other.clone(),
    }
}

/// The orc-rust field metadata of the ORC type of `f` (Paimon type `t`): the `paimon.id`
/// attribute (the field id `f` carries for Parquet), and `char(n)` / `varchar(n)`.
fn orc_metadata(f: &Field, t: &DataType) -> HashMap<String, String> {
    let mut metadata = HashMap::new();
    if let Some(id) = f.metadata().get(FIELD_ID_KEY) {
        metadata.insert(format!("{ORC_ATTRIBUTE_PREFIX}{PAIMON_ID}"), id.clone());
    }
    let string_type = match t.kind {
        TypeKind::Char(n) => Some(format!("char({n})")),
        TypeKind::VarChar(n) if n < MAX_LENGTH => Some(format!("varchar({n})")),
        _ => None,
    };
    if let Some(string_type) = string_type {
        metadata.insert(ORC_TYPE_KEY.to_string(), string_type);
    }
    metadata
}

/// The ORC file field of Arrow field `f` (with its Parquet field ids) of Paimon type `t`:
/// [`orc_type`]'s type, with [`orc_metadata`] on it and on every nested field.
fn orc_field(f: &Field, t: &DataType) -> Field {
    let int = DataType::not_null(TypeKind::Int);
    let data_type = match (&t.kind, f.data_type()) {
        (TypeKind::Array(e), ArrowType::List(inner)) => {
            ArrowType::List(Arc::new(orc_field(inner, e)))
        }
        (TypeKind::Map(k, v), ArrowType::Map(entries, sorted)) => {
            orc_map(entries, *sorted, k, v).unwrap_or_else(|| orc_type(f.data_type()))
        }
        (TypeKind::Multiset(e), ArrowType::Map(entries, sorted)) => {
            orc_map(entries, *sorted, e, &int).unwrap_or_else(|| orc_type(f.data_type()))
        }
        (TypeKind::Row(sub), ArrowType::Struct(fs)) if fs.len() == sub.len() => ArrowType::Struct(
            fs.iter()
                .zip(sub)
                .map(|(f, s)| orc_field(f, &s.data_type))
                .collect(),
        ),
        (_, other) => orc_type(other),
    };
    Field::new(f.name(), data_type, f.is_nullable()).with_metadata(orc_metadata(f, t))
}

/// The ORC file type of an Arrow MAP of Paimon key type `k` and value type `v`.
fn orc_map(entries: &FieldRef, sorted: bool, k: &DataType, v: &DataType) -> Option<ArrowType> {
    let ArrowType::Struct(kv) = entries.data_type() else {
        return None;
    };
    let (Some(key), Some(value), 2) = (kv.first(), kv.get(1), kv.len()) else {
        return None;
    };
    let kv = vec![orc_field(key, k), orc_field(value, v)];
    let entries = Field::new(entries.name(), ArrowType::Struct(kv.into()), false);
    Some(ArrowType::Map(Arc::new(entries), sorted))
}

/// Whether `t` holds a TIME value at any depth (the column needs a cast, not only a retype).
fn has_time(t: &ArrowType) -> bool {
    match t {
        ArrowType::Time32(_) => true,
        ArrowType::List(f) | ArrowType::Map(f, _) => has_time(f.data_type()),
        ArrowType::Struct(fields) => fields.iter().any(|f| has_time(f.data_type())),
        _ => false,
    }
}

/// `column` as the file's column type `to` ([`orc_type`] of its type).
fn file_column(column: &ArrayRef, to: &ArrowType) -> Result<ArrayRef> {
    if column.data_type() == to {
        return Ok(column.clone());
    }
    let column = if has_time(column.data_type()) {
        cast(column, to)?
    } else {
        column.clone()
    };
    Ok(make_array(retype(column.to_data(), to)?))
}

/// The ORC file schema of `schema` (the file schema, Parquet ids at every depth) of Paimon
/// `fields` ([`orc_field`] of every column); the root struct carries no attribute (Java's
/// `convertToOrcSchema` sets none on it).
fn orc_schema(schema: &SchemaRef, fields: &[DataField]) -> SchemaRef {
    let out: Vec<Field> = schema
        .fields()
        .iter()
        .zip(fields)
        .map(|(f, p)| orc_field(f, &p.data_type))
        .collect();
    Arc::new(Schema::new_with_metadata(out, schema.metadata().clone()))
}

fn compression(options: &TableOptions) -> Result<Option<CompressionType>> {
    Ok(
        match options
            .file_compression
            .trim()
            .to_ascii_lowercase()
            .as_str()
        {
            "zstd" => Some(CompressionType::Zstd),
            "none" | "uncompressed" => None,
            "snappy" => Some(CompressionType::Snappy),
            "lz4" => Some(CompressionType::Lz4),
            "zlib" | "gzip" | "deflate" => Some(CompressionType::Zlib),
            other => {
                return Err(Error::unsupported(format!(
                    "file.compression '{other}' is not supported for ORC"
                ))
                .with_context("option", "file.compression"))
            }
        },
    )
}

/// An open ORC file being written into memory.
pub(crate) struct OrcWriter {
    writer: ArrowWriter<SharedBuf>,
    buf: SharedBuf,
    schema: SchemaRef,
}

impl OrcWriter {
    /// A new in-memory file with `schema` (Parquet ids at every depth) of Paimon `fields`;
    /// stripes at most `target_size` bytes.
    pub(crate) fn new(
        schema: SchemaRef,
        fields: &[DataField],
        options: &TableOptions,
        target_size: u64,
    ) -> Result<Self> {
        let buf = SharedBuf::default();
        let schema = orc_schema(&schema, fields);
        let stripe = usize::try_from(target_size.min(64 << 20)).unwrap_or(64 << 20);
        let mut builder =
            ArrowWriterBuilder::new(buf.clone(), schema.clone()).with_stripe_byte_size(stripe);
        if let Some(c) = compression(options)? {
            builder = builder.with_compression(c);
        }
        Ok(OrcWriter {
            writer: builder.try_build()?,
            buf,
            schema,
        })
    }

    /// Appends a batch whose columns have the file's types.
    pub(crate) fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let columns = batch
            .columns()
            .iter()
            .zip(self.schema.fields())
            .map(|(c, f)| file_column(c, f.data_type()))
            .collect::<Result<Vec<_>>>()?;
        let batch = RecordBatch::try_new(self.schema.clone(), columns)?;
        Ok(self.writer.write(&batch)?)
    }

    /// Bytes of the stripes written so far.
    pub(crate) fn estimated_size(&self) -> u64 {
        self.buf.written()
    }

    /// The file's bytes complete so far (its written stripes) and not taken yet, taken out.
    pub(crate) fn take_written(&mut self) -> Vec<Bytes> {
        self.buf.take()
    }

    /// Closes the file and returns its bytes not taken by [`Self::take_written`].
    pub(crate) fn finish(self) -> Result<Chunks> {
        self.writer.close()?;
        self.buf.into_rest()
    }
}

#[cfg(test)]
mod tests;
