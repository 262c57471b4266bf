//! `paimon create TABLE [db.table] --schema '...'`: create a table from a column list.

use std::collections::HashMap;

use paimon_core::catalog::Schema;
use paimon_core::spec::type_text::parse_fields;
use paimon_core::{FileSystemCatalog, Identifier, Result, Table};

use crate::args::parse_key_value;

// Arguments of `create`. (not a doc comment: see `defer` in main.rs)
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Table directory or URL to create; or the warehouse when IDENTIFIER is given.
    pub table: String,
    /// `db.table` inside the warehouse given as TABLE (the database must exist).
    pub identifier: Option<String>,
    /// Columns, e.g. `id BIGINT NOT NULL, v STRING COMMENT 'value', r ROW<a INT, b STRING>`.
    #[arg(long, value_name = "COLUMNS")]
    pub schema: String,
    /// Primary-key columns (comma list); they become NOT NULL.
    #[arg(long = "primary-key", value_name = "COLUMNS", value_delimiter = ',')]
    pub primary_key: Vec<String>,
    /// Partition columns (comma list).
    #[arg(long, value_name = "COLUMNS", value_delimiter = ',')]
    pub partition: Vec<String>,
    /// Table option (repeatable, kept in this order), e.g. `-o bucket=4`.
    #[arg(short = 'o', long = "option", value_name = "KEY=VALUE", value_parser = parse_key_value)]
    pub options: Vec<(String, String)>,
    /// Table comment.
    #[arg(long)]
    pub comment: Option<String>,
    /// Succeed without changes when the table exists.
    #[arg(long)]
    pub if_not_exists: bool,
}

/// Validates and creates the table, then prints its location and schema id.
pub async fn run(args: Args) -> Result<()> {
    let mut builder = Schema::builder()
        .columns(parse_fields(&args.schema)?)
        .primary_key(args.primary_key.iter().map(|s| s.trim()))
        .partition_keys(args.partition.iter().map(|s| s.trim()));
    for (k, v) in args.options {
        builder = builder.option(k, v);
    }
    if let Some(c) = args.comment {
        builder = builder.comment(c);
    }
    let schema = builder.build()?;
    let table = match &args.identifier {
        Some(id) => {
            let catalog = FileSystemCatalog::new(&args.table, HashMap::new())?;
            catalog
                .create_table(&Identifier::parse(id)?, schema, args.if_not_exists)
                .await?
        }
        None => match Table::create(&args.table, schema).await {
            Err(e) if args.if_not_exists && e.kind() == paimon_core::ErrorKind::AlreadyExists => {
                Table::open(&args.table).await?
            }
            other => other?,
        },
    };
    println!(
        "{} (schema {}, {} columns)",
        table.location(),
        table.schema().id,
        table.schema().fields.len()
    );
    Ok(())
}
