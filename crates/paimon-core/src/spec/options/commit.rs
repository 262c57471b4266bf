//! Options of the committer (Java `CoreOptions` `manifest.*`, `commit.*` and
//! `dynamic-partition-overwrite`, Paimon 2.0), parsed with the other table options.

use std::time::Duration;

use super::duration::parse_duration;
use super::reader::{parse_int, OptionReader};
use super::MemorySize;
use crate::{Error, Result};

/// `manifest.target-file-size`, default 8 mb.
pub const MANIFEST_TARGET_FILE_SIZE: &str = "manifest.target-file-size";
/// `manifest.merge-min-count`, default 30.
pub const MANIFEST_MERGE_MIN_COUNT: &str = "manifest.merge-min-count";
/// `manifest.full-compaction-threshold-size`, default 16 mb.
pub const MANIFEST_FULL_COMPACTION_THRESHOLD_SIZE: &str = "manifest.full-compaction-threshold-size";
/// `commit.max-retries`, default 10.
pub const COMMIT_MAX_RETRIES: &str = "commit.max-retries";
/// `commit.min-retry-wait`, default 10 ms.
pub const COMMIT_MIN_RETRY_WAIT: &str = "commit.min-retry-wait";
/// `commit.max-retry-wait`, default 10 s.
pub const COMMIT_MAX_RETRY_WAIT: &str = "commit.max-retry-wait";
/// `commit.timeout`, no default (no time limit).
pub const COMMIT_TIMEOUT: &str = "commit.timeout";
/// `dynamic-partition-overwrite`, default true.
pub const DYNAMIC_PARTITION_OVERWRITE: &str = "dynamic-partition-overwrite";
/// `overwrite-upgrade`, default true.
pub const OVERWRITE_UPGRADE: &str = "overwrite-upgrade";
/// `pk-clustering-override`, default false.
pub const PK_CLUSTERING_OVERRIDE: &str = "pk-clustering-override";

/// The committer's options; field docs name the key and its default.
#[derive(Debug, Clone, PartialEq)]
pub struct CommitOptions {
    /// `manifest.target-file-size` (8 mb): rolling size of manifests and the merge target.
    pub manifest_target_file_size: MemorySize,
    /// `manifest.merge-min-count` (30): small manifests kept unmerged below this count.
    pub manifest_merge_min_count: usize,
    /// `manifest.full-compaction-threshold-size` (16 mb).
    pub manifest_full_compaction_threshold_size: MemorySize,
    /// `commit.max-retries` (10).
    pub max_retries: u32,
    /// `commit.min-retry-wait` (10 ms).
    pub min_retry_wait: Duration,
    /// `commit.max-retry-wait` (10 s).
    pub max_retry_wait: Duration,
    /// `commit.timeout` (none).
    pub timeout: Option<Duration>,
    /// `dynamic-partition-overwrite` (true).
    pub dynamic_partition_overwrite: bool,
    /// `overwrite-upgrade` (true): an overwrite of a primary-key table commits non-overlapping
    /// level-0 files of a bucket at the highest level.
    pub overwrite_upgrade: bool,
    /// `pk-clustering-override` (false): files are not sorted by the primary key (no key-range
    /// conflict check, no overwrite upgrade).
    pub pk_clustering_override: bool,
}

impl CommitOptions {
    pub(super) fn parse(r: &mut OptionReader<'_>) -> Result<Self> {
        let count = |v: &str| -> Result<usize> {
            let n: i64 = parse_int(v)?;
            usize::try_from(n).map_err(|_| Error::invalid_argument("must not be negative"))
        };
        let retries = |v: &str| -> Result<u32> {
            let n: i64 = parse_int(v)?;
            u32::try_from(n).map_err(|_| Error::invalid_argument("must not be negative"))
        };
        Ok(CommitOptions {
            manifest_target_file_size: r
                .get(MANIFEST_TARGET_FILE_SIZE, MemorySize::from_mebibytes(8))?,
            manifest_merge_min_count: r
                .parse_with(MANIFEST_MERGE_MIN_COUNT, &[], count)?
                .unwrap_or(30),
            manifest_full_compaction_threshold_size: r.get(
                MANIFEST_FULL_COMPACTION_THRESHOLD_SIZE,
                MemorySize::from_mebibytes(16),
            )?,
            max_retries: r
                .parse_with(COMMIT_MAX_RETRIES, &[], retries)?
                .unwrap_or(10),
            min_retry_wait: r
                .parse_with(COMMIT_MIN_RETRY_WAIT, &[], parse_duration)?
                .unwrap_or(Duration::from_millis(10)),
            max_retry_wait: r
                .parse_with(COMMIT_MAX_RETRY_WAIT, &[], parse_duration)?
                .unwrap_or(Duration::from_secs(10)),
            timeout: r.parse_with(COMMIT_TIMEOUT, &[], parse_duration)?,
            dynamic_partition_overwrite: r.bool(DYNAMIC_PARTITION_OVERWRITE, true)?,
            overwrite_upgrade: r.bool(OVERWRITE_UPGRADE, true)?,
            pk_clustering_override: r.bool(PK_CLUSTERING_OVERRIDE, false)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::options::TableOptions;
    use std::collections::HashMap;

    #[test]
    fn durations_parse_like_java() {
        assert_eq!(parse_duration("10 ms").unwrap(), Duration::from_millis(10));
        assert_eq!(parse_duration("10").unwrap(), Duration::from_millis(10));
        assert_eq!(parse_duration("10s").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_duration("2 min").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_duration("1 h").unwrap(), Duration::from_secs(3600));
        assert!(parse_duration("ten").is_err());
        assert!(parse_duration("1 fortnight").is_err());
    }

    #[test]
    fn defaults_and_overrides() {
        let d = TableOptions::default().commit;
        assert_eq!(d.manifest_merge_min_count, 30);
        assert_eq!(d.manifest_target_file_size, MemorySize::from_mebibytes(8));
        assert_eq!(
            d.manifest_full_compaction_threshold_size,
            MemorySize::from_mebibytes(16)
        );
        assert_eq!(d.max_retries, 10);
        assert_eq!(d.min_retry_wait, Duration::from_millis(10));
        assert_eq!(d.max_retry_wait, Duration::from_secs(10));
        assert_eq!(d.timeout, None);
        assert!(d.dynamic_partition_overwrite);
        assert!(d.overwrite_upgrade);
        assert!(!d.pk_clustering_override);
        let map: HashMap<String, String> = [
            (MANIFEST_MERGE_MIN_COUNT, "3"),
            (MANIFEST_TARGET_FILE_SIZE, "1 kb"),
            (COMMIT_TIMEOUT, "5 s"),
            (DYNAMIC_PARTITION_OVERWRITE, "false"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let o = TableOptions::from_map(&map).unwrap().commit;
        assert_eq!(o.manifest_merge_min_count, 3);
        assert_eq!(o.manifest_target_file_size.bytes(), 1024);
        assert_eq!(o.timeout, Some(Duration::from_secs(5)));
        assert!(!o.dynamic_partition_overwrite);
        let bad: HashMap<String, String> =
            [(COMMIT_MAX_RETRIES.to_string(), "-1".to_string())].into();
        assert!(TableOptions::from_map(&bad).is_err());
    }
}
