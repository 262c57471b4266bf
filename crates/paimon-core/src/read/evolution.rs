//! Schema evolution on read: maps a file's physical columns to the requested read fields.
//!
//! Mirrors Java `org.apache.paimon.schema.SchemaEvolutionUtil` and
//! `org.apache.paimon.utils.FormatReaderMapping` (Paimon 2.0, `docs/format.md` "Schema
//! evolution" and "Primary-key data files"):
//! read fields are matched to the fields of the file's own schema (`schema-<_SCHEMA_ID>`) **by
//! field id**, then to physical columns **by name in that schema** (0.9 files carry no ids).
//! ROW sub-fields are matched the same way, recursively.
//!
//! - A read field whose id is not in the file schema (added later) is all-null.
//! - `_KEY_<k>` read fields (ids `1073741823 + id(k)`) map to the value column of id `id(k)`,
//!   as Java's `FormatReaderMapping#trimKeyFields` does; other system fields
//!   (`_SEQUENCE_NUMBER`, `_VALUE_KIND`, `_LEVEL`, `_ROW_ID`, ...) match the physical column of
//!   the same name and are read with the read type.
//! - A changed type is cast with `arrow-cast` (`safe`: unrepresentable values become null, like
//!   Java's decimal overflow). Java's own semantics are followed where Arrow's differ: integer
//!   ↔ TIMESTAMP casts count **seconds** since the epoch, TIMESTAMP → STRING prints
//!   `yyyy-MM-dd HH:mm:ss[.fraction]`, and TIMESTAMP ↔ TIMESTAMP_LTZ keeps the epoch value.
//! - Divergence: a NOT NULL read field that receives nulls (missing in the file, or written
//!   while nullable) is still filled with nulls, and that field of the output schema is made
//!   nullable; otherwise batches carry exactly `arrow_schema(read_fields)`.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{
    new_null_array, Array, ArrayRef, Int64Array, ListArray, MapArray, RecordBatch,
    RecordBatchOptions, StructArray,
};
use arrow_cast::display::FormatOptions;
use arrow_cast::{can_cast_types, cast_with_options, CastOptions};
use arrow_schema::{DataType as ArrowType, Field, FieldRef, Fields, Schema, SchemaRef, TimeUnit};

use crate::arrow::schema::{arrow_field, arrow_type, map_type, timestamp_unit};
use crate::spec::types::{DataField, DataType, TypeKind};
use crate::{Error, Result};

pub use crate::spec::special_fields::{KEY_FIELD_ID_START, SYSTEM_FIELD_ID_START};

/// Where one output column comes from.
#[derive(Debug, Clone)]
enum Source {
    /// Not in the file: all null.
    Missing,
    /// Column `index` of the projected file batch, written with Paimon type `file_type`.
    File { index: usize, file_type: DataType },
}

/// The mapping from one file's physical columns to the read fields.
#[derive(Debug, Clone)]
pub struct ReadMapping {
    roots: Vec<usize>,
    sources: Vec<Source>,
    read_fields: Vec<DataField>,
    schema: SchemaRef,
    /// Top-level string and binary columns come out as views ([`ReadMapping::with_string_views`]).
    views: bool,
}

/// The file-schema name and type a read field is stored under, if any.
fn file_field_for<'a>(
    read: &'a DataField,
    file_fields: &'a [DataField],
) -> Option<(&'a str, &'a DataType)> {
    if let Some(f) = file_fields.iter().find(|f| f.id == read.id) {
        return Some((f.name.as_str(), &f.data_type));
    }
    if read.id >= SYSTEM_FIELD_ID_START {
        return Some((read.name.as_str(), &read.data_type));
    }
    if read.id >= KEY_FIELD_ID_START {
        let value_id = read.id - KEY_FIELD_ID_START;
        return file_fields
            .iter()
            .find(|f| f.id == value_id)
            .map(|f| (f.name.as_str(), &f.data_type));
    }
    None
}

