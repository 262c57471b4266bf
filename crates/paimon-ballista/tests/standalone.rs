//! Ballista standalone (in-process scheduler and executor) against local DataFusion and the
//! library's read, over a multi-bucket primary-key table written by paimon-core.

mod common;

use std::collections::HashMap;

use paimon_datafusion::datafusion::prelude::SessionContext;

/// The standalone cluster answers every query as local DataFusion does, without duplicated
/// rows over 8 split groups, and time travel options reach the scheduler's planning.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn standalone_equals_local() {
    let dir = tempfile::tempdir().unwrap();
    let table = common::write_orders(dir.path()).await;
    let config = paimon_ballista::session_config(&HashMap::new()).with_target_partitions(8);
    let ctx: SessionContext = paimon_ballista::standalone_context(config, 2)
        .await
        .unwrap();
    common::register(&ctx, dir.path()).await;
    let local = common::local_ctx(dir.path()).await;
    common::check_against_local(&ctx, &local, &table).await;
}
