//! The front door of a scan: [`TableScanBuilder`] (from [`Table::scan`]) owns everything a scan
//! and its read need (filter, projection, snapshot, option overrides, limit, read settings) and
//! validates it once, before any I/O (binds the predicate to the schema by field id, checks
//! column names and options), producing a [`TableScan`] that plans and reads with the same
//! settings.

use std::collections::HashMap;
use std::num::NonZeroUsize;

use super::entry_cache::ManifestEntryCache;
use super::table_scan::TableScan;
use crate::catalog::Table;
use crate::expr::{parse_predicate, BoundPredicate, Predicate};
use crate::spec::types::DataField;
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

/// Something that becomes a [`Predicate`]: SQL text (parsed with
/// [`parse_predicate`](crate::expr::parse_predicate)) or a predicate built in code.
pub trait IntoPredicate {
    /// The predicate, or the parse error.
    fn into_predicate(self) -> Result<Predicate>;
}

impl IntoPredicate for Predicate {
    fn into_predicate(self) -> Result<Predicate> {
        Ok(self)
    }
}

impl IntoPredicate for &str {
    fn into_predicate(self) -> Result<Predicate> {
        parse_predicate(self)
    }
}

impl IntoPredicate for String {
    fn into_predicate(self) -> Result<Predicate> {
        parse_predicate(&self)
    }
}

impl IntoPredicate for &String {
    fn into_predicate(self) -> Result<Predicate> {
        parse_predicate(self)
    }
}

/// How the rows of a scan are read: projection, limit and read settings, as given to the
/// builder.
#[derive(Debug, Clone, Default)]
struct ReadRequest {
    projection: Option<Vec<String>>,
    with_metadata: bool,
    limit: Option<usize>,
    concurrency: Option<NonZeroUsize>,
    batch_size: Option<NonZeroUsize>,
    preserve_order: bool,
}

/// The validated read settings of a [`TableScan`]; `read/` turns them into a `TableRead`.
#[derive(Debug, Clone)]
pub(crate) struct ReadSpec {
    /// Output fields, resolved against the latest schema (metadata columns included).
    pub output: Vec<DataField>,
    pub limit: Option<usize>,
    pub concurrency: Option<NonZeroUsize>,
    pub batch_size: Option<NonZeroUsize>,
    pub preserve_order: bool,
}

/// Builds a [`TableScan`]: what to read of one table, planned and read with the same settings.
///
/// ```no_run
/// # async fn demo() -> paimon_core::Result<()> {
/// use futures::TryStreamExt;
/// use paimon_core::{SnapshotSelector, Table};
///
/// let table = Table::open("/warehouse/demo.db/orders").await?;
/// let scan = table
///     .scan()
///     .with_filter("dt = '2024-01-02' AND amount > 100")?
///     .select(["order_id", "amount"])?
///     .with_snapshot(SnapshotSelector::Latest)
///     .with_option("read.batch-size", "1024")
///     .with_limit(100)
///     .build()?;
/// let plan = scan.plan().await?; // serialisable splits + metrics
/// let batches: Vec<_> = scan.reader().read(plan.splits)?.try_collect().await?;
/// # let _ = batches;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct TableScanBuilder {
    table: Table,
    filter: ScanFilter,
    snapshot: SnapshotSelector,
    options: HashMap<String, String>,
    manifest_concurrency: NonZeroUsize,
    entry_cache: Option<ManifestEntryCache>,
    read: ReadRequest,
}

/// A validated scan request: what planning needs.
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

impl TableScanBuilder {
    /// A builder scanning all columns of the latest snapshot of `table` without filters (also
    /// [`Table::scan`]).
    pub fn new(table: Table) -> Self {
        TableScanBuilder {
            table,
            filter: ScanFilter::default(),
            snapshot: SnapshotSelector::Latest,
            options: HashMap::new(),
            manifest_concurrency: NonZeroUsize::new(DEFAULT_MANIFEST_CONCURRENCY)
                .unwrap_or(NonZeroUsize::MIN),
            entry_cache: None,
            read: ReadRequest::default(),
        }
    }

