//! Parquet files with INT96 timestamp leaves, as Java Paimon writes TIMESTAMP /
//! TIMESTAMP WITH LOCAL TIME ZONE of precision 7-9, at any depth (top level, ARRAY elements, MAP
//! keys and values, ROW fields, MULTISET elements).
//!
//! Java (`org.apache.paimon.format.parquet.ParquetSchemaConverter#createTimestampWithLogicalType`):
//! precision ≤ 3 → INT64 `TIMESTAMP_MILLIS`, ≤ 6 → INT64 `TIMESTAMP_MICROS`, else INT96 with no
//! annotation. The value (`ParquetRowDataWriter#timestampToInt96`) is 12 bytes little endian:
//! nanos of day (8 bytes) then the Julian day (4 bytes), computed from the epoch millisecond with
//! Java's truncating `/` and `%` (so before 1970 the day rounds toward the epoch and the nanos of
//! day are negative; readers add both parts, which gives the instant back). The instants Arrow
//! holds (i64 nanoseconds: 1677-09-21T00:12:43.145224192 to 2262-04-11T23:47:16.854775807) are
//! all representable; readers that convert INT96 to i64 nanoseconds read every one back.
//!
//! arrow-rs' `ArrowWriter` cannot write INT96 leaves, so such files are written with the
//! lower-level API: the `ArrowColumnWriter`s of an [`ArrowRowGroupWriterFactory`] for the other
//! leaves; each INT96 leaf's values and repetition / definition levels (those arrow-rs computes
//! for the same leaf, see [`super::parquet_levels`]) buffered per row group and encoded by a
//! `ColumnWriterImpl<Int96Type>` into a buffer, then spliced in schema order with
//! `SerializedRowGroupWriter::append_column`. The Parquet schema is the one arrow-rs writes for
//! the Arrow schema (3-level lists, `key_value` maps, field ids kept) with the nanosecond
//! leaves made INT96.
//!
//! Statistics of INT96 chunks are parquet-mr's (1.16, `ParquetMetadataConverter#
//! toParquetStatistics` / `#toParquetColumnIndex`; INT96 has an undefined column order and an
//! unknown sort order): the chunk statistics hold the null count (entries below the maximum
//! definition level, nested nulls and empty lists included); min and max (both the deprecated
//! and the new fields) only when every non-null value of the chunk is the same; no column
//! index; an offset index as for every column; no page-header statistics. Divergence: arrow-rs
//! also writes `is_{min,max}_value_exact`, which parquet-mr 1.16 leaves unset.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType as ArrowType, Schema, SchemaRef, TimeUnit};
use bytes::Bytes;
use parquet::arrow::arrow_writer::{
    compute_leaves, ArrowColumnWriter, ArrowRowGroupWriterFactory, ArrowWriterOptions,
};
use parquet::arrow::{ArrowSchemaConverter, ArrowWriter};
use parquet::basic::Type as PhysicalType;
use parquet::column::writer::{get_column_writer, get_typed_column_writer};
use parquet::data_type::{Int96, Int96Type};
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterPropertiesPtr};
use parquet::file::statistics::{Statistics, ValueStatistics};
use parquet::file::writer::{
    SerializedFileWriter, SerializedPageWriter, SerializedRowGroupWriter, TrackedWrite,
};
use parquet::schema::types::{ColumnDescPtr, SchemaDescriptor, Type, TypePtr};

use super::chunks::Chunks;
use super::parquet_levels::{append_leaf_levels, leaf_paths, LeafLevels, Step};
use crate::{Error, Result};

/// Julian day of 1970-01-01 (Java `JULIAN_EPOCH_OFFSET_DAYS`).
const JULIAN_EPOCH_OFFSET_DAYS: i64 = 2_440_588;
const MILLIS_IN_DAY: i64 = 86_400_000;
const NANOS_PER_MILLISECOND: i64 = 1_000_000;

