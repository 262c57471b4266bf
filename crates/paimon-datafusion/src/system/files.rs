//! `t$files` and `t$manifests` (Java `FilesTable`, `ManifestsTable`).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use arrow::array::{ArrayRef, Int32Array, ListBuilder, StringBuilder};
use arrow::datatypes::{DataType, Field, Schema};
use paimon_core::spec::binary_row::BinaryRow;
use paimon_core::spec::partition_path::java_to_string;
use paimon_core::spec::schema::TableSchema;
use paimon_core::spec::types::DataField;
use paimon_core::spec::Datum;
use paimon_core::Table;

use super::{
    field, live_plan, longs, partition_row_string, strings, times, travel, ts, Columns,
    TravelOptions,
};

/// The key, null-count and bound renderings of one file (Java `FilesTable` columns 8-12).
struct StatsText {
    min_key: Option<String>,
    max_key: Option<String>,
    null_counts: String,
    min_values: String,
    max_values: String,
}

/// `[v1, v2]` of a serialized key row (Java `Arrays.toString` of the converted key);
/// `None` for an empty row (append tables) or undecodable bytes.
fn key_text(bytes: &[u8], keys: &[DataField]) -> Option<String> {
    let row = BinaryRow::from_serialized(bytes).ok()?;
    if row.arity() == 0 || row.arity() != keys.len() {
        return None;
    }
    let types: Vec<_> = keys.iter().map(|k| k.data_type.clone()).collect();
    let values = row.decode(&types).ok()?;
    let cells: Vec<String> = values
        .iter()
        .map(|v| {
            v.as_ref()
                .map_or_else(|| "null".to_string(), java_to_string)
        })
        .collect();
    Some(format!("[{}]", cells.join(", ")))
}

/// `{name=value, ...}` sorted by name (Java `TreeMap#toString`).
fn map_text(entries: BTreeMap<&str, String>) -> String {
    let cells: Vec<String> = entries
        .into_iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    format!("{{{}}}", cells.join(", "))
}

fn stats_text(
    file: &paimon_core::spec::manifest::DataFileMeta,
    file_schema: &TableSchema,
    current: &[DataField],
) -> StatsText {
    let keys = file_schema
        .fields_of(&file_schema.trimmed_primary_keys())
        .unwrap_or_default();
    let stats = paimon_core::scan::value_stats(file, &file_schema.fields, current);
    let text = |v: Option<&Datum>| v.map_or_else(|| "null".to_string(), java_to_string);
    let mut nulls = BTreeMap::new();
    let mut mins = BTreeMap::new();
    let mut maxs = BTreeMap::new();
    for f in current {
        let n = stats.nulls(f.id);
        nulls.insert(
            f.name.as_str(),
            n.map_or_else(|| "null".to_string(), |n| n.to_string()),
        );
        mins.insert(f.name.as_str(), text(stats.min_value(f.id)));
        maxs.insert(f.name.as_str(), text(stats.max_value(f.id)));
    }
    StatsText {
        min_key: key_text(&file.min_key, &keys),
        max_key: key_text(&file.max_key, &keys),
        null_counts: map_text(nulls),
        min_values: map_text(mins),
        max_values: map_text(maxs),
    }
}

fn string_lists<'a>(v: impl Iterator<Item = Option<&'a Vec<String>>>) -> ArrayRef {
    let mut b = ListBuilder::new(StringBuilder::new());
    for cols in v {
        match cols {
            Some(cols) => {
                for c in cols {
                    b.values().append_value(c);
                }
                b.append(true);
            }
            None => b.append(false),
        }
    }
    Arc::new(b.finish())
}

