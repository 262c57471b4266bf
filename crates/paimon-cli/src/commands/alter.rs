//! `paimon alter TABLE [db.table] --set k=v --add-column 'c INT' ...`: one new schema version.
//!
//! Changes are applied in this order, whatever the order on the command line: `--set`,
//! `--remove`, `--add-column`, `--rename-column`, `--alter-column-type`, `--drop-column`,
//! `--comment`; within one flag, in the order given.

use std::collections::HashMap;

use paimon_core::catalog::{Move, SchemaChange};
use paimon_core::spec::type_text::{parse_field, parse_type};
use paimon_core::{Error, FileSystemCatalog, Identifier, Result, Table};

use crate::args::parse_key_value;

// Arguments of `alter`. (not a doc comment: see `defer` in main.rs)
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Table directory or URL; or the warehouse when IDENTIFIER is given.
    pub table: String,
    /// `db.table` inside the warehouse given as TABLE.
    pub identifier: Option<String>,
    /// Set an option (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = parse_key_value)]
    pub set: Vec<(String, String)>,
    /// Remove an option (repeatable).
    #[arg(long = "remove", value_name = "KEY")]
    pub remove: Vec<String>,
    /// Add a nullable column: `name TYPE [COMMENT '...'] [FIRST | AFTER col]`; `r.f TYPE` adds
    /// field `f` to ROW column `r` (repeatable).
    #[arg(long = "add-column", value_name = "COLUMN")]
    pub add_column: Vec<String>,
    /// Rename a column: `old=new` (repeatable).
    #[arg(long = "rename-column", value_name = "OLD=NEW", value_parser = parse_key_value)]
    pub rename_column: Vec<(String, String)>,
    /// Change a column's type: `name TYPE`; nullability is kept unless TYPE says NOT NULL
    /// (repeatable).
    #[arg(long = "alter-column-type", value_name = "COLUMN")]
    pub alter_column_type: Vec<String>,
    /// Drop a column (repeatable).
    #[arg(long = "drop-column", value_name = "NAME")]
    pub drop_column: Vec<String>,
    /// Set the table comment.
    #[arg(long)]
    pub comment: Option<String>,
    /// Succeed without changes when the table does not exist.
    #[arg(long)]
    pub if_exists: bool,
}

fn path(name: &str) -> Vec<String> {
    name.split('.').map(str::to_string).collect()
}

/// Splits a trailing `FIRST` or `AFTER col` off a column definition.
fn split_position(text: &str) -> (&str, Option<Move>) {
    let t = text.trim_end();
    let upper = t.to_ascii_uppercase();
    if upper.ends_with(" FIRST") {
        return (&t[..t.len() - " FIRST".len()], Some(Move::First));
    }
    if let Some(at) = upper.rfind(" AFTER ") {
        let reference = t[at + " AFTER ".len()..].trim();
        let plain = !reference.is_empty()
            && reference
                .chars()
                .all(|c| !c.is_whitespace() && !"'`()<>,".contains(c));
        if plain {
            return (&t[..at], Some(Move::After(reference.to_string())));
        }
    }
    (t, None)
}

fn changes(args: &Args) -> Result<Vec<SchemaChange>> {
    let mut out: Vec<SchemaChange> = Vec::new();
    out.extend(args.set.iter().map(|(k, v)| SchemaChange::set_option(k, v)));
    out.extend(args.remove.iter().map(SchemaChange::remove_option));
    for text in &args.add_column {
        let (definition, position) = split_position(text);
        let field = parse_field(definition)?;
        out.push(SchemaChange::AddColumn {
            path: path(&field.name),
            data_type: field.data_type,
            description: field.description,
            position,
        });
    }
    for (old, new) in &args.rename_column {
        out.push(SchemaChange::RenameColumn {
            path: path(old),
            new_name: new.clone(),
        });
    }
    for text in &args.alter_column_type {
        let (name, type_text) = text.trim().split_once(char::is_whitespace).ok_or_else(|| {
            Error::invalid_argument(format!("expected 'name TYPE', got '{text}'"))
        })?;
        let keep = !type_text
            .trim_end()
            .to_ascii_uppercase()
            .ends_with("NOT NULL");
        out.push(SchemaChange::UpdateColumnType {
            path: path(name),
            data_type: parse_type(type_text)?,
            keep_nullability: keep,
        });
    }
    out.extend(
        args.drop_column
            .iter()
            .map(|c| SchemaChange::DropColumn { path: path(c) }),
    );
    if let Some(c) = &args.comment {
        out.push(SchemaChange::UpdateComment(Some(c.clone())));
    }
    if out.is_empty() {
        return Err(Error::invalid_argument(
            "no change given (see `paimon alter --help`)",
        ));
    }
    Ok(out)
}

/// Applies the changes and prints the new schema id.
pub async fn run(args: Args) -> Result<()> {
    let changes = changes(&args)?;
    let schema = match &args.identifier {
        Some(id) => {
            let catalog = FileSystemCatalog::new(&args.table, HashMap::new())?;
            catalog
                .alter_table(&Identifier::parse(id)?, changes, args.if_exists)
                .await?
        }
        None => match Table::open(&args.table).await {
            Err(e) if args.if_exists && e.kind() == paimon_core::ErrorKind::NotFound => None,
            other => Some(other?.alter(&changes).await?.schema().as_ref().clone()),
        },
    };
    match schema {
        Some(s) => println!("schema {} ({} columns)", s.id, s.fields.len()),
        None => println!("table does not exist; nothing changed"),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_split_off_column_definitions() {
        assert_eq!(split_position("c INT FIRST"), ("c INT", Some(Move::First)));
        assert_eq!(
            split_position("c INT COMMENT 'x' after id"),
            ("c INT COMMENT 'x'", Some(Move::After("id".into())))
        );
        assert_eq!(split_position("c INT COMMENT 'put AFTER x y'").1, None);
        assert_eq!(split_position("c ROW<a INT>").1, None);
    }
}
