//! `paimon drop WAREHOUSE db.table`: drop a table and its files.

use std::collections::HashMap;

use paimon_core::{FileSystemCatalog, Identifier, Result};

// Arguments of `drop`. (not a doc comment: see `defer` in main.rs)
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Warehouse directory or URL.
    pub warehouse: String,
    /// `db.table` to drop.
    pub identifier: String,
    /// Succeed when the table does not exist.
    #[arg(long)]
    pub if_exists: bool,
}

/// Drops the table.
pub async fn run(args: Args) -> Result<()> {
    let catalog = FileSystemCatalog::new(&args.warehouse, HashMap::new())?;
    catalog
        .drop_table(&Identifier::parse(&args.identifier)?, args.if_exists)
        .await
}
