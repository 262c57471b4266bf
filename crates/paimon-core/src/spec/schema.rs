//! Table schema files `schema/schema-<N>`.
//!
//! Mirrors Java `org.apache.paimon.schema.TableSchema` and `SchemaSerializer` (Paimon 2.0),
//! including the version-dependent defaults applied on read: `version <= 1` without `bucket`
//! means `bucket = 1`; `version <= 2` without `file.format` means `file.format = orc`.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

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
    /// All table options as stored.
    #[serde(default)]
    pub options: HashMap<String, String>,
    /// Optional comment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// Creation time.
    #[serde(default)]
    pub time_millis: i64,
}

fn default_version() -> i32 {
    1
}

impl TableSchema {
    /// Parses a schema file, applying Java's version-dependent option defaults.
    pub fn from_json_bytes(bytes: &[u8]) -> Result<Self> {
        let mut schema: TableSchema = serde_json::from_slice(bytes)?;
        if schema.version <= 1 && !schema.options.contains_key("bucket") {
            schema.options.insert("bucket".into(), "1".into());
        }
        if schema.version <= 2 && !schema.options.contains_key("file.format") {
            schema.options.insert("file.format".into(), "orc".into());
        }
        schema.validate()?;
        Ok(schema)
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
}
