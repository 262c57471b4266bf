//! Point reads from page prefixes: the few rows of a tiny selection (a key lookup's match)
//! decoded without decompressing whole pages.
//!
//! arrow-rs decompresses a data page whole before decoding any of its values, so a lookup of one
//! row pays for every page it touches in full: ~1 MiB of zstd per column in files written with
//! the usual 1 MiB pages, most of a point lookup's time. Here, for flat columns, each touched
//! page's header is read ([`super::page_header`]), its data decompressed only up to the last
//! wanted row ([`prefix::PagePrefix`]: half a page on average), and the wanted values copied out
//! ([`extract`]). A zstd page is fetched only as far as that row likely needs (its share of the
//! page's bytes and a margin, [`likely_range`]), and whole when that proves short. The values
//! of each column then form one small uncompressed PLAIN page that arrow-rs decodes as usual,
//! so types, logical-type conversions and the schema are exactly those of a normal read.
//! Dictionary-encoded pages look their indices up in the chunk's dictionary page, decompressed
//! as far as the largest index; `DELTA_BINARY_PACKED` integer pages (our `_SEQUENCE_NUMBER`)
//! are decoded as far as the last wanted row ([`delta`]).
//!
//! Applies when every projected column is a flat leaf (no repetition, definition level at
//! most 1), the file has an offset index, and every touched page is PLAIN, dictionary or
//! (INT32, INT64) `DELTA_BINARY_PACKED` encoded with a codec read here (zstd, Snappy, LZ4 raw,
//! none). Anything else, and any error (an unreadable header, data that does not decompress),
//! is `None`: the caller reads the same rows with arrow-rs, which also reports what is wrong
//! with the file.

mod delta;
mod extract;
mod prefix;

pub(crate) use self::extract::{next_run, Dictionary, Leaf, Run};
pub(crate) use self::prefix::PagePrefix;

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use arrow_array::RecordBatch;
use bytes::Bytes;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ParquetRecordBatchReader, RowGroups as ArrowRowGroups,
};
use parquet::arrow::async_reader::AsyncFileReader;
use parquet::arrow::{parquet_to_arrow_field_levels, ProjectionMask};
use parquet::basic::{Compression, Encoding};
use parquet::column::page::{Page, PageIterator, PageMetadata, PageReader};
use parquet::errors::ParquetError;
use parquet::file::metadata::{ColumnChunkMetaData, ParquetMetaData, RowGroupMetaData};

use self::extract::{pick, plain_page, FetchedPage, Picked};
use super::dictionary_skip::{touched_pages, TouchedPage};
use super::page_header::{PageHeader, PLAIN};
use super::parquet::{leaf_columns, FileIoParquetReader};
use super::selection::intersect;
use crate::spec::row_range::RowRange;

/// A tiny selection of one file.
pub(crate) struct PointRead<'a> {
    /// A reader of the file.
    pub(crate) reader: &'a FileIoParquetReader,
    /// The file's metadata, with its offset index.
    pub(crate) meta: &'a ArrowReaderMetadata,
    /// The row groups to read, each with its file-global rows.
    pub(crate) groups: &'a [(usize, RowRange)],
    /// The selected rows (file-global, sorted, disjoint).
    pub(crate) ranges: &'a [RowRange],
    /// The projected top-level columns.
    pub(crate) roots: &'a [usize],
    /// Rows per batch of the result.
    pub(crate) batch_size: usize,
}

/// One touched page of one leaf, with its row group.
struct PageJob {
    row_group: usize,
    page: TouchedPage,
    /// The bytes fetched first: the page's start, as far as its rows likely need
    /// ([`likely_range`]).
    fetch: Range<u64>,
}

/// What one leaf column needs read.
struct LeafJob {
    column: usize,
    leaf: Leaf,
    pages: Vec<PageJob>,
}

/// The selected rows of the projected columns, as arrow-rs would decode them; `None` when this
/// read does not apply (see the module documentation).
pub(crate) async fn decode(read: PointRead<'_>) -> Option<Vec<RecordBatch>> {
    let md = read.meta.metadata();
    let mut jobs = plan(md, &read)?;
    // Each leaf fetches, decompresses and picks on its own task: the copies out of the page
    // cache and the fresh memory they fault in are spread over the cores with the rest. The
    // last one is picked here, on the caller's task, which would otherwise only wait.
    let last = jobs.pop()?;
    let mut tasks = Vec::with_capacity(jobs.len());
    for job in jobs {
        let ready = kept_sections(read.reader, md, &job);
        let reader = read.reader.clone();
        let md = md.clone();
        tasks.push(tokio::spawn(async move {
            let picked = read_leaf(&reader, &md, &job, ready).await;
            (job, picked)
        }));
    }
    let ready = kept_sections(read.reader, md, &last);
    let picked = read_leaf(read.reader, md, &last, ready).await;
    let mut columns = Vec::with_capacity(tasks.len() + 1);
    for t in futures::future::join_all(tasks).await {
        let (job, picked) = t.ok()?;
        columns.push((job.column, job.leaf, picked?));
    }
    columns.push((last.column, last.leaf, picked?));
    arrow_decode(read.meta, &read, columns)
}

