//! A primary-key file's one-column key is encoded once: its `_KEY_<k>` and `<k>` columns hold
//! the same values (the key is the row's own field), so the `<k>` column chunk is the
//! `_KEY_<k>` chunk's pages spliced in again under its own column descriptor. Page bytes name
//! no column, so the file is byte-for-byte what encoding both columns writes (tested against
//! `ArrowWriter`); a primary-key write and compaction skip a fifth of their Parquet encoding
//! and compression.
//!
//! Used only when both columns are flat leaves of the same Parquet type, repetition and
//! writer settings, without dictionary (the writer's unique columns) and with no row-group byte
//! limit; each batch's two columns must hold equal values (the same buffers, as every writer's
//! layout gives them, or equal ones), else the write fails.

use std::sync::{Arc, Mutex};

use arrow_array::{Array, RecordBatch};
use arrow_schema::SchemaRef;
use bytes::Bytes;
use parquet::arrow::arrow_writer::{
    compute_leaves, ArrowColumnWriter, ArrowRowGroupWriterFactory, ArrowWriterOptions,
};
use parquet::arrow::ArrowWriter;
use parquet::column::page_store::{
    InMemoryPageStore, PageKey, PageStore, PageStoreArgs, PageStoreFactory,
};
use parquet::column::writer::ColumnCloseResult;
use parquet::file::metadata::ColumnChunkMetaData;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::{ColumnDescriptor, SchemaDescriptor};

use super::chunks::Chunks;
use crate::{Error, Result};

/// The two top-level columns written from one encoding: `key` (`_KEY_<k>`, encoded) and
/// `value` (`<k>`, its copy), by position in the Arrow schema and as Parquet leaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Twins {
    pub key: usize,
    pub value: usize,
}

/// The leaf of top-level column `column`, when it has exactly one.
fn single_leaf(parquet: &SchemaDescriptor, column: usize) -> Option<usize> {
    let mut leaves =
        (0..parquet.num_columns()).filter(|i| parquet.get_column_root_idx(*i) == column);
    let leaf = leaves.next()?;
    leaves.next().is_none().then_some(leaf)
}

/// Whether two leaves encode equal values to equal bytes: the same Parquet type and levels.
fn same_encoding(a: &ColumnDescriptor, b: &ColumnDescriptor) -> bool {
    a.physical_type() == b.physical_type()
        && a.logical_type_ref() == b.logical_type_ref()
        && a.converted_type() == b.converted_type()
        && a.type_length() == b.type_length()
        && a.type_precision() == b.type_precision()
        && a.type_scale() == b.type_scale()
        && a.max_def_level() == b.max_def_level()
        && a.max_rep_level() == b.max_rep_level()
        && a.self_type().get_basic_info().repetition()
            == b.self_type().get_basic_info().repetition()
}

/// Whether `props` write both leaves alike, without dictionary (whose page is stored apart).
fn same_settings(props: &WriterProperties, a: &ColumnDescriptor, b: &ColumnDescriptor) -> bool {
    let (a, b) = (a.path(), b.path());
    !props.dictionary_enabled(a)
        && !props.dictionary_enabled(b)
        && props.encoding(a) == props.encoding(b)
        && props.compression(a) == props.compression(b)
        && props.statistics_enabled(a) == props.statistics_enabled(b)
        && props.write_page_header_statistics(a) == props.write_page_header_statistics(b)
        && props.column_data_page_size_limit(a) == props.column_data_page_size_limit(b)
        && props.bloom_filter_properties(a).is_none()
        && props.bloom_filter_properties(b).is_none()
        && props.max_row_group_bytes().is_none()
        && props.content_defined_chunking().is_none()
}

/// The leaves of `twins` when the pair can be written once under `props`.
fn twin_leaves(
    parquet: &SchemaDescriptor,
    props: &WriterProperties,
    twins: Twins,
) -> Option<(usize, usize)> {
    let key = single_leaf(parquet, twins.key)?;
    let value = single_leaf(parquet, twins.value)?;
    let (a, b) = (parquet.column(key), parquet.column(value));
    (key < value && same_encoding(&a, &b) && same_settings(props, &a, &b)).then_some((key, value))
}

/// Page stores that also keep the key leaf's page blobs (headers and data, in write order)
/// for the copy.
#[derive(Debug)]
struct KeepKeyPages {
    key_leaf: usize,
    kept: Arc<Mutex<Vec<Bytes>>>,
}

