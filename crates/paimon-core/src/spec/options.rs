//! Typed table options, parsed once from a schema's `options` map.
//!
//! Mirrors Java `org.apache.paimon.CoreOptions` (Paimon 2.0): the same keys, defaults, fallback
//! keys and value syntax (see `reader.rs`). [`TableOptions::from_map`] parses every option this
//! reader uses into a typed field; every other stored key is kept verbatim in
//! [`TableOptions::extra`] and never causes an error. Scan-time overrides go through
//! [`TableOptions::with_overrides`], which also rejects keys that are not Paimon options.
//! Errors name the key and the raw value; stored options fail with
//! [`ErrorKind::DataInvalid`], overrides with [`ErrorKind::InvalidArgument`].
//!
//! Divergences: most durations and writer-only options are not typed (they stay in `extra`;
//! the snapshot retention options are, in [`Retention`]); `validate` is lenient where Java
//! only checks at table creation.

mod alter_rules;
mod commit;
mod compaction;
mod cross_partition;
mod duration;
mod enums;
mod fields;
mod file_index;
mod keys;
mod known_keys;
mod memory_size;
mod pk_index;
mod reader;
mod retention;
mod schema_validation;
#[cfg(test)]
mod tests;
mod write_buffer;

use std::collections::{BTreeMap, HashMap};
use std::num::NonZeroUsize;

pub use alter_rules::{
    check_remove_option, check_set_option, rename_all, rename_in_options, AlterFlags,
    IMMUTABLE_OPTIONS,
};
pub use commit::{
    CommitOptions, COMMIT_MAX_RETRIES, COMMIT_MAX_RETRY_WAIT, COMMIT_MIN_RETRY_WAIT,
    COMMIT_TIMEOUT, DYNAMIC_PARTITION_OVERWRITE, MANIFEST_FULL_COMPACTION_THRESHOLD_SIZE,
    MANIFEST_MERGE_MIN_COUNT, MANIFEST_TARGET_FILE_SIZE, OVERWRITE_UPGRADE, PK_CLUSTERING_OVERRIDE,
};
pub use compaction::{CompactionOptions, LookupCompactMode};
pub use cross_partition::{
    CrossPartitionOptions, CROSS_PARTITION_UPSERT_BOOTSTRAP_PARALLELISM,
    CROSS_PARTITION_UPSERT_INDEX_TTL,
};
pub use duration::parse_duration;
pub use enums::{
    BucketFunctionKind, BucketMode, ChangelogProducer, FileFormat, MergeEngine, SortOrder,
    StartupMode, StatsMode,
};
pub use fields::{FieldOptions, SequenceGroup};
pub use file_index::{FileIndexColumn, FileIndexOptions, FILE_INDEX_IN_MANIFEST_THRESHOLD};
pub use keys::*;
pub use memory_size::MemorySize;
pub use pk_index::{BTreeBuildOptions, PkIndexDefinition, PkIndexFamily};
pub use retention::Retention;
pub use schema_validation::validate_table_schema;
pub use write_buffer::{
    SpillCompression, WriteBufferOptions, IGNORE_UPDATE_BEFORE, LOCAL_SORT_MAX_NUM_FILE_HANDLES,
    SPILL_COMPRESSION, WRITE_BUFFER_SPILLABLE, WRITE_BUFFER_SPILL_MAX_DISK_SIZE,
};

use crate::spec::schema::TableSchema;
use crate::{Error, ErrorKind, Result};
use reader::OptionReader;

/// A positive Java `int` format option (kept in `extra` too), else `default`. Java hands
/// `parquet.*` to parquet-mr, which fails only when a file is written; reading a table never
/// fails on them, so a value that is not a positive integer falls back to the default here.
fn positive(map: &HashMap<String, String>, key: &str, default: usize) -> usize {
    map.get(key)
        .and_then(|v| v.trim().parse::<i32>().ok())
        .filter(|v| *v > 0)
        .map_or(default, |v| v as usize)
}

/// Whether `key` is an option name Java `CoreOptions` (Paimon 2.0) declares, or one of its
/// fallback keys, or starts with one of [`KNOWN_PREFIXES`].
pub fn is_known_key(key: &str) -> bool {
    known_keys::KNOWN_KEYS.binary_search(&key).is_ok()
        || KNOWN_PREFIXES.iter().any(|p| key.starts_with(p))
}

