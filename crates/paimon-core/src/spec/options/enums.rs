//! Enumerated option values of Java `org.apache.paimon.CoreOptions` (Paimon 2.0).
//!
//! Java matches enum option values case-insensitively against each constant's `toString()`
//! (`OptionsUtils#convertToEnum`); every `FromStr` here does the same and `Display` writes the
//! canonical lower-case spelling.

use std::fmt;
use std::num::NonZeroU32;
use std::str::FromStr;

use crate::{Error, Result};

/// Declares a string-valued option enum with `as_str`, `Display` and case-insensitive `FromStr`.
macro_rules! string_enum {
    (
        $(#[$meta:meta])*
        $name:ident { $( $(#[$vmeta:meta])* $variant:ident => $text:literal ),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// Every value, in Java declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The option value as Java writes it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )+
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = Error;

            fn from_str(s: &str) -> Result<Self> {
                $name::ALL
                    .iter()
                    .copied()
                    .find(|v| v.as_str().eq_ignore_ascii_case(s))
                    .ok_or_else(|| {
                        let expected: Vec<&str> = $name::ALL.iter().map(|v| v.as_str()).collect();
                        Error::invalid_argument(format!(
                            "'{s}' is not one of [{}]",
                            expected.join(", ")
                        ))
                    })
            }
        }
    };
}

string_enum! {
    /// `bucket-function.type`. Reference: Java `CoreOptions.BucketFunctionType`.
    BucketFunctionKind {
        /// `abs(murmur3(bucket-key BinaryRow) % n)` (`DefaultBucketFunction`).
        Default => "default",
        /// `floorMod(key, n)` over a single INT/BIGINT key (`ModBucketFunction`).
        Mod => "mod",
        /// Hive-compatible hashing (`HiveBucketFunction`).
        Hive => "hive",
    }
}

string_enum! {
    /// `merge-engine`. Reference: Java `CoreOptions.MergeEngine`.
    MergeEngine {
        /// Keep the last record of a key (default).
        Deduplicate => "deduplicate",
        /// Overwrite non-null fields record by record.
        PartialUpdate => "partial-update",
        /// Per-field aggregate functions.
        Aggregation => "aggregation",
        /// Keep the first record of a key.
        FirstRow => "first-row",
    }
}

string_enum! {
    /// `scan.mode`. Reference: Java `CoreOptions.StartupMode`.
    StartupMode {
        /// Decided by the other `scan.*` options (see [`TableOptions::startup_mode`](super::TableOptions::startup_mode)).
        Default => "default",
        /// The latest snapshot.
        LatestFull => "latest-full",
        /// Deprecated alias of `latest-full`.
        Full => "full",
        /// Latest changes only (batch: like `latest-full`).
        Latest => "latest",
        /// The snapshot after the latest compaction.
        CompactedFull => "compacted-full",
        /// The snapshot at `scan.timestamp-millis` / `scan.timestamp`.
        FromTimestamp => "from-timestamp",
        /// From `scan.creation-time-millis`.
        FromCreationTimestamp => "from-creation-timestamp",
        /// Files created after `scan.file-creation-time-millis`.
        FromFileCreationTime => "from-file-creation-time",
        /// The snapshot `scan.snapshot-id`, tag `scan.tag-name` or `scan.watermark`.
        FromSnapshot => "from-snapshot",
        /// From `scan.snapshot-id`, full.
        FromSnapshotFull => "from-snapshot-full",
        /// Changes between two snapshots (`incremental-between*`).
        Incremental => "incremental",
    }
}

string_enum! {
    /// `changelog-producer`. Reference: Java `CoreOptions.ChangelogProducer`.
    ChangelogProducer {
        /// No changelog files.
        None => "none",
        /// Changelog double-written from the input.
        Input => "input",
        /// Changelog produced by full compaction.
        FullCompaction => "full-compaction",
        /// Changelog produced by lookup compaction.
        Lookup => "lookup",
    }
}

string_enum! {
    /// `sequence.field.sort-order`. Reference: Java `CoreOptions.SortOrder`.
    SortOrder {
        /// Higher sequence values win (default).
        Ascending => "ascending",
        /// Lower sequence values win.
        Descending => "descending",
    }
}

/// `bucket`: how rows are assigned to buckets. Reference: Java `BucketMode` / `CoreOptions.BUCKET`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BucketMode {
    /// `bucket = n > 0`: `HASH_FIXED`, bucket = f(bucket-key row, n).
    Fixed(NonZeroU32),
    /// `bucket = -1` (default): dynamic buckets (PK tables) or bucket-unaware (append tables).
    Dynamic,
    /// `bucket = -2`: postpone bucket (PK tables only).
    Postpone,
}

impl BucketMode {
    /// The mode for a raw `bucket` value; `None` for 0 and values below -2.
    pub fn from_raw(raw: i32) -> Option<Self> {
        match raw {
            -1 => Some(BucketMode::Dynamic),
            -2 => Some(BucketMode::Postpone),
            n => u32::try_from(n)
                .ok()
                .and_then(NonZeroU32::new)
                .map(BucketMode::Fixed),
        }
    }

    /// The raw `bucket` value: n, -1 or -2.
    pub fn raw(self) -> i32 {
        match self {
            // A fixed count always comes from a positive i32 (see `from_raw`).
            BucketMode::Fixed(n) => i32::try_from(n.get()).unwrap_or(i32::MAX),
            BucketMode::Dynamic => -1,
            BucketMode::Postpone => -2,
        }
    }

    /// The bucket count of a fixed-bucket table.
    pub fn fixed(self) -> Option<NonZeroU32> {
        match self {
            BucketMode::Fixed(n) => Some(n),
            _ => None,
        }
    }
}

impl FromStr for BucketMode {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        let raw: i32 = s
            .parse()
            .map_err(|_| Error::invalid_argument(format!("'{s}' is not a 32-bit integer")))?;
        BucketMode::from_raw(raw).ok_or_else(|| {
            Error::invalid_argument(format!("{raw} is not a bucket count (n > 0, -1 or -2)"))
        })
    }
}

impl fmt::Display for BucketMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.raw())
    }
}

