//! The checks a schema must pass before it is written, at CREATE TABLE and after every ALTER.
//!
//! Mirrors Java `org.apache.paimon.schema.SchemaValidation#validateTableSchema` (Paimon 2.0)
//! with its messages, for the rules this crate can decide: key column types, bucket and
//! bucket-key rules (dynamic `-1` and postpone `-2`), changelog producer, system column names,
//! `fields.*` columns, sequence fields, deletion vectors, first-row, row tracking, snapshot
//! retention, the primary-key index requirements and every typed option parsing (unknown
//! merge engine, bad `bucket`, ...). Not checked: default values, file-format specific field
//! checks, blob/vector layouts, chain tables and clustering. Errors are
//! [`ErrorKind::InvalidArgument`] with the offending option or column as context.

use super::{
    BucketMode, ChangelogProducer, FileFormat, MergeEngine, TableOptions, BUCKET, BUCKET_KEY,
    CHANGELOG_PRODUCER, DATA_EVOLUTION_ENABLED, DELETION_VECTORS_ENABLED, FILE_FORMAT,
    MERGE_ENGINE, PK_BTREE_INDEX_COLUMNS, ROW_TRACKING_ENABLED, SEQUENCE_FIELD,
};
use crate::spec::schema::TableSchema;
use crate::spec::types::{DataType, TypeKind};
use crate::{Error, ErrorKind, Result};

/// Column names a table may not use (Java `SystemColumns.SYSTEM_FIELD_NAMES`).
const SYSTEM_FIELD_NAMES: [&str; 5] = [
    "_SEQUENCE_NUMBER",
    "_VALUE_KIND",
    "_LEVEL",
    "rowkind",
    "_ROW_ID",
];
/// Prefix of the key columns in primary-key data files.
const KEY_FIELD_PREFIX: &str = "_KEY_";
const FULL_COMPACTION_DELTA_COMMITS: &str = "full-compaction.delta-commits";
const SNAPSHOT_NUM_RETAINED_MIN: &str = "snapshot.num-retained.min";
const SNAPSHOT_NUM_RETAINED_MAX: &str = "snapshot.num-retained.max";
const CHANGELOG_NUM_RETAINED_MIN: &str = "changelog.num-retained.min";
const FIELDS_PREFIX: &str = "fields.";
const FIELDS_DEFAULT_AGG: &str = "fields.default-aggregate-function";

fn invalid(message: impl Into<String>) -> Error {
    Error::invalid_argument(message)
}

fn java_list<S: AsRef<str>>(items: &[S]) -> String {
    let items: Vec<&str> = items.iter().map(AsRef::as_ref).collect();
    format!("[{}]", items.join(", "))
}

/// Validates `schema` (fields, keys and options) as Java does before writing a schema file.
pub fn validate_table_schema(schema: &TableSchema) -> Result<()> {
    key_types(schema, &schema.primary_keys, "primary key")?;
    key_types(schema, &schema.partition_keys, "partition")?;
    if schema.has_primary_key() && schema.trimmed_primary_keys().is_empty() {
        return Err(invalid(format!(
            "Primary key constraint {} should not be same with partition fields {}, this will result in only one record in a partition",
            java_list(&schema.primary_keys),
            java_list(&schema.partition_keys)
        ))
        .with_context("column", schema.primary_keys.join(",")));
    }
    bucket_count(schema)?;
    let options = TableOptions::from_map(&schema.options).map_err(as_invalid)?;
    fields_prefix(schema)?;
    sequence_field(schema, &options)?;
    if !schema.has_primary_key() && options.changelog_producer != ChangelogProducer::None {
        return Err(invalid(format!(
            "Can not set {CHANGELOG_PRODUCER} on table without primary keys, please define primary keys."
        ))
        .with_context("option", CHANGELOG_PRODUCER));
    }
    retention(schema)?;
    file_format(&options)?;
    system_names(schema)?;
    bucket(schema, &options)?;
    engines(&options)?;
    row_tracking(schema, &options)?;
    pk_index(schema, &options)?;
    options.validate(schema).map_err(as_invalid)
}

/// The same error as [`ErrorKind::InvalidArgument`]: a schema being created or altered is the
/// caller's input, not stored data.
fn as_invalid(e: Error) -> Error {
    let mut out = Error::new(ErrorKind::InvalidArgument, e.message().to_string());
    for (k, v) in e.context() {
        out = out.with_context(k, v.clone());
    }
    out
}

