//! [`PaimonSink`]: `INSERT INTO` / `INSERT OVERWRITE` of a Paimon table as a DataFusion
//! [`DataSink`] (DataFusion runs it under a `DataSinkExec` that merges the input into one
//! partition and returns one `count` row).
//!
//! Every batch goes through one [`TableWrite`](paimon_core::TableWrite) (the library's front
//! door: columns matched by name and type, rows routed to partitions and buckets, primary-key
//! buffers merged and sorted); the messages are committed as one snapshot when the input ends.
//! `INSERT OVERWRITE` follows Java's default (`dynamic-partition-overwrite = true`): only the
//! partitions receiving rows are replaced, the whole table when it is unpartitioned. A failed
//! statement commits nothing (files written before the failure are left for orphan removal).
//!
//! Exactly once: the sink commits as a [`CommitIdentity`] fixed when the statement is planned
//! (a fresh commit user and Java's batch identifier, as Java's Flink batch sink does), and it
//! travels with the plan ([`SinkWire`]). A sink decoded from a shipped plan (a distributed
//! engine's task, which the engine may run again) commits with the library's exactly-once
//! check (`commit_messages_with_identifier` / `overwrite_messages_with_identifier`, Java's
//! `filterAndCommit` at the end of a batch input): a task that runs the same plan again after a
//! commit finds the user's snapshot and does not commit again; it reports the same row count,
//! and its new files are left for orphan removal. A sink run where it was planned (local
//! DataFusion) is run once and commits without the check, as before: the check reads the
//! table's snapshots from the latest back to the user's (a new user's: back to the earliest).

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use async_trait::async_trait;
use datafusion::common::{exec_err, DataFusionError, Result};
use datafusion::datasource::sink::DataSink;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::{DisplayAs, DisplayFormatType};
use futures::StreamExt;
use paimon_core::commit::{CommitMessage, BATCH_COMMIT_IDENTIFIER};
use paimon_core::spec::snapshot::Snapshot;
use paimon_core::{FileIO, Table};
use serde::{Deserialize, Serialize};
use tokio::sync::OnceCell;

use crate::error::to_df_error;

/// Who commits a statement's rows: fixed when the statement is planned, the same for every
/// execution of that plan (Java's Flink sink: a commit user chosen when the job is built and a
/// checkpoint id, `Long.MAX_VALUE` at the end of a batch input).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommitIdentity {
    /// The commit user recorded in the snapshot.
    pub commit_user: String,
    /// The commit identifier recorded in the snapshot.
    pub commit_identifier: i64,
}

impl CommitIdentity {
    /// A new statement's identity: a random UUID as the user (Java's default commit user) and
    /// the batch identifier ([`BATCH_COMMIT_IDENTIFIER`]).
    pub fn fresh() -> Self {
        Self::of_user(uuid::Uuid::new_v4().to_string())
    }

    /// The batch identity of `commit_user`.
    pub fn of_user(commit_user: String) -> Self {
        CommitIdentity {
            commit_user,
            commit_identifier: BATCH_COMMIT_IDENTIFIER,
        }
    }
}

/// What a sink ships to another process: the table (location, name, the schema id it was
/// planned with), the operation and the commit identity. No credentials: the decoding
/// process opens the table through its own storage options.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SinkWire {
    /// Table root location.
    pub location: String,
    /// `db.table`, for errors, logs and plans.
    pub name: String,
    /// The table schema id the statement was planned with.
    pub schema_id: i64,
    /// `INSERT OVERWRITE` (else `INSERT INTO`).
    pub overwrite: bool,
    /// The commit user and identifier.
    pub identity: CommitIdentity,
}

/// Writes a statement's rows into a Paimon table and commits them once.
#[derive(Debug)]
pub struct PaimonSink {
    wire: SinkWire,
    schema: SchemaRef,
    io: FileIO,
    /// The open table: given when planned here, opened on first write when decoded.
    table: OnceCell<Table>,
    /// Decoded from a shipped plan: commit with the exactly-once check.
    exactly_once: bool,
}

impl PaimonSink {
    /// A sink into `table` (named `name` in errors) taking batches of `schema`; `overwrite`
    /// replaces the partitions written (or the whole unpartitioned table); commits as
    /// `identity`.
    pub fn new(
        table: Table,
        name: String,
        schema: SchemaRef,
        overwrite: bool,
        identity: CommitIdentity,
    ) -> Self {
        let wire = SinkWire {
            location: table.location().to_string(),
            name,
            schema_id: table.schema().id,
            overwrite,
            identity,
        };
        PaimonSink {
            wire,
            schema,
            io: table.file_io().clone(),
            table: OnceCell::new_with(Some(table)),
            exactly_once: false,
        }
    }

    /// A sink decoded from `wire` in another process: the table is opened through `io` when
    /// the first write starts, and must still have the planned schema id; it commits with
    /// the exactly-once check (see the module doc).
    pub fn from_wire(wire: SinkWire, schema: SchemaRef, io: FileIO) -> Self {
        PaimonSink {
            wire,
            schema,
            io,
            table: OnceCell::new(),
            exactly_once: true,
        }
    }

