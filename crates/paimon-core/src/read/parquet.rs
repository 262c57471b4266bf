//! Parquet data files → Arrow record batches, streamed through [`FileIO`] ranged reads.
//!
//! Mirrors Java `org.apache.paimon.format.parquet.ParquetReaderFactory` (Paimon 2.0). The footer
//! and then only the projected column chunks of the kept row groups are fetched
//! ([`FileIoParquetReader`] implements the parquet crate's `AsyncFileReader` over
//! `FileIO::read_range`/`read_ranges`); decoding is the parquet crate's. Columns are chosen by
//! **name** (top-level names of the file, matched through the file's own schema, see
//! `docs/format.md` "Schema evolution"). INT96
//! timestamps (TIMESTAMP p > 6) decode as nanoseconds; other units and the `UTC` label of
//! TIMESTAMP_LTZ are normalised by [`super::evolution`].
//!
//! Row-group pruning: `row_group_filter` is called once per row group with its metadata
//! (statistics included); `false` skips the group, its rows are never fetched, and row ranges
//! or deletion vectors are applied only to the kept groups' rows (positions stay file-global).
//!
//! Selective reads (`DataFileRead::selective`): the page index is loaded and pages that cannot
//! match are removed from the row selection ([`super::page_index`]); a likely selective
//! predicate is evaluated first on its own columns ([`super::late`]).

use std::ops::Range;
use std::sync::{Arc, Mutex};

use arrow_buffer::BooleanBufferBuilder;
use bytes::Bytes;
use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, RowSelection, RowSelector,
};
use parquet::arrow::async_reader::AsyncFileReader;
use parquet::arrow::{ParquetRecordBatchStreamBuilder, ProjectionMask};
use parquet::errors::ParquetError;
use parquet::file::metadata::{ParquetMetaData, ParquetMetaDataReader};

use super::dictionary_skip;
use super::evolution::ReadMapping;
use super::file_reader::{DataFileRead, OpenedFile};
use super::key_lookup::{self, KeyPass};
use super::late;
use super::page_index::{load_page_index, prune_pages};
use super::parallel_columns;
use super::point_pages::{self, PagePrefix};
use super::row_group_pruning::{predicate_columns, PredicateColumns};
use super::selection::{intersect, runs_within, selected_ranges};
use crate::io::FileIO;
use crate::spec::row_range::RowRange;
use crate::{Error, Result};

/// Bytes fetched from the end of the file in the first footer read.
const FOOTER_PREFETCH: usize = 64 * 1024;

/// An `AsyncFileReader` over one file of a [`FileIO`]. Clones share what the file's earlier
/// passes kept ([`FileIoParquetReader::keep_fetched`]).
#[derive(Clone)]
pub struct FileIoParquetReader {
    io: FileIO,
    location: String,
    size: u64,
    /// The last bytes of the file, once fetched: `(offset, bytes)`. Reads inside it (footer,
    /// page index, the column chunks of a small file) are served without a request.
    tail: Option<(u64, Bytes)>,
    /// Ranges fetched by a reader that keeps them (the key pass of a lookup), served to every
    /// clone: the key column's pages are fetched once for both passes.
    fetched: Arc<Mutex<Vec<(u64, Bytes)>>>,
    keep: bool,
    /// Data sections of pages (decompressed as far as a key pass needed), by the page's
    /// offset, for the point read of the same rows (shared by clones).
    decompressed: Arc<Mutex<Vec<(u64, PagePrefix)>>>,
}

impl FileIoParquetReader {
    /// A reader of `location`, whose size is `size` bytes.
    pub fn new(io: FileIO, location: String, size: u64) -> Self {
        FileIoParquetReader {
            io,
            location,
            size,
            tail: None,
            fetched: Arc::default(),
            keep: false,
            decompressed: Arc::default(),
        }
    }

