//! `paimon snapshots TABLE`.

use paimon_core::Result;

use crate::args::TableArgs;

// Arguments of `snapshots`. (not a doc comment: see `defer` in main.rs)
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    table: TableArgs,
}

/// Prints one line per snapshot.
pub async fn run(args: Args) -> Result<()> {
    let table = args.table.load().await?;
    println!(
        "{:>6}  {:>6}  {:<10}  {:>13}  {:>10}  {:>10}",
        "id", "schema", "kind", "time_millis", "records", "delta"
    );
    for s in table.snapshot_manager().snapshots().await? {
        let opt = |v: Option<i64>| v.map_or("-".to_string(), |v| v.to_string());
        println!(
            "{:>6}  {:>6}  {:<10}  {:>13}  {:>10}  {:>10}",
            s.id,
            s.schema_id,
            format!("{:?}", s.commit_kind).to_uppercase(),
            s.time_millis,
            opt(s.total_record_count),
            opt(s.delta_record_count)
        );
    }
    Ok(())
}