/// The sections of `job`'s pages and dictionary pages that a key pass decompressed (as far as
/// it needed), by page offset, taken from `reader`.
fn kept_sections(
    reader: &FileIoParquetReader,
    md: &ParquetMetaData,
    job: &LeafJob,
) -> HashMap<u64, PagePrefix> {
    let dictionaries = job
        .pages
        .iter()
        .filter_map(|p| dictionary_page_range(md, p.row_group, job.column));
    job.pages
        .iter()
        .map(|p| p.page.range.clone())
        .chain(dictionaries)
        .filter_map(|r| Some((r.start, reader.take_decompressed(r.start)?)))
        .collect()
}

/// The values of a PLAIN or dictionary-encoded data page (`page`: header first) of a required
/// flat leaf: the section holding them (decompressed as far as asked), where they start in it,
/// how many there are, and whether they are dictionary indices (a bit width byte, then the
/// RLE/bit-packed hybrid); `None` for another kind of page, or a header that cannot be read.
pub(crate) fn required_values(
    page: Bytes,
    leaf: &Leaf,
    codec: Compression,
) -> Option<(PagePrefix, usize, usize, bool)> {
    let h = PageHeader::parse(&page)?;
    let indices = h.needs_dictionary();
    if !h.is_data_page() || !(h.encoding == PLAIN || indices) || leaf.max_def != 0 {
        return None;
    }
    let data = h.data(&page)?;
    let (values, start, levels) = extract::sections(&h, data, leaf, codec, None)?;
    if levels.is_some() {
        return None;
    }
    Some((values, start, usize::try_from(h.num_values).ok()?, indices))
}

/// Where the dictionary page of leaf `column` in row group `row_group` lies: from the chunk's
/// dictionary page offset to its first data page; `None` without one.
pub(crate) fn dictionary_page_range(
    md: &ParquetMetaData,
    row_group: usize,
    column: usize,
) -> Option<Range<u64>> {
    let chunk = md.row_groups().get(row_group)?.columns().get(column)?;
    let start = u64::try_from(chunk.dictionary_page_offset()?).ok()?;
    let end = u64::try_from(chunk.data_page_offset()).ok()?;
    (start < end).then_some(start..end)
}

/// The leaves and pages to read; `None` when a column is not flat or an index is missing.
fn plan(md: &ParquetMetaData, read: &PointRead<'_>) -> Option<Vec<LeafJob>> {
    let schema = md.file_metadata().schema_descr();
    let columns = leaf_columns(md, read.roots);
    let mut jobs = Vec::with_capacity(columns.len());
    for &column in &columns {
        let c = schema.column(column);
        if c.max_rep_level() != 0 || !schema.get_column_root(column).is_primitive() {
            return None;
        }
        let leaf = Leaf::new(c.physical_type(), c.type_length(), c.max_def_level())?;
        jobs.push(LeafJob {
            column,
            leaf,
            pages: Vec::new(),
        });
    }
    for chunk in touched_pages(md, read.groups, read.ranges, &columns)? {
        let job = jobs.iter_mut().find(|j| j.column == chunk.column)?;
        let meta = md.row_group(chunk.row_group).column(chunk.column);
        job.pages
            .extend(chunk.pages.into_iter().map(|page| PageJob {
                row_group: chunk.row_group,
                fetch: likely_range(meta, &page),
                page,
            }));
    }
    Some(jobs)
}

/// Compressed bytes of a zstd page fetched beyond the share of its rows read: the rest of the
/// zstd block holding the last row (up to 128 KiB decompressed, at the chunk's compression
/// ratio, with a quarter more for pages that compress worse than their chunk), the page header
/// and definition levels.
fn zstd_margin(meta: &ColumnChunkMetaData) -> u64 {
    const BLOCK: u64 = 128 * 1024;
    const HEADER: u64 = 4 * 1024;
    let packed = u64::try_from(meta.compressed_size()).unwrap_or(0);
    let raw = u64::try_from(meta.uncompressed_size()).unwrap_or(0).max(1);
    let block = u128::from(BLOCK) * u128::from(packed.min(raw)) * 5 / 4 / u128::from(raw);
    u64::try_from(block).unwrap_or(BLOCK) + HEADER
}

