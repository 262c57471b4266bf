//! [`Schema`]: what a table is created from (columns, keys, options, comment), its builder, its
//! conversion from Arrow, and the first [`TableSchema`] made from it.
//!
//! Mirrors Java `org.apache.paimon.schema.Schema` (normalisation in the constructor),
//! `Schema.Builder` (one field-id counter shared with `ReassignFieldId`) and
//! `TableSchema#create` (Paimon 2.0).

use arrow_schema::{DataType as ArrowType, Field as ArrowField, Schema as ArrowSchema, TimeUnit};

use crate::spec::schema::{SchemaOptions, TableSchema, CURRENT_VERSION};
use crate::spec::types::{DataField, DataType, TypeKind, MAX_LENGTH};
use crate::{Error, Result};

/// Option `primary-key`: a comma list moved into [`Schema::primary_keys`] at creation.
pub const PRIMARY_KEY_OPTION: &str = "primary-key";
/// Option `partition`: a comma list moved into [`Schema::partition_keys`] at creation.
pub const PARTITION_OPTION: &str = "partition";

/// A table definition a table is created from. Build one with [`Schema::builder`]:
///
/// ```
/// use paimon_core::catalog::Schema;
/// use paimon_core::spec::{DataType, TypeKind};
/// # fn demo() -> paimon_core::Result<()> {
/// let schema = Schema::builder()
///     .column("id", DataType::nullable(TypeKind::BigInt))
///     .column("v", DataType::nullable(TypeKind::VarChar(i32::MAX as u32)))
///     .primary_key(["id"])
///     .option("bucket", "4")
///     .build()?;
/// assert!(!schema.fields()[0].data_type.nullable); // primary-key columns become NOT NULL
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    fields: Vec<DataField>,
    partition_keys: Vec<String>,
    primary_keys: Vec<String>,
    options: SchemaOptions,
    comment: Option<String>,
}

impl Schema {
    /// An empty builder.
    pub fn builder() -> SchemaBuilder {
        SchemaBuilder::default()
    }

    /// A schema of the columns of `arrow` (no keys, no options); see
    /// [`SchemaBuilder::arrow_columns`] for the type mapping.
    pub fn from_arrow(arrow: &ArrowSchema) -> Result<Schema> {
        Schema::builder().arrow_columns(arrow)?.build()
    }

    /// A schema of already-numbered fields, normalised as Java's `Schema` constructor does:
    /// options `primary-key` / `partition` become the key lists, duplicates and unknown key
    /// columns are rejected, and primary-key columns become NOT NULL.
    pub fn new(
        fields: Vec<DataField>,
        partition_keys: Vec<String>,
        primary_keys: Vec<String>,
        options: SchemaOptions,
        comment: Option<String>,
    ) -> Result<Schema> {
        let mut options = options;
        let partition_keys = keys_from_option(&mut options, PARTITION_OPTION, partition_keys)?;
        let primary_keys = keys_from_option(&mut options, PRIMARY_KEY_OPTION, primary_keys)?;
        let fields = normalize_fields(fields, &primary_keys, &partition_keys)?;
        Ok(Schema {
            fields,
            partition_keys,
            primary_keys,
            options,
            comment,
        })
    }

    /// Columns, with ids.
    pub fn fields(&self) -> &[DataField] {
        &self.fields
    }
    /// Partition columns.
    pub fn partition_keys(&self) -> &[String] {
        &self.partition_keys
    }
    /// Primary-key columns.
    pub fn primary_keys(&self) -> &[String] {
        &self.primary_keys
    }
    /// Options, in insertion order.
    pub fn options(&self) -> &SchemaOptions {
        &self.options
    }
    /// Table comment.
    pub fn comment(&self) -> Option<&str> {
        self.comment.as_deref()
    }

