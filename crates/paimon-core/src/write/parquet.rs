//! Parquet data files as Java Paimon writes them (`RowDataParquetBuilder`, parquet-mr 1.16):
//! root `paimon_schema`, Paimon field ids as Parquet field ids (list elements and map
//! keys/values by the `SpecialFields` formulas), NOT NULL as `required`, writer version 1.0,
//! dictionary on (`parquet.enable.dictionary`), column and offset indexes (page statistics),
//! pages of 1 MiB / 20 000 rows (`parquet.page.size` / `parquet.page.row.count.limit`),
//! column-index bounds truncated at 64 bytes, footer statistics untruncated, no Arrow schema in
//! the key-value metadata. Compression from `file.compression` (zstd level
//! `file.compression.zstd-level`).
//!
//! TIMESTAMP / TIMESTAMP_LTZ of precision 7-9 are INT96 as in Java, at any depth (see
//! `parquet_int96`; such files are written by its lower-level writer, with parquet-mr's
//! statistics for the INT96 leaves, whose sort order Parquet leaves undefined: null counts,
//! no column index).
//!
//! Divergence (encoding only, any reader decodes both): columns that hold one distinct value
//! per row of a primary-key file are written without a dictionary: `_SEQUENCE_NUMBER`, and
//! with a one-column trimmed key its `_KEY_<k>` and `<k>` columns (a file holds each key once).
//! parquet-mr builds their dictionary until it reaches its size limit and falls back to plain
//! pages; building it costed a tenth of a primary-key write for nothing. The `<k>` chunk of
//! such a one-column key is the `_KEY_<k>` chunk's pages again, encoded once (`parquet_twin`).
//!
//! Divergence (encoding only): `_SEQUENCE_NUMBER` is written `DELTA_BINARY_PACKED`, not
//! PLAIN. Sorted by key, a file's sequence numbers are scattered 8-byte integers whose high
//! bytes are zero: PLAIN pages give zstd a short match every few bytes, and compressing them
//! took longer than any other column of a primary-key write (~19 ms per 375K rows at level 1,
//! against ~7 ms for the delta-packed values, which are also smaller). Every reader decodes
//! the encoding: parquet-mr, Java Paimon's vectorized reader (`VectorizedDeltaBinaryPackedReader`),
//! Arrow C++ (pypaimon, paimon-cpp) and arrow-rs; our point reads pick from it too
//! (`read::point_pages`). Key and value columns keep Java's encodings.
//!
//! Like parquet-mr, a column whose first page does not shrink under its dictionary is written
//! plain (`FallbackValuesWriter`'s first-page check); the writer decides it from the file's
//! first page of rows, held until they are in (`parquet_dictionary`), since arrow-rs would
//! only fall back once the dictionary reaches its size limit.
//!
//! The writer encodes into memory: the row group in progress, and the bytes of flushed row
//! groups until the caller takes them ([`ParquetWriter::take_written`]) to stream the file
//! out as it grows.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{make_array, ArrayRef, RecordBatch};
use arrow_data::ArrayData;
use arrow_schema::{DataType as ArrowType, Field, Fields, Schema, SchemaRef};
use bytes::Bytes;
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding, GzipLevel, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use parquet::schema::types::ColumnPath;

use super::chunks::Chunks;
use super::parquet_dictionary::plain_columns;
use super::parquet_int96::{needs_int96, Int96FileWriter};
use super::parquet_twin::{TwinWriter, Twins};

use crate::arrow::schema::FIELD_ID_KEY;
use crate::spec::options::TableOptions;
use crate::spec::special_fields::SEQUENCE_NUMBER;
use crate::spec::types::{DataField, DataType, TypeKind};
use crate::{Error, Result};

/// First id of list elements and map values (`SpecialFields`: `536870911 + 1024·id + depth`).
const NESTED_ID_BASE: i64 = 536_870_911;

/// An open Parquet file being written into memory.
pub(crate) struct ParquetWriter {
    writer: Inner,
    schema: SchemaRef,
    /// Boxed: the options are large and only read when the writer starts.
    options: Box<TableOptions>,
}