/// `bucket` is −2, −1 or positive (−2 only with a primary key).
fn bucket_count(schema: &TableSchema) -> Result<()> {
    let raw = int_option(schema, BUCKET)?.unwrap_or(-1);
    if raw == 0 || raw < -2 || (raw == -2 && !schema.has_primary_key()) {
        return Err(invalid("The number of buckets needs to be greater than 0.")
            .with_context("option", BUCKET));
    }
    Ok(())
}

/// Java `SchemaValidation#validateOnlyContainPrimitiveType`: key columns are not nested.
fn key_types(schema: &TableSchema, keys: &[String], what: &str) -> Result<()> {
    for k in keys {
        let field = schema
            .field(k)
            .ok_or_else(|| invalid(format!("Cannot find field: {k}")).with_context("column", k))?;
        if let Some(class) = nested_class(&field.data_type) {
            return Err(invalid(format!(
                "The type {class} in {what} field {k} is unsupported"
            ))
            .with_context("column", k));
        }
    }
    Ok(())
}

/// The Java class name of a nested type, for messages.
fn nested_class(t: &DataType) -> Option<&'static str> {
    match t.kind {
        TypeKind::Row(_) => Some("RowType"),
        TypeKind::Array(_) => Some("ArrayType"),
        TypeKind::Map(..) => Some("MapType"),
        TypeKind::Multiset(_) => Some("MultisetType"),
        TypeKind::Vector(..) => Some("VectorType"),
        _ => None,
    }
}

/// `fields.<names>.<suffix>` options name existing columns.
fn fields_prefix(schema: &TableSchema) -> Result<()> {
    for key in schema.options.keys() {
        let Some(rest) = key.strip_prefix(FIELDS_PREFIX) else {
            continue;
        };
        if key == FIELDS_DEFAULT_AGG {
            continue;
        }
        let names = rest.rsplit_once('.').map_or(rest, |(n, _)| n);
        for name in names.split(',') {
            if schema.field(name).is_none() {
                return Err(
                    invalid(format!("Field {name} can not be found in table schema."))
                        .with_context("option", key.clone()),
                );
            }
        }
    }
    Ok(())
}

fn sequence_field(schema: &TableSchema, options: &TableOptions) -> Result<()> {
    let Some(fields) = options.sequence_field.as_deref().filter(|f| !f.is_empty()) else {
        return Ok(());
    };
    let err = |m: String| Err(invalid(m).with_context("option", SEQUENCE_FIELD));
    for (i, f) in fields.iter().enumerate() {
        if schema.field(f).is_none() {
            return err(format!(
                "Sequence field: '{f}' can not be found in table schema."
            ));
        }
        if options.per_field.aggregate_function(f).is_some() {
            return err(format!(
                "Should not define aggregation on sequence field: '{f}'."
            ));
        }
        if fields[..i].contains(f) {
            return err(format!("Sequence field '{f}' is defined repeatedly."));
        }
    }
    if options.merge_engine == MergeEngine::FirstRow {
        return err("Do not support use sequence field on FIRST_ROW merge engine.".into());
    }
    if cross_partition(schema) {
        return err(format!(
            "You can not use sequence.field in cross partition update case (Primary key constraint '{}' not include all partition fields '{}').",
            java_list(&schema.primary_keys),
            java_list(&schema.partition_keys)
        ));
    }
    Ok(())
}

/// A primary key that does not contain every partition column.
fn cross_partition(schema: &TableSchema) -> bool {
    schema.has_primary_key()
        && !schema.partition_keys.is_empty()
        && !schema
            .partition_keys
            .iter()
            .all(|p| schema.primary_keys.contains(p))
}

fn int_option(schema: &TableSchema, key: &'static str) -> Result<Option<i64>> {
    schema
        .options
        .get(key)
        .map(|v| {
            v.trim().parse::<i64>().map_err(|_| {
                invalid(format!("Could not parse value '{v}' for key '{key}'."))
                    .with_context("option", key)
            })
        })
        .transpose()
}