    /// Schema `id` of this definition (Java `TableSchema#create`): version 3, `highestFieldId`
    /// the largest (nested) field id or −1, `timeMillis` now, options in Java's `HashMap`
    /// order ([`java_hash_map_order`](crate::spec::schema::java_hash_map_order)).
    pub fn to_table_schema(&self, id: i64) -> TableSchema {
        TableSchema {
            version: CURRENT_VERSION,
            id,
            fields: self.fields.clone(),
            highest_field_id: highest_field_id(&self.fields),
            partition_keys: self.partition_keys.clone(),
            primary_keys: self.primary_keys.clone(),
            options: crate::spec::schema::java_hash_map_order(&self.options),
            comment: self.comment.clone(),
            time_millis: now_millis(),
        }
    }
}

/// Milliseconds since the epoch (Java `System.currentTimeMillis()`).
pub(crate) fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// The largest field id in `fields` and their nested ROW fields; −1 when there is none (Java
/// `RowType#currentHighestFieldId`).
pub fn highest_field_id(fields: &[DataField]) -> i32 {
    fn of_type(t: &DataType) -> i32 {
        match &t.kind {
            TypeKind::Row(fields) => highest_field_id(fields),
            TypeKind::Array(e) | TypeKind::Multiset(e) | TypeKind::Vector(e, _) => of_type(e),
            TypeKind::Map(k, v) => of_type(k).max(of_type(v)),
            _ => -1,
        }
    }
    fields
        .iter()
        .map(|f| f.id.max(of_type(&f.data_type)))
        .max()
        .unwrap_or(-1)
}

/// `data_type` with fresh ids for every ROW field at any depth, taken from `counter` (Java
/// `ReassignFieldId`): a ROW field's own type is renumbered before the field takes its id.
pub fn reassign_field_ids(data_type: DataType, counter: &mut i32) -> DataType {
    let kind = match data_type.kind {
        TypeKind::Row(fields) => TypeKind::Row(
            fields
                .into_iter()
                .map(|f| {
                    let data_type = reassign_field_ids(f.data_type, counter);
                    *counter += 1;
                    DataField {
                        id: *counter,
                        data_type,
                        ..f
                    }
                })
                .collect(),
        ),
        TypeKind::Array(e) => TypeKind::Array(Box::new(reassign_field_ids(*e, counter))),
        TypeKind::Multiset(e) => TypeKind::Multiset(Box::new(reassign_field_ids(*e, counter))),
        TypeKind::Vector(e, n) => TypeKind::Vector(Box::new(reassign_field_ids(*e, counter)), n),
        TypeKind::Map(k, v) => {
            let k = reassign_field_ids(*k, counter);
            TypeKind::Map(Box::new(k), Box::new(reassign_field_ids(*v, counter)))
        }
        other => other,
    };
    DataType {
        nullable: data_type.nullable,
        kind,
    }
}

fn keys_from_option(
    options: &mut SchemaOptions,
    key: &str,
    given: Vec<String>,
) -> Result<Vec<String>> {
    let Some(value) = options.shift_remove(key) else {
        return Ok(given);
    };
    if !given.is_empty() {
        let what = if key == PRIMARY_KEY_OPTION {
            "primary key"
        } else {
            "partition"
        };
        return Err(Error::invalid_argument(format!(
            "Cannot define {what} on DDL and table options at the same time."
        ))
        .with_context("option", key));
    }
    Ok(value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect())
}

/// Java's `List#toString`: `[a, b]`.
pub(crate) fn java_list<S: AsRef<str>>(items: &[S]) -> String {
    let items: Vec<&str> = items.iter().map(AsRef::as_ref).collect();
    format!("[{}]", items.join(", "))
}

fn duplicates(names: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) && !out.contains(n) {
            out.push(n.clone());
        }
    }
    out
}

