//! [`TableScan`]: snapshot selection, manifest reading and pruning, netting, split generation.
//!
//! Mirrors Java `AbstractFileStoreScan` and `DataTableBatchScan` (Paimon 2.0). Pruning order per
//! manifest file: partition stats, then explicit bucket range; per entry (before netting, safe
//! because an ADD and its DELETE share partition and bucket): partition predicate, explicit
//! bucket; after netting: level rules, inferred bucket ([`BucketPruner`]), value stats (append
//! tables only; primary-key tables must not prune by value stats, which would resurrect stale
//! versions), key stats (primary-key tables: the conjuncts on trimmed primary keys against
//! `_KEY_STATS`, Java's key filter). Rows of other buckets are dropped while manifests are decoded (their `_FILE` left
//! undecoded): every row for an explicit bucket; for inferred pruning only ADDs at the current
//! bucket count and schema whose bucket no partition selects (DELETEs kept, so netting is
//! unchanged; the pruner after netting would drop those ADDs anyway). With the live-entry cache
//! ([`ManifestEntryCache`]) the netted entries of one bucket come from the cache, checked right
//! after the snapshot (a hit reads no manifest list), and the per-entry filters run on them.
//! Every optimisation fails open.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use futures::{stream, StreamExt, TryStreamExt};

use super::bucket_pruner::BucketPruner;
use super::context::{ReadSpec, ScanContext, SnapshotSelector};
use super::entry_cache::{CachedEntries, EntryCacheKey, ManifestEntryCache};
use super::entry_merge::EntryMerger;
use super::file_stats;
use super::global_index;
use super::manifest_reader::{EntryFilter, ManifestReader};
use super::metrics::ScanMetrics;
use super::plan::{DataSplit, DeletionFile, Plan, Split};
use super::split_generator::{append_splits, primary_key_splits, SplitSizing};
use crate::expr::{eval_partition, eval_stats, BoundPredicate, Prune};
use crate::hash::FastHashMap;
use crate::io::join;
use crate::spec::binary_row::BinaryRow;
use crate::spec::manifest::{
    EntryHead, FileKind, IndexManifestEntry, ManifestEntry, ManifestFileMeta,
};
use crate::spec::options::BucketMode;
use crate::spec::partition_path::{partition_path, partition_value_string};
use crate::spec::snapshot::Snapshot;
use crate::spec::types::DataField;
use crate::spec::Datum;
use crate::{Error, Result};

/// A validated scan of one table, built by [`TableScanBuilder`](super::TableScanBuilder)
/// (from [`Table::scan`](crate::Table::scan)): [`plan`](Self::plan) lists the splits,
/// [`reader`](Self::reader) reads any of them with the scan's filter, projection, limit and
/// options, and [`to_arrow`](Self::to_arrow) does both (those two live in `read/`, so planning
/// never depends on reading). Cheap to clone.
#[derive(Debug, Clone)]
pub struct TableScan {
    ctx: Arc<ScanContext>,
    read: Arc<ReadSpec>,
}

/// Decoded partition facts, cached per partition bytes.
#[derive(Debug, Clone)]
pub(super) struct PartitionInfo {
    keep: bool,
    pub(super) values: Vec<Option<Datum>>,
}

/// Per-scan state built once (its live-entry filters are in `live_filter.rs`).
pub(super) struct Planner<'a> {
    pub(super) ctx: &'a ScanContext,
    partition_fields: Vec<DataField>,
    /// Conjuncts of the predicate (and partition filter) that only touch partition columns.
    partition_pred: Option<BoundPredicate>,
    partitions: FastHashMap<Vec<u8>, Arc<PartitionInfo>>,
    /// The bytes and facts of the partition [`Self::partition`] returned last.
    last_key: Vec<u8>,
    last_partition: Option<Arc<PartitionInfo>>,
    /// The trimmed primary-key fields of each file schema id (`None`: the schema lacks one),
    /// for key-stats pruning without re-deriving them per file.
    pub(super) key_fields: HashMap<i64, Option<Arc<Vec<DataField>>>>,
    /// Inferred bucket pruning, when the predicate pins every bucket key.
    pub(super) bucket_pruner: Option<BucketPruner>,
    pub(super) metrics: ScanMetrics,
}

