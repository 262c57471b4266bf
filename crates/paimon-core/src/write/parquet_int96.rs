//! Parquet files with INT96 timestamp columns, as Java Paimon writes TIMESTAMP /
//! TIMESTAMP WITH LOCAL TIME ZONE of precision 7-9.
//!
//! Java (`org.apache.paimon.format.parquet.ParquetSchemaConverter#createTimestampWithLogicalType`):
//! precision ≤ 3 → INT64 `TIMESTAMP_MILLIS`, ≤ 6 → INT64 `TIMESTAMP_MICROS`, else INT96 with no
//! annotation. The value (`ParquetRowDataWriter#timestampToInt96`) is 12 bytes little endian:
//! nanos of day (8 bytes) then the Julian day (4 bytes), computed from the epoch millisecond with
//! Java's truncating `/` and `%` (so before 1970 the day rounds toward the epoch and the nanos of
//! day are negative; readers add both parts, which gives the instant back).
//!
//! arrow-rs' `ArrowWriter` cannot write INT96 leaves, so such files are written with the
//! lower-level API: the `ArrowColumnWriter`s of an [`ArrowRowGroupWriterFactory`] for the other
//! columns, the INT96 columns buffered per row group and written with
//! `SerializedRowGroupWriter::next_column` in schema order. Only top-level columns may be
//! INT96; a TIMESTAMP(7-9) inside ARRAY / MAP / ROW is refused (`Unsupported`).

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::TimestampNanosecondType;
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType as ArrowType, Schema, SchemaRef, TimeUnit};
use parquet::arrow::arrow_writer::{
    compute_leaves, ArrowColumnWriter, ArrowRowGroupWriterFactory, ArrowWriterOptions,
};
use parquet::arrow::{ArrowSchemaConverter, ArrowWriter};
use parquet::basic::Type as PhysicalType;
use parquet::data_type::{Int96, Int96Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::{SchemaDescriptor, Type};

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

/// True when a top-level column of Arrow type `t` is written as INT96.
pub(crate) fn is_int96(t: &ArrowType) -> bool {
    matches!(t, ArrowType::Timestamp(TimeUnit::Nanosecond, _))
}

/// True when `t` holds a nanosecond timestamp below its top level.
fn nests_int96(t: &ArrowType) -> bool {
    match t {
        ArrowType::List(f) | ArrowType::LargeList(f) | ArrowType::Map(f, _) => {
            is_int96(f.data_type()) || nests_int96(f.data_type())
        }
        ArrowType::Struct(fs) => fs
            .iter()
            .any(|f| is_int96(f.data_type()) || nests_int96(f.data_type())),
        _ => false,
    }
}

/// True when a file of `schema` needs this writer (some top-level column is INT96).
pub(crate) fn needs_int96(schema: &Schema) -> bool {
    schema.fields().iter().any(|f| is_int96(f.data_type()))
}

/// Refuses a TIMESTAMP(7-9) below the top level: Java writes it as INT96, which this writer
/// only does for top-level columns.
pub(crate) fn refuse_nested_int96(schema: &Schema) -> Result<()> {
    match schema.fields().iter().find(|f| nests_int96(f.data_type())) {
        Some(f) => Err(Error::unsupported(format!(
            "column '{}': TIMESTAMP(7-9) inside ARRAY / MAP / ROW cannot be written to Parquet yet",
            f.name()
        ))),
        None => Ok(()),
    }
}

/// The Parquet schema of `schema` (root `paimon_schema`) with INT96 top-level timestamps.
fn int96_schema(schema: &Schema) -> Result<SchemaDescriptor> {
    refuse_nested_int96(schema)?;
    let converted = ArrowSchemaConverter::new()
        .schema_root("paimon_schema")
        .convert(schema)?;
    let fields = converted
        .root_schema()
        .get_fields()
        .iter()
        .zip(schema.fields())
        .map(|(p, a)| {
            if !is_int96(a.data_type()) {
                return Ok(p.clone());
            }
            let info = p.get_basic_info();
            let mut b = Type::primitive_type_builder(info.name(), PhysicalType::INT96)
                .with_repetition(info.repetition());
            if info.has_id() {
                b = b.with_id(Some(info.id()));
            }
            Ok(Arc::new(b.build()?))
        })
        .collect::<Result<Vec<_>>>()?;
    let root = Type::group_type_builder("paimon_schema")
        .with_fields(fields)
        .build()?;
    Ok(SchemaDescriptor::new(Arc::new(root)))
}

/// The buffered INT96 values and definition levels of one column in the open row group.
#[derive(Default)]
struct Int96Column {
    values: Vec<Int96>,
    defs: Vec<i16>,
}

/// The open row group: Arrow writers per leaf (those of INT96 leaves stay unused) and the
/// INT96 columns (by top-level index).
struct RowGroup {
    writers: Vec<ArrowColumnWriter>,
    int96: Vec<Option<Int96Column>>,
    rows: usize,
}

/// An in-memory Parquet file whose top-level TIMESTAMP(7-9) columns are INT96.
pub(crate) struct Int96FileWriter {
    file: SerializedFileWriter<Vec<u8>>,
    factory: ArrowRowGroupWriterFactory,
    schema: SchemaRef,
    /// Leaves per top-level column.
    leaves: Vec<usize>,
    /// Whether each top-level column is optional (INT96 columns: definition levels).
    nullable: Vec<bool>,
    max_rows: usize,
    group: Option<RowGroup>,
}

impl Int96FileWriter {
    /// A new file of `schema` (from `parquet_schema`) with `props` (the module's settings).
    pub(crate) fn new(schema: SchemaRef, props: WriterProperties) -> Result<Self> {
        let descr = int96_schema(&schema)?;
        let mut leaves = vec![0usize; schema.fields().len()];
        for leaf in 0..descr.num_columns() {
            if let Some(n) = leaves.get_mut(descr.get_column_root_idx(leaf)) {
                *n += 1;
            }
        }
        let nullable = descr
            .root_schema()
            .get_fields()
            .iter()
            .map(|f| f.is_optional())
            .collect();
        let max_rows = props
            .max_row_group_row_count()
            .unwrap_or(parquet::file::properties::DEFAULT_MAX_ROW_GROUP_ROW_COUNT);
        let opts = ArrowWriterOptions::new()
            .with_properties(props)
            .with_skip_arrow_metadata(true)
            .with_parquet_schema(descr);
        let (file, factory) = ArrowWriter::try_new_with_options(Vec::new(), schema.clone(), opts)?
            .into_serialized_writer()?;
        Ok(Int96FileWriter {
            file,
            factory,
            schema,
            leaves,
            nullable,
            max_rows,
            group: None,
        })
    }

    fn open_group(&mut self) -> Result<&mut RowGroup> {
        if self.group.is_none() {
            let index = self.file.flushed_row_groups().len();
            let int96 = self
                .schema
                .fields()
                .iter()
                .map(|f| is_int96(f.data_type()).then(Int96Column::default))
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
        let leaves = self.leaves.clone();
        let group = self.open_group()?;
        let mut leaf = 0;
        for (i, (field, column)) in schema.fields().iter().zip(batch.columns()).enumerate() {
            if let Some(Some(out)) = group.int96.get_mut(i) {
                let ts = column
                    .as_primitive_opt::<TimestampNanosecondType>()
                    .ok_or_else(|| {
                        Error::data_invalid(format!(
                            "column '{}' is not TIMESTAMP(9)",
                            field.name()
                        ))
                    })?;
                for j in 0..ts.len() {
                    match ts.is_valid(j) {
                        true => {
                            out.values.push(int96_of_nanos(ts.value(j)));
                            out.defs.push(1);
                        }
                        false => out.defs.push(0),
                    }
                }
            } else {
                let writers = group
                    .writers
                    .get_mut(leaf..leaf + leaves[i])
                    .ok_or_else(|| {
                        Error::data_invalid("parquet leaf writers do not match the schema")
                    })?;
                for (w, l) in writers.iter_mut().zip(compute_leaves(field, column)?) {
                    w.write(&l)?;
                }
            }
            leaf += leaves[i];
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
        let mut writers = group.writers.into_iter();
        for (i, int96) in group.int96.into_iter().enumerate() {
            let Some(col) = int96 else {
                for _ in 0..self.leaves[i] {
                    let w = writers.next().ok_or_else(|| {
                        Error::data_invalid("parquet leaf writers do not match the schema")
                    })?;
                    w.close()?.append_to_row_group(&mut rg)?;
                }
                continue;
            };
            drop(writers.next()); // the unused Arrow writer of the INT96 leaf
            let mut w = rg
                .next_column()?
                .ok_or_else(|| Error::data_invalid("parquet schema has fewer columns"))?;
            let defs = self.nullable[i].then_some(col.defs.as_slice());
            w.typed::<Int96Type>()
                .write_batch(&col.values, defs, None)?;
            w.close()?;
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
            let int96: usize = g.int96.iter().flatten().map(|c| c.values.len() * 12).sum();
            arrow + int96
        });
        (self.file.bytes_written() + buffered) as u64
    }

    /// Closes the file and returns its bytes.
    pub(crate) fn finish(mut self) -> Result<Vec<u8>> {
        self.flush()?;
        Ok(self.file.into_inner()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::data_type::AsBytes;

    fn bytes(nanos: i64) -> Vec<u8> {
        int96_of_nanos(nanos).as_bytes().to_vec()
    }

    /// Java `ParquetRowDataWriter#timestampToInt96`: nanos of day (LE i64) ‖ Julian day (LE i32).
    #[test]
    fn int96_golden_bytes() {
        // 1970-01-01 00:00:00.000000001: day 2440588 = 0x253D8C.
        assert_eq!(bytes(1), [1, 0, 0, 0, 0, 0, 0, 0, 0x8c, 0x3d, 0x25, 0]);
        // 1969-12-31 23:59:59.999999999: Java's truncating division keeps day 2440588 and
        // writes nanos of day -1.
        assert_eq!(
            bytes(-1),
            [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x8c, 0x3d, 0x25, 0]
        );
        // 1969-12-30 12:00:00.5: millis -129_599_500 → day 2440588 - 1, nanos of day
        // -43_199_500_000_000.
        let v = -129_599_500_000_000_i64;
        let nod = (-43_199_500_000_000_i64).to_le_bytes();
        let mut want = nod.to_vec();
        want.extend_from_slice(&(2_440_587_i32).to_le_bytes());
        assert_eq!(bytes(v), want);
        // 2262-04-11 23:47:16.854775807 (i64::MAX ns, the last TIMESTAMP(9) Arrow holds):
        // 106751 days after the epoch, nanos of day 85636854775807.
        let mut want = 85_636_854_775_807_i64.to_le_bytes().to_vec();
        want.extend_from_slice(&2_547_339_i32.to_le_bytes());
        assert_eq!(bytes(i64::MAX), want);
        // Every value reads back (day and nanos added) as the same instant.
        for v in [1, -1, v, i64::MAX, i64::MIN + 1, 1_700_000_000_123_456_789] {
            assert_eq!(int96_of_nanos(v).to_nanos(), v, "{v}");
        }
    }

    #[test]
    fn nested_nanosecond_timestamps_are_refused() {
        use arrow_schema::Field;
        let inner = Field::new(
            "element",
            ArrowType::Timestamp(TimeUnit::Nanosecond, None),
            true,
        );
        let schema = Schema::new(vec![Field::new(
            "a",
            ArrowType::List(Arc::new(inner)),
            true,
        )]);
        let err = int96_schema(&schema).err().map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.contains("TIMESTAMP(7-9)")));
    }

    /// Instants of the sample file (None: null; 7 in the required column).
    const INSTANTS: [Option<i64>; 10] = [
        Some(1),
        None,
        Some(-1),
        Some(i64::MAX),
        Some(-129_599_500_000_000),
        None,
        Some(1_700_000_000_123_456_789),
        Some(i64::MIN + 1),
        Some(0),
        None,
    ];

    /// k BIGINT NOT NULL, ts9 TIMESTAMP(9), ltz7 TIMESTAMP_LTZ(7), req TIMESTAMP(9) NOT NULL,
    /// s STRING with field ids 0-4.
    fn sample_schema() -> SchemaRef {
        use std::collections::HashMap;

        use arrow_schema::Field;

        use crate::arrow::schema::FIELD_ID_KEY;

        let id = |f: Field, id: i32| {
            f.with_metadata(HashMap::from([(FIELD_ID_KEY.to_string(), id.to_string())]))
        };
        let ns = ArrowType::Timestamp(TimeUnit::Nanosecond, None);
        let ltz = ArrowType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into()));
        Arc::new(Schema::new(vec![
            id(Field::new("k", ArrowType::Int64, false), 0),
            id(Field::new("ts9", ns.clone(), true), 1),
            id(Field::new("ltz7", ltz, true), 2),
            id(Field::new("req", ns, false), 3),
            id(Field::new("s", ArrowType::Utf8, true), 4),
        ]))
    }

    /// Rows `range` of the sample file.
    fn sample_batch(schema: &SchemaRef, range: std::ops::Range<usize>) -> RecordBatch {
        use arrow_array::{ArrayRef, Int64Array, StringArray, TimestampNanosecondArray};

        let vals: Vec<Option<i64>> = INSTANTS[range.clone()].to_vec();
        let req: Vec<i64> = vals.iter().map(|v| v.unwrap_or(7)).collect();
        let keys = range.clone().map(|i| i as i64);
        let cols: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from_iter_values(keys)),
            Arc::new(TimestampNanosecondArray::from(vals.clone())),
            Arc::new(TimestampNanosecondArray::from(vals).with_timezone("UTC")),
            Arc::new(TimestampNanosecondArray::from(req)),
            Arc::new(StringArray::from_iter(range.map(|i| Some(format!("s{i}"))))),
        ];
        RecordBatch::try_new(schema.clone(), cols).unwrap()
    }

    /// Ten rows in row groups of three: INT96 for the nanosecond columns (ids and
    /// required/optional kept, no statistics), INT64 / BYTE_ARRAY for the others, and the
    /// instants read back by arrow-rs equal to the written ones.
    #[test]
    fn file_round_trip_in_several_row_groups() {
        use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

        let schema = sample_schema();
        let instants = INSTANTS;
        let batch = |range| sample_batch(&schema, range);
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(3))
            .set_column_statistics_enabled(
                parquet::schema::types::ColumnPath::new(vec!["ts9".into()]),
                parquet::file::properties::EnabledStatistics::None,
            )
            .build();
        let mut w = Int96FileWriter::new(schema.clone(), props).unwrap();
        w.write(&batch(0..5)).unwrap();
        assert!(w.estimated_size() > 0);
        w.write(&batch(5..10)).unwrap();
        let bytes = bytes::Bytes::from(w.finish().unwrap());

        let reader = ParquetRecordBatchReaderBuilder::try_new(bytes).unwrap();
        let meta = reader.metadata().clone();
        assert_eq!(meta.num_row_groups(), 4);
        let descr = meta.file_metadata().schema_descr();
        assert_eq!(descr.root_schema().name(), "paimon_schema");
        let physical: Vec<PhysicalType> =
            descr.columns().iter().map(|c| c.physical_type()).collect();
        use PhysicalType::*;
        assert_eq!(physical, [INT64, INT96, INT96, INT96, BYTE_ARRAY]);
        let fields = descr.root_schema().get_fields();
        let ids: Vec<i32> = fields.iter().map(|f| f.get_basic_info().id()).collect();
        assert_eq!(ids, [0, 1, 2, 3, 4]);
        let optional: Vec<bool> = fields.iter().map(|f| f.is_optional()).collect();
        assert_eq!(optional, [false, true, true, false, true]);
        let rg = meta.row_group(0);
        assert!(rg.column(0).statistics().is_some());
        assert!(rg.column(1).statistics().is_none());
        assert!(meta.file_metadata().key_value_metadata().is_none());

        let batches: Vec<RecordBatch> = reader.build().unwrap().map(|b| b.unwrap()).collect();
        let col = |i: usize| -> Vec<Option<i64>> {
            batches
                .iter()
                .flat_map(|b| {
                    let a = b.column(i).as_primitive::<TimestampNanosecondType>();
                    (0..a.len())
                        .map(|j| a.is_valid(j).then(|| a.value(j)))
                        .collect::<Vec<_>>()
                })
                .collect()
        };
        assert_eq!(col(1), instants);
        assert_eq!(col(2), instants);
        let req: Vec<Option<i64>> = instants.iter().map(|v| Some(v.unwrap_or(7))).collect();
        assert_eq!(col(3), req);
        let keys: Vec<i64> = batches
            .iter()
            .flat_map(|b| {
                b.column(0)
                    .as_primitive::<arrow_array::types::Int64Type>()
                    .values()
                    .to_vec()
            })
            .collect();
        assert_eq!(keys, (0..10).collect::<Vec<i64>>());
    }
}
