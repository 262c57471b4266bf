//! `paimon compact TABLE [--partition k=v,...] [--bucket B] [--full]`: compact a table's
//! buckets and commit one `COMPACT` snapshot (see `paimon_core::compact`; without `--full`
//! primary-key buckets get Java's universal compaction pick, deletion-vector and first-row
//! tables lookup compaction of their level-0 files).

use std::collections::HashMap;

use paimon_core::{Error, Result};

use crate::args::TableArgs;

// Arguments of `compact`. (not a doc comment: see `defer` in main.rs)
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    table: TableArgs,
    /// Only this partition, as `k=v,k2=v2` (repeat for several partitions).
    #[arg(long)]
    partition: Vec<String>,
    /// Only this bucket.
    #[arg(long)]
    bucket: Option<i32>,
    /// Rewrite every selected bucket (primary-key tables: into one run at the top level);
    /// otherwise what Java's universal compaction picks (size amplification, size ratio,
    /// sorted-run count; level 0 forced up for deletion-vector and first-row tables).
    #[arg(long)]
    full: bool,
    /// Commit user recorded in the snapshot.
    #[arg(long, default_value = "paimon-rs")]
    commit_user: String,
    /// Buckets compacted at once (default: 2 × cores).
    #[arg(long)]
    parallelism: Option<std::num::NonZeroUsize>,
}

/// Parses `k=v,k2=v2` into a partition spec.
fn partition_spec(text: &str) -> Result<HashMap<String, String>> {
    text.split(',')
        .map(|kv| match kv.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.to_string())),
            _ => Err(Error::invalid_argument(format!(
                "--partition expects k=v[,k=v...], got '{text}'"
            ))),
        })
        .collect()
}

/// Runs `compact`.
pub async fn run(a: Args) -> Result<()> {
    let table = a.table.load().await?;
    let mut builder = table
        .compact()
        .full(a.full)
        .with_commit_user(&a.commit_user);
    if !a.partition.is_empty() {
        let specs = a
            .partition
            .iter()
            .map(|p| partition_spec(p))
            .collect::<Result<Vec<_>>>()?;
        builder = builder.with_partitions(specs);
    }
    if let Some(n) = a.parallelism {
        builder = builder.with_parallelism(n);
    }
    if let Some(b) = a.bucket {
        builder = builder.with_bucket(b);
    }
    let report = builder.execute().await?;
    for b in &report.buckets {
        let part: Vec<String> = b
            .partition_values
            .iter()
            .map(|(k, v)| format!("{k}={}", v.as_deref().unwrap_or("null")))
            .collect();
        println!(
            "partition [{}] bucket {}: {} files -> {} files ({} rows)",
            part.join(","),
            b.bucket,
            b.files_before,
            b.files_after,
            b.rows_after
        );
    }
    if report.index_sort_spills > 0 {
        println!(
            "pk-btree payload sorts spilled {} runs to local disk (write-buffer-size)",
            report.index_sort_spills
        );
    }
    match report.snapshot_id {
        Some(id) => println!("snapshot {id}: compacted {} buckets", report.buckets.len()),
        None => println!("nothing to compact"),
    }
    Ok(())
}
