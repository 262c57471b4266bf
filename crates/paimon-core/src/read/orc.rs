//! ORC data files → Arrow record batches, streamed stripe by stripe through [`FileIO`] ranged
//! reads.
//!
//! Mirrors Java `org.apache.paimon.format.orc.OrcReaderFactory` (Paimon 2.0). The file is never
//! fetched whole:
//! 1. the tail (Metadata, Footer, PostScript; sized from the PostScript, usually one 16 KiB
//!    read) is fetched by range and its type tree checked ([`check_orc_type_tree`]: orc-rust
//!    overflows the stack on a cyclic one) before orc-rust sees any byte;
//! 2. orc-rust's async `ArrowStreamReader` then reads stripe by stripe through
//!    [`OrcRangeReader`], its `AsyncChunkReader` over `FileIO::read_range`. The file size comes
//!    from the data file meta (no HEAD request when known); every read is bounds-checked, and
//!    tail reads are served from the fetched tail.
//! 3. When orc-rust fetches a stripe footer, the reader decodes it and fetches the projected
//!    columns' streams of that stripe in one `read_ranges` call (object_store coalesces and
//!    parallelises them); orc-rust's per-stream reads are then served from that cache, which
//!    holds one stripe at a time.
//!
//! Columns are chosen by name (`docs/format.md` "Schema evolution"). Row ranges and deletion
//! vectors become an orc-rust `RowSelection` when every selected run is at most
//! `MAX_PUSHED_RUN` rows (orc-rust 0.9
//! mis-reads runs longer than its batch size, so its batch size is raised to the longest run and
//! the output re-sliced); otherwise every row is decoded and filtered here. Stripes without a
//! selected row are still fetched (orc-rust 0.9 cannot skip them). orc-rust panics on some corrupt input: its open, its setup and every poll of
//! its stream run under `catch_unwind`, a panic becomes a typed error naming the file.
//!
//! Row indexes (the ORC counterpart of the Parquet page index, `super::page_index`; not used
//! yet). What orc-rust 0.9 exposes: `Stripe::read_row_indexes` parses a stripe's `ROW_INDEX`
//! streams into a `StripeRowIndex` (per primitive column, per row group of
//! `row_index_stride` rows, default 10,000: `ColumnStatistics` min / max / has-null and the
//! stream positions), and `ArrowReaderBuilder::with_predicate` (also honoured by the async
//! `ArrowStreamReader`) turns an `orc_rust::predicate::Predicate` evaluated on those statistics
//! into a row selection per stripe. What is missing for Paimon: (1) its predicate values are
//! only boolean, 8- to 64-bit integers, floats and strings (no DATE, DECIMAL, TIMESTAMP, CHAR
//! padding rules), and columns are named, not typed by field id, so a schema-evolved file
//! needs our mapping first; (2) the selection it builds goes through the same `RowSelection`
//! path whose runs longer than the batch size orc-rust 0.9 mis-reads (see `MAX_PUSHED_RUN`),
//! and it cannot be intersected with our row ranges / deletion vectors before decoding;
//! (3) skipped row groups are still fetched (whole stripe streams are read, there is no
//! stream-position seek), so the saving is decoding only, not I/O; (4) no counters of skipped
//! row groups are returned. Using it means mapping `BoundPredicate` conjuncts on supported
//! types to orc-rust predicates by physical name and counting the selection ourselves.

use std::collections::BTreeMap;
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, OnceLock};

use arrow_array::builder::BooleanBuilder;
use arrow_array::RecordBatch;
use arrow_schema::ArrowError;
use arrow_select::filter::filter_record_batch;
use bytes::{Bytes, BytesMut};
use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use orc_rust::arrow_reader::ArrowReaderBuilder;
use orc_rust::async_arrow_reader::ArrowStreamReader;
use orc_rust::error::OrcError;
use orc_rust::projection::ProjectionMask;
use orc_rust::reader::AsyncChunkReader;
use orc_rust::row_selection::RowSelection;
use orc_rust::schema::RootDataType;

use super::evolution::ReadMapping;
use super::file_reader::{DataFileRead, OpenedFile};
use super::selection::selected_ranges;
use crate::io::FileIO;
use crate::spec::orc_footer::{
    check_orc_type_tree, orc_postscript, stripe_stream_ranges, OrcPostScript,
};
use crate::{Error, Result};

/// Bytes fetched from the end of the file in the first tail read.
const TAIL_PREFETCH: u64 = 16 * 1024;

/// What the reader needs to prefetch a stripe's projected streams.
struct StripePlan {
    /// `(footer offset, footer length, stripe offset)` of every stripe.
    stripes: Vec<(u64, u64, u64)>,
    /// The projected type tree (which column ids are read).
    projected: RootDataType,
    /// Compression of the file.
    postscript: OrcPostScript,
}