    /// Keeps the data section of the page at `page_offset`, as far as a pass decompressed it,
    /// for a later pass.
    pub(crate) fn keep_decompressed(&self, page_offset: u64, section: PagePrefix) {
        if let Ok(mut kept) = self.decompressed.lock() {
            kept.push((page_offset, section));
        }
    }

    /// The data section of the page at `page_offset`, when a pass kept it (handed over once).
    pub(crate) fn take_decompressed(&self, page_offset: u64) -> Option<PagePrefix> {
        let mut kept = self.decompressed.lock().ok()?;
        let i = kept.iter().position(|(offset, _)| *offset == page_offset)?;
        Some(kept.swap_remove(i).1)
    }

    /// Makes this reader keep every range it fetches for its clones (see the field docs).
    pub(crate) fn keep_fetched(mut self) -> Self {
        self.keep = true;
        self
    }

    /// `range` from the tail or a kept range, when one covers it.
    fn cached(&self, range: &Range<u64>) -> Option<Bytes> {
        if let Some(b) = self.in_tail(range) {
            return Some(b);
        }
        let kept = self.fetched.lock().ok()?;
        kept.iter().find_map(|(start, bytes)| {
            let s = usize::try_from(range.start.checked_sub(*start)?).ok()?;
            let e = usize::try_from(range.end.checked_sub(*start)?).ok()?;
            (s <= e && e <= bytes.len()).then(|| bytes.slice(s..e))
        })
    }

    fn remember(&self, ranges: &[Range<u64>], got: &[Bytes]) {
        if !self.keep {
            return;
        }
        if let Ok(mut kept) = self.fetched.lock() {
            kept.extend(ranges.iter().map(|r| r.start).zip(got.iter().cloned()));
        }
    }

    /// Fetches the last `n` bytes of the file (at most its size) in one request and serves
    /// later reads inside them from memory.
    pub async fn prefetch_tail(&mut self, n: u64) -> Result<()> {
        let start = self.size.saturating_sub(n);
        let bytes = self.io.read_range(&self.location, start..self.size).await?;
        if bytes.len() as u64 != self.size - start {
            return Err(Error::data_invalid("short read")
                .with_context("file", self.location.clone())
                .with_context("range", format!("{:?}", start..self.size)));
        }
        self.tail = Some((start, bytes));
        Ok(())
    }

    /// `range` from the fetched tail, when it lies inside it.
    fn in_tail(&self, range: &Range<u64>) -> Option<Bytes> {
        let (start, bytes) = self.tail.as_ref()?;
        if range.start < *start || range.end < range.start {
            return None;
        }
        let s = usize::try_from(range.start - start).ok()?;
        let e = usize::try_from(range.end - start).ok()?;
        (e <= bytes.len()).then(|| bytes.slice(s..e))
    }
}

fn external(e: Error) -> ParquetError {
    ParquetError::External(Box::new(e))
}

/// A parquet error as a crate error naming `location` (storage errors pass through unchanged).
pub(crate) fn parquet_error(e: ParquetError, location: &str) -> Error {
    match e {
        ParquetError::External(inner) => match inner.downcast::<Error>() {
            Ok(ours) => *ours,
            Err(other) => {
                Error::data_invalid(format!("parquet: {other}")).with_context("file", location)
            }
        },
        other => Error::from(other).with_context("file", location),
    }
}