/// Java `FilesTable`: every live data file of the snapshot a scan of the table reads (with the
/// time-travel options `travel`), level 0 of deletion-vector tables included (Java plans with
/// an all-levels filter).
pub(super) async fn files(table: &Table, travel: &TravelOptions) -> paimon_core::Result<Columns> {
    let plan = live_plan(table, travel).await?;
    let sm = table.snapshot_manager();
    let current = &table.schema().fields;
    let partition_fields = table.schema().partition_fields()?;
    let mut schemas: HashMap<i64, Arc<TableSchema>> = HashMap::new();
    struct Row<'a> {
        partition: String,
        bucket: i32,
        path: String,
        file: &'a paimon_core::spec::manifest::DataFileMeta,
        stats: StatsText,
    }
    let mut rows = Vec::new();
    for split in &plan.splits {
        let d = split.as_data();
        let partition = partition_row_string(&d.partition, &partition_fields);
        for f in &d.files {
            let schema = match schemas.get(&f.schema_id) {
                Some(s) => s.clone(),
                None => {
                    let s = sm.schema(f.schema_id).await?;
                    schemas.insert(f.schema_id, s.clone());
                    s
                }
            };
            rows.push(Row {
                partition: partition.clone(),
                bucket: d.bucket,
                path: d.file_location(f),
                file: f,
                stats: stats_text(f, &schema, current),
            });
        }
    }
    let schema = Arc::new(Schema::new(vec![
        field("partition", DataType::Utf8, true),
        field("bucket", DataType::Int32, false),
        field("file_path", DataType::Utf8, false),
        field("file_format", DataType::Utf8, false),
        field("schema_id", DataType::Int64, false),
        field("level", DataType::Int32, false),
        field("record_count", DataType::Int64, false),
        field("file_size_in_bytes", DataType::Int64, false),
        field("min_key", DataType::Utf8, true),
        field("max_key", DataType::Utf8, true),
        field("null_value_counts", DataType::Utf8, false),
        field("min_value_stats", DataType::Utf8, false),
        field("max_value_stats", DataType::Utf8, false),
        field("min_sequence_number", DataType::Int64, true),
        field("max_sequence_number", DataType::Int64, true),
        field("creation_time", ts(), true),
        field("deleteRowCount", DataType::Int64, true),
        field("file_source", DataType::Utf8, true),
        field("first_row_id", DataType::Int64, true),
        field(
            "write_cols",
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
            true,
        ),
    ]));
    let format = |name: &str| name.rsplit_once('.').map_or("", |(_, e)| e).to_string();
    let source = |s: Option<i8>| match s {
        Some(0) => Some("APPEND".to_string()),
        Some(1) => Some("COMPACT".to_string()),
        _ => None,
    };
    let columns = vec![
        strings(rows.iter().map(|r| Some(r.partition.clone()))),
        Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.bucket))) as ArrayRef,
        strings(rows.iter().map(|r| Some(r.path.clone()))),
        strings(rows.iter().map(|r| Some(format(&r.file.file_name)))),
        longs(rows.iter().map(|r| Some(r.file.schema_id))),
        Arc::new(Int32Array::from_iter_values(
            rows.iter().map(|r| r.file.level),
        )) as ArrayRef,
        longs(rows.iter().map(|r| Some(r.file.row_count))),
        longs(rows.iter().map(|r| Some(r.file.file_size))),
        strings(rows.iter().map(|r| r.stats.min_key.clone())),
        strings(rows.iter().map(|r| r.stats.max_key.clone())),
        strings(rows.iter().map(|r| Some(r.stats.null_counts.clone()))),
        strings(rows.iter().map(|r| Some(r.stats.min_values.clone()))),
        strings(rows.iter().map(|r| Some(r.stats.max_values.clone()))),
        longs(rows.iter().map(|r| Some(r.file.min_sequence_number))),
        longs(rows.iter().map(|r| Some(r.file.max_sequence_number))),
        times(rows.iter().map(|r| r.file.creation_time)),
        longs(rows.iter().map(|r| r.file.delete_row_count)),
        strings(rows.iter().map(|r| source(r.file.file_source))),
        longs(rows.iter().map(|r| r.file.first_row_id)),
        string_lists(rows.iter().map(|r| r.file.write_cols.as_ref())),
    ];
    Ok((schema, columns))
}

/// Java `ManifestsTable`: the manifests (base, delta, then changelog) of the latest snapshot
/// (or the one the time-travel options `travel` choose), with the partition bounds rendered as
/// Java casts a partition row to a string.
pub(super) async fn manifests(
    table: &Table,
    travel: &TravelOptions,
) -> paimon_core::Result<Columns> {
    let sm = table.snapshot_manager();
    let mut metas = Vec::new();
    if let Some(snapshot) = travel::chosen_snapshot(table, travel).await? {
        let dir = paimon_core::io::join(sm.table_root(), "manifest");
        let lists = [
            Some(&snapshot.base_manifest_list),
            Some(&snapshot.delta_manifest_list),
            snapshot.changelog_manifest_list.as_ref(),
        ];
        for list in lists.into_iter().flatten() {
            let path = paimon_core::io::join(&dir, list);
            let bytes = table.file_io().read(&path).await?;
            metas.extend(paimon_core::spec::manifest::decode_manifest_list(
                &bytes, &path,
            )?);
        }
    }
    let partition_fields = table.schema().partition_fields()?;
    let bound = |b: &[u8]| partition_row_string(b, &partition_fields);
    let schema = Arc::new(Schema::new(vec![
        field("file_name", DataType::Utf8, false),
        field("file_size", DataType::Int64, false),
        field("num_added_files", DataType::Int64, false),
        field("num_deleted_files", DataType::Int64, false),
        field("schema_id", DataType::Int64, false),
        field("min_partition_stats", DataType::Utf8, true),
        field("max_partition_stats", DataType::Utf8, true),
        field("min_row_id", DataType::Int64, true),
        field("max_row_id", DataType::Int64, true),
    ]));
    let columns = vec![
        strings(metas.iter().map(|m| Some(m.file_name.clone()))),
        longs(metas.iter().map(|m| Some(m.file_size))),
        longs(metas.iter().map(|m| Some(m.num_added_files))),
        longs(metas.iter().map(|m| Some(m.num_deleted_files))),
        longs(metas.iter().map(|m| Some(m.schema_id))),
        strings(
            metas
                .iter()
                .map(|m| Some(bound(&m.partition_stats.min_values))),
        ),
        strings(
            metas
                .iter()
                .map(|m| Some(bound(&m.partition_stats.max_values))),
        ),
        longs(metas.iter().map(|m| m.min_row_id)),
        longs(metas.iter().map(|m| m.max_row_id)),
    ];
    Ok((schema, columns))
}
