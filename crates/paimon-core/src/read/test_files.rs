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

/// `bytes` as the file `f.parquet` of an in-memory store, and a reader of it.
pub(crate) async fn reader(bytes: &Bytes) -> crate::read::parquet::FileIoParquetReader {
    stored(bytes).await.1
}

/// `bytes` as the file `f.parquet` of an in-memory store: the store's `FileIO` (whose read
/// counts cover the reader's) and a reader of the file.
pub(crate) async fn stored(
    bytes: &Bytes,
) -> (crate::io::FileIO, crate::read::parquet::FileIoParquetReader) {
    let store = std::sync::Arc::new(object_store::memory::InMemory::new());
    let io = crate::io::FileIO::from_store("memory://t", store).unwrap();
    io.write("memory://t/f.parquet", bytes.clone())
        .await
        .unwrap();
    let reader = crate::read::parquet::FileIoParquetReader::new(
        io.clone(),
        "memory://t/f.parquet".into(),
        bytes.len() as u64,
    );
    (io, reader)
}

/// The row groups of a file, each with its file-global rows.
pub(crate) fn groups(meta: &ArrowReaderMetadata) -> Vec<(usize, crate::spec::row_range::RowRange)> {
    let mut start = 0u64;
    meta.metadata()
        .row_groups()
        .iter()
        .enumerate()
        .map(|(i, rg)| {
            let end = start + rg.num_rows() as u64;
            let g = (i, start..end);
            start = end;
            g
        })
        .collect()
}

/// `count` deterministic pseudo-random byte strings of `len` bytes each (xorshift), for
/// decoders that must answer or refuse arbitrary input, never panic.
pub(crate) fn random_byte_strings(count: usize, len: usize) -> impl Iterator<Item = Vec<u8>> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..count).map(move |_| {
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    })
}
