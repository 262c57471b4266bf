//! The entry point for reading one data file: [`DataFileRead`] and [`read_data_file`].
//!
//! Mirrors Java `org.apache.paimon.io.KeyValueFileReaderFactory` / `DataFileRecordReader` with
//! `FormatReaderMapping` (Paimon 2.0): everything needed to read one file is in a
//! [`DataFileRead`]; the result is a stream of record batches whose schema is exactly
//! `arrow_schema(&read_fields)`, except that a NOT NULL read field that receives nulls (added
//! after the file was written, or nullable when written) becomes nullable in that batch's schema
//! (see [`super::evolution`]).
//!
//! Read fields may include the metadata columns `__paimon_file_path` and `__paimon_row_index`
//! ([`super::metadata_columns`]): they are not decoded but filled from the file's location and
//! the positions of the rows the format reader emits.

use std::fmt;
use std::sync::Arc;

use futures::StreamExt;
use parquet::file::metadata::RowGroupMetaData;
use roaring::RoaringTreemap;

use super::format::FileFormat;
use super::metadata_columns::{MetadataFiller, RowPositions};
use super::metrics::ReadMetrics;
use crate::expr::BoundPredicate;
use crate::io::FileIO;
use crate::spec::row_range::RowRange;
use crate::spec::types::DataField;
use crate::{Error, Result};

pub use crate::arrow::RecordBatchStream;

/// A Parquet row-group predicate: `false` skips the group (for statistics pruning).
pub type RowGroupFilter = Arc<dyn Fn(&RowGroupMetaData) -> bool + Send + Sync>;

/// Everything needed to read one data file.
#[derive(Clone)]
pub struct DataFileRead {
    /// Full location for [`FileIO`] (`/abs/path`, `file:/abs/path`, `s3://…`, or an
    /// `_EXTERNAL_PATH` URI).
    pub location: String,
    /// File size in bytes when known (from the manifest; saves a HEAD request). Every format
    /// is read by range, so it must not exceed the real size.
    pub file_size: Option<u64>,
    /// The file's format.
    pub format: FileFormat,
    /// Fields of the file's own schema (`schema-<_SCHEMA_ID>`), in table order. Physical PK-file
    /// columns `_KEY_*`, `_SEQUENCE_NUMBER`, `_VALUE_KIND` are ignored unless requested.
    pub file_fields: Vec<DataField>,
    /// The output columns (current schema fields, projected), matched to `file_fields` by id.
    /// System fields (`_SEQUENCE_NUMBER`, `_VALUE_KIND`, ...) are read by name; `_KEY_<k>`
    /// fields from the value column of `k`.
    pub read_fields: Vec<DataField>,
    /// Rows per output batch (at most).
    pub batch_size: usize,
    /// File-local row positions to keep (sorted, disjoint); `None` keeps all rows.
    pub row_ranges: Option<Vec<RowRange>>,
    /// Row positions to drop (a deletion vector).
    pub deleted_rows: Option<Arc<RoaringTreemap>>,
    /// Parquet only: called per row group, `false` skips it; ignored for ORC and Avro.
    pub row_group_filter: Option<RowGroupFilter>,
    /// Parquet only: page pruning and late materialization by a predicate; `None` turns both
    /// off. Ignored for ORC and Avro.
    pub selective: Option<SelectiveRead>,
    /// Top-level STRING and BYTES columns come out as `Utf8View` / `BinaryView`
    /// ([`crate::arrow::view_type`]); Parquet decodes them so directly.
    pub string_views: bool,
}

/// A predicate that may be evaluated on every row of one file (the whole predicate for a file
/// read raw, the primary-key conjuncts for a file of a merged split), used to skip Parquet pages
/// by the page index ([`super::page_index`]) and to decode the other columns only for the rows
/// it keeps ([`super::late`]). Rows it keeps are a superset of the answer: the caller filters
/// afterwards.
#[derive(Clone)]
pub struct SelectiveRead {
    /// The predicate, bound to the table's current schema.
    pub predicate: BoundPredicate,
    /// The fields of the table's current schema (the predicate's field ids and types).
    pub current_fields: Arc<[DataField]>,
    /// Whether late materialization may be used (it reorders nothing but makes the emitted
    /// rows differ from the selected positions, so it is off when row positions are needed).
    pub late_materialization: bool,
    /// The leading column of the primary key (current schema) when the file's rows are sorted
    /// by it (every data file of a primary-key table): a predicate bounding it on both sides is
    /// answered by a binary search of that column ([`super::key_search`]).
    pub sorted_key: Option<DataField>,
    /// Where skipped pages and filtered rows are counted.
    pub metrics: Arc<ReadMetrics>,
}

