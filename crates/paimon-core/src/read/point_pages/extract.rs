//! The values of a few rows of one Parquet data page, taken from its decompressed prefix.
//!
//! A flat column's page (no repetition levels, definition levels of at most 1) is read the way
//! the format lays it out: definition levels first (RLE/bit-packed hybrid, bit width 1), then
//! the values, PLAIN (fixed width, length-prefixed byte arrays, or bits for booleans),
//! dictionary indices (a bit width byte, then a hybrid run of indices into the chunk's
//! dictionary page, whose values are PLAIN), or `DELTA_BINARY_PACKED` integers ([`delta`]).
//! Only the bytes up to the last wanted row are decompressed ([`PagePrefix`]). Any other
//! encoding or layout is `None`: the caller reads the file with arrow-rs instead.

use bytes::Bytes;
use parquet::basic::{Compression, Type as PhysicalType};

use super::delta;
use super::prefix::PagePrefix;
use crate::read::page_header::{
    PageHeader, DATA_PAGE_V2, DELTA_BINARY_PACKED, DICTIONARY_PAGE, PLAIN, PLAIN_DICTIONARY, RLE,
};

/// What a flat leaf column is, as far as reading its values goes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Leaf {
    /// Physical type.
    pub(crate) physical: PhysicalType,
    /// Bytes per value of a fixed-width type (`None`: BOOLEAN, BYTE_ARRAY).
    pub(crate) width: Option<usize>,
    /// Maximum definition level (0: required, 1: optional).
    pub(crate) max_def: i16,
}

impl Leaf {
    /// The leaf of a column with `physical` type (`type_length` for FIXED_LEN_BYTE_ARRAY).
    pub(crate) fn new(physical: PhysicalType, type_length: i32, max_def: i16) -> Option<Leaf> {
        let width = match physical {
            PhysicalType::BOOLEAN | PhysicalType::BYTE_ARRAY => None,
            PhysicalType::INT32 | PhysicalType::FLOAT => Some(4),
            PhysicalType::INT64 | PhysicalType::DOUBLE => Some(8),
            PhysicalType::INT96 => Some(12),
            PhysicalType::FIXED_LEN_BYTE_ARRAY => Some(usize::try_from(type_length).ok()?),
        };
        (max_def <= 1).then_some(Leaf {
            physical,
            width,
            max_def,
        })
    }
}

/// The picked rows of one leaf, ready to be written as one PLAIN page.
#[derive(Debug, Default)]
pub(crate) struct Picked {
    /// Rows picked.
    pub(crate) rows: usize,
    /// Whether each picked row has a value (optional columns only).
    pub(crate) present: Vec<bool>,
    /// PLAIN bytes of the values (not BOOLEAN).
    pub(crate) plain: Vec<u8>,
    /// The values of a BOOLEAN column.
    pub(crate) bits: Vec<bool>,
}

/// PLAIN values in a page section: random access by index (byte arrays are walked in order,
/// leaving a checkpoint every [`CHECKPOINT`] values to walk again from).
pub(crate) struct PlainValues {
    prefix: PagePrefix,
    start: usize,
    count: usize,
    /// Byte arrays: where every [`CHECKPOINT`]th value walked so far starts (`starts[k]`:
    /// value `k * CHECKPOINT`), for lookups behind the last one (a dictionary's).
    starts: Vec<usize>,
    /// Byte arrays: the last value walked to, and where it starts.
    at: (usize, usize),
}

/// Byte arrays of a PLAIN section are found by walking their lengths; every this many values
/// the walk leaves a checkpoint to start from again.
const CHECKPOINT: usize = 64;

impl PlainValues {
    /// `count` PLAIN values at `start` of `prefix`.
    pub(crate) fn new(prefix: PagePrefix, start: usize, count: usize) -> PlainValues {
        PlainValues {
            prefix,
            start,
            count,
            starts: vec![start],
            at: (0, start),
        }
    }

    /// Where byte array `i` starts: walked to from the last value walked to, or from the
    /// checkpoint before `i` when that is behind.
    fn byte_array_start(&mut self, i: usize) -> Option<usize> {
        let (mut j, mut at) = if self.at.0 <= i {
            self.at
        } else {
            let k = i / CHECKPOINT;
            (k * CHECKPOINT, *self.starts.get(k)?)
        };
        while j < i {
            at = self.end_of(at)?;
            j += 1;
            if j % CHECKPOINT == 0 && j / CHECKPOINT == self.starts.len() {
                self.starts.push(at);
            }
        }
        self.at = (j, at);
        Some(at)
    }

