//! The key pass straight from the key column's pages, for integer keys of a required column
//! stored PLAIN (the usual layout of a primary key's pages once the writer's dictionary is
//! full, and of files written without dictionaries) or dictionary-encoded (the pages before).
//!
//! Each touched page is decompressed in place: its values (little-endian integers, or
//! dictionary indices decoded run by run and looked up in the chunk's dictionary page) are
//! checked to be sorted, after the previous page's, and then binary-searched, with no Arrow
//! array built, copied or concatenated. The decompressed page is handed to the point read of
//! the rows found.
//!
//! The last touched page is decompressed and searched only as far as its first value beyond
//! every interval (half a page on average; for a dictionary-encoded page, its indices and the
//! dictionary as far as those indices reach): its rest is not decompressed, so it is not
//! checked. Primary-key data files are sorted by key (Paimon's format invariant, which
//! merge reads and Java's lookups rely on as well); what the search decodes is checked, so a
//! file found out of order there (a file rewritten in descending order, say) is not narrowed,
//! but an order broken only past the key in its last page is not seen. Proving that rest
//! sorted meant decompressing it (~1 MiB of zstd with the usual 1 MiB pages): a third of a
//! point lookup's CPU.
//!
//! Anything else (another encoding, a nullable or non-integer column, a type changed by schema
//! evolution, an index past the dictionary) is `None`, and the caller decodes with arrow-rs.

use parquet::arrow::async_reader::AsyncFileReader;
use parquet::basic::{Compression, Type as PhysicalType};
use parquet::file::metadata::ParquetMetaData;

use super::KeyPass;
use crate::read::dictionary_skip::touched_pages;
use crate::read::key_search::KeyInterval;
use crate::read::parquet::FileIoParquetReader;
use crate::read::point_pages::{
    dictionary_page_range, next_run, required_values, Dictionary, Leaf, PagePrefix, Run,
};
use crate::read::selection::push_merged;
use crate::spec::row_range::RowRange;
use crate::spec::types::{DataField, TypeKind};
use crate::spec::Datum;

/// What the pages of one file's key column hold for the intervals searched.
#[derive(Debug, PartialEq)]
pub(super) enum KeyPages {
    /// File-global rows (sorted, disjoint) whose key may lie in an interval: every such row of
    /// the touched pages.
    Found(Vec<RowRange>),
    /// The values are not sorted: no narrowing.
    Unsorted,
}

/// Bytes per value of an integer key of `kind` stored as `physical` (4 or 8); `None` for
/// other keys.
fn key_width(kind: &TypeKind, physical: PhysicalType) -> Option<usize> {
    match (kind, physical) {
        (
            TypeKind::TinyInt | TypeKind::SmallInt | TypeKind::Int | TypeKind::Date,
            PhysicalType::INT32,
        ) => Some(4),
        (TypeKind::BigInt, PhysicalType::INT64) => Some(8),
        _ => None,
    }
}

/// The intervals as (low, low inclusive, high, high inclusive) integers; `None` when a bound
/// is not an integer.
fn integer_bounds(intervals: &[KeyInterval]) -> Option<Vec<(i64, bool, i64, bool)>> {
    intervals
        .iter()
        .map(|iv| {
            Some((
                integer(&iv.low)?,
                iv.low_inclusive,
                integer(&iv.high)?,
                iv.high_inclusive,
            ))
        })
        .collect()
}

/// One touched page of the key column.
struct KeyPage {
    /// Its bytes in the file, header first.
    range: std::ops::Range<u64>,
    row_group: usize,
    /// The file row of its first value.
    first_row: u64,
    /// Its row count.
    rows: u64,
    codec: Compression,
}

/// The pages of key leaf `leaf` the candidate rows touch, in file order.
fn key_pages(
    pass: &KeyPass<'_>,
    md: &ParquetMetaData,
    leaf: usize,
    candidates: &[RowRange],
) -> Option<Vec<KeyPage>> {
    let mut pages = Vec::new();
    for chunk in touched_pages(md, pass.groups, candidates, &[leaf])? {
        let group_start = pass.groups.iter().find(|g| g.0 == chunk.row_group)?.1.start;
        let codec = md.row_group(chunk.row_group).column(leaf).compression();
        pages.extend(chunk.pages.iter().map(|p| KeyPage {
            range: p.range.clone(),
            row_group: chunk.row_group,
            first_row: group_start + p.first_row,
            rows: p.row_count,
            codec,
        }));
    }
    Some(pages)
}

