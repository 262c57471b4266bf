//! ORC data files through orc-rust's `ArrowWriter`: Java's default codec (`file.compression`,
//! zstd), stripes of `orc.stripe.size` 64 MiB (or less when `target-file-size` is smaller, so
//! rolling sees the size). TIME columns are ORC `int` (milliseconds of the day), as Java's
//! `OrcTypeUtil` writes them. orc-rust 0.9 writes atomic types only: its writer has no DECIMAL,
//! STRUCT, LIST or MAP column (`support` rejects such tables), and no `paimon.id` attributes;
//! Java and our reader match ORC columns by name.

use std::io::Write;
use std::sync::{Arc, Mutex};

use arrow_array::RecordBatch;
use arrow_cast::cast;
use arrow_schema::{DataType as ArrowType, Field, Schema, SchemaRef};
use orc_rust::arrow_writer::{ArrowWriter, ArrowWriterBuilder};
use orc_rust::compression::CompressionType;

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

/// Whether orc-rust can write a column of `t`.
pub(crate) fn orc_writable(t: &DataType) -> bool {
    use TypeKind as K;
    matches!(
        t.kind,
        K::Boolean
            | K::TinyInt
            | K::SmallInt
            | K::Int
            | K::BigInt
            | K::Float
            | K::Double
            | K::Char(_)
            | K::VarChar(_)
            | K::Binary(_)
            | K::VarBinary(_)
            | K::Date
            | K::Time(_)
            | K::Timestamp(_)
            | K::LocalZonedTimestamp(_)
    )
}

/// The ORC file schema of `schema`: TIME (Arrow `Time32(ms)`) columns become `Int32`.
fn orc_schema(schema: &SchemaRef) -> SchemaRef {
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| match f.data_type() {
            ArrowType::Time32(_) => f.as_ref().clone().with_data_type(ArrowType::Int32),
            _ => f.as_ref().clone(),
        })
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
            .map(|(c, f)| match (c.data_type(), f.data_type()) {
                (ArrowType::Time32(_), ArrowType::Int32) => Ok(cast(c, &ArrowType::Int32)?),
                _ => Ok(c.clone()),
            })
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
