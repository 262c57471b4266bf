//! Primary-key global index definitions (`pk-btree.index.columns`, `pk-bitmap.index.columns`
//! and their per-field JSON options).
//!
//! Mirrors Java `org.apache.paimon.index.pk.PrimaryKeyIndexDefinitions`,
//! `PrimaryKeyIndexDefinition` and `org.apache.paimon.CoreOptions#primaryKeySortedIndexOptions`
//! (Paimon 2.0); see `docs/format.md` "Primary-key global index".

use std::collections::{BTreeMap, HashSet};

use super::{BucketMode, TableOptions, PK_BITMAP_INDEX_COLUMNS, PK_BTREE_INDEX_COLUMNS};
use crate::spec::schema::TableSchema;
use crate::spec::types::DataType;
use crate::{Error, ErrorKind, Result};

/// Removed from every definition's options (Java `CoreOptions#primaryKeySortedIndexOptions`).
const SORTED_INDEX_RECORDS_PER_RANGE: &str = "sorted-index.records-per-range";

/// The scalar index families of the primary-key global index (Java `PrimaryKeyIndexFamily`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PkIndexFamily {
    /// `pk-btree`: BTree (SST) payloads.
    BTree,
    /// `pk-bitmap`: bitmap payloads (`index::bitmap_global`).
    Bitmap,
}

impl PkIndexFamily {
    /// The `_INDEX_TYPE` of the family's payloads: `btree` or `bitmap`.
    pub fn index_type(self) -> &'static str {
        match self {
            PkIndexFamily::BTree => "btree",
            PkIndexFamily::Bitmap => "bitmap",
        }
    }

    /// The option family (`pk-btree`, `pk-bitmap`) of `fields.<col>.<family>.index.options`.
    fn option_family(self) -> &'static str {
        match self {
            PkIndexFamily::BTree => "pk-btree",
            PkIndexFamily::Bitmap => "pk-bitmap",
        }
    }

    /// The prefix of unqualified per-field option keys (`btree-index.`, `bitmap-index.`).
    fn algorithm_prefix(self) -> &'static str {
        match self {
            PkIndexFamily::BTree => "btree-index.",
            PkIndexFamily::Bitmap => "bitmap-index.",
        }
    }
}

/// One primary-key index definition: an indexed column and its resolved options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PkIndexDefinition {
    /// Column name.
    pub column: String,
    /// Field id of the column.
    pub field_id: i32,
    /// Type of the column.
    pub data_type: DataType,
    /// The family.
    pub family: PkIndexFamily,
    /// The index options of the definition: every `btree-index.*` / `bitmap-index.*` key of the
    /// table options with the per-field JSON options applied (table options other than these
    /// prefixes are left out).
    pub options: BTreeMap<String, String>,
}

/// BTree build options of a definition (Java
/// `org.apache.paimon.globalindex.btree.BTreeIndexOptions`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BTreeBuildOptions {
    /// `btree-index.block-size` (default 64 KiB).
    pub block_size: usize,
    /// `btree-index.compression`: `none` (default), `zstd`, `lz4`.
    pub compression: String,
    /// `btree-index.compression-level` (default 1).
    pub compression_level: i32,
}

impl PkIndexDefinition {
    /// `_INDEX_TYPE` of the payloads (`btree`, `bitmap`).
    pub fn index_type(&self) -> &'static str {
        self.family.index_type()
    }

    /// The BTree build options; a bad value is `InvalidArgument` naming the option.
    pub fn btree_build_options(&self) -> Result<BTreeBuildOptions> {
        let get = |k: &str| self.options.get(k).map(|v| v.trim());
        let block_size = match get("btree-index.block-size") {
            None => 64 << 10,
            Some(v) => super::MemorySize::parse(v)
                .ok()
                .and_then(|m| usize::try_from(m.bytes()).ok())
                .filter(|n| *n > 0)
                .ok_or_else(|| {
                    Error::invalid_argument(format!("invalid btree-index.block-size '{v}'"))
                })?,
        };
        let compression_level = match get("btree-index.compression-level") {
            None => 1,
            Some(v) => v.parse().map_err(|_| {
                Error::invalid_argument(format!("invalid btree-index.compression-level '{v}'"))
            })?,
        };
        Ok(BTreeBuildOptions {
            block_size,
            compression: get("btree-index.compression").unwrap_or("none").to_string(),
            compression_level,
        })
    }
}