fn retention(schema: &TableSchema) -> Result<()> {
    let min = int_option(schema, SNAPSHOT_NUM_RETAINED_MIN)?.unwrap_or(10);
    let max = int_option(schema, SNAPSHOT_NUM_RETAINED_MAX)?.unwrap_or(i64::from(i32::MAX));
    let changelog_min = int_option(schema, CHANGELOG_NUM_RETAINED_MIN)?.unwrap_or(min);
    let fail = |m: String, key: &'static str| Err(invalid(m).with_context("option", key));
    if min <= 0 {
        return fail(
            format!("{SNAPSHOT_NUM_RETAINED_MIN} should be at least 1"),
            SNAPSHOT_NUM_RETAINED_MIN,
        );
    }
    if min > max {
        return fail(
            format!(
                "{SNAPSHOT_NUM_RETAINED_MIN} should not be larger than {SNAPSHOT_NUM_RETAINED_MAX}"
            ),
            SNAPSHOT_NUM_RETAINED_MIN,
        );
    }
    if changelog_min < min {
        return fail(
            format!(
                "{CHANGELOG_NUM_RETAINED_MIN} should not less than {SNAPSHOT_NUM_RETAINED_MIN}"
            ),
            CHANGELOG_NUM_RETAINED_MIN,
        );
    }
    Ok(())
}

/// Format identifiers Java 2.0 ships a `FileFormatFactory` for.
const KNOWN_FORMATS: [&str; 8] = [
    "orc", "parquet", "avro", "csv", "json", "text", "lance", "blob",
];

/// `file.format` names a format Java can load (Java `FileFormat#fromIdentifier`).
fn file_format(options: &TableOptions) -> Result<()> {
    if let FileFormat::Other(id) = &options.file_format {
        if !KNOWN_FORMATS.contains(&id.as_str()) {
            return Err(invalid(format!(
                "Could not find any factory for identifier '{id}' that implements 'org.apache.paimon.format.FileFormatFactory' in the classpath."
            ))
            .with_context("option", FILE_FORMAT));
        }
    }
    Ok(())
}

fn system_names(schema: &TableSchema) -> Result<()> {
    for f in &schema.fields {
        if SYSTEM_FIELD_NAMES.contains(&f.name.as_str()) {
            return Err(invalid(format!(
                "Field name[{}] in schema cannot be exist in {}",
                f.name,
                java_list(&SYSTEM_FIELD_NAMES)
            ))
            .with_context("column", f.name.clone()));
        }
        if f.name.starts_with(KEY_FIELD_PREFIX) {
            return Err(invalid(format!(
                "Field name[{}] in schema cannot start with [{KEY_FIELD_PREFIX}]",
                f.name
            ))
            .with_context("column", f.name.clone()));
        }
    }
    Ok(())
}

/// Java `SchemaValidation#validateBucket`.
fn bucket(schema: &TableSchema, options: &TableOptions) -> Result<()> {
    let raw = int_option(schema, BUCKET)?.unwrap_or(-1);
    let has_pk = schema.has_primary_key();
    let explicit_key = crate::spec::options::stored_bucket_key(&schema.options);
    let fail = |m: String| Err(invalid(m).with_context("option", BUCKET_KEY));
    if raw == -1 && explicit_key.is_some() {
        return fail("Cannot define 'bucket-key' with bucket = -1, please remove the 'bucket-key' setting or specify a bucket number.".into());
    }
    if raw == -1 && !has_pk && schema.options.contains_key(FULL_COMPACTION_DELTA_COMMITS) {
        return Err(invalid(format!(
            "AppendOnlyTable of unaware or dynamic bucket does not support '{FULL_COMPACTION_DELTA_COMMITS}'"
        ))
        .with_context("option", FULL_COMPACTION_DELTA_COMMITS));
    }
    if let Some(keys) = &explicit_key {
        let names: Vec<&str> = schema.fields.iter().map(|f| f.name.as_str()).collect();
        if !keys.iter().all(|k| names.contains(&k.as_str())) {
            return fail(format!(
                "Field names {} should contains all bucket keys {}.",
                java_list(&names),
                java_list(keys)
            ));
        }
        if keys.iter().any(|k| schema.partition_keys.contains(k)) {
            return fail(format!(
                "Bucket keys {} should not in partition keys {}.",
                java_list(keys),
                java_list(&schema.partition_keys)
            ));
        }
        if has_pk && !keys.iter().all(|k| schema.primary_keys.contains(k)) {
            return fail(format!(
                "Primary keys {} should contains all bucket keys {}.",
                java_list(&schema.primary_keys),
                java_list(keys)
            ));
        }
    }
    if raw > 0 && !has_pk && explicit_key.is_none() && !(raw == 1 && schema.version <= 1) {
        return fail("You should define a 'bucket-key' for bucketed append mode.".into());
    }
    let nested: Vec<String> = schema
        .bucket_keys()
        .into_iter()
        .filter(|k| {
            schema.field(k).is_some_and(|f| {
                matches!(
                    f.data_type.kind,
                    TypeKind::Array(_)
                        | TypeKind::Multiset(_)
                        | TypeKind::Map(..)
                        | TypeKind::Row(_)
                )
            })
        })
        .collect();
    if !nested.is_empty() {
        return fail(format!(
            "nested type can not in bucket-key, in your table these key are {}",
            java_list(&nested)
        ));
    }
    if cross_partition(schema) && matches!(options.bucket, BucketMode::Fixed(_)) {
        return Err(invalid(format!(
            "You should use dynamic bucket (bucket = -1) mode in cross partition update case (Primary key constraint {} not include all partition fields {}).",
            java_list(&schema.primary_keys),
            java_list(&schema.partition_keys)
        ))
        .with_context("option", BUCKET));
    }
    Ok(())
}

