//! A page's data decompressed only as far as a reader asks.
//!
//! A zstd page is one stream of blocks (at most 128 KiB each); its bytes can only be produced
//! in order, but the stream can stop anywhere: a value at row `r` of a PLAIN page needs the
//! page's first `r` values decompressed, not the rest. The input is fed in small slices so the
//! decompressor stops within a block of the bytes asked for. Codecs without a streaming
//! decoder here (Snappy, LZ4 raw) are decompressed whole; others are not handled (`new` is
//! `None` and the caller falls back to arrow-rs).
//!
//! Finished sections give their zstd decoder and output buffer back ([`Reuse`]) for the next
//! page to take. A point lookup decompresses a page prefix per column, a few at a time, and in
//! a short-lived process fresh memory is what the prefixes cost most: every 4 KiB page of it
//! is a fault (~2 µs on the benchmark machine, as much as decompressing it). A reused buffer's
//! memory is already mapped.

use std::sync::Mutex;

use bytes::Bytes;
use parquet::basic::Compression;
use zstd::stream::raw::{DParameter, Decoder, InBuffer, Operation, OutBuffer};

/// Compressed bytes fed to the zstd decoder per step.
const ZSTD_STEP: usize = 16 * 1024;

/// Decoders and buffers kept for reuse: at most this many of each.
const KEEP: usize = 4;

/// Buffers are kept only with a capacity in this range: smaller ones cost little to allocate
/// (and would take a large one's place), larger ones would hold too much memory (data pages are
/// usually 1 MiB).
const KEEP_CAPACITY: std::ops::RangeInclusive<usize> = CAPACITY_STEP..=(2 << 20);

/// Buffers are allocated rounded up to this, so that a buffer fits the next page of about the
/// same size (the memory past what is written is only reserved, never touched).
const CAPACITY_STEP: usize = 64 * 1024;

/// zstd decoders and output buffers of finished sections, for the next to take.
struct Reuse {
    decoders: Vec<Decoder<'static>>,
    buffers: Vec<Vec<u8>>,
}

/// The process's [`Reuse`]: at most [`KEEP`] decoders and [`KEEP`] buffers of at most 2 MiB.
static REUSE: Mutex<Reuse> = Mutex::new(Reuse::new());

impl Reuse {
    const fn new() -> Reuse {
        Reuse {
            decoders: Vec::new(),
            buffers: Vec::new(),
        }
    }

    /// A zstd decoder: a kept one (reset when it was given back), or a new one.
    fn decoder(pool: &Mutex<Reuse>) -> Option<Decoder<'static>> {
        let kept = pool.lock().ok().and_then(|mut r| r.decoders.pop());
        kept.or_else(|| Decoder::new().ok())
    }

    /// An empty buffer of at least `capacity`: the smallest kept one that fits, or a new one.
    fn buffer(pool: &Mutex<Reuse>, capacity: usize) -> Vec<u8> {
        let kept = pool.lock().ok().and_then(|mut r| {
            let i = (0..r.buffers.len())
                .filter(|&i| r.buffers[i].capacity() >= capacity)
                .min_by_key(|&i| r.buffers[i].capacity())?;
            Some(r.buffers.swap_remove(i))
        });
        kept.unwrap_or_else(|| {
            let rounded = capacity
                .div_ceil(CAPACITY_STEP)
                .saturating_mul(CAPACITY_STEP);
            Vec::with_capacity(rounded)
        })
    }

    /// Keeps `decoder` (reset for a new frame) while there is room, and `buffer` (emptied)
    /// while there is room or in place of a smaller one.
    fn give_back(pool: &Mutex<Reuse>, decoder: Option<Decoder<'static>>, mut buffer: Vec<u8>) {
        let Ok(mut r) = pool.lock() else {
            return;
        };
        if let Some(mut d) = decoder {
            if r.decoders.len() < KEEP && d.reinit().is_ok() {
                r.decoders.push(d);
            }
        }
        if !KEEP_CAPACITY.contains(&buffer.capacity()) {
            return;
        }
        buffer.clear();
        if r.buffers.len() < KEEP {
            r.buffers.push(buffer);
            return;
        }
        // Full: a larger buffer takes the smallest one's place, so the pool follows the pages.
        let smallest = (0..r.buffers.len()).min_by_key(|&i| r.buffers[i].capacity());
        if let Some(i) = smallest.filter(|&i| r.buffers[i].capacity() < buffer.capacity()) {
            r.buffers[i] = buffer;
        }
    }
}

