//! [`RollingWriter`]: the data files (Parquet, ORC or Avro) of one (partition, bucket) writer (Java
//! `RollingFileWriterImpl` over `RowDataFileWriter` / `KeyValueDataFileWriter`); its
//! [`FileSeries`] (names, closed files) without an open file is what primary-key writers keep
//! between flushes, so they can flush on another thread (`parallel_flush`).
//!
//! Files are named `<data-file.prefix><uuid>-<n>.<format>` with one UUID per writer and a
//! counter that continues across flushes (Java `DataFilePathFactory`), created lazily on the
//! first row (never empty) and rolled when the file reaches `target-file-size`, checked every
//! [`ROLL_CHECK_ROWS`] rows as Java does. A file's bytes go out as its format completes them
//! (Parquet row groups, ORC stripes, Avro blocks) through a `FileSink`: one write when the
//! file is small, else a multipart upload, so a writer holds a row group, not a file, and
//! nothing is visible before the file is closed. Closing a file finishes it and builds
//! its [`DataFileMeta`] (Java `DataFileMeta#forAppend` / `KeyValueDataFileWriter#result`).
//! With `file-index.*` columns, each file's index container is built from the same rows and,
//! at close, embedded in the meta when it is at most `file-index.in-manifest-threshold`
//! bytes, else written beside the file as `<file>.index` and listed in `extra_files` (Java
//! `DataFileIndexWriter#close`).

use std::sync::Arc;

use arrow_arith::aggregate::{max, min};
use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, Int8Type};
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use bytes::Bytes;

use super::avro::AvroWriter;
use super::datum::datum_at;
use super::file_index::IndexPlan;
use super::orc::OrcWriter;
use super::parquet::ParquetWriter;
use super::stats::StatsCollector;
use crate::index::file_index::writer::FileIndexWriter;
use crate::io::{join, FileIO, FileSink};
use crate::mergetree::merge_function::is_retract;
use crate::spec::binary_row::BinaryRow;
use crate::spec::manifest::{DataFileMeta, SimpleStats};
use crate::spec::options::{FileFormat, TableOptions};
use crate::spec::types::{DataField, DataType};
use crate::{Error, Result};

/// Rows between two checks of the file size (Java `CHECK_ROLLING_RECORD_CNT`).
pub(crate) const ROLL_CHECK_ROWS: usize = 1000;

/// The key columns of a primary-key file layout.
#[derive(Debug, Clone)]
pub(crate) struct KeyColumns {
    /// Positions of the `_KEY_*` columns in the written batches.
    pub positions: Vec<usize>,
    /// Their types.
    pub types: Vec<DataType>,
    /// `_SEQUENCE_NUMBER` position.
    pub seq: usize,
    /// `_VALUE_KIND` position.
    pub kind: usize,
}

/// What every file of a table's writers shares.
#[derive(Debug)]
pub(crate) struct FileSpec {
    /// Storage.
    pub io: FileIO,
    /// Table options.
    pub options: Arc<TableOptions>,
    /// Schema the files are written with.
    pub schema_id: i64,
    /// The Arrow schema of the written batches (Parquet ids set).
    pub schema: SchemaRef,
    /// The Paimon fields of the written batches.
    pub fields: Vec<DataField>,
    /// Value statistics template (cloned per file).
    pub value_stats: StatsCollector,
    /// Key statistics template (primary-key files only).
    pub key_stats: Option<StatsCollector>,
    /// Key and system columns (primary-key files only).
    pub key: Option<KeyColumns>,
    /// `target-file-size` in bytes.
    pub target_size: u64,
    /// The data-file indexes to build (`None`: no `file-index.*` columns).
    pub file_index: Option<IndexPlan>,
}

impl FileSpec {
    /// The file-name extension of the table's format.
    fn extension(&self) -> &'static str {
        match self.options.file_format {
            FileFormat::Orc => "orc",
            FileFormat::Avro => "avro",
            _ => "parquet",
        }
    }
}

/// The format writer of one file.
enum FormatWriter {
    Parquet(ParquetWriter),
    Orc(OrcWriter),
    Avro(AvroWriter),
}

