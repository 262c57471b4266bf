//! `paimon sql WAREHOUSE "SELECT ..."`: SQL over a warehouse with DataFusion.
//!
//! The warehouse is registered as catalog `paimon` (also the default catalog), so tables are
//! `paimon.db.table` or `db.table`; system tables are `db."table$snapshots"` and friends.
//! Several statements may be given, separated by `;` (`SET paimon.scan_snapshot_id = 3;
//! SELECT ...`); each query's rows are written in the chosen format. `EXPLAIN SELECT ...`
//! prints the plan.

use futures::TryStreamExt;
use paimon_core::spec::DataField;
use paimon_core::{Error, Result, Schema};
use paimon_datafusion::datafusion::common::DataFusionError;
use paimon_datafusion::datafusion::sql::parser::DFParser;

use crate::output::{OutputFormat, RowWriter};

/// Arguments of `sql`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Warehouse directory or URL.
    warehouse: String,
    /// SQL statements, separated by `;`.
    sql: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    format: OutputFormat,
    /// Write to this file instead of stdout (required for parquet).
    #[arg(long)]
    output: Option<std::path::PathBuf>,
}

fn df_err(e: DataFusionError) -> Error {
    // DataFusion wraps errors (diagnostics, context): classify by the innermost one.
    match e.find_root() {
        DataFusionError::Plan(_) | DataFusionError::SQL(..) | DataFusionError::SchemaError(..) => {
            Error::invalid_argument(e.to_string())
        }
        DataFusionError::NotImplemented(_) => Error::unsupported(e.to_string()),
        _ => Error::internal(e.to_string()),
    }
}

/// Runs the statements and writes each query's rows.
pub async fn run(args: Args) -> Result<()> {
    let config = paimon_datafusion::session_config()
        .with_default_catalog_and_schema("paimon", "default")
        .with_information_schema(true);
    let ctx = paimon_datafusion::datafusion::prelude::SessionContext::new_with_config(config);
    paimon_datafusion::register_warehouse(&ctx, "paimon", &args.warehouse)
        .await
        .map_err(df_err)?;
    let statements = DFParser::parse_sql(&args.sql).map_err(df_err)?;
    for statement in statements {
        let plan = ctx
            .state()
            .statement_to_plan(statement)
            .await
            .map_err(df_err)?;
        let df = ctx.execute_logical_plan(plan).await.map_err(df_err)?;
        let schema = std::sync::Arc::new(df.schema().as_arrow().clone());
        let mut stream = df.execute_stream().await.map_err(df_err)?;
        if schema.fields().is_empty() {
            while stream.try_next().await.map_err(df_err)?.is_some() {}
            continue;
        }
        // jsonl renders values by Paimon type: map the result's Arrow types back.
        let fields: Vec<DataField> = match Schema::from_arrow(&schema) {
            Ok(s) => s.fields().to_vec(),
            Err(e) if args.format == OutputFormat::Jsonl => return Err(e),
            Err(_) => Vec::new(),
        };
        let mut writer = RowWriter::new(args.format, args.output.as_deref(), schema, fields)?;
        while let Some(batch) = stream.try_next().await.map_err(df_err)? {
            writer.write(&batch)?;
        }
        writer.finish()?;
    }
    Ok(())
}
