//! A small generic record model shared by the Avro, ORC and Parquet manifest decoders.
//!
//! Manifest rows are decoded first into [`Record`]s (field names + values) and then converted
//! into typed structs by **field name**, as Java's `FieldReaderFactory.RowReader` does: a field
//! missing from the file reads as null, extra writer fields are ignored. Field names of one
//! record type are shared between rows through an `Arc`, so per-row cost is just the values.
//!
//! Type normalisation: TINYINT/SMALLINT/INT → [`Value::Int`], BIGINT and timestamps (as epoch
//! millis of the stored wall clock) → [`Value::Long`], STRING → [`Value::String`], BYTES →
//! [`Value::Bytes`]. Unions are resolved while decoding, so a value is never a union.

use std::sync::Arc;

use crate::{Error, Result};

/// One decoded value of a manifest row.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    /// Null, or the null branch of a union.
    Null,
    /// Avro `boolean`.
    Boolean(bool),
    /// 8/16/32-bit integers (Avro `int`, ORC tinyint/smallint/int).
    Int(i32),
    /// 64-bit integers and timestamps as epoch millis.
    Long(i64),
    /// Avro `float`.
    Float(f32),
    /// Avro `double`.
    Double(f64),
    /// Avro `bytes`/`fixed`, ORC binary.
    Bytes(Vec<u8>),
    /// Avro `string`/`enum`, ORC string.
    String(String),
    /// A nested record.
    Record(Record),
    /// An array/list.
    Array(Vec<Value>),
    /// A map with string keys.
    Map(Vec<(String, Value)>),
}

impl Value {
    /// A short type name for error messages.
    pub(crate) fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Boolean(_) => "boolean",
            Value::Int(_) => "int",
            Value::Long(_) => "long",
            Value::Float(_) => "float",
            Value::Double(_) => "double",
            Value::Bytes(_) => "bytes",
            Value::String(_) => "string",
            Value::Record(_) => "record",
            Value::Array(_) => "array",
            Value::Map(_) => "map",
        }
    }
}

/// Field names of one record type, shared by all its rows.
pub(crate) type Shape = Arc<[String]>;

/// A record: values addressed by field name.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Record {
    names: Shape,
    values: Vec<Value>,
}

impl Record {
    /// A record; `values` are in the order of `names` (extra values are ignored).
    pub(crate) fn new(names: Shape, values: Vec<Value>) -> Self {
        Record { names, values }
    }

    /// The value of field `name`, `None` when the field does not exist.
    pub(crate) fn get(&self, name: &str) -> Option<&Value> {
        let pos = self.names.iter().position(|n| n == name)?;
        self.values.get(pos)
    }

    /// Moves the value of `name` out; `None` when missing or null.
    pub(crate) fn take(&mut self, name: &str) -> Option<Value> {
        let pos = self.names.iter().position(|n| n == name)?;
        match self
            .values
            .get_mut(pos)
            .map(|v| std::mem::replace(v, Value::Null))
        {
            None | Some(Value::Null) => None,
            some => some,
        }
    }
}

/// Typed, name-based access to one record; errors name the structure and field.
pub(crate) struct FieldReader {
    record: Record,
    what: &'static str,
}

fn mismatch(what: &str, name: &str, expected: &str, found: &Value) -> Error {
    Error::data_invalid(format!("{what}: field `{name}` has the wrong type"))
        .with_context("field", name)
        .with_context("expected", expected)
        .with_context("found", found.type_name())
}

macro_rules! typed {
    ($req:ident, $opt:ident, $t:ty, $expected:literal, $conv:ident) => {
        #[doc = concat!("Required `", $expected, "` field.")]
        pub(crate) fn $req(&mut self, name: &str) -> Result<$t> {
            let v = self.required(name)?;
            self.$conv(name, v)
        }
        #[doc = concat!("Optional `", $expected, "` field.")]
        pub(crate) fn $opt(&mut self, name: &str) -> Result<Option<$t>> {
            match self.record.take(name) {
                None => Ok(None),
                Some(v) => self.$conv(name, v).map(Some),
            }
        }
    };
}

impl FieldReader {
    /// Reads fields of `record`, a `what` (e.g. `"DataFileMeta"`) in error messages.
    pub(crate) fn new(record: Record, what: &'static str) -> Self {
        FieldReader { record, what }
    }

    /// Wraps a nested record value of field `name`.
    pub(crate) fn nested(&self, name: &str, v: Value, what: &'static str) -> Result<FieldReader> {
        match v {
            Value::Record(r) => Ok(FieldReader::new(r, what)),
            other => Err(mismatch(self.what, name, "record", &other)),
        }
    }

    fn required(&mut self, name: &str) -> Result<Value> {
        if self.record.get(name).is_none() {
            return Err(Error::data_invalid(format!(
                "{}: missing required field `{name}`",
                self.what
            ))
            .with_context("field", name));
        }
        self.record.take(name).ok_or_else(|| {
            Error::data_invalid(format!("{}: required field `{name}` is null", self.what))
                .with_context("field", name)
        })
    }

