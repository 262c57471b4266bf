//! Parquet files for the page-level readers' unit tests, written in memory by arrow-rs.

use bytes::Bytes;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};
use parquet::arrow::ArrowWriter;
use parquet::file::metadata::PageIndexPolicy;
use parquet::file::properties::WriterProperties;

/// `batch` written as one Parquet file with `props`.
pub(crate) fn parquet_bytes(batch: &arrow_array::RecordBatch, props: WriterProperties) -> Bytes {
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
    Bytes::from(out)
}

/// The metadata of `bytes`, page index required.
pub(crate) fn metadata(bytes: &Bytes) -> ArrowReaderMetadata {
    let options = ArrowReaderOptions::new().with_page_index_policy(PageIndexPolicy::Required);
    ArrowReaderMetadata::load(bytes, options).unwrap()
}