/// Searches the key column's leaf `leaf` in the pages the candidate rows touch; `None` when
/// this search does not apply.
pub(super) async fn search(
    pass: &KeyPass<'_>,
    key: &DataField,
    leaf: usize,
    candidates: &[RowRange],
    intervals: &[KeyInterval],
) -> Option<KeyPages> {
    let md = pass.meta.metadata();
    let column = md.file_metadata().schema_descr().column(leaf);
    let width = key_width(&key.data_type.kind, column.physical_type())?;
    // The file's own type must be the key's: no conversion lies between stored and compared.
    let stored = pass.read.file_fields.iter().find(|f| f.id == key.id)?;
    if stored.data_type.kind != key.data_type.kind || column.max_rep_level() != 0 {
        return None;
    }
    let leaf_kind = Leaf::new(column.physical_type(), 0, column.max_def_level())?;
    let bounds = integer_bounds(intervals)?;
    let pages = key_pages(pass, md, leaf, candidates)?;
    let wanted = pages.iter().map(|p| p.range.clone()).collect();
    // Kept for the full read, which reads the key column too.
    let kept = pass.reader.clone().keep_fetched();
    let fetched = kept.clone().get_byte_ranges(wanted).await.ok()?;
    let mut dictionaries = Dictionaries::default();
    let mut searched = Searched::default();
    let limit = pass.read.batch_size as u64;
    let mut sections: Option<Vec<(u64, PagePrefix)>> = Some(Vec::new());
    let last_page = pages.len().checked_sub(1)?;
    for (i, (page, p)) in fetched.into_iter().zip(pages).enumerate() {
        let KeyPage {
            range,
            row_group,
            first_row,
            rows,
            codec,
        } = p;
        let (mut section, start, count, indices) = required_values(page, &leaf_kind, codec)?;
        // A required flat column has one value per row: a header saying otherwise is not
        // believed (the rows found would be placed wrongly).
        if u64::try_from(count).ok()? != rows {
            return None;
        }
        let values = Values {
            start,
            count,
            first_row,
            bounds: &bounds,
        };
        let sorted = if indices {
            let dictionary = dictionaries.get(&kept, md, row_group, leaf, width).await?;
            values.dictionary(&mut section, dictionary, &mut searched, i == last_page)?
        } else {
            values.plain(width, &mut section, &mut searched, i == last_page)?
        };
        if !sorted {
            return Some(KeyPages::Unsorted);
        }
        // A point read of the rows found (at most one batch of them) decodes their pages
        // again: the page holding the last of them is kept, as far as it was decompressed, for
        // it. Past a batch, nothing is kept (a wide range's key pages are not held through the
        // read).
        let found: u64 = searched.rows.iter().map(|r| r.end - r.start).sum();
        if found > limit {
            sections = None;
        } else if let Some(k) = sections.as_mut() {
            let page = first_row..first_row + rows;
            let holds_last = searched
                .rows
                .last()
                .is_some_and(|r| r.end > page.start && r.start < page.end);
            if holds_last {
                k.push((range.start, section));
            }
        }
    }
    if let Some(sections) = sections {
        // The dictionaries too: the point read looks its indices up in them again.
        let kept = dictionaries.0.into_iter().map(|(_, at, d)| (at, d.values));
        for (offset, section) in sections.into_iter().chain(kept) {
            pass.reader.keep_decompressed(offset, section);
        }
    }
    Some(KeyPages::Found(searched.rows))
}

/// One data page's values as the search sees them.
struct Values<'a> {
    /// Where the values start in the page's values section.
    start: usize,
    /// How many there are.
    count: usize,
    /// The file row of the first.
    first_row: u64,
    /// The intervals (low, low inclusive, high, high inclusive).
    bounds: &'a [(i64, bool, i64, bool)],
}

