//! The iteration order of Java `java.util.HashMap`, which decides where Java's file-index
//! writers put columns, index types and bitmaps (`FileIndexFormat.Writer`,
//! `DataFileIndexWriter`, `BitmapFileIndex.Writer` all iterate `HashMap`s, Paimon 2.0).
//!
//! [`JavaHashMap`] replays the insertions into a `HashMap` created with the default capacity
//! (16, load factor 0.75) and yields its iteration order: slot by slot, a slot being
//! `spread(h) & (capacity - 1)` with `spread(h) = h ^ (h >>> 16)`; within a slot `put` appends
//! while `computeIfAbsent` prepends the new key (`tab[i] = newNode(hash, key, v, first)`);
//! `put` resizes after an insertion that passes the threshold, `computeIfAbsent` before any
//! call made while past it; a resize splits each slot's list without reordering it.
//!
//! Divergences: a slot holding more than 8 keys in a table of 64 slots or more becomes a tree
//! whose iteration order can differ (9 colliding keys; not modelled). Where Java builds a map
//! by iterating another one keyed by all table options (`FileIndexOptions`), the insertion
//! order is approximated by option key order; it only matters for colliding column names.

use super::key::{Key, KeyType};

/// A replay of a Java `HashMap`'s insertions (ids and their Java hash codes).
#[derive(Debug, Clone)]
pub struct JavaHashMap {
    capacity: usize,
    size: usize,
    /// Per slot, (id, hash) in list order.
    slots: Vec<Vec<(usize, i32)>>,
}

impl Default for JavaHashMap {
    fn default() -> Self {
        JavaHashMap {
            capacity: 16,
            size: 0,
            slots: vec![Vec::new(); 16],
        }
    }
}

impl JavaHashMap {
    fn slot(&self, h: i32) -> usize {
        let h = h as u32;
        ((h ^ (h >> 16)) as usize) & (self.capacity - 1)
    }

    fn resize(&mut self) {
        self.capacity *= 2;
        let old = std::mem::replace(&mut self.slots, vec![Vec::new(); self.capacity]);
        for (id, h) in old.into_iter().flatten() {
            let i = self.slot(h);
            if let Some(s) = self.slots.get_mut(i) {
                s.push((id, h));
            }
        }
    }

    fn past_threshold(&self) -> bool {
        self.size > self.capacity / 4 * 3
    }

    /// `put` of a key not yet in the map.
    pub fn put_new(&mut self, id: usize, hash: i32) {
        let i = self.slot(hash);
        let mut before = 0;
        if let Some(s) = self.slots.get_mut(i) {
            before = s.len();
            s.push((id, hash));
        }
        // `treeifyBin` on a small table resizes instead.
        if before >= 8 && self.capacity < 64 {
            self.resize();
        }
        self.size += 1;
        if self.past_threshold() {
            self.resize();
        }
    }

    /// `computeIfAbsent`: `new` is the key when absent, `None` when already present.
    pub fn compute_if_absent(&mut self, new: Option<(usize, i32)>) {
        if self.past_threshold() {
            self.resize();
        }
        if let Some((id, hash)) = new {
            let i = self.slot(hash);
            let mut before = 0;
            if let Some(s) = self.slots.get_mut(i) {
                before = s.len();
                s.insert(0, (id, hash));
            }
            if before >= 7 && self.capacity < 64 {
                self.resize();
            }
            self.size += 1;
        }
    }

    /// The ids in iteration order.
    pub fn order(&self) -> Vec<usize> {
        self.slots.iter().flatten().map(|(id, _)| *id).collect()
    }
}

/// The iteration order of a map filled by `put` of keys with `hashes` (in that order).
pub fn hash_map_order(hashes: &[i32]) -> Vec<usize> {
    let mut m = JavaHashMap::default();
    hashes
        .iter()
        .enumerate()
        .for_each(|(i, &h)| m.put_new(i, h));
    m.order()
}

/// The iteration order of a map filled by `computeIfAbsent` of new keys with `hashes`.
pub fn compute_order(hashes: &[i32]) -> Vec<usize> {
    let mut m = JavaHashMap::default();
    hashes
        .iter()
        .enumerate()
        .for_each(|(i, &h)| m.compute_if_absent(Some((i, h))));
    m.order()
}

/// Java `String#hashCode` (over UTF-16 code units).
pub fn string_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// Java `Arrays.hashCode(new Object[] {name, null, false})`: the hash of a top-level
/// `FileIndexOptions.Column`.
pub fn column_option_hash(name: &str) -> i32 {
    let h = 31i32.wrapping_add(string_hash(name));
    let h = h.wrapping_mul(31); // null nested name
    h.wrapping_mul(31).wrapping_add(1237) // Boolean.FALSE
}

