//! `paimon expire TABLE [--retain-min N] [--retain-max N] [--older-than DURATION] [--max-deletes N]`.

use paimon_core::spec::options::parse_duration;
use paimon_core::Result;

use crate::args::TableArgs;

// Arguments of `expire`; unset limits come from the table's `snapshot.*` options. (not a doc comment: see `defer` in main.rs)
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    table: TableArgs,
    /// Keep at least this many latest snapshots (`snapshot.num-retained.min`).
    #[arg(long)]
    retain_min: Option<i32>,
    /// Keep at most this many snapshots (`snapshot.num-retained.max`).
    #[arg(long)]
    retain_max: Option<i32>,
    /// Keep snapshots younger than this, e.g. `1 h`, `30min`, `0` (`snapshot.time-retained`).
    #[arg(long, value_name = "DURATION")]
    older_than: Option<String>,
    /// Expire at most this many snapshots (`snapshot.expire.limit`).
    #[arg(long)]
    max_deletes: Option<i32>,
}

/// Expires snapshots and prints what was deleted.
pub async fn run(args: Args) -> Result<()> {
    let table = args.table.load().await?;
    let mut expire = table.expire_snapshots();
    if let Some(n) = args.retain_min {
        expire = expire.retain_min(n);
    }
    if let Some(n) = args.retain_max {
        expire = expire.retain_max(n);
    }
    if let Some(d) = &args.older_than {
        expire = expire.older_than(parse_duration(d)?);
    }
    if let Some(n) = args.max_deletes {
        expire = expire.max_deletes(n);
    }
    let r = expire.execute().await?;
    match (r.expired_snapshots.first(), r.expired_snapshots.last()) {
        (Some(a), Some(b)) => println!(
            "expired snapshots {a}..={b} ({} snapshots)",
            r.expired_snapshots.len()
        ),
        _ => println!("no snapshot to expire"),
    }
    println!(
        "deleted: {} data files, {} manifest files, {} index files, {} statistics files",
        r.data_files_deleted,
        r.manifest_files_deleted,
        r.index_files_deleted,
        r.statistics_files_deleted
    );
    for u in &r.unreadable {
        eprintln!("kept unreadable {}: {}", u.file, u.reason);
    }
    Ok(())
}
