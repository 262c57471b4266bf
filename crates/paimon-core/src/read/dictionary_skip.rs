//! Dictionary pages a tiny selection does not need, left unread.
//!
//! Parquet writers (parquet-mr, Arrow C++, arrow-rs) start a column chunk dictionary-encoded
//! and fall back to PLAIN pages once the dictionary reaches its limit (1 MiB by default): a
//! column of mostly distinct values (an id, a timestamp, a random double) holds a ~1 MiB
//! dictionary page followed by PLAIN pages that never refer to it. arrow-rs fetches and
//! decompresses a chunk's dictionary page before any of its data pages, so a point lookup that
//! lands in a PLAIN page pays for a dictionary it never reads: about half the bytes and half
//! the decompression of a lookup on such files.
//!
//! For a selection of a few rows this module reads the header of every data page the selection
//! touches in a chunk that has a dictionary (the pages are fetched here, in one request, and kept
//! for the decode that follows)
//! and, for each column chunk whose touched pages are all data pages in a non-dictionary
//! encoding, removes the chunk's dictionary page from a copy of the metadata. arrow-rs then
//! neither fetches nor decodes it. The page's own header is what arrow-rs dispatches on, so a
//! dictionary-encoded page can never reach a decoder without its dictionary (arrow-rs would
//! panic); a header this module cannot read keeps the dictionary (fail open).

use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};
use parquet::arrow::async_reader::AsyncFileReader;
use parquet::file::metadata::ParquetMetaData;

use super::page_header::{PageHeader, PLAIN_DICTIONARY, RLE_DICTIONARY};
use super::parquet::FileIoParquetReader;
use super::selection::intersect;
use crate::spec::row_range::RowRange;

/// The pages of one column chunk a selection touches.
pub(crate) struct ChunkPages {
    /// The row group.
    pub(crate) row_group: usize,
    /// The leaf column.
    pub(crate) column: usize,
    /// The touched pages, in file order.
    pub(crate) pages: Vec<TouchedPage>,
}

/// A page a selection touches: its bytes (header included) and the selected rows in it.
pub(crate) struct TouchedPage {
    /// The page's byte range in the file.
    pub(crate) range: Range<u64>,
    /// The page's first row, counted from its row group's first row.
    pub(crate) first_row: u64,
    /// The page's rows, by the offset index.
    pub(crate) row_count: u64,
    /// The selected rows, page-local: sorted, disjoint, non-empty ranges (a key pass selects
    /// whole pages of rows, so they are not listed one by one).
    pub(crate) rows: Vec<Range<usize>>,
}

/// Fetches, in one request, the pages of the leaf columns `leaves` with a dictionary that
/// `ranges` (file-global rows) touch in `row_groups` (each with its file-global rows), keeping them in `reader` for
/// the decode; returns metadata without the dictionary pages no touched page needs, or `None`
/// when every dictionary is needed (or the file has no offset index).
pub(crate) async fn without_unused_dictionaries(
    meta: &ArrowReaderMetadata,
    reader: &FileIoParquetReader,
    row_groups: &[(usize, RowRange)],
    ranges: &[RowRange],
    leaves: &[usize],
) -> Option<ArrowReaderMetadata> {
    let md = meta.metadata();
    let chunks: Vec<ChunkPages> = touched_pages(md, row_groups, ranges, leaves)
        .unwrap_or_default()
        .into_iter()
        .filter(|c| has_dictionary(md, c).is_some())
        .collect();
    if chunks.is_empty() {
        return None;
    }
    let wanted: Vec<Range<u64>> = chunks
        .iter()
        .flat_map(|c| c.pages.iter().map(|p| p.range.clone()))
        .collect();
    let mut kept = reader.clone().keep_fetched();
    // A failed fetch is fetched (and reported) again by the decode.
    let fetched = kept.get_byte_ranges(wanted).await.ok()?;
    let mut fetched = fetched.into_iter();
    let mut strip: Vec<(usize, usize)> = Vec::new();
    for c in &chunks {
        let headers: Vec<Bytes> = fetched.by_ref().take(c.pages.len()).collect();
        let plain = headers.len() == c.pages.len()
            && headers
                .iter()
                .all(|h| data_page_encoding(h).is_some_and(|e| !needs_dictionary(e)));
        if plain {
            strip.push((c.row_group, c.column));
        }
    }
    if strip.is_empty() {
        return None;
    }
    let md = stripped(md, &strip)?;
    ArrowReaderMetadata::try_new(Arc::new(md), ArrowReaderOptions::new()).ok()
}