impl Values<'_> {
    /// Whether `v` lies beyond every interval (above its high end).
    fn beyond(&self, v: i64) -> bool {
        self.bounds
            .iter()
            .all(|&(_, _, high, inclusive)| v > high || (v == high && !inclusive))
    }

    /// Checks and searches PLAIN values of `width` bytes each, a step at a time; with
    /// `may_stop`, stopping after the step whose last value is beyond every interval (the
    /// rest is neither decompressed nor checked). `false` when the values checked are out of
    /// order, `None` when the section does not hold them.
    fn plain(
        &self,
        width: usize,
        section: &mut PagePrefix,
        searched: &mut Searched,
        may_stop: bool,
    ) -> Option<bool> {
        if width == 4 {
            self.plain_width::<4>(section, searched, may_stop)
        } else {
            self.plain_width::<8>(section, searched, may_stop)
        }
    }

    fn plain_width<const W: usize>(
        &self,
        section: &mut PagePrefix,
        searched: &mut Searched,
        may_stop: bool,
    ) -> Option<bool> {
        /// Values decompressed and checked per step (32 KiB of BIGINTs).
        const STEP: usize = 4096;
        let mut checked = 0;
        while checked < self.count {
            let to = self.count.min(checked + STEP);
            let from_byte = self.start.checked_add(checked.checked_mul(W)?)?;
            let to_byte = self.start.checked_add(to.checked_mul(W)?)?;
            let values = section.get(from_byte, to_byte)?;
            if !searched.check(checked, to, |i| at::<W>(values, i - checked)) {
                return Some(false);
            }
            checked = to;
            if may_stop && searched.last.is_some_and(|v| self.beyond(v)) {
                break;
            }
        }
        let end = self.start.checked_add(checked.checked_mul(W)?)?;
        let values = section.get(self.start, end)?;
        searched.find(self.first_row, checked, |i| at::<W>(values, i), self.bounds);
        Some(true)
    }

    /// Checks and searches dictionary indices (looked up in `dictionary`, itself decompressed
    /// as far as the largest index looked up), decoding them run by run; as [`Self::plain`],
    /// and `None` for an index past the dictionary.
    fn dictionary(
        &self,
        section: &mut PagePrefix,
        dictionary: &mut DictionaryValues,
        searched: &mut Searched,
        may_stop: bool,
    ) -> Option<bool> {
        let mut runs = IndexRuns::new(section, self.start)?;
        // Not more up front than a corrupt count could make a lot of.
        let mut values: Vec<i64> = Vec::with_capacity(self.count.min(1 << 16));
        let mut ids = Vec::new();
        while values.len() < self.count {
            let checked = values.len();
            ids.clear();
            runs.next(section, self.count - checked, &mut ids)?;
            for &id in &ids {
                values.push(dictionary.value(id)?);
            }
            if !searched.check(checked, values.len(), |i| values[i]) {
                return Some(false);
            }
            if may_stop && searched.last.is_some_and(|v| self.beyond(v)) {
                break;
            }
        }
        searched.find(self.first_row, values.len(), |i| values[i], self.bounds);
        Some(true)
    }
}

/// A chunk's dictionary of integers, decompressed as far as the indices looked up need.
struct DictionaryValues {
    /// The PLAIN values section.
    values: PagePrefix,
    /// How many values it holds.
    count: usize,
    /// Bytes per value (4 or 8).
    width: usize,
}

impl DictionaryValues {
    /// Value `index`; `None` past the dictionary.
    fn value(&mut self, index: u32) -> Option<i64> {
        let k = usize::try_from(index).ok()?;
        if k >= self.count {
            return None;
        }
        let bytes = self.values.get(k * self.width, (k + 1) * self.width)?;
        Some(if self.width == 4 {
            at::<4>(bytes, 0)
        } else {
            at::<8>(bytes, 0)
        })
    }
}

/// The dictionary pages of the key column, by row group (with the page's offset), fetched as
/// needed.
#[derive(Default)]
struct Dictionaries(Vec<(usize, u64, DictionaryValues)>);

impl Dictionaries {
    /// Row group `row_group`'s dictionary of leaf `leaf` (values of `width` bytes).
    async fn get(
        &mut self,
        reader: &FileIoParquetReader,
        md: &ParquetMetaData,
        row_group: usize,
        leaf: usize,
        width: usize,
    ) -> Option<&mut DictionaryValues> {
        let at = match self.0.iter().position(|(g, _, _)| *g == row_group) {
            Some(at) => at,
            None => {
                let range = dictionary_page_range(md, row_group, leaf)?;
                let offset = range.start;
                let page = reader.clone().get_bytes(range).await.ok()?;
                let codec = md.row_group(row_group).column(leaf).compression();
                let (values, count) = Dictionary::new(page, codec)?.into_values();
                let dictionary = DictionaryValues {
                    values,
                    count,
                    width,
                };
                self.0.push((row_group, offset, dictionary));
                self.0.len() - 1
            }
        };
        self.0.get_mut(at).map(|(_, _, d)| d)
    }
}

/// The dictionary indices of a data page's values section (a bit width byte, then RLE and
/// bit-packed runs), decoded a run at a time.
struct IndexRuns {
    /// Where the next run starts in the section.
    pos: usize,
    /// The section's end.
    end: usize,
    /// Bits per index.
    width: usize,
    /// The low `width` bits.
    mask: u32,
}