impl fmt::Debug for DataFileRead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DataFileRead")
            .field("location", &self.location)
            .field("file_size", &self.file_size)
            .field("format", &self.format)
            .field("file_fields", &self.file_fields.len())
            .field("read_fields", &self.read_fields.len())
            .field("batch_size", &self.batch_size)
            .field("row_ranges", &self.row_ranges.as_ref().map(Vec::len))
            .field("deleted_rows", &self.deleted_rows.as_ref().map(|d| d.len()))
            .field("row_group_filter", &self.row_group_filter.is_some())
            .field("selective", &self.selective.is_some())
            .field("string_views", &self.string_views)
            .finish()
    }
}

impl DataFileRead {
    /// A read of all rows of `location` (format from its name) with batch size 1024.
    pub fn new(
        location: impl Into<String>,
        file_fields: Vec<DataField>,
        read_fields: Vec<DataField>,
    ) -> Result<Self> {
        let location = location.into();
        Ok(DataFileRead {
            format: FileFormat::from_file_name(&location)?,
            location,
            file_size: None,
            file_fields,
            read_fields,
            batch_size: 1024,
            row_ranges: None,
            deleted_rows: None,
            row_group_filter: None,
            selective: None,
            string_views: false,
        })
    }
}

/// What a format reader returns: the batches, and the file positions of the rows they hold,
/// in order (sorted, disjoint ranges; an open end is allowed).
pub(crate) struct OpenedFile {
    pub(crate) batches: RecordBatchStream,
    pub(crate) positions: Vec<RowRange>,
    /// Whether the batches are decoded already (held in memory: a point read's few rows).
    pub(crate) in_memory: bool,
}

/// Opens one data file and streams it as record batches of `read.read_fields`.
///
/// Errors (missing file, corrupt or truncated content, an impossible type change) name the file;
/// opening errors are returned here, decoding errors end the stream with one `Err`.
pub async fn read_data_file(io: &FileIO, read: DataFileRead) -> Result<RecordBatchStream> {
    Ok(open_data_file(io, read).await?.0)
}

/// [`read_data_file`], and whether the batches are decoded already (held in memory).
pub(crate) async fn open_data_file(
    io: &FileIO,
    mut read: DataFileRead,
) -> Result<(RecordBatchStream, bool)> {
    if read.batch_size == 0 {
        return Err(Error::invalid_argument("batch size must be positive")
            .with_context("file", read.location.clone()));
    }
    let (decoded, filler) = MetadataFiller::split(&read.read_fields, &read.location)?;
    read.read_fields = decoded;
    if filler.is_some() {
        // Metadata columns are filled from the selected positions: every selected row must
        // come out.
        if let Some(s) = read.selective.as_mut() {
            s.late_materialization = false;
        }
    }
    let views = read.string_views;
    let opened = match read.format {
        FileFormat::Parquet => super::parquet::read_parquet(io, read).await?,
        FileFormat::Orc => super::orc::read_orc(io, read).await?,
        FileFormat::Avro => super::avro::read_avro(io, read).await?,
    };
    let in_memory = opened.in_memory;
    let Some(mut filler) = filler else {
        return Ok((opened.batches, in_memory));
    };
    let mut positions = RowPositions::new(opened.positions);
    let batches = opened
        .batches
        .map(move |b| {
            let filled = b.and_then(|b| filler.fill(b, &mut positions))?;
            // The file path column is a string too.
            if views {
                super::evolution::batch_as_views(filled)
            } else {
                Ok(filled)
            }
        })
        .boxed();
    Ok((batches, in_memory))
}

#[cfg(test)]
mod tests;