/// The INT96 Java Paimon writes for the instant `nanos` nanoseconds after the epoch.
pub(crate) fn int96_of_nanos(nanos: i64) -> Int96 {
    // Paimon's `Timestamp`: floor millisecond plus nano-of-millisecond in 0..1_000_000.
    let millis = nanos.div_euclid(NANOS_PER_MILLISECOND);
    let nano_of_milli = nanos.rem_euclid(NANOS_PER_MILLISECOND);
    // Java's truncating division and remainder, kept for byte equality.
    let julian_day = millis / MILLIS_IN_DAY + JULIAN_EPOCH_OFFSET_DAYS;
    let nanos_of_day = (millis % MILLIS_IN_DAY) * NANOS_PER_MILLISECOND + nano_of_milli;
    let bits = nanos_of_day as u64;
    let mut out = Int96::new();
    // |julian_day| stays far below 2^31 for every i64 nanosecond instant.
    out.set_data(bits as u32, (bits >> 32) as u32, julian_day as i32 as u32);
    out
}

/// True when a leaf of Arrow type `t` is written as INT96.
pub(crate) fn is_int96(t: &ArrowType) -> bool {
    matches!(t, ArrowType::Timestamp(TimeUnit::Nanosecond, _))
}

/// True when `t` is or holds (at any depth) a nanosecond timestamp.
fn holds_int96(t: &ArrowType) -> bool {
    match t {
        ArrowType::List(f)
        | ArrowType::LargeList(f)
        | ArrowType::FixedSizeList(f, _)
        | ArrowType::ListView(f)
        | ArrowType::LargeListView(f)
        | ArrowType::Map(f, _) => holds_int96(f.data_type()),
        ArrowType::Struct(fs) => fs.iter().any(|f| holds_int96(f.data_type())),
        ArrowType::Dictionary(_, v) => holds_int96(v),
        ArrowType::RunEndEncoded(_, v) => holds_int96(v.data_type()),
        t => is_int96(t),
    }
}

/// True when a file of `schema` needs this writer (some leaf, at any depth, is INT96).
pub(crate) fn needs_int96(schema: &Schema) -> bool {
    schema.fields().iter().any(|f| holds_int96(f.data_type()))
}

/// The Parquet schema of `schema` (root `paimon_schema`) with INT96 for the nanosecond
/// timestamp leaves, and per Parquet leaf its path when it is INT96.
fn int96_schema(schema: &Schema) -> Result<(SchemaDescriptor, Vec<Option<Vec<Step>>>)> {
    let converted = ArrowSchemaConverter::new()
        .schema_root("paimon_schema")
        .convert(schema)?;
    let mut int96 = Vec::new();
    for f in schema.fields() {
        for (path, t) in leaf_paths(f.data_type())? {
            int96.push(is_int96(&t).then_some(path));
        }
    }
    if int96.len() != converted.num_columns() {
        return Err(Error::data_invalid(format!(
            "{} Arrow leaves for {} Parquet leaves",
            int96.len(),
            converted.num_columns()
        )));
    }
    let mut next = 0;
    let fields = converted
        .root_schema()
        .get_fields()
        .iter()
        .map(|t| with_int96_leaves(t, &int96, &mut next))
        .collect::<Result<Vec<_>>>()?;
    let root = Type::group_type_builder("paimon_schema")
        .with_fields(fields)
        .build()?;
    Ok((SchemaDescriptor::new(Arc::new(root)), int96))
}

/// `t` with its leaves numbered from `next` made INT96 where `int96` says so (name,
/// repetition and field id kept; groups rebuilt with their LIST / MAP annotations).
fn with_int96_leaves(
    t: &TypePtr,
    int96: &[Option<Vec<Step>>],
    next: &mut usize,
) -> Result<TypePtr> {
    let info = t.get_basic_info();
    if t.is_primitive() {
        let leaf = *next;
        *next += 1;
        if !int96.get(leaf).is_some_and(Option::is_some) {
            return Ok(t.clone());
        }
        if t.get_physical_type() != PhysicalType::INT64 {
            return Err(Error::data_invalid(format!(
                "Parquet leaf '{}' of a nanosecond timestamp is {}",
                info.name(),
                t.get_physical_type()
            )));
        }
        let mut b = Type::primitive_type_builder(info.name(), PhysicalType::INT96)
            .with_repetition(info.repetition());
        if info.has_id() {
            b = b.with_id(Some(info.id()));
        }
        return Ok(Arc::new(b.build()?));
    }
    let fields = t
        .get_fields()
        .iter()
        .map(|f| with_int96_leaves(f, int96, next))
        .collect::<Result<Vec<_>>>()?;
    let mut b = Type::group_type_builder(info.name())
        .with_converted_type(info.converted_type())
        .with_logical_type(info.logical_type_ref().cloned())
        .with_fields(fields);
    if info.has_repetition() {
        b = b.with_repetition(info.repetition());
    }
    if info.has_id() {
        b = b.with_id(Some(info.id()));
    }
    Ok(Arc::new(b.build()?))
}

