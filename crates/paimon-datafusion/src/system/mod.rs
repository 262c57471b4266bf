//! System tables, named and shaped as Java Paimon's `org.apache.paimon.table.system.*Table`:
//! `t$snapshots`, `t$schemas`, `t$options`, `t$tags`, `t$files`, `t$manifests`,
//! `t$partitions`, `t$buckets` (in-memory tables built when the table is looked up) and
//! `t$audit_log` (a scan of the table with a row kind column, [`crate::audit`]).
//!
//! Times are `TIMESTAMP(3)` as stored (snapshot and schema times in UTC, file creation times
//! on the writer's wall clock; Java renders them in the JVM's zone). `t$files`, `t$partitions`
//! and `t$buckets` list the live files of the latest snapshot (or, like `t$manifests`, of the
//! one the session's `SET paimon.scan_*` options choose: `travel`), level 0 of deletion-vector
//! tables included (Java plans them with an all-levels filter; level 0 of first-row tables is
//! still left out here). Departures from Java: `t$files` bounds of a column whose type changed
//! since the file was written are `null` (Java casts them); binary bounds are rendered as
//! UTF-8 text (Java prints the array's identity).

mod files;
mod partitions;
pub mod shipped;
mod travel;

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{ArrayRef, Int64Array, RecordBatch, StringArray, TimestampMillisecondArray};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use datafusion::catalog::TableProvider;
use datafusion::common::{plan_err, DataFusionError, Result};
use datafusion::datasource::MemTable;
use paimon_core::spec::snapshot::CommitKind;
use paimon_core::Table;

use crate::error::to_df_error;

/// Time-travel options (`scan.snapshot-id`, `scan.tag-name`, `scan.timestamp-millis`).
pub(crate) type TravelOptions = BTreeMap<String, String>;

/// The system table `kind` of `table` (`name` = `db.table$kind`, for errors). `t$files`,
/// `t$manifests`, `t$partitions` and `t$buckets` read the snapshot the session's `paimon.*`
/// time-travel options choose when scanned, as Java's do with dynamic options. The result
/// is a [`shipped::SystemTable`], which the logical codec ships to other processes.
pub async fn system_table(table: &Table, kind: &str, name: &str) -> Result<Arc<dyn TableProvider>> {
    let kind = kind.to_ascii_lowercase();
    let latest = memory_table(table, &kind, name, &TravelOptions::new()).await?;
    let inner: Arc<dyn TableProvider> = match travel::Kind::of(&kind) {
        Some(k) => Arc::new(travel::TravelTable::new(table.clone(), k, name, latest)),
        None => latest,
    };
    Ok(Arc::new(shipped::SystemTable::new(
        table.clone(),
        name,
        &kind,
        inner,
    )))
}

/// The columns of system table `kind` of `table` at the snapshot `travel` chooses.
pub(crate) async fn columns(
    table: &Table,
    kind: &str,
    travel: &TravelOptions,
) -> Option<paimon_core::Result<Columns>> {
    Some(match kind {
        "snapshots" => snapshots(table).await,
        "schemas" => schemas(table).await,
        "options" => Ok(options(table)),
        "files" => files::files(table, travel).await,
        "tags" => tags(table).await,
        "manifests" => files::manifests(table, travel).await,
        "partitions" => partitions::partitions(table, travel).await,
        "buckets" => partitions::buckets(table, travel).await,
        _ => return None,
    })
}

/// System table `kind` (lower case) of `table` as an in-memory table at the snapshot `travel`
/// chooses.
pub(crate) async fn memory_table(
    table: &Table,
    kind: &str,
    name: &str,
    travel: &TravelOptions,
) -> Result<Arc<dyn TableProvider>> {
    let columns = match columns(table, kind, travel).await {
        Some(c) => c,
        None if kind == "audit_log" => {
            let provider = crate::audit::AuditLogProvider::try_new(table.clone(), name)?;
            return Ok(Arc::new(provider));
        }
        None => {
            return plan_err!(
                "unknown system table {name}: supported are $snapshots, $schemas, $options, \
                 $files, $manifests, $partitions, $buckets, $tags, $audit_log"
            )
        }
    };
    let (schema, columns) = columns.map_err(|e| to_df_error(e, name))?;
    let batch = RecordBatch::try_new(schema.clone(), columns).map_err(DataFusionError::from)?;
    Ok(Arc::new(MemTable::try_new(schema, vec![vec![batch]])?))
}

