//! [`SchemaChange`]: one ALTER TABLE step, and [`apply_changes`], which turns the latest schema
//! and a list of changes into the next schema.
//!
//! Mirrors Java `org.apache.paimon.schema.SchemaChange` and `SchemaManager#generateTableSchema`
//! (Paimon 2.0) with its messages: new columns take ids after `highestFieldId` (nested ROW
//! fields from the same counter), ids are never reused, partition and primary-key columns
//! cannot be dropped, partition columns cannot be renamed, key columns cannot change type,
//! type changes follow [`supports_cast`], renames are carried into the primary key,
//! `bucket-key`, `sequence.field` and `fields.*` options, and the result is validated as at
//! creation. Nested paths reach into ROW columns only (Java also reaches into ARRAY/MAP).

use super::schema::{now_millis, reassign_field_ids, Schema};
use crate::spec::options::{
    check_remove_option, check_set_option, rename_all, rename_in_options, validate_table_schema,
    AlterFlags,
};
use crate::spec::schema::{SchemaOptions, TableSchema, CURRENT_VERSION};
use crate::spec::type_casts::supports_cast;
use crate::spec::types::{DataField, DataType, TypeKind};
use crate::{Error, Result};

/// Where a column goes (Java `SchemaChange.Move`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Move {
    /// First column.
    First,
    /// Right after the named column.
    After(String),
    /// Right before the named column.
    Before(String),
    /// Last column.
    Last,
}

/// One ALTER TABLE step (Java `SchemaChange`). Column paths are `["col"]` or, for a field of a
/// ROW column, `["col", "field"]`.
#[derive(Debug, Clone, PartialEq)]
pub enum SchemaChange {
    /// Sets an option.
    SetOption {
        /// Option key.
        key: String,
        /// New value.
        value: String,
    },
    /// Removes an option.
    RemoveOption {
        /// Option key.
        key: String,
    },
    /// Sets or clears the table comment.
    UpdateComment(Option<String>),
    /// Adds a nullable column.
    AddColumn {
        /// Path of the new column.
        path: Vec<String>,
        /// Its type (must be nullable).
        data_type: DataType,
        /// Its description.
        description: Option<String>,
        /// Its position; `None` appends (or goes before the partition columns with
        /// `add-column-before-partition`).
        position: Option<Move>,
    },
    /// Renames a column; its id stays.
    RenameColumn {
        /// Path of the column.
        path: Vec<String>,
        /// New last name.
        new_name: String,
    },
    /// Drops a column; its id is never reused.
    DropColumn {
        /// Path of the column.
        path: Vec<String>,
    },
    /// Changes a column's type.
    UpdateColumnType {
        /// Path of the column.
        path: Vec<String>,
        /// The new type.
        data_type: DataType,
        /// Keep the column's nullability instead of `data_type`'s.
        keep_nullability: bool,
    },
    /// Makes a column nullable or NOT NULL.
    UpdateColumnNullability {
        /// Path of the column.
        path: Vec<String>,
        /// New nullability.
        nullable: bool,
    },
    /// Sets or clears a column's description.
    UpdateColumnComment {
        /// Path of the column.
        path: Vec<String>,
        /// New description.
        comment: Option<String>,
    },
    /// Moves a top-level column.
    UpdateColumnPosition {
        /// The column.
        column: String,
        /// Where to.
        position: Move,
    },
    /// Drops the primary key (only on a table without snapshots).
    DropPrimaryKey,
}