impl AsyncFileReader for FileIoParquetReader {
    fn get_bytes(&mut self, range: Range<u64>) -> BoxFuture<'_, parquet::errors::Result<Bytes>> {
        if let Some(b) = self.cached(&range) {
            return futures::future::ready(Ok(b)).boxed();
        }
        async move {
            let got = self
                .io
                .read_range(&self.location, range.clone())
                .await
                .map_err(external)?;
            self.remember(std::slice::from_ref(&range), std::slice::from_ref(&got));
            Ok(got)
        }
        .boxed()
    }

    fn get_byte_ranges(
        &mut self,
        ranges: Vec<Range<u64>>,
    ) -> BoxFuture<'_, parquet::errors::Result<Vec<Bytes>>> {
        let cached: Vec<Option<Bytes>> = ranges.iter().map(|r| self.cached(r)).collect();
        if cached.iter().all(Option::is_some) {
            return futures::future::ready(Ok(cached.into_iter().flatten().collect())).boxed();
        }
        async move {
            // Only the ranges not served from memory are fetched.
            let missing: Vec<Range<u64>> = ranges
                .iter()
                .zip(&cached)
                .filter(|(_, c)| c.is_none())
                .map(|(r, _)| r.clone())
                .collect();
            let got = self
                .io
                .read_ranges(&self.location, &missing)
                .await
                .map_err(external)?;
            let short = |r: &Range<u64>| {
                external(
                    Error::data_invalid("short read")
                        .with_context("file", self.location.clone())
                        .with_context("range", format!("{r:?}")),
                )
            };
            for (r, b) in missing.iter().zip(&got) {
                if b.len() as u64 != r.end - r.start {
                    return Err(short(r));
                }
            }
            self.remember(&missing, &got);
            let mut fetched = got.into_iter();
            ranges
                .iter()
                .zip(cached)
                .map(|(r, c)| c.or_else(|| fetched.next()).ok_or_else(|| short(r)))
                .collect()
        }
        .boxed()
    }

    fn get_metadata<'a>(
        &'a mut self,
        options: Option<&'a parquet::arrow::arrow_reader::ArrowReaderOptions>,
    ) -> BoxFuture<'a, parquet::errors::Result<Arc<ParquetMetaData>>> {
        async move {
            let size = self.size;
            let md = ParquetMetaDataReader::new()
                .with_arrow_reader_options(options)
                .with_prefetch_hint(Some(FOOTER_PREFETCH))
                .load_and_finish(&mut *self, size)
                .await?;
            Ok(Arc::new(md))
        }
        .boxed()
    }
}