    /// Value `i`'s PLAIN bytes (a byte array with its length prefix) appended to `out`.
    fn push(&mut self, leaf: &Leaf, i: usize, out: &mut Picked) -> Option<()> {
        if i >= self.count {
            return None;
        }
        match (leaf.physical, leaf.width) {
            (PhysicalType::BOOLEAN, _) => {
                let byte = self
                    .prefix
                    .get(self.start + i / 8, self.start + i / 8 + 1)?[0];
                out.bits.push(byte >> (i % 8) & 1 == 1);
            }
            (_, Some(w)) => {
                let at = self.start + i.checked_mul(w)?;
                out.plain.extend_from_slice(self.prefix.get(at, at + w)?);
            }
            (_, None) => {
                let at = self.byte_array_start(i)?;
                let end = self.end_of(at)?;
                out.plain.extend_from_slice(self.prefix.get(at, end)?);
            }
        }
        Some(())
    }

    /// The end of the byte array starting at `at`.
    fn end_of(&mut self, at: usize) -> Option<usize> {
        let len = u32::from_le_bytes(self.prefix.get(at, at + 4)?.try_into().ok()?);
        at.checked_add(4 + usize::try_from(len).ok()?)
    }
}

/// A chunk's dictionary page, decoded lazily.
pub(crate) struct Dictionary(pub(crate) PlainValues);

impl Dictionary {
    /// The dictionary's PLAIN values section (decompressed as far as asked) and its value
    /// count.
    pub(crate) fn into_values(self) -> (PagePrefix, usize) {
        (self.0.prefix, self.0.count)
    }

    /// The dictionary page `page` (header first) of a chunk compressed with `codec`.
    pub(crate) fn new(page: Bytes, codec: Compression) -> Option<Dictionary> {
        Dictionary::with_values(page, codec, None)
    }

    /// The dictionary page `page`, whose values section a key pass may have decompressed
    /// already (`ready`, as far as it needed: decompressing goes on from there).
    pub(crate) fn with_values(
        page: Bytes,
        codec: Compression,
        ready: Option<PagePrefix>,
    ) -> Option<Dictionary> {
        let h = PageHeader::parse(&page)?;
        if h.page_type != DICTIONARY_PAGE
            || !(h.encoding == PLAIN || h.encoding == PLAIN_DICTIONARY)
        {
            return None;
        }
        let prefix = match ready {
            Some(r) if r.total() == h.uncompressed_size => r,
            _ => PagePrefix::new(h.data(&page)?, h.uncompressed_size, codec)?,
        };
        Some(Dictionary(PlainValues::new(
            prefix,
            0,
            usize::try_from(h.num_values).ok()?,
        )))
    }
}

/// One data page as fetched.
pub(crate) struct FetchedPage {
    /// The page's bytes, header first.
    pub(crate) bytes: Bytes,
    /// Its column chunk's codec.
    pub(crate) codec: Compression,
    /// Its data section as far as a key pass decompressed it, if one did.
    pub(crate) ready: Option<PagePrefix>,
}

/// Appends the values of `rows` (ascending, page-local) of the data page `page` to `out`;
/// `None` when the page is not one this module reads (`dictionary` is needed for
/// dictionary-encoded pages).
pub(crate) fn pick(
    page: FetchedPage,
    leaf: &Leaf,
    dictionary: Option<&mut Dictionary>,
    rows: &[usize],
    out: &mut Picked,
) -> Option<()> {
    let FetchedPage {
        bytes: page,
        codec,
        ready,
    } = page;
    let h = PageHeader::parse(&page)?;
    if !h.is_data_page() {
        return None;
    }
    let data = h.data(&page)?;
    let num_values = usize::try_from(h.num_values).ok()?;
    if rows.last().is_some_and(|&r| r >= num_values) {
        return None;
    }
    let (mut values, values_start, levels) = sections(&h, data, leaf, codec, ready)?;
    // Each picked row: present, and its index among the page's values.
    let located: Vec<(bool, usize)> = match levels {
        Some(Levels::Shared(start, end)) => definition(&mut values, start, end, rows)?,
        Some(Levels::Own(mut p)) => {
            let end = p.total();
            definition(&mut p, 0, end, rows)?
        }
        None => rows.iter().map(|&r| (true, r)).collect(),
    };
    if h.needs_dictionary() {
        let dictionary = dictionary?;
        let width = *values.get(values_start, values_start + 1)?.first()?;
        let wanted: Vec<usize> = located.iter().filter(|l| l.0).map(|l| l.1).collect();
        let end = values.total();
        let indices = hybrid(&mut values, values_start + 1, end, width, &wanted)?;
        for k in indices {
            dictionary.0.push(leaf, usize::try_from(k).ok()?, out)?;
        }
    } else if h.encoding == PLAIN {
        let mut plain = PlainValues::new(values, values_start, num_values);
        for &(present, i) in &located {
            if present {
                plain.push(leaf, i, out)?;
            }
        }
    } else if h.encoding == DELTA_BINARY_PACKED
        && matches!(leaf.physical, PhysicalType::INT32 | PhysicalType::INT64)
    {
        let wanted: Vec<usize> = located.iter().filter(|l| l.0).map(|l| l.1).collect();
        let width = leaf.width?;
        delta::pick(&mut values, values_start, width, &wanted, &mut out.plain)?;
    } else {
        return None;
    }
    out.rows += rows.len();
    if leaf.max_def > 0 {
        out.present.extend(located.iter().map(|l| l.0));
    }
    Some(())
}

