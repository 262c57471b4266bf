//! `paimon sql WAREHOUSE ["SELECT ..."]`: SQL over a warehouse with DataFusion.
//!
//! The warehouse is registered as catalog `paimon` (also the default catalog), so tables are
//! `paimon.db.table` or `db.table`; system tables are `db."table$snapshots"` and friends.
//! Several statements may be given, separated by `;` (`SET paimon.scan_snapshot_id = 3;
//! SELECT ...`); each query's rows are written in the chosen format. `EXPLAIN SELECT ...`
//! prints the plan with the scan's pruning counters (`EXPLAIN ANALYZE` adds the read's).
//! `CREATE TABLE ... WITH ('primary-key' = ..., 'bucket' = ...)`, `DROP TABLE`, `INSERT
//! INTO` and `INSERT OVERWRITE` write through the library ([`paimon_datafusion::ddl`]).
//!
//! Without a query, statements are read from standard input, each ended by `;` (a
//! `paimon> ` prompt is shown when it is a terminal); an error is printed and the next
//! statement runs, and the command fails at the end if any statement failed.
//!
//! With `--ballista df://host:port` (cargo feature `ballista`), queries are submitted to a
//! Ballista scheduler started with `paimon-scheduler` and run by `paimon-executor`s
//! (`crates/paimon-ballista`), which read the tables straight from the warehouse's storage.

use std::collections::HashMap;
use std::sync::Arc;

use futures::TryStreamExt;
use paimon_core::spec::DataField;
use paimon_core::{Error, FileSystemCatalog, Result, Schema};
use paimon_datafusion::catalog::PaimonCatalogProvider;
use paimon_datafusion::datafusion::common::DataFusionError;
use paimon_datafusion::datafusion::prelude::SessionContext;
use paimon_datafusion::datafusion::sql::parser::{DFParser, Statement as DFStatement};

use crate::output::{OutputFormat, RowWriter};

// Arguments of `sql`. (not a doc comment: see `defer` in main.rs)
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Warehouse directory or URL.
    warehouse: String,
    /// SQL statements, separated by `;` (none: read statements from standard input).
    sql: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    format: OutputFormat,
    /// Write to this file instead of stdout (required for parquet).
    #[arg(long)]
    output: Option<std::path::PathBuf>,
    /// Submit queries to this Ballista scheduler (`df://host:port`, `paimon-scheduler`) instead
    /// of running them in this process; its executors read the warehouse themselves.
    #[cfg(feature = "ballista")]
    #[arg(long, value_name = "URL")]
    ballista: Option<String>,
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
    let catalog = FileSystemCatalog::new(&args.warehouse, HashMap::new())?;
    // The warehouse is listed while the session is built (on another thread: registering
    // DataFusion's functions and rules is a millisecond of CPU).
    let listing = async {
        PaimonCatalogProvider::try_new(catalog)
            .await
            .map_err(df_err)
    };
    let (ctx, provider) = futures::future::join(context(&args), listing).await;
    let ctx = ctx?;
    ctx.register_catalog("paimon", Arc::new(provider?));
    match &args.sql {
        Some(sql) => run_text(&ctx, &args, sql).await,
        None => run_stdin(&ctx, &args).await,
    }
}

/// The session: in-process, or a client of the Ballista scheduler given by `--ballista`.
async fn context(args: &Args) -> Result<SessionContext> {
    #[cfg(feature = "ballista")]
    if let Some(url) = &args.ballista {
        let config = paimon_ballista::session_config(&std::collections::HashMap::new())
            .with_default_catalog_and_schema("paimon", "default")
            .with_information_schema(true);
        return paimon_ballista::remote_context(url, config)
            .await
            .map_err(df_err);
    }
    let _ = args;
    let config = paimon_datafusion::session_config()
        .with_default_catalog_and_schema("paimon", "default")
        .with_information_schema(true);
    tokio::task::spawn_blocking(move || SessionContext::new_with_config(config))
        .await
        .map_err(|e| Error::internal(format!("building the SQL session failed: {e}")))
}

/// Runs every statement of `sql`.
async fn run_text(ctx: &SessionContext, args: &Args, sql: &str) -> Result<()> {
    let statements = DFParser::parse_sql(sql).map_err(df_err)?;
    for statement in statements {
        run_statement(ctx, args, statement).await?;
    }
    Ok(())
}

/// Reads statements ended by `;` from standard input and runs each as it is complete.
async fn run_stdin(ctx: &SessionContext, args: &Args) -> Result<()> {
    use std::io::{BufRead, IsTerminal, Write};
    let interactive = std::io::stdin().is_terminal();
    let prompt = |continued: bool| {
        if interactive {
            let mut err = std::io::stderr();
            let _ = write!(err, "{}", if continued { "    -> " } else { "paimon> " });
            let _ = err.flush();
        }
    };
    let mut failed = 0usize;
    let mut buffer = String::new();
    prompt(false);
    let mut lines = std::io::stdin().lock().lines();
    loop {
        let line = match lines.next() {
            Some(Ok(l)) => Some(l),
            Some(Err(e)) => return Err(Error::invalid_argument(format!("cannot read stdin: {e}"))),
            None => None,
        };
        let done = line.is_none();
        if let Some(l) = line {
            buffer.push_str(&l);
            buffer.push('\n');
        }
        let complete = done || buffer.trim_end().ends_with(';');
        if complete && !buffer.trim().is_empty() {
            let text = std::mem::take(&mut buffer);
            if let Err(e) = run_text(ctx, args, &text).await {
                failed += 1;
                eprintln!("error: {e}");
            }
        }
        if done {
            break;
        }
        prompt(!buffer.trim().is_empty());
    }
    match failed {
        0 => Ok(()),
        n => Err(Error::invalid_argument(format!("{n} statement(s) failed"))),
    }
}

/// Runs one statement and writes its rows (statements without columns print nothing).
async fn run_statement(ctx: &SessionContext, args: &Args, statement: DFStatement) -> Result<()> {
    let df = paimon_datafusion::ddl::execute(ctx, statement)
        .await
        .map_err(df_err)?;
    let schema = std::sync::Arc::new(df.schema().as_arrow().clone());
    let mut stream = df.execute_stream().await.map_err(df_err)?;
    if schema.fields().is_empty() {
        while stream.try_next().await.map_err(df_err)?.is_some() {}
        return Ok(());
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
    writer.finish()
}