impl ReadMapping {
    /// Maps `read_fields` onto a file whose own schema has `file_fields` and whose physical
    /// top-level columns are named `physical` (in file order).
    pub fn new(
        read_fields: &[DataField],
        file_fields: &[DataField],
        physical: &[&str],
    ) -> Result<Self> {
        let mut wanted: Vec<(usize, usize, DataType)> = Vec::new(); // (read pos, physical idx, type)
        for (pos, rf) in read_fields.iter().enumerate() {
            if let Some((name, t)) = file_field_for(rf, file_fields) {
                let idx = physical.iter().position(|p| *p == name).ok_or_else(|| {
                    Error::data_invalid(format!(
                        "column '{name}' of the file schema is not in the data file"
                    ))
                    .with_context("field", rf.name.clone())
                })?;
                wanted.push((pos, idx, t.clone()));
            }
        }
        let mut roots: Vec<usize> = wanted.iter().map(|w| w.1).collect();
        roots.sort_unstable();
        roots.dedup();
        let mut sources = vec![Source::Missing; read_fields.len()];
        for (pos, idx, file_type) in wanted {
            let index = roots.binary_search(&idx).unwrap_or_default();
            sources[pos] = Source::File { index, file_type };
        }
        Ok(ReadMapping {
            roots,
            sources,
            read_fields: read_fields.to_vec(),
            schema: crate::arrow::arrow_schema(read_fields)?,
            views: false,
        })
    }

    /// With `on`, top-level string and binary columns come out in the view layout
    /// ([`crate::arrow::view_type`]): a column decoded as a view is passed through, any other
    /// is converted after the usual adaptation.
    #[must_use]
    pub fn with_string_views(mut self, on: bool) -> Self {
        if on {
            self.schema = crate::arrow::view_schema(&self.schema);
        }
        self.views = on;
        self
    }

    /// The physical top-level column indices to decode, ascending; the projected file batch
    /// handed to [`ReadMapping::project`] holds exactly these, in this order.
    pub fn roots(&self) -> &[usize] {
        &self.roots
    }

    /// The Paimon type the file wrote its `i`-th projected root column with.
    pub fn root_type(&self, i: usize) -> Option<&DataType> {
        self.sources.iter().find_map(|s| match s {
            Source::File { index, file_type } if *index == i => Some(file_type),
            _ => None,
        })
    }

    /// The output schema (before any nullability relaxation).
    #[cfg(test)]
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Turns a projected file batch into a batch of the read fields.
    pub fn project(&self, batch: &RecordBatch) -> Result<RecordBatch> {
        let rows = batch.num_rows();
        let mut columns = Vec::with_capacity(self.sources.len());
        let mut relaxed: Option<Vec<FieldRef>> = None;
        for (i, (src, rf)) in self.sources.iter().zip(&self.read_fields).enumerate() {
            let col = match src {
                Source::Missing => new_null_array(self.schema.field(i).data_type(), rows),
                Source::File { index, file_type } => {
                    let a = batch.columns().get(*index).ok_or_else(|| {
                        Error::internal(format!("projected column {index} missing"))
                    })?;
                    let target = self.schema.field(i).data_type();
                    if self.views && a.data_type() == target && is_view(target) {
                        // Decoded as a view of the same kind: nothing to adapt.
                        a.clone()
                    } else {
                        let c = adapt(a, file_type, &rf.data_type)
                            .map_err(|e| e.with_context("field", rf.name.clone()))?;
                        if self.views {
                            as_view(c)?
                        } else {
                            c
                        }
                    }
                }
            };
            if !rf.data_type.nullable && col.null_count() > 0 {
                let fields = relaxed.get_or_insert_with(|| self.schema.fields().to_vec());
                fields[i] = Arc::new(fields[i].as_ref().clone().with_nullable(true));
            }
            columns.push(col);
        }
        let schema = match relaxed {
            None => self.schema.clone(),
            Some(f) => Arc::new(Schema::new_with_metadata(f, self.schema.metadata().clone())),
        };
        let options = RecordBatchOptions::new().with_row_count(Some(rows));
        Ok(RecordBatch::try_new_with_options(
            schema, columns, &options,
        )?)
    }
}

