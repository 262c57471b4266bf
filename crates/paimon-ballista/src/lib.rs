//! # paimon-ballista
//!
//! Distributed reads of Apache Paimon tables on Apache DataFusion Ballista 55.
//!
//! A query is planned on the client (the warehouse's catalog resolves table names), shipped as
//! a logical plan to the scheduler with [`PaimonLogicalCodec`] (tables travel as location +
//! schema), planned there (splits are planned by the scheduler, with the session's `paimon.*`
//! options), and each task's plan goes to an executor with [`PaimonPhysicalCodec`]: the scan
//! node carries its read settings, its child the task's own splits. Executors read their splits
//! straight from the table's storage; no data passes through the scheduler.
//!
//! `INSERT INTO` / `INSERT OVERWRITE` go the same way: the scheduler plans the sink with the
//! commit identity the client put in the plan, and an executor runs it and commits, exactly
//! once even when Ballista retries its task (`paimon_datafusion::sink`).
//!
//! - client: [`session_state`], [`remote_context`] (`df://host:port`), `standalone_context`
//!   (feature `standalone`: an in-process scheduler and executor, for tests);
//! - servers: [`scheduler_config`] + [`run_scheduler`] (binary `paimon-scheduler`),
//!   [`executor_config`] + [`run_executor`] (binary `paimon-executor`);
//! - after a query: [`job_id`] of its plan, [`splits_read_per_executor`] / [`job_metrics`]
//!   (the operator metrics the scheduler collected from the executors' tasks).
//!
//! Every process builds its own storage access from its `storage_options` (object store
//! credentials are never part of a plan). Client, scheduler and executors must run the same
//! version of this crate: the codecs' bytes are versioned, not negotiated.
#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::sync::Arc;

use ballista::prelude::{SessionConfigExt, SessionContextExt};
use ballista_core::execution_plans::DistributedQueryExec;
use ballista_core::serde::protobuf::scheduler_grpc_client::SchedulerGrpcClient;
use ballista_core::serde::protobuf::{operator_metric, GetJobMetricsParams, GetJobMetricsResult};
use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use ballista_executor::executor_process::{start_executor_process, ExecutorProcessConfig};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::{SchedulerConfig, TaskDistributionPolicy};
use ballista_scheduler::scheduler_process::start_server;
use datafusion_proto::protobuf::LogicalPlanNode;
use paimon_datafusion::datafusion::common::{DataFusionError, Result};
use paimon_datafusion::datafusion::execution::context::SessionState;
use paimon_datafusion::datafusion::execution::session_state::SessionStateBuilder;
use paimon_datafusion::datafusion::physical_plan::ExecutionPlan;
use paimon_datafusion::datafusion::prelude::{SessionConfig, SessionContext};
use paimon_datafusion::{PaimonLogicalCodec, PaimonOptions, PaimonPhysicalCodec, ReadSite};

pub use ballista;
pub use paimon_datafusion;

/// Our logical codec around Ballista's.
pub fn logical_codec(storage_options: &HashMap<String, String>) -> Arc<PaimonLogicalCodec> {
    Arc::new(PaimonLogicalCodec::new(
        Arc::new(BallistaLogicalExtensionCodec::default()),
        storage_options.clone(),
    ))
}

/// Our physical codec around Ballista's.
pub fn physical_codec(storage_options: &HashMap<String, String>) -> Arc<PaimonPhysicalCodec> {
    Arc::new(PaimonPhysicalCodec::new(
        Arc::new(BallistaPhysicalExtensionCodec::default()),
        storage_options.clone(),
    ))
}

/// A Ballista session configuration with the `paimon.*` options and our codecs. Scheduler and
/// executors use it as their config producer, so the options a client sets are applied there
/// (unknown option keys are dropped silently by Ballista's remote sides).
pub fn session_config(storage_options: &HashMap<String, String>) -> SessionConfig {
    SessionConfig::new_with_ballista()
        .with_option_extension(PaimonOptions::default())
        .with_ballista_logical_extension_codec(logical_codec(storage_options))
        .with_ballista_physical_extension_codec(physical_codec(storage_options))
}

/// A client session state from `config` (see [`session_config`]), DataFusion's default
/// features included.
pub fn session_state(config: SessionConfig) -> SessionState {
    SessionStateBuilder::new()
        .with_config(config)
        .with_default_features()
        .build()
}