    fn conv_i32(&self, name: &str, v: Value) -> Result<i32> {
        match v {
            Value::Int(i) => Ok(i),
            other => Err(mismatch(self.what, name, "int", &other)),
        }
    }

    fn conv_i64(&self, name: &str, v: Value) -> Result<i64> {
        match v {
            Value::Long(i) => Ok(i),
            Value::Int(i) => Ok(i64::from(i)),
            other => Err(mismatch(self.what, name, "long", &other)),
        }
    }

    fn conv_i8(&self, name: &str, v: Value) -> Result<i8> {
        let i = self.conv_i32(name, v)?;
        i8::try_from(i).map_err(|_| {
            Error::data_invalid(format!(
                "{}: field `{name}` out of TINYINT range",
                self.what
            ))
            .with_context("field", name)
            .with_context("found", i.to_string())
        })
    }

    fn conv_string(&self, name: &str, v: Value) -> Result<String> {
        match v {
            Value::String(s) => Ok(s),
            other => Err(mismatch(self.what, name, "string", &other)),
        }
    }

    fn conv_bytes(&self, name: &str, v: Value) -> Result<Vec<u8>> {
        match v {
            Value::Bytes(b) => Ok(b),
            other => Err(mismatch(self.what, name, "bytes", &other)),
        }
    }

    fn conv_array(&self, name: &str, v: Value) -> Result<Vec<Value>> {
        match v {
            Value::Array(a) => Ok(a),
            other => Err(mismatch(self.what, name, "array", &other)),
        }
    }

    fn conv_strings(&self, name: &str, v: Value) -> Result<Vec<String>> {
        self.conv_array(name, v)?
            .into_iter()
            .map(|e| match e {
                Value::String(s) => Ok(s),
                other => Err(mismatch(self.what, name, "array<string not null>", &other)),
            })
            .collect()
    }

    typed!(req_i32, opt_i32, i32, "int", conv_i32);
    typed!(req_i64, opt_i64, i64, "long", conv_i64);
    typed!(req_i8, opt_i8, i8, "tinyint", conv_i8);
    typed!(req_string, opt_string, String, "string", conv_string);
    typed!(req_bytes, opt_bytes, Vec<u8>, "bytes", conv_bytes);

    /// Optional `array` field.
    pub(crate) fn opt_array(&mut self, name: &str) -> Result<Option<Vec<Value>>> {
        match self.record.take(name) {
            None => Ok(None),
            Some(v) => self.conv_array(name, v).map(Some),
        }
    }
    typed!(
        req_strings,
        opt_strings,
        Vec<String>,
        "array<string>",
        conv_strings
    );

    /// Required nested record, read as a `what`.
    pub(crate) fn req_record(&mut self, name: &str, what: &'static str) -> Result<FieldReader> {
        let v = self.required(name)?;
        self.nested(name, v, what)
    }

    /// Optional nested record, read as a `what`.
    pub(crate) fn opt_record(
        &mut self,
        name: &str,
        what: &'static str,
    ) -> Result<Option<FieldReader>> {
        match self.record.take(name) {
            None => Ok(None),
            Some(v) => self.nested(name, v, what).map(Some),
        }
    }

    /// Checks the `_VERSION` field against the only version this reader understands.
    pub(crate) fn check_version(&mut self, expected: i32) -> Result<()> {
        let found = self.req_i32("_VERSION")?;
        if found != expected {
            return Err(Error::data_invalid(format!(
                "{}: unsupported _VERSION {found}",
                self.what
            ))
            .with_context("field", "_VERSION")
            .with_context("expected", expected.to_string())
            .with_context("found", found.to_string()));
        }
        Ok(())
    }

    /// The structure name used in errors.
    pub(crate) fn what(&self) -> &'static str {
        self.what
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec() -> Record {
        let names: Shape = vec!["a".to_string(), "b".to_string(), "c".to_string()].into();
        Record::new(
            names,
            vec![Value::Int(7), Value::Null, Value::String("x".into())],
        )
    }

    #[test]
    fn lookup_by_name_missing_and_null() {
        let mut r = FieldReader::new(rec(), "T");
        assert_eq!(r.req_i64("a").unwrap(), 7);
        assert_eq!(r.opt_i32("b").unwrap(), None);
        assert_eq!(r.opt_i32("zz").unwrap(), None);
        let e = r.req_i32("b").unwrap_err();
        assert!(e.to_string().contains("required field `b` is null"), "{e}");
        let e = r.req_i32("zz").unwrap_err();
        assert!(e.to_string().contains("missing required field `zz`"), "{e}");
        let e = r.req_i32("c").unwrap_err();
        assert!(e.to_string().contains("expected: int"), "{e}");
    }

    #[test]
    fn version_check_names_field() {
        let names: Shape = vec!["_VERSION".to_string()].into();
        let mut r = FieldReader::new(Record::new(names, vec![Value::Int(3)]), "ManifestEntry");
        let e = r.check_version(2).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid data: ManifestEntry: unsupported _VERSION 3 (field: _VERSION) (expected: 2) (found: 3)"
        );
    }
}
