//! Snapshot live-manifest-entry cache: the merged live entries of one bucket, reused across
//! scans.
//!
//! Mirrors paimon-cpp's `SnapshotLiveManifestEntries` and the `SNAPSHOT_LIVE_MANIFEST` cache
//! kind (`file_store_scan.cpp`, `manifest_entry_cache.rst`); Java has no equivalent. A value holds,
//! per snapshot, the entries left after ADD/DELETE netting **before** any request filter, so
//! partition, level and stats filters still run on every scan. Keys:
//! - explicit bucket: (table, branch, bucket) — only entries of that bucket;
//! - inferred bucket: (table, branch, bucket, current bucket count, current schema id) — entries
//!   of that bucket plus every entry with another total bucket count or schema id, which the
//!   per-entry selector filters after lookup.
//!
//! A hit needs the snapshot id **and** its delta manifest list name to match, so a rollback or a
//! re-created table never serves stale entries. Each key keeps at most `max_snapshots`
//! snapshots, the lowest ids evicted first. Clones share one map behind a mutex.
//!
//! Beside the entries, a cached snapshot keeps their decoded `_KEY_STATS` ([`KeyStatsMemo`]),
//! each decoded at the first scan that needs it: a warm point lookup then only evaluates the
//! key predicate on every entry of its bucket instead of decoding two binary rows per entry.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use super::file_stats::DecodedStats;
use crate::spec::manifest::ManifestEntry;

/// Identifies the cached candidates of one bucket of one table branch.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EntryCacheKey {
    /// Table location.
    pub table: String,
    /// Branch (normalised; `main` by default).
    pub branch: String,
    /// The bucket the entries were collected for.
    pub bucket: i32,
    /// For an inferred bucket: the current total bucket count and schema id the candidates were
    /// collected against; `None` for an explicit bucket.
    pub inferred: Option<(i32, i64)>,
}

/// Entries of one snapshot.
#[derive(Debug, Clone)]
struct CachedSnapshot {
    snapshot_id: i64,
    delta_manifest_list: String,
    entries: CachedEntries,
}

/// The live entries cached for one snapshot of one bucket, with what scans derived from them.
#[derive(Debug, Clone)]
pub struct CachedEntries {
    entries: Arc<Vec<ManifestEntry>>,
    key_stats: Arc<KeyStatsMemo>,
}

impl CachedEntries {
    fn new(entries: Arc<Vec<ManifestEntry>>) -> Self {
        CachedEntries {
            entries,
            key_stats: Arc::new(KeyStatsMemo::default()),
        }
    }

    /// The netted live entries.
    pub fn entries(&self) -> &Arc<Vec<ManifestEntry>> {
        &self.entries
    }

    /// One slot per entry (same order) for its key stats as seen by the current schema
    /// `schema_id`; the slots start empty and are reset when the current schema changes.
    pub(crate) fn key_stats_slots(&self, schema_id: i64) -> KeyStatsSlots {
        self.key_stats.slots(schema_id, self.entries.len())
    }
}

/// One slot per cached entry for its decoded key stats, filled at first use.
pub(crate) type KeyStatsSlots = Arc<[OnceLock<DecodedStats>]>;

/// Decoded key stats of cached entries, for one current schema id at a time (key stats are
/// mapped to the current schema's fields by id, so another schema needs fresh slots).
#[derive(Default)]
struct KeyStatsMemo(Mutex<Option<(i64, KeyStatsSlots)>>);

impl fmt::Debug for KeyStatsMemo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("KeyStatsMemo")
    }
}

impl KeyStatsMemo {
    fn slots(&self, schema_id: i64, len: usize) -> KeyStatsSlots {
        // Each operation replaces or clones one value: a poisoned lock is still consistent.
        let mut guard = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match &*guard {
            Some((id, slots)) if *id == schema_id && slots.len() == len => slots.clone(),
            _ => {
                let slots: KeyStatsSlots = (0..len).map(|_| OnceLock::new()).collect();
                *guard = Some((schema_id, slots.clone()));
                slots
            }
        }
    }
}

/// A cache shared by scans (`Clone` shares it); pass it with
/// [`ScanContextBuilder::with_entry_cache`](super::ScanContextBuilder::with_entry_cache) and
/// enable it with `scan.manifest-entry-cache.max-snapshots` > 0.
#[derive(Clone, Default)]
pub struct ManifestEntryCache {
    inner: Arc<Mutex<HashMap<EntryCacheKey, Vec<CachedSnapshot>>>>,
}

