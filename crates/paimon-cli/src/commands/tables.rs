//! `paimon tables WAREHOUSE`.

use std::collections::HashMap;

use paimon_core::catalog::FileSystemCatalog;
use paimon_core::Result;

// Arguments of `tables`. (not a doc comment: see `defer` in main.rs)
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Warehouse directory or URL.
    pub warehouse: String,
}

/// Prints `db.table` lines.
pub async fn run(args: Args) -> Result<()> {
    let catalog = FileSystemCatalog::new(&args.warehouse, HashMap::new())?;
    for db in catalog.list_databases().await? {
        for t in catalog.list_tables(&db).await? {
            println!("{db}.{t}");
        }
    }
    Ok(())
}
