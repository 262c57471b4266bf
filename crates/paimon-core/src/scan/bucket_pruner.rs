//! Inferred bucket pruning of manifest entries during planning.
//!
//! Mirrors paimon-cpp `FileStoreScan::FilterManifestEntry` step 4 and `HasCompatibleBucketKeys`
//! (Java applies `BucketSelector` in `AbstractFileStoreScan` without the schema check). An
//! entry is tested only when its `_TOTAL_BUCKETS` is positive and its file's schema has the same
//! ordered bucket-key field ids, types and bucket function as the current schema (cached per
//! schema id); it is then dropped when its bucket is not in the selector's set for its
//! partition and its own total bucket count. Everything else is kept (pruning fails open).

use std::collections::HashMap;

use crate::bucket::BucketSelector;
use crate::catalog::SnapshotManager;
use crate::spec::manifest::ManifestEntry;
use crate::spec::Datum;

use super::context::ScanContext;

/// Per-scan state of inferred bucket pruning.
#[derive(Debug)]
pub(crate) struct BucketPruner {
    selector: BucketSelector,
    current_schema_id: i64,
    compatible: HashMap<i64, bool>,
    /// The last schema id checked and its answer (entries of one schema come in a row).
    last_compatible: Option<(i64, bool)>,
}

impl BucketPruner {
    /// The pruner of `ctx`, or `None` when inference does not apply: an explicit bucket filter
    /// (it takes precedence), no predicate, a dynamic or bucket-unaware table, no bucket keys,
    /// or key types/function the selector refuses (a deviation from paimon-cpp, which fails
    /// the scan; here the scan plans as without pruning).
    pub(crate) fn new(ctx: &ScanContext) -> Option<Self> {
        if ctx.filter.bucket_filter.is_some() {
            return None;
        }
        let schema = ctx.table.schema();
        match BucketSelector::for_table(schema, ctx.table.options(), ctx.predicate.as_ref()) {
            Ok(Some(selector)) => Some(BucketPruner {
                selector,
                current_schema_id: schema.id,
                compatible: HashMap::from([(schema.id, true)]),
                last_compatible: None,
            }),
            Ok(None) => None,
            Err(e) => {
                tracing::debug!(error = %e, "inferred bucket pruning disabled");
                None
            }
        }
    }

    /// The selector.
    pub(crate) fn selector(&self) -> &BucketSelector {
        &self.selector
    }

    /// The current schema id.
    pub(crate) fn current_schema_id(&self) -> i64 {
        self.current_schema_id
    }

    /// Whether `e` (in the partition with `values`) may hold matching rows.
    pub(crate) async fn keep(
        &mut self,
        e: &ManifestEntry,
        values: &[Option<Datum>],
        sm: &SnapshotManager,
    ) -> bool {
        if e.total_buckets <= 0 || !self.compatible(e.file.schema_id, sm).await {
            return true;
        }
        match self.selector.select(&e.partition, values, e.total_buckets) {
            Some(set) => set.contains(&e.bucket),
            None => true,
        }
    }

    async fn compatible(&mut self, schema_id: i64, sm: &SnapshotManager) -> bool {
        if let Some((id, c)) = self.last_compatible {
            if id == schema_id {
                return c;
            }
        }
        if let Some(&c) = self.compatible.get(&schema_id) {
            self.last_compatible = Some((schema_id, c));
            return c;
        }
        // An unreadable schema keeps its files.
        let c = match sm.schema(schema_id).await {
            Ok(s) => self.selector.compatible_with(&s),
            Err(e) => {
                tracing::debug!(schema_id, error = %e, "bucket pruning: schema unreadable");
                false
            }
        };
        self.compatible.insert(schema_id, c);
        self.last_compatible = Some((schema_id, c));
        c
    }
}
