//! System tables, named and shaped as Java Paimon's `org.apache.paimon.table.system.*Table`:
//! `t$snapshots`, `t$schemas`, `t$options`, `t$files`, `t$manifests`, `t$tags`.
//!
//! Each is built in memory when the table is looked up (a [`MemTable`]). Times are
//! `TIMESTAMP(3)` wall clock in UTC (Java renders them in the JVM's zone). `t$files` lists the
//! files of the snapshot a scan of the table would read (the latest, or the one its own
//! `scan.*` options select) and has Java's columns except the key and value statistics
//! (`min_key`, `max_key`, `null_value_counts`, `min_value_stats`, `max_value_stats`) and
//! `write_cols`; `t$manifests` lists the latest snapshot's base and delta manifests without
//! the partition statistics columns (`min_partition_stats`, `max_partition_stats`).

use std::sync::Arc;

use arrow::array::{
    ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray, TimestampMillisecondArray,
};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use datafusion::catalog::TableProvider;
use datafusion::common::{plan_err, DataFusionError, Result};
use datafusion::datasource::MemTable;
use paimon_core::spec::snapshot::CommitKind;
use paimon_core::Table;

use crate::error::to_df_error;

/// The system table `kind` of `table` (`name` = `db.table$kind`, for errors).
pub async fn system_table(table: &Table, kind: &str, name: &str) -> Result<Arc<dyn TableProvider>> {
    let (schema, columns) = match kind.to_ascii_lowercase().as_str() {
        "snapshots" => snapshots(table).await,
        "schemas" => schemas(table).await,
        "options" => Ok(options(table)),
        "files" => files(table).await,
        "tags" => tags(table).await,
        "manifests" => manifests(table).await,
        _ => {
            return plan_err!(
                "unknown system table {name}: supported are $snapshots, $schemas, $options, \
                 $files, $manifests, $tags"
            )
        }
    }
    .map_err(|e| to_df_error(e, name))?;
    let batch = RecordBatch::try_new(schema.clone(), columns).map_err(DataFusionError::from)?;
    Ok(Arc::new(MemTable::try_new(schema, vec![vec![batch]])?))
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

/// Java `FilesTable` (see the module doc for the columns left out).
async fn files(table: &Table) -> paimon_core::Result<Columns> {
    let plan = table.scan().build()?.plan().await?;
    let schema = Arc::new(Schema::new(vec![
        field("partition", DataType::Utf8, true),
        field("bucket", DataType::Int32, false),
        field("file_path", DataType::Utf8, false),
        field("file_format", DataType::Utf8, false),
        field("schema_id", DataType::Int64, false),
        field("level", DataType::Int32, false),
        field("record_count", DataType::Int64, false),
        field("file_size_in_bytes", DataType::Int64, false),
        field("min_sequence_number", DataType::Int64, true),
        field("max_sequence_number", DataType::Int64, true),
        field("creation_time", ts(), true),
        field("deleteRowCount", DataType::Int64, true),
        field("file_source", DataType::Utf8, true),
        field("first_row_id", DataType::Int64, true),
    ]));
    let mut rows = Vec::new();
    for split in &plan.splits {
        let d = split.as_data();
        let partition = d
            .partition_values
            .iter()
            .map(|(_, v)| v.clone().unwrap_or_else(|| "null".to_string()))
            .collect::<Vec<_>>()
            .join(", ");
        for f in &d.files {
            rows.push((format!("{{{partition}}}"), d.bucket, d.file_location(f), f));
        }
    }
    let format = |name: &str| name.rsplit_once('.').map_or("", |(_, e)| e).to_string();
    let source = |s: Option<i8>| match s {
        Some(0) => Some("APPEND".to_string()),
        Some(1) => Some("COMPACT".to_string()),
        _ => None,
    };
    let columns = vec![
        strings(rows.iter().map(|r| Some(r.0.clone()))),
        Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.1))) as ArrayRef,
        strings(rows.iter().map(|r| Some(r.2.clone()))),
        strings(rows.iter().map(|r| Some(format(&r.3.file_name)))),
        longs(rows.iter().map(|r| Some(r.3.schema_id))),
        Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.3.level))) as ArrayRef,
        longs(rows.iter().map(|r| Some(r.3.row_count))),
        longs(rows.iter().map(|r| Some(r.3.file_size))),
        longs(rows.iter().map(|r| Some(r.3.min_sequence_number))),
        longs(rows.iter().map(|r| Some(r.3.max_sequence_number))),
        times(rows.iter().map(|r| r.3.creation_time)),
        longs(rows.iter().map(|r| r.3.delete_row_count)),
        strings(rows.iter().map(|r| source(r.3.file_source))),
        longs(rows.iter().map(|r| r.3.first_row_id)),
    ];
    Ok((schema, columns))
}

/// Java `ManifestsTable`: the data manifests (base, then delta) of the latest snapshot.
async fn manifests(table: &Table) -> paimon_core::Result<Columns> {
    let sm = table.snapshot_manager();
    let mut metas = Vec::new();
    if let Some(snapshot) = sm.latest_snapshot().await? {
        let dir = paimon_core::io::join(sm.table_root(), "manifest");
        for list in [&snapshot.base_manifest_list, &snapshot.delta_manifest_list] {
            let path = paimon_core::io::join(&dir, list);
            let bytes = table.file_io().read(&path).await?;
            metas.extend(paimon_core::spec::manifest::decode_manifest_list(
                &bytes, &path,
            )?);
        }
    }
    let schema = Arc::new(Schema::new(vec![
        field("file_name", DataType::Utf8, false),
        field("file_size", DataType::Int64, false),
        field("num_added_files", DataType::Int64, false),
        field("num_deleted_files", DataType::Int64, false),
        field("schema_id", DataType::Int64, false),
        field("min_row_id", DataType::Int64, true),
        field("max_row_id", DataType::Int64, true),
    ]));
    let columns = vec![
        strings(metas.iter().map(|m| Some(m.file_name.clone()))),
        longs(metas.iter().map(|m| Some(m.file_size))),
        longs(metas.iter().map(|m| Some(m.num_added_files))),
        longs(metas.iter().map(|m| Some(m.num_deleted_files))),
        longs(metas.iter().map(|m| Some(m.schema_id))),
        longs(metas.iter().map(|m| m.min_row_id)),
        longs(metas.iter().map(|m| m.max_row_id)),
    ];
    Ok((schema, columns))
}
