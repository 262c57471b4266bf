//! Postpone-bucket writes (`bucket = -2`, Java `PostponeBucketFileStoreWrite` and
//! `PostponeBucketWriter`, Paimon 2.0): rows go to `bucket-postpone` of their partition as
//! key-value rows in arrival order, neither sorted nor merged, with `_SEQUENCE_NUMBER` -1
//! (Java `KeyValue.UNKNOWN_SEQUENCE`), at level 0, `_TOTAL_BUCKETS` -2; previous files are
//! ignored. Java forces `file.format = avro` (when every column has an Avro type) with
//! `metadata.stats-mode = none`, and names files
//! `<data-file.prefix>-u-<commit user>-s-<write id>-w-<uuid>-<n>` so a postpone compaction can
//! keep each writer's order (the write id is random without an engine subtask id). Batch reads
//! skip these files until a postpone compaction moves their rows into real buckets.
//!
//! Also here: `ignore-delete` drops retractions before routing (Java `RowKindFilter`), for
//! tables whose writers do not see them (postpone and dynamic buckets).

use std::collections::HashMap;

use arrow_array::{BooleanArray, Int64Array, Int8Array, RecordBatch};
use arrow_select::filter::{filter, filter_record_batch};

use super::avro::avro_writable;
use super::kv_layout::KvLayout;
use crate::catalog::Table;
use crate::mergetree::merge_function::is_retract;
use crate::spec::options::{BucketMode, FileFormat, StatsMode, TableOptions};
use crate::{Error, Result};

/// The table with Java's postpone-writer options (`file.format`, `metadata.stats-mode`,
/// `data-file.prefix`) for the files of the postpone bucket.
pub(crate) fn file_options(table: Table, commit_user: &str) -> Result<Table> {
    let mut overrides = HashMap::new();
    if table
        .schema()
        .fields
        .iter()
        .all(|f| avro_writable(&f.data_type))
    {
        overrides.insert("file.format".to_string(), "avro".to_string());
        overrides.insert("metadata.stats-mode".to_string(), "none".to_string());
    }
    let write_id = (uuid::Uuid::new_v4().as_u128() % i32::MAX as u128) as i32;
    overrides.insert(
        "data-file.prefix".to_string(),
        format!(
            "{}-u-{commit_user}-s-{write_id}-w-",
            table.options().data_file_prefix
        ),
    );
    table.with_options(&overrides)
}

/// The statistics mode of the `_KEY_*` columns: Java collects Avro files' statistics with
/// `metadata.stats-mode` for every column (`StatsCollectorFactories#createStatsFactoriesForAvro`,
/// applied here to postpone files), other formats' key columns with `truncate(128)`.
pub(crate) fn key_stats_mode(options: &TableOptions) -> StatsMode {
    match (options.bucket, &options.file_format) {
        (BucketMode::Postpone, FileFormat::Avro) => options.metadata_stats_mode,
        _ => StatsMode::Truncate(128),
    }
}

/// The file batch of a postpone writer: the rows as they came, sequence number -1.
pub(crate) fn file_batch(
    layout: &KvLayout,
    rows: &RecordBatch,
    kinds: Int8Array,
) -> Result<RecordBatch> {
    let seq = Int64Array::from(vec![-1i64; rows.num_rows()]);
    layout.file_batch(rows, seq, kinds)
}

/// Drops `-U`/`-D` rows when `ignore-delete` is set on a postpone- or dynamic-bucket
/// primary-key table (their writers do not filter); other tables pass unchanged.
pub(crate) fn drop_ignored_retracts(
    table: &Table,
    batch: RecordBatch,
    kinds: Int8Array,
) -> Result<(RecordBatch, Int8Array)> {
    let options = table.options();
    let applies = options.ignore_delete
        && table.schema().has_primary_key()
        && matches!(options.bucket, BucketMode::Postpone | BucketMode::Dynamic);
    if !applies || !kinds.values().iter().any(|k| is_retract(*k)) {
        return Ok((batch, kinds));
    }
    let keep = BooleanArray::from(
        kinds
            .values()
            .iter()
            .map(|k| !is_retract(*k))
            .collect::<Vec<_>>(),
    );
    let batch = filter_record_batch(&batch, &keep)?;
    let kinds = filter(&kinds, &keep)?;
    let kinds = kinds
        .as_any()
        .downcast_ref::<Int8Array>()
        .cloned()
        .ok_or_else(|| Error::internal("row kinds are not Int8"))?;
    Ok((batch, kinds))
}
