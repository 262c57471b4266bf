//! `paimon create-database WAREHOUSE NAME` and `paimon drop-database WAREHOUSE NAME`.

use std::collections::HashMap;

use paimon_core::{FileSystemCatalog, Result};

// Arguments of `create-database`. (not a doc comment: see `defer` in main.rs)
#[derive(Debug, clap::Args)]
pub struct CreateArgs {
    /// Warehouse directory or URL.
    pub warehouse: String,
    /// Database name (the directory `<name>.db`).
    pub name: String,
    /// Succeed when the database exists.
    #[arg(long)]
    pub if_not_exists: bool,
}

// Arguments of `drop-database`. (not a doc comment: see `defer` in main.rs)
#[derive(Debug, clap::Args)]
pub struct DropArgs {
    /// Warehouse directory or URL.
    pub warehouse: String,
    /// Database name.
    pub name: String,
    /// Succeed when the database does not exist.
    #[arg(long)]
    pub if_exists: bool,
    /// Drop its tables too (otherwise a database with tables is not dropped).
    #[arg(long)]
    pub cascade: bool,
}

/// Creates the database directory.
pub async fn create(args: CreateArgs) -> Result<()> {
    let catalog = FileSystemCatalog::new(&args.warehouse, HashMap::new())?;
    catalog
        .create_database(&args.name, args.if_not_exists)
        .await
}

/// Drops the database.
pub async fn drop(args: DropArgs) -> Result<()> {
    let catalog = FileSystemCatalog::new(&args.warehouse, HashMap::new())?;
    catalog
        .drop_database(&args.name, args.if_exists, args.cascade)
        .await
}