impl TableScan {
    pub(crate) fn from_parts(ctx: ScanContext, read: ReadSpec) -> Self {
        TableScan {
            ctx: Arc::new(ctx),
            read: Arc::new(read),
        }
    }

    /// The validated read settings (turned into a reader by `read/`).
    pub(crate) fn read_spec(&self) -> &ReadSpec {
        &self.read
    }

    /// The validated request: table (with option overrides), bound predicate, snapshot.
    pub fn context(&self) -> &ScanContext {
        &self.ctx
    }

    /// The table as scanned (stored options plus this scan's overrides).
    pub fn table(&self) -> &crate::catalog::Table {
        &self.ctx.table
    }

    /// Resolves the snapshot to read.
    pub async fn snapshot(&self) -> Result<Option<Snapshot>> {
        let sm = self.ctx.table.snapshot_manager();
        match &self.ctx.snapshot {
            SnapshotSelector::Latest => sm.latest_snapshot().await,
            SnapshotSelector::Id(id) => sm.snapshot(*id).await.map(Some),
            SnapshotSelector::Tag(t) => sm.tag(t).await.map(|t| Some(t.snapshot)),
            SnapshotSelector::TimestampMillis(ms) => match sm.snapshot_at_or_before(*ms).await? {
                Some(s) => Ok(Some(s)),
                None => Err(Error::not_found(format!(
                    "no snapshot was committed at or before timestamp {ms}"
                ))
                .with_context("table", self.ctx.table.location())),
            },
        }
    }

    /// Plans the scan.
    pub async fn plan(&self) -> Result<Plan> {
        let started = Instant::now();
        let Some(snapshot) = self.snapshot().await? else {
            return Ok(Plan::default());
        };
        let mut planner = Planner::new(&self.ctx)?;
        let reader =
            ManifestReader::new(self.ctx.table.file_io().clone(), self.ctx.table.location());
        // A cache hit needs only the snapshot: the manifest lists are not read.
        let cache = planner.cache_key();
        let hit = cache
            .as_ref()
            .and_then(|(c, k)| c.get(k, snapshot.id, &snapshot.delta_manifest_list));
        let live = match hit {
            Some(entries) => {
                planner.metrics.cache_hits += 1;
                planner.filter_entries(&entries).await?
            }
            None => {
                let (mut metas, delta) = futures::try_join!(
                    reader.manifest_list(&snapshot.base_manifest_list),
                    reader.manifest_list(&snapshot.delta_manifest_list),
                )?;
                metas.extend(delta);
                planner.metrics.manifests_total = metas.len() as u64;
                match cache {
                    Some((cache, key)) => {
                        let entries = planner
                            .cached_live(&reader, &snapshot, metas, &cache, key)
                            .await?;
                        planner.filter_entries(&entries).await?
                    }
                    None => {
                        let metas: Vec<ManifestFileMeta> = metas
                            .into_iter()
                            .filter(|m| planner.keep_manifest(m))
                            .collect();
                        let merged = planner.read_and_merge(&reader, metas).await?;
                        planner.filter_live(merged).await?
                    }
                }
            }
        };
        // One index-manifest read serves the deletion files and the global index.
        let index_entries = match &snapshot.index_manifest {
            Some(name) => reader.index_manifest(name).await?,
            None => Vec::new(),
        };
        let deletion_files = planner.deletion_files(&index_entries)?;
        let mut splits = planner.make_splits(&snapshot, live, &deletion_files)?;
        let payloads = planner.payloads(&index_entries);
        splits = global_index::narrow(
            &self.ctx,
            splits,
            &payloads,
            &mut planner.metrics.global_index,
        )
        .await;
        let mut metrics = planner.metrics;
        if let Some(p) = &planner.bucket_pruner {
            let (pairs, buckets) = p.selector().selection_stats();
            metrics.buckets_selected = buckets;
            if pairs > 0 {
                metrics.bucket_pruning = "inferred".into();
            }
        }
        metrics.splits = splits.len() as u64;
        metrics.files_planned = splits.iter().map(|s| s.as_data().files.len() as u64).sum();
        metrics.plan_micros = started.elapsed().as_micros() as u64;
        Ok(Plan {
            snapshot_id: Some(snapshot.id),
            splits,
            metrics,
        })
    }
}

type DvKey = (Vec<u8>, i32, String);