impl SchemaChange {
    /// `SetOption`.
    pub fn set_option(key: impl Into<String>, value: impl Into<String>) -> Self {
        SchemaChange::SetOption {
            key: key.into(),
            value: value.into(),
        }
    }
    /// `RemoveOption`.
    pub fn remove_option(key: impl Into<String>) -> Self {
        SchemaChange::RemoveOption { key: key.into() }
    }
    /// `AddColumn` of a top-level column at the end.
    pub fn add_column(name: impl Into<String>, data_type: DataType) -> Self {
        SchemaChange::AddColumn {
            path: vec![name.into()],
            data_type,
            description: None,
            position: None,
        }
    }
    /// `RenameColumn` of a top-level column.
    pub fn rename_column(name: impl Into<String>, new_name: impl Into<String>) -> Self {
        SchemaChange::RenameColumn {
            path: vec![name.into()],
            new_name: new_name.into(),
        }
    }
    /// `DropColumn` of a top-level column.
    pub fn drop_column(name: impl Into<String>) -> Self {
        SchemaChange::DropColumn {
            path: vec![name.into()],
        }
    }
    /// `UpdateColumnType` of a top-level column, keeping its nullability.
    pub fn update_column_type(name: impl Into<String>, data_type: DataType) -> Self {
        SchemaChange::UpdateColumnType {
            path: vec![name.into()],
            data_type,
            keep_nullability: true,
        }
    }
}

/// What [`apply_changes`] needs besides the schema.
#[derive(Debug, Clone, Copy)]
pub struct AlterContext<'a> {
    /// The table's full name for messages (`db.table` or its location).
    pub table: &'a str,
    /// Whether the table has a snapshot (immutable options are enforced then).
    pub has_snapshot: bool,
}

struct State<'a> {
    ctx: AlterContext<'a>,
    old: &'a TableSchema,
    flags: AlterFlags,
    fields: Vec<DataField>,
    options: SchemaOptions,
    comment: Option<String>,
    primary_keys: Vec<String>,
    highest: i32,
    renames: Vec<(String, String)>,
}

/// The schema after `changes` (id + 1, now as `timeMillis`), validated as at creation. Nothing
/// is written here.
pub fn apply_changes(
    old: &TableSchema,
    changes: &[SchemaChange],
    ctx: AlterContext<'_>,
) -> Result<TableSchema> {
    let mut s = State {
        ctx,
        old,
        flags: AlterFlags::of(&old.options),
        fields: old.fields.clone(),
        options: old.options.clone(),
        comment: old.comment.clone(),
        primary_keys: old.primary_keys.clone(),
        highest: old.highest_field_id,
        renames: Vec::new(),
    };
    for change in changes {
        s.apply(change)?;
    }
    let primary_keys = rename_all(&s.primary_keys, &s.renames);
    let options = rename_in_options(&s.options, &s.renames);
    let schema = Schema::new(
        s.fields,
        old.partition_keys.clone(),
        primary_keys,
        options,
        s.comment,
    )?;
    let mut next = schema.to_table_schema(old.id + 1);
    next.version = CURRENT_VERSION;
    next.highest_field_id = s.highest;
    next.time_millis = now_millis();
    validate_table_schema(&next)?;
    Ok(next)
}

fn not_exist(column: &str, table: &str) -> Error {
    Error::invalid_argument(format!(
        "Column {column} does not exist in the {table} table."
    ))
    .with_context("column", column)
}

/// `name` under the parent of `path` (Java `NestedColumnModifier#getLastFieldName`).
fn qualified(path: &[String], name: &str) -> String {
    let mut parts: Vec<&str> = path
        .get(..path.len().saturating_sub(1))
        .unwrap_or_default()
        .iter()
        .map(String::as_str)
        .collect();
    parts.push(name);
    parts.join(".")
}

fn top_level(path: &[String]) -> Option<&str> {
    match path {
        [one] => Some(one.as_str()),
        _ => None,
    }
}

