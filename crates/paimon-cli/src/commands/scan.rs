//! `paimon scan TABLE`: the plan and its pruning metrics.

use paimon_core::render::datum_to_json;
use paimon_core::spec::binary_row::BinaryRow;
use paimon_core::spec::row_range::to_inclusive;
use paimon_core::spec::TableSchema;
use paimon_core::Result;
use paimon_core::{DataSplit, Plan};
use serde_json::{json, Map, Value};

use crate::args::{ScanArgs, TableArgs};

// Arguments of `scan`. (not a doc comment: see `defer` in main.rs)
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    table: TableArgs,
    #[command(flatten)]
    scan: ScanArgs,
    /// Print the plan as one JSON object.
    #[arg(long)]
    json: bool,
}

/// Plans and prints.
pub async fn run(args: Args) -> Result<()> {
    let table = args.table.load().await?;
    let plan = args.scan.builder(&table)?.build()?.plan().await?;
    let schema = table.schema();
    if args.json {
        let v = plan_json(&plan, schema)?;
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else {
        print_plan(&plan, schema)?;
    }
    Ok(())
}

fn partition_json(split: &DataSplit, schema: &TableSchema) -> Result<Value> {
    let fields = schema.partition_fields()?;
    let types: Vec<_> = fields.iter().map(|f| f.data_type.clone()).collect();
    let values = BinaryRow::from_serialized(&split.partition)?.decode(&types)?;
    let mut obj = Map::new();
    for (f, v) in fields.iter().zip(&values) {
        obj.insert(f.name.clone(), datum_to_json(v.as_ref(), &f.data_type));
    }
    Ok(Value::Object(obj))
}

/// The `--json` form of a plan.
pub fn plan_json(plan: &Plan, schema: &TableSchema) -> Result<Value> {
    let mut splits = Vec::new();
    for s in &plan.splits {
        let d = s.as_data();
        let files: Vec<Value> = d
            .files
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let dv = d.deletion_files.get(i).cloned().flatten();
                let ranges = d
                    .row_ranges
                    .as_ref()
                    .and_then(|r| r.get(i).cloned().flatten())
                    .map(|v| {
                        v.into_iter()
                            .filter_map(|r| to_inclusive(&r))
                            .map(|(a, b)| json!([a, b]))
                            .collect::<Vec<_>>()
                    });
                json!({
                    "file_name": f.file_name,
                    "level": f.level,
                    "row_count": f.row_count,
                    "file_size": f.file_size,
                    "deletion_file": dv.map(|dv| json!({
                        "path": dv.path, "offset": dv.offset, "length": dv.length,
                        "cardinality": dv.cardinality,
                    })),
                    "row_ranges": ranges,
                })
            })
            .collect();
        splits.push(json!({
            "partition": partition_json(d, schema)?,
            "bucket": d.bucket,
            "total_buckets": d.total_buckets,
            "raw_convertible": d.raw_convertible,
            "files": files,
        }));
    }
    Ok(json!({
        "snapshot_id": plan.snapshot_id,
        "splits": splits,
        "metrics": serde_json::to_value(&plan.metrics).unwrap_or(Value::Null),
    }))
}

fn print_plan(plan: &Plan, schema: &TableSchema) -> Result<()> {
    match plan.snapshot_id {
        Some(id) => println!("snapshot: {id}"),
        None => println!("snapshot: none (empty table)"),
    }
    for (i, s) in plan.splits.iter().enumerate() {
        let d = s.as_data();
        println!(
            "split {i}: partition {} bucket {}/{} raw_convertible={} rows={}",
            partition_json(d, schema)?,
            d.bucket,
            d.total_buckets,
            d.raw_convertible,
            d.row_count()
        );
        for (j, f) in d.files.iter().enumerate() {
            let dv = match d.deletion_files.get(j).cloned().flatten() {
                Some(dv) => format!(
                    " dv={}@{}+{}",
                    dv.path.rsplit('/').next().unwrap_or(&dv.path),
                    dv.offset,
                    dv.length
                ),
                None => String::new(),
            };
            let ranges = d
                .row_ranges
                .as_ref()
                .and_then(|r| r.get(j).cloned().flatten())
                .map(|r| indexed_ranges(&r))
                .unwrap_or_default();
            println!(
                "  {} level={} rows={} size={}{dv}{ranges}",
                f.file_name, f.level, f.row_count, f.file_size
            );
        }
    }
    println!("metrics:");
    if let Value::Object(m) = serde_json::to_value(&plan.metrics).unwrap_or(Value::Null) {
        for (k, v) in m {
            match v {
                Value::Object(inner) => {
                    println!("  {k}:");
                    for (k2, v2) in inner {
                        println!("    {k2}: {v2}");
                    }
                }
                v => println!("  {k}: {v}"),
            }
        }
    }
    Ok(())
}

/// ` indexed ranges=[a-b, ...] (n ranges, m rows)`: the file-local row ranges (inclusive) of an
/// indexed split, the first eight shown.
fn indexed_ranges(ranges: &[std::ops::Range<u64>]) -> String {
    let shown: Vec<String> = ranges
        .iter()
        .take(8)
        .filter_map(to_inclusive)
        .map(|(a, b)| format!("{a}-{b}"))
        .collect();
    let more = if ranges.len() > 8 { ", ..." } else { "" };
    let rows: u64 = ranges.iter().map(|r| r.end - r.start).sum();
    format!(
        " indexed ranges=[{}{more}] ({} ranges, {rows} rows)",
        shown.join(", "),
        ranges.len()
    )
}
