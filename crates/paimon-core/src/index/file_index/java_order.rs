//! The iteration order of Java `java.util.HashMap`, which decides where Java's file-index
//! writers put columns, index types and bitmaps (`FileIndexFormat.Writer`,
//! `DataFileIndexWriter`, `BitmapFileIndex.Writer` all iterate `HashMap`s, Paimon 2.0).
//!
//! A `HashMap` created with the default capacity (16, load factor 0.75) and filled with `n`
//! keys ends with the smallest power-of-two table of at least 16 slots holding `n` under the
//! load factor. It iterates slot by slot; a slot is `spread(h) & (capacity - 1)` with
//! `spread(h) = h ^ (h >>> 16)`, and keys sharing a slot come in insertion order (resizing
//! splits a slot's list without reordering it).
//!
//! Divergence: a slot holding more than 8 keys in a table of 64 slots or more becomes a tree
//! whose iteration order can differ; that takes 9 colliding keys and is not modelled.

use super::key::{Key, KeyType};

/// The positions of keys with Java hash codes `hashes` (in insertion order) in the iteration
/// order of a `HashMap` holding them.
pub fn hash_map_order(hashes: &[i32]) -> Vec<usize> {
    let mut capacity = 16usize;
    while hashes.len() > capacity / 4 * 3 {
        capacity *= 2;
    }
    let slot = |h: i32| {
        let h = h as u32;
        ((h ^ (h >> 16)) as usize) & (capacity - 1)
    };
    let mut order: Vec<usize> = (0..hashes.len()).collect();
    // Stable: keys of one slot keep their insertion order.
    order.sort_by_key(|&i| hashes.get(i).map_or(0, |&h| slot(h)));
    order
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