/// Merge engine, changelog producer and deletion-vector combinations.
fn engines(options: &TableOptions) -> Result<()> {
    let producer = options.changelog_producer;
    if options.merge_engine == MergeEngine::FirstRow
        && !matches!(
            producer,
            ChangelogProducer::None | ChangelogProducer::Lookup
        )
    {
        return Err(invalid(
            "Only support 'none' and 'lookup' changelog-producer on FIRST_ROW merge engine",
        )
        .with_context("option", MERGE_ENGINE));
    }
    if options.deletion_vectors_enabled {
        if !matches!(
            producer,
            ChangelogProducer::None | ChangelogProducer::Input | ChangelogProducer::Lookup
        ) {
            return Err(invalid(
                "Deletion vectors mode is only supported for NONE/INPUT/LOOKUP changelog producer now.",
            )
            .with_context("option", DELETION_VECTORS_ENABLED));
        }
        if options.merge_engine == MergeEngine::FirstRow {
            return Err(invalid("First row merge engine does not need deletion vectors because there is no deletion of old data in this merge engine.")
                .with_context("option", DELETION_VECTORS_ENABLED));
        }
    }
    Ok(())
}

fn row_tracking(schema: &TableSchema, options: &TableOptions) -> Result<()> {
    if options.row_tracking_enabled {
        if schema.has_primary_key() {
            return Err(invalid("Cannot define primary-key for row tracking table.")
                .with_context("option", ROW_TRACKING_ENABLED));
        }
        if options.bucket != BucketMode::Dynamic {
            return Err(invalid(
                "Cannot define bucket for row tracking table, it only support bucket = -1",
            )
            .with_context("option", ROW_TRACKING_ENABLED));
        }
    }
    if options.data_evolution_enabled && !options.row_tracking_enabled {
        return Err(
            invalid("Data evolution config must enabled with row-tracking.enabled")
                .with_context("option", DATA_EVOLUTION_ENABLED),
        );
    }
    Ok(())
}