impl fmt::Debug for ManifestEntryCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ManifestEntryCache")
            .field("keys", &self.lock().len())
            .finish()
    }
}

impl ManifestEntryCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<EntryCacheKey, Vec<CachedSnapshot>>> {
        // A panic while holding the lock cannot leave a half-written value (each operation is a
        // single insert or retain), so a poisoned map is still consistent.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The entries cached for `key` at `snapshot_id`, if its delta manifest list also matches.
    pub fn get(
        &self,
        key: &EntryCacheKey,
        snapshot_id: i64,
        delta_manifest_list: &str,
    ) -> Option<CachedEntries> {
        self.lock()
            .get(key)?
            .iter()
            .find(|s| s.snapshot_id == snapshot_id && s.delta_manifest_list == delta_manifest_list)
            .map(|s| s.entries.clone())
    }

    /// Stores `entries` for `key` at `snapshot_id`, keeping the newest `max_snapshots`
    /// snapshots of the key (0 stores nothing), and returns them as cached.
    pub fn put(
        &self,
        key: EntryCacheKey,
        snapshot_id: i64,
        delta_manifest_list: &str,
        entries: Arc<Vec<ManifestEntry>>,
        max_snapshots: usize,
    ) -> CachedEntries {
        let entries = CachedEntries::new(entries);
        if max_snapshots == 0 {
            return entries;
        }
        let mut map = self.lock();
        let list = map.entry(key).or_default();
        list.retain(|s| s.snapshot_id != snapshot_id);
        list.push(CachedSnapshot {
            snapshot_id,
            delta_manifest_list: delta_manifest_list.to_string(),
            entries: entries.clone(),
        });
        list.sort_by_key(|s| s.snapshot_id);
        let excess = list.len().saturating_sub(max_snapshots);
        list.drain(..excess);
        entries
    }

    /// Snapshot ids cached for `key`, ascending.
    pub fn snapshot_ids(&self, key: &EntryCacheKey) -> Vec<i64> {
        self.lock()
            .get(key)
            .map(|l| l.iter().map(|s| s.snapshot_id).collect())
            .unwrap_or_default()
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops everything.
    pub fn clear(&self) {
        self.lock().clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(bucket: i32) -> EntryCacheKey {
        EntryCacheKey {
            table: "/t".into(),
            branch: "main".into(),
            bucket,
            inferred: None,
        }
    }

    #[test]
    fn hit_needs_snapshot_id_and_delta_list() {
        let c = ManifestEntryCache::new();
        assert!(c.get(&key(0), 1, "d1").is_none());
        c.put(key(0), 1, "d1", Arc::new(vec![]), 2);
        assert!(c.get(&key(0), 1, "d1").is_some());
        assert!(c.get(&key(0), 1, "other").is_none(), "rollback-safe");
        assert!(c.get(&key(0), 2, "d1").is_none());
        assert!(c.get(&key(1), 1, "d1").is_none());
        let inferred = EntryCacheKey {
            inferred: Some((4, 0)),
            ..key(0)
        };
        assert!(c.get(&inferred, 1, "d1").is_none());
    }

    #[test]
    fn keeps_newest_snapshots_per_key_and_is_shared() {
        let c = ManifestEntryCache::new();
        let shared = c.clone();
        for id in [3, 1, 2] {
            c.put(key(0), id, &format!("d{id}"), Arc::new(vec![]), 2);
        }
        assert_eq!(shared.snapshot_ids(&key(0)), vec![2, 3]);
        c.put(key(0), 3, "d3-new", Arc::new(vec![]), 2);
        assert!(shared.get(&key(0), 3, "d3").is_none());
        assert!(shared.get(&key(0), 3, "d3-new").is_some());
        c.put(key(1), 1, "d1", Arc::new(vec![]), 0);
        assert_eq!(c.len(), 1, "max 0 stores nothing");
        c.clear();
        assert!(shared.is_empty());
    }

    #[test]
    fn key_stats_slots_are_shared_per_schema_and_reset_on_another() {
        let c = ManifestEntryCache::new();
        let stored = c.put(key(0), 1, "d1", Arc::new(vec![]), 2);
        let hit = c.get(&key(0), 1, "d1").expect("hit");
        assert!(Arc::ptr_eq(
            &stored.key_stats_slots(0),
            &hit.key_stats_slots(0)
        ));
        let s0 = hit.key_stats_slots(0);
        let s1 = hit.key_stats_slots(1);
        assert!(!Arc::ptr_eq(&s0, &s1), "another schema gets fresh slots");
        assert!(Arc::ptr_eq(&s1, &stored.key_stats_slots(1)));
    }
}
