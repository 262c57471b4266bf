//! Reading data files into Arrow record batches.
//!
//! Mirrors Java `org.apache.paimon.io.DataFileRecordReader`, the format reader factories of
//! `org.apache.paimon.format.{parquet,orc,avro}` and `org.apache.paimon.utils.FormatReaderMapping`
//! (Paimon 2.0). [`read_data_file`] opens one file (Parquet, ORC or Avro, chosen by
//! [`FileFormat`]) and streams it in a requested read schema, with projection, row ranges,
//! deletion vectors, Parquet row-group pruning and schema evolution by field id
//! ([`evolution`]). Planning and predicates live elsewhere. Metadata columns (source file,
//! row position) are filled by [`metadata_columns`]; [`metrics`] counts skipped work.

pub(crate) mod avro;
pub(crate) mod avro_header;
pub(crate) mod dictionary_skip;
pub(crate) mod evolution;
pub(crate) mod file_index;
pub mod file_reader;
pub mod format;
pub(crate) mod key_lookup;
pub(crate) mod key_search;
pub(crate) mod late;
pub(crate) mod metadata_columns;
pub mod metrics;
pub(crate) mod orc;
pub(crate) mod page_header;
pub(crate) mod page_index;
pub(crate) mod parallel_columns;
pub(crate) mod parquet;
pub(crate) mod point_pages;
pub(crate) mod row_group_pruning;
mod scan_read;
pub(crate) mod selection;
pub mod table_read;
#[cfg(test)]
pub(crate) mod test_files;

pub use file_reader::{
    read_data_file, DataFileRead, RecordBatchStream, RowGroupFilter, SelectiveRead,
};
pub use format::FileFormat;
pub use metrics::ReadMetricsSnapshot;
pub use table_read::TableRead;