impl IndexRuns {
    /// The runs of the values section `section` from `start` (its bit width byte); `None`
    /// when that byte is missing or over 32.
    fn new(section: &mut PagePrefix, start: usize) -> Option<IndexRuns> {
        let end = section.total();
        let width = *section.get(start, start + 1)?.first()?;
        if width > 32 {
            return None;
        }
        let w = usize::from(width);
        Some(IndexRuns {
            pos: start + 1,
            end,
            width: w,
            mask: if w == 32 { u32::MAX } else { (1u32 << w) - 1 },
        })
    }

    /// Appends the next run's indices, at most `left` of them (the padding of a run's last
    /// group is not read), to `out`; `None` when the run is malformed or cut short.
    fn next(&mut self, section: &mut PagePrefix, left: usize, out: &mut Vec<u32>) -> Option<()> {
        match next_run(section, &mut self.pos, self.end, self.width)? {
            Run::Repeated { len, value } => out.extend(std::iter::repeat_n(value, len.min(left))),
            Run::Packed { len, at } => {
                // Groups of 8 values of `width` bits, least significant bit first, up to `pos`.
                let run = section.get(at, self.pos)?;
                for i in 0..len.min(left) {
                    let bit = i * self.width;
                    let byte = bit / 8;
                    // The eight bytes from the value's first one (zero-padded at the run's
                    // end): a value of at most 32 bits starting within the first byte lies in
                    // them.
                    let word = match run.get(byte..byte + 8) {
                        Some(b) => u64::from_le_bytes(b.try_into().ok()?),
                        None => {
                            let tail = run.get(byte..)?;
                            let mut b = [0u8; 8];
                            b[..tail.len()].copy_from_slice(tail);
                            u64::from_le_bytes(b)
                        }
                    };
                    out.push((word >> (bit % 8)) as u32 & self.mask);
                }
            }
        }
        Some(())
    }
}

/// A key literal as a 64-bit integer.
fn integer(d: &Datum) -> Option<i64> {
    match d {
        Datum::TinyInt(v) => Some(i64::from(*v)),
        Datum::SmallInt(v) => Some(i64::from(*v)),
        Datum::Int(v) | Datum::Date(v) => Some(i64::from(*v)),
        Datum::BigInt(v) => Some(*v),
        _ => None,
    }
}

/// Value `i` of little-endian signed integers of `W` bytes each, widened; `bytes` holds more
/// than `i` of them (the callers' loops and searches stay below the count they checked).
fn at<const W: usize>(bytes: &[u8], i: usize) -> i64 {
    let mut b = [0u8; 8];
    b[..W].copy_from_slice(&bytes[i * W..(i + 1) * W]);
    // Shifted up and back down, the sign bit of a narrower value is extended.
    let shift = 64 - 8 * W as u32;
    (i64::from_le_bytes(b) << shift) >> shift
}

/// The pages searched so far, in file order.
#[derive(Default)]
struct Searched {
    /// The last value of the previous page.
    last: Option<i64>,
    /// The matching rows found.
    rows: Vec<RowRange>,
}

impl Searched {
    /// Checks that values `from..to` of the current page (`at(i)`: value `i`) are sorted,
    /// after the values checked before them; `false` when they are not.
    fn check(&mut self, from: usize, to: usize, at: impl Fn(usize) -> i64) -> bool {
        let mut prev = self.last.unwrap_or(i64::MIN);
        for i in from..to {
            let v = at(i);
            if v < prev {
                return false;
            }
            prev = v;
        }
        if to > from {
            self.last = Some(prev);
        }
        true
    }

    /// Adds the rows of the first `count` values of a page (checked sorted; `at(i)`: value
    /// `i`) whose first row is file row `first_row` that lie in an interval.
    fn find(
        &mut self,
        first_row: u64,
        count: usize,
        at: impl Fn(usize) -> i64,
        bounds: &[(i64, bool, i64, bool)],
    ) {
        let mut found: Vec<RowRange> = Vec::with_capacity(bounds.len());
        for &(low, low_inclusive, high, high_inclusive) in bounds {
            // Values below the interval form a prefix, and so do values not above it.
            let start = partition_point(count, |i| {
                let v = at(i);
                v < low || (v == low && !low_inclusive)
            });
            let end = partition_point(count, |i| {
                let v = at(i);
                v < high || (v == high && high_inclusive)
            });
            if start < end {
                found.push(first_row + start as u64..first_row + end as u64);
            }
        }
        found.sort_by_key(|r| r.start);
        for r in found {
            push_merged(&mut self.rows, r);
        }
    }
}

/// The first index in `0..n` where `pred` fails (it holds for a prefix).
fn partition_point(n: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0usize, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

#[cfg(test)]
mod tests;
