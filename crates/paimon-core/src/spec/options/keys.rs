//! The option keys of `CoreOptions` (Java Paimon 2.0) this crate reads or writes, and the key
//! prefixes accepted in scan-time overrides.

/// `bucket`: fixed n > 0, -1 dynamic/unaware (default), -2 postpone.
pub const BUCKET: &str = "bucket";
/// `bucket-key`: comma list; unset = trimmed primary key.
pub const BUCKET_KEY: &str = "bucket-key";
/// `bucket-function.type`: default | mod | hive.
pub const BUCKET_FUNCTION_TYPE: &str = "bucket-function.type";
/// `file.format`, default parquet.
pub const FILE_FORMAT: &str = "file.format";
/// `file.compression`, default zstd.
pub const FILE_COMPRESSION: &str = "file.compression";
/// `manifest.format`, default avro.
pub const MANIFEST_FORMAT: &str = "manifest.format";
/// `snapshot.num-retained.min`, default 10.
pub const SNAPSHOT_NUM_RETAINED_MIN: &str = "snapshot.num-retained.min";
/// `snapshot.num-retained.max`, default `i32::MAX`.
pub const SNAPSHOT_NUM_RETAINED_MAX: &str = "snapshot.num-retained.max";
/// `snapshot.time-retained`, default 1 h.
pub const SNAPSHOT_TIME_RETAINED: &str = "snapshot.time-retained";
/// `snapshot.expire.limit`, default 50.
pub const SNAPSHOT_EXPIRE_LIMIT: &str = "snapshot.expire.limit";
/// `changelog.num-retained.min` (default: the snapshot value).
pub const CHANGELOG_NUM_RETAINED_MIN: &str = "changelog.num-retained.min";
/// `changelog.num-retained.max` (default: the snapshot value).
pub const CHANGELOG_NUM_RETAINED_MAX: &str = "changelog.num-retained.max";
/// `changelog.time-retained` (default: the snapshot value).
pub const CHANGELOG_TIME_RETAINED: &str = "changelog.time-retained";
/// `partition.default-name`, default `__DEFAULT_PARTITION__`.
pub const PARTITION_DEFAULT_NAME: &str = "partition.default-name";
/// `partition.legacy-name`, default true.
pub const PARTITION_LEGACY_NAME: &str = "partition.legacy-name";
/// `merge-engine`, default deduplicate.
pub const MERGE_ENGINE: &str = "merge-engine";
/// `sequence.field`: comma list.
pub const SEQUENCE_FIELD: &str = "sequence.field";
/// `sequence.field.sort-order`, default ascending.
pub const SEQUENCE_FIELD_SORT_ORDER: &str = "sequence.field.sort-order";
/// `ignore-delete`, default false.
pub const IGNORE_DELETE: &str = "ignore-delete";
/// Legacy keys read when `ignore-delete` is absent, in Java's order.
pub const IGNORE_DELETE_FALLBACKS: &[&str] = &[
    "first-row.ignore-delete",
    "deduplicate.ignore-delete",
    "partial-update.ignore-delete",
];
/// `partial-update.remove-record-on-delete`, default false.
pub const PARTIAL_UPDATE_REMOVE_RECORD_ON_DELETE: &str = "partial-update.remove-record-on-delete";
/// `partial-update.remove-record-on-sequence-group`: comma list of sequence fields.
pub const PARTIAL_UPDATE_REMOVE_RECORD_ON_SEQUENCE_GROUP: &str =
    "partial-update.remove-record-on-sequence-group";
