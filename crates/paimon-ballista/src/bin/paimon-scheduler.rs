//! `paimon-scheduler`: Ballista's scheduler with the Paimon codecs and session options.
//!
//! ```text
//! paimon-scheduler --bind 0.0.0.0:50050 [--storage-option KEY=VALUE ...]
//! ```

use std::net::SocketAddr;
use std::process::ExitCode;

use clap::Parser;

/// Ballista scheduler for Paimon tables.
#[derive(Debug, Parser)]
#[command(name = "paimon-scheduler", version)]
struct Args {
    /// Address to listen on (executors and clients connect here).
    #[arg(long, default_value = "127.0.0.1:50050")]
    bind: SocketAddr,
    /// Object-store option (`KEY=VALUE`, repeatable) for opening tables while planning.
    #[arg(long = "storage-option")]
    storage_options: Vec<String>,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    paimon_ballista::init_logging();
    let result = async {
        let options = paimon_ballista::parse_storage_options(&args.storage_options)?;
        let config = paimon_ballista::scheduler_config(args.bind, &options);
        eprintln!("paimon-scheduler listening on {}", args.bind);
        paimon_ballista::run_scheduler(config).await
    }
    .await;
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("paimon-scheduler: {e}");
            ExitCode::FAILURE
        }
    }
}
