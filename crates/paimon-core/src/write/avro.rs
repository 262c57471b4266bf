//! Avro data files as Java writes them (`AvroFileFormat`, `AvroSchemaConverter`): record
//! `org.apache.paimon.avro.generated.record`, nullable columns as `["null", T]` unions, codec
//! from `file.compression` (zstd → `zstandard`), DECIMAL as big-endian two's-complement bytes
//! with the `decimal` logical type, TIMESTAMP(p ≤ 3 / ≤ 6) as `timestamp-millis/micros` and
//! TIMESTAMP WITH LOCAL TIME ZONE as `local-timestamp-*` (Java's inverted logical types), MAP
//! with STRING keys as an Avro map and other maps as arrays of `{key, value}` records, MULTISET<T>
//! as MAP<T, INT> (nullable counts). TIMESTAMP(7-9), TIME(p > 3), VARIANT and VECTOR are refused,
//! as Java's converter refuses them. Map entries keep their order: records are encoded with
//! STRING-keyed maps as arrays of `{key, value}` records (the same bytes as an Avro map, whose
//! apache-avro value is an unordered `HashMap`) under a header declaring Java's schema.
//!
//! Each written batch is encoded as it comes, its rows flushed as blocks (so a writer holds one
//! batch's block, and the file streams out as it grows); the rolling size is the bytes written,
//! as Java's. Values go through `apache_avro::types::Value`, one per cell.

use apache_avro::types::Value;
use apache_avro::{Codec, Schema as AvroSchema, Writer};
use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch};
use serde_json::{json, Value as Json};

use super::chunks::Chunks;
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

/// The Avro schema of `t`. With `entries`, a map with STRING keys is an array of `{key, value}`
/// records (the encoding schema, see [`AvroWriter::finish`]); otherwise an Avro map, as Java
/// declares it in the file.
fn type_schema(t: &DataType, name: &str, entries: bool) -> Json {
    if let Some(map) = multiset_as_map(t) {
        return type_schema(&map, name, entries);
    }
    let inner = match &t.kind {
        TypeKind::Array(e) => {
            json!({"type": "array", "items": type_schema(e, &format!("{name}_element"), entries)})
        }
        TypeKind::Map(k, v)
            if !entries && matches!(k.kind, TypeKind::Char(_) | TypeKind::VarChar(_)) =>
        {
            json!({"type": "map", "values": type_schema(v, &format!("{name}_value"), entries)})
        }
        TypeKind::Map(k, v) => json!({"type": "array", "items": {
        "type": "record", "name": format!("{name}_entry"), "fields": [
            {"name": "key", "type": type_schema(k, &format!("{name}_key"), entries)},
            {"name": "value", "type": type_schema(v, &format!("{name}_value"), entries)},
        ]}}),
        TypeKind::Row(fs) => record_schema(fs, name, entries),
        _ => atomic_schema(t),
    };
    match t.nullable {
        true => json!(["null", inner]),
        false => inner,
    }
}