fn normalize_fields(
    fields: Vec<DataField>,
    primary_keys: &[String],
    partition_keys: &[String],
) -> Result<Vec<DataField>> {
    let names: Vec<String> = fields.iter().map(|f| f.name.clone()).collect();
    let fail = |msg: String, column: &[String]| {
        Err(Error::invalid_argument(msg).with_context("column", column.join(",")))
    };
    let dup = duplicates(&names);
    if !dup.is_empty() {
        return fail(
            format!(
                "Table column {} must not contain duplicate fields. Found: {}",
                java_list(&names),
                java_list(&dup)
            ),
            &dup,
        );
    }
    for (keys, what, all) in [
        (partition_keys, "Partition key", "partition fields"),
        (primary_keys, "Primary key", "primary key constraint"),
    ] {
        let dup = duplicates(keys);
        if !dup.is_empty() {
            return fail(
                format!(
                    "{what} constraint {} must not contain duplicate columns. Found: {}",
                    java_list(keys),
                    java_list(&dup)
                ),
                &dup,
            );
        }
        let missing: Vec<String> = keys
            .iter()
            .filter(|k| !names.contains(k))
            .cloned()
            .collect();
        if !missing.is_empty() {
            return fail(
                format!(
                    "Table column {} should include all {all} {}",
                    java_list(&names),
                    java_list(keys)
                ),
                &missing,
            );
        }
    }
    Ok(fields
        .into_iter()
        .map(|mut f| {
            if primary_keys.contains(&f.name) {
                f.data_type.nullable = false;
            }
            f
        })
        .collect())
}

/// Builds a [`Schema`]; columns get ids in declaration order from one counter shared with their
/// nested ROW fields, as Java's `Schema.Builder#column` does.
#[derive(Debug, Clone)]
pub struct SchemaBuilder {
    fields: Vec<DataField>,
    partition_keys: Vec<String>,
    primary_keys: Vec<String>,
    options: SchemaOptions,
    comment: Option<String>,
    highest_field_id: i32,
}

impl Default for SchemaBuilder {
    fn default() -> Self {
        SchemaBuilder {
            fields: Vec::new(),
            partition_keys: Vec::new(),
            primary_keys: Vec::new(),
            options: SchemaOptions::new(),
            comment: None,
            highest_field_id: -1,
        }
    }
}

impl SchemaBuilder {
    /// Appends a column.
    pub fn column(self, name: impl Into<String>, data_type: DataType) -> Self {
        self.column_with_comment(name, data_type, None)
    }

    /// Appends a column with a description.
    pub fn column_with_comment(
        mut self,
        name: impl Into<String>,
        data_type: DataType,
        description: Option<String>,
    ) -> Self {
        self.highest_field_id += 1;
        let id = self.highest_field_id;
        let data_type = reassign_field_ids(data_type, &mut self.highest_field_id);
        let mut field = DataField::new(id, name, data_type);
        field.description = description;
        self.fields.push(field);
        self
    }

    /// Appends parsed fields (their ids are replaced; see
    /// [`spec::type_text::parse_fields`](crate::spec::type_text::parse_fields)).
    pub fn columns(self, fields: impl IntoIterator<Item = DataField>) -> Self {
        fields.into_iter().fold(self, |b, f| {
            b.column_with_comment(f.name, f.data_type, f.description)
        })
    }

    /// Appends the columns of an Arrow schema. Types map as Paimon's Arrow conversion does in
    /// reverse: integers, floats, `Decimal128` (precision ≤ 38), strings → `STRING`, binaries →
    /// `BYTES`, `FixedSizeBinary(n)` → `BINARY(n)`, `Date32`, `Time32/64` → `TIME(p)`,
    /// `Timestamp` → `TIMESTAMP(p)` (with a time zone: `TIMESTAMP(p) WITH LOCAL TIME ZONE`),
    /// lists → `ARRAY`, `Map` → `MAP`, `Struct` → `ROW`; Arrow nullability is kept. Other types
    /// are an `InvalidArgument` error naming the column.
    pub fn arrow_columns(mut self, arrow: &ArrowSchema) -> Result<Self> {
        for f in arrow.fields() {
            let t = arrow_to_paimon(f).map_err(|e| e.with_context("column", f.name().clone()))?;
            self = self.column(f.name().clone(), t);
        }
        Ok(self)
    }

