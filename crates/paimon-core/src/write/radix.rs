//! A stable LSD radix sort of (key, payload) pairs by an unsigned 64-bit key: the buffer's
//! integer-key sort ([`super::kv_merge`]), where pairs arrive in row order, so a stable sort
//! by key alone gives (key, row) order. Byte positions where every key holds the same byte
//! are skipped (a bucket's keys rarely use all eight), so a sort of N pairs costs a few linear
//! passes instead of N log N comparisons.

/// Sorts `pairs` by key, stably.
pub(crate) fn sort_by_key(pairs: &mut Vec<(u64, u32)>) {
    const SMALL: usize = 256;
    if pairs.len() <= SMALL {
        pairs.sort_by_key(|p| p.0);
        return;
    }
    let mut counts = [[0usize; 256]; 8];
    for (k, _) in pairs.iter() {
        for (d, c) in counts.iter_mut().enumerate() {
            c[((k >> (8 * d)) & 0xff) as usize] += 1;
        }
    }
    let n = pairs.len();
    let mut scratch: Vec<(u64, u32)> = vec![(0, 0); n];
    for (d, count) in counts.iter().enumerate() {
        // Every key has the same byte here: this pass would not move anything.
        if count.contains(&n) {
            continue;
        }
        let mut offsets = [0usize; 256];
        let mut sum = 0;
        for (o, &c) in offsets.iter_mut().zip(count.iter()) {
            *o = sum;
            sum += c;
        }
        for &p in pairs.iter() {
            // The byte indexes the 256 offsets; each offset stays below n (the counts).
            let o = &mut offsets[((p.0 >> (8 * d)) & 0xff) as usize];
            if let Some(slot) = scratch.get_mut(*o) {
                *slot = p;
            }
            *o += 1;
        }
        std::mem::swap(pairs, &mut scratch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_stably_as_a_comparison_sort() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for (n, mask) in [
            (0usize, u64::MAX),
            (10, u64::MAX),
            (300, 0xff),
            (5000, u64::MAX),
            (5000, 0x3f_ffff),
            (5000, 0xf0f0_0000_0000_0f0f),
            (20_000, 0x7),
        ] {
            let pairs: Vec<(u64, u32)> = (0..n).map(|i| (next() & mask, i as u32)).collect();
            let mut want = pairs.clone();
            want.sort_by_key(|p| p.0);
            let mut got = pairs;
            sort_by_key(&mut got);
            assert_eq!(got, want, "n {n} mask {mask:x}");
        }
    }
}