/// A section of a page (all of a v1 page's data, the values of a v2 page).
pub(crate) struct PagePrefix {
    /// The section as stored.
    input: Bytes,
    /// Decompressed bytes so far (from the section's start).
    out: Vec<u8>,
    /// The section's decompressed size (from the page header).
    total: usize,
    /// Input bytes consumed by the decoder.
    consumed: usize,
    /// The streaming decoder, for zstd sections.
    zstd: Option<Decoder<'static>>,
}

impl PagePrefix {
    /// A section of `total` decompressed bytes stored as `input` with `codec`; `None` for a
    /// codec handled elsewhere or input that does not decompress.
    pub(crate) fn new(input: Bytes, total: usize, codec: Compression) -> Option<PagePrefix> {
        let mut prefix = PagePrefix {
            input,
            out: Vec::new(),
            total,
            consumed: 0,
            zstd: None,
        };
        match codec {
            Compression::UNCOMPRESSED => {
                prefix.out = prefix.input.to_vec();
                prefix.consumed = prefix.input.len();
            }
            Compression::ZSTD(_) => {
                let mut decoder = Reuse::decoder(&REUSE)?;
                // The output buffer is reserved whole and never moves, so zstd may decode
                // straight into it instead of into a window buffer of its own copied out
                // afterwards (twice the memory touched). Without the setting it still works.
                let _ = decoder.set_parameter(DParameter::StableOutBuffer(true));
                prefix.zstd = Some(decoder);
                // Capacity only: the memory is touched as it is written (unless a reused
                // buffer's was already).
                prefix.out = Reuse::buffer(&REUSE, total);
            }
            Compression::SNAPPY => {
                prefix.out = snap::raw::Decoder::new()
                    .decompress_vec(&prefix.input)
                    .ok()?;
            }
            Compression::LZ4_RAW => {
                prefix.out = lz4_flex::block::decompress(&prefix.input, total).ok()?;
            }
            _ => return None,
        }
        Some(prefix)
    }

    /// An uncompressed section.
    pub(crate) fn plain(bytes: Bytes) -> PagePrefix {
        let total = bytes.len();
        PagePrefix {
            out: bytes.to_vec(),
            input: bytes,
            total,
            consumed: total,
            zstd: None,
        }
    }

    /// The section's decompressed size.
    pub(crate) fn total(&self) -> usize {
        self.total
    }

    /// Bytes decompressed so far.
    #[cfg(test)]
    pub(crate) fn decompressed(&self) -> usize {
        self.out.len()
    }

    /// Bytes `start..end` of the decompressed section, decompressing as far as needed;
    /// `None` past the section's end or when the data does not decompress.
    pub(crate) fn get(&mut self, start: usize, end: usize) -> Option<&[u8]> {
        if start > end || end > self.total {
            return None;
        }
        while self.out.len() < end {
            self.step()?;
        }
        self.out.get(start..end)
    }

    /// Decompresses the next slice of input; `None` when nothing more can be produced.
    fn step(&mut self) -> Option<()> {
        let decoder = self.zstd.as_mut()?;
        let before = self.out.len();
        let stop = self.input.len().min(self.consumed + ZSTD_STEP);
        let mut input = InBuffer::around(self.input.get(self.consumed..stop)?);
        let mut output = OutBuffer::around_pos(&mut self.out, before);
        decoder.run(&mut input, &mut output).ok()?;
        let advanced = input.pos();
        self.consumed += advanced;
        if self.out.len() > self.total {
            return None;
        }
        // Progress is input consumed or output produced; neither means a stuck stream (all
        // input given and the output still short: truncated data).
        (advanced > 0 || self.out.len() > before).then_some(())
    }
}