    /// Filters rows by `filter`: SQL text such as `"dt = '2024-01-02' AND amount > 100"` or a
    /// [`Predicate`]. It prunes partitions, buckets, files and row groups when planning, and
    /// is applied to every row when reading. Fails on unparsable text; unknown columns and
    /// impossible literals fail in [`build`](Self::build).
    pub fn with_filter(self, filter: impl IntoPredicate) -> Result<Self> {
        Ok(self.with_predicate(filter.into_predicate()?))
    }

    /// Sets the predicate (as [`with_filter`](Self::with_filter), infallible).
    #[must_use]
    pub fn with_predicate(mut self, predicate: Predicate) -> Self {
        self.filter.predicate = Some(predicate);
        self
    }

    /// Sets the predicate, explicit partitions and bucket together.
    #[must_use]
    pub fn with_scan_filter(mut self, filter: ScanFilter) -> Self {
        self.filter = filter;
        self
    }

    /// Reads only `columns`, in this order: table columns, or the metadata columns of
    /// [`TableRead::metadata_fields`](crate::read::TableRead::metadata_fields). Fails on an
    /// unknown name.
    pub fn select<I, S>(mut self, columns: I) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let columns: Vec<String> = columns.into_iter().map(Into::into).collect();
        self.table.schema().project(&columns)?;
        self.read.projection = Some(columns);
        Ok(self)
    }

    /// Adds the metadata columns after the selected ones (see
    /// [`TableRead::with_metadata`](crate::read::TableRead::with_metadata)).
    #[must_use]
    pub fn with_metadata(mut self, on: bool) -> Self {
        self.read.with_metadata = on;
        self
    }

    /// Stops reading after `limit` rows.
    #[must_use]
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.read.limit = Some(limit);
        self
    }

    /// Sets how many files (or merged splits) are decoded at once (default: 2 × cores).
    #[must_use]
    pub fn with_read_concurrency(mut self, n: NonZeroUsize) -> Self {
        self.read.concurrency = Some(n);
        self
    }

    /// Sets the rows per batch (default: the option `read.batch-size`).
    #[must_use]
    pub fn with_batch_size(mut self, n: NonZeroUsize) -> Self {
        self.read.batch_size = Some(n);
        self
    }

    /// Emits batches in plan order (less parallel); by default they come as they are ready.
    #[must_use]
    pub fn with_preserve_order(mut self, preserve: bool) -> Self {
        self.read.preserve_order = preserve;
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
    /// Adds an option override (Java dynamic option) for this scan and its read.
    #[must_use]
    pub fn with_option(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.options.insert(key.into(), value.into());
        self
    }

    /// Adds option overrides (Java dynamic options) for this scan and its read.
    #[must_use]
    pub fn with_options<K, V>(mut self, options: impl IntoIterator<Item = (K, V)>) -> Self
    where
        K: Into<String>,
        V: Into<String>,
    {
        self.options
            .extend(options.into_iter().map(|(k, v)| (k.into(), v.into())));
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

    /// Validates everything that can be checked without I/O: options, the predicate (bound to
    /// the latest schema by field id), partition and bucket filters, the projection.
    pub fn build(self) -> Result<TableScan> {
        let read = self.read.clone();
        let ctx = self.build_context()?;
        let schema = ctx.table.schema();
        let mut output = match &read.projection {
            Some(cols) => schema.project(cols)?,
            None => schema.fields.clone(),
        };
        if read.with_metadata {
            for f in schema.metadata_fields() {
                if !output.iter().any(|o| o.id == f.id) {
                    output.push(f);
                }
            }
        }
        let spec = ReadSpec {
            output,
            limit: read.limit,
            concurrency: read.concurrency,
            batch_size: read.batch_size,
            preserve_order: read.preserve_order,
        };
        Ok(TableScan::from_parts(ctx, spec))
    }

    fn build_context(self) -> Result<ScanContext> {
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