/// An orc-rust `AsyncChunkReader` over one file of a [`FileIO`]: ranged reads checked against
/// the known file size (an out-of-range read is an error, never a panic), the tail served from
/// memory, and a stripe's projected streams prefetched when its footer is read.
pub struct OrcRangeReader {
    io: FileIO,
    location: String,
    size: u64,
    /// The last `tail.len()` bytes of the file.
    tail: Bytes,
    plan: Arc<OnceLock<StripePlan>>,
    /// Prefetched streams of the current stripe, by start offset.
    cache: BTreeMap<u64, Bytes>,
}

fn out_of_range(offset: u64, len: u64, size: u64) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::UnexpectedEof,
        format!("ORC read of {len} bytes at offset {offset} beyond file size {size}"),
    )
}

impl OrcRangeReader {
    /// The file offset where the fetched tail starts.
    fn tail_start(&self) -> u64 {
        self.size.saturating_sub(self.tail.len() as u64)
    }

    /// The cached bytes `offset..end`, when one prefetched stream covers them.
    fn cached(&self, offset: u64, end: u64) -> Option<Bytes> {
        let (start, b) = self.cache.range(..=offset).next_back()?;
        let from = usize::try_from(offset - start).ok()?;
        let to = usize::try_from(end - start).ok()?;
        (to <= b.len()).then(|| b.slice(from..to))
    }

    /// If `offset..offset+footer.len()` is a stripe footer, fetches that stripe's projected
    /// streams into the cache (replacing the previous stripe's). A footer this cannot decode is
    /// left to orc-rust, which reports it.
    async fn prefetch_stripe(&mut self, offset: u64, footer: &[u8]) -> Result<()> {
        let Some(plan) = self.plan.get() else {
            return Ok(());
        };
        let len = footer.len() as u64;
        let Some(&(_, _, stripe_offset)) = plan
            .stripes
            .iter()
            .find(|(fo, fl, _)| *fo == offset && *fl == len)
        else {
            return Ok(());
        };
        self.cache.clear();
        let keep =
            |c: u64| usize::try_from(c).is_ok_and(|c| plan.projected.contains_column_index(c));
        let Ok(ranges) = stripe_stream_ranges(footer, &plan.postscript, stripe_offset, keep) else {
            return Ok(());
        };
        // streams in the tail are served from it
        let tail_start = self.tail_start();
        let ranges: Vec<Range<u64>> = ranges
            .into_iter()
            .filter(|r| r.end <= offset && r.start < tail_start)
            .collect();
        if ranges.is_empty() {
            return Ok(());
        }
        let got = self.io.read_ranges(&self.location, &ranges).await?;
        for (r, b) in ranges.into_iter().zip(got) {
            if b.len() as u64 == r.end - r.start {
                self.cache.insert(r.start, b);
            }
        }
        Ok(())
    }

    async fn fetch(&mut self, offset: u64, length: u64) -> std::io::Result<Bytes> {
        let end = offset
            .checked_add(length)
            .filter(|e| *e <= self.size)
            .ok_or_else(|| out_of_range(offset, length, self.size))?;
        if length == 0 {
            return Ok(Bytes::new());
        }
        if let Some(b) = self.cached(offset, end) {
            return Ok(b);
        }
        let tail_start = self.tail_start();
        let bytes = if offset >= tail_start {
            let (from, to) = ((offset - tail_start) as usize, (end - tail_start) as usize);
            self.tail.slice(from..to)
        } else {
            self.io
                .read_range(&self.location, offset..end)
                .await
                .map_err(std::io::Error::other)?
        };
        self.prefetch_stripe(offset, &bytes)
            .await
            .map_err(std::io::Error::other)?;
        Ok(bytes)
    }
}

impl AsyncChunkReader for OrcRangeReader {
    fn len(&mut self) -> BoxFuture<'_, std::io::Result<u64>> {
        futures::future::ready(Ok(self.size)).boxed()
    }

    fn get_bytes(&mut self, offset: u64, length: u64) -> BoxFuture<'_, std::io::Result<Bytes>> {
        self.fetch(offset, length).boxed()
    }
}

/// An orc-rust error as a crate error naming `location`; storage errors of [`OrcRangeReader`]
/// pass through unchanged (keeping their kind).
fn orc_error(e: OrcError, location: &str) -> Error {
    match e {
        OrcError::IoError { source, .. } if source.get_ref().is_some_and(|i| i.is::<Error>()) => {
            match source.into_inner().map(|i| i.downcast::<Error>()) {
                Some(Ok(ours)) => *ours,
                _ => Error::data_invalid("orc: storage error").with_context("file", location),
            }
        }
        other => Error::from(other).with_context("file", location),
    }
}