/// The plan over every live file of the snapshot `travel` chooses (default: the latest):
/// deletion-vector tables are planned merge-on-read so their level-0 files are listed too.
async fn live_plan(
    table: &Table,
    travel: &TravelOptions,
) -> paimon_core::Result<paimon_core::Plan> {
    let mut scan = table.scan().with_options(travel.clone());
    if table.options().deletion_vectors_enabled {
        scan = scan.with_option("deletion-vectors.merge-on-read", "true");
    }
    scan.build()?.plan().await
}

/// The values of a serialized partition row (`None`: undecodable).
fn partition_datums(
    bytes: &[u8],
    fields: &[paimon_core::spec::types::DataField],
) -> Option<Vec<Option<paimon_core::spec::Datum>>> {
    let row = paimon_core::spec::binary_row::BinaryRow::from_serialized(bytes).ok()?;
    if row.arity() != fields.len() {
        return None;
    }
    let types: Vec<_> = fields.iter().map(|f| f.data_type.clone()).collect();
    row.decode(&types).ok()
}

/// A partition row as Java casts a row to a string: `{v1, v2}`, values cast to strings,
/// nulls as `null` (`{}` for an unpartitioned table; `?` for undecodable bytes).
fn partition_row_string(bytes: &[u8], fields: &[paimon_core::spec::types::DataField]) -> String {
    let Some(values) = partition_datums(bytes, fields) else {
        return "?".to_string();
    };
    let cells: Vec<String> = values
        .iter()
        .zip(fields)
        .map(|(v, f)| {
            v.as_ref().map_or_else(
                || "null".to_string(),
                |v| paimon_core::spec::partition_path::cast_to_string(v, &f.data_type),
            )
        })
        .collect();
    format!("{{{}}}", cells.join(", "))
}

type Columns = (SchemaRef, Vec<ArrayRef>);

fn field(name: &str, t: DataType, nullable: bool) -> Field {
    Field::new(name, t, nullable)
}

fn ts() -> DataType {
    DataType::Timestamp(TimeUnit::Millisecond, None)
}

fn strings<I: IntoIterator<Item = Option<String>>>(v: I) -> ArrayRef {
    Arc::new(StringArray::from_iter(v))
}

fn longs<I: IntoIterator<Item = Option<i64>>>(v: I) -> ArrayRef {
    Arc::new(Int64Array::from_iter(v))
}

fn times<I: IntoIterator<Item = Option<i64>>>(v: I) -> ArrayRef {
    Arc::new(TimestampMillisecondArray::from_iter(v))
}

fn commit_kind(k: CommitKind) -> String {
    match k {
        CommitKind::Append => "APPEND",
        CommitKind::Compact => "COMPACT",
        CommitKind::Overwrite => "OVERWRITE",
        CommitKind::Analyze => "ANALYZE",
        CommitKind::Unknown => "UNKNOWN",
    }
    .to_string()
}

/// Java `SnapshotsTable`.
async fn snapshots(table: &Table) -> paimon_core::Result<Columns> {
    let s = table.snapshot_manager().snapshots().await?;
    let schema = Arc::new(Schema::new(vec![
        field("snapshot_id", DataType::Int64, false),
        field("schema_id", DataType::Int64, false),
        field("commit_user", DataType::Utf8, false),
        field("commit_identifier", DataType::Int64, false),
        field("commit_kind", DataType::Utf8, false),
        field("commit_time", ts(), false),
        field("base_manifest_list", DataType::Utf8, false),
        field("delta_manifest_list", DataType::Utf8, false),
        field("changelog_manifest_list", DataType::Utf8, true),
        field("total_record_count", DataType::Int64, true),
        field("delta_record_count", DataType::Int64, true),
        field("changelog_record_count", DataType::Int64, true),
        field("watermark", DataType::Int64, true),
        field("next_row_id", DataType::Int64, true),
    ]));
    let columns = vec![
        longs(s.iter().map(|s| Some(s.id))),
        longs(s.iter().map(|s| Some(s.schema_id))),
        strings(s.iter().map(|s| Some(s.commit_user.clone()))),
        longs(s.iter().map(|s| Some(s.commit_identifier))),
        strings(s.iter().map(|s| Some(commit_kind(s.commit_kind)))),
        times(s.iter().map(|s| Some(s.time_millis))),
        strings(s.iter().map(|s| Some(s.base_manifest_list.clone()))),
        strings(s.iter().map(|s| Some(s.delta_manifest_list.clone()))),
        strings(s.iter().map(|s| s.changelog_manifest_list.clone())),
        longs(s.iter().map(|s| s.total_record_count)),
        longs(s.iter().map(|s| s.delta_record_count)),
        longs(s.iter().map(|s| s.changelog_record_count)),
        longs(s.iter().map(|s| s.watermark)),
        longs(s.iter().map(|s| s.next_row_id)),
    ];
    Ok((schema, columns))
}

