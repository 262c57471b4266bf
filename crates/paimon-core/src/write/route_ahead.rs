//! Routing a batch while the caller prepares the next one.
//!
//! Splitting a batch into its (partition, bucket) parts (hashing every key, then copying each
//! part's rows out) is pure CPU work that needs nothing of the writer's state. `TableWrite`
//! hands it to a blocking thread ([`RouteAhead::start`]) and returns, so a caller producing
//! batches (decoding a file, generating rows) keeps one core while the routing takes another.
//! The parts are buffered by the next call (`write` or `prepare_commit`), before anything of
//! that call: rows still reach their bucket writers in arrival order, so sequence numbers are
//! those of a synchronous write.
//!
//! Batches below [`MIN_ROWS`], a writer asked to use one core, or a caller outside a tokio
//! runtime route inline: a thread hand-off costs more than routing a few rows.

use std::sync::Arc;

use arrow_array::{Array, Int8Array, RecordBatch, UInt32Array};
use arrow_select::take::take;
use tokio::runtime::Handle;
use tokio::task::{JoinError, JoinHandle};

use super::route::{Routed, Router};
use crate::{Error, Result};

/// Batches of at least this many rows are routed ahead.
pub(crate) const MIN_ROWS: usize = 4096;

/// The parts of a batch, each with its rows' kinds.
pub(crate) type Parts = Vec<(Routed, Int8Array)>;

/// Routes `batch` (with `kinds`, one per row) into its parts.
pub(crate) fn route(router: &Router, batch: &RecordBatch, kinds: &Int8Array) -> Result<Parts> {
    with_kinds(router.route(batch)?, kinds)
}

/// Each part of a batch with the kinds of its rows (`kinds`: one per row of the batch).
pub(crate) fn with_kinds(parts: Vec<Routed>, kinds: &Int8Array) -> Result<Parts> {
    parts
        .into_iter()
        .map(|part| {
            let part_kinds = match &part.rows {
                None => kinds.clone(),
                Some(rows) => kinds_for(kinds, rows)?,
            };
            Ok((part, part_kinds))
        })
        .collect()
}

/// The kinds of one routed part, in the part's row order.
fn kinds_for(kinds: &Int8Array, rows: &UInt32Array) -> Result<Int8Array> {
    let taken = take(kinds, rows, None)?;
    taken
        .as_any()
        .downcast_ref::<Int8Array>()
        .cloned()
        .ok_or_else(|| Error::internal("row kinds are not Int8"))
}

/// At most one batch being routed on a blocking thread.
#[derive(Debug, Default)]
pub(crate) struct RouteAhead {
    pending: Option<JoinHandle<Result<Parts>>>,
}

impl RouteAhead {
    /// Whether a batch of `rows` rows is routed ahead by a writer allowed `parallelism` cores.
    pub(crate) fn applies(rows: usize, parallelism: usize) -> bool {
        rows >= MIN_ROWS && parallelism > 1 && Handle::try_current().is_ok()
    }

    /// Starts routing `batch`. The previous batch's parts must have been taken
    /// ([`RouteAhead::take`]) first: an internal error otherwise, and nothing is started.
    pub(crate) fn start(
        &mut self,
        router: Arc<Router>,
        batch: RecordBatch,
        kinds: Int8Array,
    ) -> Result<()> {
        if self.pending.is_some() {
            return Err(Error::internal(
                "a batch is routed ahead while the previous one is still pending",
            ));
        }
        self.pending = Some(tokio::task::spawn_blocking(move || {
            route(&router, &batch, &kinds)
        }));
        Ok(())
    }

    /// The outcome of the batch routed ahead (`None`: none is pending); [`parts`] turns it
    /// into its parts. Cancel-safe: when this future is dropped before it finishes, the batch
    /// stays pending.
    pub(crate) async fn take(&mut self) -> Option<Joined> {
        let handle = self.pending.as_mut()?;
        let joined = handle.await;
        self.pending = None;
        Some(joined)
    }
}

/// How a routing task ended.
pub(crate) type Joined = std::result::Result<Result<Parts>, JoinError>;

/// The parts of a routing task: its error, an internal error when it was cancelled, and its
/// panic resumed here.
pub(crate) fn parts(joined: Joined) -> Result<Parts> {
    match joined {
        Ok(parts) => parts,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(e) => Err(Error::internal(format!(
            "the routing of a written batch was cancelled: {e}"
        ))),
    }
}
