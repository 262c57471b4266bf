//! Options of primary-key compaction (Java `CoreOptions`, Paimon 2.0): when the writer
//! compacts (`write-only`), what universal compaction picks (`compaction.*`,
//! `num-sorted-run.*`) and how lookup tables force level 0 up (`lookup-compact*`).

use std::time::Duration;

use super::duration::parse_duration;
use super::reader::{parse_int, OptionReader};
use super::MemorySize;
use crate::{Error, Result};

/// `write-only` (fallback `write.compaction-skip`), default false.
pub const WRITE_ONLY: &str = "write-only";
/// `compaction.max-size-amplification-percent`, default 200.
pub const MAX_SIZE_AMP: &str = "compaction.max-size-amplification-percent";
/// `compaction.size-ratio`, default 1.
pub const SIZE_RATIO: &str = "compaction.size-ratio";
/// `num-sorted-run.stop-trigger`, default trigger + 3.
pub const STOP_TRIGGER: &str = "num-sorted-run.stop-trigger";
/// `compaction.force-up-level-0`, default false.
pub const FORCE_UP_LEVEL0: &str = "compaction.force-up-level-0";
/// `lookup-compact`, default `RADICAL`.
pub const LOOKUP_COMPACT: &str = "lookup-compact";
/// `lookup-compact.max-interval`, default 2 × trigger.
pub const LOOKUP_COMPACT_MAX_INTERVAL: &str = "lookup-compact.max-interval";
/// `compaction.small-file-ratio`, default 0.7.
pub const SMALL_FILE_RATIO: &str = "compaction.small-file-ratio";
/// `compaction.force-rewrite-all-files`, default false.
pub const FORCE_REWRITE_ALL_FILES: &str = "compaction.force-rewrite-all-files";
/// `compaction.offpeak.start.hour`, default -1.
pub const OFFPEAK_START: &str = "compaction.offpeak.start.hour";
/// `compaction.offpeak.end.hour`, default -1.
pub const OFFPEAK_END: &str = "compaction.offpeak.end.hour";
/// `compaction.offpeak-ratio`, default 0.
pub const OFFPEAK_RATIO: &str = "compaction.offpeak-ratio";
/// `compaction.optimization-interval`, no default.
pub const OPTIMIZATION_INTERVAL: &str = "compaction.optimization-interval";
/// `compaction.total-size-threshold`, no default.
pub const TOTAL_SIZE_THRESHOLD: &str = "compaction.total-size-threshold";
/// `compaction.incremental-size-threshold`, no default.
pub const INCREMENTAL_SIZE_THRESHOLD: &str = "compaction.incremental-size-threshold";
/// `compaction.delete-ratio-threshold`, default 0.2.
pub const DELETE_RATIO_THRESHOLD: &str = "compaction.delete-ratio-threshold";
/// `commit.force-compact`, default false.
pub const COMMIT_FORCE_COMPACT: &str = "commit.force-compact";

/// `lookup-compact` (Java `LookupCompactMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LookupCompactMode {
    /// Level 0 is forced up at every compaction trigger.
    Radical,
    /// Level 0 is forced up every `lookup-compact.max-interval` triggers.
    Gentle,
}

/// The compaction options; field docs name the key and its default.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionOptions {
    /// `write-only` (false): the writer never compacts.
    pub write_only: bool,
    /// `compaction.max-size-amplification-percent` (200).
    pub max_size_amplification_percent: i64,
    /// `compaction.size-ratio` (1, percent).
    pub size_ratio: i64,
    /// `num-sorted-run.stop-trigger` (unset: trigger + 3); see
    /// [`TableOptions::num_sorted_run_stop_trigger`](super::TableOptions::num_sorted_run_stop_trigger).
    pub stop_trigger: Option<i32>,
    /// `compaction.force-up-level-0` (false).
    pub force_up_level0: bool,
    /// `lookup-compact` (`RADICAL`).
    pub lookup_compact: LookupCompactMode,
    /// `lookup-compact.max-interval` (unset: 2 × trigger).
    pub lookup_compact_max_interval: Option<i32>,
    /// `compaction.small-file-ratio` (0.7).
    pub small_file_ratio: f64,
    /// `compaction.force-rewrite-all-files` (false): never upgrade, always rewrite.
    pub force_rewrite_all_files: bool,
    /// `compaction.offpeak.start.hour` (-1).
    pub offpeak_start_hour: i32,
    /// `compaction.offpeak.end.hour` (-1).
    pub offpeak_end_hour: i32,
    /// `compaction.offpeak-ratio` (0).
    pub offpeak_ratio: i64,
    /// `compaction.optimization-interval` (none).
    pub optimization_interval: Option<Duration>,
    /// `compaction.total-size-threshold` (none).
    pub total_size_threshold: Option<MemorySize>,
    /// `compaction.incremental-size-threshold` (none).
    pub incremental_size_threshold: Option<MemorySize>,
    /// `commit.force-compact` (false).
    pub commit_force_compact: bool,
    /// `compaction.delete-ratio-threshold` (0.2): an append file whose deletion vector
    /// deletes more than this ratio of its rows is compacted.
    pub delete_ratio_threshold: f64,
}