/// The options of one table, parsed once. Field docs name the key and its default.
#[derive(Debug, Clone, PartialEq)]
pub struct TableOptions {
    /// `bucket` (default -1).
    pub bucket: BucketMode,
    /// `bucket-key` split on `,` without trimming (Java `TableSchema`); `None` = trimmed PK.
    pub bucket_key: Option<Vec<String>>,
    /// `bucket-function.type` (default `default`).
    pub bucket_function: BucketFunctionKind,
    /// `file.format` (default parquet).
    pub file_format: FileFormat,
    /// `file.compression` (default zstd), as stored.
    pub file_compression: String,
    /// `manifest.format` (default avro).
    pub manifest_format: FileFormat,
    /// `partition.default-name` (default `__DEFAULT_PARTITION__`): directory value of nulls.
    pub partition_default_name: String,
    /// `partition.legacy-name` (default true): Java `toString` partition values.
    pub partition_legacy_name: bool,
    /// `merge-engine` (default deduplicate).
    pub merge_engine: MergeEngine,
    /// `sequence.field`, items trimmed.
    pub sequence_field: Option<Vec<String>>,
    /// `sequence.field.sort-order` (default ascending).
    pub sequence_field_sort_order: SortOrder,
    /// `ignore-delete` (default false; legacy keys [`IGNORE_DELETE_FALLBACKS`]).
    pub ignore_delete: bool,
    /// `partial-update.remove-record-on-delete` (default false).
    pub partial_update_remove_record_on_delete: bool,
    /// `partial-update.remove-record-on-sequence-group`, split on `,` verbatim (a blank value
    /// is kept, as one empty name).
    pub partial_update_remove_record_on_sequence_group: Option<Vec<String>>,
    /// `aggregation.remove-record-on-delete` (default false).
    pub aggregation_remove_record_on_delete: bool,
    /// `rowkind.field`: a column holding each row's kind.
    pub rowkind_field: Option<String>,
    /// `deletion-vectors.enabled` (default false).
    pub deletion_vectors_enabled: bool,
    /// `deletion-vectors.merge-on-read` (default false).
    pub deletion_vectors_merge_on_read: bool,
    /// `deletion-vectors.bitmap64` (default false; writer format only).
    pub deletion_vectors_bitmap64: bool,
    /// `force-lookup` (default false; see [`TableOptions::need_lookup`]).
    pub force_lookup: bool,
    /// `index-file-in-data-file-dir` (default false).
    pub index_file_in_data_file_dir: bool,
    /// `data-file.external-paths`, split on `,`, items trimmed.
    pub data_file_external_paths: Option<Vec<String>>,
    /// `data-file.path-directory`.
    pub data_file_path_directory: Option<String>,
    /// `data-file.thin-mode` (default false).
    pub data_file_thin_mode: bool,
    /// `source.split.target-size` (default 128 mb).
    pub source_split_target_size: MemorySize,
    /// `source.split.open-file-cost` (default 4 mb).
    pub source_split_open_file_cost: MemorySize,
    /// `read.batch-size` (default 1024).
    pub read_batch_size: NonZeroUsize,
    /// `scan.mode` as stored (default `default`; see [`TableOptions::startup_mode`]).
    pub scan_mode: StartupMode,
    /// `scan.snapshot-id`.
    pub scan_snapshot_id: Option<i64>,
    /// `scan.tag-name`.
    pub scan_tag_name: Option<String>,
    /// `scan.timestamp-millis`.
    pub scan_timestamp_millis: Option<i64>,
    /// `scan.timestamp` (unparsed local date-time).
    pub scan_timestamp: Option<String>,
    /// `scan.watermark`.
    pub scan_watermark: Option<i64>,
    /// `scan.version`.
    pub scan_version: Option<String>,
    /// `scan.manifest.parallelism`.
    pub scan_manifest_parallelism: Option<NonZeroUsize>,
    /// `scan.manifest-entry-cache.max-snapshots` (paimon-cpp only; default 0 = cache off).
    pub scan_manifest_entry_cache_max_snapshots: usize,
    /// `scan.fallback-branch`.
    pub scan_fallback_branch: Option<String>,
    /// `branch` (default main).
    pub branch: String,
    /// Snapshot retention (`snapshot.*` and `changelog.*` retention options).
    pub retention: Retention,
    /// `changelog-producer` (default none).
    pub changelog_producer: ChangelogProducer,
    /// `num-levels`; see [`TableOptions::num_levels`].
    pub num_levels: Option<i32>,
    /// `num-sorted-run.compaction-trigger` (default 5).
    pub num_sorted_run_compaction_trigger: i32,
    /// `compaction.min.file-num` (default 5): small files an append bucket needs before it
    /// is compacted.
    pub compaction_min_file_num: i32,
    /// `metadata.stats-mode` (default `truncate(16)`).
    pub metadata_stats_mode: StatsMode,
    /// `pk-btree.index.columns`, items trimmed (empty = none).
    pub pk_btree_index_columns: Vec<String>,
    /// `pk-bitmap.index.columns`, items trimmed (empty = none).
    pub pk_bitmap_index_columns: Vec<String>,
    /// `global-index.enabled` (default true).
    pub global_index_enabled: bool,
    /// `file-index.read.enabled` (default true).
    pub file_index_read_enabled: bool,
    /// `postpone.merge-on-read` (default false).
    pub postpone_merge_on_read: bool,
    /// `postpone.default-bucket-num` (default 1).
    pub postpone_default_bucket_num: i32,
    /// `dynamic-bucket.target-row-num` (default 2,000,000): keys a dynamic bucket takes
    /// before the writer opens another.
    pub dynamic_bucket_target_row_num: i64,
    /// `dynamic-bucket.max-buckets` (default -1 = up to 32766 buckets per partition).
    pub dynamic_bucket_max_buckets: i32,
    /// `row-tracking.enabled` (default false).
    pub row_tracking_enabled: bool,
    /// `data-evolution.enabled` (default false).
    pub data_evolution_enabled: bool,
    /// The committer's options (`manifest.*` merging, `commit.*` retries,
    /// `dynamic-partition-overwrite`).
    pub commit: CommitOptions,
    /// Compaction options (`write-only`, universal compaction, lookup compaction).
    pub compaction: CompactionOptions,
    /// `target-file-size`; see [`TableOptions::target_file_size`].
    pub target_file_size: Option<MemorySize>,
    /// `write-buffer-size` (default 256 mb): the memory of all primary-key write buffers of
    /// one `TableWrite` together (Java's shared write-buffer pool).
    pub write_buffer_size: MemorySize,
    /// Spilling of the write buffer and the row-kind filter before it.
    pub write_buffer: WriteBufferOptions,
    /// The key index of cross-partition updates (`cross-partition-upsert.*`).
    pub cross_partition: CrossPartitionOptions,
    /// `metadata.stats-dense-store` (default true).
    pub metadata_stats_dense_store: bool,
    /// `data-file.prefix` (default `data-`).
    pub data_file_prefix: String,
    /// `file.compression.zstd-level` (default 1).
    pub file_compression_zstd_level: i32,
    /// `parquet.page.size` in bytes (default 1 MiB; not a positive integer: the default).
    pub parquet_page_size: usize,
    /// `parquet.page.row.count.limit` (default 20 000; not a positive integer: the default).
    pub parquet_page_row_count_limit: usize,
    /// `parquet.enable.dictionary` (default true; parquet-mr's `Boolean.parseBoolean`: only
    /// `true`, any case, turns it on). When on, the writer still leaves out the dictionary of
    /// columns that hold one distinct value per row (see `write::parquet`).
    pub parquet_enable_dictionary: bool,
    /// The `fields.*` options of the merge engines (sequence groups, per-field aggregates).
    pub per_field: FieldOptions,
    /// The `file-index.*` write options (columns, per-index options, in-manifest threshold).
    pub file_index: FileIndexOptions,
    /// Every key not parsed into a field above (known untyped options, format options,
    /// unknown keys), verbatim; `fields.*` keys stay here too, besides [`Self::per_field`].
    pub extra: BTreeMap<String, String>,
    /// The complete map this was parsed from.
    raw: HashMap<String, String>,
}