impl State<'_> {
    fn apply(&mut self, change: &SchemaChange) -> Result<()> {
        match change {
            SchemaChange::SetOption { key, value } => {
                check_set_option(&self.old.options, key, value, self.ctx.has_snapshot)?;
                self.options.insert(key.clone(), value.clone());
            }
            SchemaChange::RemoveOption { key } => {
                check_remove_option(key, self.ctx.has_snapshot)?;
                self.options.shift_remove(key);
            }
            SchemaChange::UpdateComment(c) => self.comment = c.clone(),
            SchemaChange::AddColumn {
                path,
                data_type,
                description,
                position,
            } => self.add_column(path, data_type, description, position.as_ref())?,
            SchemaChange::RenameColumn { path, new_name } => self.rename(path, new_name)?,
            SchemaChange::DropColumn { path } => self.drop(path)?,
            SchemaChange::UpdateColumnType {
                path,
                data_type,
                keep_nullability,
            } => self.update_type(path, data_type, *keep_nullability)?,
            SchemaChange::UpdateColumnNullability { path, nullable } => {
                self.update_nullability(path, *nullable)?
            }
            SchemaChange::UpdateColumnComment { path, comment } => {
                let comment = comment.clone();
                self.update_field(path, |f| {
                    f.description = comment;
                    Ok(())
                })?
            }
            SchemaChange::UpdateColumnPosition { column, position } => {
                apply_move(&mut self.fields, column, position)?
            }
            SchemaChange::DropPrimaryKey => {
                if self.ctx.has_snapshot {
                    return Err(Error::invalid_argument(
                        "Cannot drop primary keys on a non-empty table.",
                    ));
                }
                self.primary_keys.clear();
            }
        }
        Ok(())
    }

    fn add_column(
        &mut self,
        path: &[String],
        data_type: &DataType,
        description: &Option<String>,
        position: Option<&Move>,
    ) -> Result<()> {
        let table = self.ctx.table;
        let full = path.join(".");
        if !data_type.nullable {
            return Err(Error::invalid_argument(format!(
                "Column {full} cannot specify NOT NULL in the {table} table."
            ))
            .with_context("column", full));
        }
        self.highest += 1;
        let id = self.highest;
        let data_type = reassign_field_ids(data_type.clone(), &mut self.highest);
        let before_partition = self.flags.add_column_before_partition
            && !self.old.partition_keys.is_empty()
            && path.len() == 1;
        let partitions = &self.old.partition_keys;
        let description = description.clone();
        in_parent(&mut self.fields, path, table, |fields, name| {
            if fields.iter().any(|f| f.name == name) {
                let column = qualified(path, name);
                return Err(Error::invalid_argument(format!(
                    "Column {column} already exists in the {table} table."
                ))
                .with_context("column", column));
            }
            let mut field = DataField::new(id, name, data_type);
            field.description = description;
            let index_of = |r: &str| {
                fields
                    .iter()
                    .position(|f| f.name == r)
                    .ok_or_else(|| not_exist(r, table))
            };
            let at = match position {
                Some(Move::First) => 0,
                Some(Move::After(r)) => index_of(r)? + 1,
                Some(Move::Before(r)) => index_of(r)?,
                Some(Move::Last) => fields.len(),
                None if before_partition => fields
                    .iter()
                    .position(|f| partitions.contains(&f.name))
                    .unwrap_or(fields.len()),
                None => fields.len(),
            };
            fields.insert(at, field);
            Ok(())
        })
    }

    fn rename(&mut self, path: &[String], new_name: &str) -> Result<()> {
        let table = self.ctx.table;
        if let Some(c) = top_level(path) {
            if self.old.partition_keys.iter().any(|p| p == c) {
                return Err(Error::invalid_argument(format!(
                    "Cannot rename partition column: [{c}]"
                ))
                .with_context("column", c));
            }
            if self
                .fields
                .iter()
                .any(|f| f.name == c && f.data_type.kind == TypeKind::Blob)
            {
                return Err(
                    Error::invalid_argument(format!("Cannot rename BLOB column: [{c}]"))
                        .with_context("column", c),
                );
            }
            self.renames.push((c.to_string(), new_name.to_string()));
        }
        in_parent(&mut self.fields, path, table, |fields, name| {
            if fields.iter().any(|f| f.name == new_name) {
                let column = qualified(path, new_name);
                return Err(Error::invalid_argument(format!(
                    "Column {column} already exists in the {table} table."
                ))
                .with_context("column", column));
            }
            let field = fields
                .iter_mut()
                .find(|f| f.name == name)
                .ok_or_else(|| not_exist(&qualified(path, name), table))?;
            field.name = new_name.to_string();
            Ok(())
        })
    }

    fn drop(&mut self, path: &[String]) -> Result<()> {
        let table = self.ctx.table;
        if let Some(c) = top_level(path) {
            if self.old.partition_keys.iter().any(|p| p == c)
                || self.old.primary_keys.iter().any(|p| p == c)
            {
                return Err(Error::invalid_argument(format!(
                    "Cannot drop partition key or primary key: [{c}]"
                ))
                .with_context("column", c));
            }
        }
        in_parent(&mut self.fields, path, table, |fields, name| {
            let at = fields
                .iter()
                .position(|f| f.name == name)
                .ok_or_else(|| not_exist(&qualified(path, name), table))?;
            fields.remove(at);
            if fields.is_empty() {
                return Err(Error::invalid_argument("Cannot drop all fields in table"));
            }
            Ok(())
        })
    }

    fn key_guard(&self, path: &[String], op: &str, primary_too: bool) -> Result<()> {
        let Some(c) = top_level(path) else {
            return Ok(());
        };
        if self.old.partition_keys.iter().any(|p| p == c) {
            return Err(
                Error::invalid_argument(format!("Cannot {op} partition column: [{c}]"))
                    .with_context("column", c),
            );
        }
        if primary_too && self.old.primary_keys.iter().any(|p| p == c) {
            return Err(Error::invalid_argument(format!("Cannot {op} primary key"))
                .with_context("column", c));
        }
        Ok(())
    }

    fn update_type(&mut self, path: &[String], target: &DataType, keep: bool) -> Result<()> {
        self.key_guard(path, "update", true)?;
        let (flags, full) = (self.flags, path.join("."));
        self.update_field(path, |field| {
            let source = &field.data_type;
            let target = if keep {
                target.clone().with_nullable(source.nullable)
            } else {
                check_nullability(source.nullable, target.nullable, &full, flags)?;
                target.clone()
            };
            if source.kind == TypeKind::Blob || target.kind == TypeKind::Blob {
                return Err(Error::invalid_argument(format!(
                    "Cannot change column type involving BLOB: [{full}] {source} -> {target}"
                ))
                .with_context("column", full.clone()));
            }
            if !supports_cast(source, &target, !flags.disable_explicit_type_casting) {
                return Err(Error::invalid_argument(format!(
                    "Column type {}[{source}] cannot be converted to {target} without loosing information.",
                    field.name
                ))
                .with_context("column", full.clone()));
            }
            field.data_type = target;
            Ok(())
        })
    }

    fn update_nullability(&mut self, path: &[String], nullable: bool) -> Result<()> {
        if nullable {
            if let Some(c) = top_level(path) {
                if self.old.primary_keys.iter().any(|p| p == c) {
                    return Err(Error::invalid_argument(
                        "Cannot change nullability of primary key",
                    )
                    .with_context("column", c));
                }
            }
        }
        let (flags, full) = (self.flags, path.join("."));
        self.update_field(path, |field| {
            check_nullability(field.data_type.nullable, nullable, &full, flags)?;
            field.data_type.nullable = nullable;
            Ok(())
        })
    }

    fn update_field(
        &mut self,
        path: &[String],
        update: impl FnOnce(&mut DataField) -> Result<()>,
    ) -> Result<()> {
        let table = self.ctx.table;
        in_parent(&mut self.fields, path, table, |fields, name| {
            let field = fields
                .iter_mut()
                .find(|f| f.name == name)
                .ok_or_else(|| not_exist(&path.join("."), table))?;
            update(field)
        })
    }
}