    /// What the sink ships.
    pub fn wire(&self) -> &SinkWire {
        &self.wire
    }

    async fn table(&self) -> Result<Table> {
        let table = self
            .table
            .get_or_try_init(|| open_planned(&self.wire, self.io.clone()))
            .await?;
        Ok(table.clone())
    }
}

/// Opens the table of `wire` through `io` and checks it still has the planned schema id.
async fn open_planned(wire: &SinkWire, io: FileIO) -> Result<Table> {
    let name = &wire.name;
    let table = Table::open_with(io, &wire.location, &HashMap::new())
        .await
        .map_err(|e| to_df_error(e, name))?;
    let latest = table.schema().id;
    if latest != wire.schema_id {
        let planned = wire.schema_id;
        return exec_err!(
            "paimon table {name}: planned with schema {planned}, \
             but the latest schema is now {latest}"
        );
    }
    Ok(table)
}

impl DisplayAs for PaimonSink {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let op = if self.wire.overwrite {
            "overwrite"
        } else {
            "append"
        };
        write!(
            f,
            "PaimonSink: table={}, {op}, commit_user={}",
            self.wire.name, self.wire.identity.commit_user
        )
    }
}

#[async_trait]
impl DataSink for PaimonSink {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    async fn write_all(
        &self,
        data: SendableRecordBatchStream,
        _context: &Arc<TaskContext>,
    ) -> Result<u64> {
        let table = self.table().await?;
        let rows = write_and_commit(table, self.wire.clone(), self.exactly_once, data).await?;
        #[cfg(feature = "failpoints")]
        if crate::failpoint::claim_sink(&self.wire.name) {
            return Err(to_df_error(
                paimon_core::Error::io("injected storage failure after the commit (failpoint)"),
                &self.wire.name,
            ));
        }
        Ok(rows)
    }
}

/// Writes `data` and commits once, on a blocking thread of the current runtime: the
/// futures of paimon-core's `TableWrite` are not `Send` (its Parquet and ORC encoders are not
/// `Sync`), which DataFusion's `async_trait` methods require; `block_on` there needs only the
/// inputs to be `Send`.
async fn write_and_commit(
    table: Table,
    wire: SinkWire,
    exactly_once: bool,
    data: SendableRecordBatchStream,
) -> Result<u64> {
    let handle = tokio::runtime::Handle::current();
    let task = tokio::task::spawn_blocking(move || {
        handle.block_on(write_all(table, wire, exactly_once, data))
    });
    match task.await {
        Ok(r) => r,
        Err(e) => Err(DataFusionError::Execution(format!(
            "paimon write task failed: {e}"
        ))),
    }
}

async fn write_all(
    table: Table,
    wire: SinkWire,
    exactly_once: bool,
    mut data: SendableRecordBatchStream,
) -> Result<u64> {
    let name = wire.name.as_str();
    let err = |e| to_df_error(e, name);
    let user = &wire.identity.commit_user;
    let mut write = table
        .new_write()
        .with_commit_user(user.as_str())
        .build()
        .map_err(err)?;
    let mut rows = 0u64;
    while let Some(batch) = data.next().await {
        let batch = batch?;
        if batch.num_rows() == 0 {
            continue;
        }
        write.write(&batch).await.map_err(err)?;
        rows += batch.num_rows() as u64;
    }
    let messages = write.prepare_commit().await.map_err(err)?;
    if !wire.overwrite && rows == 0 {
        return Ok(0);
    }
    let snapshots = commit(&table, &wire, exactly_once, &messages)
        .await
        .map_err(err)?;
    let written = messages.iter().any(|m| !m.is_empty());
    if snapshots.is_empty() && written {
        tracing::warn!(
            table = %name,
            rows,
            commit_user = %user,
            "paimon sink: already committed by this statement (a retried task), not committed \
             again; its new files are left for orphan removal"
        );
    } else {
        let ids: Vec<i64> = snapshots.iter().map(|s| s.id).collect();
        tracing::info!(
            table = %name,
            rows,
            snapshots = ?ids,
            commit_user = %user,
            "paimon sink: committed"
        );
    }
    Ok(rows)
}

/// Commits `messages` as `wire`'s identity: with the library's exactly-once check when
/// `exactly_once`, else unchecked with the batch identifier (the identity of a sink planned
/// where it runs is a fresh user with the batch identifier).
async fn commit(
    table: &Table,
    wire: &SinkWire,
    exactly_once: bool,
    messages: &[CommitMessage],
) -> paimon_core::Result<Vec<Snapshot>> {
    let c = table.new_commit();
    let CommitIdentity {
        commit_user: user,
        commit_identifier: id,
    } = &wire.identity;
    match (wire.overwrite, exactly_once) {
        (true, true) => {
            c.overwrite_messages_with_identifier(*id, messages, user, None)
                .await
        }
        (true, false) => c.overwrite_messages(messages, user, None).await,
        (false, true) => c.commit_messages_with_identifier(*id, messages, user).await,
        (false, false) => c.commit_messages(messages, user).await,
    }
}