impl Default for TableOptions {
    /// The options of a table with no options set (all Java defaults).
    fn default() -> Self {
        // safety: the empty map has no values that could fail to parse.
        #[allow(clippy::expect_used)]
        TableOptions::from_map(&HashMap::new()).expect("defaults parse")
    }
}

impl TableOptions {
    /// Parses stored options (a schema's `options`); bad values are [`ErrorKind::DataInvalid`].
    /// Unknown keys are kept in [`TableOptions::extra`].
    pub fn from_map<'a>(map: impl IntoIterator<Item = (&'a String, &'a String)>) -> Result<Self> {
        let map = map
            .into_iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Self::parse(map, ErrorKind::DataInvalid)
    }

    /// A new `TableOptions` with `overrides` applied over these options (scan-time dynamic
    /// options, CLI `--option k=v`). An override key must be a Paimon option name or match
    /// [`KNOWN_PREFIXES`]; a bad key or value is [`ErrorKind::InvalidArgument`].
    pub fn with_overrides(&self, overrides: &HashMap<String, String>) -> Result<Self> {
        let mut unknown: Vec<&str> = overrides
            .keys()
            .map(String::as_str)
            .filter(|k| !is_known_key(k))
            .collect();
        if !unknown.is_empty() {
            unknown.sort_unstable();
            return Err(Error::invalid_argument(format!(
                "unknown table option(s) {}: not a Paimon option nor a format/file-system option",
                unknown.join(", ")
            ))
            .with_context("option", unknown.join(",")));
        }
        let mut map = self.raw.clone();
        map.extend(overrides.iter().map(|(k, v)| (k.clone(), v.clone())));
        Self::parse(map, ErrorKind::InvalidArgument)
    }

    fn parse(map: HashMap<String, String>, kind: ErrorKind) -> Result<Self> {
        let mut r = OptionReader::new(&map, kind);
        let mut options = Self::parse_fields(&mut r)?;
        let extra = map
            .iter()
            .filter(|(k, _)| !r.consumed(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        options.extra = extra;
        options.per_field = FieldOptions::from_map(&map);
        options.file_index = FileIndexOptions::from_map(&map);
        options.parquet_page_size = positive(&map, PARQUET_PAGE_SIZE, 1 << 20);
        options.parquet_page_row_count_limit = positive(&map, PARQUET_PAGE_ROW_COUNT_LIMIT, 20_000);
        options.parquet_enable_dictionary = map
            .get(PARQUET_ENABLE_DICTIONARY)
            .is_none_or(|v| v.trim().eq_ignore_ascii_case("true"));
        options.validate_options(r.kind())?;
        pk_index::validate_columns(
            &options.pk_btree_index_columns,
            &options.pk_bitmap_index_columns,
            r.kind(),
        )?;
        options.raw = map;
        Ok(options)
    }

    /// Reads every typed field; `per_field`, `extra` and `raw` are filled in by the caller.
    fn parse_fields(r: &mut OptionReader<'_>) -> Result<Self> {
        Ok(TableOptions {
            bucket: r.get(BUCKET, BucketMode::Dynamic)?,
            bucket_key: r.list(BUCKET_KEY, false),
            bucket_function: r.get(BUCKET_FUNCTION_TYPE, BucketFunctionKind::Default)?,
            file_format: r.get(FILE_FORMAT, FileFormat::Parquet)?,
            file_compression: r.string(FILE_COMPRESSION).unwrap_or_else(|| "zstd".into()),
            manifest_format: r.get(MANIFEST_FORMAT, FileFormat::Avro)?,
            partition_default_name: r
                .string(PARTITION_DEFAULT_NAME)
                .unwrap_or_else(|| DEFAULT_PARTITION_NAME.into()),
            partition_legacy_name: r.bool(PARTITION_LEGACY_NAME, true)?,
            merge_engine: r.get(MERGE_ENGINE, MergeEngine::Deduplicate)?,
            sequence_field: r.list(SEQUENCE_FIELD, true),
            sequence_field_sort_order: r.get(SEQUENCE_FIELD_SORT_ORDER, SortOrder::Ascending)?,
            ignore_delete: r.bool_with(IGNORE_DELETE, IGNORE_DELETE_FALLBACKS, false)?,
            partial_update_remove_record_on_delete: r
                .bool(PARTIAL_UPDATE_REMOVE_RECORD_ON_DELETE, false)?,
            partial_update_remove_record_on_sequence_group: r
                .string(PARTIAL_UPDATE_REMOVE_RECORD_ON_SEQUENCE_GROUP)
                .map(|v| v.split(',').map(str::to_string).collect()),
            aggregation_remove_record_on_delete: r
                .bool(AGGREGATION_REMOVE_RECORD_ON_DELETE, false)?,
            rowkind_field: r.string(ROWKIND_FIELD),
            deletion_vectors_enabled: r.bool(DELETION_VECTORS_ENABLED, false)?,
            deletion_vectors_merge_on_read: r.bool(DELETION_VECTORS_MERGE_ON_READ, false)?,
            deletion_vectors_bitmap64: r.bool(DELETION_VECTORS_BITMAP64, false)?,
            force_lookup: r.bool(FORCE_LOOKUP, false)?,
            index_file_in_data_file_dir: r.bool(INDEX_FILE_IN_DATA_FILE_DIR, false)?,
            data_file_external_paths: r.list(DATA_FILE_EXTERNAL_PATHS, true),
            data_file_path_directory: r.string(DATA_FILE_PATH_DIRECTORY),
            data_file_thin_mode: r.bool(DATA_FILE_THIN_MODE, false)?,
            source_split_target_size: r
                .get(SOURCE_SPLIT_TARGET_SIZE, MemorySize::from_mebibytes(128))?,
            source_split_open_file_cost: r
                .get(SOURCE_SPLIT_OPEN_FILE_COST, MemorySize::from_mebibytes(4))?,
            read_batch_size: r
                .parse_with(READ_BATCH_SIZE, &[], non_zero)?
                .unwrap_or(DEFAULT_READ_BATCH_SIZE),
            scan_mode: r
                .parse_with(SCAN_MODE, &["log.scan"], str::parse)?
                .unwrap_or(StartupMode::Default),
            scan_snapshot_id: r.i64_with(SCAN_SNAPSHOT_ID, &[])?,
            scan_tag_name: r.string(SCAN_TAG_NAME),
            scan_timestamp_millis: r
                .i64_with(SCAN_TIMESTAMP_MILLIS, &["log.scan.timestamp-millis"])?,
            scan_timestamp: r.string(SCAN_TIMESTAMP),
            scan_watermark: r.i64_with(SCAN_WATERMARK, &[])?,
            scan_version: r.string(SCAN_VERSION),
            scan_manifest_parallelism: r.parse_with(SCAN_MANIFEST_PARALLELISM, &[], non_zero)?,
            scan_manifest_entry_cache_max_snapshots: r
                .i32(SCAN_MANIFEST_ENTRY_CACHE_MAX_SNAPSHOTS)?
                .map_or(0, |n| usize::try_from(n).unwrap_or(0)),
            scan_fallback_branch: r.string(SCAN_FALLBACK_BRANCH),
            branch: r.string(BRANCH).unwrap_or_else(|| "main".into()),
            retention: Retention::parse(r)?,
            changelog_producer: r.get(CHANGELOG_PRODUCER, ChangelogProducer::None)?,
            num_levels: r.i32(NUM_LEVELS)?,
            num_sorted_run_compaction_trigger: r
                .i32(NUM_SORTED_RUN_COMPACTION_TRIGGER)?
                .unwrap_or(5),
            compaction_min_file_num: r.i32(COMPACTION_MIN_FILE_NUM)?.unwrap_or(5),
            metadata_stats_mode: r.get(METADATA_STATS_MODE, StatsMode::Truncate(16))?,
            pk_btree_index_columns: r.list(PK_BTREE_INDEX_COLUMNS, true).unwrap_or_default(),
            pk_bitmap_index_columns: r.list(PK_BITMAP_INDEX_COLUMNS, true).unwrap_or_default(),
            global_index_enabled: r.bool(GLOBAL_INDEX_ENABLED, true)?,
            file_index_read_enabled: r.bool(FILE_INDEX_READ_ENABLED, true)?,
            postpone_merge_on_read: r.bool(POSTPONE_MERGE_ON_READ, false)?,
            postpone_default_bucket_num: r.i32(POSTPONE_DEFAULT_BUCKET_NUM)?.unwrap_or(1),
            dynamic_bucket_target_row_num: r
                .i64_with(DYNAMIC_BUCKET_TARGET_ROW_NUM, &[])?
                .unwrap_or(2_000_000),
            dynamic_bucket_max_buckets: r.i32(DYNAMIC_BUCKET_MAX_BUCKETS)?.unwrap_or(-1),
            row_tracking_enabled: r.bool(ROW_TRACKING_ENABLED, false)?,
            data_evolution_enabled: r.bool(DATA_EVOLUTION_ENABLED, false)?,
            commit: CommitOptions::parse(r)?,
            compaction: CompactionOptions::parse(r)?,
            target_file_size: r.parse_with(TARGET_FILE_SIZE, &[], MemorySize::parse)?,
            write_buffer_size: r.get(WRITE_BUFFER_SIZE, MemorySize::from_mebibytes(256))?,
            write_buffer: WriteBufferOptions::parse(r)?,
            cross_partition: CrossPartitionOptions::parse(r)?,
            metadata_stats_dense_store: r.bool(METADATA_STATS_DENSE_STORE, true)?,
            data_file_prefix: r.string(DATA_FILE_PREFIX).unwrap_or_else(|| "data-".into()),
            file_compression_zstd_level: r.i32(FILE_COMPRESSION_ZSTD_LEVEL)?.unwrap_or(1),
            parquet_page_size: 1 << 20,
            parquet_page_row_count_limit: 20_000,
            parquet_enable_dictionary: true,
            per_field: FieldOptions::default(),
            file_index: FileIndexOptions::default(),
            extra: BTreeMap::new(),
            raw: HashMap::new(),
        })
    }

    /// Rules between options alone (Java `SchemaValidation#validateStartupMode`, Paimon 2.0):
    /// `from-snapshot` needs exactly one of snapshot id / tag / watermark and no timestamp;
    /// `from-timestamp` needs exactly one timestamp and no snapshot or tag; `from-snapshot-full`
    /// needs a snapshot id.
    fn validate_options(&self, kind: ErrorKind) -> Result<()> {
        let fail = |msg: String| Err(Error::new(kind, msg).with_context("option", SCAN_MODE));
        let snapshot_like = [
            (SCAN_SNAPSHOT_ID, self.scan_snapshot_id.is_some()),
            (SCAN_TAG_NAME, self.scan_tag_name.is_some()),
            (SCAN_WATERMARK, self.scan_watermark.is_some()),
        ];
        let timestamp_like = [
            (SCAN_TIMESTAMP_MILLIS, self.scan_timestamp_millis.is_some()),
            (SCAN_TIMESTAMP, self.scan_timestamp.is_some()),
        ];
        let set = |opts: &[(&'static str, bool)]| -> Vec<&'static str> {
            opts.iter().filter(|(_, s)| *s).map(|(k, _)| *k).collect()
        };
        let (snapshots, timestamps) = (set(&snapshot_like), set(&timestamp_like));
        let mode = self.startup_mode();
        let (wanted, conflicting) = match mode {
            StartupMode::FromSnapshot => (&snapshots, &timestamps),
            StartupMode::FromTimestamp => (&timestamps, &snapshots),
            StartupMode::FromSnapshotFull if self.scan_snapshot_id.is_none() => {
                return fail(format!("scan.mode '{mode}' needs '{SCAN_SNAPSHOT_ID}'"));
            }
            _ => return Ok(()),
        };
        if wanted.len() != 1 {
            let names = match mode {
                StartupMode::FromSnapshot => "scan.snapshot-id, scan.tag-name, scan.watermark",
                _ => "scan.timestamp-millis, scan.timestamp",
            };
            return fail(format!(
                "scan.mode '{mode}' needs exactly one of [{names}], found [{}]",
                wanted.join(", ")
            ));
        }
        if !conflicting.is_empty() {
            return fail(format!(
                "scan.mode '{mode}' conflicts with [{}]",
                conflicting.join(", ")
            ));
        }
        Ok(())
    }

    /// Rules between options and the schema, lenient where Java only checks at table creation
    /// (Java `SchemaValidation#validateBucket` and friends, Paimon 2.0). Errors are
    /// [`ErrorKind::DataInvalid`]:
    /// - `bucket-key`, `sequence.field`, `rowkind.field` and `pk-*-index.columns` name columns;
    /// - a fixed-bucket append table has a bucket key (except a version-1 table with
    ///   `bucket = 1`, as Java allows);
    /// - `bucket = -2` needs a primary key.
    pub fn validate(&self, schema: &TableSchema) -> Result<()> {
        let err =
            |msg: String| Error::data_invalid(msg).with_context("schema", schema.id.to_string());
        let named = [
            (BUCKET_KEY, self.bucket_key.as_deref().unwrap_or_default()),
            (
                SEQUENCE_FIELD,
                self.sequence_field.as_deref().unwrap_or_default(),
            ),
            (ROWKIND_FIELD, self.rowkind_field.as_slice()),
            (
                PK_BTREE_INDEX_COLUMNS,
                self.pk_btree_index_columns.as_slice(),
            ),
            (
                PK_BITMAP_INDEX_COLUMNS,
                self.pk_bitmap_index_columns.as_slice(),
            ),
        ];
        for (key, columns) in named {
            if let Some(missing) = columns.iter().find(|c| schema.field(c).is_none()) {
                return Err(
                    err(format!("option '{key}' names unknown column '{missing}'"))
                        .with_context("option", key),
                );
            }
        }
        let has_pk = schema.has_primary_key();
        match self.bucket {
            BucketMode::Fixed(n)
                if !has_pk
                    && self.bucket_key.is_none()
                    && !(n.get() == 1 && schema.version <= 1) =>
            {
                return Err(err(format!(
                    "append table with bucket = {n} has no '{BUCKET_KEY}'"
                ))
                .with_context("option", BUCKET_KEY));
            }
            BucketMode::Postpone if !has_pk => {
                return Err(err("bucket = -2 (postpone) needs a primary key".into())
                    .with_context("option", BUCKET));
            }
            _ => {}
        }
        Ok(())
    }

    /// The effective startup mode: `default` resolved as Java `CoreOptions#startupMode` does
    /// (timestamp → `from-timestamp`; snapshot id, tag, watermark or version →
    /// `from-snapshot`; file creation time → `from-file-creation-time`; creation time →
    /// `from-creation-timestamp`; else `latest-full`). `full` is returned as `latest-full`.
    pub fn startup_mode(&self) -> StartupMode {
        let has = |k: &str| self.raw.contains_key(k);
        match self.scan_mode {
            StartupMode::Default => {
                if self.scan_timestamp_millis.is_some() || self.scan_timestamp.is_some() {
                    StartupMode::FromTimestamp
                } else if self.scan_snapshot_id.is_some()
                    || self.scan_tag_name.is_some()
                    || self.scan_watermark.is_some()
                    || self.scan_version.is_some()
                {
                    StartupMode::FromSnapshot
                } else if has("scan.file-creation-time-millis") {
                    StartupMode::FromFileCreationTime
                } else if has("scan.creation-time-millis") {
                    StartupMode::FromCreationTimestamp
                } else {
                    StartupMode::LatestFull
                }
            }
            StartupMode::Full => StartupMode::LatestFull,
            mode => mode,
        }
    }

    /// Number of LSM levels: `num-levels`, else `num-sorted-run.compaction-trigger` + 1
    /// (Java `CoreOptions#numLevels`).
    pub fn num_levels(&self) -> i32 {
        self.num_levels
            .unwrap_or_else(|| self.num_sorted_run_compaction_trigger.saturating_add(1))
    }

    /// Whether batch scans of primary-key tables skip level-0 files (Java
    /// `CoreOptions#batchScanSkipLevel0`): deletion vectors without merge-on-read, or the
    /// first-row merge engine.
    pub fn batch_scan_skip_level0(&self) -> bool {
        if self.deletion_vectors_enabled {
            !self.deletion_vectors_merge_on_read
        } else {
            self.merge_engine == MergeEngine::FirstRow
        }
    }

    /// `num-sorted-run.stop-trigger`, default trigger + 3, never below the trigger (Java
    /// `CoreOptions#numSortedRunStopTrigger`): more sorted runs than this stall the writer
    /// until compaction catches up.
    pub fn num_sorted_run_stop_trigger(&self) -> i32 {
        let trigger = self.num_sorted_run_compaction_trigger;
        self.compaction
            .stop_trigger
            .unwrap_or_else(|| trigger.saturating_add(3))
            .max(trigger)
    }

    /// `lookup-compact.max-interval`, default 2 × `num-sorted-run.compaction-trigger` (Java
    /// `CoreOptions#lookupCompactMaxInterval`).
    pub fn lookup_compact_max_interval(&self) -> i32 {
        self.compaction
            .lookup_compact_max_interval
            .unwrap_or_else(|| self.num_sorted_run_compaction_trigger.saturating_mul(2))
    }

    /// Whether the table runs in lookup mode (Java `CoreOptions#needLookup`, `LookupStrategy`):
    /// `changelog-producer = lookup`, deletion vectors, the first-row merge engine or
    /// `force-lookup`. Such tables merge a key's level-0 records with only its record of the
    /// lowest level >= 1 (`mergetree::SortMerge::with_lookup`), at read and at compaction.
    pub fn need_lookup(&self) -> bool {
        self.changelog_producer == ChangelogProducer::Lookup
            || self.deletion_vectors_enabled
            || self.merge_engine == MergeEngine::FirstRow
            || self.force_lookup
    }

    /// Target data-file size (Java `CoreOptions#targetFileSize`): `target-file-size`, else
    /// 128 MiB for primary-key tables and 256 MiB for append tables.
    pub fn target_file_size(&self, has_primary_key: bool) -> MemorySize {
        self.target_file_size.unwrap_or(match has_primary_key {
            true => MemorySize::from_mebibytes(128),
            false => MemorySize::from_mebibytes(256),
        })
    }

    /// The statistics mode of column `field`: `fields.<field>.stats-mode`, else
    /// `metadata.stats-mode` (Java `StatsCollectorFactories#createStatsFactories`).
    pub fn stats_mode_of(&self, field: &str) -> Result<StatsMode> {
        match self.field_option(field, "stats-mode") {
            None => Ok(self.metadata_stats_mode),
            Some(v) => v
                .parse()
                .map_err(|e: Error| e.with_context("option", format!("fields.{field}.stats-mode"))),
        }
    }

    /// The per-field option `fields.<field>.<suffix>` (e.g. `aggregate-function`).
    pub fn field_option(&self, field: &str, suffix: &str) -> Option<&str> {
        self.raw
            .get(&format!("fields.{field}.{suffix}"))
            .map(String::as_str)
    }

    /// The complete option map as stored (plus applied overrides), for display.
    pub fn raw(&self) -> &HashMap<String, String> {
        &self.raw
    }
}

/// `bucket-key` of a stored option map (a schema's own `options`) split on `,` verbatim (Java
/// `TableSchema#bucketKeys`); `None` when absent or blank.
pub fn stored_bucket_key<'a>(
    map: impl IntoIterator<Item = (&'a String, &'a String)>,
) -> Option<Vec<String>> {
    match stored(map, BUCKET_KEY) {
        Some(v) if !v.trim().is_empty() => Some(v.split(',').map(str::to_string).collect()),
        _ => None,
    }
}

/// The value of `key` in a stored option map (a `HashMap` or a schema's ordered map).
fn stored<'a>(
    map: impl IntoIterator<Item = (&'a String, &'a String)>,
    key: &str,
) -> Option<&'a str> {
    map.into_iter()
        .find(|(k, _)| k.as_str() == key)
        .map(|(_, v)| v.as_str())
}

/// `bucket-function.type` of a stored option map (a schema's own `options`; default
/// `default`), without parsing the map's other options.
pub fn stored_bucket_function<'a>(
    map: impl IntoIterator<Item = (&'a String, &'a String)>,
) -> Result<BucketFunctionKind> {
    stored(map, BUCKET_FUNCTION_TYPE).map_or(Ok(BucketFunctionKind::Default), str::parse)
}

/// `partition.default-name` default: the directory value of null partition values.
pub const DEFAULT_PARTITION_NAME: &str = "__DEFAULT_PARTITION__";

/// `read.batch-size` default.
pub const DEFAULT_READ_BATCH_SIZE: NonZeroUsize = NonZeroUsize::MIN.saturating_add(1023);

/// A positive integer.
fn non_zero(v: &str) -> Result<NonZeroUsize> {
    let n: i64 = reader::parse_int(v)?;
    usize::try_from(n)
        .ok()
        .and_then(NonZeroUsize::new)
        .ok_or_else(|| Error::invalid_argument("expected a positive integer"))
}