fn check_nullability(old: bool, new: bool, column: &str, flags: AlterFlags) -> Result<()> {
    if flags.disable_null_to_not_null && old && !new {
        return Err(Error::invalid_argument(format!(
            "Cannot update column type from nullable to non nullable for {column}. You can set table configuration option 'alter-column-null-to-not-null.disabled' = 'false' to allow converting null columns to not null"
        ))
        .with_context("column", column));
    }
    Ok(())
}

/// Runs `f` on the field list that holds the last element of `path`, with that last name
/// (Java `SchemaManager.NestedColumnModifier`): each intermediate name is a ROW column, or an
/// ARRAY / MAP whose element / value is (eventually) a ROW, the path then naming the element
/// or value step (`["a", "element", "f"]`, `["m", "value", "f"]`).
fn in_parent<T>(
    fields: &mut Vec<DataField>,
    path: &[String],
    table: &str,
    f: impl FnOnce(&mut Vec<DataField>, &str) -> Result<T>,
) -> Result<T> {
    descend(fields, path, 0, table, f)
}

fn descend<T>(
    fields: &mut Vec<DataField>,
    path: &[String],
    depth: usize,
    table: &str,
    f: impl FnOnce(&mut Vec<DataField>, &str) -> Result<T>,
) -> Result<T> {
    let full = path.join(".");
    let name = path
        .get(depth)
        .ok_or_else(|| Error::invalid_argument(format!("invalid column path '{full}'")))?;
    if depth + 1 == path.len() {
        return f(fields, name);
    }
    let prefix = path.get(..=depth).unwrap_or_default().join(".");
    let field = fields
        .iter_mut()
        .find(|x| x.name == *name)
        .ok_or_else(|| not_exist(&prefix, table))?;
    let (inner, steps) = row_fields_of(&mut field.data_type, &prefix)?;
    descend(inner, path, depth + steps, table, f)
}