fn is_view(t: &ArrowType) -> bool {
    matches!(t, ArrowType::Utf8View | ArrowType::BinaryView)
}

/// A string or binary column in the view layout; any other column unchanged.
pub(crate) fn as_view(array: ArrayRef) -> Result<ArrayRef> {
    let view = crate::arrow::view_type(array.data_type());
    if &view == array.data_type() {
        return Ok(array);
    }
    Ok(arrow_cast::cast(&array, &view)?)
}

/// `batch` with its top-level string and binary columns in the view layout (fields and
/// columns alike); unchanged when it has none.
pub(crate) fn batch_as_views(batch: RecordBatch) -> Result<RecordBatch> {
    let schema = batch.schema();
    let views = crate::arrow::view_schema(&schema);
    if Arc::ptr_eq(&views, &schema) {
        return Ok(batch);
    }
    let columns = batch
        .columns()
        .iter()
        .map(|c| as_view(c.clone()))
        .collect::<Result<Vec<_>>>()?;
    let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    Ok(RecordBatch::try_new_with_options(views, columns, &options)?)
}

/// A field made nullable when `array` holds nulls but the field forbids them.
fn relax(field: Field, array: &dyn Array) -> Field {
    if !field.is_nullable() && array.null_count() > 0 {
        field.with_nullable(true)
    } else {
        field
    }
}

fn wrong_shape(what: &str, array: &dyn Array) -> Error {
    Error::data_invalid(format!(
        "expected a {what} column, the file holds {}",
        array.data_type()
    ))
}

/// Converts `array`, decoded from a column written with Paimon type `from`, to the Arrow type of
/// Paimon type `to`.
pub fn adapt(array: &ArrayRef, from: &DataType, to: &DataType) -> Result<ArrayRef> {
    match (&from.kind, &to.kind) {
        (TypeKind::Row(ff), TypeKind::Row(tf)) => adapt_struct(array, ff, tf),
        (TypeKind::Array(fe), TypeKind::Array(te)) => {
            let list = array
                .as_list_opt::<i32>()
                .ok_or_else(|| wrong_shape("list", array))?;
            let values = adapt(list.values(), fe, te)?;
            let field = relax(Field::new("element", arrow_type(te)?, te.nullable), &values);
            Ok(Arc::new(ListArray::try_new(
                Arc::new(field),
                list.offsets().clone(),
                values,
                list.nulls().cloned(),
            )?))
        }
        (TypeKind::Map(fk, fv), TypeKind::Map(tk, tv)) => adapt_map(array, (fk, fv), (tk, tv)),
        (TypeKind::Multiset(fe), TypeKind::Multiset(te)) => {
            let count = DataType::not_null(TypeKind::Int);
            adapt_map(array, (fe, &count), (te, &count))
        }
        _ => adapt_leaf(array, from, to),
    }
}

fn adapt_struct(array: &ArrayRef, from: &[DataField], to: &[DataField]) -> Result<ArrayRef> {
    let s = array
        .as_struct_opt()
        .ok_or_else(|| wrong_shape("struct", array))?;
    let mut fields = Vec::with_capacity(to.len());
    let mut columns = Vec::with_capacity(to.len());
    for tf in to {
        let col = match from.iter().find(|f| f.id == tf.id) {
            Some(ff) => {
                let child = s.column_by_name(&ff.name).ok_or_else(|| {
                    Error::data_invalid(format!(
                        "nested field '{}' is not in the data file",
                        ff.name
                    ))
                })?;
                adapt(child, &ff.data_type, &tf.data_type)?
            }
            None => new_null_array(&arrow_type(&tf.data_type)?, s.len()),
        };
        fields.push(relax(arrow_field(tf)?, &col));
        columns.push(col);
    }
    if to.is_empty() {
        return Ok(Arc::new(StructArray::new_empty_fields(
            s.len(),
            s.nulls().cloned(),
        )));
    }
    Ok(Arc::new(StructArray::try_new(
        Fields::from(fields),
        columns,
        s.nulls().cloned(),
    )?))
}