/// `file.format` / `manifest.format`, lower-cased as Java `CoreOptions#normalizeFileFormat` does.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FileFormat {
    /// Apache Parquet (the `file.format` default).
    Parquet,
    /// Apache ORC (the default of version ≤ 2 schemas).
    Orc,
    /// Apache Avro (the `manifest.format` default).
    Avro,
    /// Any other identifier (`csv`, `json`, `text`, `lance`, `mosaic`, ...), lower-cased.
    Other(String),
}

impl FileFormat {
    /// The format identifier, as used for file-name suffixes.
    pub fn as_str(&self) -> &str {
        match self {
            FileFormat::Parquet => "parquet",
            FileFormat::Orc => "orc",
            FileFormat::Avro => "avro",
            FileFormat::Other(s) => s,
        }
    }
}

impl FromStr for FileFormat {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        let lower = s.to_ascii_lowercase();
        Ok(match lower.as_str() {
            "parquet" => FileFormat::Parquet,
            "orc" => FileFormat::Orc,
            "avro" => FileFormat::Avro,
            "" => return Err(Error::invalid_argument("empty file format")),
            _ => FileFormat::Other(lower),
        })
    }
}

impl fmt::Display for FileFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `metadata.stats-mode`: which column statistics writers keep.
/// Reference: Java `SimpleColStatsCollector#from`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StatsMode {
    /// No statistics.
    None,
    /// Null counts only.
    Counts,
    /// Full min/max/null counts.
    Full,
    /// Min/max truncated to n characters or bytes (default `truncate(16)`).
    Truncate(u32),
}

impl FromStr for StatsMode {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        let upper = s.to_ascii_uppercase();
        match upper.as_str() {
            "NONE" => return Ok(StatsMode::None),
            "COUNTS" => return Ok(StatsMode::Counts),
            "FULL" => return Ok(StatsMode::Full),
            _ => {}
        }
        upper
            .strip_prefix("TRUNCATE(")
            .and_then(|rest| rest.strip_suffix(')'))
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|n| n.parse().ok())
            .map(StatsMode::Truncate)
            .ok_or_else(|| {
                Error::invalid_argument(format!(
                    "'{s}' is not one of none, counts, full, truncate(<n>)"
                ))
            })
    }
}

impl fmt::Display for StatsMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StatsMode::None => f.write_str("none"),
            StatsMode::Counts => f.write_str("counts"),
            StatsMode::Full => f.write_str("full"),
            StatsMode::Truncate(n) => write!(f, "truncate({n})"),
        }
    }
}
