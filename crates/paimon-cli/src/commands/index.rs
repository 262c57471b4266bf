//! `paimon index build TABLE --column C`: build the `pk-btree` payloads of a column for the
//! latest snapshot's compacted files and commit them as a new snapshot.

use paimon_core::commit::build_pk_btree_index;
use paimon_core::Result;

use crate::args::TableArgs;

/// Index operations.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Build primary-key BTree payloads (`pk-btree.index.columns`) and commit them.
    Build(BuildArgs),
}

/// Arguments of `index build`.
#[derive(Debug, clap::Args)]
pub struct BuildArgs {
    #[command(flatten)]
    table: TableArgs,
    /// The indexed column (listed in the table's `pk-btree.index.columns`).
    #[arg(long)]
    column: String,
    /// Commit user recorded in the snapshot.
    #[arg(long, default_value = "paimon-rs")]
    commit_user: String,
}

/// Runs an index command.
pub async fn run(command: Command) -> Result<()> {
    match command {
        Command::Build(a) => {
            let table = a.table.load().await?;
            let r = build_pk_btree_index(&table, &a.column, &a.commit_user).await?;
            println!(
                "snapshot {}: {} payloads over {} rows ({} bytes)",
                r.snapshot_id, r.payloads, r.rows, r.bytes
            );
            Ok(())
        }
    }
}