impl PageStoreFactory for KeepKeyPages {
    fn create(&self, args: &PageStoreArgs<'_>) -> parquet::errors::Result<Box<dyn PageStore>> {
        let inner = InMemoryPageStore::default();
        Ok(match args.column_index() == self.key_leaf {
            true => Box::new(Keeping {
                inner,
                kept: self.kept.clone(),
            }),
            false => Box::new(inner),
        })
    }
}

struct Keeping {
    inner: InMemoryPageStore,
    kept: Arc<Mutex<Vec<Bytes>>>,
}

impl PageStore for Keeping {
    fn put(&mut self, value: Bytes) -> parquet::errors::Result<PageKey> {
        self.kept
            .lock()
            .map_err(|_| parquet::errors::ParquetError::General("kept pages poisoned".into()))?
            .push(value.clone());
        self.inner.put(value)
    }

    fn take(&mut self, key: PageKey) -> parquet::errors::Result<Bytes> {
        self.inner.take(key)
    }

    fn memory_size(&self) -> usize {
        self.inner.memory_size()
    }
}

/// An in-memory Parquet file whose `value` column is a copy of its `key` column's chunk.
pub(super) struct TwinWriter {
    file: SerializedFileWriter<Chunks>,
    factory: ArrowRowGroupWriterFactory,
    schema: SchemaRef,
    twins: Twins,
    key_leaf: usize,
    value_leaf: usize,
    /// The key leaf's pages of the row group in progress.
    kept: Arc<Mutex<Vec<Bytes>>>,
    /// Column writers of the row group in progress (the value leaf's stays unused) and its
    /// rows.
    group: Option<(Vec<ArrowColumnWriter>, usize)>,
    max_rows: Option<usize>,
}

impl TwinWriter {
    /// A writer for `schema` under `options`, or `None` when `twins` cannot be written once.
    pub(super) fn try_new(
        schema: SchemaRef,
        options: ArrowWriterOptions,
        props: &WriterProperties,
        twins: Twins,
    ) -> Result<Option<Self>> {
        let parquet = parquet::arrow::ArrowSchemaConverter::new()
            .with_coerce_types(props.coerce_types())
            .schema_root("paimon_schema")
            .convert(&schema)?;
        let Some((key_leaf, value_leaf)) = twin_leaves(&parquet, props, twins) else {
            return Ok(None);
        };
        let kept = Arc::new(Mutex::new(Vec::new()));
        let factory = Arc::new(KeepKeyPages {
            key_leaf,
            kept: kept.clone(),
        });
        // The file is written with the schema the leaves were found in.
        let options = options
            .with_parquet_schema(parquet)
            .with_page_store_factory(factory);
        let writer = ArrowWriter::try_new_with_options(Chunks::default(), schema.clone(), options)?;
        let (file, factory) = writer.into_serialized_writer()?;
        Ok(Some(TwinWriter {
            max_rows: props.max_row_group_row_count(),
            file,
            factory,
            schema,
            twins,
            key_leaf,
            value_leaf,
            kept,
            group: None,
        }))
    }