fn record_schema(fields: &[DataField], name: &str, entries: bool) -> Json {
    let fs: Vec<Json> = fields
        .iter()
        .map(|f| {
            let t = type_schema(&f.data_type, &format!("{name}_{}", f.name), entries);
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
    Ok(AvroSchema::parse(&record_schema(
        fields,
        RECORD_NAME,
        false,
    ))?)
}

/// The schema the records are encoded with: [`avro_schema`] with every STRING-keyed map as an
/// array of `{key: string, value}` records. The two encode to the same bytes (an Avro map block
/// is a count and then key, value pairs; an array block of such records too), but apache-avro's
/// map value is a `HashMap`, which would lose the entries' order.
fn encoding_schema(fields: &[DataField]) -> Result<AvroSchema> {
    Ok(AvroSchema::parse(&record_schema(
        fields,
        RECORD_NAME,
        true,
    ))?)
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

/// A map's entries in order, as `{key, value}` records (see [`encoding_schema`]).
fn map_cell(array: &dyn Array, row: usize, k: &DataType, v: &DataType) -> Result<Value> {
    let m = array.as_map();
    let (start, end) = (
        m.value_offsets()[row] as usize,
        m.value_offsets()[row + 1] as usize,
    );
    let (keys, values) = (m.keys(), m.values());
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

/// An Avro file being written: the header, declaring [`avro_schema`] (Java's), then each
/// written batch's rows as blocks encoded with [`encoding_schema`] (the same bytes, map
/// entries in order).
pub(crate) struct AvroWriter {
    fields: Vec<DataField>,
    codec: Codec,
    marker: [u8; 16],
    /// The schema the blocks are encoded with ([`encoding_schema`]).
    schema: AvroSchema,
    /// The file's bytes not taken yet.
    out: Chunks,
}

impl AvroWriter {
    /// A new file of `fields`.
    pub(crate) fn new(fields: Vec<DataField>, options: &TableOptions) -> Result<Self> {
        let codec = codec(options)?;
        let marker = *uuid::Uuid::new_v4().as_bytes();
        let declared = avro_schema(&fields)?;
        let mut header = Writer::builder()
            .schema(&declared)
            .writer(Chunks::default())
            .codec(codec)
            .marker(marker)
            .build();
        header.flush()?;
        Ok(AvroWriter {
            schema: encoding_schema(&fields)?,
            fields,
            codec,
            marker,
            out: header.into_inner()?,
        })
    }

    /// Encodes a batch's rows as blocks.
    pub(crate) fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let mut writer =
            Writer::append_to_with_codec(&self.schema, &mut self.out, self.codec, self.marker);
        for row in 0..batch.num_rows() {
            let mut record = Vec::with_capacity(self.fields.len());
            for (f, c) in self.fields.iter().zip(batch.columns()) {
                record.push((f.name.clone(), cell(c.as_ref(), row, &f.data_type)?));
            }
            writer.append_value_ref(&Value::Record(record))?;
        }
        writer.flush()?;
        Ok(())
    }

    /// Bytes written so far (Java rolls Avro files on the bytes written too).
    pub(crate) fn estimated_size(&self) -> u64 {
        self.out.written()
    }

    /// The file's bytes written and not taken yet, taken out.
    pub(crate) fn take_written(&mut self) -> Vec<bytes::Bytes> {
        self.out.take()
    }

    /// Closes the file and returns its bytes not taken by [`Self::take_written`].
    pub(crate) fn finish(self) -> Chunks {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::Arc;

    use apache_avro::Reader;
    use arrow_array::builder::{Int32Builder, MapBuilder, StringBuilder};
    use arrow_array::{Int32Array, RecordBatch};
    use arrow_schema::{Field, Schema};

    use super::*;

    fn fields() -> Vec<DataField> {
        let key = DataType::not_null(TypeKind::VarChar(u32::MAX >> 1));
        let map = TypeKind::Map(Box::new(key), Box::new(DataType::nullable(TypeKind::Int)));
        vec![
            DataField::new(0, "id", DataType::not_null(TypeKind::Int)),
            DataField::new(1, "m", DataType::nullable(map)),
        ]
    }

    /// Rows 0..n: map `{"k<n-1>": n-1, ..., "k0": 0}` (descending keys), row 1 null.
    fn file(n: i32) -> Vec<u8> {
        let mut b = MapBuilder::new(None, StringBuilder::new(), Int32Builder::new());
        for row in 0..n {
            if row == 1 {
                b.append(false).unwrap();
                continue;
            }
            for k in (0..row).rev() {
                b.keys().append_value(format!("k{k}"));
                b.values().append_value(k);
            }
            b.append(true).unwrap();
        }
        let m = b.finish();
        let schema = Schema::new(vec![
            Field::new("id", arrow_schema::DataType::Int32, false),
            Field::new("m", m.data_type().clone(), true),
        ]);
        let batch = RecordBatch::try_new(
            Arc::new(schema),
            vec![Arc::new(Int32Array::from_iter_values(0..n)), Arc::new(m)],
        )
        .unwrap();
        // Uncompressed, so that the test can re-head the blocks (zstd is the default).
        let none = HashMap::from([("file.compression".to_string(), "none".to_string())]);
        let options = TableOptions::from_map(&none).unwrap();
        let mut w = AvroWriter::new(fields(), &options).unwrap();
        w.write(&batch).unwrap();
        w.finish().into_vec()
    }

    #[test]
    fn string_keyed_maps_are_declared_as_maps_and_written_in_order() {
        let bytes = file(6);
        // The file declares Java's schema (an Avro map) and reads as such.
        let reader = Reader::new(&bytes[..]).unwrap();
        assert_eq!(reader.writer_schema(), &avro_schema(&fields()).unwrap());
        let rows: Vec<Value> = reader.map(|r| r.unwrap()).collect();
        assert_eq!(rows.len(), 6);
        // The same blocks under a header declaring the entries schema: the entries in order.
        let marker: [u8; 16] = bytes[bytes.len() - 16..].try_into().unwrap();
        let body = bytes.windows(16).position(|w| w == marker).unwrap() + 16;
        let entries = encoding_schema(&fields()).unwrap();
        let mut header = Writer::builder()
            .schema(&entries)
            .writer(Vec::new())
            .marker(marker)
            .build();
        header.flush().unwrap();
        let mut swapped = header.into_inner().unwrap();
        swapped.extend_from_slice(&bytes[body..]);
        let rows: Vec<Value> = Reader::new(&swapped[..])
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        let Value::Record(fields) = &rows[5] else {
            panic!("{:?}", rows[5])
        };
        let Value::Union(1, m) = &fields[1].1 else {
            panic!("{fields:?}")
        };
        let Value::Array(entries) = m.as_ref() else {
            panic!("{m:?}")
        };
        let keys: Vec<&Value> = entries
            .iter()
            .map(|e| match e {
                Value::Record(kv) => &kv[0].1,
                other => panic!("{other:?}"),
            })
            .collect();
        let want: Vec<Value> = (0..5)
            .rev()
            .map(|k| Value::String(format!("k{k}")))
            .collect();
        assert_eq!(keys, want.iter().collect::<Vec<_>>());
        assert_eq!(
            fields_of_null_row(&rows[1]),
            Value::Union(0, Box::new(Value::Null))
        );
    }

    fn fields_of_null_row(row: &Value) -> Value {
        match row {
            Value::Record(f) => f[1].1.clone(),
            other => panic!("{other:?}"),
        }
    }
}
