//! Avro data files as Java writes them (`AvroFileFormat`, `AvroSchemaConverter`): record
//! `org.apache.paimon.avro.generated.record`, nullable columns as `["null", T]` unions, codec
//! from `file.compression` (zstd → `zstandard`), DECIMAL as big-endian two's-complement bytes
//! with the `decimal` logical type, TIMESTAMP(p ≤ 3 / ≤ 6) as `timestamp-millis/micros` and
//! TIMESTAMP WITH LOCAL TIME ZONE as `local-timestamp-*` (Java's inverted logical types), MAP
//! with STRING keys as an Avro map and other maps as arrays of `{key, value}` records, MULTISET<T>
//! as MAP<T, INT> (nullable counts). TIMESTAMP(7-9), TIME(p > 3), VARIANT and VECTOR are refused,
//! as Java's converter refuses them. An Avro map's entries are written in hash order
//! (`apache_avro::types::Value::Map` is a `HashMap`), not in the order of the Arrow map.
//!
//! The batches of a file are kept (Arrow buffers are shared, not copied) and encoded when the
//! file closes; the rolling size is their Arrow memory size, so Avro files come out smaller than
//! `target-file-size`. Values go through `apache_avro::types::Value`, one per cell.

use std::collections::HashMap;

use apache_avro::types::Value;
use apache_avro::{Codec, Schema as AvroSchema, Writer};
use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch};
use serde_json::{json, Value as Json};

use super::datum::datum_at;
use crate::spec::binary_row::writer::decimal_to_be_bytes;
use crate::spec::datum::Datum;
use crate::spec::options::TableOptions;
use crate::spec::types::{DataField, DataType, TypeKind};
use crate::{Error, Result};

/// Java's top-level record name.
const RECORD_NAME: &str = "org.apache.paimon.avro.generated.record";

/// Whether Java (and this writer) can write `t` to Avro.
pub(crate) fn avro_writable(t: &DataType) -> bool {
    use TypeKind as K;
    match &t.kind {
        K::Timestamp(p) | K::LocalZonedTimestamp(p) => *p <= 6,
        K::Time(p) => *p <= 3,
        K::Array(e) => avro_writable(e),
        K::Map(k, v) => avro_writable(k) && avro_writable(v),
        K::Row(fs) => fs.iter().all(|f| avro_writable(&f.data_type)),
        K::Multiset(e) => avro_writable(e),
        K::Vector(..) | K::Variant => false,
        _ => true,
    }
}

fn atomic_schema(t: &DataType) -> Json {
    use TypeKind as K;
    match &t.kind {
        K::Boolean => json!("boolean"),
        K::TinyInt | K::SmallInt | K::Int => json!("int"),
        K::BigInt => json!("long"),
        K::Float => json!("float"),
        K::Double => json!("double"),
        K::Char(_) | K::VarChar(_) => json!("string"),
        K::Decimal { precision, scale } => {
            json!({"type": "bytes", "logicalType": "decimal", "precision": precision, "scale": scale})
        }
        K::Date => json!({"type": "int", "logicalType": "date"}),
        K::Time(_) => json!({"type": "int", "logicalType": "time-millis"}),
        K::Timestamp(p) if *p <= 3 => json!({"type": "long", "logicalType": "timestamp-millis"}),
        K::Timestamp(_) => json!({"type": "long", "logicalType": "timestamp-micros"}),
        K::LocalZonedTimestamp(p) if *p <= 3 => {
            json!({"type": "long", "logicalType": "local-timestamp-millis"})
        }
        K::LocalZonedTimestamp(_) => {
            json!({"type": "long", "logicalType": "local-timestamp-micros"})
        }
        _ => json!("bytes"),
    }
}

/// MULTISET<T> as Java's `AvroSchemaConverter` writes it: MAP<T, INT> (nullable counts).
fn multiset_as_map(t: &DataType) -> Option<DataType> {
    match &t.kind {
        TypeKind::Multiset(e) => Some(DataType {
            kind: TypeKind::Map(e.clone(), Box::new(DataType::nullable(TypeKind::Int))),
            ..t.clone()
        }),
        _ => None,
    }
}

