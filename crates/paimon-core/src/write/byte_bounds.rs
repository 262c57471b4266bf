//! The minimum and maximum non-null value of a string or binary array in byte order (Java's
//! `BinaryString` / `byte[]` statistics order), in one pass: each value is compared by its
//! first eight bytes as a big-endian integer, and only on a tie by its bytes. arrow's
//! `min_string` / `max_string` make two passes with a `memcmp` call per value, which cost a
//! primary-key write of short strings ~2% of its time.

use arrow_array::types::ByteArrayType;
use arrow_array::{Array, GenericByteArray};

/// The value's first eight bytes, zero-padded, as a big-endian integer: values whose prefixes
/// differ compare as their prefixes do (a shorter value's padding sorts before any byte it
/// lacks, except a zero byte, which ties and falls back to the bytes).
#[inline]
fn prefix(values: &[u8], start: usize, len: usize) -> u64 {
    match values.get(start..start + 8) {
        Some(eight) => {
            let mut word = [0u8; 8];
            word.copy_from_slice(eight);
            let raw = u64::from_be_bytes(word);
            match len {
                0 => 0,
                1..=7 => raw & !(u64::MAX >> (8 * len)),
                _ => raw,
            }
        }
        None => {
            let mut word = [0u8; 8];
            let n = len.min(8);
            if let (Some(to), Some(from)) = (word.get_mut(..n), values.get(start..start + n)) {
                to.copy_from_slice(from);
            }
            u64::from_be_bytes(word)
        }
    }
}

/// Positions of the minimum and maximum non-null value of `a` (the first of equal ones);
/// `None` when every value is null.
pub(crate) fn byte_bounds<T: ByteArrayType<Offset = i32>>(
    a: &GenericByteArray<T>,
) -> Option<(usize, usize)> {
    let offsets = a.value_offsets();
    let values = a.value_data();
    let span = |i: usize| -> (usize, usize) {
        let start = offsets.get(i).map_or(0, |o| *o as usize);
        let end = offsets.get(i + 1).map_or(start, |o| *o as usize);
        (start, end.saturating_sub(start))
    };
    let bytes = |i: usize| -> &[u8] {
        let (start, len) = span(i);
        values.get(start..start + len).unwrap_or_default()
    };
    let mut valid = (0..a.len()).filter(|&i| a.is_valid(i));
    let first = valid.next()?;
    let (start, len) = span(first);
    let (mut lo, mut hi) = (first, first);
    let (mut lo_p, mut hi_p) = (prefix(values, start, len), prefix(values, start, len));
    let mut visit = |i: usize| {
        let (start, len) = span(i);
        let p = prefix(values, start, len);
        if p < lo_p || (p == lo_p && bytes(i) < bytes(lo)) {
            lo = i;
            lo_p = p;
        }
        if p > hi_p || (p == hi_p && bytes(i) > bytes(hi)) {
            hi = i;
            hi_p = p;
        }
    };
    if a.null_count() == 0 {
        (first + 1..a.len()).for_each(&mut visit);
    } else {
        valid.for_each(&mut visit);
    }
    Some((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_arith::aggregate::{max_binary, max_string, min_binary, min_string};
    use arrow_array::{BinaryArray, StringArray};

    /// Random strings over a small alphabet with NUL bytes, shared prefixes, empty values,
    /// values of 0-20 bytes and nulls, whole and sliced: the bounds are arrow's.
    #[test]
    fn bounds_are_arrows_min_and_max() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let alphabet = [b'\0', b'a', b'b', 0x7f, 0x80, 0xff];
        for round in 0..300 {
            let rows = 1 + next(40) as usize;
            let values: Vec<Option<Vec<u8>>> = (0..rows)
                .map(|_| {
                    let len = next(21) as usize;
                    let mut v: Vec<u8> = b"prefix-7"[..next(9) as usize].to_vec();
                    v.extend((0..len).map(|_| alphabet[next(6) as usize]));
                    (next(5) != 0 || round % 7 == 0).then_some(v)
                })
                .collect();
            let binary = BinaryArray::from_iter(values.iter().map(|v| v.as_deref()));
            let from = next(rows as u64) as usize;
            for a in [binary.clone(), binary.slice(from, rows - from)] {
                let got = byte_bounds(&a).map(|(lo, hi)| (a.value(lo), a.value(hi)));
                assert_eq!(got, min_binary(&a).zip(max_binary(&a)), "round {round}");
            }
            let strings = StringArray::from_iter(values.iter().map(|v| {
                v.as_ref()
                    .map(|v| v.iter().map(|b| char::from(b % 128)).collect::<String>())
            }));
            let got = byte_bounds(&strings).map(|(lo, hi)| (strings.value(lo), strings.value(hi)));
            assert_eq!(got, min_string(&strings).zip(max_string(&strings)));
        }
        let nulls = StringArray::from(vec![None::<&str>, None]);
        assert_eq!(byte_bounds(&nulls), None);
        assert_eq!(byte_bounds(&StringArray::from(Vec::<&str>::new())), None);
    }
}
