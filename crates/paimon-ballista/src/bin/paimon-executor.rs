//! `paimon-executor`: Ballista's executor with the Paimon codecs; reads its tasks' splits
//! straight from the tables' storage.
//!
//! ```text
//! paimon-executor --scheduler 127.0.0.1:50050 --host 127.0.0.1 --port 50051 --grpc-port 50052 \
//!     [--executor-id ID] [--concurrent-tasks N] [--work-dir DIR] [--storage-option KEY=VALUE ...]
//! ```

use std::net::SocketAddr;
use std::process::ExitCode;

use clap::Parser;

/// Ballista executor for Paimon tables.
#[derive(Debug, Parser)]
#[command(name = "paimon-executor", version)]
struct Args {
    /// The scheduler to register with.
    #[arg(long, default_value = "127.0.0.1:50050")]
    scheduler: SocketAddr,
    /// Host to bind and advertise.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Flight port (shuffle data is fetched from here).
    #[arg(long, default_value_t = 50051)]
    port: u16,
    /// gRPC port (the scheduler pushes tasks here).
    #[arg(long, default_value_t = 50052)]
    grpc_port: u16,
    /// Executor id, naming its split counter in job metrics (default: a fresh UUID).
    #[arg(long)]
    executor_id: Option<String>,
    /// Tasks run at once (default: available cores).
    #[arg(long)]
    concurrent_tasks: Option<usize>,
    /// Directory for shuffle files (default: a temporary directory).
    #[arg(long)]
    work_dir: Option<String>,
    /// Object-store option (`KEY=VALUE`, repeatable) for reading tables.
    #[arg(long = "storage-option")]
    storage_options: Vec<String>,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    paimon_ballista::init_logging();
    let result = async {
        let options = paimon_ballista::parse_storage_options(&args.storage_options)?;
        let vcores = args.concurrent_tasks.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        });
        let place = paimon_ballista::ExecutorPlace {
            id: args.executor_id.clone(),
            scheduler: args.scheduler,
            host: args.host.clone(),
            port: args.port,
            grpc_port: args.grpc_port,
            vcores,
            work_dir: args.work_dir.clone(),
        };
        let config = paimon_ballista::executor_config(&place, &options);
        eprintln!(
            "paimon-executor on {}:{} (grpc {}), scheduler {}",
            args.host, args.port, args.grpc_port, args.scheduler
        );
        paimon_ballista::run_executor(config).await
    }
    .await;
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("paimon-executor: {e}");
            ExitCode::FAILURE
        }
    }
}