impl<'a> Planner<'a> {
    fn new(ctx: &'a ScanContext) -> Result<Self> {
        let schema = ctx.table.schema();
        let partition_fields = schema.partition_fields()?;
        let ids = partition_fields.iter().map(|f| f.id).collect();
        let mut conjuncts: Vec<BoundPredicate> = ctx
            .predicate
            .iter()
            .flat_map(|p| p.split_and())
            .filter(|c| c.references_only(&ids))
            .collect();
        if let Some(p) = &ctx.partition_predicate {
            conjuncts.push(p.clone());
        }
        let partition_pred = match conjuncts.len() {
            0 => None,
            1 => conjuncts.pop(),
            _ => Some(BoundPredicate::And(conjuncts)),
        };
        let bucket_pruner = BucketPruner::new(ctx);
        let bucket_pruning = match (ctx.filter.bucket_filter, &bucket_pruner) {
            (Some(_), _) => "explicit",
            (None, Some(_)) => "not inferred",
            (None, None) => "none",
        };
        Ok(Planner {
            ctx,
            partition_fields,
            partition_pred,
            partitions: FastHashMap::default(),
            last_key: Vec::new(),
            last_partition: None,
            key_fields: HashMap::new(),
            bucket_pruner,
            metrics: ScanMetrics {
                bucket_pruning: bucket_pruning.into(),
                ..ScanMetrics::default()
            },
        })
    }

    fn keep_manifest(&mut self, m: &ManifestFileMeta) -> bool {
        if let Some(pred) = &self.partition_pred {
            let stats = file_stats::decode_stats(
                &m.partition_stats,
                &self.partition_fields,
                &self.partition_fields,
                None,
            );
            if matches!(eval_stats(pred, &stats), Ok(Prune::CannotMatch)) {
                self.metrics.manifests_skipped_by_partition += 1;
                return false;
            }
        }
        if let (Some(b), Some(lo), Some(hi)) =
            (self.ctx.filter.bucket_filter, m.min_bucket, m.max_bucket)
        {
            if b < lo || b > hi {
                self.metrics.manifests_skipped_by_bucket += 1;
                return false;
            }
        }
        true
    }

    /// The decoded facts of partition `bytes`, decoded once per scan. The last partition
    /// asked for is checked first by comparing bytes: entries come grouped by partition (an
    /// unpartitioned table has one), and a comparison of a few bytes is cheaper than hashing.
    pub(super) fn partition(&mut self, bytes: &[u8]) -> Result<Arc<PartitionInfo>> {
        if let Some(info) = self
            .last_partition
            .as_ref()
            .filter(|_| self.last_key == bytes)
        {
            return Ok(info.clone());
        }
        let info = match self.partitions.get(bytes) {
            Some(info) => info.clone(),
            None => {
                let info = Arc::new(self.decode_partition(bytes)?);
                self.partitions.insert(bytes.to_vec(), info.clone());
                info
            }
        };
        self.last_key.clear();
        self.last_key.extend_from_slice(bytes);
        self.last_partition = Some(info.clone());
        Ok(info)
    }

    fn decode_partition(&self, bytes: &[u8]) -> Result<PartitionInfo> {
        let types: Vec<_> = self
            .partition_fields
            .iter()
            .map(|f| f.data_type.clone())
            .collect();
        let values = BinaryRow::from_serialized(bytes)
            .and_then(|r| r.decode(&types))
            .map_err(|e| e.with_context("structure", "manifest entry _PARTITION"))?;
        let keep = match &self.partition_pred {
            None => true,
            Some(p) => eval_partition(p, &self.partition_fields, &values)? != Prune::CannotMatch,
        };
        Ok(PartitionInfo { keep, values })
    }

    /// Entry filters that hold for an ADD and its DELETE alike.
    pub(super) fn keep_entry(&mut self, e: &ManifestEntry) -> Result<bool> {
        if !self.partition(&e.partition)?.keep {
            self.metrics.files_skipped_by_partition += 1;
            return Ok(false);
        }
        if let Some(b) = self.ctx.filter.bucket_filter {
            if e.bucket != b {
                self.metrics.files_skipped_by_bucket += 1;
                return Ok(false);
            }
        }
        Ok(true)
    }