impl CompactionOptions {
    pub(super) fn parse(r: &mut OptionReader<'_>) -> Result<Self> {
        let mode = |v: &str| -> Result<LookupCompactMode> {
            match v.trim().to_ascii_uppercase().as_str() {
                "RADICAL" => Ok(LookupCompactMode::Radical),
                "GENTLE" => Ok(LookupCompactMode::Gentle),
                _ => Err(Error::invalid_argument("expected RADICAL or GENTLE")),
            }
        };
        let ratio = |v: &str| -> Result<f64> {
            v.trim()
                .parse::<f64>()
                .map_err(|_| Error::invalid_argument("not a number"))
        };
        Ok(CompactionOptions {
            write_only: r.bool_with(WRITE_ONLY, &["write.compaction-skip"], false)?,
            max_size_amplification_percent: r
                .parse_with(MAX_SIZE_AMP, &[], parse_int)?
                .unwrap_or(200),
            size_ratio: r.parse_with(SIZE_RATIO, &[], parse_int)?.unwrap_or(1),
            stop_trigger: r.i32(STOP_TRIGGER)?,
            force_up_level0: r.bool(FORCE_UP_LEVEL0, false)?,
            lookup_compact: r
                .parse_with(LOOKUP_COMPACT, &[], mode)?
                .unwrap_or(LookupCompactMode::Radical),
            lookup_compact_max_interval: r.i32(LOOKUP_COMPACT_MAX_INTERVAL)?,
            small_file_ratio: r.parse_with(SMALL_FILE_RATIO, &[], ratio)?.unwrap_or(0.7),
            force_rewrite_all_files: r.bool(FORCE_REWRITE_ALL_FILES, false)?,
            offpeak_start_hour: r.i32(OFFPEAK_START)?.unwrap_or(-1),
            offpeak_end_hour: r.i32(OFFPEAK_END)?.unwrap_or(-1),
            offpeak_ratio: r.parse_with(OFFPEAK_RATIO, &[], parse_int)?.unwrap_or(0),
            optimization_interval: r.parse_with(OPTIMIZATION_INTERVAL, &[], parse_duration)?,
            total_size_threshold: r.opt(TOTAL_SIZE_THRESHOLD)?,
            incremental_size_threshold: r.opt(INCREMENTAL_SIZE_THRESHOLD)?,
            commit_force_compact: r.bool(COMMIT_FORCE_COMPACT, false)?,
            delete_ratio_threshold: r
                .parse_with(DELETE_RATIO_THRESHOLD, &[], ratio)?
                .unwrap_or(0.2),
        })
    }

    /// Java `OffPeakHours#currentRatio` at local hour `hour`: the off-peak ratio inside
    /// `[start, end)` (wrapping past midnight when start > end), else 0; disabled when
    /// start == end or either is -1.
    pub fn offpeak_ratio_at(&self, hour: i32) -> i64 {
        let (s, e) = (self.offpeak_start_hour, self.offpeak_end_hour);
        if s == -1 || e == -1 || s == e {
            return 0;
        }
        let inside = if s < e {
            s <= hour && hour < e
        } else {
            hour < e || s <= hour
        };
        if inside {
            self.offpeak_ratio
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::spec::options::TableOptions;
    use std::collections::HashMap;

    use super::*;

    fn parse(pairs: &[(&str, &str)]) -> TableOptions {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        TableOptions::from_map(&map).unwrap()
    }

    #[test]
    fn defaults_and_overrides() {
        let o = parse(&[]);
        let c = &o.compaction;
        assert!(!c.write_only);
        assert_eq!(c.max_size_amplification_percent, 200);
        assert_eq!(c.size_ratio, 1);
        assert!((c.small_file_ratio - 0.7).abs() < 1e-12);
        assert_eq!(c.lookup_compact, LookupCompactMode::Radical);
        assert_eq!(o.num_sorted_run_stop_trigger(), 8);
        assert_eq!(o.lookup_compact_max_interval(), 10);
        let o = parse(&[
            ("write.compaction-skip", "true"),
            ("num-sorted-run.compaction-trigger", "3"),
            ("num-sorted-run.stop-trigger", "2"),
            ("lookup-compact", "gentle"),
            ("compaction.offpeak.start.hour", "22"),
            ("compaction.offpeak.end.hour", "6"),
            ("compaction.offpeak-ratio", "20"),
        ]);
        assert!(o.compaction.write_only);
        assert_eq!(o.num_sorted_run_stop_trigger(), 3);
        assert_eq!(o.lookup_compact_max_interval(), 6);
        assert_eq!(o.compaction.lookup_compact, LookupCompactMode::Gentle);
        assert_eq!(o.compaction.offpeak_ratio_at(23), 20);
        assert_eq!(o.compaction.offpeak_ratio_at(3), 20);
        assert_eq!(o.compaction.offpeak_ratio_at(6), 0);
        assert_eq!(o.compaction.offpeak_ratio_at(12), 0);
        let map: HashMap<String, String> =
            [("lookup-compact".to_string(), "sometimes".to_string())].into();
        assert!(TableOptions::from_map(&map).is_err());
    }
}
