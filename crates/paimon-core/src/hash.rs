//! MurmurHash3 x86_32 as Paimon uses it for `BinaryRow.hashCode` and the default bucket function.
//!
//! Mirrors Java `org.apache.paimon.utils.MurmurHashUtils#hashBytesByWords` (Paimon 2.0): the input
//! is read as little-endian 4-byte words, each mixed into the state, then `h ^= len` and the
//! standard `fmix32` finalisation. Paimon only calls it on BinaryRow bytes, whose length is a
//! multiple of 8, so there is never a tail there.
//!
//! Divergence: Java asserts `len % 4 == 0` and has no tail rule for this method. For other lengths
//! this function processes the trailing 1–3 bytes like standard MurmurHash3 (little-endian partial
//! word, mixed with `k1` but without the `h1` rotation step), so it equals the reference
//! `MurmurHash3_x86_32` for every input length.

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

const C1: u32 = 0xcc9e_2d51;
const C2: u32 = 0x1b87_3593;

/// Paimon's default hash seed (`MurmurHashUtils.DEFAULT_SEED`).
pub const DEFAULT_SEED: i32 = 42;

fn mix_k1(k1: u32) -> u32 {
    k1.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2)
}

fn mix_h1(h1: u32, k1: u32) -> u32 {
    (h1 ^ k1)
        .rotate_left(13)
        .wrapping_mul(5)
        .wrapping_add(0xe654_6b64)
}

fn fmix(mut h: u32, len: u32) -> u32 {
    h ^= len;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// MurmurHash3 x86_32 of `data` with `seed`, as a Java `int`.
///
/// Equals Java `MurmurHashUtils.hashBytesByWords` when `data.len()` is a multiple of 4 (always the
/// case for BinaryRow bytes); other lengths are hashed with the standard MurmurHash3 tail rule.
pub fn murmur3_32_words(data: &[u8], seed: i32) -> i32 {
    let mut h1 = seed as u32;
    let mut words = data.chunks_exact(4);
    for w in &mut words {
        let mut word = [0u8; 4];
        word.copy_from_slice(w);
        let word = u32::from_le_bytes(word);
        h1 = mix_h1(h1, mix_k1(word));
    }
    let tail = words.remainder();
    if !tail.is_empty() {
        let mut k1 = 0u32;
        for (i, b) in tail.iter().enumerate() {
            k1 |= u32::from(*b) << (8 * i);
        }
        h1 ^= mix_k1(k1);
    }
    // Java passes the length as an int; lengths above i32::MAX do not occur for rows.
    fmix(h1, data.len() as u32) as i32
}

/// A hash map with the fast, fixed-seed XxHash64 instead of SipHash, for the planner's
/// per-scan caches keyed by partition bytes (looked up once or more per live manifest entry).
/// The keys come from the table's own metadata, so hash-flooding resistance buys nothing there.
pub(crate) type FastHashMap<K, V> =
    std::collections::HashMap<K, V, std::hash::BuildHasherDefault<twox_hash::XxHash64>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_vectors() {
        // Standard MurmurHash3_x86_32 test vectors (seed 0 / other seeds).
        assert_eq!(murmur3_32_words(b"", 0), 0);
        assert_eq!(murmur3_32_words(b"", 1) as u32, 0x514e_28b7);
        assert_eq!(murmur3_32_words(&[0, 0, 0, 0], 0) as u32, 0x2362_f9de);
        assert_eq!(murmur3_32_words(b"test", 0) as u32, 0xba6b_d213);
        assert_eq!(murmur3_32_words(b"Hello, world!", 1234) as u32, 0xfaf6_cdb3);
        assert_eq!(
            murmur3_32_words(
                b"The quick brown fox jumps over the lazy dog",
                0x9747_b28c_u32 as i32
            ) as u32,
            0x2fa8_26cd
        );
    }

    #[test]
    fn single_field_zero_row_matches_java_golden() {
        // A one-field BinaryRow holding FLOAT 0.0 or DOUBLE 0.0 is 16 zero bytes; Java hashes it to
        // -300363099 (paimon-cpp default_bucket_function_test, "verified with Java").
        assert_eq!(murmur3_32_words(&[0u8; 16], DEFAULT_SEED), -300_363_099);
    }
}