fn adapt_map(
    array: &ArrayRef,
    from: (&DataType, &DataType),
    to: (&DataType, &DataType),
) -> Result<ArrayRef> {
    let map = array
        .as_map_opt()
        .ok_or_else(|| wrong_shape("map", array))?;
    let entries = map.entries();
    let (Some(k), Some(v)) = (entries.columns().first(), entries.columns().get(1)) else {
        return Err(wrong_shape("map with key and value", array));
    };
    let keys = adapt(k, from.0, to.0)?;
    let values = adapt(v, from.1, to.1)?;
    let ArrowType::Map(entries_field, _) =
        map_type(arrow_type(to.0)?, arrow_type(to.1)?, to.1.nullable)
    else {
        return Err(Error::internal("map_type did not build a map"));
    };
    let ArrowType::Struct(kv) = entries_field.data_type() else {
        return Err(Error::internal("map entries are not a struct"));
    };
    let kv = Fields::from(vec![
        relax(kv[0].as_ref().clone(), &keys),
        relax(kv[1].as_ref().clone(), &values),
    ]);
    let entries = StructArray::try_new(kv.clone(), vec![keys, values], None)?;
    let entries_field = Field::new(entries_field.name(), ArrowType::Struct(kv), false);
    Ok(Arc::new(MapArray::try_new(
        Arc::new(entries_field),
        map.offsets().clone(),
        entries,
        map.nulls().cloned(),
        false,
    )?))
}

fn units_per_second(unit: TimeUnit) -> i64 {
    match unit {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    }
}

/// Re-labels a timestamp/int64 array as `Timestamp(unit, tz)` without touching values.
fn relabel(array: &ArrayRef, target: ArrowType) -> Result<ArrayRef> {
    let data = array.to_data().into_builder().data_type(target).build()?;
    Ok(arrow_array::make_array(data))
}

fn ts_precision(kind: &TypeKind) -> Option<u32> {
    match kind {
        TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => Some(*p),
        _ => None,
    }
}

