//! Options of cross-partition updates (a primary-key table with `bucket = -1` whose primary
//! key lacks a partition field; Java `CoreOptions` `cross-partition-upsert.*`, Paimon 2.0).

use std::time::Duration;

use super::duration::parse_duration;
use super::reader::OptionReader;
use crate::{Error, Result};

/// `cross-partition-upsert.index-ttl`, no default.
pub const CROSS_PARTITION_UPSERT_INDEX_TTL: &str = "cross-partition-upsert.index-ttl";
/// `cross-partition-upsert.bootstrap-parallelism`, default 10.
pub const CROSS_PARTITION_UPSERT_BOOTSTRAP_PARALLELISM: &str =
    "cross-partition-upsert.bootstrap-parallelism";

/// The cross-partition key index's options; field docs name the key and its default.
#[derive(Debug, Clone, PartialEq)]
pub struct CrossPartitionOptions {
    /// `cross-partition-upsert.index-ttl` (none): buckets whose files are all older than this
    /// are left out of the key index bootstrap (their keys may then be written twice).
    pub index_ttl: Option<Duration>,
    /// `cross-partition-upsert.bootstrap-parallelism` (10): splits read at once while the key
    /// index is bootstrapped.
    pub bootstrap_parallelism: usize,
}

impl CrossPartitionOptions {
    pub(super) fn parse(r: &mut OptionReader<'_>) -> Result<Self> {
        let positive = |v: &str| -> Result<usize> {
            match v.trim().parse::<i64>() {
                Ok(n) if n > 0 => Ok(usize::try_from(n).unwrap_or(usize::MAX)),
                _ => Err(Error::invalid_argument("expected a positive integer")),
            }
        };
        Ok(CrossPartitionOptions {
            index_ttl: r.parse_with(CROSS_PARTITION_UPSERT_INDEX_TTL, &[], parse_duration)?,
            bootstrap_parallelism: r
                .parse_with(CROSS_PARTITION_UPSERT_BOOTSTRAP_PARALLELISM, &[], positive)?
                .unwrap_or(10),
        })
    }
}