/// `ArrowWriter`, or the INT96-capable writer when some column is TIMESTAMP(7-9); before
/// them, the first page's worth of batches, held until the dictionary check has its rows
/// (see `parquet_dictionary`).
enum Inner {
    Pending {
        batches: Vec<RecordBatch>,
        rows: usize,
        /// Arrow bytes of the held rows (their slices, not the buffers they share).
        bytes: usize,
    },
    Arrow(ArrowWriter<Chunks>),
    /// A one-column key encoded once (`parquet_twin`).
    Twin(Box<TwinWriter>),
    Int96(Int96FileWriter),
}

impl std::fmt::Debug for ParquetWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetWriter").finish_non_exhaustive()
    }
}

/// The Parquet codec of `file.compression` (Java's names).
fn compression(options: &TableOptions) -> Result<Compression> {
    let name = options.file_compression.trim().to_ascii_lowercase();
    Ok(match name.as_str() {
        "zstd" => Compression::ZSTD(ZstdLevel::try_new(options.file_compression_zstd_level)?),
        "none" | "uncompressed" => Compression::UNCOMPRESSED,
        "snappy" => Compression::SNAPPY,
        "lz4" => Compression::LZ4_RAW,
        "gzip" => Compression::GZIP(GzipLevel::default()),
        "brotli" => Compression::BROTLI(Default::default()),
        _ => {
            return Err(Error::unsupported(format!(
                "file.compression '{}' is not supported for Parquet",
                options.file_compression
            ))
            .with_context("option", "file.compression"))
        }
    })
}

/// Name prefix of the key columns of primary-key files.
const KEY_PREFIX: &str = "_KEY_";

/// The top-level columns of `schema` that hold one distinct value per row when it is a
/// primary-key file's schema: `_SEQUENCE_NUMBER`, and a one-column key's `_KEY_<k>` and `<k>`
/// (user columns cannot start with `_KEY_` nor be named `_SEQUENCE_NUMBER`).
fn unique_columns(schema: &Schema) -> Vec<String> {
    let names: Vec<&String> = schema.fields().iter().map(|f| f.name()).collect();
    let mut unique = Vec::new();
    if !names.iter().any(|n| *n == SEQUENCE_NUMBER) {
        return unique;
    }
    unique.push(SEQUENCE_NUMBER.to_string());
    let keys: Vec<&String> = names
        .iter()
        .copied()
        .filter(|n| n.starts_with(KEY_PREFIX))
        .collect();
    if let [key] = keys.as_slice() {
        unique.push(key.to_string());
        let value = &key[KEY_PREFIX.len()..];
        if names.iter().any(|n| *n == value) {
            unique.push(value.to_string());
        }
    }
    unique
}

/// A primary-key file's one-column key as its `_KEY_<k>` and `<k>` columns (see
/// `parquet_twin`).
fn twin_columns(schema: &Schema) -> Option<Twins> {
    let unique = unique_columns(schema);
    let [_, key, value] = unique.as_slice() else {
        return None;
    };
    Some(Twins {
        key: schema.index_of(key).ok()?,
        value: schema.index_of(value).ok()?,
    })
}

/// The writer's properties; the columns of `schema` in `plain` are written without dictionary.
fn properties(
    options: &TableOptions,
    schema: &Schema,
    plain: &[String],
) -> Result<WriterProperties> {
    let mut b = WriterProperties::builder();
    let unique = unique_columns(schema);
    // Present in every primary-key file (the first of its unique columns).
    if unique.iter().any(|n| n == SEQUENCE_NUMBER) {
        let path = ColumnPath::new(vec![SEQUENCE_NUMBER.to_string()]);
        b = b.set_column_encoding(path, Encoding::DELTA_BINARY_PACKED);
    }
    for name in unique.into_iter().chain(plain.iter().cloned()) {
        b = b.set_column_dictionary_enabled(ColumnPath::new(vec![name]), false);
    }
    Ok(b.set_writer_version(WriterVersion::PARQUET_1_0)
        .set_compression(compression(options)?)
        .set_dictionary_enabled(options.parquet_enable_dictionary)
        .set_dictionary_page_size_limit(1 << 20)
        .set_data_page_size_limit(options.parquet_page_size)
        .set_data_page_row_count_limit(options.parquet_page_row_count_limit)
        .set_statistics_enabled(EnabledStatistics::Page)
        .set_column_index_truncate_length(Some(64))
        .set_statistics_truncate_length(None)
        .set_created_by("paimon-rs".to_string())
        .build())
}

fn with_id(field: Field, id: i64) -> Field {
    let metadata = HashMap::from([(FIELD_ID_KEY.to_string(), id.to_string())]);
    field.with_metadata(metadata)
}