    async fn read_and_merge(
        &mut self,
        reader: &ManifestReader,
        metas: Vec<ManifestFileMeta>,
    ) -> Result<Vec<ManifestEntry>> {
        let skipped = Arc::new(AtomicU64::new(0));
        let filter = self.decode_filter(&skipped);
        let n = self.ctx.manifest_concurrency.get();
        let mut manifests = read_manifests(reader, metas, filter, n);
        let mut merger = EntryMerger::new();
        while let Some(entries) = manifests.try_next().await? {
            self.metrics.entries_read += entries.len() as u64;
            for e in entries {
                if self.keep_entry(&e)? {
                    merger.push(e)?;
                }
            }
        }
        let live = merger.into_live();
        self.metrics.live_files = live.len() as u64;
        self.count_decode_skips(&skipped);
        Ok(live)
    }

    /// Counts rows a decode filter dropped (as files skipped by bucket, too).
    fn count_decode_skips(&mut self, skipped: &AtomicU64) {
        let n = skipped.load(Ordering::Relaxed);
        self.metrics.entries_skipped_in_decode += n;
        self.metrics.files_skipped_by_bucket += n;
    }

    /// The filter applied while decoding manifests of an uncached plan: an explicit bucket
    /// (both kinds: an ADD and its DELETE share the bucket), or ADD entries that inferred
    /// bucket pruning would drop after netting anyway: the current bucket count, the current
    /// schema (compatible by definition) and a bucket outside the selection of every
    /// partition. DELETEs are kept then, so netting is unchanged. Counts skipped rows.
    fn decode_filter(&self, skipped: &Arc<AtomicU64>) -> Option<EntryFilter> {
        let skipped = skipped.clone();
        if let Some(b) = self.ctx.filter.bucket_filter {
            return Some(counting(skipped, move |h| h.bucket == b));
        }
        let BucketMode::Fixed(n) = self.ctx.table.options().bucket else {
            return None;
        };
        let n = i32::try_from(n.get()).ok()?;
        let pruner = self.bucket_pruner.as_ref()?;
        let set = pruner.selector().select_any_partition(n)?;
        let schema_id = pruner.current_schema_id();
        Some(counting(skipped, move |h| {
            h.kind == FileKind::Delete
                || h.total_buckets != n
                || h.schema_id != Some(schema_id)
                || set.contains(&h.bucket)
        }))
    }

    /// The live-entry cache and key of this scan, when the cache is enabled and the scan reads
    /// one bucket: the explicit one, or the single bucket inferred for every partition at the
    /// current bucket count.
    fn cache_key(&self) -> Option<(ManifestEntryCache, EntryCacheKey)> {
        let cache = self.ctx.entry_cache.clone()?;
        let o = self.ctx.table.options();
        if o.scan_manifest_entry_cache_max_snapshots == 0 {
            return None;
        }
        let (bucket, inferred) = match self.ctx.filter.bucket_filter {
            Some(b) => (b, None),
            None => {
                let BucketMode::Fixed(n) = o.bucket else {
                    return None;
                };
                let n = i32::try_from(n.get()).ok()?;
                let pruner = self.bucket_pruner.as_ref()?;
                let set = pruner.selector().select_any_partition(n)?;
                match set.iter().collect::<Vec<_>>().as_slice() {
                    [b] => (**b, Some((n, pruner.current_schema_id()))),
                    _ => return None,
                }
            }
        };
        let key = EntryCacheKey {
            table: self.ctx.table.location().to_string(),
            branch: o.branch.clone(),
            bucket,
            inferred,
        };
        Some((cache, key))
    }