impl FormatWriter {
    fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        match self {
            FormatWriter::Parquet(w) => w.write(batch),
            FormatWriter::Orc(w) => w.write(batch),
            FormatWriter::Avro(w) => w.write(batch),
        }
    }
    fn estimated_size(&self) -> u64 {
        match self {
            FormatWriter::Parquet(w) => w.estimated_size(),
            FormatWriter::Orc(w) => w.estimated_size(),
            FormatWriter::Avro(w) => w.estimated_size(),
        }
    }
    /// The file's bytes complete so far and not taken yet.
    fn take_written(&mut self) -> Vec<Bytes> {
        match self {
            FormatWriter::Parquet(w) => w.take_written(),
            FormatWriter::Orc(w) => w.take_written(),
            FormatWriter::Avro(w) => w.take_written(),
        }
    }
    /// Closes the file; returns its bytes not taken yet.
    fn finish(self) -> Result<Vec<Bytes>> {
        Ok(match self {
            FormatWriter::Parquet(w) => w.finish()?.into_parts(),
            FormatWriter::Orc(w) => w.finish()?.into_parts(),
            FormatWriter::Avro(w) => w.finish().into_parts(),
        })
    }
}

/// A file being written (its format writer may not be `Send`).
pub(crate) struct OpenFile {
    name: String,
    writer: FormatWriter,
    /// Where the file's bytes go as they are complete (its length: the bytes so far).
    sink: FileSink,
    rows: i64,
    value_stats: StatsCollector,
    key_stats: Option<StatsCollector>,
    min_key: Option<BinaryRow>,
    max_key: Option<BinaryRow>,
    min_seq: i64,
    max_seq: i64,
    deletes: i64,
    index: Option<FileIndexWriter>,
}

impl OpenFile {
    /// Hands the file's complete bytes to its sink (written out in parts once large).
    async fn stream_out(&mut self) -> Result<()> {
        for part in self.writer.take_written() {
            self.sink.write(part).await?;
        }
        Ok(())
    }
}

/// Writes a closed file's last bytes `rest` to `sink` and completes it; returns the file's
/// size. On any error the upload is given up.
async fn complete(mut sink: FileSink, rest: Result<Vec<Bytes>>) -> Result<u64> {
    let written = async {
        for part in rest? {
            sink.write(part).await?;
        }
        Ok(())
    }
    .await;
    match written {
        Ok(()) => {
            let size = sink.len();
            sink.finish().await?;
            Ok(size)
        }
        Err(e) => {
            sink.abort().await;
            Err(e)
        }
    }
}

/// The files of one (partition, bucket) writer between files: name counter, closed files and
/// the append sequence numbers. It holds no format writer, so it is `Send` whatever the
/// format (orc-rust's writer is not): a primary-key bucket's flush opens its files as locals
/// ([`FileSeries::write_into`]) and can run on another thread.
pub(crate) struct FileSeries {
    spec: Arc<FileSpec>,
    dir: String,
    uuid: String,
    counter: u64,
    done: Vec<DataFileMeta>,
    /// Next sequence number of an append writer (one per row, arrival order).
    next_seq: i64,
}

impl FileSeries {
    /// The files of bucket directory `dir`; append rows are numbered from `next_seq`.
    pub(crate) fn new(spec: Arc<FileSpec>, dir: String, next_seq: i64) -> Self {
        FileSeries {
            spec,
            dir,
            uuid: uuid::Uuid::new_v4().to_string(),
            counter: 0,
            done: Vec::new(),
            next_seq,
        }
    }

    fn open(&mut self) -> Result<OpenFile> {
        let writer = match &self.spec.options.file_format {
            FileFormat::Parquet => FormatWriter::Parquet(ParquetWriter::new(
                self.spec.schema.clone(),
                &self.spec.options,
            )?),
            FileFormat::Orc => FormatWriter::Orc(OrcWriter::new(
                self.spec.schema.clone(),
                &self.spec.fields,
                &self.spec.options,
                self.spec.target_size,
            )?),
            FileFormat::Avro => FormatWriter::Avro(AvroWriter::new(
                self.spec.fields.clone(),
                &self.spec.options,
            )?),
            other => {
                return Err(Error::unsupported(format!(
                    "writing file.format '{other}' is not supported yet (parquet, orc, avro)"
                ))
                .with_context("option", "file.format"))
            }
        };
        let name = format!(
            "{}{}-{}.{}",
            self.spec.options.data_file_prefix,
            self.uuid,
            self.counter,
            self.spec.extension()
        );
        self.counter += 1;
        let sink = self.spec.io.sink(&join(&self.dir, &name))?;
        Ok(OpenFile {
            name,
            writer,
            sink,
            rows: 0,
            value_stats: self.spec.value_stats.clone(),
            key_stats: self.spec.key_stats.clone(),
            min_key: None,
            max_key: None,
            min_seq: i64::MAX,
            max_seq: i64::MIN,
            deletes: 0,
            index: self
                .spec
                .file_index
                .as_ref()
                .map(IndexPlan::writer)
                .transpose()?,
        })
    }