/// Where a page's definition levels are.
pub(super) enum Levels {
    /// In the values' section (v1 pages): bytes `start..end`.
    Shared(usize, usize),
    /// In their own uncompressed section (v2 pages).
    Own(PagePrefix),
}

/// The values' section of a page, where its values start in it, and its definition levels.
/// `ready`: the section already decompressed (a key pass decompressed this page of a required
/// column whole), used when its size is the header's.
pub(super) fn sections(
    h: &PageHeader,
    data: Bytes,
    leaf: &Leaf,
    codec: Compression,
    ready: Option<PagePrefix>,
) -> Option<(PagePrefix, usize, Option<Levels>)> {
    if let Some(values) = ready {
        let required = leaf.max_def == 0 && h.def_len == 0 && h.rep_len == 0;
        if required && values.total() == h.uncompressed_size {
            return Some((values, 0, None));
        }
    }
    if h.page_type == DATA_PAGE_V2 {
        if h.rep_len != 0 || (leaf.max_def == 0) != (h.def_len == 0) {
            return None;
        }
        let levels = data.slice(..h.def_len.min(data.len()));
        let stored = data.slice(h.def_len.min(data.len())..);
        let total = h.uncompressed_size.checked_sub(h.def_len)?;
        let values = if h.is_compressed {
            PagePrefix::new(stored, total, codec)?
        } else {
            PagePrefix::plain(stored)
        };
        let levels = (leaf.max_def > 0).then(|| Levels::Own(PagePrefix::plain(levels)));
        return Some((values, 0, levels));
    }
    let mut values = PagePrefix::new(data, h.uncompressed_size, codec)?;
    if leaf.max_def == 0 {
        return Some((values, 0, None));
    }
    if h.def_encoding != RLE {
        return None;
    }
    let len = u32::from_le_bytes(values.get(0, 4)?.try_into().ok()?);
    let end = 4usize.checked_add(usize::try_from(len).ok()?)?;
    Some((values, end, Some(Levels::Shared(4, end))))
}

/// One run of an RLE/bit-packed hybrid sequence.
pub(crate) enum Run {
    /// `len` copies of `value`.
    Repeated { len: usize, value: u32 },
    /// `len` values (a multiple of 8) bit-packed from byte `at`.
    Packed { len: usize, at: usize },
}

impl Run {
    fn len(&self) -> usize {
        match self {
            Run::Repeated { len, .. } | Run::Packed { len, .. } => *len,
        }
    }
}

/// The run of `width`-bit values starting at `*pos` (before `end`), advancing past it.
pub(crate) fn next_run(
    p: &mut PagePrefix,
    pos: &mut usize,
    end: usize,
    width: usize,
) -> Option<Run> {
    if *pos >= end {
        return None;
    }
    let header = varint(p, pos)?;
    let count = usize::try_from(header >> 1).ok()?;
    if header & 1 == 1 {
        // `count` groups of 8 values: `width` bytes each.
        let at = *pos;
        *pos = pos.checked_add(count.checked_mul(width)?)?;
        // Saturating: a run of width 0 takes no bytes, whatever count it claims.
        (*pos <= end).then_some(Run::Packed {
            len: count.saturating_mul(8),
            at,
        })
    } else {
        let raw = p.get(*pos, pos.checked_add(width.div_ceil(8))?)?;
        let value = raw
            .iter()
            .enumerate()
            .fold(0u32, |v, (k, b)| v | u32::from(*b) << (8 * k));
        *pos += raw.len();
        Some(Run::Repeated { len: count, value })
    }
}