    /// Appends a batch of the file's schema, split at the row-group limit as `ArrowWriter`
    /// splits it.
    pub(super) fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        // The same buffers (the layout's clone of one array, sliced alike) or equal values.
        // Every writer builds `_KEY_<k>` from `<k>` (`KvLayout::file_batch`, compaction
        // included), so unequal columns are a bug, not data: refused rather than written.
        let (key, value) = (batch.column(self.twins.key), batch.column(self.twins.value));
        let (key, value) = (key.to_data(), value.to_data());
        if !key.ptr_eq(&value) && key != value {
            return Err(Error::data_invalid(format!(
                "primary-key column '{}' differs from its key column '{}'",
                self.schema.field(self.twins.value).name(),
                self.schema.field(self.twins.key).name()
            )));
        }
        self.write_rows(batch)
    }

    /// [`Self::write`] of a checked batch.
    fn write_rows(&mut self, batch: &RecordBatch) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        if self.group.is_none() {
            kept_pages(&self.kept)?.clear();
            let index = self.file.flushed_row_groups().len();
            self.group = Some((self.factory.create_column_writers(index)?, 0));
        }
        let buffered = self.group.as_ref().map_or(0, |g| g.1);
        if let Some(max) = self.max_rows {
            if buffered + batch.num_rows() > max {
                let fit = max - buffered;
                self.write_rows(&batch.slice(0, fit))?;
                return self.write_rows(&batch.slice(fit, batch.num_rows() - fit));
            }
        }
        let Some((writers, rows)) = self.group.as_mut() else {
            return Err(Error::internal("a Parquet row group was not started"));
        };
        let mut leaf = 0;
        for (i, (field, column)) in self.schema.fields().iter().zip(batch.columns()).enumerate() {
            if i == self.twins.value {
                // Its one leaf is the key leaf's copy.
                leaf += 1;
                continue;
            }
            for leaves in compute_leaves(field, column)? {
                let writer = writers
                    .get_mut(leaf)
                    .ok_or_else(|| Error::internal("a Parquet leaf has no writer"))?;
                writer.write(&leaves)?;
                leaf += 1;
            }
        }
        *rows += batch.num_rows();
        if self.max_rows.is_some_and(|max| *rows >= max) {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes the row group in progress.
    fn flush(&mut self) -> Result<()> {
        let Some((writers, _)) = self.group.take() else {
            return Ok(());
        };
        let value_descr = self.file.schema_descr().column(self.value_leaf);
        let mut key_close = None;
        let mut group = self.file.next_row_group()?;
        for (leaf, writer) in writers.into_iter().enumerate() {
            if leaf == self.value_leaf {
                let close = key_close
                    .take()
                    .ok_or_else(|| Error::internal("the key column chunk was not written"))?;
                let pages = std::mem::take(&mut *kept_pages(&self.kept)?);
                let close = retarget(close, value_descr.clone())?;
                group.append_column(&Bytes::from(pages.concat()), close)?;
                continue;
            }
            let chunk = writer.close()?;
            if leaf == self.key_leaf {
                if chunk.close().metadata.dictionary_page_offset().is_some() {
                    return Err(Error::internal("the key column chunk has a dictionary"));
                }
                key_close = Some(chunk.close().clone());
            }
            chunk.append_to_row_group(&mut group)?;
        }
        group.close()?;
        Ok(())
    }

    /// Bytes written plus the encoded size of the row group in progress (the copy included).
    pub(super) fn estimated_size(&self) -> u64 {
        let buffered: usize = self.group.as_ref().map_or(0, |(writers, _)| {
            let key = writers
                .get(self.key_leaf)
                .map_or(0, |w| w.get_estimated_total_bytes());
            writers
                .iter()
                .map(|w| w.get_estimated_total_bytes())
                .sum::<usize>()
                + key
        });
        (self.file.bytes_written() + buffered) as u64
    }

    /// The file's bytes written since the last call (flushed row groups), taken out.
    pub(super) fn take_written(&mut self) -> Vec<Bytes> {
        self.file.inner_mut().take()
    }

    /// Closes the file and returns its bytes not taken yet.
    pub(super) fn finish(mut self) -> Result<Chunks> {
        self.flush()?;
        Ok(self.file.into_inner()?)
    }
}

fn kept_pages(kept: &Mutex<Vec<Bytes>>) -> Result<std::sync::MutexGuard<'_, Vec<Bytes>>> {
    kept.lock()
        .map_err(|_| Error::internal("the key column's kept pages are poisoned"))
}

