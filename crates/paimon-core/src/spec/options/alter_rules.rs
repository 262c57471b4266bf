//! What ALTER TABLE may do to options, and the options that steer column changes.
//!
//! Mirrors Java `SchemaManager#checkAlterTableOption` / `#checkResetTableOption` and the
//! `@Immutable` options of `CoreOptions` (Paimon 2.0). The option checks apply once the table
//! has a snapshot, as in Java; `type` never changes.

use super::{BUCKET, BUCKET_KEY, DELETION_VECTORS_ENABLED, SEQUENCE_FIELD};
use crate::spec::schema::SchemaOptions;
use crate::{Error, Result};

/// Options that cannot change once a table has data (Java `CoreOptions` `@Immutable`).
pub const IMMUTABLE_OPTIONS: &[&str] = &[
    "bucket-key",
    "bucket-function.type",
    "merge-engine",
    "sequence.snapshot-ordering",
    "partial-update.remove-record-on-delete",
    "aggregation.remove-record-on-delete",
    "first-row.remove-record-on-delete",
    "partial-update.remove-record-on-sequence-group",
    "rowkind.field",
    "primary-key",
    "partition",
    "data-file.path-directory",
    "dynamic-bucket.initial-buckets",
    "force-lookup",
    "row-tracking.enabled",
    "data-evolution.enabled",
    "index-file-in-data-file-dir",
    "blob-field",
    "blob-descriptor-field",
    "blob-view-field",
    "pk-clustering-override",
];

const TYPE: &str = "type";
const DELETION_VECTORS_MODIFIABLE: &str = "deletion-vectors.modifiable";
const MONOTONE_TRUE: &[&str] = &["ignore-delete", "ignore-update-before"];

fn unsupported(key: &str) -> Error {
    Error::invalid_argument(format!("Change '{key}' is not supported yet."))
        .with_context("option", key)
}

fn flag(options: &SchemaOptions, key: &str, default: bool) -> bool {
    options
        .get(key)
        .map_or(default, |v| v.trim().eq_ignore_ascii_case("true"))
}

/// Checks setting `key` from `old` to `new` on a table (Java `checkAlterTableOption`);
/// `has_snapshot` says whether the table has data.
pub fn check_set_option(
    old_options: &SchemaOptions,
    key: &str,
    new: &str,
    has_snapshot: bool,
) -> Result<()> {
    if key == TYPE {
        return Err(unsupported(key));
    }
    if !has_snapshot {
        return Ok(());
    }
    if IMMUTABLE_OPTIONS.contains(&key) {
        return Err(unsupported(key));
    }
    let old = old_options.get(key).map(String::as_str);
    if key == BUCKET {
        let parse = |v: &str| {
            v.trim().parse::<i32>().map_err(|_| {
                Error::invalid_argument(format!("Could not parse value '{v}' for key '{BUCKET}'."))
                    .with_context("option", BUCKET)
            })
        };
        let old_bucket = old.map_or(Ok(-1), parse)?;
        if old_bucket == -1 {
            return Err(
                Error::invalid_argument("Cannot change bucket when it is -1.")
                    .with_context("option", BUCKET),
            );
        }
        if parse(new)? == -1 {
            return Err(Error::invalid_argument("Cannot change bucket to -1.")
                .with_context("option", BUCKET));
        }
    }
    let new_flag = new.trim().eq_ignore_ascii_case("true");
    if key == DELETION_VECTORS_ENABLED && !flag(old_options, DELETION_VECTORS_MODIFIABLE, false) {
        let old_flag = flag(old_options, key, false);
        if old_flag != new_flag {
            return Err(Error::invalid_argument(format!(
                "Cannot change deletion vectors mode from {old_flag} to {new_flag}. If modifying table deletion-vectors mode without full-compaction, this may result in data duplication. If you are confident, you can set table option '{DELETION_VECTORS_MODIFIABLE}' = 'true' to allow deletion vectors modification."
            ))
            .with_context("option", key));
        }
    }
    if MONOTONE_TRUE.contains(&key) && flag(old_options, key, false) && !new_flag {
        return Err(
            Error::invalid_argument(format!("Cannot change {key} from true to false."))
                .with_context("option", key),
        );
    }
    Ok(())
}

/// Checks removing `key` (Java `checkResetTableOption`).
pub fn check_remove_option(key: &str, has_snapshot: bool) -> Result<()> {
    if key == TYPE {
        return Err(unsupported(key));
    }
    if !has_snapshot {
        return Ok(());
    }
    if IMMUTABLE_OPTIONS.contains(&key) {
        return Err(unsupported(key));
    }
    if key == BUCKET {
        return Err(Error::invalid_argument("Cannot reset bucket.").with_context("option", BUCKET));
    }
    Ok(())
}

/// The options of the old schema that steer column changes (Java `SchemaManager`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AlterFlags {
    /// `alter-column-null-to-not-null.disabled` (default true).
    pub disable_null_to_not_null: bool,
    /// `disable-explicit-type-casting` (default false).
    pub disable_explicit_type_casting: bool,
    /// `add-column-before-partition` (default false).
    pub add_column_before_partition: bool,
}

impl AlterFlags {
    /// The flags of a schema's options.
    pub fn of(options: &SchemaOptions) -> Self {
        AlterFlags {
            disable_null_to_not_null: flag(options, "alter-column-null-to-not-null.disabled", true),
            disable_explicit_type_casting: flag(options, "disable-explicit-type-casting", false),
            add_column_before_partition: flag(options, "add-column-before-partition", false),
        }
    }
}

/// `columns` with each renamed column replaced, order kept.
pub fn rename_all(columns: &[String], renames: &[(String, String)]) -> Vec<String> {
    columns
        .iter()
        .map(|c| {
            renames.iter().fold(
                c.clone(),
                |c, (old, new)| if c == *old { new.clone() } else { c },
            )
        })
        .collect()
}

fn rename_list(value: &str, renames: &[(String, String)]) -> String {
    let items: Vec<String> = value.split(',').map(str::to_string).collect();
    rename_all(&items, renames).join(",")
}

/// The options after renaming columns `(old, new)`: `bucket-key`, `sequence.field`,
/// `fields.<col>.{aggregate-function,ignore-retract,distinct,list-agg-delimiter}` keys and
/// `fields.<cols>.{sequence-group,nested-key}` keys and values (Java
/// `SchemaManager#applyRenameColumnsToOptions`), each option kept in its place.
pub fn rename_in_options(options: &SchemaOptions, renames: &[(String, String)]) -> SchemaOptions {
    if renames.is_empty() {
        return options.clone();
    }
    const PER_FIELD: [&str; 4] = [
        "aggregate-function",
        "ignore-retract",
        "distinct",
        "list-agg-delimiter",
    ];
    const GROUPED: [&str; 2] = ["sequence-group", "nested-key"];
    options
        .iter()
        .map(|(k, v)| {
            if (k == BUCKET_KEY || k == SEQUENCE_FIELD) && !v.trim().is_empty() {
                return (k.clone(), rename_list(v, renames));
            }
            let Some((names, suffix)) = k.strip_prefix("fields.").and_then(|r| r.rsplit_once('.'))
            else {
                return (k.clone(), v.clone());
            };
            if PER_FIELD.contains(&suffix) {
                (
                    format!("fields.{}.{suffix}", rename_list(names, renames)),
                    v.clone(),
                )
            } else if GROUPED.contains(&suffix) {
                (
                    format!("fields.{}.{suffix}", rename_list(names, renames)),
                    rename_list(v, renames),
                )
            } else {
                (k.clone(), v.clone())
            }
        })
        .collect()
}