/// The ROW fields inside `t` and how many path steps reach them (1 for a ROW, one more per
/// ARRAY element or MAP value on the way).
fn row_fields_of<'a>(t: &'a mut DataType, full: &str) -> Result<(&'a mut Vec<DataField>, usize)> {
    match &mut t.kind {
        TypeKind::Row(fields) => Ok((fields, 1)),
        TypeKind::Array(e) | TypeKind::Map(_, e) => {
            let (fields, steps) = row_fields_of(e, full)?;
            Ok((fields, steps + 1))
        }
        _ => Err(
            Error::invalid_argument(format!("{full} is not a structured type."))
                .with_context("column", full),
        ),
    }
}

/// Java `SchemaManager#applyMove`.
fn apply_move(fields: &mut Vec<DataField>, column: &str, position: &Move) -> Result<()> {
    let index = |n: &str| fields.iter().position(|f| f.name == n);
    let from = index(column).ok_or_else(|| {
        Error::invalid_argument(format!("Field name not found: {column}"))
            .with_context("column", column)
    })?;
    let itself = || {
        Err(
            Error::invalid_argument(format!("Cannot move itself for column {column}"))
                .with_context("column", column),
        )
    };
    let last = fields.len() - 1;
    let to = match position {
        Move::First if from == 0 => return itself(),
        Move::Last if from == last => return itself(),
        Move::First => 0,
        Move::Last => last,
        Move::After(r) | Move::Before(r) => {
            let reference = index(r).ok_or_else(|| {
                Error::invalid_argument(format!("Reference field name not found: {r}"))
                    .with_context("column", r.clone())
            })?;
            if reference == from {
                return itself();
            }
            let mut to = reference;
            if matches!(position, Move::After(_)) && from > reference {
                to += 1;
            }
            if matches!(position, Move::Before(_)) && from < reference {
                to -= 1;
            }
            to.min(last)
        }
    };
    let field = fields.remove(from);
    fields.insert(to, field);
    Ok(())
}

#[cfg(test)]
#[path = "schema_change_tests.rs"]
mod tests;