/// `aggregation.remove-record-on-delete`, default false.
pub const AGGREGATION_REMOVE_RECORD_ON_DELETE: &str = "aggregation.remove-record-on-delete";
/// `deletion-vectors.enabled`, default false.
pub const DELETION_VECTORS_ENABLED: &str = "deletion-vectors.enabled";
/// `deletion-vectors.merge-on-read`, default false.
pub const DELETION_VECTORS_MERGE_ON_READ: &str = "deletion-vectors.merge-on-read";
/// `deletion-vectors.bitmap64`, default false.
pub const DELETION_VECTORS_BITMAP64: &str = "deletion-vectors.bitmap64";
/// `force-lookup`, default false.
pub const FORCE_LOOKUP: &str = "force-lookup";
/// `index-file-in-data-file-dir`, default false.
pub const INDEX_FILE_IN_DATA_FILE_DIR: &str = "index-file-in-data-file-dir";
/// `data-file.external-paths`: comma list of paths.
pub const DATA_FILE_EXTERNAL_PATHS: &str = "data-file.external-paths";
/// `data-file.path-directory`.
pub const DATA_FILE_PATH_DIRECTORY: &str = "data-file.path-directory";
/// `data-file.thin-mode`, default false.
pub const DATA_FILE_THIN_MODE: &str = "data-file.thin-mode";
/// `source.split.target-size`, default 128 mb.
pub const SOURCE_SPLIT_TARGET_SIZE: &str = "source.split.target-size";
/// `source.split.open-file-cost`, default 4 mb.
pub const SOURCE_SPLIT_OPEN_FILE_COST: &str = "source.split.open-file-cost";
/// `read.batch-size`, default 1024.
pub const READ_BATCH_SIZE: &str = "read.batch-size";
/// `scan.mode`, default `default` (fallback key `log.scan`).
pub const SCAN_MODE: &str = "scan.mode";
/// `scan.snapshot-id`.
pub const SCAN_SNAPSHOT_ID: &str = "scan.snapshot-id";
/// `scan.tag-name`.
pub const SCAN_TAG_NAME: &str = "scan.tag-name";
/// `scan.timestamp-millis` (fallback key `log.scan.timestamp-millis`).
pub const SCAN_TIMESTAMP_MILLIS: &str = "scan.timestamp-millis";
/// `scan.timestamp`: a local date-time string.
pub const SCAN_TIMESTAMP: &str = "scan.timestamp";
/// `scan.watermark`.
pub const SCAN_WATERMARK: &str = "scan.watermark";
/// `scan.version`: a snapshot id, tag name or watermark.
pub const SCAN_VERSION: &str = "scan.version";
/// `scan.manifest.parallelism`.
pub const SCAN_MANIFEST_PARALLELISM: &str = "scan.manifest.parallelism";
/// `scan.manifest-entry-cache.max-snapshots` (paimon-cpp only): snapshots kept per key by the
/// live-manifest-entry cache; 0 (default) disables it.
pub const SCAN_MANIFEST_ENTRY_CACHE_MAX_SNAPSHOTS: &str = "scan.manifest-entry-cache.max-snapshots";
/// `scan.fallback-branch`.
pub const SCAN_FALLBACK_BRANCH: &str = "scan.fallback-branch";
/// `branch`, default main.
pub const BRANCH: &str = "branch";
/// `changelog-producer`, default none.
pub const CHANGELOG_PRODUCER: &str = "changelog-producer";
/// `rowkind.field`.
pub const ROWKIND_FIELD: &str = "rowkind.field";
/// `num-levels`; unset = `num-sorted-run.compaction-trigger` + 1.
pub const NUM_LEVELS: &str = "num-levels";
/// `num-sorted-run.compaction-trigger`, default 5.
pub const NUM_SORTED_RUN_COMPACTION_TRIGGER: &str = "num-sorted-run.compaction-trigger";
/// Key: `compaction.min.file-num`.
pub const COMPACTION_MIN_FILE_NUM: &str = "compaction.min.file-num";
/// `metadata.stats-mode`, default `truncate(16)`.
pub const METADATA_STATS_MODE: &str = "metadata.stats-mode";
/// `pk-btree.index.columns`: comma list, trimmed.
pub const PK_BTREE_INDEX_COLUMNS: &str = "pk-btree.index.columns";
/// `pk-bitmap.index.columns`: comma list, trimmed.
pub const PK_BITMAP_INDEX_COLUMNS: &str = "pk-bitmap.index.columns";
/// `global-index.enabled`, default true.
pub const GLOBAL_INDEX_ENABLED: &str = "global-index.enabled";
/// `file-index.read.enabled`, default true.
pub const FILE_INDEX_READ_ENABLED: &str = "file-index.read.enabled";
/// `postpone.merge-on-read`, default false.
pub const POSTPONE_MERGE_ON_READ: &str = "postpone.merge-on-read";
/// `postpone.default-bucket-num`, default 1.
pub const POSTPONE_DEFAULT_BUCKET_NUM: &str = "postpone.default-bucket-num";
/// `dynamic-bucket.target-row-num`, default 2,000,000.
pub const DYNAMIC_BUCKET_TARGET_ROW_NUM: &str = "dynamic-bucket.target-row-num";
/// `dynamic-bucket.max-buckets`, default -1 (unlimited).
pub const DYNAMIC_BUCKET_MAX_BUCKETS: &str = "dynamic-bucket.max-buckets";
/// `row-tracking.enabled`, default false.
pub const ROW_TRACKING_ENABLED: &str = "row-tracking.enabled";
/// `data-evolution.enabled`, default false.
pub const DATA_EVOLUTION_ENABLED: &str = "data-evolution.enabled";
/// `target-file-size`: unset = 128 mb for primary-key tables, 256 mb for append tables.
pub const TARGET_FILE_SIZE: &str = "target-file-size";
/// `write-buffer-size`, default 256 mb.
pub const WRITE_BUFFER_SIZE: &str = "write-buffer-size";
/// `metadata.stats-dense-store`, default true.
pub const METADATA_STATS_DENSE_STORE: &str = "metadata.stats-dense-store";
/// `data-file.prefix`, default `data-`.
pub const DATA_FILE_PREFIX: &str = "data-file.prefix";
/// `file.compression.zstd-level`, default 1.
pub const FILE_COMPRESSION_ZSTD_LEVEL: &str = "file.compression.zstd-level";
/// `parquet.page.size`: target bytes of a Parquet data page (Java hands `parquet.*` options to
/// parquet-mr, `ParquetOutputFormat.PAGE_SIZE`; default 1 MiB).
pub const PARQUET_PAGE_SIZE: &str = "parquet.page.size";
/// `parquet.page.row.count.limit`: at most this many rows per Parquet data page
/// (`ParquetOutputFormat.PAGE_ROW_COUNT_LIMIT`; default 20 000).
pub const PARQUET_PAGE_ROW_COUNT_LIMIT: &str = "parquet.page.row.count.limit";
/// `parquet.enable.dictionary`: dictionary encoding of Parquet columns
/// (`ParquetOutputFormat.ENABLE_DICTIONARY`; default true).
pub const PARQUET_ENABLE_DICTIONARY: &str = "parquet.enable.dictionary";
/// `file.format.per.level`: a file format per LSM level (not applied by this writer; a lookup
/// compaction that Java would make change format rewrites instead of upgrading).
pub const FILE_FORMAT_PER_LEVEL: &str = "file.format.per.level";

/// Key prefixes accepted in overrides besides [`is_known_key`] names: per-field options and
/// options passed through to formats, file systems and indexes.
pub const KNOWN_PREFIXES: &[&str] = &[
    "fields.",
    "file-index.",
    "btree-index.",
    "bitmap-index.",
    "commit.callback.",
    "tag.callback.",
    "blob-descriptor.",
    "parquet.",
    "orc.",
    "avro.",
    "csv.",
    "json.",
    "lance.",
    "fs.",
    "s3.",
    "s3a.",
    "oss.",
    "gs.",
    "azure.",
    "hadoop.",
    "dlf.",
];
