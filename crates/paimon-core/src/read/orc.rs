//! ORC data files → Arrow record batches.
//!
//! Mirrors Java `org.apache.paimon.format.orc.OrcReaderFactory` (Paimon 2.0). Divergence: the
//! file is fetched whole with one `FileIO::read` and decoded with orc-rust's synchronous
//! `ArrowReader` (the crate's async reader is behind a feature this workspace does not enable);
//! Paimon ORC data files are small (one stripe per 64 MiB) and decoding runs one batch per
//! poll. Columns are chosen by name (§4.5); row ranges and deletion vectors become an orc-rust
//! `RowSelection`. orc-rust is guarded against panics on corrupt input (`catch_unwind`), and
//! its byte source ([`OrcBytes`]) bounds-checks every read.

use std::panic::{catch_unwind, AssertUnwindSafe};

use bytes::{Buf, Bytes};
use futures::StreamExt;
use orc_rust::arrow_reader::ArrowReaderBuilder;
use orc_rust::projection::ProjectionMask;
use orc_rust::reader::ChunkReader;
use orc_rust::row_selection::RowSelection;

use super::evolution::ReadMapping;
use super::file_reader::{DataFileRead, OpenedFile};
use super::selection::selected_ranges;
use crate::io::FileIO;
use crate::{Error, Result};

/// File bytes as an orc-rust `ChunkReader` that rejects out-of-range reads instead of panicking.
pub struct OrcBytes(pub Bytes);

fn out_of_range(offset: u64, len: u64, size: usize) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::UnexpectedEof,
        format!("ORC read of {len} bytes at offset {offset} beyond file size {size}"),
    )
}

impl ChunkReader for OrcBytes {
    type T = bytes::buf::Reader<Bytes>;

    fn len(&self) -> u64 {
        self.0.len() as u64
    }

    fn get_read(&self, offset: u64) -> std::io::Result<Self::T> {
        let start = usize::try_from(offset)
            .ok()
            .filter(|s| *s <= self.0.len())
            .ok_or_else(|| out_of_range(offset, 0, self.0.len()))?;
        Ok(self.0.slice(start..).reader())
    }

    fn get_bytes(&self, offset: u64, length: u64) -> std::io::Result<Bytes> {
        let range = usize::try_from(offset)
            .ok()
            .zip(usize::try_from(length).ok())
            .and_then(|(s, l)| Some(s..s.checked_add(l)?))
            .filter(|r| r.end <= self.0.len())
            .ok_or_else(|| out_of_range(offset, length, self.0.len()))?;
        Ok(self.0.slice(range))
    }
}

fn orc_error(e: orc_rust::error::OrcError, location: &str) -> Error {
    Error::from(e).with_context("file", location)
}

fn panicked(location: &str) -> Error {
    Error::data_invalid("ORC decoder failed on corrupt input").with_context("file", location)
}

/// Opens an ORC data file and streams it in the read schema; also returns the file positions
/// of the emitted rows.
pub(crate) async fn read_orc(io: &FileIO, read: DataFileRead) -> Result<OpenedFile> {
    let loc = read.location.clone();
    let bytes = io.read(&loc).await?;
    // orc-rust overflows the stack on a cyclic type tree: reject it first.
    crate::spec::orc_footer::check_orc_type_tree(&bytes, &loc)?;
    let builder = catch_unwind(AssertUnwindSafe(|| {
        ArrowReaderBuilder::try_new(OrcBytes(bytes))
    }))
    .map_err(|_| panicked(&loc))?
    .map_err(|e| orc_error(e, &loc))?;
    let root = builder.file_metadata().root_data_type().clone();
    let physical: Vec<&str> = root.children().iter().map(|c| c.name()).collect();
    let mapping = ReadMapping::new(&read.read_fields, &read.file_fields, &physical)
        .map_err(|e| e.with_context("file", loc.clone()))?;
    let column_ids: Vec<usize> = mapping
        .roots()
        .iter()
        .filter_map(|i| root.children().get(*i))
        .map(|c| c.data_type().column_index())
        .collect();
    let total = builder.file_metadata().number_of_rows();
    let mut builder = builder
        .with_batch_size(read.batch_size.max(1))
        .with_projection(ProjectionMask::roots(&root, column_ids));
    let selected = selected_ranges(
        total,
        read.row_ranges.as_deref(),
        read.deleted_rows.as_deref(),
    )?;
    let positions = selected
        .clone()
        .unwrap_or_else(|| std::iter::once(0..total).collect());
    if let Some(ranges) = selected {
        let to_usize = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
        let sel = RowSelection::from_consecutive_ranges(
            ranges
                .into_iter()
                .map(|r| to_usize(r.start)..to_usize(r.end)),
            to_usize(total),
        );
        builder = builder.with_row_selection(sel);
    }
    let mut reader = builder.build();
    let mut failed = false;
    let iter = std::iter::from_fn(move || {
        if failed {
            return None;
        }
        let next = catch_unwind(AssertUnwindSafe(|| reader.next()));
        let item = match next {
            Err(_) => Err(panicked(&loc)),
            Ok(None) => return None,
            Ok(Some(Err(e))) => Err(Error::from(e).with_context("file", loc.clone())),
            Ok(Some(Ok(batch))) => mapping
                .project(&batch)
                .map_err(|e| e.with_context("file", loc.clone())),
        };
        failed = item.is_err();
        Some(item)
    });
    Ok(OpenedFile {
        batches: futures::stream::iter(iter).boxed(),
        positions,
    })
}
