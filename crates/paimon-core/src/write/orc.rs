//! ORC data files through orc-rust's `ArrowWriter`: Java's default codec (`file.compression`,
//! zstd), stripes of `orc.stripe.size` 64 MiB (or less when `target-file-size` is smaller, so
//! rolling sees the size). Types as Java's `OrcTypeUtil` (Paimon 2.0) writes them: TIME columns
//! (also nested ones) are ORC `int` (milliseconds of the day); DECIMAL(p, s) is ORC
//! `decimal(p,s)`; ROW is `struct` with the field names, ARRAY `array`, MAP `map`, and
//! MULTISET<T> `map<T,int>`. orc-rust 0.9.0 has no DECIMAL, STRUCT, LIST or MAP writer: the
//! workspace uses the patched copy in `vendor/orc-rust` (`vendor/orc-rust/PATCHES.md`), whose
//! footer also carries per-column statistics (value counts, `hasNull`, decimal bounds and sums).
//! VARIANT, BLOB and VECTOR columns are still refused (`support`). No `paimon.id` attributes are
//! written; Java and our reader match ORC columns by name.

use std::io::Write;
use std::sync::{Arc, Mutex};

use arrow_array::{make_array, Array, ArrayRef, RecordBatch};
use arrow_cast::cast;
use arrow_schema::{DataType as ArrowType, Field, FieldRef, Schema, SchemaRef};
use orc_rust::arrow_writer::{ArrowWriter, ArrowWriterBuilder};
use orc_rust::compression::CompressionType;

use super::parquet::retype;
use crate::spec::options::TableOptions;
use crate::spec::types::{DataType, TypeKind};
use crate::{Error, Result};

/// An in-memory sink shared with the writer, so the bytes survive `close`.
#[derive(Clone, Default)]
struct SharedBuf(Arc<Mutex<Vec<u8>>>);

impl SharedBuf {
    fn len(&self) -> usize {
        self.0.lock().map_or(0, |b| b.len())
    }
    fn take(&self) -> Vec<u8> {
        self.0
            .lock()
            .map(|mut b| std::mem::take(&mut *b))
            .unwrap_or_default()
    }
}

impl Write for SharedBuf {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let mut b = self
            .0
            .lock()
            .map_err(|_| std::io::Error::other("ORC buffer poisoned"))?;
        b.extend_from_slice(data);
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

/// The ORC file type of an Arrow column type: TIME (`Time32(ms)`) becomes `Int32`, at any
/// depth; nested fields lose their metadata (field ids, which ORC files do not carry), so
/// batches from any path (table schema or merge output) can be given this exact type.
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

/// The ORC file schema of `schema` ([`orc_type`] of every column).
fn orc_schema(schema: &SchemaRef) -> SchemaRef {
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| f.as_ref().clone().with_data_type(orc_type(f.data_type())))
        .collect();
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
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
    /// A new in-memory file with `schema`; stripes at most `target_size` bytes.
    pub(crate) fn new(schema: SchemaRef, options: &TableOptions, target_size: u64) -> Result<Self> {
        let buf = SharedBuf::default();
        let schema = orc_schema(&schema);
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
        self.buf.len() as u64
    }

    /// Closes the file and returns its bytes.
    pub(crate) fn finish(self) -> Result<Vec<u8>> {
        self.writer.close()?;
        Ok(self.buf.take())
    }
}