impl Drop for PagePrefix {
    fn drop(&mut self) {
        Reuse::give_back(&REUSE, self.zstd.take(), std::mem::take(&mut self.out));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(n: usize) -> Vec<u8> {
        // Compressible about 2:1 (four random bits per byte), like real column data.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 16) as u8
            })
            .collect()
    }

    #[test]
    fn zstd_is_decompressed_only_as_far_as_asked() {
        let raw = data(1 << 20);
        let packed = Bytes::from(zstd::bulk::compress(&raw, 3).unwrap());
        let mut p =
            PagePrefix::new(packed, raw.len(), Compression::ZSTD(Default::default())).unwrap();
        assert_eq!(p.get(10, 20).unwrap(), &raw[10..20]);
        // One block of zstd at most, not the page.
        assert!(p.decompressed() <= 256 * 1024, "{}", p.decompressed());
        let mid = raw.len() / 2;
        assert_eq!(p.get(mid, mid + 8).unwrap(), &raw[mid..mid + 8]);
        assert!(p.decompressed() < raw.len() * 3 / 4);
        assert_eq!(p.get(0, raw.len()).unwrap(), &raw[..]);
        assert!(p.get(0, raw.len() + 1).is_none());
        assert!(p.get(5, 4).is_none());
    }

    #[test]
    fn buffers_are_reused_when_they_fit_and_kept_only_in_bounds() {
        let pool = Mutex::new(Reuse::new());
        let a = Reuse::buffer(&pool, 1000);
        assert_eq!(a.capacity(), CAPACITY_STEP);
        let a_ptr = a.as_ptr();
        Reuse::give_back(&pool, None, a);
        // Fits: the same memory again, emptied.
        let b = Reuse::buffer(&pool, 5000);
        assert_eq!((b.as_ptr(), b.len()), (a_ptr, 0));
        // Does not fit: a new one, rounded up.
        let c = Reuse::buffer(&pool, CAPACITY_STEP + 1);
        assert_eq!(c.capacity(), 2 * CAPACITY_STEP);
        Reuse::give_back(&pool, None, b);
        Reuse::give_back(&pool, None, c);
        // The smallest that fits is taken.
        let d = Reuse::buffer(&pool, 10);
        assert_eq!(d.as_ptr(), a_ptr);
        // Too small or too large to keep; and no more than KEEP.
        Reuse::give_back(&pool, None, Vec::with_capacity(100));
        Reuse::give_back(&pool, None, Vec::with_capacity(3 << 20));
        assert_eq!(pool.lock().unwrap().buffers.len(), 1);
        for _ in 0..KEEP + 2 {
            Reuse::give_back(&pool, None, Vec::with_capacity(CAPACITY_STEP));
        }
        assert_eq!(pool.lock().unwrap().buffers.len(), KEEP);
        // Full of small buffers: a larger one replaces the smallest; an equal one does not.
        let big = Vec::<u8>::with_capacity(16 * CAPACITY_STEP);
        let big_ptr = big.as_ptr();
        Reuse::give_back(&pool, None, big);
        Reuse::give_back(&pool, None, Vec::with_capacity(CAPACITY_STEP));
        let caps = |pool: &Mutex<Reuse>| {
            let mut c: Vec<usize> = pool
                .lock()
                .unwrap()
                .buffers
                .iter()
                .map(|b| b.capacity())
                .collect();
            c.sort_unstable();
            c
        };
        assert_eq!(caps(&pool).len(), KEEP);
        assert_eq!(caps(&pool).last(), Some(&(16 * CAPACITY_STEP)));
        let taken = Reuse::buffer(&pool, 10 * CAPACITY_STEP);
        assert_eq!(taken.as_ptr(), big_ptr);
    }

    #[test]
    fn a_decoder_given_back_mid_frame_decodes_the_next_frame_whole() {
        let pool = Mutex::new(Reuse::new());
        let (one, two) = (data(400_000), data(300_001));
        let packed_one = Bytes::from(zstd::bulk::compress(&one, 3).unwrap());
        let packed_two = Bytes::from(zstd::bulk::compress(&two[1..], 3).unwrap());
        let mut d = Reuse::decoder(&pool).unwrap();
        let mut out = Vec::with_capacity(one.len());
        // Half of frame one decoded, then given back.
        let mut input = InBuffer::around(&packed_one[..packed_one.len() / 2]);
        d.run(&mut input, &mut OutBuffer::around(&mut out)).unwrap();
        assert!(!out.is_empty() && out[..] == one[..out.len()]);
        Reuse::give_back(&pool, Some(d), out);
        assert_eq!(pool.lock().unwrap().decoders.len(), 1);
        let mut d = Reuse::decoder(&pool).unwrap();
        let mut out = Reuse::buffer(&pool, two.len() - 1);
        let mut input = InBuffer::around(&packed_two);
        while input.pos() < packed_two.len() {
            let pos = out.len();
            d.run(&mut input, &mut OutBuffer::around_pos(&mut out, pos))
                .unwrap();
        }
        assert_eq!(out[..], two[1..]);
    }

    #[test]
    fn sections_read_right_through_reused_decoders_and_buffers() {
        // Through the process's pool, page after page, each dropped part way: the values are
        // the same as decompressed alone.
        let zstd = Compression::ZSTD(Default::default());
        for n in [200_000usize, 150_000, 250_000, 150_000, 90_000] {
            let raw = data(n);
            let packed = Bytes::from(zstd::bulk::compress(&raw, 1).unwrap());
            let mut p = PagePrefix::new(packed, raw.len(), zstd).unwrap();
            let mid = n / 3;
            assert_eq!(p.get(mid, mid + 16).unwrap(), &raw[mid..mid + 16]);
            drop(p);
            let packed = Bytes::from(zstd::bulk::compress(&raw, 1).unwrap());
            let mut p = PagePrefix::new(packed, raw.len(), zstd).unwrap();
            assert_eq!(p.get(0, n).unwrap(), &raw[..]);
        }
    }

    #[test]
    fn other_codecs_are_decompressed_whole() {
        let raw = data(100_000);
        let snappy = snap::raw::Encoder::new().compress_vec(&raw).unwrap();
        let mut p = PagePrefix::new(snappy.into(), raw.len(), Compression::SNAPPY).unwrap();
        assert_eq!(p.get(99_990, 100_000).unwrap(), &raw[99_990..]);
        let lz4 = lz4_flex::block::compress(&raw);
        let mut p = PagePrefix::new(lz4.into(), raw.len(), Compression::LZ4_RAW).unwrap();
        assert_eq!(p.get(0, 3).unwrap(), &raw[..3]);
        let mut p =
            PagePrefix::new(raw.clone().into(), raw.len(), Compression::UNCOMPRESSED).unwrap();
        assert_eq!(p.get(7, 9).unwrap(), &raw[7..9]);
        let gzip = Compression::GZIP(Default::default());
        assert!(PagePrefix::new(raw.into(), 100_000, gzip).is_none());
    }

    #[test]
    fn corrupt_or_truncated_zstd_is_none_not_a_panic() {
        let raw = data(300_000);
        let packed = zstd::bulk::compress(&raw, 3).unwrap();
        let zstd = Compression::ZSTD(Default::default());
        // Truncated: the early bytes are there, the end is not.
        let cut = Bytes::from(packed[..packed.len() / 2].to_vec());
        let mut p = PagePrefix::new(cut, raw.len(), zstd).unwrap();
        assert_eq!(p.get(0, 4).unwrap(), &raw[..4]);
        assert!(p.get(0, raw.len()).is_none());
        // Garbage.
        let junk = Bytes::from(vec![0xab; 1000]);
        let mut p = PagePrefix::new(junk, 5000, zstd).unwrap();
        assert!(p.get(0, 1).is_none());
        // More output than the header promised.
        let mut p = PagePrefix::new(packed.into(), 1000, zstd).unwrap();
        assert!(p.get(0, 1000).is_none() || p.decompressed() <= 1000);
    }
}