/// Opens a Parquet data file and streams it in the read schema; also returns the file positions
/// of the selected rows (kept row groups ∩ page-index selection ∩ key search ∩ row ranges −
/// deletion vector; with late materialization the emitted rows are a subset of them, see
/// [`super::file_reader::SelectiveRead`]).
pub(crate) async fn read_parquet(io: &FileIO, read: DataFileRead) -> Result<OpenedFile> {
    let loc = read.location.clone();
    let (reader, meta, columns) = open_file(io, &read).await?;
    let physical: Vec<&str> = meta
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    let mapping = ReadMapping::new(&read.read_fields, &read.file_fields, &physical)
        .map_err(|e| e.with_context("file", loc.clone()))?
        .with_string_views(read.string_views);
    let mask = ProjectionMask::roots(meta.parquet_schema(), mapping.roots().iter().copied());
    let md = meta.metadata().clone();
    let Selected {
        mut groups,
        mut ranges,
        pages_pruned,
    } = select_rows(&md, &read, columns.as_ref(), mapping.roots())?;
    let pass = KeyPass {
        reader: &reader,
        meta: &meta,
        read: &read,
        physical: &physical,
        groups: &groups,
        ranges: ranges.as_deref(),
    };
    let searched = match key_lookup::narrow(pass).await {
        Some(rows) => {
            groups.retain(|(_, g)| !intersect(std::slice::from_ref(g), &rows).is_empty());
            ranges = Some(rows);
            true
        }
        None => false,
    };
    // No row group keeps a row (a key search that found nothing, pages all pruned): no read
    // to set up (a point read would spawn a task per column only to find no page).
    if groups.is_empty() {
        return Ok(OpenedFile {
            batches: futures::stream::empty().boxed(),
            positions: Vec::new(),
            in_memory: true,
        });
    }
    // Late materialization only with evidence that the predicate is selective in this file:
    // pages pruned, a key search (whose runs are the answer's superset already: a row filter
    // then pays only when many rows are left), or an equality/IN naming few values of an
    // integer column's range (scattered matches: every page is decompressed anyway, but the
    // other columns are decoded only for the matching rows).
    let tiny = ranges
        .as_ref()
        .is_some_and(|r| r.iter().map(|r| r.end - r.start).sum::<u64>() <= read.batch_size as u64);
    let few_left = searched && tiny;
    let sparse = || {
        read.selective.as_ref().is_some_and(|s| {
            let row_groups: Vec<usize> = groups.iter().map(|(g, _)| *g).collect();
            late::sparse_integer_match(&s.predicate, &read.file_fields, &md, &row_groups)
        })
    };
    let evidence = pages_pruned || searched || sparse();
    let row_filter = match &read.selective {
        Some(s) if evidence && !few_left => late::row_filter(
            s,
            &read.file_fields,
            &physical,
            meta.parquet_schema(),
            mapping.roots(),
            read.string_views,
        ),
        _ => None,
    };
    let kept_rows: Vec<RowRange> = groups.iter().map(|g| g.1.clone()).collect();
    let positions = match &ranges {
        Some(r) => intersect(&kept_rows, r),
        None => kept_rows.clone(),
    };
    let roots = mapping.roots().to_vec();
    let project = move |batch: parquet::errors::Result<arrow_array::RecordBatch>| {
        let batch = batch.map_err(|e| parquet_error(e, &loc))?;
        mapping
            .project(&batch)
            .map_err(|e| e.with_context("file", loc.clone()))
    };
    // A selection of at most one batch: its values are taken from page prefixes
    // (`point_pages`); failing that, dictionary pages it does not need are left unread, and
    // its pages are decompressed on every core.
    let tiny_read = ranges.as_ref().filter(|_| tiny && row_filter.is_none());
    let point = match tiny_read {
        Some(r) => {
            let point = point_pages::PointRead {
                reader: &reader,
                meta: &meta,
                groups: &groups,
                ranges: r,
                roots: &roots,
                batch_size: read.batch_size.max(1),
            };
            point_pages::decode(point).await
        }
        None => None,
    };
    if let Some(batches) = point {
        let batches = futures::stream::iter(batches.into_iter().map(Ok))
            .map(project)
            .boxed();
        return Ok(OpenedFile {
            batches,
            positions,
            in_memory: true,
        });
    }
    let meta = match tiny_read {
        Some(r) => {
            let leaves = leaf_columns(&md, &roots);
            dictionary_skip::without_unused_dictionaries(&meta, &reader, &groups, r, &leaves)
                .await
                .unwrap_or(meta)
        }
        None => meta,
    };
    if let Some(r) = tiny_read {
        let job = parallel_columns::ColumnJob {
            reader: reader.clone(),
            meta: meta.clone(),
            row_groups: groups.iter().map(|g| g.0).collect(),
            selection: row_selection(&kept_rows, r),
            batch_size: read.batch_size.max(1),
            location: read.location.clone(),
        };
        if let Some(batches) = parallel_columns::decode(job, &roots).await? {
            let batches = futures::stream::iter(batches.into_iter().map(Ok))
                .map(project)
                .boxed();
            return Ok(OpenedFile {
                batches,
                positions,
                in_memory: true,
            });
        }
    }
    let meta = if read.string_views {
        view_metadata(&meta, &roots).unwrap_or(meta)
    } else {
        meta
    };
    let mut builder = ParquetRecordBatchStreamBuilder::new_with_metadata(reader, meta)
        .with_projection(mask)
        .with_batch_size(read.batch_size.max(1))
        .with_row_groups(groups.iter().map(|g| g.0).collect());
    if let Some(ranges) = ranges {
        builder = builder.with_row_selection(row_selection(&kept_rows, &ranges));
    }
    if let Some(filter) = row_filter {
        builder = builder.with_row_filter(filter);
    }
    let stream = builder
        .build()
        .map_err(|e| parquet_error(e, &read.location))?;
    let batches = stream.map(project).boxed();
    Ok(OpenedFile {
        batches,
        positions,
        in_memory: false,
    })
}

