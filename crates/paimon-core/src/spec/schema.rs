//! Table schema files `schema/schema-<N>`.
//!
//! Mirrors Java `org.apache.paimon.schema.TableSchema` and `SchemaSerializer` (Paimon 2.0),
//! including the version-dependent defaults applied on read: `version <= 1` without `bucket`
//! means `bucket = 1`; `version <= 2` without `file.format` means `file.format = orc`.
//! [`TableSchema::to_json`] writes the file as Java does (Jackson's pretty printer, options in
//! their stored order), so a schema read and written again is byte-identical.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::spec::types::{DataField, DataType};
use crate::{Error, Result};

/// One version of a table's schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TableSchema {
    /// Schema file format version (3 today; absent = 1).
    #[serde(default = "default_version")]
    pub version: i32,
    /// Schema id = N of `schema-<N>`.
    pub id: i64,
    /// Columns in table order.
    pub fields: Vec<DataField>,
    /// The highest field id ever allocated.
    #[serde(default)]
    pub highest_field_id: i32,
    /// Partition columns, in order.
    #[serde(default)]
    pub partition_keys: Vec<String>,
    /// Primary-key columns (may include partition columns).
    #[serde(default)]
    pub primary_keys: Vec<String>,
    /// All table options as stored, in their stored order.
    #[serde(default)]
    pub options: SchemaOptions,
    /// Optional comment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// Creation time.
    #[serde(default)]
    pub time_millis: i64,
}

/// A schema's option map: insertion-ordered, so a schema file is written back in its order.
pub type SchemaOptions = IndexMap<String, String>;