/// `field` (of Paimon type `t`, owned by the column or ROW sub-field with id `owner`, `depth`
/// levels below it) with the Parquet field ids Java writes on nested elements, keys and values.
fn nested_ids(field: Field, t: &DataType, owner: i32, depth: i64) -> Field {
    let owner64 = i64::from(owner);
    let value_id = NESTED_ID_BASE + 1024 * owner64 + depth;
    let key_id = NESTED_ID_BASE - 1024 * owner64 - depth;
    // A MULTISET<T> is a MAP<T, INT NOT NULL> (Java `ParquetSchemaConverter`).
    let count = DataType::not_null(TypeKind::Int);
    let data_type = match (&t.kind, field.data_type()) {
        (TypeKind::Array(e), ArrowType::List(inner)) => {
            let inner = nested_ids(inner.as_ref().clone(), e, owner, depth + 1);
            ArrowType::List(Arc::new(with_id(inner, value_id)))
        }
        (TypeKind::Map(_, _) | TypeKind::Multiset(_), ArrowType::Map(entries, sorted)) => {
            let (k, v) = match &t.kind {
                TypeKind::Map(k, v) => (k.as_ref(), v.as_ref()),
                TypeKind::Multiset(e) => (e.as_ref(), &count),
                _ => return field,
            };
            let ArrowType::Struct(kv) = entries.data_type() else {
                return field;
            };
            let (Some(kf), Some(vf)) = (kv.first(), kv.get(1)) else {
                return field;
            };
            let kf = with_id(nested_ids(kf.as_ref().clone(), k, owner, depth + 1), key_id);
            let vf = with_id(
                nested_ids(vf.as_ref().clone(), v, owner, depth + 1),
                value_id,
            );
            let entries = entries
                .as_ref()
                .clone()
                .with_data_type(ArrowType::Struct(Fields::from(vec![kf, vf])));
            ArrowType::Map(Arc::new(entries), *sorted)
        }
        (TypeKind::Row(sub), ArrowType::Struct(fs)) => {
            let fs: Vec<Field> = fs
                .iter()
                .zip(sub)
                .map(|(f, s)| nested_ids(f.as_ref().clone(), &s.data_type, s.id, 1))
                .collect();
            ArrowType::Struct(Fields::from(fs))
        }
        _ => return field,
    };
    field.with_data_type(data_type)
}

/// The Arrow schema a Parquet file of `fields` is written with: `arrow` (the fields' Arrow
/// schema, top-level ids already set) plus the nested ids.
pub(crate) fn parquet_schema(arrow: &Schema, fields: &[DataField]) -> SchemaRef {
    let out: Vec<Field> = arrow
        .fields()
        .iter()
        .zip(fields)
        .map(|(f, p)| nested_ids(f.as_ref().clone(), &p.data_type, p.id, 1))
        .collect();
    Arc::new(Schema::new(out))
}

/// `data` with nested field metadata taken from `to` (the same type up to metadata).
pub(super) fn retype(data: ArrayData, to: &ArrowType) -> Result<ArrayData> {
    let child_types: Vec<&ArrowType> = match to {
        ArrowType::List(f) | ArrowType::Map(f, _) => vec![f.data_type()],
        ArrowType::Struct(fs) => fs.iter().map(|f| f.data_type()).collect(),
        _ => return Ok(data),
    };
    let children = data
        .child_data()
        .iter()
        .zip(child_types)
        .map(|(c, t)| retype(c.clone(), t))
        .collect::<Result<Vec<_>>>()?;
    Ok(data
        .into_builder()
        .data_type(to.clone())
        .child_data(children)
        .build()?)
}

impl ParquetWriter {
    /// A new in-memory file with `schema` (from [`parquet_schema`]).
    pub(crate) fn new(schema: SchemaRef, options: &TableOptions) -> Result<Self> {
        // Properties are checked now (an unknown codec fails at open, not at the first page).
        properties(options, &schema, &[])?;
        Ok(ParquetWriter {
            writer: Inner::Pending {
                batches: Vec::new(),
                rows: 0,
                bytes: 0,
            },
            schema,
            options: Box::new(options.clone()),
        })
    }