/// Fetches the file's tail and decodes its footer; for a selective read with predicate columns
/// that statistics can answer, also loads the page index (counted) and returns those columns.
async fn open_file(
    io: &FileIO,
    read: &DataFileRead,
) -> Result<(
    FileIoParquetReader,
    ArrowReaderMetadata,
    Option<PredicateColumns>,
)> {
    let loc = read.location.as_str();
    let size = match read.file_size {
        Some(s) => s,
        None => io.size(loc).await?,
    };
    let mut reader = FileIoParquetReader::new(io.clone(), loc.to_string(), size);
    reader.prefetch_tail(FOOTER_PREFETCH as u64).await?;
    let md = ParquetMetaDataReader::new()
        .with_prefetch_hint(Some(FOOTER_PREFETCH))
        .load_and_finish(&mut reader, size)
        .await
        .map_err(|e| parquet_error(e, loc))?;
    // Page pruning only when some predicate column has statistics to use.
    let selective = read.selective.as_ref().and_then(|s| {
        let columns = predicate_columns(&s.predicate, &read.file_fields, &s.current_fields);
        (!columns.is_empty()).then_some((s, columns))
    });
    let (md, columns) = match selective {
        Some((s, columns)) => {
            let (md, load) = load_page_index(md, &mut reader).await;
            s.metrics.add_page_index_load(load);
            (md, Some(columns))
        }
        None => (md, None),
    };
    let meta = ArrowReaderMetadata::try_new(Arc::new(md), ArrowReaderOptions::new())
        .map_err(|e| parquet_error(e, loc))?;
    Ok((reader, meta, columns))
}

/// `meta` decoding the BYTE_ARRAY columns among the top-level columns `roots` that it maps to
/// `Utf8` or `Binary` as views ([`crate::arrow::view_type`]): arrow-rs then refers to the
/// decompressed page instead of copying every value. `None` when there is no such column or
/// arrow-rs refuses the schema (the columns are then converted after decoding).
fn view_metadata(meta: &ArrowReaderMetadata, roots: &[usize]) -> Option<ArrowReaderMetadata> {
    let schema = meta.schema();
    let columns = meta.parquet_schema().root_schema().get_fields();
    let mut changed = false;
    let fields: Vec<arrow_schema::FieldRef> = schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let view = crate::arrow::view_type(f.data_type());
            let byte_array = columns.get(i).is_some_and(|c| {
                c.is_primitive() && c.get_physical_type() == parquet::basic::Type::BYTE_ARRAY
            });
            if view != *f.data_type() && byte_array && roots.contains(&i) {
                changed = true;
                Arc::new(f.as_ref().clone().with_data_type(view))
            } else {
                f.clone()
            }
        })
        .collect();
    if !changed {
        return None;
    }
    let schema = arrow_schema::Schema::new_with_metadata(fields, schema.metadata().clone());
    let options = ArrowReaderOptions::new().with_schema(Arc::new(schema));
    ArrowReaderMetadata::try_new(meta.metadata().clone(), options).ok()
}

/// Row groups by index, each with its file-global rows.
type RowGroups = Vec<(usize, RowRange)>;

/// The rows of one file to decode.
struct Selected {
    /// The row groups to decode, with their file-global rows.
    groups: RowGroups,
    /// The rows to select in them (`None`: all).
    ranges: Option<Vec<RowRange>>,
    /// Whether the page index removed rows (evidence that the predicate is selective here).
    pages_pruned: bool,
}