/// For each of `rows` (ascending): whether its definition level is 1, and how many values
/// (rows with level 1) precede it. Levels are a hybrid run of bit width 1 in `start..end`.
fn definition(
    p: &mut PagePrefix,
    start: usize,
    end: usize,
    rows: &[usize],
) -> Option<Vec<(bool, usize)>> {
    let mut out = Vec::with_capacity(rows.len());
    let mut wanted = rows.iter().copied().peekable();
    let (mut pos, mut row, mut ones) = (start, 0usize, 0usize);
    while wanted.peek().is_some() {
        let run = next_run(p, &mut pos, end, 1)?;
        let run_end = row.checked_add(run.len())?;
        match run {
            Run::Packed { len, at } => {
                let bytes = p.get(at, at + len / 8)?;
                while let Some(n) = wanted.next_if(|&n| n < run_end) {
                    let i = n - row;
                    let before: usize = bytes[..i / 8]
                        .iter()
                        .map(|b| b.count_ones() as usize)
                        .sum::<usize>()
                        + (bytes[i / 8] & ((1u8 << (i % 8)) - 1)).count_ones() as usize;
                    out.push((bytes[i / 8] >> (i % 8) & 1 == 1, ones + before));
                }
                ones += bytes.iter().map(|b| b.count_ones() as usize).sum::<usize>();
            }
            Run::Repeated { len, value } => {
                let present = value & 1 == 1;
                while let Some(n) = wanted.next_if(|&n| n < run_end) {
                    out.push((present, ones + if present { n - row } else { 0 }));
                }
                if present {
                    ones += len;
                }
            }
        }
        row = run_end;
    }
    Some(out)
}

/// The values at `positions` (ascending) of a hybrid run of `width`-bit values in
/// `start..end`.
fn hybrid(
    p: &mut PagePrefix,
    start: usize,
    end: usize,
    width: u8,
    positions: &[usize],
) -> Option<Vec<u32>> {
    if width > 32 {
        return None;
    }
    let w = usize::from(width);
    let mut out = Vec::with_capacity(positions.len());
    let mut wanted = positions.iter().copied().peekable();
    let (mut pos, mut index) = (start, 0usize);
    while wanted.peek().is_some() {
        let run = next_run(p, &mut pos, end, w)?;
        let run_end = index.checked_add(run.len())?;
        while let Some(n) = wanted.next_if(|&n| n < run_end) {
            out.push(match run {
                Run::Repeated { value, .. } => value,
                Run::Packed { at, .. } => {
                    let bit = (n - index) * w;
                    let raw = p.get(at + bit / 8, at + (bit + w).div_ceil(8))?;
                    unpack(raw, bit % 8, w) as u32
                }
            });
        }
        index = run_end;
    }
    Some(out)
}

/// The `bits`-bit number (at most 64) at bit `bit` of `packed`, packed LSB first as Parquet
/// packs bit-packed runs and delta miniblocks; bits past the slice's end read as zeros.
pub(super) fn unpack(packed: &[u8], bit: usize, bits: usize) -> u64 {
    if bits == 0 {
        return 0;
    }
    let first = bit / 8;
    let end = (bit + bits).div_ceil(8).min(packed.len());
    let word = packed
        .get(first..end)
        .unwrap_or_default()
        .iter()
        .rev()
        .fold(0u128, |w, &b| (w << 8) | u128::from(b));
    let mask = match bits {
        64.. => u64::MAX,
        _ => (1u64 << bits) - 1,
    };
    (word >> (bit % 8)) as u64 & mask
}