/// The chunk statistics parquet-mr writes for INT96 values `values` and `nulls` nulls: the
/// null count, and min = max only when every value is the same.
fn int96_statistics(values: &[Int96], nulls: usize) -> Statistics {
    let nulls = u64::try_from(nulls).ok();
    let same = values.first().filter(|v| values.iter().all(|x| x == *v));
    match same {
        Some(v) => Statistics::Int96(
            ValueStatistics::new(Some(*v), Some(*v), None, nulls, false)
                .with_backwards_compatible_min_max(true),
        ),
        None => Statistics::int96(None, None, None, nulls, false),
    }
}

/// Encodes one INT96 leaf chunk and splices it into `rg`, with parquet-mr's statistics.
fn append_int96_chunk<W: std::io::Write + Send>(
    rg: &mut SerializedRowGroupWriter<'_, W>,
    descr: ColumnDescPtr,
    props: WriterPropertiesPtr,
    levels: &LeafLevels,
) -> Result<()> {
    let values: Vec<Int96> = levels.values.iter().map(|v| int96_of_nanos(*v)).collect();
    let defs = (descr.max_def_level() > 0).then_some(levels.defs.as_slice());
    let reps = (descr.max_rep_level() > 0).then_some(levels.reps.as_slice());
    let mut sink = TrackedWrite::new(Vec::new());
    let mut close = {
        let pages = Box::new(SerializedPageWriter::new(&mut sink));
        let mut w = get_typed_column_writer::<Int96Type>(get_column_writer(descr, props, pages));
        w.write_batch(&values, defs, reps)?;
        w.close()?
    };
    let bytes = Bytes::from(sink.into_inner()?);
    close.metadata = close
        .metadata
        .into_builder()
        .set_statistics(int96_statistics(&values, levels.nulls()))
        .build()?;
    close.column_index = None;
    rg.append_column(&bytes, close)?;
    Ok(())
}

/// The open row group: Arrow writers per leaf (those of INT96 leaves stay unused) and the
/// buffered levels of the INT96 leaves (by leaf index).
struct RowGroup {
    writers: Vec<ArrowColumnWriter>,
    int96: Vec<Option<LeafLevels>>,
    rows: usize,
}

/// An in-memory Parquet file whose TIMESTAMP(7-9) leaves are INT96.
pub(crate) struct Int96FileWriter {
    file: SerializedFileWriter<Chunks>,
    factory: ArrowRowGroupWriterFactory,
    schema: SchemaRef,
    descr: Arc<SchemaDescriptor>,
    /// The properties of the INT96 leaves (statistics off: set from the values).
    props: WriterPropertiesPtr,
    /// First leaf of each top-level column, plus the leaf count at the end.
    first_leaf: Vec<usize>,
    /// Per leaf: its path from the top-level field when it is INT96.
    int96: Vec<Option<Vec<Step>>>,
    max_rows: usize,
    group: Option<RowGroup>,
}

impl Int96FileWriter {
    /// A new file of `schema` (from `parquet_schema`) with `props` (the module's settings).
    pub(crate) fn new(schema: SchemaRef, props: WriterProperties) -> Result<Self> {
        let (descr, int96) = int96_schema(&schema)?;
        let mut first_leaf = vec![0usize; schema.fields().len() + 1];
        for leaf in 0..descr.num_columns() {
            if let Some(n) = first_leaf.get_mut(descr.get_column_root_idx(leaf) + 1) {
                *n += 1;
            }
        }
        for i in 1..first_leaf.len() {
            first_leaf[i] += first_leaf[i - 1];
        }
        let mut b = props.into_builder();
        for (leaf, path) in int96.iter().enumerate() {
            if path.is_some() {
                let column = descr.column(leaf).path().clone();
                b = b.set_column_statistics_enabled(column, EnabledStatistics::None);
            }
        }
        let props = b.build();
        let max_rows = props
            .max_row_group_row_count()
            .unwrap_or(parquet::file::properties::DEFAULT_MAX_ROW_GROUP_ROW_COUNT);
        let descr = Arc::new(descr);
        let opts = ArrowWriterOptions::new()
            .with_properties(props.clone())
            .with_skip_arrow_metadata(true)
            .with_parquet_schema(descr.as_ref().clone());
        let (file, factory) =
            ArrowWriter::try_new_with_options(Chunks::default(), schema.clone(), opts)?
                .into_serialized_writer()?;
        Ok(Int96FileWriter {
            file,
            factory,
            schema,
            descr,
            props: Arc::new(props),
            first_leaf,
            int96,
            max_rows,
            group: None,
        })
    }