/// `options` in the iteration order of a Java `HashMap` copied from them (`new
/// HashMap<>(options)`, as Java's `SchemaManager` builds a schema's option map): capacity
/// `tableSizeFor((int) (n / 0.75 + 1))`, entries by bucket index `(h ^ (h >>> 16)) &
/// (capacity - 1)` of `String#hashCode` (UTF-16 code units), keys of one bucket in their
/// given order. Every Java-written schema file's options follow this order.
pub fn java_hash_map_order(options: &SchemaOptions) -> SchemaOptions {
    let n = options.len();
    if n == 0 {
        return options.clone();
    }
    let capacity = java_hash_map_capacity(n);
    let mut entries: Vec<(usize, usize, &String, &String)> = options
        .iter()
        .enumerate()
        .map(|(i, (k, v))| (java_hash_bucket(k, capacity), i, k, v))
        .collect();
    entries.sort_by_key(|&(b, i, _, _)| (b, i));
    entries
        .into_iter()
        .map(|(_, _, k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The table size of `new HashMap<>(m)` for `n` entries: `tableSizeFor((int) (n / 0.75 + 1))`.
pub(crate) fn java_hash_map_capacity(n: usize) -> usize {
    ((n as f64 / 0.75 + 1.0) as usize)
        .max(1)
        .next_power_of_two()
}

/// The bucket of `key` in a Java `HashMap` of `capacity` (a power of two):
/// `(h ^ (h >>> 16)) & (capacity - 1)` of `String#hashCode`.
pub(crate) fn java_hash_bucket(key: &str, capacity: usize) -> usize {
    let h = key
        .encode_utf16()
        .fold(0u32, |h, u| h.wrapping_mul(31).wrapping_add(u32::from(u)));
    ((h ^ (h >> 16)) as usize) & (capacity - 1)
}

/// The schema file format version this crate writes (Java `TableSchema.CURRENT_VERSION`).
pub const CURRENT_VERSION: i32 = 3;

fn default_version() -> i32 {
    1
}

impl TableSchema {
    /// Parses a schema file, applying Java's version-dependent option defaults.
    pub fn from_json_bytes(bytes: &[u8]) -> Result<Self> {
        let mut schema = Self::from_json_bytes_raw(bytes)?;
        if schema.version <= 1 && !schema.options.contains_key("bucket") {
            schema.options.insert("bucket".into(), "1".into());
        }
        if schema.version <= 2 && !schema.options.contains_key("file.format") {
            schema.options.insert("file.format".into(), "orc".into());
        }
        schema.validate()?;
        Ok(schema)
    }

    /// Parses a schema file exactly as stored: no version defaults added, no checks.
    pub fn from_json_bytes_raw(bytes: &[u8]) -> Result<Self> {
        Ok(serde_json::from_slice(bytes)?)
    }

    /// The schema file text Java writes (`SchemaSerializer` through Jackson's default pretty
    /// printer): keys `version`, `id`, `fields`, `highestFieldId`, `partitionKeys`,
    /// `primaryKeys`, `options` (in stored order), `comment` (if set), `timeMillis`.
    pub fn to_json(&self) -> Result<String> {
        let value: Value = serde_json::to_value(self)?;
        Ok(crate::spec::json_pretty::to_jackson_pretty(&value))
    }

    fn validate(&self) -> Result<()> {
        for key in self.partition_keys.iter().chain(&self.primary_keys) {
            if self.field(key).is_none() {
                return Err(Error::data_invalid(format!(
                    "schema {} names key column '{key}' that is not a field",
                    self.id
                )));
            }
        }
        if !self.primary_keys.is_empty() && self.trimmed_primary_keys().is_empty() {
            return Err(Error::data_invalid(format!(
                "schema {}: primary key equals the partition keys",
                self.id
            )));
        }
        Ok(())
    }

    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&DataField> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The metadata columns a read of this table offers (see
    /// [`special_fields::metadata_fields`](crate::spec::special_fields::metadata_fields)).
    pub fn metadata_fields(&self) -> Vec<DataField> {
        crate::spec::special_fields::metadata_fields(self.has_primary_key())
    }

    /// The fields named `columns`, in that order: table columns or metadata columns
    /// ([`TableSchema::metadata_fields`]). An unknown name is an `InvalidArgument` error.
    pub fn project(&self, columns: &[String]) -> crate::Result<Vec<DataField>> {
        let metadata = self.metadata_fields();
        columns
            .iter()
            .map(|c| {
                let meta = || metadata.iter().find(|m| m.name == *c).cloned();
                self.field(c).cloned().or_else(meta).ok_or_else(|| {
                    crate::Error::invalid_argument(format!(
                        "unknown column '{c}' (columns: {})",
                        self.fields
                            .iter()
                            .map(|f| f.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                })
            })
            .collect()
    }

    /// The field with id `id`.
    pub fn field_by_id(&self, id: i32) -> Option<&DataField> {
        self.fields.iter().find(|f| f.id == id)
    }

    /// The position of the field named `name`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }

    /// Primary keys minus partition keys, in order.
    pub fn trimmed_primary_keys(&self) -> Vec<String> {
        self.primary_keys
            .iter()
            .filter(|k| !self.partition_keys.contains(k))
            .cloned()
            .collect()
    }

    /// Option `bucket-key` split on `,` if set and non-blank, else the trimmed primary keys.
    pub fn bucket_keys(&self) -> Vec<String> {
        crate::spec::options::stored_bucket_key(&self.options)
            .unwrap_or_else(|| self.trimmed_primary_keys())
    }

    /// Fields of `names`, in that order; an error names the first missing one.
    pub fn fields_of(&self, names: &[String]) -> Result<Vec<DataField>> {
        names
            .iter()
            .map(|n| {
                self.field(n).cloned().ok_or_else(|| {
                    Error::data_invalid(format!("schema {} has no column '{n}'", self.id))
                })
            })
            .collect()
    }

    /// The partition columns.
    pub fn partition_fields(&self) -> Result<Vec<DataField>> {
        self.fields_of(&self.partition_keys)
    }

    /// Types of the partition columns, in order.
    pub fn partition_types(&self) -> Result<Vec<DataType>> {
        Ok(self
            .partition_fields()?
            .into_iter()
            .map(|f| f.data_type)
            .collect())
    }

    /// Whether the table has a primary key.
    pub fn has_primary_key(&self) -> bool {
        !self.primary_keys.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_defaults() {
        let v1 = br#"{"id":0,"fields":[{"id":0,"name":"a","type":"INT"}],"options":{}}"#;
        let s = TableSchema::from_json_bytes(v1).unwrap();
        assert_eq!(s.options["bucket"], "1");
        assert_eq!(s.options["file.format"], "orc");
        let v3 = br#"{"version":3,"id":0,"fields":[],"options":{}}"#;
        let s = TableSchema::from_json_bytes(v3).unwrap();
        assert!(!s.options.contains_key("bucket"));
    }

    #[test]
    fn keys_are_derived() {
        let j = br#"{"version":3,"id":1,"fields":[{"id":0,"name":"dt","type":"STRING"},{"id":1,"name":"k","type":"INT"}],
            "partitionKeys":["dt"],"primaryKeys":["dt","k"],"options":{}}"#;
        let s = TableSchema::from_json_bytes(j).unwrap();
        assert_eq!(s.trimmed_primary_keys(), vec!["k"]);
        assert_eq!(s.bucket_keys(), vec!["k"]);
        let bad = br#"{"version":3,"id":1,"fields":[],"partitionKeys":["dt"],"options":{}}"#;
        assert!(TableSchema::from_json_bytes(bad).is_err());
    }

    /// Every Java-written schema file decodes and encodes back byte for byte.
    #[test]
    fn java_schema_files_re_encode_byte_for_byte() {
        let mut checked = 0;
        let mut stack = vec![crate::test_util::java_fixtures()];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).unwrap() {
                let p = e.unwrap().path();
                let name = p.file_name().unwrap().to_str().unwrap().to_string();
                if p.is_dir() {
                    stack.push(p);
                } else if p.parent().is_some_and(|d| d.ends_with("schema"))
                    && name.starts_with("schema-")
                {
                    let bytes = std::fs::read(&p).unwrap();
                    let schema = TableSchema::from_json_bytes_raw(&bytes).unwrap();
                    assert_eq!(
                        schema.to_json().unwrap().as_bytes(),
                        &bytes[..],
                        "{}",
                        p.display()
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 50, "only {checked} schema files");
    }
}