/// Java's option lists checks: a duplicate within one list, a column in two families.
pub(super) fn validate_columns(btree: &[String], bitmap: &[String], kind: ErrorKind) -> Result<()> {
    let mut owned = HashSet::new();
    for (key, columns) in [
        (PK_BTREE_INDEX_COLUMNS, btree),
        (PK_BITMAP_INDEX_COLUMNS, bitmap),
    ] {
        let mut unique = HashSet::new();
        for c in columns {
            if !unique.insert(c.as_str()) {
                return Err(
                    Error::new(kind, format!("{key} contains duplicate column '{c}'."))
                        .with_context("option", key),
                );
            }
        }
    }
    for (key, columns) in [
        (PK_BTREE_INDEX_COLUMNS, btree),
        (PK_BITMAP_INDEX_COLUMNS, bitmap),
    ] {
        for c in columns {
            if !owned.insert(c.as_str()) {
                return Err(Error::new(
                    kind,
                    format!("Column '{c}' can own at most one primary-key index."),
                )
                .with_context("option", key));
            }
        }
    }
    Ok(())
}

impl TableOptions {
    /// The scalar primary-key index definitions of `schema`, in schema field order. Errors
    /// (`DataInvalid`): a bad per-field JSON option (not a flat object of scalars, an empty key,
    /// a null, or a value conflicting with a table option).
    pub fn pk_index_definitions(&self, schema: &TableSchema) -> Result<Vec<PkIndexDefinition>> {
        let mut out = Vec::new();
        for field in &schema.fields {
            let family = if self.pk_btree_index_columns.contains(&field.name) {
                PkIndexFamily::BTree
            } else if self.pk_bitmap_index_columns.contains(&field.name) {
                PkIndexFamily::Bitmap
            } else {
                continue;
            };
            out.push(PkIndexDefinition {
                column: field.name.clone(),
                field_id: field.id,
                data_type: field.data_type.clone(),
                family,
                options: self.definition_options(&field.name, family)?,
            });
        }
        Ok(out)
    }

