//! Page prefixes of the other columns decompressed ahead, while a key search runs.
//!
//! A point lookup in one file is two steps: the key search decompresses the key's page as far
//! as the key (a fraction of a millisecond on one core), then the point read decompresses each
//! other column's page as far as the row found ([`super::PagePrefix`]). During the first step
//! the other cores have nothing to do, yet most of the second step's work is predictable: a
//! key's row in its page can be estimated from the page's min and max (its column index), and
//! every column's page up to a little before that row must be decompressed anyway.
//!
//! [`Ahead::start`] fetches the page of each other column holding the estimated row, as far as
//! the point read would fetch it for that row (kept by the reader, so the point read's own
//! fetch is served from memory when the estimate was not short), and decompresses it up to a
//! margin before that row, one column after the other, on a task of its own (on the other
//! worker). Each page is promised to the reader before the task starts on it
//! ([`FileIoParquetReader::promise_decompressed`]) and sent when the task stops on it.
//! [`Ahead::finish`], called when the search is done, stops the task after its current step
//! and starts no other page: the point read picks the columns it finished at once, waits only
//! for the page in progress, and decompresses every other one itself. It goes on from where the
//! task stopped. A wrong estimate costs only the idle core's time: a prefix that falls short is
//! continued, one past the row is already enough, and one of a page the row is not in is never
//! taken. Only the section [`super::extract::sections`] builds is kept, so the point read
//! decodes exactly what it would have decoded itself.
//!
//! Used only in a read of one file ([`crate::read::SelectiveRead::only_file`]): with more files
//! read at once, the other cores are not idle.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use parquet::arrow::async_reader::AsyncFileReader;
use parquet::basic::Compression;
use parquet::file::metadata::ParquetMetaData;
use tokio::task::JoinHandle;

use super::extract::{sections, Leaf};
use super::likely_range;
use super::prefix::PagePrefix;
use crate::read::dictionary_skip::touched_pages;
use crate::read::metrics::ReadMetrics;
use crate::read::page_header::PageHeader;
use crate::read::parquet::FileIoParquetReader;
use crate::spec::row_range::RowRange;

/// Decompressed bytes per step: how often the task looks whether it should stop.
const STEP: usize = 32 * 1024;

/// One page to decompress ahead: the start of its bytes in the file to fetch (as far as the
/// estimated row likely needs), its chunk's codec, its leaf, and the share of its rows before
/// the estimated row (`before` of `rows`).
struct AheadPage {
    fetch: Range<u64>,
    codec: Compression,
    leaf: Leaf,
    before: u64,
    rows: u64,
}

/// The decompression ahead of one point read (see the module documentation).
pub(crate) struct Ahead {
    stop: Arc<AtomicBool>,
    task: JoinHandle<()>,
}

impl Ahead {
    /// Starts decompressing, on a task of its own, the pages of leaf columns `leaves` that
    /// hold file row `row` (the estimate), in `row_groups` (each with its file-global rows);
    /// `None` when there is no such page of a leaf this module reads, or no second core to
    /// run the task on while the caller searches.
    pub(crate) fn start(
        reader: &FileIoParquetReader,
        md: &ParquetMetaData,
        row_groups: &[(usize, RowRange)],
        leaves: &[usize],
        row: u64,
        metrics: Arc<ReadMetrics>,
    ) -> Option<Ahead> {
        let handle = tokio::runtime::Handle::try_current().ok()?;
        if crate::blocking::default_parallelism() < 2 {
            return None;
        }
        let pages = pages(md, row_groups, leaves, row)?;
        if pages.is_empty() {
            return None;
        }
        let stop = Arc::new(AtomicBool::new(false));
        let reader = reader.clone().keep_fetched();
        let task = handle.spawn(run(reader, pages, stop.clone(), metrics));
        // Spawned from a worker, a task waits in that worker's next-task slot, which other
        // workers do not steal, until the spawning task yields; the search does not. A second,
        // empty task takes that slot and moves this one to the worker's queue, from which an
        // idle worker, woken for it, takes it (tokio's multi-thread scheduler). Without
        // another worker (a current-thread runtime) it runs once the search is done, and stops
        // at once.
        drop(handle.spawn(async {}));
        Some(Ahead { stop, task })
    }

