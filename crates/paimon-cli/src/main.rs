//! `paimon`: inspect, plan, read, write, create and alter Apache Paimon tables from the command line.
//!
//! A thin layer over `paimon-core`: each subcommand parses its arguments, calls the library and
//! renders the result. Data goes to stdout; progress and errors go to stderr.

mod args;
mod commands;
#[cfg(all(target_arch = "x86_64", any(test, target_env = "musl")))]
mod mem;
mod output;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use paimon_core::ErrorKind;

/// jemalloc instead of glibc's malloc: decoding allocates and frees many short-lived buffers
/// (decompressed pages, merge inputs) on several threads; jemalloc reuses them where glibc returns
/// them to the kernel and faults them in again (a full read of a 3M-row merge-on-read table ~10%
/// faster, peak RSS ~60 MiB higher).
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Inspect, plan, read, write, compact, maintain and query (SQL) Apache Paimon tables.
///
/// TABLE is a table directory (or URL), or a warehouse followed by `db.table`.
///
/// Exit codes: 0 success, 1 other failure, 2 usage error, 3 not found (table, snapshot, tag,
/// file), 4 invalid or corrupt data, 5 unsupported feature, 6 commit conflict.
#[derive(Debug, Parser)]
#[command(name = "paimon", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// `defer`: a subcommand's arguments are defined only when it is the one invoked (or its help is
/// asked for); defining all of them took ~0.5 ms of every run. Defined late, they would bring
/// the doc comment of their `Args` struct as the subcommand's help, over the one here: so those
/// structs (and the ones they flatten) carry plain comments.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
enum Command {
    /// Build a demo warehouse (append + primary-key tables) and run explained queries on it.
    Demo(commands::demo::Args),
    /// List the databases and tables of a warehouse.
    Tables(commands::tables::Args),
    /// Print a table's latest schema, keys and options.
    Schema(commands::schema::Args),
    /// List a table's snapshots.
    Snapshots(commands::snapshots::Args),
    /// Expire old snapshots and delete the files only they used.
    Expire(commands::expire::Args),
    /// Delete files no snapshot, tag or branch refers to (older than `--older-than`, 1 d).
    RemoveOrphanFiles(commands::remove_orphan_files::Args),
    /// Plan a scan and print its splits and pruning metrics.
    Scan(commands::scan::Args),
    /// Read rows.
    Read(commands::read::Args),
    /// Append (or `--overwrite`) the rows of a Parquet, CSV or JSON-lines file and commit them.
    Write(commands::write::Args),
    /// Compact a table's buckets (`--full` rewrites every selected bucket; postpone-bucket
    /// tables: rows moved into real buckets) and commit.
    Compact(commands::compact::Args),
    /// Run SQL over a warehouse with DataFusion (`sql WAREHOUSE "SELECT * FROM db.t"`; with no
    /// query, `;`-ended statements are read from stdin). CREATE TABLE ... WITH, INSERT, DROP.
    #[cfg(feature = "sql")]
    Sql(commands::sql::Args),
    /// Build and commit index payloads (`index build TABLE --column C`).
    #[command(subcommand)]
    Index(commands::index::Command),
    /// Time a full read against reading the same Parquet files directly with arrow-rs.
    Bench(commands::bench::Args),
    /// Time writing generated rows into a primary-key table against a plain arrow-rs write.
    BenchWrite(commands::bench_write::Args),
    /// Write a primary-key table of many small commits (planning over thousands of manifests).
    BenchManyCommits(commands::bench_many_commits::Args),
    /// Time planning: a filtered plan cold and with the live-entry cache warm, and a full plan.
    BenchPlan(commands::bench_plan::Args),
    /// Create a table from a column list (`--schema 'id BIGINT, v STRING'`).
    Create(commands::create::Args),
    /// Change a table's schema or options (one new schema version).
    Alter(commands::alter::Args),
    /// Drop a table of a warehouse and its files.
    Drop(commands::drop::Args),
    /// Create a database in a warehouse.
    CreateDatabase(commands::database::CreateArgs),
    /// Drop a database of a warehouse.
    DropDatabase(commands::database::DropArgs),
}

fn exit_code(kind: ErrorKind) -> u8 {
    match kind {
        ErrorKind::NotFound => 3,
        ErrorKind::DataInvalid => 4,
        ErrorKind::Unsupported => 5,
        ErrorKind::InvalidArgument => 2,
        ErrorKind::Conflict | ErrorKind::AlreadyExists => 6,
        _ => 1,
    }
}

fn main() -> ExitCode {
    // The runtime and its worker threads start while the arguments are parsed: both take a
    // few tenths of a millisecond, a twentieth of a point lookup's whole process.
    let starting = std::thread::spawn(|| {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
    });
    let cli = Cli::parse();
    let runtime = match starting.join() {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
        Err(_) => {
            eprintln!("error: cannot start the runtime");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async move {
        match cli.command {
            Command::Demo(a) => commands::demo::run(a).await,
            Command::Tables(a) => commands::tables::run(a).await,
            Command::Schema(a) => commands::schema::run(a).await,
            Command::Snapshots(a) => commands::snapshots::run(a).await,
            Command::Expire(a) => commands::expire::run(a).await,
            Command::RemoveOrphanFiles(a) => commands::remove_orphan_files::run(a).await,
            Command::Scan(a) => commands::scan::run(a).await,
            Command::Read(a) => commands::read::run(a).await,
            #[cfg(feature = "sql")]
            Command::Sql(a) => commands::sql::run(a).await,
            Command::Bench(a) => commands::bench::run(a).await,
            Command::BenchWrite(a) => commands::bench_write::run(a).await,
            Command::BenchManyCommits(a) => commands::bench_many_commits::run(a).await,
            Command::BenchPlan(a) => commands::bench_plan::run(a).await,
            Command::Index(c) => commands::index::run(c).await,
            Command::Create(a) => commands::create::run(a).await,
            Command::Alter(a) => commands::alter::run(a).await,
            Command::Drop(a) => commands::drop::run(a).await,
            Command::CreateDatabase(a) => commands::database::create(a).await,
            Command::DropDatabase(a) => commands::database::drop(a).await,
            Command::Write(a) => commands::write::run(a).await,
            Command::Compact(a) => commands::compact::run(a).await,
        }
    });
    let code = match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            exit_code(e.kind())
        }
    };
    // The command has finished: its writes are committed, its output written. Exiting here
    // leaves the threads to the kernel instead of shutting the runtime down, which joins them
    // one by one (~0.5 ms, a twentieth of a point lookup); left behind is only work nobody
    // waits for (a check of a read stopped early by `--limit`). `exit` flushes stdout.
    let _ = std::io::Write::flush(&mut std::io::stdout());
    std::process::exit(i32::from(code))
}
