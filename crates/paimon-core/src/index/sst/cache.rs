//! A small shared cache of decoded blocks, keyed by (file, offset), evicting the least
//! recently used blocks past a byte budget (the role of Java `org.apache.paimon.sst.BlockCache`
//! over `org.apache.paimon.io.cache.CacheManager`).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use super::Block;

type Key = (Arc<str>, u64);

#[derive(Debug, Default)]
struct State {
    blocks: HashMap<Key, (Arc<Block>, u64)>,
    by_use: BTreeMap<u64, Key>,
    tick: u64,
    bytes: usize,
    hits: u64,
    misses: u64,
}

/// A cloneable handle to one shared block cache.
#[derive(Debug, Clone)]
pub struct BlockCache {
    capacity: usize,
    state: Arc<Mutex<State>>,
}

impl BlockCache {
    /// A cache holding at most `capacity_bytes` of uncompressed blocks (0 disables caching).
    pub fn new(capacity_bytes: usize) -> Self {
        BlockCache {
            capacity: capacity_bytes,
            state: Arc::new(Mutex::new(State::default())),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave the maps inconsistent in a way that
        // matters for a cache; keep serving.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The cached block of `file` at `offset`.
    pub fn get(&self, file: &Arc<str>, offset: u64) -> Option<Arc<Block>> {
        let mut s = self.lock();
        let key = (file.clone(), offset);
        s.tick += 1;
        let tick = s.tick;
        let found = s.blocks.get_mut(&key).map(|(b, used)| {
            let old = std::mem::replace(used, tick);
            (b.clone(), old)
        });
        match found {
            Some((block, old)) => {
                s.by_use.remove(&old);
                s.by_use.insert(tick, key);
                s.hits += 1;
                Some(block)
            }
            None => {
                s.misses += 1;
                None
            }
        }
    }

    /// Caches `block`, evicting least recently used blocks beyond the budget.
    pub fn insert(&self, file: &Arc<str>, offset: u64, block: Arc<Block>) {
        let size = block.size_bytes();
        if size > self.capacity {
            return;
        }
        let mut s = self.lock();
        s.tick += 1;
        let tick = s.tick;
        let key = (file.clone(), offset);
        if let Some((old, used)) = s.blocks.insert(key.clone(), (block, tick)) {
            s.by_use.remove(&used);
            s.bytes -= old.size_bytes();
        }
        s.by_use.insert(tick, key);
        s.bytes += size;
        while s.bytes > self.capacity {
            let Some((_, victim)) = s.by_use.pop_first() else {
                break;
            };
            if let Some((b, _)) = s.blocks.remove(&victim) {
                s.bytes -= b.size_bytes();
            }
        }
    }

    /// (hits, misses, cached bytes, cached blocks).
    pub fn stats(&self) -> (u64, u64, usize, usize) {
        let s = self.lock();
        (s.hits, s.misses, s.bytes, s.blocks.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    fn block(n: usize) -> Arc<Block> {
        let mut v = vec![0u8; n];
        v.extend_from_slice(&[0, 0, 0, 0, 1]);
        Arc::new(Block::parse(Bytes::from(v)).unwrap())
    }

    #[test]
    fn evicts_least_recently_used() {
        let c = BlockCache::new(100);
        let f: Arc<str> = Arc::from("f");
        c.insert(&f, 0, block(35));
        c.insert(&f, 1, block(35));
        assert!(c.get(&f, 0).is_some());
        c.insert(&f, 2, block(35));
        assert!(c.get(&f, 1).is_none(), "1 was least recently used");
        assert!(c.get(&f, 0).is_some());
        assert!(c.get(&f, 2).is_some());
        assert!(c.get(&Arc::from("g"), 0).is_none());
        c.insert(&f, 3, block(500));
        assert!(c.get(&f, 3).is_none(), "larger than the whole cache");
        let (hits, misses, bytes, blocks) = c.stats();
        assert_eq!((hits, misses, bytes, blocks), (3, 3, 80, 2));
    }
}