    /// Why the table cannot use the primary-key global index, if it cannot: it needs a primary
    /// key, a fixed or postpone bucket, deletion vectors and no deletion-vector merge-on-read.
    pub fn pk_index_unsupported_reason(&self, schema: &TableSchema) -> Option<&'static str> {
        if !schema.has_primary_key() {
            Some("not a primary-key table")
        } else if !matches!(self.bucket, BucketMode::Fixed(_) | BucketMode::Postpone) {
            Some("bucket is neither fixed nor postpone")
        } else if !self.deletion_vectors_enabled {
            Some("deletion-vectors.enabled is false")
        } else if self.deletion_vectors_merge_on_read {
            Some("deletion-vectors.merge-on-read is true")
        } else {
            None
        }
    }

    fn definition_options(
        &self,
        column: &str,
        family: PkIndexFamily,
    ) -> Result<BTreeMap<String, String>> {
        let prefix = family.algorithm_prefix();
        let mut resolved: BTreeMap<String, String> = self
            .raw
            .iter()
            .filter(|(k, _)| k.starts_with(prefix) && k.as_str() != SORTED_INDEX_RECORDS_PER_RANGE)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let key = format!("fields.{column}.{}.index.options", family.option_family());
        let Some(raw) = self.raw.get(&key).filter(|v| !v.trim().is_empty()) else {
            return Ok(resolved);
        };
        let err = |msg: String| Error::data_invalid(msg).with_context("option", key.clone());
        let json: serde_json::Value = serde_json::from_str(raw)
            .map_err(|e| err(format!("'{key}' is not valid JSON: {e}")))?;
        let serde_json::Value::Object(map) = json else {
            return Err(err(format!("'{key}' must be a JSON object")));
        };
        for (k, v) in map {
            if k.is_empty() {
                return Err(err(format!("'{key}' has an empty option key")));
            }
            let text = match v {
                serde_json::Value::String(s) => s,
                serde_json::Value::Bool(b) => b.to_string(),
                serde_json::Value::Number(n) => n.to_string(),
                serde_json::Value::Null => {
                    return Err(err(format!("'{key}' option '{k}' is null")));
                }
                _ => return Err(err(format!("'{key}' option '{k}' is not a scalar"))),
            };
            let full = if k.starts_with(prefix) || k.starts_with("fields.") {
                k
            } else {
                format!("{prefix}{k}")
            };
            let existing = self.raw.get(&full).or_else(|| resolved.get(&full));
            if let Some(old) = existing.filter(|old| **old != text) {
                return Err(err(format!(
                    "'{key}' sets '{full}' to '{text}', conflicting with '{old}'"
                )));
            }
            resolved.insert(full, text);
        }
        Ok(resolved)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn schema(options: &[(&str, &str)]) -> TableSchema {
        let json = serde_json::json!({
            "version": 3, "id": 0,
            "fields": [
                {"id": 0, "name": "id", "type": "INT NOT NULL"},
                {"id": 1, "name": "score", "type": "INT"},
                {"id": 2, "name": "tag", "type": "STRING"}
            ],
            "highestFieldId": 2, "partitionKeys": [], "primaryKeys": ["id"],
            "options": options.iter().map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<HashMap<_, _>>(),
            "timeMillis": 0
        });
        serde_json::from_value(json).unwrap()
    }

    fn opts(pairs: &[(&str, &str)]) -> Result<TableOptions> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        TableOptions::from_map(&map)
    }

    #[test]
    fn definitions_in_schema_order_with_field_options() {
        let pairs = [
            ("pk-btree.index.columns", "tag, score"),
            (
                "fields.score.pk-btree.index.options",
                r#"{"block-size":"64 kb","compression":"zstd","compression-level":3}"#,
            ),
            ("btree-index.cache-size", "1 mb"),
        ];
        let o = opts(&pairs).unwrap();
        let defs = o.pk_index_definitions(&schema(&pairs)).unwrap();
        assert_eq!(defs.len(), 2);
        assert_eq!((defs[0].column.as_str(), defs[0].field_id), ("score", 1));
        assert_eq!(defs[0].index_type(), "btree");
        assert_eq!(defs[0].options["btree-index.block-size"], "64 kb");
        assert_eq!(defs[0].options["btree-index.compression"], "zstd");
        assert_eq!(defs[0].options["btree-index.compression-level"], "3");
        assert_eq!(defs[0].options["btree-index.cache-size"], "1 mb");
        let b = defs[0].btree_build_options().unwrap();
        assert_eq!(
            (b.block_size, b.compression.as_str(), b.compression_level),
            (65536, "zstd", 3)
        );
        assert_eq!(defs[1].column, "tag");
        assert_eq!(defs[1].btree_build_options().unwrap().compression, "none");
        assert!(!defs[1].options.contains_key("btree-index.block-size"));
    }

    #[test]
    fn java_errors() {
        let e = opts(&[("pk-btree.index.columns", "a,b,a")]).unwrap_err();
        assert_eq!(
            e.message(),
            "pk-btree.index.columns contains duplicate column 'a'."
        );
        let e = opts(&[
            ("pk-btree.index.columns", "a"),
            ("pk-bitmap.index.columns", "b, a"),
        ])
        .unwrap_err();
        assert_eq!(
            e.message(),
            "Column 'a' can own at most one primary-key index."
        );
        for bad in [
            "[1]",
            r#"{"":"x"}"#,
            r#"{"a":null}"#,
            r#"{"a":{"b":1}}"#,
            "{",
        ] {
            let pairs = [
                ("pk-btree.index.columns", "score"),
                ("fields.score.pk-btree.index.options", bad),
            ];
            let o = opts(&pairs).unwrap();
            assert!(o.pk_index_definitions(&schema(&pairs)).is_err(), "{bad}");
        }
        let pairs = [
            ("pk-btree.index.columns", "score"),
            ("btree-index.block-size", "32 kb"),
            (
                "fields.score.pk-btree.index.options",
                r#"{"block-size":"64 kb"}"#,
            ),
        ];
        let o = opts(&pairs).unwrap();
        assert!(o.pk_index_definitions(&schema(&pairs)).is_err());
    }

    #[test]
    fn table_requirements() {
        let s = schema(&[]);
        let reason = |pairs: &[(&str, &str)]| opts(pairs).unwrap().pk_index_unsupported_reason(&s);
        assert!(reason(&[("bucket", "2"), ("deletion-vectors.enabled", "true")]).is_none());
        assert!(reason(&[("bucket", "-2"), ("deletion-vectors.enabled", "true")]).is_none());
        assert!(reason(&[("bucket", "-1"), ("deletion-vectors.enabled", "true")]).is_some());
        assert!(reason(&[("bucket", "2")]).is_some());
        assert!(reason(&[
            ("bucket", "2"),
            ("deletion-vectors.enabled", "true"),
            ("deletion-vectors.merge-on-read", "true")
        ])
        .is_some());
        assert!(opts(&[]).unwrap().global_index_enabled);
        assert!(
            !opts(&[("global-index.enabled", "false")])
                .unwrap()
                .global_index_enabled
        );
    }
}