    /// Writes `batch` (rows in file order) into `current` (opened when `None`), rolling at
    /// the target size.
    pub(crate) async fn write_into(
        &mut self,
        current: &mut Option<OpenFile>,
        batch: &RecordBatch,
    ) -> Result<()> {
        let mut offset = 0;
        while offset < batch.num_rows() {
            let len = ROLL_CHECK_ROWS.min(batch.num_rows() - offset);
            let slice = batch.slice(offset, len);
            offset += len;
            let mut file = match current.take() {
                Some(f) => f,
                None => self.open()?,
            };
            let appended = match self.append(&mut file, &slice) {
                Ok(()) => file.stream_out().await,
                Err(e) => Err(e),
            };
            if let Err(e) = appended {
                file.sink.abort().await;
                return Err(e);
            }
            if file.writer.estimated_size() >= self.spec.target_size {
                self.close(file).await?;
            } else {
                *current = Some(file);
            }
        }
        Ok(())
    }

    fn append(&mut self, file: &mut OpenFile, slice: &RecordBatch) -> Result<()> {
        let rows = slice.num_rows() as i64;
        file.writer.write(slice)?;
        file.value_stats.update(slice)?;
        if let (Some(plan), Some(w)) = (&self.spec.file_index, &mut file.index) {
            plan.update(w, slice)?;
        }
        match &self.spec.key {
            None => {
                file.min_seq = file.min_seq.min(self.next_seq);
                self.next_seq += rows;
                file.max_seq = self.next_seq - 1;
            }
            Some(key) => {
                if let Some(ks) = &mut file.key_stats {
                    ks.update(slice)?;
                }
                let column = |pos: usize| {
                    slice
                        .columns()
                        .get(pos)
                        .ok_or_else(|| Error::internal("system column missing"))
                };
                let seq = column(key.seq)?.as_primitive::<Int64Type>();
                file.min_seq = file.min_seq.min(min(seq).unwrap_or(i64::MAX));
                file.max_seq = file.max_seq.max(max(seq).unwrap_or(i64::MIN));
                let kinds = column(key.kind)?.as_primitive::<Int8Type>();
                file.deletes += kinds.values().iter().filter(|k| is_retract(**k)).count() as i64;
                if file.min_key.is_none() {
                    file.min_key = Some(key_row(slice, key, 0)?);
                }
                file.max_key = Some(key_row(slice, key, slice.num_rows() - 1)?);
            }
        }
        file.rows += rows;
        Ok(())
    }

    async fn close(&mut self, mut file: OpenFile) -> Result<()> {
        let index = file.index.take();
        let size = complete(file.sink, file.writer.finish()).await?;
        let size = i64::try_from(size).map_err(|_| Error::internal("file size over i64"))?;
        let (extra_files, embedded_index) = self.write_index(&file.name, index.as_ref()).await?;
        let empty = BinaryRow::empty().serialize();
        let empty_stats = SimpleStats {
            min_values: empty.clone(),
            max_values: empty.clone(),
            null_counts: Some(Vec::new()),
        };
        let key_stats = match &file.key_stats {
            Some(k) => k.result()?,
            None => empty_stats,
        };
        self.done.push(DataFileMeta {
            file_name: file.name,
            file_size: size,
            row_count: file.rows,
            min_key: file
                .min_key
                .map_or_else(|| empty.clone(), |k| k.serialize()),
            max_key: file
                .max_key
                .map_or_else(|| empty.clone(), |k| k.serialize()),
            key_stats,
            value_stats: file.value_stats.result()?,
            min_sequence_number: file.min_seq,
            max_sequence_number: file.max_seq,
            schema_id: self.spec.schema_id,
            level: 0,
            extra_files,
            creation_time: Some(local_now_millis()),
            delete_row_count: Some(file.deletes),
            embedded_index,
            file_source: Some(0),
            value_stats_cols: file.value_stats.stats_cols(),
            external_path: None,
            first_row_id: None,
            write_cols: None,
        });
        Ok(())
    }