    fn open_group(&mut self) -> Result<&mut RowGroup> {
        if self.group.is_none() {
            let index = self.file.flushed_row_groups().len();
            let int96 = self
                .int96
                .iter()
                .map(|p| p.as_ref().map(|_| LeafLevels::default()))
                .collect();
            self.group = Some(RowGroup {
                writers: self.factory.create_column_writers(index)?,
                int96,
                rows: 0,
            });
        }
        self.group
            .as_mut()
            .ok_or_else(|| Error::data_invalid("parquet row group not open"))
    }

    /// Appends `batch` (the file's schema), closing row groups at the row-count limit.
    pub(crate) fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let mut offset = 0;
        while offset < batch.num_rows() {
            let room = self.max_rows - self.group.as_ref().map_or(0, |g| g.rows);
            let n = room.min(batch.num_rows() - offset);
            self.write_slice(&batch.slice(offset, n))?;
            offset += n;
            if self.group.as_ref().is_some_and(|g| g.rows >= self.max_rows) {
                self.flush()?;
            }
        }
        Ok(())
    }

    fn write_slice(&mut self, batch: &RecordBatch) -> Result<()> {
        let schema = self.schema.clone();
        let first_leaf = self.first_leaf.clone();
        let paths = self.int96.clone();
        let group = self.open_group()?;
        let mismatch = || Error::data_invalid("parquet leaf writers do not match the schema");
        for (i, (field, column)) in schema.fields().iter().zip(batch.columns()).enumerate() {
            let (first, end) = (first_leaf[i], first_leaf[i + 1]);
            let leaves = compute_leaves(field, column)?;
            if leaves.len() != end - first {
                return Err(mismatch());
            }
            for (leaf, arrow_leaf) in (first..end).zip(leaves) {
                match (group.int96.get_mut(leaf), paths.get(leaf)) {
                    (Some(Some(levels)), Some(Some(path))) => {
                        append_leaf_levels(field, column.as_ref(), path, levels)?
                    }
                    _ => group
                        .writers
                        .get_mut(leaf)
                        .ok_or_else(mismatch)?
                        .write(&arrow_leaf)?,
                }
            }
        }
        group.rows += batch.num_rows();
        Ok(())
    }

    /// Writes the open row group (if any) to the file.
    fn flush(&mut self) -> Result<()> {
        let Some(group) = self.group.take() else {
            return Ok(());
        };
        let mut rg = self.file.next_row_group()?;
        let leaves = group.writers.into_iter().zip(group.int96).enumerate();
        for (leaf, (writer, int96)) in leaves {
            match int96 {
                None => writer.close()?.append_to_row_group(&mut rg)?,
                Some(levels) => {
                    drop(writer); // the unused Arrow writer of the INT96 leaf
                    let descr = self.descr.column(leaf);
                    append_int96_chunk(&mut rg, descr, self.props.clone(), &levels)?;
                }
            }
        }
        rg.close()?;
        Ok(())
    }

    /// Bytes written plus buffered.
    pub(crate) fn estimated_size(&self) -> u64 {
        let buffered = self.group.as_ref().map_or(0, |g| {
            let arrow: usize = g
                .writers
                .iter()
                .map(|w| w.get_estimated_total_bytes())
                .sum();
            let int96: usize = g
                .int96
                .iter()
                .flatten()
                .map(|c| c.values.len() * 12 + c.defs.len() / 2)
                .sum();
            arrow + int96
        });
        (self.file.bytes_written() + buffered) as u64
    }

    /// The file's bytes written since the last call (flushed row groups), taken out.
    pub(crate) fn take_written(&mut self) -> Vec<Bytes> {
        self.file.inner_mut().take()
    }

    /// Closes the file and returns its bytes not taken yet.
    pub(crate) fn finish(mut self) -> Result<Chunks> {
        self.flush()?;
        Ok(self.file.into_inner()?)
    }
}

#[cfg(test)]
mod tests;