fn type_schema(t: &DataType, name: &str) -> Json {
    if let Some(map) = multiset_as_map(t) {
        return type_schema(&map, name);
    }
    let inner = match &t.kind {
        TypeKind::Array(e) => {
            json!({"type": "array", "items": type_schema(e, &format!("{name}_element"))})
        }
        TypeKind::Map(k, v) if matches!(k.kind, TypeKind::Char(_) | TypeKind::VarChar(_)) => {
            json!({"type": "map", "values": type_schema(v, &format!("{name}_value"))})
        }
        TypeKind::Map(k, v) => json!({"type": "array", "items": {
        "type": "record", "name": format!("{name}_entry"), "fields": [
            {"name": "key", "type": type_schema(k, &format!("{name}_key"))},
            {"name": "value", "type": type_schema(v, &format!("{name}_value"))},
        ]}}),
        TypeKind::Row(fs) => record_schema(fs, name),
        _ => atomic_schema(t),
    };
    match t.nullable {
        true => json!(["null", inner]),
        false => inner,
    }
}

fn record_schema(fields: &[DataField], name: &str) -> Json {
    let fs: Vec<Json> = fields
        .iter()
        .map(|f| {
            let t = type_schema(&f.data_type, &format!("{name}_{}", f.name));
            match f.data_type.nullable {
                true => json!({"name": f.name, "type": t, "default": null}),
                false => json!({"name": f.name, "type": t}),
            }
        })
        .collect();
    json!({"type": "record", "name": name, "fields": fs})
}

/// The Avro schema of a file of `fields`.
pub(crate) fn avro_schema(fields: &[DataField]) -> Result<AvroSchema> {
    Ok(AvroSchema::parse(&record_schema(fields, RECORD_NAME))?)
}

fn codec(options: &TableOptions) -> Result<Codec> {
    Ok(
        match options
            .file_compression
            .trim()
            .to_ascii_lowercase()
            .as_str()
        {
            "zstd" => {
                let level = u8::try_from(options.file_compression_zstd_level).unwrap_or(1);
                Codec::Zstandard(apache_avro::ZstandardSettings::new(level))
            }
            "none" | "uncompressed" => Codec::Null,
            "snappy" => Codec::Snappy,
            "deflate" => Codec::Deflate(Default::default()),
            other => {
                return Err(Error::unsupported(format!(
                    "file.compression '{other}' is not supported for Avro"
                ))
                .with_context("option", "file.compression"))
            }
        },
    )
}

/// One cell of Paimon type `t` as an Avro value (a union branch when `t` is nullable).
fn cell(array: &dyn Array, row: usize, t: &DataType) -> Result<Value> {
    if let Some(map) = multiset_as_map(t) {
        return cell(array, row, &map);
    }
    if array.is_null(row) {
        return Ok(Value::Union(0, Box::new(Value::Null)));
    }
    let v = match &t.kind {
        TypeKind::Array(e) => {
            let list = array.as_list::<i32>().value(row);
            Value::Array(
                (0..list.len())
                    .map(|i| cell(list.as_ref(), i, e))
                    .collect::<Result<_>>()?,
            )
        }
        TypeKind::Map(k, v) => map_cell(array, row, k, v)?,
        TypeKind::Row(fs) => {
            let s = array.as_struct();
            let mut out = Vec::with_capacity(fs.len());
            for (f, c) in fs.iter().zip(s.columns()) {
                out.push((f.name.clone(), cell(c.as_ref(), row, &f.data_type)?));
            }
            Value::Record(out)
        }
        _ => atomic_cell(datum_at(array, row, t)?, t)?,
    };
    Ok(match t.nullable {
        true => Value::Union(1, Box::new(v)),
        false => v,
    })
}