/// The key chunk's close result as the value column's: the same pages, sizes, statistics and
/// page indexes under `descr` (offsets still relative to the chunk's first page).
fn retarget(close: ColumnCloseResult, descr: Arc<ColumnDescriptor>) -> Result<ColumnCloseResult> {
    let m = &close.metadata;
    let mut b = ColumnChunkMetaData::builder(descr)
        .set_compression_codec(m.compression_codec())
        .set_encodings_mask(*m.encodings_mask())
        .set_total_compressed_size(m.compressed_size())
        .set_total_uncompressed_size(m.uncompressed_size())
        .set_num_values(m.num_values())
        .set_data_page_offset(m.data_page_offset())
        .set_dictionary_page_offset(m.dictionary_page_offset())
        .set_unencoded_byte_array_data_bytes(m.unencoded_byte_array_data_bytes())
        .set_repetition_level_histogram(m.repetition_level_histogram().cloned())
        .set_definition_level_histogram(m.definition_level_histogram().cloned());
    if let Some(s) = m.statistics() {
        b = b.set_statistics(s.clone());
    }
    if let Some(s) = m.page_encoding_stats() {
        b = b.set_page_encoding_stats(s.clone());
    }
    if let Some(s) = m.geo_statistics() {
        b = b.set_geo_statistics(Box::new(s.clone()));
    }
    Ok(ColumnCloseResult {
        metadata: b.build()?,
        ..close
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{ArrayRef, Int32Array, Int64Array, Int8Array, StringArray, StructArray};
    use arrow_schema::{DataType, Field, Fields, Schema};
    use parquet::file::properties::EnabledStatistics;
    use parquet::schema::types::ColumnPath;

    /// A primary-key file layout with a nested column between the key and its copy: leaves
    /// `_KEY_k`, `_SEQUENCE_NUMBER`, `_VALUE_KIND`, `r.a`, `r.b`, `k`, `s`.
    fn schema(key: DataType) -> SchemaRef {
        let r = Fields::from(vec![
            Field::new("a", DataType::Int32, true),
            Field::new("b", DataType::Utf8, true),
        ]);
        Arc::new(Schema::new(vec![
            Field::new("_KEY_k", key.clone(), false),
            Field::new("_SEQUENCE_NUMBER", DataType::Int64, false),
            Field::new("_VALUE_KIND", DataType::Int8, false),
            Field::new("r", DataType::Struct(r), true),
            Field::new("k", key, false),
            Field::new("s", DataType::Utf8, true),
        ]))
    }

    const TWINS: Twins = Twins { key: 0, value: 4 };

    fn batch(schema: &SchemaRef, from: i64, rows: i64) -> RecordBatch {
        let ids: Vec<i64> = (from..from + rows).map(|i| i * 3).collect();
        let key: ArrayRef = match schema.field(0).data_type() {
            DataType::Utf8 => Arc::new(StringArray::from_iter_values(
                ids.iter().map(|i| format!("key-{i:09}")),
            )),
            _ => Arc::new(Int64Array::from(ids.clone())),
        };
        let DataType::Struct(r) = schema.field(3).data_type() else {
            panic!("r is a struct");
        };
        let a: ArrayRef = Arc::new(Int32Array::from_iter(
            ids.iter().map(|i| (i % 5 != 0).then_some(*i as i32)),
        ));
        let b: ArrayRef = Arc::new(StringArray::from_iter(
            ids.iter()
                .map(|i| (i % 7 != 0).then(|| format!("b{}", i % 13))),
        ));
        let r = StructArray::new(r.clone(), vec![a, b], None);
        let s: StringArray = ids.iter().map(|i| Some(format!("s{}", i % 100))).collect();
        let seq: Vec<i64> = ids.iter().map(|i| (i * 7919) % 100_003).collect();
        RecordBatch::try_new(
            schema.clone(),
            vec![
                key.clone(),
                Arc::new(Int64Array::from(seq)),
                Arc::new(Int8Array::from(vec![0i8; ids.len()])),
                Arc::new(r),
                key,
                Arc::new(s),
            ],
        )
        .unwrap()
    }

    fn props(max_rows: usize) -> WriterProperties {
        let mut b = WriterProperties::builder();
        for name in ["_KEY_k", "_SEQUENCE_NUMBER", "k"] {
            b = b.set_column_dictionary_enabled(ColumnPath::new(vec![name.to_string()]), false);
        }
        b.set_compression(parquet::basic::Compression::ZSTD(Default::default()))
            .set_data_page_row_count_limit(20_000)
            .set_statistics_enabled(EnabledStatistics::Page)
            .set_max_row_group_row_count(Some(max_rows))
            .build()
    }

    fn options(props: &WriterProperties) -> ArrowWriterOptions {
        ArrowWriterOptions::new()
            .with_properties(props.clone())
            .with_skip_arrow_metadata(true)
            .with_schema_root("paimon_schema".to_string())
    }

    /// Writes `batches` with the twin writer and with `ArrowWriter` (both columns encoded).
    fn both(
        schema: &SchemaRef,
        props: &WriterProperties,
        batches: &[RecordBatch],
    ) -> (Vec<u8>, Vec<u8>) {
        let mut twin = TwinWriter::try_new(schema.clone(), options(props), props, TWINS)
            .unwrap()
            .expect("the key and its copy are written once");
        let mut arrow =
            ArrowWriter::try_new_with_options(Vec::new(), schema.clone(), options(props)).unwrap();
        for b in batches {
            twin.write(b).unwrap();
            arrow.write(b).unwrap();
            let want = (arrow.bytes_written() + arrow.in_progress_size()) as u64;
            assert_eq!(twin.estimated_size(), want);
        }
        (
            twin.finish().unwrap().into_vec(),
            arrow.into_inner().unwrap(),
        )
    }

    /// Several pages and row groups (batches split across them), integer and string keys:
    /// the file is byte for byte `ArrowWriter`'s.
    #[test]
    fn the_copied_chunk_gives_the_encoded_file_bytes() {
        for key in [DataType::Int64, DataType::Utf8] {
            let schema = schema(key.clone());
            let batches: Vec<RecordBatch> = [(0, 7), (7, 30_000), (30_007, 1), (30_008, 41_992)]
                .into_iter()
                .map(|(from, rows)| batch(&schema, from, rows))
                .collect();
            let (twin, arrow) = both(&schema, &props(25_000), &batches);
            assert!(twin == arrow, "{key}: files differ");
            let meta = parquet::file::reader::SerializedFileReader::new(Bytes::from(twin)).unwrap();
            use parquet::file::reader::FileReader;
            assert_eq!(meta.metadata().num_row_groups(), 3, "{key}");
            let group = meta.metadata().row_group(0);
            // Leaves: `_KEY_k`, `_SEQUENCE_NUMBER`, `_VALUE_KIND`, `r.a`, `r.b`, `k`, `s`.
            let (key, copy) = (group.column(0), group.column(5));
            assert_eq!(copy.column_path().string(), "k");
            assert_eq!(copy.compressed_size(), key.compressed_size());
            assert_ne!(copy.data_page_offset(), key.data_page_offset());
        }
    }

    /// The copy is only made from equal values: a batch whose key column differs is refused.
    #[test]
    fn a_key_column_unlike_its_copy_is_refused() {
        let schema = schema(DataType::Int64);
        let good = batch(&schema, 0, 10);
        let mut columns = good.columns().to_vec();
        columns[0] = Arc::new(Int64Array::from_iter_values(0..10));
        let bad = RecordBatch::try_new(schema.clone(), columns).unwrap();
        let props = props(1 << 20);
        let mut twin = TwinWriter::try_new(schema.clone(), options(&props), &props, TWINS)
            .unwrap()
            .unwrap();
        // Equal values in distinct arrays are fine.
        let mut copied = good.columns().to_vec();
        copied[4] = Arc::new(Int64Array::from(good.column(4).to_data()));
        twin.write(&RecordBatch::try_new(schema.clone(), copied).unwrap())
            .unwrap();
        let err = twin.write(&bad).unwrap_err().to_string();
        assert!(
            err.contains("'k' differs from its key column '_KEY_k'"),
            "{err}"
        );
    }

    /// Columns that would encode differently are both encoded: a nullable copy, a dictionary,
    /// a byte limit on row groups.
    #[test]
    fn columns_that_encode_differently_are_not_copied() {
        let nullable = {
            let s = schema(DataType::Int64);
            let mut fields: Vec<Field> = s.fields().iter().map(|f| f.as_ref().clone()).collect();
            fields[4] = fields[4].clone().with_nullable(true);
            Arc::new(Schema::new(fields))
        };
        let base = props(1 << 20);
        let dictionary = WriterProperties::builder()
            .set_column_dictionary_enabled(ColumnPath::new(vec!["_SEQUENCE_NUMBER".into()]), false)
            .build();
        let bytes_limit = WriterProperties::builder()
            .set_dictionary_enabled(false)
            .set_max_row_group_bytes(Some(1 << 20))
            .build();
        let cases = [
            (nullable, &base),
            (schema(DataType::Int64), &dictionary),
            (schema(DataType::Int64), &bytes_limit),
        ];
        for (i, (schema, props)) in cases.into_iter().enumerate() {
            let writer = TwinWriter::try_new(schema, options(props), props, TWINS).unwrap();
            assert!(writer.is_none(), "case {i}");
        }
    }
}