    /// The format writer, configured by the first page's rows (`batches`).
    fn start(&self, batches: &[RecordBatch]) -> Result<Inner> {
        let mut plain = Vec::new();
        if self.options.parquet_enable_dictionary {
            let skip = unique_columns(&self.schema);
            plain = plain_columns(
                batches,
                self.options.parquet_page_row_count_limit,
                self.options.parquet_page_size,
                &skip,
            );
        }
        let props = properties(&self.options, &self.schema, &plain)?;
        let mut inner = if needs_int96(&self.schema) {
            Inner::Int96(Int96FileWriter::new(self.schema.clone(), props)?)
        } else {
            let opts = || {
                ArrowWriterOptions::new()
                    .with_properties(props.clone())
                    .with_skip_arrow_metadata(true)
                    .with_schema_root("paimon_schema".to_string())
            };
            let twin = match twin_columns(&self.schema) {
                Some(twins) => TwinWriter::try_new(self.schema.clone(), opts(), &props, twins)?,
                None => None,
            };
            match twin {
                Some(writer) => Inner::Twin(Box::new(writer)),
                None => Inner::Arrow(ArrowWriter::try_new_with_options(
                    Chunks::default(),
                    self.schema.clone(),
                    opts(),
                )?),
            }
        };
        for b in batches {
            inner.write(b)?;
        }
        Ok(inner)
    }

    /// Appends a batch whose columns match the file's schema up to nested field metadata.
    pub(crate) fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let columns = batch
            .columns()
            .iter()
            .zip(self.schema.fields())
            .map(|(c, f)| match c.data_type() == f.data_type() {
                true => Ok(c.clone()),
                false => Ok(make_array(retype(c.to_data(), f.data_type())?)),
            })
            .collect::<Result<Vec<ArrayRef>>>()?;
        let batch = RecordBatch::try_new(self.schema.clone(), columns)?;
        if let Inner::Pending {
            batches,
            rows,
            bytes,
        } = &mut self.writer
        {
            *rows += batch.num_rows();
            *bytes += batch
                .columns()
                .iter()
                .map(|c| c.to_data().get_slice_memory_size().unwrap_or(0))
                .sum::<usize>();
            batches.push(batch);
            // A page's rows, or (wide values) a page's bytes per column: memory stays bounded.
            let page_bytes = self.options.parquet_page_size * self.schema.fields().len().max(1);
            if *rows >= self.options.parquet_page_row_count_limit || *bytes >= page_bytes {
                let batches = std::mem::take(batches);
                self.writer = self.start(&batches)?;
            }
            return Ok(());
        }
        self.writer.write(&batch)
    }

    /// Bytes written plus buffered (Java `reachTargetSize` compares this with the target).
    pub(crate) fn estimated_size(&self) -> u64 {
        match &self.writer {
            Inner::Pending { bytes, .. } => *bytes as u64,
            Inner::Arrow(w) => (w.bytes_written() + w.in_progress_size()) as u64,
            Inner::Twin(w) => w.estimated_size(),
            Inner::Int96(w) => w.estimated_size(),
        }
    }

    /// The file's bytes complete so far (its flushed row groups) and not taken yet, taken
    /// out: the writer keeps only the row group in progress, and [`Self::finish`] returns
    /// the rest.
    pub(crate) fn take_written(&mut self) -> Vec<Bytes> {
        match &mut self.writer {
            Inner::Pending { .. } => Vec::new(),
            Inner::Arrow(w) => w.inner_mut().take(),
            Inner::Twin(w) => w.take_written(),
            Inner::Int96(w) => w.take_written(),
        }
    }

    /// Closes the file and returns its bytes not taken by [`Self::take_written`].
    pub(crate) fn finish(mut self) -> Result<Chunks> {
        if let Inner::Pending { batches, .. } = &mut self.writer {
            // A file smaller than a page: its rows are the first page.
            let batches = std::mem::take(batches);
            self.writer = self.start(&batches)?;
        }
        match self.writer {
            Inner::Pending { .. } => Err(Error::internal("a Parquet writer was never started")),
            Inner::Arrow(w) => Ok(w.into_inner()?),
            Inner::Twin(w) => w.finish(),
            Inner::Int96(w) => w.finish(),
        }
    }
}

impl Inner {
    fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        match self {
            Inner::Pending { .. } => return Err(Error::internal("a Parquet writer not started")),
            Inner::Arrow(w) => w.write(batch)?,
            Inner::Twin(w) => w.write(batch)?,
            Inner::Int96(w) => w.write(batch)?,
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Int64Array, Int8Array, StringArray};
    use bytes::Bytes;
    use parquet::file::reader::{FileReader, SerializedFileReader};