fn map_cell(array: &dyn Array, row: usize, k: &DataType, v: &DataType) -> Result<Value> {
    let m = array.as_map();
    let (start, end) = (
        m.value_offsets()[row] as usize,
        m.value_offsets()[row + 1] as usize,
    );
    let (keys, values) = (m.keys(), m.values());
    if matches!(k.kind, TypeKind::Char(_) | TypeKind::VarChar(_)) {
        let mut out = HashMap::with_capacity(end - start);
        for i in start..end {
            let key = keys.as_string::<i32>().value(i).to_string();
            out.insert(key, cell(values.as_ref(), i, v)?);
        }
        return Ok(Value::Map(out));
    }
    let entries = (start..end)
        .map(|i| {
            Ok(Value::Record(vec![
                ("key".into(), cell(keys.as_ref(), i, k)?),
                ("value".into(), cell(values.as_ref(), i, v)?),
            ]))
        })
        .collect::<Result<_>>()?;
    Ok(Value::Array(entries))
}

fn atomic_cell(d: Option<Datum>, t: &DataType) -> Result<Value> {
    let Some(d) = d else { return Ok(Value::Null) };
    let p = match t.kind {
        TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => p,
        _ => 0,
    };
    let ltz = matches!(t.kind, TypeKind::LocalZonedTimestamp(_));
    Ok(match d {
        Datum::Boolean(b) => Value::Boolean(b),
        Datum::TinyInt(x) => Value::Int(i32::from(x)),
        Datum::SmallInt(x) => Value::Int(i32::from(x)),
        Datum::Int(x) => Value::Int(x),
        Datum::BigInt(x) => Value::Long(x),
        Datum::Float(x) => Value::Float(x),
        Datum::Double(x) => Value::Double(x),
        Datum::String(s) => Value::String(s),
        Datum::Binary(b) => Value::Bytes(b),
        Datum::Decimal(x) => Value::Decimal(decimal_to_be_bytes(x.unscaled).into()),
        Datum::Date(x) => Value::Date(x),
        Datum::Time(x) => Value::TimeMillis(x),
        Datum::Timestamp(ts) | Datum::LocalZonedTimestamp(ts) => match (p <= 3, ltz) {
            (true, false) => Value::TimestampMillis(ts.millis),
            (true, true) => Value::LocalTimestampMillis(ts.millis),
            (false, false) => Value::TimestampMicros(ts.to_micros()),
            (false, true) => Value::LocalTimestampMicros(ts.to_micros()),
        },
    })
}

/// An Avro file being collected.
pub(crate) struct AvroWriter {
    fields: Vec<DataField>,
    codec: Codec,
    batches: Vec<RecordBatch>,
    size: u64,
}

impl AvroWriter {
    /// A new file of `fields`.
    pub(crate) fn new(fields: Vec<DataField>, options: &TableOptions) -> Result<Self> {
        Ok(AvroWriter {
            fields,
            codec: codec(options)?,
            batches: Vec::new(),
            size: 0,
        })
    }

    /// Keeps a batch for the file.
    pub(crate) fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.size += batch.get_array_memory_size() as u64;
        self.batches.push(batch.clone());
        Ok(())
    }

    /// The Arrow memory of the kept batches.
    pub(crate) fn estimated_size(&self) -> u64 {
        self.size
    }

    /// Encodes the file and returns its bytes.
    pub(crate) fn finish(self) -> Result<Vec<u8>> {
        let schema = avro_schema(&self.fields)?;
        let mut writer = Writer::with_codec(&schema, Vec::new(), self.codec);
        for batch in &self.batches {
            for row in 0..batch.num_rows() {
                let mut record = Vec::with_capacity(self.fields.len());
                for (f, c) in self.fields.iter().zip(batch.columns()) {
                    record.push((f.name.clone(), cell(c.as_ref(), row, &f.data_type)?));
                }
                writer.append_value_ref(&Value::Record(record))?;
            }
        }
        Ok(writer.into_inner()?)
    }
}