/// The rows to decode: row-group filter, row ranges, deletion vector and, with `columns`, page
/// pruning (counting pages of the decoded top-level columns `roots`).
fn select_rows(
    md: &ParquetMetaData,
    read: &DataFileRead,
    columns: Option<&PredicateColumns>,
    roots: &[usize],
) -> Result<Selected> {
    let mut pages_pruned = false;
    let (total, mut groups) = kept_row_groups(md, read, &read.location)?;
    let mut ranges = selected_ranges(
        total,
        read.row_ranges.as_deref(),
        read.deleted_rows.as_deref(),
    )?;
    if let (Some(s), Some(columns)) = (&read.selective, columns) {
        let leaves = leaf_columns(md, roots);
        if let Some(p) = prune_pages(md, &s.predicate, columns, &groups, &leaves) {
            s.metrics.add_pages_skipped(p.pages_skipped, p.rows_skipped);
            pages_pruned = p.rows_skipped > 0;
            ranges = Some(match ranges {
                Some(r) => intersect(&r, &p.kept),
                None => p.kept,
            });
        }
    }
    if let Some(r) = &ranges {
        // Row groups left without a selected row are not fetched at all.
        groups.retain(|(_, rows)| !intersect(std::slice::from_ref(rows), r).is_empty());
    }
    Ok(Selected {
        groups,
        ranges,
        pages_pruned,
    })
}

/// The file's row count and the row groups `read.row_group_filter` keeps, each with its
/// file-global rows.
fn kept_row_groups(
    md: &ParquetMetaData,
    read: &DataFileRead,
    loc: &str,
) -> Result<(u64, RowGroups)> {
    let mut kept = Vec::new();
    let mut offset = 0u64;
    for (i, rg) in md.row_groups().iter().enumerate() {
        let n = u64::try_from(rg.num_rows()).map_err(|_| {
            Error::data_invalid("negative row count in a row group").with_context("file", loc)
        })?;
        if read.row_group_filter.as_ref().is_none_or(|f| f(rg)) {
            kept.push((i, offset..offset + n));
        }
        offset += n;
    }
    Ok((offset, kept))
}

/// The leaf columns under the top-level columns `roots`.
pub(crate) fn leaf_columns(md: &ParquetMetaData, roots: &[usize]) -> Vec<usize> {
    let schema = md.file_metadata().schema_descr();
    (0..schema.num_columns())
        .filter(|&i| roots.contains(&schema.get_column_root_idx(i)))
        .collect()
}

/// Average selected or skipped run (rows) below which a selection is handed to arrow-rs as a
/// bitmap: the length below which its reader decodes a selection through a mask anyway
/// (`RowSelectionPolicy::Auto`'s default threshold).
const MASK_RUN_ROWS: u64 = 32;