/// `pk-btree.index.columns` / `pk-bitmap.index.columns` need a table that can own the index
/// (Java `SchemaValidation#validatePrimaryKeySortedIndexes`: primary key, fixed or postpone
/// bucket, deletion vectors without merge-on-read) and valid per-column index options.
fn pk_index(schema: &TableSchema, options: &TableOptions) -> Result<()> {
    let columns: Vec<&String> = options
        .pk_btree_index_columns
        .iter()
        .chain(&options.pk_bitmap_index_columns)
        .collect();
    if columns.is_empty() {
        return Ok(());
    }
    if let Some(reason) = options.pk_index_unsupported_reason(schema) {
        return Err(invalid(format!(
            "Primary-key index columns {} need a primary-key table with a fixed or postpone bucket and deletion vectors without merge-on-read: {reason}.",
            java_list(&columns)
        ))
        .with_context("option", PK_BTREE_INDEX_COLUMNS));
    }
    options
        .pk_index_definitions(schema)
        .map(|_| ())
        .map_err(as_invalid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Schema;
    use crate::spec::type_text::parse_fields;

    fn check(columns: &str, pk: &[&str], parts: &[&str], options: &[(&str, &str)]) -> Result<()> {
        let mut b = Schema::builder()
            .columns(parse_fields(columns).unwrap())
            .primary_key(pk.iter().copied())
            .partition_keys(parts.iter().copied());
        for (k, v) in options {
            b = b.option(*k, *v);
        }
        validate_table_schema(&b.build()?.to_table_schema(0))
    }

    fn msg(r: Result<()>) -> String {
        let e = r.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
        e.message().to_string()
    }

    const COLS: &str = "id INT, dt STRING, v INT, m MAP<STRING, INT>";

    #[test]
    fn valid_tables_pass() {
        check(COLS, &[], &[], &[]).unwrap();
        check(COLS, &["id"], &[], &[("bucket", "4")]).unwrap();
        check(COLS, &["id", "dt"], &["dt"], &[("bucket", "-2")]).unwrap();
        check(COLS, &[], &[], &[("bucket", "4"), ("bucket-key", "id")]).unwrap();
        check(
            COLS,
            &["id"],
            &[],
            &[
                ("bucket", "2"),
                ("deletion-vectors.enabled", "true"),
                ("pk-btree.index.columns", "v"),
            ],
        )
        .unwrap();
    }

    #[test]
    fn java_messages() {
        type Case<'a> = (
            &'a [&'a str],
            &'a [&'a str],
            &'a [(&'a str, &'a str)],
            &'a str,
        );
        let cases: &[Case] = &[
            (&["m"], &[], &[], "The type MapType in primary key field m is unsupported"),
            (&["dt"], &["dt"], &[], "Primary key constraint [dt] should not be same with partition fields [dt], this will result in only one record in a partition"),
            (&[], &[], &[("bucket", "0")], "The number of buckets needs to be greater than 0."),
            (&[], &[], &[("bucket", "-2")], "The number of buckets needs to be greater than 0."),
            (&[], &[], &[("bucket", "4")], "You should define a 'bucket-key' for bucketed append mode."),
            (&[], &[], &[("bucket-key", "id")], "Cannot define 'bucket-key' with bucket = -1, please remove the 'bucket-key' setting or specify a bucket number."),
            (&[], &[], &[("bucket", "2"), ("bucket-key", "x")], "Field names [id, dt, v, m] should contains all bucket keys [x]."),
            (&[], &["dt"], &[("bucket", "2"), ("bucket-key", "dt")], "Bucket keys [dt] should not in partition keys [dt]."),
            (&["id"], &[], &[("bucket", "2"), ("bucket-key", "v")], "Primary keys [id] should contains all bucket keys [v]."),
            (&[], &[], &[("bucket", "2"), ("bucket-key", "m")], "nested type can not in bucket-key, in your table these key are [m]"),
            (&[], &[], &[("changelog-producer", "lookup")], "Can not set changelog-producer on table without primary keys, please define primary keys."),
            (&["id"], &[], &[("sequence.field", "x")], "Sequence field: 'x' can not be found in table schema."),
            (&["id"], &[], &[("sequence.field", "v,v")], "Sequence field 'v' is defined repeatedly."),
            (&["id"], &[], &[("merge-engine", "first-row"), ("changelog-producer", "input")], "Only support 'none' and 'lookup' changelog-producer on FIRST_ROW merge engine"),
            (&["id"], &[], &[("deletion-vectors.enabled", "true"), ("changelog-producer", "full-compaction")], "Deletion vectors mode is only supported for NONE/INPUT/LOOKUP changelog producer now."),
            (&["id"], &[], &[("row-tracking.enabled", "true")], "Cannot define primary-key for row tracking table."),
            (&[], &[], &[("data-evolution.enabled", "true")], "Data evolution config must enabled with row-tracking.enabled"),
            (&[], &[], &[("fields.x.aggregate-function", "sum")], "Field x can not be found in table schema."),
            (&[], &[], &[("snapshot.num-retained.min", "0")], "snapshot.num-retained.min should be at least 1"),
            (&[], &[], &[("full-compaction.delta-commits", "3")], "AppendOnlyTable of unaware or dynamic bucket does not support 'full-compaction.delta-commits'"),
            (&["id", "dt"], &["dt", "v"], &[("bucket", "2")], "You should use dynamic bucket (bucket = -1) mode in cross partition update case (Primary key constraint [id, dt] not include all partition fields [dt, v])."),
        ];
        for (pk, parts, options, want) in cases {
            assert_eq!(&msg(check(COLS, pk, parts, options)), want, "{options:?}");
        }
        assert!(msg(check(COLS, &[], &[], &[("file.format", "xls")]))
            .starts_with("Could not find any factory for identifier 'xls'"));
        assert_eq!(
            msg(check("_KEY_a INT", &[], &[], &[])),
            "Field name[_KEY_a] in schema cannot start with [_KEY_]"
        );
        assert!(
            msg(check(COLS, &["id"], &[], &[("merge-engine", "nope")])).contains("merge-engine")
        );
        assert!(msg(check(
            COLS,
            &["id"],
            &[],
            &[("pk-btree.index.columns", "v")]
        ))
        .ends_with("bucket is neither fixed nor postpone."));
    }
}