/// The part of `page` fetched first: for a zstd page, its start as far as the rows read
/// likely need, the share of its bytes up to the last row read and [`zstd_margin`] (its data
/// is decompressed only that far, [`PagePrefix`]); the whole page for other codecs. A prefix
/// that proves short is fetched again whole.
fn likely_range(meta: &ColumnChunkMetaData, page: &TouchedPage) -> Range<u64> {
    let whole = page.range.clone();
    if !matches!(meta.compression(), Compression::ZSTD(_)) || page.row_count == 0 {
        return whole;
    }
    let len = whole.end - whole.start;
    let last = page.rows.last().map_or(0, |r| r.end) as u64;
    let share = u128::from(len) * u128::from(last.min(page.row_count)) / u128::from(page.row_count);
    let want = u64::try_from(share)
        .unwrap_or(len)
        .saturating_add(zstd_margin(meta));
    whole.start..whole.start + want.min(len)
}

/// The picked rows of one leaf: its pages fetched (as far as likely needed, [`likely_range`]),
/// with the dictionary pages they need, then picked; a page fetched in part that proves short
/// has the leaf read again from its whole pages.
async fn read_leaf(
    reader: &FileIoParquetReader,
    md: &ParquetMetaData,
    job: &LeafJob,
    ready: HashMap<u64, PagePrefix>,
) -> Option<Picked> {
    let wanted = job.pages.iter().map(|p| p.fetch.clone()).collect();
    let bytes = reader.clone().get_byte_ranges(wanted).await.ok()?;
    let codecs: HashMap<usize, Compression> = job
        .pages
        .iter()
        .map(|p| {
            let codec = md.row_group(p.row_group).column(job.column).compression();
            (p.row_group, codec)
        })
        .collect();
    let dictionaries = dictionaries(reader, md, job, &bytes).await?;
    if let Some(picked) = pick_leaf(md, job, bytes, &codecs, &dictionaries, ready) {
        return Some(picked);
    }
    if job.pages.iter().all(|p| p.fetch == p.page.range) {
        return None;
    }
    let whole = job.pages.iter().map(|p| p.page.range.clone()).collect();
    let bytes = reader.clone().get_byte_ranges(whole).await.ok()?;
    pick_leaf(md, job, bytes, &codecs, &dictionaries, HashMap::new())
}

/// The dictionary pages (by row group) of the chunks of `job` with a touched page that needs
/// one (`pages`: the touched pages' bytes, headers first), fetched in one request.
async fn dictionaries(
    reader: &FileIoParquetReader,
    md: &ParquetMetaData,
    job: &LeafJob,
    pages: &[Bytes],
) -> Option<HashMap<usize, Bytes>> {
    let mut groups: Vec<usize> = Vec::new();
    let mut ranges: Vec<Range<u64>> = Vec::new();
    for (p, b) in job.pages.iter().zip(pages) {
        if groups.contains(&p.row_group) || !PageHeader::parse(b)?.needs_dictionary() {
            continue;
        }
        groups.push(p.row_group);
        ranges.push(dictionary_page_range(md, p.row_group, job.column)?);
    }
    if ranges.is_empty() {
        return Some(HashMap::new());
    }
    let got = reader.clone().get_byte_ranges(ranges).await.ok()?;
    Some(groups.into_iter().zip(got).collect())
}

/// The picked rows of one leaf from its fetched pages (`ready`: page and dictionary sections a
/// key pass decompressed, by page offset).
fn pick_leaf(
    md: &ParquetMetaData,
    job: &LeafJob,
    pages: Vec<Bytes>,
    codecs: &HashMap<usize, Compression>,
    dictionaries: &HashMap<usize, Bytes>,
    mut ready: HashMap<u64, PagePrefix>,
) -> Option<Picked> {
    let mut picked = Picked::default();
    let mut decoded: HashMap<usize, Dictionary> = HashMap::new();
    for (p, bytes) in job.pages.iter().zip(pages) {
        let codec = *codecs.get(&p.row_group)?;
        let dictionary = match dictionaries.get(&p.row_group) {
            Some(d) => Some(match decoded.entry(p.row_group) {
                Entry::Occupied(e) => e.into_mut(),
                Entry::Vacant(e) => {
                    let offset = dictionary_page_range(md, p.row_group, job.column)?.start;
                    let kept = ready.remove(&offset);
                    e.insert(Dictionary::with_values(d.clone(), codec, kept)?)
                }
            }),
            None => None,
        };
        // A tiny selection: its rows one by one.
        let rows: Vec<usize> = p.page.rows.iter().flat_map(Range::clone).collect();
        let page = FetchedPage {
            bytes,
            codec,
            ready: ready.remove(&p.page.range.start),
        };
        pick(page, &job.leaf, dictionary, &rows, &mut picked)?;
    }
    Some(picked)
}