fn adapt_leaf(array: &ArrayRef, from: &DataType, to: &DataType) -> Result<ArrayRef> {
    let target = arrow_type(to)?;
    if array.data_type() == &target {
        return Ok(array.clone());
    }
    let opts = CastOptions::default();
    match (array.data_type(), ts_precision(&to.kind)) {
        // Timestamp → timestamp of another unit or zone label: same epoch value.
        (ArrowType::Timestamp(unit, _), Some(_)) => {
            let ArrowType::Timestamp(to_unit, to_tz) = &target else {
                return Err(Error::internal("timestamp maps to a non-timestamp"));
            };
            let naive = relabel(array, ArrowType::Timestamp(*unit, None))?;
            let scaled = cast_with_options(&naive, &ArrowType::Timestamp(*to_unit, None), &opts)?;
            return relabel(&scaled, ArrowType::Timestamp(*to_unit, to_tz.clone()));
        }
        // Integer → timestamp: Java reads the number as epoch seconds.
        (_, Some(p)) if from.kind.is_integer() => {
            let secs = cast_with_options(array, &ArrowType::Int64, &opts)?;
            let factor = units_per_second(timestamp_unit(p));
            let scaled: Int64Array = secs
                .as_primitive::<Int64Type>()
                .unary_opt(|v| v.checked_mul(factor));
            return relabel(&(Arc::new(scaled) as ArrayRef), target);
        }
        // Timestamp → integer: epoch seconds (Java truncates towards zero).
        (ArrowType::Timestamp(unit, _), None) if to.kind.is_integer() => {
            let raw = relabel(array, ArrowType::Int64)?;
            let factor = units_per_second(*unit);
            let secs: Int64Array = raw.as_primitive::<Int64Type>().unary(|v| v / factor);
            return Ok(cast_with_options(
                &(Arc::new(secs) as ArrayRef),
                &target,
                &opts,
            )?);
        }
        _ => {}
    }
    let fmt = FormatOptions::new()
        .with_timestamp_format(Some("%Y-%m-%d %H:%M:%S%.f"))
        .with_timestamp_tz_format(Some("%Y-%m-%d %H:%M:%S%.f"));
    let opts = CastOptions {
        safe: true,
        format_options: fmt,
    };
    if !can_cast_types(array.data_type(), &target) {
        return Err(Error::unsupported(format!(
            "cannot read a {from} column (decoded as {}) as {to}",
            array.data_type()
        )));
    }
    Ok(cast_with_options(array, &target, &opts)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Int32Array, StringArray, TimestampMicrosecondArray};

    fn f(id: i32, name: &str, kind: TypeKind) -> DataField {
        DataField::new(id, name, DataType::nullable(kind))
    }

    #[test]
    fn maps_by_id_then_physical_name_and_casts() {
        let file = vec![f(0, "a", TypeKind::Int), f(1, "old_b", TypeKind::Int)];
        let read = vec![
            f(1, "b", TypeKind::BigInt),
            f(7, "new", TypeKind::Double),
            DataField::new(0, "a", DataType::not_null(TypeKind::Int)),
        ];
        let m = ReadMapping::new(&read, &file, &["x", "old_b", "a"]).unwrap();
        assert_eq!(m.roots(), &[1, 2]);
        let schema = Arc::new(Schema::new(vec![
            Field::new("old_b", ArrowType::Int32, true),
            Field::new("a", ArrowType::Int32, true),
        ]));
        let batch = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int32Array::from(vec![Some(5), None])),
                Arc::new(Int32Array::from(vec![1, 2])),
            ],
        )
        .unwrap();
        let out = m.project(&batch).unwrap();
        assert_eq!(out.schema(), *m.schema());
        assert_eq!(out.column(0).as_primitive::<Int64Type>().value(0), 5);
        assert!(out.column(0).is_null(1));
        assert_eq!(out.column(1).null_count(), 2);
        assert_eq!(
            out.column(2)
                .as_primitive::<arrow_array::types::Int32Type>()
                .value(1),
            2
        );
        // the file schema names a column the file lacks
        assert!(ReadMapping::new(&read, &file, &["a"]).is_err());
    }

    #[test]
    fn java_timestamp_casts() {
        let ts: ArrayRef = Arc::new(TimestampMicrosecondArray::from(vec![Some(1_500_001), None]));
        let from = DataType::nullable(TypeKind::Timestamp(6));
        let s = adapt(&ts, &from, &DataType::nullable(TypeKind::VarChar(10))).unwrap();
        assert_eq!(s.as_string::<i32>().value(0), "1970-01-01 00:00:01.500001");
        let i = adapt(&ts, &from, &DataType::nullable(TypeKind::Int)).unwrap();
        assert_eq!(
            i.as_primitive::<arrow_array::types::Int32Type>().value(0),
            1
        );
        let ltz = adapt(
            &ts,
            &from,
            &DataType::nullable(TypeKind::LocalZonedTimestamp(3)),
        )
        .unwrap();
        assert_eq!(
            ltz.data_type(),
            &ArrowType::Timestamp(TimeUnit::Millisecond, Some("UTC".into()))
        );
        assert_eq!(
            ltz.as_primitive::<arrow_array::types::TimestampMillisecondType>()
                .value(0),
            1500
        );
        let n: ArrayRef = Arc::new(Int32Array::from(vec![3]));
        let t = adapt(
            &n,
            &DataType::nullable(TypeKind::Int),
            &DataType::nullable(TypeKind::Timestamp(0)),
        )
        .unwrap();
        assert_eq!(
            t.as_primitive::<arrow_array::types::TimestampMillisecondType>()
                .value(0),
            3000
        );
        let s: ArrayRef = Arc::new(StringArray::from(vec!["12", "x"]));
        let d = adapt(
            &s,
            &DataType::nullable(TypeKind::VarChar(3)),
            &DataType::nullable(TypeKind::Double),
        )
        .unwrap();
        assert_eq!(
            d.as_primitive::<arrow_array::types::Float64Type>().value(0),
            12.0
        );
        assert!(d.is_null(1));
    }
}