fn stream_error(e: ArrowError, location: &str) -> Error {
    match e {
        ArrowError::ExternalError(inner) => match inner.downcast::<OrcError>() {
            Ok(orc) => orc_error(*orc, location),
            Err(other) => {
                Error::data_invalid(format!("orc: {other}")).with_context("file", location)
            }
        },
        other => Error::from(other).with_context("file", location),
    }
}

/// `e` naming `location` unless it already names a file.
fn with_file(e: Error, location: &str) -> Error {
    if e.context().iter().any(|(k, _)| *k == "file") {
        e
    } else {
        e.with_context("file", location)
    }
}

fn panicked(location: &str) -> Error {
    Error::data_invalid("ORC decoder failed on corrupt input").with_context("file", location)
}

/// Longest selected run (rows) handed to orc-rust as a `RowSelection`.
///
/// orc-rust 0.9's `NaiveStripeDecoder` mis-reads a selected run longer than its batch size: it
/// never shortens a partly consumed select selector, so it keeps returning rows to the end of
/// the stripe. Selections are therefore pushed down only with an orc-rust batch size of at
/// least the longest run (output re-sliced to the requested size); when a run is longer than
/// this, every row is decoded and the selection applied here ([`Rows::Filtered`]).
const MAX_PUSHED_RUN: usize = if cfg!(test) { 1000 } else { 64 * 1024 };

/// How decoded orc-rust batches become output batches.
enum Rows {
    /// Every decoded row is output (orc-rust applied the selection, if any); batches are cut
    /// to `batch_size` rows.
    All {
        /// Rows per output batch.
        batch_size: usize,
    },
    /// Rows are decoded in file order; only `ranges` (sorted, disjoint) are kept.
    Filtered {
        /// Row positions to keep.
        ranges: Vec<Range<u64>>,
        /// Position of the next decoded row.
        pos: u64,
    },
}

impl Rows {
    /// The output batches of one decoded batch (none when it has no kept rows).
    fn cut(&mut self, batch: &RecordBatch) -> Result<Vec<RecordBatch>> {
        match self {
            Rows::All { batch_size } => Ok((0..batch.num_rows())
                .step_by(*batch_size)
                .map(|at| batch.slice(at, (*batch_size).min(batch.num_rows() - at)))
                .collect()),
            Rows::Filtered { ranges, pos } => {
                let n = batch.num_rows();
                let (start, end) = (*pos, *pos + n as u64);
                *pos = end;
                let first = ranges.partition_point(|r| r.end <= start);
                let mut mask = BooleanBuilder::with_capacity(n);
                let mut at = start;
                for r in ranges.iter().skip(first).take_while(|r| r.start < end) {
                    let (s, e) = (r.start.max(start), r.end.min(end));
                    mask.append_n((s - at) as usize, false);
                    mask.append_n((e - s) as usize, true);
                    at = e;
                }
                mask.append_n((end - at) as usize, false);
                let mask = mask.finish();
                Ok(match mask.true_count() {
                    0 => vec![],
                    k if k == n => vec![batch.clone()],
                    _ => vec![filter_record_batch(batch, &mask)?],
                })
            }
        }
    }
}

/// Fetches the file tail (Metadata, Footer, PostScript) of an ORC file of `size` bytes.
async fn fetch_tail(io: &FileIO, loc: &str, size: u64) -> Result<(Bytes, OrcPostScript)> {
    if size == 0 {
        return Err(Error::data_invalid("ORC file is empty").with_context("file", loc));
    }
    let first = size.min(TAIL_PREFETCH);
    let tail = io.read_range(loc, size - first..size).await?;
    let ps = orc_postscript(&tail, loc)?;
    let want = ps.tail_len().filter(|n| *n <= size).ok_or_else(|| {
        Error::data_invalid("ORC footer: footer and metadata longer than the file")
            .with_context("file", loc)
    })?;
    if want <= first {
        return Ok((tail, ps));
    }
    let head = io.read_range(loc, size - want..size - first).await?;
    let mut all = BytesMut::new();
    all.extend_from_slice(&head);
    all.extend_from_slice(&tail);
    Ok((all.freeze(), ps))
}

