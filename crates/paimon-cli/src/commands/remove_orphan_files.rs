//! `paimon remove-orphan-files TABLE [--older-than DURATION] [--dry-run]`.

use paimon_core::maintenance::DEFAULT_ORPHAN_AGE;
use paimon_core::spec::options::parse_duration;
use paimon_core::Result;

use crate::args::TableArgs;

// Arguments of `remove-orphan-files`. (not a doc comment: see `defer` in main.rs)
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    table: TableArgs,
    /// Only files last modified longer ago than this are candidates (default `1 d`).
    #[arg(long, value_name = "DURATION")]
    older_than: Option<String>,
    /// List the orphans without deleting them.
    #[arg(long)]
    dry_run: bool,
}

/// Removes (or lists) orphan files, one location a line, then a summary.
pub async fn run(args: Args) -> Result<()> {
    let table = args.table.load().await?;
    let age = match &args.older_than {
        Some(d) => parse_duration(d)?,
        None => DEFAULT_ORPHAN_AGE,
    };
    let r = table
        .remove_orphan_files()
        .older_than(age)
        .dry_run(args.dry_run)
        .execute()
        .await?;
    for o in &r.orphans {
        println!("{o}");
    }
    println!(
        "{} {} orphan files ({} bytes) of {} candidates",
        if r.dry_run { "found" } else { "deleted" },
        r.orphans.len(),
        r.orphan_bytes,
        r.candidates
    );
    Ok(())
}