fn json<T: serde::Serialize>(v: &T) -> paimon_core::Result<String> {
    serde_json::to_string(v)
        .map_err(|e| paimon_core::Error::internal(format!("cannot render JSON: {e}")))
}

/// Java `SchemasTable`: fields, keys and options as compact JSON.
async fn schemas(table: &Table) -> paimon_core::Result<Columns> {
    let sm = table.snapshot_manager();
    let mut all = Vec::new();
    for id in sm.schema_ids().await? {
        all.push(sm.schema(id).await?);
    }
    let schema = Arc::new(Schema::new(vec![
        field("schema_id", DataType::Int64, false),
        field("fields", DataType::Utf8, false),
        field("partition_keys", DataType::Utf8, false),
        field("primary_keys", DataType::Utf8, false),
        field("options", DataType::Utf8, false),
        field("comment", DataType::Utf8, true),
        field("update_time", ts(), false),
    ]));
    let mut fields = Vec::new();
    let mut partition_keys = Vec::new();
    let mut primary_keys = Vec::new();
    let mut options = Vec::new();
    for s in &all {
        fields.push(Some(json(&s.fields)?));
        partition_keys.push(Some(json(&s.partition_keys)?));
        primary_keys.push(Some(json(&s.primary_keys)?));
        options.push(Some(json(&s.options)?));
    }
    let columns = vec![
        longs(all.iter().map(|s| Some(s.id))),
        strings(fields),
        strings(partition_keys),
        strings(primary_keys),
        strings(options),
        strings(all.iter().map(|s| s.comment.clone())),
        times(all.iter().map(|s| Some(s.time_millis))),
    ];
    Ok((schema, columns))
}

/// Java `OptionsTable`: the latest schema's options, in stored order.
fn options(table: &Table) -> Columns {
    let o = &table.schema().options;
    let schema = Arc::new(Schema::new(vec![
        field("key", DataType::Utf8, false),
        field("value", DataType::Utf8, false),
    ]));
    let columns = vec![
        strings(o.keys().map(|k| Some(k.clone()))),
        strings(o.values().map(|v| Some(v.clone()))),
    ];
    (schema, columns)
}

/// Java `TagsTable` (without `time_retained` rendering beyond seconds).
async fn tags(table: &Table) -> paimon_core::Result<Columns> {
    let sm = table.snapshot_manager();
    let mut all = Vec::new();
    for name in sm.tag_names().await? {
        let tag = sm.tag(&name).await?;
        all.push((name, tag));
    }
    let schema = Arc::new(Schema::new(vec![
        field("tag_name", DataType::Utf8, false),
        field("snapshot_id", DataType::Int64, false),
        field("schema_id", DataType::Int64, false),
        field("commit_time", ts(), false),
        field("record_count", DataType::Int64, true),
        field("create_time", ts(), true),
        field("time_retained", DataType::Utf8, true),
    ]));
    let columns = vec![
        strings(all.iter().map(|(n, _)| Some(n.clone()))),
        longs(all.iter().map(|(_, t)| Some(t.snapshot.id))),
        longs(all.iter().map(|(_, t)| Some(t.snapshot.schema_id))),
        times(all.iter().map(|(_, t)| Some(t.snapshot.time_millis))),
        longs(all.iter().map(|(_, t)| t.snapshot.total_record_count)),
        times(
            all.iter()
                .map(|(_, t)| t.tag_create_time.map(|c| c.and_utc().timestamp_millis())),
        ),
        strings(
            all.iter()
                .map(|(_, t)| t.tag_time_retained.map(|d| format!("{}s", d.as_secs()))),
        ),
    ];
    Ok((schema, columns))
}