    /// Sets the primary-key columns.
    pub fn primary_key<S: Into<String>>(mut self, columns: impl IntoIterator<Item = S>) -> Self {
        self.primary_keys = columns.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the partition columns.
    pub fn partition_keys<S: Into<String>>(mut self, columns: impl IntoIterator<Item = S>) -> Self {
        self.partition_keys = columns.into_iter().map(Into::into).collect();
        self
    }

    /// Sets one option (a repeated key keeps its first position and the last value).
    pub fn option(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.options.insert(key.into(), value.into());
        self
    }

    /// Sets the table comment.
    pub fn comment(mut self, comment: impl Into<String>) -> Self {
        self.comment = Some(comment.into());
        self
    }

    /// The normalised schema (see [`Schema::new`]).
    pub fn build(self) -> Result<Schema> {
        Schema::new(
            self.fields,
            self.partition_keys,
            self.primary_keys,
            self.options,
            self.comment,
        )
    }
}

fn arrow_to_paimon(field: &ArrowField) -> Result<DataType> {
    let unsupported = |t: &ArrowType| {
        Err(Error::invalid_argument(format!(
            "Arrow type {t} of column '{}' has no Paimon type",
            field.name()
        )))
    };
    let precision = |u: &TimeUnit| match u {
        TimeUnit::Second => 0,
        TimeUnit::Millisecond => 3,
        TimeUnit::Microsecond => 6,
        TimeUnit::Nanosecond => 9,
    };
    let kind = match field.data_type() {
        ArrowType::Boolean => TypeKind::Boolean,
        ArrowType::Int8 => TypeKind::TinyInt,
        ArrowType::Int16 => TypeKind::SmallInt,
        ArrowType::Int32 => TypeKind::Int,
        ArrowType::Int64 => TypeKind::BigInt,
        ArrowType::Float32 => TypeKind::Float,
        ArrowType::Float64 => TypeKind::Double,
        ArrowType::Decimal128(p, s) if (1..=38).contains(p) && *s >= 0 && (*s as u8) <= *p => {
            TypeKind::Decimal {
                precision: u32::from(*p),
                scale: u32::from(s.unsigned_abs()),
            }
        }
        ArrowType::Utf8 | ArrowType::LargeUtf8 | ArrowType::Utf8View => {
            TypeKind::VarChar(MAX_LENGTH)
        }
        ArrowType::Binary | ArrowType::LargeBinary | ArrowType::BinaryView => {
            TypeKind::VarBinary(MAX_LENGTH)
        }
        ArrowType::FixedSizeBinary(n) if *n > 0 => TypeKind::Binary(n.unsigned_abs()),
        ArrowType::Date32 => TypeKind::Date,
        ArrowType::Time32(u) | ArrowType::Time64(u) => TypeKind::Time(precision(u)),
        ArrowType::Timestamp(u, None) => TypeKind::Timestamp(precision(u)),
        ArrowType::Timestamp(u, Some(_)) => TypeKind::LocalZonedTimestamp(precision(u)),
        ArrowType::List(e) | ArrowType::LargeList(e) | ArrowType::ListView(e) => {
            TypeKind::Array(Box::new(arrow_to_paimon(e)?))
        }
        ArrowType::Map(entries, _) => match entries.data_type() {
            ArrowType::Struct(kv) => match (kv.first(), kv.get(1), kv.len()) {
                (Some(k), Some(v), 2) => {
                    TypeKind::Map(Box::new(arrow_to_paimon(k)?), Box::new(arrow_to_paimon(v)?))
                }
                _ => return unsupported(field.data_type()),
            },
            t => return unsupported(t),
        },
        ArrowType::Struct(fields) => TypeKind::Row(
            fields
                .iter()
                .map(|f| Ok(DataField::new(0, f.name().clone(), arrow_to_paimon(f)?)))
                .collect::<Result<_>>()?,
        ),
        t => return unsupported(t),
    };
    Ok(DataType {
        nullable: field.is_nullable(),
        kind,
    })
}

#[cfg(test)]
#[path = "schema_tests.rs"]
mod tests;
