//! `paimon schema TABLE`.

use paimon_core::Result;

use crate::args::TableArgs;

// Arguments of `schema`. (not a doc comment: see `defer` in main.rs)
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    table: TableArgs,
    /// Print the schema JSON as stored.
    #[arg(long)]
    json: bool,
}

/// Prints the latest schema.
pub async fn run(args: Args) -> Result<()> {
    let table = args.table.load().await?;
    let s = table.schema();
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(s.as_ref()).unwrap_or_default()
        );
        return Ok(());
    }
    println!("table: {}", table.location());
    println!("schema id: {}", s.id);
    println!("columns:");
    for f in &s.fields {
        println!("  {:>4}  {}  {}", f.id, f.name, f.data_type);
    }
    println!("partition keys: [{}]", s.partition_keys.join(", "));
    println!("primary keys: [{}]", s.primary_keys.join(", "));
    println!("bucket keys: [{}]", s.bucket_keys().join(", "));
    let mut opts: Vec<_> = s.options.iter().collect();
    opts.sort();
    println!("options:");
    for (k, v) in opts {
        println!("  {k} = {v}");
    }
    Ok(())
}