/// arrow-rs's decode of one PLAIN page per leaf holding the picked rows.
fn arrow_decode(
    meta: &ArrowReaderMetadata,
    read: &PointRead<'_>,
    columns: Vec<(usize, Leaf, Picked)>,
) -> Option<Vec<RecordBatch>> {
    // Every column holds every selected row, or the read does not apply.
    let rows: u64 = read
        .groups
        .iter()
        .flat_map(|(_, g)| intersect(std::slice::from_ref(g), read.ranges))
        .map(|r| r.end - r.start)
        .sum();
    let rows = usize::try_from(rows).ok()?;
    if columns.is_empty() || columns.iter().any(|c| c.2.rows != rows) {
        return None;
    }
    let schema = meta.parquet_schema();
    let leaves: Vec<usize> = columns.iter().map(|c| c.0).collect();
    let mask = ProjectionMask::leaves(schema, leaves);
    let levels = parquet_to_arrow_field_levels(schema, mask, Some(meta.schema().fields())).ok()?;
    let pages = columns
        .iter()
        .map(|(column, leaf, picked)| {
            let page = Page::DataPage {
                buf: Bytes::from(plain_page(leaf, picked)),
                num_values: u32::try_from(picked.rows).ok()?,
                encoding: Encoding::PLAIN,
                def_level_encoding: Encoding::RLE,
                rep_level_encoding: Encoding::RLE,
                statistics: None,
            };
            Some((*column, page))
        })
        .collect::<Option<Vec<_>>>()?;
    let group = PickedGroup {
        metadata: meta.metadata().clone(),
        rows,
        pages,
    };
    let reader = ParquetRecordBatchReader::try_new_with_row_groups(
        &levels,
        &group,
        read.batch_size.max(1),
        None,
    )
    .ok()?;
    reader.collect::<Result<Vec<_>, _>>().ok()
}

/// A row group of the picked rows: one page per leaf.
struct PickedGroup {
    metadata: Arc<ParquetMetaData>,
    rows: usize,
    pages: Vec<(usize, Page)>,
}

impl ArrowRowGroups for PickedGroup {
    fn num_rows(&self) -> usize {
        self.rows
    }

    fn column_chunks(&self, i: usize) -> parquet::errors::Result<Box<dyn PageIterator>> {
        let page = self
            .pages
            .iter()
            .find(|(c, _)| *c == i)
            .map(|(_, p)| p.clone())
            .ok_or_else(|| ParquetError::General(format!("no picked page for column {i}")))?;
        Ok(Box::new(OneChunk(Some(OnePage {
            page: Some(page),
            rows: self.rows,
        }))))
    }

    fn row_groups(&self) -> Box<dyn Iterator<Item = &RowGroupMetaData> + '_> {
        Box::new(self.metadata.row_groups().iter())
    }

    fn metadata(&self) -> &ParquetMetaData {
        &self.metadata
    }
}

/// The column chunk of one page.
struct OneChunk(Option<OnePage>);

impl Iterator for OneChunk {
    type Item = parquet::errors::Result<Box<dyn PageReader>>;

    fn next(&mut self) -> Option<Self::Item> {
        self.0
            .take()
            .map(|p| Ok(Box::new(p) as Box<dyn PageReader>))
    }
}

impl PageIterator for OneChunk {}

/// A page reader of one page.
struct OnePage {
    page: Option<Page>,
    rows: usize,
}

impl Iterator for OnePage {
    type Item = parquet::errors::Result<Page>;

    fn next(&mut self) -> Option<Self::Item> {
        self.page.take().map(Ok)
    }
}

impl PageReader for OnePage {
    fn get_next_page(&mut self) -> parquet::errors::Result<Option<Page>> {
        Ok(self.page.take())
    }

    fn peek_next_page(&mut self) -> parquet::errors::Result<Option<PageMetadata>> {
        Ok(self.page.as_ref().map(|_| PageMetadata {
            num_rows: Some(self.rows),
            num_levels: Some(self.rows),
            is_dict: false,
        }))
    }

    fn skip_next_page(&mut self) -> parquet::errors::Result<()> {
        self.page = None;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
