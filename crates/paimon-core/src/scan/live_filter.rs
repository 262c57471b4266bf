//! The filters on netted live entries (after ADD/DELETE netting, on the live-entry cache's
//! entries too): level rules, inferred bucket, value stats (append tables), key stats
//! (primary-key tables) and embedded file indexes. Each fails open: an undecodable stat or index
//! keeps the file.

use std::borrow::Borrow;
use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock};

use super::entry_cache::CachedEntries;
use super::file_index;
use super::file_stats::{self, DecodedStats};
use super::table_scan::Planner;
use crate::expr::{eval_stats, BoundPredicate, Prune};
use crate::spec::manifest::ManifestEntry;
use crate::spec::types::DataField;
use crate::Result;

impl Planner<'_> {
    /// Level-0 files are skipped by batch scans of primary-key tables that ask so (deletion
    /// vectors, first-row).
    fn skip_level0(&self) -> bool {
        self.ctx.table.schema().has_primary_key()
            && self.ctx.table.options().batch_scan_skip_level0()
    }

    /// The per-entry request filters on cached live entries, then the live-entry filters;
    /// only the entries left are cloned (a point lookup keeps one file of a bucket's many).
    /// Key stats are decoded once per cached snapshot (and current schema) and kept beside the
    /// cached entries.
    pub(super) async fn filter_entries(
        &mut self,
        cached: &CachedEntries,
    ) -> Result<Vec<ManifestEntry>> {
        let entries = cached.entries();
        let key_pred = self.key_stats_predicate();
        let slots = key_pred
            .is_some()
            .then(|| cached.key_stats_slots(self.ctx.table.schema().id));
        let mut kept = Vec::new();
        let mut kept_slots = Vec::new();
        for (i, e) in entries.iter().enumerate() {
            if self.keep_entry(e)? {
                kept.push(e);
                if let Some(slot) = slots.as_ref().and_then(|s| s.get(i)) {
                    kept_slots.push(slot);
                }
            }
        }
        self.metrics.live_files = kept.len() as u64;
        let memo = (slots.is_some() && kept_slots.len() == kept.len()).then_some(&kept_slots[..]);
        let left = self.filter_live_with(kept, key_pred, memo).await?;
        Ok(left.into_iter().cloned().collect())
    }

    /// The live-entry filters of an uncached plan.
    pub(super) async fn filter_live(
        &mut self,
        live: Vec<ManifestEntry>,
    ) -> Result<Vec<ManifestEntry>> {
        let key_pred = self.key_stats_predicate();
        self.filter_live_with(live, key_pred, None).await
    }

    /// The live-entry filters, with [`Self::key_stats_predicate`] as `key_pred`; `key_slots`,
    /// when given, holds one memo slot per entry of `live` for its decoded key stats.
    async fn filter_live_with<E: Borrow<ManifestEntry>>(
        &mut self,
        live: Vec<E>,
        key_pred: Option<BoundPredicate>,
        key_slots: Option<&[&OnceLock<DecodedStats>]>,
    ) -> Result<Vec<E>> {
        let schema = self.ctx.table.schema().clone();
        let skip_level0 = self.skip_level0();
        let stats_pred = match &self.ctx.predicate {
            Some(p) if !schema.has_primary_key() => Some(p.clone()),
            _ => None,
        };
        let index_pred = self.file_index_predicate();
        let sm = self.ctx.table.snapshot_manager().clone();
        let mut out = Vec::with_capacity(live.len());
        for (i, item) in live.into_iter().enumerate() {
            let e: &ManifestEntry = item.borrow();
            // Postpone-bucket files (bucket -2) wait for a postpone compaction: Java's batch
            // scan reads real buckets only (`AbstractBatchTableScan` → `onlyReadRealBuckets`,
            // also with `postpone.merge-on-read`, which engines implement by routing the rows
            // themselves); their rows are unsorted, so no merge could read them anyway.
            if (skip_level0 && e.file.level == 0) || e.bucket < 0 {
                self.metrics.files_skipped_by_level += 1;
                continue;
            }
            if !self.keep_inferred_bucket(e).await? {
                self.metrics.files_skipped_by_bucket += 1;
                continue;
            }
            if let Some(pred) = &stats_pred {
                let file_schema = sm.schema(e.file.schema_id).await?;
                let stats = file_stats::for_data_file(&e.file, &file_schema.fields, &schema.fields);
                // Pruning fails open: an evaluation error keeps the file.
                if matches!(eval_stats(pred, &stats), Ok(Prune::CannotMatch)) {
                    self.metrics.files_skipped_by_stats += 1;
                    continue;
                }
            }
            if let Some(pred) = &key_pred {
                let slot = key_slots.and_then(|s| s.get(i));
                let decoded;
                let stats = match slot.and_then(|s| s.get()) {
                    Some(stats) => stats,
                    None => {
                        let keys = self.key_fields_of(e.file.schema_id).await?;
                        let fresh = file_stats::for_key_stats(
                            &e.file,
                            keys.as_ref().map(|k| k.as_slice()),
                            &schema.fields,
                        );
                        match slot {
                            Some(s) => s.get_or_init(|| fresh),
                            None => {
                                decoded = fresh;
                                &decoded
                            }
                        }
                    }
                };
                // A file whose key range excludes every matching key holds no version of any
                // matching key (Java `KeyValueFileStoreScan` key filter); fails open.
                if matches!(eval_stats(pred, stats), Ok(Prune::CannotMatch)) {
                    self.metrics.files_skipped_by_stats += 1;
                    continue;
                }
            }
            if let (Some(pred), Some(_)) = (&index_pred, &e.file.embedded_index) {
                let file_schema = sm.schema(e.file.schema_id).await?;
                let m = &mut self.metrics.file_index;
                if !file_index::keep_by_embedded_index(&e.file, pred, &file_schema.fields, m) {
                    continue;
                }
            }
            out.push(item);
        }
        Ok(out)
    }

    /// The trimmed primary-key fields of files written with schema `schema_id` (`None`: that
    /// schema lacks one of its keys), derived once per scan and schema.
    async fn key_fields_of(&mut self, schema_id: i64) -> Result<Option<Arc<Vec<DataField>>>> {
        if let Some(k) = self.key_fields.get(&schema_id) {
            return Ok(k.clone());
        }
        let file_schema = self.ctx.table.snapshot_manager().schema(schema_id).await?;
        let k = file_stats::key_fields(&file_schema).map(Arc::new);
        self.key_fields.insert(schema_id, k.clone());
        Ok(k)
    }

    /// The conjuncts of the predicate on trimmed primary-key columns only, for a primary-key
    /// table: evaluated on each file's key stats (every version of a key lies in a file whose
    /// key range holds it, so pruning by key never changes a merge's result).
    fn key_stats_predicate(&self) -> Option<BoundPredicate> {
        let schema = self.ctx.table.schema();
        if !schema.has_primary_key() {
            return None;
        }
        let keys: BTreeSet<i32> = schema
            .fields_of(&schema.trimmed_primary_keys())
            .ok()?
            .iter()
            .map(|f| f.id)
            .collect();
        let conjuncts = self
            .ctx
            .predicate
            .iter()
            .flat_map(BoundPredicate::split_and)
            .filter(|c| c.references_only(&keys));
        match BoundPredicate::and_all(conjuncts) {
            BoundPredicate::AlwaysTrue => None,
            p => Some(p),
        }
    }

    /// The predicate embedded file indexes are evaluated with, if any: append tables whenever
    /// `file-index.read.enabled`; primary-key tables only with deletion vectors and a batch scan
    /// that skips level 0 (one live row per key among the files read, as Java requires).
    fn file_index_predicate(&self) -> Option<BoundPredicate> {
        let o = self.ctx.table.options();
        let pk = self.ctx.table.schema().has_primary_key();
        if !o.file_index_read_enabled || (pk && !(o.deletion_vectors_enabled && self.skip_level0()))
        {
            return None;
        }
        self.ctx.predicate.clone()
    }

    /// Inferred bucket pruning of one live entry (kept when no pruner applies).
    async fn keep_inferred_bucket(&mut self, e: &ManifestEntry) -> Result<bool> {
        if self.bucket_pruner.is_none() {
            return Ok(true);
        }
        let info = self.partition(&e.partition)?;
        let Some(pruner) = self.bucket_pruner.as_mut() else {
            return Ok(true);
        };
        Ok(pruner
            .keep(e, &info.values, self.ctx.table.snapshot_manager())
            .await)
    }
}