/// The arrow-rs selection of `ranges` over the rows of the decoded row groups `groups`.
///
/// A fragmented selection (a deletion vector of scattered rows: two runs per deleted row) is
/// a bitmap of the groups' rows, one bit per row; as runs it would take 16 bytes per run, and
/// arrow-rs copies the runs left at every row group it starts.
pub(crate) fn row_selection(groups: &[RowRange], ranges: &[RowRange]) -> RowSelection {
    let (mut runs, mut rows) = (0u64, 0u64);
    runs_within(groups, ranges, |_, n| {
        runs += 1;
        rows += n;
    });
    if runs > 1 && rows / runs < MASK_RUN_ROWS {
        if let Ok(len) = usize::try_from(rows) {
            let mut mask = BooleanBufferBuilder::new(len);
            runs_within(groups, ranges, |select, n| {
                mask.append_n(n as usize, select)
            });
            return RowSelection::from_boolean_buffer(mask.finish());
        }
    }
    let mut selectors: Vec<RowSelector> = Vec::new();
    runs_within(groups, ranges, |select, n| {
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        selectors.push(if select {
            RowSelector::select(n)
        } else {
            RowSelector::skip(n)
        });
    });
    RowSelection::from(selectors)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{
        Array, BinaryArray, FixedSizeBinaryArray, Int32Array, RecordBatch, StringArray,
    };
    use arrow_schema::DataType as ArrowType;
    use parquet::arrow::arrow_reader::{
        ParquetRecordBatchReaderBuilder, RowSelection, RowSelector,
    };
    use parquet::file::properties::WriterProperties;

    use super::view_metadata;
    use crate::read::test_files::{metadata, parquet_bytes};
    use crate::spec::row_range::RowRange;

    #[test]
    fn byte_array_strings_and_binaries_of_the_read_decode_as_views() {
        let batch = RecordBatch::try_from_iter([
            (
                "s",
                Arc::new(StringArray::from(vec![
                    Some("a"),
                    None,
                    Some("a long string value"),
                ])) as Arc<dyn Array>,
            ),
            ("b", Arc::new(BinaryArray::from_vec(vec![b"x", b"", b"yz"]))),
            (
                "f",
                Arc::new(
                    FixedSizeBinaryArray::try_from_iter([b"ab", b"cd", b"ef"].into_iter()).unwrap(),
                ),
            ),
            ("i", Arc::new(Int32Array::from(vec![1, 2, 3]))),
        ])
        .unwrap();
        let bytes = parquet_bytes(&batch, WriterProperties::builder().build());
        let meta = metadata(&bytes);
        assert!(
            view_metadata(&meta, &[2, 3]).is_none(),
            "no BYTE_ARRAY column read"
        );
        let views = view_metadata(&meta, &[0, 2, 3]).unwrap();
        let types: Vec<_> = views
            .schema()
            .fields()
            .iter()
            .map(|f| f.data_type().clone())
            .collect();
        assert_eq!(
            types,
            [
                ArrowType::Utf8View,
                ArrowType::Binary,
                ArrowType::FixedSizeBinary(2),
                ArrowType::Int32
            ]
        );
        let all = view_metadata(&meta, &[0, 1, 2, 3]).unwrap();
        let decoded = ParquetRecordBatchReaderBuilder::new_with_metadata(bytes, all)
            .build()
            .unwrap()
            .next()
            .unwrap()
            .unwrap();
        assert_eq!(decoded.column(1).data_type(), &ArrowType::BinaryView);
        for (got, want) in decoded.columns().iter().zip(batch.columns()) {
            let back = arrow_cast::cast(got, want.data_type()).unwrap();
            assert_eq!(&back.to_data(), &want.to_data());
        }
    }

    /// The reference: `ranges` as runs, selector by selector.
    fn selectors(groups: &[RowRange], ranges: &[RowRange]) -> Vec<RowSelector> {
        let mut out = Vec::new();
        super::runs_within(groups, ranges, |select, n| {
            out.push(match select {
                true => RowSelector::select(n as usize),
                false => RowSelector::skip(n as usize),
            })
        });
        out
    }

    #[test]
    fn fragmented_selections_are_bitmaps_of_the_same_rows() {
        let groups = [0..1000, 2000..5000, 5000..5003];
        // Every third row deleted: runs of 2 and 1.
        let dense: Vec<RowRange> = (0..1700).map(|i| 3 * i..3 * i + 2).collect();
        // Long runs.
        let sparse = vec![10..400, 2100..4900];
        for (ranges, mask) in [(&dense, true), (&sparse, false)] {
            let got = super::row_selection(&groups, ranges);
            assert_eq!(got.as_mask().is_some(), mask);
            let want = RowSelection::from(selectors(&groups, ranges));
            assert_eq!(got.row_count(), want.row_count());
            let runs: Vec<RowSelector> = got.iter().copied().collect();
            let want_runs: Vec<RowSelector> = want.iter().copied().collect();
            assert_eq!(runs, want_runs);
        }
        // Nothing kept, or one run: never a bitmap.
        assert!(super::row_selection(&groups, &[]).as_mask().is_none());
        let whole: Vec<RowRange> = std::iter::once(0..10).collect();
        assert!(super::row_selection(&whole, &whole).as_mask().is_none());
    }
}