/// Every touched page of every leaf column chunk in `row_groups` (row group by row group,
/// leaves in the order given), by the offset index; `None` without one.
pub(crate) fn touched_pages(
    md: &ParquetMetaData,
    row_groups: &[(usize, RowRange)],
    ranges: &[RowRange],
    leaves: &[usize],
) -> Option<Vec<ChunkPages>> {
    let offsets = md.offset_index()?;
    let mut out = Vec::new();
    for (rg, rows) in row_groups {
        let local: Vec<RowRange> = intersect(std::slice::from_ref(rows), ranges)
            .into_iter()
            .map(|r| r.start - rows.start..r.end - rows.start)
            .collect();
        for &column in leaves {
            let locations = offsets.get(*rg)?.get(column)?.page_locations();
            let mut pages = Vec::new();
            for (i, p) in locations.iter().enumerate() {
                let first = u64::try_from(p.first_row_index).ok()?;
                let end = match locations.get(i + 1) {
                    Some(n) => u64::try_from(n.first_row_index).ok()?,
                    None => rows.end - rows.start,
                };
                let mut wanted: Vec<Range<usize>> = Vec::new();
                for r in &local {
                    let (from, to) = (r.start.max(first), r.end.min(end));
                    if from < to {
                        let from = usize::try_from(from - first).ok()?;
                        wanted.push(from..usize::try_from(to - first).ok()?);
                    }
                }
                if !wanted.is_empty() {
                    let start = u64::try_from(p.offset).ok()?;
                    let size = u64::try_from(p.compressed_page_size).ok()?;
                    pages.push(TouchedPage {
                        range: start..start + size,
                        first_row: first,
                        row_count: end.checked_sub(first)?,
                        rows: wanted,
                    });
                }
            }
            out.push(ChunkPages {
                row_group: *rg,
                column,
                pages,
            });
        }
    }
    Some(out)
}

/// The chunk's dictionary page offset, when it has one that ends where its first data page
/// starts (the layout arrow-rs derives the dictionary's location from).
fn has_dictionary(md: &ParquetMetaData, c: &ChunkPages) -> Option<i64> {
    let chunk = md.row_groups().get(c.row_group)?.columns().get(c.column)?;
    let dict = chunk.dictionary_page_offset()?;
    let first = md
        .offset_index()?
        .get(c.row_group)?
        .get(c.column)?
        .page_locations()
        .first()?
        .offset;
    (dict < first && chunk.data_page_offset() == first).then_some(dict)
}

/// A copy of `md` whose chunks `strip` (row group, column) have no dictionary page.
fn stripped(md: &ParquetMetaData, strip: &[(usize, usize)]) -> Option<ParquetMetaData> {
    let mut builder = md.clone().into_builder();
    let mut groups = builder.take_row_groups();
    for &(rg, column) in strip {
        let chunk = groups.get_mut(rg)?.columns_mut().get_mut(column)?;
        let dict = chunk.dictionary_page_offset()?;
        let without = chunk.data_page_offset() - dict;
        let changed = chunk
            .clone()
            .into_builder()
            .set_dictionary_page_offset(None)
            .set_total_compressed_size(chunk.compressed_size() - without)
            .build()
            .ok()?;
        *chunk = changed;
    }
    Some(builder.set_row_groups(groups).build())
}

/// The encoding of the data page whose bytes (header first) are `page`: `None` when it is not
/// a data page or its header cannot be read.
fn data_page_encoding(page: &[u8]) -> Option<i32> {
    PageHeader::parse(page)
        .filter(PageHeader::is_data_page)
        .map(|h| h.encoding)
}

fn needs_dictionary(encoding: i32) -> bool {
    encoding == PLAIN_DICTIONARY || encoding == RLE_DICTIONARY
}

#[cfg(test)]
mod tests;
