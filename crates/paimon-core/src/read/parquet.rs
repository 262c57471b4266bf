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

use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use parquet::arrow::arrow_reader::{RowSelection, RowSelector};
use parquet::arrow::async_reader::AsyncFileReader;
use parquet::arrow::{ParquetRecordBatchStreamBuilder, ProjectionMask};
use parquet::errors::ParquetError;
use parquet::file::metadata::{ParquetMetaData, ParquetMetaDataReader};

use super::evolution::ReadMapping;
use super::file_reader::{DataFileRead, OpenedFile};
use super::selection::{intersect, runs_within, selected_ranges};
use crate::io::FileIO;
use crate::{Error, Result};

/// Bytes fetched from the end of the file in the first footer read.
const FOOTER_PREFETCH: usize = 64 * 1024;

/// An `AsyncFileReader` over one file of a [`FileIO`].
pub struct FileIoParquetReader {
    io: FileIO,
    location: String,
    size: u64,
}

impl FileIoParquetReader {
    /// A reader of `location`, whose size is `size` bytes.
    pub fn new(io: FileIO, location: String, size: u64) -> Self {
        FileIoParquetReader { io, location, size }
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
        async move {
            self.io
                .read_range(&self.location, range)
                .await
                .map_err(external)
        }
        .boxed()
    }

    fn get_byte_ranges(
        &mut self,
        ranges: Vec<Range<u64>>,
    ) -> BoxFuture<'_, parquet::errors::Result<Vec<Bytes>>> {
        async move {
            let got = self
                .io
                .read_ranges(&self.location, &ranges)
                .await
                .map_err(external)?;
            for (r, b) in ranges.iter().zip(&got) {
                if b.len() as u64 != r.end - r.start {
                    return Err(external(
                        Error::data_invalid("short read")
                            .with_context("file", self.location.clone())
                            .with_context("range", format!("{r:?}")),
                    ));
                }
            }
            Ok(got)
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
/// of the emitted rows (kept row groups ∩ row ranges − deletion vector).
pub(crate) async fn read_parquet(io: &FileIO, read: DataFileRead) -> Result<OpenedFile> {
    let loc = read.location.clone();
    let size = match read.file_size {
        Some(s) => s,
        None => io.size(&loc).await?,
    };
    let reader = FileIoParquetReader::new(io.clone(), loc.clone(), size);
    let builder = ParquetRecordBatchStreamBuilder::new(reader)
        .await
        .map_err(|e| parquet_error(e, &loc))?;
    let physical: Vec<&str> = builder
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    let mapping = ReadMapping::new(&read.read_fields, &read.file_fields, &physical)
        .map_err(|e| e.with_context("file", loc.clone()))?;
    let mask = ProjectionMask::roots(builder.parquet_schema(), mapping.roots().iter().copied());

    let md = builder.metadata().clone();
    let mut kept = Vec::new();
    let mut kept_rows = Vec::new();
    let mut offset = 0u64;
    for (i, rg) in md.row_groups().iter().enumerate() {
        let n = u64::try_from(rg.num_rows()).map_err(|_| {
            Error::data_invalid("negative row count in a row group")
                .with_context("file", loc.clone())
        })?;
        let keep = read.row_group_filter.as_ref().is_none_or(|f| f(rg));
        if keep {
            kept.push(i);
            kept_rows.push(offset..offset + n);
        }
        offset += n;
    }
    let ranges = selected_ranges(
        offset,
        read.row_ranges.as_deref(),
        read.deleted_rows.as_deref(),
    )?;
    let positions = match &ranges {
        Some(r) => intersect(&kept_rows, r),
        None => kept_rows.clone(),
    };
    let mut builder = builder
        .with_projection(mask)
        .with_batch_size(read.batch_size.max(1))
        .with_row_groups(kept);
    if let Some(ranges) = ranges {
        let mut selectors: Vec<RowSelector> = Vec::new();
        runs_within(&kept_rows, &ranges, |select, n| {
            let n = usize::try_from(n).unwrap_or(usize::MAX);
            selectors.push(if select {
                RowSelector::select(n)
            } else {
                RowSelector::skip(n)
            });
        });
        builder = builder.with_row_selection(RowSelection::from(selectors));
    }
    let stream = builder.build().map_err(|e| parquet_error(e, &loc))?;
    let batches = stream
        .map(move |r| {
            let batch = r.map_err(|e| parquet_error(e, &loc))?;
            mapping
                .project(&batch)
                .map_err(|e| e.with_context("file", loc.clone()))
        })
        .boxed();
    Ok(OpenedFile { batches, positions })
}
