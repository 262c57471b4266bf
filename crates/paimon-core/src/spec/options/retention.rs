//! Snapshot retention options (Java `CoreOptions#snapshotNumRetainMin` and friends).

use std::time::Duration;

use super::duration::parse_duration;
use super::reader::OptionReader;
use super::{
    CHANGELOG_NUM_RETAINED_MAX, CHANGELOG_NUM_RETAINED_MIN, CHANGELOG_TIME_RETAINED,
    SNAPSHOT_EXPIRE_LIMIT, SNAPSHOT_NUM_RETAINED_MAX, SNAPSHOT_NUM_RETAINED_MIN,
    SNAPSHOT_TIME_RETAINED,
};
use crate::Result;

/// How many snapshots expiration keeps, and for how long.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retention {
    /// `snapshot.num-retained.min` (default 10; ranges are checked by `schema_validation` when
    /// a schema is written and by expiration when it runs, not here).
    pub num_retained_min: i32,
    /// `snapshot.num-retained.max` (default `i32::MAX`).
    pub num_retained_max: i32,
    /// `snapshot.time-retained` (default 1 h).
    pub time_retained: Duration,
    /// `snapshot.expire.limit`: snapshots expired per call at most (default 50).
    pub expire_limit: i32,
    /// `changelog.num-retained.min`, when set.
    pub changelog_num_retained_min: Option<i32>,
    /// `changelog.num-retained.max`, when set.
    pub changelog_num_retained_max: Option<i32>,
    /// `changelog.time-retained`, when set.
    pub changelog_time_retained: Option<Duration>,
}

impl Retention {
    pub(super) fn parse(r: &mut OptionReader<'_>) -> Result<Self> {
        let min = r.i32(SNAPSHOT_NUM_RETAINED_MIN)?.unwrap_or(10);
        let max = r.i32(SNAPSHOT_NUM_RETAINED_MAX)?.unwrap_or(i32::MAX);
        let time = r.parse_with(SNAPSHOT_TIME_RETAINED, &[], parse_duration)?;
        let limit = r.i32(SNAPSHOT_EXPIRE_LIMIT)?.unwrap_or(50);
        Ok(Retention {
            num_retained_min: min,
            num_retained_max: max,
            time_retained: time.unwrap_or(Duration::from_secs(3600)),
            expire_limit: limit.max(1),
            changelog_num_retained_min: r.i32(CHANGELOG_NUM_RETAINED_MIN)?,
            changelog_num_retained_max: r.i32(CHANGELOG_NUM_RETAINED_MAX)?,
            changelog_time_retained: r.parse_with(CHANGELOG_TIME_RETAINED, &[], parse_duration)?,
        })
    }

    /// Java `CoreOptions#changelogLifecycleDecoupled`: changelogs outlive snapshots.
    pub fn changelog_decoupled(&self) -> bool {
        self.changelog_num_retained_min
            .is_some_and(|m| m > self.num_retained_min)
            || self
                .changelog_num_retained_max
                .is_some_and(|m| m > self.num_retained_max)
            || self
                .changelog_time_retained
                .is_some_and(|t| t > self.time_retained)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::time::Duration;

    use crate::spec::options::TableOptions;

    fn parse(pairs: &[(&str, &str)]) -> crate::Result<TableOptions> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        TableOptions::from_map(&map)
    }

    #[test]
    fn defaults_values_and_errors() {
        let r = parse(&[]).unwrap().retention;
        assert_eq!((r.num_retained_min, r.num_retained_max), (10, i32::MAX));
        assert_eq!(r.time_retained, Duration::from_secs(3600));
        assert_eq!(r.expire_limit, 50);
        assert!(!r.changelog_decoupled());
        let r = parse(&[
            ("snapshot.num-retained.min", "2"),
            ("snapshot.num-retained.max", "5"),
            ("snapshot.time-retained", "30 min"),
            ("changelog.num-retained.max", "9"),
        ])
        .unwrap()
        .retention;
        assert_eq!((r.num_retained_min, r.num_retained_max), (2, 5));
        assert_eq!(r.time_retained, Duration::from_secs(1800));
        assert!(r.changelog_decoupled());
        assert!(parse(&[("snapshot.time-retained", "soon")]).is_err());
        assert!(parse(&[("snapshot.num-retained.min", "x")]).is_err());
    }
}