    /// A primary-key file's columns: `_KEY_id`, `_SEQUENCE_NUMBER`, `_VALUE_KIND`, `id`, `s`.
    fn pk_batch() -> RecordBatch {
        let ids: Vec<i64> = (0..5000).collect();
        let schema = Arc::new(Schema::new(vec![
            Field::new("_KEY_id", ArrowType::Int64, false),
            Field::new("_SEQUENCE_NUMBER", ArrowType::Int64, false),
            Field::new("_VALUE_KIND", ArrowType::Int8, false),
            Field::new("id", ArrowType::Int64, false),
            Field::new("s", ArrowType::Utf8, true),
        ]));
        let s: StringArray = ids.iter().map(|i| Some(format!("s{}", i % 10))).collect();
        RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int64Array::from(ids.clone())),
                Arc::new(Int64Array::from(ids.clone())),
                Arc::new(Int8Array::from(vec![0; ids.len()])),
                Arc::new(Int64Array::from(ids)),
                Arc::new(s),
            ],
        )
        .unwrap()
    }

    /// Per column of the written file: (name, has a dictionary page).
    fn dictionaries(batch: &RecordBatch, options: &[(&str, &str)]) -> Vec<(String, bool)> {
        let map: HashMap<String, String> = options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let options = TableOptions::from_map(&map).unwrap();
        let mut w = ParquetWriter::new(batch.schema(), &options).unwrap();
        w.write(batch).unwrap();
        let bytes = Bytes::from(w.finish().unwrap().into_vec());
        let reader = SerializedFileReader::new(bytes).unwrap();
        let group = reader.metadata().row_group(0);
        group
            .columns()
            .iter()
            .map(|c| {
                let name = c.column_path().string();
                (name, c.dictionary_page_offset().is_some())
            })
            .collect()
    }

    #[test]
    fn unique_columns_of_primary_key_files_have_no_dictionary() {
        let got = dictionaries(&pk_batch(), &[]);
        let want = [
            ("_KEY_id", false),
            ("_SEQUENCE_NUMBER", false),
            ("_VALUE_KIND", true),
            ("id", false),
            ("s", true),
        ];
        let want: Vec<(String, bool)> = want.iter().map(|(n, d)| (n.to_string(), *d)).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn sequence_numbers_are_delta_packed_and_read_back() {
        // Scattered sequence numbers, as a file sorted by key holds them.
        let batch = pk_batch();
        let seq: Int64Array = (0..5000i64).map(|i| Some((i * 7919) % 5003 + 1)).collect();
        let mut columns = batch.columns().to_vec();
        columns[1] = Arc::new(seq.clone());
        let batch = RecordBatch::try_new(batch.schema(), columns).unwrap();
        let options = TableOptions::from_map(&HashMap::new()).unwrap();
        let mut w = ParquetWriter::new(batch.schema(), &options).unwrap();
        w.write(&batch).unwrap();
        let bytes = Bytes::from(w.finish().unwrap().into_vec());
        let reader = SerializedFileReader::new(bytes.clone()).unwrap();
        for c in reader.metadata().row_group(0).columns() {
            let name = c.column_path().string();
            let delta = c.encodings().any(|e| e == Encoding::DELTA_BINARY_PACKED);
            assert_eq!(
                delta,
                name == "_SEQUENCE_NUMBER",
                "{name}: {:?}",
                c.encodings().collect::<Vec<_>>()
            );
        }
        let back = parquet::arrow::arrow_reader::ParquetRecordBatchReader::try_new(bytes, 8192)
            .unwrap()
            .collect::<std::result::Result<Vec<_>, _>>()
            .unwrap();
        let back = arrow_select::concat::concat_batches(&back[0].schema(), &back).unwrap();
        assert_eq!(back.column(1).as_ref(), &seq as &dyn arrow_array::Array);
        assert_eq!(back.column(0).as_ref(), batch.column(0).as_ref());
    }

    /// parquet-mr's first-page check (`parquet_dictionary`): columns of an append file whose
    /// first page does not shrink under a dictionary are written plain, the others keep it; the
    /// file, written in batches of several sizes, reads back equal.
    #[test]
    fn columns_whose_first_page_does_not_shrink_are_plain() {
        let n = 50_000i64;
        let schema = Arc::new(Schema::new(vec![
            Field::new("unique", ArrowType::Int64, false),
            Field::new("names", ArrowType::Utf8, true),
            Field::new("few", ArrowType::Utf8, true),
        ]));
        let names: StringArray = (0..n).map(|i| Some(format!("name-{i}"))).collect();
        let few: StringArray = (0..n)
            .map(|i| (i % 7 != 0).then(|| format!("v{}", i % 50)))
            .collect();
        let all = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(Int64Array::from_iter_values((0..n).map(|i| i * 7919 % n))),
                Arc::new(names),
                Arc::new(few),
            ],
        )
        .unwrap();
        let options = TableOptions::from_map(&HashMap::new()).unwrap();
        let mut w = ParquetWriter::new(schema, &options).unwrap();
        let mut offset = 0;
        for len in [10, 3000, 20_000, 1, 26_989] {
            w.write(&all.slice(offset, len)).unwrap();
            offset += len;
        }
        assert_eq!(offset, n as usize);
        let bytes = Bytes::from(w.finish().unwrap().into_vec());
        let reader = SerializedFileReader::new(bytes.clone()).unwrap();
        let dictionaries: Vec<bool> = reader
            .metadata()
            .row_group(0)
            .columns()
            .iter()
            .map(|c| c.dictionary_page_offset().is_some())
            .collect();
        assert_eq!(dictionaries, vec![false, false, true]);
        let read: Vec<RecordBatch> =
            parquet::arrow::arrow_reader::ParquetRecordBatchReader::try_new(bytes, 8192)
                .unwrap()
                .collect::<std::result::Result<_, _>>()
                .unwrap();
        let read = arrow_select::concat::concat_batches(&read[0].schema(), &read).unwrap();
        assert_eq!(read.columns(), all.columns());
    }

    #[test]
    fn dictionary_follows_parquet_enable_dictionary() {
        for (value, on) in [
            ("false", false),
            ("FALSE", false),
            ("TRUE", true),
            ("x", false),
        ] {
            let got = dictionaries(&pk_batch(), &[("parquet.enable.dictionary", value)]);
            let s = got.iter().find(|(n, _)| n == "s").unwrap();
            assert_eq!(s.1, on, "parquet.enable.dictionary = {value}");
        }
    }

    #[test]
    fn composite_keys_and_append_files_keep_their_dictionaries() {
        let fields = |names: &[&str]| {
            Schema::new(
                names
                    .iter()
                    .map(|n| Field::new(*n, ArrowType::Int64, false))
                    .collect::<Vec<_>>(),
            )
        };
        let composite = fields(&["_KEY_a", "_KEY_b", "_SEQUENCE_NUMBER", "a", "b"]);
        assert_eq!(unique_columns(&composite), vec!["_SEQUENCE_NUMBER"]);
        assert!(unique_columns(&fields(&["_KEY_a", "a", "b"])).is_empty());
        let thin = fields(&["_SEQUENCE_NUMBER", "_VALUE_KIND", "a"]);
        assert_eq!(unique_columns(&thin), vec!["_SEQUENCE_NUMBER"]);
    }

    /// A MULTISET<T> is a MAP<T, INT NOT NULL> for Java's `ParquetSchemaConverter`: its key and
    /// value get `SpecialFields#getMapKeyFieldId` / `getMapValueFieldId(id, 1)`.
    #[test]
    fn multiset_keys_and_values_get_map_field_ids() {
        let element = DataType::not_null(TypeKind::VarChar(crate::spec::types::MAX_LENGTH));
        let fields = vec![DataField::new(
            10,
            "ms",
            DataType::nullable(TypeKind::Multiset(Box::new(element))),
        )];
        let arrow = crate::arrow::schema::arrow_schema(&fields).unwrap();
        let schema = parquet_schema(&arrow, &fields);
        let ArrowType::Map(entries, _) = schema.field(0).data_type() else {
            panic!("{schema:?}");
        };
        let ArrowType::Struct(kv) = entries.data_type() else {
            panic!("{schema:?}");
        };
        let id = |f: &Field| f.metadata().get(FIELD_ID_KEY).cloned();
        // 536870911 - 1024 * 10 - 1 and 536870911 + 1024 * 10 + 1
        assert_eq!(id(&kv[0]).as_deref(), Some("536860670"));
        assert_eq!(id(&kv[1]).as_deref(), Some("536881152"));
        assert_eq!(id(schema.field(0)).as_deref(), Some("10"));
    }
}