    /// Rebuilds and stores the cached candidates of `key` at `snapshot` (the caller found no
    /// hit): all entries
    /// netted before any request filter, restricted to the bucket (plus, for an inferred bucket,
    /// entries with another total bucket count or schema id).
    async fn cached_live(
        &mut self,
        reader: &ManifestReader,
        snapshot: &Snapshot,
        metas: Vec<ManifestFileMeta>,
        cache: &ManifestEntryCache,
        key: EntryCacheKey,
    ) -> Result<CachedEntries> {
        let delta = &snapshot.delta_manifest_list;
        self.metrics.cache_misses += 1;
        let b = key.bucket;
        let metas: Vec<ManifestFileMeta> = match key.inferred {
            // Inferred: other counts may put the key elsewhere, so no min/max skipping.
            Some(_) => metas,
            None => metas
                .into_iter()
                .filter(|m| {
                    let skip = matches!((m.min_bucket, m.max_bucket),
                        (Some(lo), Some(hi)) if b < lo || b > hi);
                    self.metrics.manifests_skipped_by_bucket += u64::from(skip);
                    !skip
                })
                .collect(),
        };
        // While decoding: the explicit bucket (both kinds), or for an inferred bucket the ADDs
        // the filter after netting drops anyway (DELETEs kept, so netting is unchanged).
        let skipped = Arc::new(AtomicU64::new(0));
        let filter = match key.inferred {
            None => counting(skipped.clone(), move |h| h.bucket == b),
            Some((total, schema_id)) => counting(skipped.clone(), move |h| {
                h.kind == FileKind::Delete
                    || h.bucket == b
                    || h.total_buckets != total
                    || h.schema_id != Some(schema_id)
            }),
        };
        let n = self.ctx.manifest_concurrency.get();
        let mut manifests = read_manifests(reader, metas, Some(filter), n);
        let mut merger = EntryMerger::new();
        while let Some(entries) = manifests.try_next().await? {
            self.metrics.entries_read += entries.len() as u64;
            for e in entries {
                // An ADD and its DELETE share the bucket: filtering before netting is safe.
                if key.inferred.is_some() || e.bucket == b {
                    merger.push(e)?;
                }
            }
        }
        let live: Vec<ManifestEntry> = match key.inferred {
            None => merger.into_live(),
            Some((total, schema_id)) => merger
                .into_live()
                .into_iter()
                .filter(|e| {
                    e.bucket == b || e.total_buckets != total || e.file.schema_id != schema_id
                })
                .collect(),
        };
        self.count_decode_skips(&skipped);
        let max = self
            .ctx
            .table
            .options()
            .scan_manifest_entry_cache_max_snapshots;
        Ok(cache.put(key, snapshot.id, delta, Arc::new(live), max))
    }

    /// The location of an index file (Java `IndexPathFactory#toPath`): `_EXTERNAL_PATH` when
    /// set, else the bucket directory with `index-file-in-data-file-dir`, else `<table>/index/`.
    fn index_file_path(&self, ie: &IndexManifestEntry) -> Result<String> {
        let o = self.ctx.table.options();
        Ok(match &ie.external_path {
            Some(p) => p.clone(),
            None if o.index_file_in_data_file_dir => {
                let info = self.partitions.get(&ie.partition).map(|p| p.values.clone());
                let values = match info {
                    Some(v) => v,
                    None => {
                        let types: Vec<_> = self
                            .partition_fields
                            .iter()
                            .map(|f| f.data_type.clone())
                            .collect();
                        BinaryRow::from_serialized(&ie.partition)?.decode(&types)?
                    }
                };
                join(&self.bucket_path(&values, ie.bucket)?, &ie.file_name)
            }
            None => join(&join(self.ctx.table.location(), "index"), &ie.file_name),
        })
    }