/// Java `MurmurHashUtils#hashBytes` (seed 42): little-endian words, then each tail byte
/// (sign-extended) mixed on its own. The hash code of a `BinaryString`.
pub fn binary_string_hash(bytes: &[u8]) -> i32 {
    const C1: u32 = 0xcc9e_2d51;
    const C2: u32 = 0x1b87_3593;
    let mix_k1 = |k: u32| k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
    let mix_h1 = |h: u32, k: u32| {
        (h ^ k)
            .rotate_left(13)
            .wrapping_mul(5)
            .wrapping_add(0xe654_6b64)
    };
    let mut h = 42u32;
    let mut words = bytes.chunks_exact(4);
    for w in &mut words {
        let mut word = [0u8; 4];
        word.copy_from_slice(w);
        h = mix_h1(h, mix_k1(u32::from_le_bytes(word)));
    }
    for &b in words.remainder() {
        h = mix_h1(h, mix_k1(i32::from(b as i8) as u32));
    }
    h ^= bytes.len() as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    (h ^ (h >> 16)) as i32
}

/// The Java hash code of the boxed value Java's bitmap writer keys a map with: `Boolean`,
/// `Byte`, `Short`, `Integer` (also DATE, TIME), `Long` (BIGINT, timestamps mapped to
/// millis/micros), `Float`, `Double` (`floatToIntBits` / `doubleToLongBits`), `BinaryString`.
pub fn key_hash(key: &Key, key_type: KeyType) -> i32 {
    let long_hash = |v: i64| (v ^ ((v as u64) >> 32) as i64) as i32;
    match key {
        Key::Bool(b) => {
            if *b {
                1231
            } else {
                1237
            }
        }
        Key::Long(v) => match key_type {
            KeyType::I64 => long_hash(*v),
            _ => *v as i32,
        },
        Key::Float(f) => super::key::canonical_f32(*f).to_bits() as i32,
        Key::Double(f) => long_hash(super::key::canonical_f64(*f).to_bits() as i64),
        Key::Bytes(b) => binary_string_hash(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_hashes_match_java() {
        // Java: "f0".hashCode() = 3210, "bitmap".hashCode() = -1388777169.
        assert_eq!(string_hash("f0"), 3210);
        assert_eq!(string_hash("bitmap"), -1_388_777_169);
        assert_eq!(string_hash(""), 0);
    }

    #[test]
    fn order_follows_slots_then_insertion() {
        // Integers 20, 10 land in slots 4 and 10 of a 16-slot table: 20 first.
        assert_eq!(hash_map_order(&[10, 20]), vec![1, 0]);
        assert_eq!(hash_map_order(&[20, 10]), vec![0, 1]);
        // 16 and 0 share slot 0: insertion order.
        assert_eq!(hash_map_order(&[16, 0]), vec![0, 1]);
        // 13 keys resize to 32 slots: 16 moves after 15.
        let keys: Vec<i32> = (4..17).collect();
        let order = hash_map_order(&keys);
        assert_eq!(order.last(), Some(&12));
        assert_eq!(hash_map_order(&[-1]), vec![0]);
        // computeIfAbsent prepends within a slot.
        assert_eq!(compute_order(&[16, 0]), vec![1, 0]);
        // ... and resizes only at the next call once past the threshold.
        let mut m = JavaHashMap::default();
        let h = |i: usize| (i % 6 + 16 * (i / 6)) as i32;
        (0..13).for_each(|i| m.compute_if_absent(Some((i, h(i)))));
        assert_eq!(m.order(), vec![12, 6, 0, 7, 1, 8, 2, 9, 3, 10, 4, 11, 5]);
        m.compute_if_absent(None);
        assert_eq!(m.order(), vec![12, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
        // Eight keys in one slot of a small table resize it (treeifyBin).
        let mut m = JavaHashMap::default();
        (0..8).for_each(|i| m.compute_if_absent(Some((i, i as i32 * 64))));
        assert_eq!(m.capacity, 32);
    }

    #[test]
    fn boxed_hashes() {
        assert_eq!(key_hash(&Key::Long(-1), KeyType::I64), 0);
        assert_eq!(key_hash(&Key::Long(-1), KeyType::I32), -1);
        assert_eq!(key_hash(&Key::Long(1 << 32), KeyType::I64), 1);
        assert_eq!(key_hash(&Key::Bool(true), KeyType::Bool), 1231);
        assert_eq!(key_hash(&Key::Double(1.0), KeyType::F64), 1_072_693_248);
    }
}