/// An unsigned LEB128 varint at `*pos`, advancing it.
pub(super) fn varint(p: &mut PagePrefix, pos: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *p.get(*pos, *pos + 1)?.first()?;
        *pos += 1;
        value |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// The PLAIN page of `picked`: definition levels (optional leaves: a bit-packed hybrid run
/// with its 4-byte length, as in a v1 page), then the values.
pub(crate) fn plain_page(leaf: &Leaf, picked: &Picked) -> Vec<u8> {
    let mut buf = Vec::new();
    if leaf.max_def > 0 {
        let groups = picked.present.len().div_ceil(8);
        let mut levels = Vec::with_capacity(groups + 5);
        let mut header = ((groups as u64) << 1) | 1;
        loop {
            let b = (header & 0x7f) as u8;
            header >>= 7;
            if header == 0 {
                levels.push(b);
                break;
            }
            levels.push(b | 0x80);
        }
        levels.extend(pack_bits(&picked.present));
        buf.extend_from_slice(&(levels.len() as u32).to_le_bytes());
        buf.extend(levels);
    }
    if leaf.physical == PhysicalType::BOOLEAN {
        buf.extend(pack_bits(&picked.bits));
    } else {
        buf.extend_from_slice(&picked.plain);
    }
    buf
}

/// Bits packed LSB first, padded with zeros to whole bytes.
fn pack_bits(bits: &[bool]) -> Vec<u8> {
    let mut out = vec![0u8; bits.len().div_ceil(8)];
    for (i, b) in bits.iter().enumerate() {
        if *b {
            out[i / 8] |= 1 << (i % 8);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn byte_arrays_are_found_in_any_order() {
        use super::{Leaf, Picked, PlainValues, CHECKPOINT};
        use crate::read::point_pages::PagePrefix;
        use parquet::basic::Type as PhysicalType;
        let values: Vec<Vec<u8>> = (0..1000).map(|i| vec![i as u8; i % 13]).collect();
        let mut section = vec![9u8; 3];
        for v in &values {
            section.extend_from_slice(&(v.len() as u32).to_le_bytes());
            section.extend_from_slice(v);
        }
        let leaf = Leaf::new(PhysicalType::BYTE_ARRAY, 0, 0).unwrap();
        let prefix = PagePrefix::plain(bytes::Bytes::from(section));
        let mut plain = PlainValues::new(prefix, 3, values.len());
        // Forward, back behind checkpoints and into the first values, then forward again.
        let order = [5, 700, 64, 63, 0, 999, 128, 129, 1, 500, 998];
        for &i in &order {
            let mut out = Picked::default();
            plain.push(&leaf, i, &mut out).unwrap();
            let mut want = (values[i].len() as u32).to_le_bytes().to_vec();
            want.extend_from_slice(&values[i]);
            assert_eq!(out.plain, want, "value {i}");
        }
        assert!(plain.push(&leaf, 1000, &mut Picked::default()).is_none());
        // A checkpoint every CHECKPOINT values walked, not a start per value.
        assert_eq!(plain.starts.len(), 999 / CHECKPOINT + 1);
    }

    use super::*;

    fn prefix(bytes: &[u8]) -> PagePrefix {
        PagePrefix::plain(Bytes::copy_from_slice(bytes))
    }

    #[test]
    fn definition_levels_of_rle_and_bit_packed_runs() {
        // RLE run of 10 ones (header 20), bit-packed run of one group 0b0101_0011 (header 3),
        // RLE run of 5 zeros (header 10).
        let bytes = [20, 1, 3, 0b0101_0011, 10, 0];
        let mut p = prefix(&bytes);
        let rows = [0, 9, 10, 11, 12, 14, 17, 18, 22];
        let got = definition(&mut p, 0, bytes.len(), &rows).unwrap();
        assert_eq!(
            got,
            vec![
                (true, 0),
                (true, 9),
                (true, 10),
                (true, 11),
                (false, 12),
                (true, 12),
                (false, 14),
                (false, 14),
                (false, 14),
            ]
        );
        // Past the end: none.
        assert!(definition(&mut p, 0, bytes.len(), &[23]).is_none());
    }

    #[test]
    fn hybrid_values_of_any_width() {
        // Width 3: bit-packed group of 0..8 (header 3, 3 bytes), then RLE 4 × 5 (header 8).
        let values: Vec<u32> = (0..8).collect();
        let mut packed = vec![0u8; 3];
        for (i, v) in values.iter().enumerate() {
            for b in 0..3 {
                if v >> b & 1 == 1 {
                    let bit = i * 3 + b;
                    packed[bit / 8] |= 1 << (bit % 8);
                }
            }
        }
        let mut bytes = vec![3];
        bytes.extend(&packed);
        bytes.extend([8, 5]);
        let mut p = prefix(&bytes);
        let got = hybrid(&mut p, 0, bytes.len(), 3, &[0, 2, 5, 7, 8, 11]).unwrap();
        assert_eq!(got, vec![0, 2, 5, 7, 5, 5]);
        assert!(hybrid(&mut p, 0, bytes.len(), 3, &[12]).is_none());
        assert!(hybrid(&mut p, 0, bytes.len(), 33, &[0]).is_none());
    }

    #[test]
    fn plain_page_levels_are_a_bit_packed_run() {
        let leaf = Leaf::new(PhysicalType::INT32, 0, 1).unwrap();
        let picked = Picked {
            rows: 3,
            present: vec![true, false, true],
            plain: vec![1, 0, 0, 0, 2, 0, 0, 0],
            bits: vec![],
        };
        let page = plain_page(&leaf, &picked);
        assert_eq!(page, vec![2, 0, 0, 0, 3, 0b101, 1, 0, 0, 0, 2, 0, 0, 0]);
    }
}