/// Projection, row selection and batch size on an opened builder; returns the stream, the
/// mapping to the read schema and how to cut its batches. May panic on corrupt metadata (run under `catch_unwind`).
fn configure(
    builder: ArrowReaderBuilder<OrcRangeReader>,
    read: &DataFileRead,
    postscript: OrcPostScript,
    plan: &OnceLock<StripePlan>,
) -> Result<Configured> {
    let root = builder.file_metadata().root_data_type().clone();
    let physical: Vec<&str> = root.children().iter().map(|c| c.name()).collect();
    let mapping = ReadMapping::new(&read.read_fields, &read.file_fields, &physical)?
        .with_string_views(read.string_views);
    let column_ids: Vec<usize> = mapping
        .roots()
        .iter()
        .filter_map(|i| root.children().get(*i))
        .map(|c| c.data_type().column_index())
        .collect();
    let stripes = builder
        .file_metadata()
        .stripe_metadatas()
        .iter()
        .map(|s| (s.footer_offset(), s.footer_length(), s.offset()))
        .collect();
    let projected = root.project(&ProjectionMask::roots(&root, column_ids.iter().copied()));
    let _ = plan.set(StripePlan {
        stripes,
        projected,
        postscript,
    });
    let total = builder.file_metadata().number_of_rows();
    let batch_size = read.batch_size.max(1);
    let builder = builder.with_projection(ProjectionMask::roots(&root, column_ids));
    let selected = selected_ranges(
        total,
        read.row_ranges.as_deref(),
        read.deleted_rows.as_deref(),
    )?;
    let positions = selected
        .clone()
        .unwrap_or_else(|| std::iter::once(0..total).collect());
    let (builder, rows) = match selected {
        None => (
            builder.with_batch_size(batch_size),
            Rows::All { batch_size },
        ),
        Some(ranges) => {
            let longest = ranges.iter().map(|r| r.end - r.start).max().unwrap_or(0);
            match usize::try_from(longest) {
                Ok(l) if l <= MAX_PUSHED_RUN => {
                    let to_usize = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
                    let sel = RowSelection::from_consecutive_ranges(
                        ranges
                            .into_iter()
                            .map(|r| to_usize(r.start)..to_usize(r.end)),
                        to_usize(total),
                    );
                    let builder = builder
                        .with_batch_size(l.max(batch_size))
                        .with_row_selection(sel);
                    (builder, Rows::All { batch_size })
                }
                _ => {
                    let rows = Rows::Filtered { ranges, pos: 0 };
                    (builder.with_batch_size(batch_size), rows)
                }
            }
        }
    };
    Ok(Configured {
        stream: builder.build_async(),
        mapping,
        rows,
        positions,
    })
}

/// A configured orc-rust stream and how its batches become output.
struct Configured {
    stream: ArrowStreamReader<OrcRangeReader>,
    mapping: ReadMapping,
    rows: Rows,
    /// File positions of the emitted rows (sorted, disjoint).
    positions: Vec<Range<u64>>,
}

/// Opens an ORC data file and streams it in the read schema, one stripe in memory at a time;
/// also returns the file positions of the emitted rows.
pub(crate) async fn read_orc(io: &FileIO, read: DataFileRead) -> Result<OpenedFile> {
    let loc = read.location.clone();
    let size = match read.file_size {
        Some(s) => s,
        None => io.size(&loc).await?,
    };
    let (tail, postscript) = fetch_tail(io, &loc, size).await?;
    // orc-rust overflows the stack on a cyclic type tree: reject it first.
    check_orc_type_tree(&tail, &loc)?;
    let plan = Arc::new(OnceLock::new());
    let reader = OrcRangeReader {
        io: io.clone(),
        location: loc.clone(),
        size,
        tail,
        plan: plan.clone(),
        cache: BTreeMap::new(),
    };
    let builder = AssertUnwindSafe(ArrowReaderBuilder::try_new_async(reader))
        .catch_unwind()
        .await
        .map_err(|_| panicked(&loc))?
        .map_err(|e| orc_error(e, &loc))?;
    let Configured {
        stream,
        mapping,
        mut rows,
        positions,
    } = catch_unwind(AssertUnwindSafe(|| {
        configure(builder, &read, postscript, &plan)
    }))
    .map_err(|_| panicked(&loc))?
    .map_err(|e| e.with_context("file", loc.clone()))?;
    let batches = AssertUnwindSafe(stream)
        .catch_unwind()
        .scan(false, move |failed, next| {
            if *failed {
                return futures::future::ready(None);
            }
            let items: Result<Vec<RecordBatch>> = match next {
                Err(_) => Err(panicked(&loc)),
                Ok(Err(e)) => Err(stream_error(e, &loc)),
                Ok(Ok(batch)) => rows
                    .cut(&batch)
                    .and_then(|bs| bs.iter().map(|b| mapping.project(b)).collect()),
            };
            let items = items.map_err(|e| with_file(e, &loc));
            *failed = items.is_err();
            let items: Vec<Result<RecordBatch>> = match items {
                Ok(bs) => bs.into_iter().map(Ok).collect(),
                Err(e) => vec![Err(e)],
            };
            futures::future::ready(Some(futures::stream::iter(items)))
        })
        .flatten();
    Ok(OpenedFile {
        batches: batches.boxed(),
        positions,
        in_memory: false,
    })
}

#[cfg(test)]
mod tests;