    /// The file's index container: embedded when small enough, else written as
    /// `<file>.index` beside it; returns (`extra_files`, `embedded_index`).
    async fn write_index(
        &self,
        file_name: &str,
        index: Option<&FileIndexWriter>,
    ) -> Result<(Vec<String>, Option<Vec<u8>>)> {
        let (Some(plan), Some(w)) = (&self.spec.file_index, index) else {
            return Ok((Vec::new(), None));
        };
        let bytes = w.finish()?;
        if bytes.len() as u64 <= plan.threshold {
            return Ok((Vec::new(), Some(bytes)));
        }
        let name = format!("{file_name}.index");
        self.spec
            .io
            .write(&join(&self.dir, &name), Bytes::from(bytes))
            .await?;
        Ok((vec![name], None))
    }

    /// Gives up `current` if a file is open: its upload is aborted, nothing is written.
    pub(crate) async fn abort_open(current: &mut Option<OpenFile>) {
        if let Some(file) = current.take() {
            file.sink.abort().await;
        }
    }

    /// Closes `current` if a file is open (the next row starts a new one).
    pub(crate) async fn close_open(&mut self, current: &mut Option<OpenFile>) -> Result<()> {
        if let Some(file) = current.take() {
            self.close(file).await?;
        }
        Ok(())
    }

    /// Every file closed since the last call.
    pub(crate) fn take_done(&mut self) -> Vec<DataFileMeta> {
        std::mem::take(&mut self.done)
    }
}

/// The rolling data files of one (partition, bucket) whose open file lives across writes
/// (append and postpone-bucket writers, compaction outputs).
pub(crate) struct RollingWriter {
    files: FileSeries,
    current: Option<OpenFile>,
}

impl RollingWriter {
    /// A writer into bucket directory `dir`; append rows are numbered from `next_seq`.
    pub(crate) fn new(spec: Arc<FileSpec>, dir: String, next_seq: i64) -> Self {
        RollingWriter {
            files: FileSeries::new(spec, dir, next_seq),
            current: None,
        }
    }

    /// Writes `batch` (rows in file order), rolling at the target size.
    pub(crate) async fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.files.write_into(&mut self.current, batch).await
    }

    /// Closes the open file (the next row starts a new one).
    pub(crate) async fn close_current(&mut self) -> Result<()> {
        self.files.close_open(&mut self.current).await
    }

    /// Closes the open file and returns every file written since the last call.
    pub(crate) async fn flush(&mut self) -> Result<Vec<DataFileMeta>> {
        self.close_current().await?;
        Ok(self.files.take_done())
    }
}

/// The trimmed-key `BinaryRow` of `row` (Java `_MIN_KEY`/`_MAX_KEY`, never truncated).
fn key_row(batch: &RecordBatch, key: &KeyColumns, row: usize) -> Result<BinaryRow> {
    let values = key
        .positions
        .iter()
        .zip(&key.types)
        .map(|(&p, t)| {
            let array = batch
                .columns()
                .get(p)
                .ok_or_else(|| Error::internal("key column missing"))?;
            datum_at(array.as_ref(), row, t)
        })
        .collect::<Result<Vec<_>>>()?;
    BinaryRow::encode(&values, &key.types)
}

/// Java `LocalDateTime.now()` as epoch millis: the local wall clock stored as if it were UTC.
fn local_now_millis() -> i64 {
    chrono::Local::now()
        .naive_local()
        .and_utc()
        .timestamp_millis()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, Int32Array, StringArray};

    use super::*;
    use crate::spec::datum::Datum;
    use crate::spec::types::TypeKind;

    #[test]
    fn key_bounds_are_java_binary_rows_of_the_key_columns() {
        let key = KeyColumns {
            positions: vec![1, 0],
            types: vec![
                DataType::not_null(TypeKind::VarChar(100)),
                DataType::not_null(TypeKind::Int),
            ],
            seq: 2,
            kind: 3,
        };
        let batch = RecordBatch::try_from_iter([
            ("k2", Arc::new(Int32Array::from(vec![7, 9])) as ArrayRef),
            (
                "k1",
                Arc::new(StringArray::from(vec!["short", "a longer key"])) as ArrayRef,
            ),
        ])
        .unwrap();
        for (row, (s, i)) in [(0, ("short", 7)), (1, ("a longer key", 9))] {
            let want = BinaryRow::encode(
                &[Some(Datum::String(s.into())), Some(Datum::Int(i))],
                &key.types,
            )
            .unwrap();
            let got = key_row(&batch, &key, row).unwrap();
            assert_eq!(got.serialize(), want.serialize());
            assert_eq!(got.arity(), 2);
        }
    }
}
