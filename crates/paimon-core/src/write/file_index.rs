//! Data-file indexes at write time (Java `DataFileIndexWriter`, Paimon 2.0): which columns of
//! the written batches are indexed and how their Arrow values become index keys.
//!
//! [`IndexPlan`] is resolved once per table write from `file-index.<type>.columns`: the
//! column's position in the file batches (for primary-key files the value columns, never
//! `_KEY_*` or the system columns; every physical row, retractions included, is indexed as
//! Java's `KeyValueDataFileWriter` does) and its key type. The encoders are
//! [`crate::index::file_index::writer`]; where the container goes (embedded or a `.index` file)
//! is decided by [`super::file_writer::RollingWriter`] at close.

use arrow_array::RecordBatch;

use super::datum::datum_at;
use crate::index::file_index::key::{
    canonical_f32, canonical_f64, literal_long, Key, KeyRules, KeyType,
};
use crate::index::file_index::writer::{ColumnIndexSpec, FileIndexWriter};
use crate::index::file_index::IndexKind;
use crate::spec::datum::Datum;
use crate::spec::options::TableOptions;
use crate::spec::special_fields::KEY_FIELD_ID_START;
use crate::spec::types::{DataField, DataType, TypeKind};
use crate::{Error, Result};

/// The indexed columns of a table's data files.
#[derive(Debug, Clone)]
pub(crate) struct IndexPlan {
    specs: Vec<ColumnIndexSpec>,
    /// Position in the written batch and type, per spec.
    columns: Vec<(usize, DataType)>,
    /// `file-index.in-manifest-threshold` in bytes.
    pub threshold: u64,
}

impl IndexPlan {
    /// The plan for files with `fields`, or `None` when no column is indexed. Options Java
    /// rejects are `InvalidArgument`; index kinds or columns this writer cannot index are
    /// `Unsupported`.
    pub(crate) fn new(options: &TableOptions, fields: &[DataField]) -> Result<Option<IndexPlan>> {
        let fi = &options.file_index;
        if fi.is_empty() {
            return Ok(None);
        }
        if let Some(why) = &fi.invalid {
            return Err(Error::invalid_argument(why.clone()).with_context("option", "file-index"));
        }
        let mut specs = Vec::new();
        let mut columns = Vec::new();
        for c in &fi.columns {
            let option = format!("file-index.{}.columns", c.index_type);
            let kind = IndexKind::from_name(&c.index_type)
                .filter(|k| matches!(k, IndexKind::Bitmap | IndexKind::BloomFilter))
                .ok_or_else(|| {
                    Error::unsupported(format!(
                        "writing '{}' file indexes is not supported yet (bitmap, bloom-filter)",
                        c.index_type
                    ))
                    .with_context("option", option.clone())
                })?;
            let (pos, field) = fields
                .iter()
                .enumerate()
                .find(|(_, f)| f.name == c.column && f.id < KEY_FIELD_ID_START)
                .ok_or_else(|| {
                    Error::invalid_argument(format!("{} does not exist in column fields", c.column))
                        .with_context("option", option.clone())
                })?;
            let key_type = key_type(kind, &field.data_type).ok_or_else(|| {
                Error::unsupported(format!(
                    "a '{}' file index on column '{}' of type {}",
                    c.index_type, c.column, field.data_type
                ))
                .with_context("option", option.clone())
            })?;
            specs.push(ColumnIndexSpec {
                column: c.column.clone(),
                kind,
                key_type,
                options: c.options.clone(),
            });
            columns.push((pos, field.data_type.clone()));
        }
        // Bad per-index options fail here, not at the first file.
        FileIndexWriter::new(specs.clone())?;
        Ok(Some(IndexPlan {
            specs,
            columns,
            threshold: fi.in_manifest_threshold,
        }))
    }

    /// A fresh writer for one file.
    pub(crate) fn writer(&self) -> Result<FileIndexWriter> {
        FileIndexWriter::new(self.specs.clone())
    }

    /// Feeds every row of `batch` to `w`.
    pub(crate) fn update(&self, w: &mut FileIndexWriter, batch: &RecordBatch) -> Result<()> {
        for (i, (pos, t)) in self.columns.iter().enumerate() {
            let array = batch
                .columns()
                .get(*pos)
                .ok_or_else(|| Error::internal("indexed column missing from the batch"))?;
            for row in 0..batch.num_rows() {
                let key = match datum_at(array.as_ref(), row, t)? {
                    None => None,
                    Some(d) => Some(to_key(&d, t).ok_or_else(|| {
                        Error::internal(format!("no index key for a value of type {t}"))
                    })?),
                };
                w.write(i, key);
            }
        }
        Ok(())
    }
}

/// The index container Java's `DataFileIndexWriter` writes for a data file holding the rows of
/// `batch`, whose columns are `fields` (a table's columns, in order), under `options`; `None`
/// when no column is indexed. Where it would be stored is not decided here (see
/// `file-index.in-manifest-threshold`).
pub fn file_index_container(
    options: &TableOptions,
    fields: &[DataField],
    batch: &RecordBatch,
) -> Result<Option<Vec<u8>>> {
    let Some(plan) = IndexPlan::new(options, fields)? else {
        return Ok(None);
    };
    let mut w = plan.writer()?;
    plan.update(&mut w, batch)?;
    w.finish().map(Some)
}

/// The key type of an indexable column (Java `BitmapTypeVisitor`, `FastHash`).
fn key_type(kind: IndexKind, t: &DataType) -> Option<KeyType> {
    match kind {
        IndexKind::Bitmap => KeyType::of(t, KeyRules::Bitmap),
        _ => match &t.kind {
            TypeKind::Binary(_) | TypeKind::VarBinary(_) => Some(KeyType::Str),
            TypeKind::Boolean => None,
            _ => KeyType::of(t, KeyRules::Bitmap),
        },
    }
}

/// A value as the index key Java derives from it (timestamps as millis for precision ≤ 3,
/// else micros; floats with canonical NaN; strings and binaries as their bytes).
fn to_key(d: &Datum, t: &DataType) -> Option<Key> {
    Some(match d {
        Datum::Boolean(b) => Key::Bool(*b),
        Datum::Float(f) => Key::Float(canonical_f32(*f)),
        Datum::Double(f) => Key::Double(canonical_f64(*f)),
        Datum::String(s) => Key::Bytes(s.as_bytes().to_vec()),
        Datum::Binary(b) => Key::Bytes(b.clone()),
        _ => Key::Long(literal_long(d, t)?),
    })
}
