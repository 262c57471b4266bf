//! What to scan: [`ScanContextBuilder`] validates the request once (binds the predicate to the
//! schema, checks the projection and options) before any I/O, producing a [`ScanContext`].

use std::collections::HashMap;
use std::num::NonZeroUsize;

use super::entry_cache::ManifestEntryCache;
use crate::catalog::Table;
use crate::expr::{BoundPredicate, Predicate};
use crate::{Error, Result};

/// Which snapshot to read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum SnapshotSelector {
    /// The latest snapshot (or `scan.snapshot-id` / `scan.tag-name` / `scan.timestamp-millis`
    /// from the options).
    #[default]
    Latest,
    /// A snapshot id.
    Id(i64),
    /// A tag.
    Tag(String),
    /// The latest snapshot committed at or before this time (epoch millis).
    TimestampMillis(i64),
}

/// Row-independent restrictions of a scan.
#[derive(Debug, Clone, Default)]
pub struct ScanFilter {
    /// A predicate over table columns; used for pruning and applied to rows when reading.
    pub predicate: Option<Predicate>,
    /// Explicit partitions to read, as column → value strings (an OR of these).
    pub partition_filter: Option<Vec<HashMap<String, String>>>,
    /// Read only this bucket; takes precedence over any bucket inferred from the predicate.
    pub bucket_filter: Option<i32>,
}

/// Builds a [`ScanContext`].
#[derive(Debug, Clone)]
pub struct ScanContextBuilder {
    table: Table,
    filter: ScanFilter,
    snapshot: SnapshotSelector,
    options: HashMap<String, String>,
    manifest_concurrency: NonZeroUsize,
    entry_cache: Option<ManifestEntryCache>,
}

/// A validated scan request.
#[derive(Debug, Clone)]
pub struct ScanContext {
    /// The table (with option overrides applied).
    pub table: Table,
    /// The filter as given.
    pub filter: ScanFilter,
    /// The predicate bound to the latest schema, if any.
    pub predicate: Option<BoundPredicate>,
    /// The partition filter as a bound predicate, if any.
    pub partition_predicate: Option<BoundPredicate>,
    /// Which snapshot to read.
    pub snapshot: SnapshotSelector,
    /// Manifests decoded concurrently.
    pub manifest_concurrency: NonZeroUsize,
    /// The live-manifest-entry cache, used when `scan.manifest-entry-cache.max-snapshots` > 0.
    pub entry_cache: Option<ManifestEntryCache>,
}

const DEFAULT_MANIFEST_CONCURRENCY: usize = 16;

impl ScanContextBuilder {
    /// A builder scanning the latest snapshot of `table` without filters.
    pub fn new(table: Table) -> Self {
        ScanContextBuilder {
            table,
            filter: ScanFilter::default(),
            snapshot: SnapshotSelector::Latest,
            options: HashMap::new(),
            manifest_concurrency: NonZeroUsize::new(DEFAULT_MANIFEST_CONCURRENCY)
                .unwrap_or(NonZeroUsize::MIN),
            entry_cache: None,
        }
    }
    /// Sets the whole filter.
    #[must_use]
    pub fn with_filter(mut self, filter: ScanFilter) -> Self {
        self.filter = filter;
        self
    }
    /// Sets the predicate.
    #[must_use]
    pub fn with_predicate(mut self, predicate: Predicate) -> Self {
        self.filter.predicate = Some(predicate);
        self
    }
    /// Reads only `bucket`.
    #[must_use]
    pub fn with_bucket_filter(mut self, bucket: i32) -> Self {
        self.filter.bucket_filter = Some(bucket);
        self
    }
    /// Reads only the given partitions.
    #[must_use]
    pub fn with_partition_filter(mut self, partitions: Vec<HashMap<String, String>>) -> Self {
        self.filter.partition_filter = Some(partitions);
        self
    }
    /// Selects the snapshot.
    #[must_use]
    pub fn with_snapshot(mut self, snapshot: SnapshotSelector) -> Self {
        self.snapshot = snapshot;
        self
    }
    /// Adds an option override (Java dynamic option) for this scan.
    #[must_use]
    pub fn with_option(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.options.insert(key.into(), value.into());
        self
    }
    /// Sets how many manifests are read at once.
    #[must_use]
    pub fn with_manifest_concurrency(mut self, n: NonZeroUsize) -> Self {
        self.manifest_concurrency = n;
        self
    }

    /// Shares `cache` of merged live manifest entries per bucket with other scans; it is used
    /// only when the option `scan.manifest-entry-cache.max-snapshots` is positive and the scan
    /// reads one bucket (explicit, or inferred from the predicate).
    #[must_use]
    pub fn with_entry_cache(mut self, cache: ManifestEntryCache) -> Self {
        self.entry_cache = Some(cache);
        self
    }

    /// Validates everything that can be checked without I/O.
    pub fn build(self) -> Result<ScanContext> {
        let table = if self.options.is_empty() {
            self.table
        } else {
            self.table.with_options(&self.options)?
        };
        let schema = table.schema().clone();
        let predicate = self
            .filter
            .predicate
            .as_ref()
            .map(|p| p.bind(&schema))
            .transpose()?;
        let partition_predicate = match &self.filter.partition_filter {
            None => None,
            Some(parts) => {
                Some(partition_spec_predicate(parts, &schema.partition_keys)?.bind(&schema)?)
            }
        };
        if let Some(b) = self.filter.bucket_filter {
            if b < 0 {
                return Err(Error::invalid_argument(format!(
                    "bucket filter {b} is negative"
                )));
            }
        }
        let snapshot = match self.snapshot {
            SnapshotSelector::Latest => options_snapshot(&table),
            other => other,
        };
        Ok(ScanContext {
            table,
            filter: self.filter,
            predicate,
            partition_predicate,
            snapshot,
            manifest_concurrency: self.manifest_concurrency,
            entry_cache: self.entry_cache,
        })
    }
}

fn options_snapshot(table: &Table) -> SnapshotSelector {
    let o = table.options();
    if let Some(id) = o.scan_snapshot_id {
        SnapshotSelector::Id(id)
    } else if let Some(tag) = &o.scan_tag_name {
        SnapshotSelector::Tag(tag.clone())
    } else if let Some(ts) = o.scan_timestamp_millis {
        SnapshotSelector::TimestampMillis(ts)
    } else {
        SnapshotSelector::Latest
    }
}

/// `(k1 = 'v1' AND k2 = 'v2') OR ...` over partition columns; string values are cast to the
/// column types at binding.
fn partition_spec_predicate(
    parts: &[HashMap<String, String>],
    partition_keys: &[String],
) -> Result<Predicate> {
    let mut ors = Vec::new();
    for spec in parts {
        let mut ands = Vec::new();
        for (k, v) in spec {
            if !partition_keys.contains(k) {
                return Err(Error::invalid_argument(format!(
                    "'{k}' is not a partition column (partition keys: {})",
                    partition_keys.join(", ")
                )));
            }
            ands.push(Predicate::Compare {
                column: k.clone(),
                op: crate::expr::CompareOp::Eq,
                value: crate::expr::Literal::String(v.clone()),
            });
        }
        ors.push(Predicate::And(ands));
    }
    Ok(Predicate::Or(ors))
}
