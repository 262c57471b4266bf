//! A few values of a `DELTA_BINARY_PACKED` page section (INT32, INT64), decoded from its
//! start only as far as the last wanted value.
//!
//! The layout (Parquet `Encodings.md`): a header of four ULEB128 varints (values per block, a
//! multiple of 128; miniblocks per block, each a multiple of 32 values; the value count; the
//! first value, zigzag), then blocks: the block's minimum delta (zigzag varint), one bit-width
//! byte per miniblock, and the miniblocks, each `values × width` bits packed LSB first. A
//! value is the previous one plus the minimum delta plus its packed number, wrapping. Values
//! are cumulative, so every delta before the last wanted one is decoded; decoding is cheap next
//! to the decompression [`PagePrefix`] does on the way.
//!
//! The arithmetic is 64-bit and an INT32 value is its low 32 bits: wrapping sums agree modulo
//! 2^32 whether a writer computed 32-bit deltas (parquet-mr) or 64-bit ones (arrow-rs).
//! Anything malformed is `None`; the caller then reads the page with arrow-rs.

use super::extract::{unpack, varint};
use super::prefix::PagePrefix;

/// Values per block at most (writers use 128 to 1024): bounds the work a corrupt header asks.
const MAX_BLOCK: u64 = 1 << 16;

/// The values at `wanted` (ascending indices among the section's values) of the
/// `DELTA_BINARY_PACKED` values in `p` from byte `start`, each appended to `out` as PLAIN
/// bytes: `width` 4 (INT32) or 8 (INT64) little-endian bytes.
pub(super) fn pick(
    p: &mut PagePrefix,
    start: usize,
    width: usize,
    wanted: &[usize],
    out: &mut Vec<u8>,
) -> Option<()> {
    if width != 4 && width != 8 {
        return None;
    }
    let mut pos = start;
    let block = varint(p, &mut pos)?;
    let miniblocks = varint(p, &mut pos)?;
    let total = usize::try_from(varint(p, &mut pos)?).ok()?;
    let mut value = zigzag(varint(p, &mut pos)?);
    let valid = block > 0
        && block <= MAX_BLOCK
        && block % 128 == 0
        && miniblocks > 0
        && block % miniblocks == 0
        && (block / miniblocks) % 32 == 0;
    if !valid {
        return None;
    }
    let Some(&last) = wanted.last() else {
        return Some(());
    };
    if last >= total {
        return None;
    }
    let per_miniblock = usize::try_from(block / miniblocks).ok()?;
    let miniblocks = usize::try_from(miniblocks).ok()?;
    let mut emit = Emit {
        wanted,
        next: 0,
        width,
        out,
    };
    // Value 0 is the header's first value; value `index` the sum of the deltas before it.
    let mut index = 0usize;
    emit.at(index, value);
    while index < last {
        let min_delta = zigzag(varint(p, &mut pos)?);
        let widths = p.get(pos, pos + miniblocks)?.to_vec();
        pos += miniblocks;
        for &bits in &widths {
            if index >= last {
                break;
            }
            let bits = usize::from(bits);
            if bits > 64 {
                return None;
            }
            // `per_miniblock` is a multiple of 32, so a miniblock is whole bytes.
            let len = per_miniblock * bits / 8;
            let packed = p.get(pos, pos + len)?;
            pos += len;
            let n = per_miniblock.min(last - index);
            for j in 0..n {
                let delta = unpack(packed, j * bits, bits);
                value = value.wrapping_add(min_delta).wrapping_add(delta as i64);
                index += 1;
                emit.at(index, value);
            }
        }
    }
    (emit.next == wanted.len()).then_some(())
}

/// The wanted values as they are reached.
struct Emit<'a> {
    wanted: &'a [usize],
    next: usize,
    width: usize,
    out: &'a mut Vec<u8>,
}

impl Emit<'_> {
    /// Value `index` is `value`: appended once for each time it is wanted.
    fn at(&mut self, index: usize, value: i64) {
        while self.wanted.get(self.next) == Some(&index) {
            match self.width {
                4 => self.out.extend_from_slice(&(value as i32).to_le_bytes()),
                _ => self.out.extend_from_slice(&value.to_le_bytes()),
            }
            self.next += 1;
        }
    }
}

fn zigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

#[cfg(test)]
mod tests;