/// A client session submitting to the Ballista scheduler at `url` (`df://host:port`).
/// Register warehouses on it with [`paimon_datafusion::register_warehouse`].
pub async fn remote_context(url: &str, config: SessionConfig) -> Result<SessionContext> {
    SessionContext::remote_with_state(url, session_state(config)).await
}

/// A client session with an in-process scheduler and executor (`parallelism` task slots).
///
/// Feature `standalone`.
///
/// Ballista's own `standalone_with_state` gives its scheduler a session builder that returns a
/// clone of the client's state as it was at startup, so session options set later (`SET
/// paimon.scan_snapshot_id = ..`) never reach planning. This scheduler builds each query's
/// session from the configuration the client sends, as a separate `paimon-scheduler` does. The
/// executor still shares the client's runtime: this proves the codecs and the per-task
/// narrowing, not that separate processes are configured right (see the tests with separate
/// processes).
#[cfg(feature = "standalone")]
pub async fn standalone_context(
    config: SessionConfig,
    parallelism: usize,
) -> Result<SessionContext> {
    use ballista_core::serde::BallistaCodec;

    let config = config.with_ballista_standalone_parallelism(parallelism);
    let state = session_state(config.clone());
    let codec = BallistaCodec::new(
        config.ballista_logical_extension_codec(),
        config.ballista_physical_extension_codec(),
    );
    let producer = config.clone();
    let addr = ballista_scheduler::standalone::new_standalone_scheduler_with_builder(
        Arc::new(|c: SessionConfig| Ok(session_state(c))),
        Arc::new(move || producer.clone()),
        codec,
    )
    .await
    .map_err(ballista_error)?;
    let url = format!("http://localhost:{}", addr.port());
    let mut attempts = 0;
    let scheduler = loop {
        match SchedulerGrpcClient::connect(url.clone()).await {
            Ok(client) => break client,
            Err(e) if attempts >= 100 => {
                return Err(DataFusionError::External(Box::new(e)));
            }
            Err(_) => {
                attempts += 1;
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
        }
    };
    ballista_executor::new_standalone_executor_from_state(scheduler, parallelism, &state)
        .await
        .map_err(ballista_error)?;
    SessionContext::remote_with_state(&format!("df://localhost:{}", addr.port()), state).await
}

/// A scheduler configuration with our codecs and config producer, bound to `bind` (host and
/// port are also what executors and clients connect to). Tasks are handed to executors round
/// robin (Ballista's default fills one executor's slots first).
pub fn scheduler_config(
    bind: SocketAddr,
    storage_options: &HashMap<String, String>,
) -> SchedulerConfig {
    let options = storage_options.clone();
    let mut config = SchedulerConfig::default()
        .with_hostname(bind.ip().to_string())
        .with_port(bind.port())
        .with_override_config_producer(Arc::new(move || session_config(&options)));
    config.bind_host = bind.ip().to_string();
    config.task_distribution = TaskDistributionPolicy::RoundRobin;
    config.override_logical_codec = Some(logical_codec(storage_options));
    config.override_physical_codec = Some(physical_codec(storage_options));
    config
}

/// Runs a scheduler with `config` until it fails.
pub async fn run_scheduler(config: SchedulerConfig) -> Result<()> {
    let addr: SocketAddr = format!("{}:{}", config.bind_host, config.bind_port)
        .parse()
        .map_err(|e| DataFusionError::Configuration(format!("scheduler address: {e}")))?;
    let cluster = BallistaCluster::new_from_config(&config)
        .await
        .map_err(ballista_error)?;
    start_server(cluster, addr, Arc::new(config))
        .await
        .map_err(ballista_error)
}

/// Where an executor runs: what [`executor_config`] needs besides storage options.
#[derive(Debug, Clone)]
pub struct ExecutorPlace {
    /// The executor's id (default: a fresh UUID, Ballista's default). It names the
    /// executor's split counter (`splits_read@<id>`) in the job metrics.
    pub id: Option<String>,
    /// The scheduler to register with.
    pub scheduler: SocketAddr,
    /// Host to bind and advertise.
    pub host: String,
    /// Flight port (shuffle data and results are fetched from here).
    pub port: u16,
    /// gRPC port (the scheduler pushes tasks here).
    pub grpc_port: u16,
    /// Tasks run at once.
    pub vcores: usize,
    /// Directory for shuffle files (default: a temporary directory).
    pub work_dir: Option<String>,
}

/// An executor configuration with our codecs and config producer, at `place`. Its tasks'
/// sessions carry a [`ReadSite`] named by the executor id, so each scan task counts the
/// splits it read under `splits_read@<executor id>` ([`splits_read_per_executor`]).
pub fn executor_config(
    place: &ExecutorPlace,
    storage_options: &HashMap<String, String>,
) -> ExecutorProcessConfig {
    let defaults = ExecutorProcessConfig::default();
    let executor_id = place.id.clone().unwrap_or(defaults.executor_id.clone());
    let site = Arc::new(ReadSite::new(executor_id.clone()));
    let options = storage_options.clone();
    ExecutorProcessConfig {
        executor_id,
        bind_host: place.host.clone(),
        external_host: Some(place.host.clone()),
        port: place.port,
        grpc_port: place.grpc_port,
        scheduler_host: place.scheduler.ip().to_string(),
        scheduler_port: place.scheduler.port(),
        vcores: place.vcores,
        work_dir: place.work_dir.clone(),
        override_config_producer: Some(Arc::new(move || {
            session_config(&options).with_extension(site.clone())
        })),
        override_logical_codec: Some(logical_codec(storage_options)),
        override_physical_codec: Some(physical_codec(storage_options)),
        ..defaults
    }
}

/// The scheduler job that ran `plan`, a physical plan of a Ballista client session
/// ([`remote_context`]) once it has been executed (`None` before, or for a plan that did
/// not go through a scheduler).
pub fn job_id(plan: &Arc<dyn ExecutionPlan>) -> Option<String> {
    if let Some(q) = plan.downcast_ref::<DistributedQueryExec<LogicalPlanNode>>() {
        return q.job_id().map(|j| j.as_str().to_string());
    }
    plan.children().into_iter().find_map(job_id)
}

/// Splits of Paimon tables read per executor in job `job_id` of the scheduler at `url`
/// (`df://host:port`): executor id → splits, summed over the job's scan tasks. Taken from
/// the operator metrics the scheduler folded from its executors' task reports
/// (`GetJobMetrics`; only stages that succeeded, and each partition's last successful
/// attempt), where each scan task counted its splits under `splits_read@<executor id>`.
pub async fn splits_read_per_executor(url: &str, job_id: &str) -> Result<BTreeMap<String, u64>> {
    let metrics = job_metrics(url, job_id).await?;
    let mut out = BTreeMap::new();
    for stage in &metrics.stages {
        for op in &stage.operators {
            for m in &op.metrics {
                if let Some(operator_metric::Metric::Count(c)) = &m.metric {
                    if let Some(site) = c.name.strip_prefix(ReadSite::METRIC_PREFIX) {
                        *out.entry(site.to_string()).or_insert(0) += c.value;
                    }
                }
            }
        }
    }
    Ok(out)
}

/// The per-stage operator metrics of job `job_id` (`GetJobMetrics` of the scheduler at
/// `url`, `df://host:port`).
pub async fn job_metrics(url: &str, job_id: &str) -> Result<GetJobMetricsResult> {
    let address = url.strip_prefix("df://").unwrap_or(url);
    let mut client = SchedulerGrpcClient::connect(format!("http://{address}"))
        .await
        .map_err(|e| DataFusionError::External(Box::new(e)))?;
    let request = GetJobMetricsParams {
        job_id: job_id.to_string(),
    };
    let response = client
        .get_job_metrics(request)
        .await
        .map_err(|e| DataFusionError::External(Box::new(e)))?;
    Ok(response.into_inner())
}

/// Runs an executor with `config` until it stops.
pub async fn run_executor(config: ExecutorProcessConfig) -> Result<()> {
    start_executor_process(Arc::new(config))
        .await
        .map_err(ballista_error)
}

/// Logs to stderr, filtered by `RUST_LOG` (default: `info` for this crate and
/// `paimon_datafusion`, whose scans log each partition's split count). For the binaries.
pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| {
        tracing_subscriber::EnvFilter::new("paimon_ballista=info,paimon_datafusion=info")
    });
    // A second call (a subscriber already set) keeps the first.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}

fn ballista_error(e: ballista_core::error::BallistaError) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}

/// `key=value` storage options (as given on a command line) as a map; an item without `=` is
/// an error naming it.
pub fn parse_storage_options<I, S>(items: I) -> Result<HashMap<String, String>>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut out = HashMap::new();
    for item in items {
        let item = item.as_ref();
        let Some((k, v)) = item.split_once('=') else {
            return Err(DataFusionError::Configuration(format!(
                "storage option '{item}' is not key=value"
            )));
        };
        out.insert(k.trim().to_string(), v.trim().to_string());
    }
    Ok(out)
}