    /// Stops the task: it sends the page it is on when it has decompressed its current step
    /// (the point read waits for that page only) and starts no other.
    pub(crate) fn finish(self) {
        self.stop.store(true, Ordering::Relaxed);
        // Detached: it ends on its own, soon.
        drop(self.task);
    }

    /// Waits for the task to finish every page without stopping it (tests: a deterministic
    /// amount of work done ahead).
    #[cfg(test)]
    pub(crate) async fn complete(self) {
        let _ = self.task.await;
    }
}

/// The page of each of `leaves` holding file row `row`, for the flat leaves this module reads.
fn pages(
    md: &ParquetMetaData,
    row_groups: &[(usize, RowRange)],
    leaves: &[usize],
    row: u64,
) -> Option<Vec<AheadPage>> {
    let schema = md.file_metadata().schema_descr();
    let target: RowRange = row..row.checked_add(1)?;
    let mut out = Vec::new();
    for chunk in touched_pages(md, row_groups, std::slice::from_ref(&target), leaves)? {
        let column = schema.column(chunk.column);
        if column.max_rep_level() != 0 || !schema.get_column_root(chunk.column).is_primitive() {
            continue;
        }
        let Some(leaf) = Leaf::new(
            column.physical_type(),
            column.type_length(),
            column.max_def_level(),
        ) else {
            continue;
        };
        let meta = md.row_group(chunk.row_group).column(chunk.column);
        let codec = meta.compression();
        for page in chunk.pages {
            let before = page.rows.first().map_or(0, |r| r.start as u64);
            out.push(AheadPage {
                fetch: likely_range(meta, &page),
                codec,
                leaf,
                before,
                rows: page.row_count,
            });
        }
    }
    Some(out)
}

/// Fetches and decompresses `pages` one after the other until `stop`, promising each to
/// `reader` before it starts on it and sending it when it stops.
async fn run(
    reader: FileIoParquetReader,
    pages: Vec<AheadPage>,
    stop: Arc<AtomicBool>,
    metrics: Arc<ReadMetrics>,
) {
    for page in pages {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let promise = reader.promise_decompressed(page.fetch.start);
        let Some(section) = decompress(&reader, &page, &stop).await else {
            continue;
        };
        metrics.add_page_ahead();
        // The receiver is gone when the point read did not want this page.
        let _ = promise.send(section);
    }
}

/// `page`'s data section, fetched and decompressed as far as the estimate wants or until
/// `stop`; `None` when that fails or nothing was decompressed (the read does it all).
async fn decompress(
    reader: &FileIoParquetReader,
    page: &AheadPage,
    stop: &AtomicBool,
) -> Option<PagePrefix> {
    let bytes = reader.clone().get_bytes(page.fetch.clone()).await.ok()?;
    let h = PageHeader::parse(&bytes)?;
    let data = h.data(&bytes).filter(|_| h.is_data_page())?;
    let (mut section, _, _) = sections(&h, data, &page.leaf, page.codec, None)?;
    let want = short_of(section.total(), page.before, page.rows);
    while section.decompressed() < want && !stop.load(Ordering::Relaxed) {
        let to = want.min(section.decompressed().saturating_add(STEP));
        section.get(0, to)?;
    }
    (section.decompressed() > 0).then_some(section)
}

/// How far to decompress a section of `total` bytes whose page holds the wanted row after
/// `before` of its `rows` rows: that share of the section, less a margin for rows of uneven
/// sizes (a 64th of the section and 4 KiB), so that it seldom passes the row.
fn short_of(total: usize, before: u64, rows: u64) -> usize {
    if rows == 0 {
        return 0;
    }
    let share = u128::from(before.min(rows)) * total as u128 / u128::from(rows);
    let share = usize::try_from(share).unwrap_or(total);
    share.saturating_sub(total / 64 + 4096)
}

#[cfg(test)]
mod tests {
    use super::short_of;

    #[test]
    fn the_share_stops_short_of_the_row() {
        assert_eq!(short_of(1 << 20, 0, 1000), 0);
        assert_eq!(short_of(1 << 20, 500, 1000), (1 << 19) - (1 << 14) - 4096);
        assert_eq!(short_of(1 << 20, 2000, 1000), (1 << 20) - (1 << 14) - 4096);
        assert_eq!(short_of(1 << 20, 5, 0), 0);
        assert_eq!(short_of(100, 50, 100), 0);
    }
}
