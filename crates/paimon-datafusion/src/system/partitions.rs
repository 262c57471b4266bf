//! `t$partitions` and `t$buckets` (Java `PartitionsTable`, `BucketsTable`): live files
//! aggregated per partition and per (partition, bucket).

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{ArrayRef, BooleanArray, Int32Array};
use arrow::datatypes::{DataType, Schema};
use paimon_core::spec::partition_path::cast_to_string;
use paimon_core::Table;

use super::{
    field, live_plan, longs, partition_datums, partition_row_string, strings, times, ts, Columns,
    TravelOptions,
};

/// Sums over a group of live files (Java `PartitionEntry` / `BucketEntry`).
#[derive(Debug, Default, Clone)]
struct Totals {
    records: i64,
    bytes: i64,
    files: i64,
    /// Newest file creation time (writer's wall clock, epoch millis).
    last_update: Option<i64>,
    total_buckets: i32,
}

impl Totals {
    fn add(&mut self, f: &paimon_core::spec::manifest::DataFileMeta, total_buckets: i32) {
        self.records += f.row_count;
        self.bytes += f.file_size;
        self.files += 1;
        self.last_update = self.last_update.max(f.creation_time);
        self.total_buckets = total_buckets;
    }
}

/// Java `PartitionsTable` over a file-system catalog: one row per partition with live files,
/// `k=v/k2=v2` (values cast to strings, null as `partition.default-name`), sorted by that
/// text; `created_at`, `created_by`, `updated_by` and `options` are null and `done` false, as
/// Java's partition entries of a file-system table give them.
pub(super) async fn partitions(
    table: &Table,
    travel: &TravelOptions,
) -> paimon_core::Result<Columns> {
    let plan = live_plan(table, travel).await?;
    let fields = table.schema().partition_fields()?;
    let default_name = &table.options().partition_default_name;
    let mut groups: BTreeMap<String, Totals> = BTreeMap::new();
    for split in &plan.splits {
        let d = split.as_data();
        let values = partition_datums(&d.partition, &fields);
        let text = fields
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let v = values.as_ref().and_then(|v| v.get(i).cloned().flatten());
                let v = v.map_or_else(
                    || default_name.clone(),
                    |v| cast_to_string(&v, &f.data_type),
                );
                format!("{}={v}", f.name)
            })
            .collect::<Vec<_>>()
            .join("/");
        let g = groups.entry(text).or_default();
        for f in &d.files {
            g.add(f, d.total_buckets);
        }
    }
    let schema = Arc::new(Schema::new(vec![
        field("partition", DataType::Utf8, true),
        field("record_count", DataType::Int64, false),
        field("file_size_in_bytes", DataType::Int64, false),
        field("file_count", DataType::Int64, false),
        field("last_update_time", ts(), true),
        field("created_at", ts(), true),
        field("created_by", DataType::Utf8, true),
        field("updated_by", DataType::Utf8, true),
        field("options", DataType::Utf8, true),
        field("total_buckets", DataType::Int32, false),
        field("done", DataType::Boolean, false),
    ]));
    let rows: Vec<(&String, &Totals)> = groups.iter().filter(|(_, t)| t.files > 0).collect();
    let none = || rows.iter().map(|_| None::<String>);
    let columns = vec![
        strings(rows.iter().map(|(p, _)| Some((*p).clone()))),
        longs(rows.iter().map(|(_, t)| Some(t.records))),
        longs(rows.iter().map(|(_, t)| Some(t.bytes))),
        longs(rows.iter().map(|(_, t)| Some(t.files))),
        times(rows.iter().map(|(_, t)| t.last_update)),
        times(rows.iter().map(|_| None)),
        strings(none()),
        strings(none()),
        strings(none()),
        Arc::new(Int32Array::from_iter_values(
            rows.iter().map(|(_, t)| t.total_buckets),
        )) as ArrayRef,
        Arc::new(BooleanArray::from(vec![false; rows.len()])) as ArrayRef,
    ];
    Ok((schema, columns))
}

/// Java `BucketsTable`: one row per (partition, bucket) with live files, the partition as
/// Java casts the partition row to a string (`{v1, v2}`), sorted by partition text, then
/// bucket.
pub(super) async fn buckets(table: &Table, travel: &TravelOptions) -> paimon_core::Result<Columns> {
    let plan = live_plan(table, travel).await?;
    let fields = table.schema().partition_fields()?;
    let mut groups: BTreeMap<(String, i32), Totals> = BTreeMap::new();
    for split in &plan.splits {
        let d = split.as_data();
        let key = (partition_row_string(&d.partition, &fields), d.bucket);
        let g = groups.entry(key).or_default();
        for f in &d.files {
            g.add(f, d.total_buckets);
        }
    }
    let rows: Vec<_> = groups.iter().filter(|(_, t)| t.files > 0).collect();
    let schema = Arc::new(Schema::new(vec![
        field("partition", DataType::Utf8, true),
        field("bucket", DataType::Int32, false),
        field("record_count", DataType::Int64, false),
        field("file_size_in_bytes", DataType::Int64, false),
        field("file_count", DataType::Int64, false),
        field("last_update_time", ts(), true),
    ]));
    let columns = vec![
        strings(rows.iter().map(|((p, _), _)| Some(p.clone()))),
        Arc::new(Int32Array::from_iter_values(
            rows.iter().map(|((_, b), _)| *b),
        )) as ArrayRef,
        longs(rows.iter().map(|(_, t)| Some(t.records))),
        longs(rows.iter().map(|(_, t)| Some(t.bytes))),
        longs(rows.iter().map(|(_, t)| Some(t.files))),
        times(rows.iter().map(|(_, t)| t.last_update)),
    ];
    Ok((schema, columns))
}