    /// Source-backed global-index payloads with their locations (an entry whose location
    /// cannot be resolved is left out, with a warning: its files are read normally).
    fn payloads<'e>(&self, index: &'e [IndexManifestEntry]) -> Vec<global_index::Payload<'e>> {
        index
            .iter()
            .filter(|e| global_index::is_source_backed(e))
            .filter_map(|e| match self.index_file_path(e) {
                Ok(p) => Some((e, p)),
                Err(err) => {
                    tracing::warn!(payload = %e.file_name, error = %err, "global index: cannot resolve payload path");
                    None
                }
            })
            .collect()
    }

    fn deletion_files(&self, index: &[IndexManifestEntry]) -> Result<HashMap<DvKey, DeletionFile>> {
        let mut out = HashMap::new();
        for ie in index.iter().filter(|e| e.index_type == "DELETION_VECTORS") {
            let path = self.index_file_path(ie)?;
            for dv in ie.deletion_vectors.iter().flatten() {
                out.insert(
                    (ie.partition.clone(), ie.bucket, dv.data_file_name.clone()),
                    DeletionFile {
                        path: path.clone(),
                        offset: i64::from(dv.offset),
                        length: i64::from(dv.length),
                        cardinality: dv.cardinality,
                    },
                );
            }
        }
        Ok(out)
    }

    fn bucket_path(&self, values: &[Option<Datum>], bucket: i32) -> Result<String> {
        let o = self.ctx.table.options();
        let mut root = self.ctx.table.location().to_string();
        if let Some(dir) = &o.data_file_path_directory {
            root = join(&root, dir);
        }
        let part = partition_path(
            &self.partition_fields,
            values,
            &o.partition_default_name,
            o.partition_legacy_name,
        )?;
        let bucket_dir = if bucket == -2 {
            "bucket-postpone".to_string()
        } else {
            format!("bucket-{bucket}")
        };
        Ok(join(&root, &format!("{part}{bucket_dir}")))
    }

    fn make_splits(
        &mut self,
        snapshot: &Snapshot,
        live: Vec<ManifestEntry>,
        dvs: &HashMap<DvKey, DeletionFile>,
    ) -> Result<Vec<Split>> {
        let mut groups: BTreeMap<(Vec<u8>, i32), (i32, Vec<_>)> = BTreeMap::new();
        for e in live {
            let g = groups
                .entry((e.partition.clone(), e.bucket))
                .or_insert((e.total_buckets, Vec::new()));
            g.1.push(e.file);
        }
        let o = self.ctx.table.options().clone();
        let sizing = SplitSizing {
            target_size: o.source_split_target_size.bytes(),
            open_file_cost: o.source_split_open_file_cost.bytes(),
        };
        let pk = self.ctx.table.schema().has_primary_key();
        let dv_or_first_row = o.deletion_vectors_enabled
            || o.merge_engine == crate::spec::options::MergeEngine::FirstRow;
        let key_types: Vec<_> = if pk {
            let schema = self.ctx.table.schema();
            schema
                .fields_of(&schema.trimmed_primary_keys())?
                .into_iter()
                .map(|f| f.data_type)
                .collect()
        } else {
            Vec::new()
        };
        let mut out = Vec::new();
        for ((partition, bucket), (total_buckets, files)) in groups {
            let values = self.partition(&partition)?.values.clone();
            let bucket_path = self.bucket_path(&values, bucket)?;
            let partition_values = self
                .partition_fields
                .iter()
                .zip(&values)
                .map(|(f, v)| {
                    let s = v.as_ref().map(|d| {
                        partition_value_string(
                            Some(d),
                            &f.data_type,
                            &o.partition_default_name,
                            false,
                        )
                    });
                    (f.name.clone(), s)
                })
                .collect::<Vec<_>>();
            let packed: Vec<(Vec<_>, bool)> = if pk {
                primary_key_splits(files, &key_types, dv_or_first_row, sizing)
            } else {
                append_splits(files, sizing)
                    .into_iter()
                    .map(|b| (b, true))
                    .collect()
            };
            for (files, raw_convertible) in packed {
                let deletion_files = files
                    .iter()
                    .map(|f| {
                        dvs.get(&(partition.clone(), bucket, f.file_name.clone()))
                            .cloned()
                    })
                    .collect();
                out.push(Split::Data(DataSplit {
                    snapshot_id: snapshot.id,
                    partition: partition.clone(),
                    partition_values: partition_values.clone(),
                    bucket,
                    total_buckets,
                    bucket_path: bucket_path.clone(),
                    files,
                    deletion_files,
                    raw_convertible,
                    row_ranges: None,
                }));
            }
        }
        Ok(out)
    }
}

/// `keep` counting the rows it rejects into `skipped`.
fn counting(
    skipped: Arc<AtomicU64>,
    keep: impl Fn(&EntryHead<'_>) -> bool + Send + Sync + 'static,
) -> EntryFilter {
    Arc::new(move |h| {
        let k = keep(h);
        if !k {
            skipped.fetch_add(1, Ordering::Relaxed);
        }
        k
    })
}

/// Decodes `metas` with at most `n` manifests in flight, in manifest order, rows filtered by
/// `filter` while decoding.
fn read_manifests(
    reader: &ManifestReader,
    metas: Vec<ManifestFileMeta>,
    filter: Option<EntryFilter>,
    n: usize,
) -> impl futures::Stream<Item = Result<Vec<ManifestEntry>>> + '_ {
    stream::iter(metas)
        .map(move |m| {
            let filter = filter.clone();
            async move { reader.manifest_filtered(&m.file_name, filter).await }
        })
        .buffered(n)
}
