//! RoaringBitmap's portable format as Java Paimon writes it: `RoaringBitmap32#serialize` calls
//! `runOptimize()` first (org.roaringbitmap 1.2.1), so containers may be run containers and
//! the cookie is then `0x303B` (`shared/spec/file-index.md` §3.3). The `roaring` crate never
//! writes run containers, hence this encoder.
//!
//! Container choice, as `runOptimize` decides it for containers built by `add`: up to 4096
//! values an array (2 bytes each), beyond that a bitmap (8192 bytes); either becomes a run
//! container (2 + 4 bytes per run) when that is strictly smaller.

use roaring::RoaringBitmap;

const NO_RUN_COOKIE: u32 = 12346;
const RUN_COOKIE: u32 = 12347;
const NO_OFFSET_THRESHOLD: usize = 4;
const ARRAY_MAX: usize = 4096;
const BITMAP_BYTES: usize = 8192;

enum Container {
    Array(Vec<u16>),
    Bitmap(Vec<u16>),
    Run(Vec<(u16, u16)>),
}

impl Container {
    fn of(values: Vec<u16>) -> Container {
        let runs = to_runs(&values);
        let run_size = 2 + 4 * runs.len();
        let plain_size = if values.len() > ARRAY_MAX {
            BITMAP_BYTES
        } else {
            2 * values.len()
        };
        if plain_size > run_size {
            Container::Run(runs)
        } else if values.len() > ARRAY_MAX {
            Container::Bitmap(values)
        } else {
            Container::Array(values)
        }
    }

    fn size(&self) -> usize {
        match self {
            Container::Array(v) => 2 * v.len(),
            Container::Bitmap(_) => BITMAP_BYTES,
            Container::Run(r) => 2 + 4 * r.len(),
        }
    }

    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Container::Array(v) => v
                .iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            Container::Bitmap(v) => {
                let mut words = [0u64; 1024];
                for &x in v {
                    if let Some(w) = words.get_mut(usize::from(x >> 6)) {
                        *w |= 1u64 << (x & 63);
                    }
                }
                words
                    .iter()
                    .for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
            }
            Container::Run(runs) => {
                out.extend_from_slice(&(runs.len() as u16).to_le_bytes());
                for (start, len_minus_one) in runs {
                    out.extend_from_slice(&start.to_le_bytes());
                    out.extend_from_slice(&len_minus_one.to_le_bytes());
                }
            }
        }
    }
}

/// Runs of consecutive values as (start, length - 1).
fn to_runs(values: &[u16]) -> Vec<(u16, u16)> {
    let mut runs: Vec<(u16, u16)> = Vec::new();
    for &v in values {
        match runs.last_mut() {
            Some((start, len)) if u32::from(*start) + u32::from(*len) + 1 == u32::from(v) => {
                *len += 1
            }
            _ => runs.push((v, 0)),
        }
    }
    runs
}

/// The bytes Java's `RoaringBitmap32#serialize` writes for `bitmap`.
pub fn serialize_java(bitmap: &RoaringBitmap) -> Vec<u8> {
    let mut groups: Vec<(u16, Vec<u16>)> = Vec::new();
    for v in bitmap {
        let (high, low) = ((v >> 16) as u16, v as u16);
        match groups.last_mut() {
            Some((h, values)) if *h == high => values.push(low),
            _ => groups.push((high, vec![low])),
        }
    }
    let containers: Vec<(u16, usize, Container)> = groups
        .into_iter()
        .map(|(high, values)| (high, values.len(), Container::of(values)))
        .collect();
    let n = containers.len();
    let has_run = containers
        .iter()
        .any(|(_, _, c)| matches!(c, Container::Run(_)));
    let mut out = Vec::new();
    if has_run {
        out.extend_from_slice(&(RUN_COOKIE | (((n as u32) - 1) << 16)).to_le_bytes());
        let mut flags = vec![0u8; n.div_ceil(8)];
        for (i, (_, _, c)) in containers.iter().enumerate() {
            if let (Container::Run(_), Some(f)) = (c, flags.get_mut(i / 8)) {
                *f |= 1 << (i % 8);
            }
        }
        out.extend_from_slice(&flags);
    } else {
        out.extend_from_slice(&NO_RUN_COOKIE.to_le_bytes());
        out.extend_from_slice(&(n as u32).to_le_bytes());
    }
    for (high, card, _) in &containers {
        out.extend_from_slice(&high.to_le_bytes());
        out.extend_from_slice(&((card - 1) as u16).to_le_bytes());
    }
    if !has_run || n >= NO_OFFSET_THRESHOLD {
        let mut offset = out.len() + 4 * n;
        for (_, _, c) in &containers {
            out.extend_from_slice(&(offset as u32).to_le_bytes());
            offset += c.size();
        }
    }
    for (_, _, c) in &containers {
        c.write(&mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::file_index::key::roaring_exact;
    use crate::test_util::hex;

    #[test]
    fn java_golden_images() {
        // Empty (spec §3.3), arrays under 0x303A (PK0 f2), a run container (C:bsi {0..5, 7}).
        assert_eq!(
            serialize_java(&RoaringBitmap::new()),
            hex("3a300000 00000000")
        );
        let arr: RoaringBitmap = [2u32, 3, 6].into_iter().collect();
        assert_eq!(
            serialize_java(&arr),
            hex("3a300000 01000000 0000 0200 10000000 0200 0300 0600")
        );
        let run: RoaringBitmap = [0u32, 1, 2, 3, 4, 5, 7].into_iter().collect();
        assert_eq!(
            serialize_java(&run),
            hex("3b300000 01 0000 0600 0200 0000 0500 0700 0000")
        );
    }

    #[test]
    fn round_trips_every_container_kind() {
        let mut bm: RoaringBitmap = (0..100_000u32).filter(|x| x % 3 != 0).collect();
        bm.insert_range(200_000..260_000);
        bm.extend([300_000u32, 300_002, 400_000]);
        for x in [bm.clone(), (0..5000u32).map(|x| x * 2).collect()] {
            let bytes = serialize_java(&x);
            assert_eq!(roaring_exact(&bytes, "t", 1 << 20).unwrap(), x);
        }
    }
}
