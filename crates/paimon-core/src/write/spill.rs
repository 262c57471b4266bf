//! [`SpillFiles`]: the sorted runs a primary-key write buffer spilled to local disk (Java
//! `BinaryExternalSortBuffer` with `write-buffer-spillable`).
//!
//! A spill writes the buffer, already sorted and cut into runs holding each key at most once
//! (see `kv_merge`), to one Arrow IPC file in a private temporary directory: the runs one
//! after another, in batches of at most [`SPILL_BATCH_ROWS`] rows, compressed per
//! `spill-compression`. The files are local scratch, not a Paimon format. At flush every run
//! is read back as its own stream, batch by batch, so the merge holds one batch per run. The
//! directory and its files are removed by [`SpillFiles::clear`] after each merge (whether it
//! succeeded or not) and when the writer is dropped.
//!
//! Reads and writes are synchronous `std::fs` calls on local disk, one batch at a time.

use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::ops::Range;
use std::path::PathBuf;

use arrow_array::RecordBatch;
use arrow_ipc::reader::FileReader;
use arrow_ipc::writer::{FileWriter, IpcWriteOptions};
use arrow_ipc::CompressionType;
use futures::StreamExt;

use crate::arrow::RecordBatchStream;
use crate::io::scratch::{path_error, scratch_dir};
use crate::spec::options::SpillCompression;
use crate::{Error, Result};

/// Rows per batch in a spill file (one batch per run is held during the merge).
pub(crate) const SPILL_BATCH_ROWS: usize = 4096;

/// One spill file: its path, size and the batch ranges of its runs.
#[derive(Debug)]
struct SpillFile {
    path: PathBuf,
    bytes: u64,
    runs: Vec<Range<usize>>,
}

/// The spilled runs of one bucket writer.
#[derive(Debug)]
pub(crate) struct SpillFiles {
    /// Parent of the private directory (`None`: the system temp dir).
    parent: Option<PathBuf>,
    dir: Option<tempfile::TempDir>,
    files: Vec<SpillFile>,
    compression: SpillCompression,
    counter: u64,
}

impl SpillFiles {
    /// No spills yet; the directory is created under `parent` on the first spill.
    pub(crate) fn new(parent: Option<PathBuf>, compression: SpillCompression) -> Self {
        SpillFiles {
            parent,
            dir: None,
            files: Vec::new(),
            compression,
            counter: 0,
        }
    }

    /// Number of spilled runs (each one stream of the merge).
    pub(crate) fn run_count(&self) -> usize {
        self.files.iter().map(|f| f.runs.len()).sum()
    }

    /// Whether nothing is spilled.
    pub(crate) fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Bytes on disk.
    pub(crate) fn disk_bytes(&self) -> u64 {
        self.files.iter().map(|f| f.bytes).sum()
    }

    fn dir(&mut self) -> Result<PathBuf> {
        if let Some(d) = &self.dir {
            return Ok(d.path().to_path_buf());
        }
        let dir = scratch_dir(self.parent.as_deref(), "paimon-write-spill-")?;
        let path = dir.path().to_path_buf();
        self.dir = Some(dir);
        Ok(path)
    }

    /// Writes `runs` (sorted, each key at most once per run, one schema) as one spill file.
    pub(crate) fn spill(&mut self, runs: &[RecordBatch]) -> Result<()> {
        let Some(first) = runs.first() else {
            return Ok(());
        };
        let path = self.dir()?.join(format!("run-{}.arrow", self.counter));
        self.counter += 1;
        let compression = match self.compression {
            SpillCompression::None => None,
            SpillCompression::Lz4 => Some(CompressionType::LZ4_FRAME),
            SpillCompression::Zstd => Some(CompressionType::ZSTD),
        };
        let written = (|| -> Result<Vec<Range<usize>>> {
            let options = IpcWriteOptions::default().try_with_compression(compression)?;
            let file = File::create(&path)?;
            let mut w = FileWriter::try_new_with_options(
                BufWriter::new(file),
                first.schema().as_ref(),
                options,
            )?;
            let mut ranges = Vec::with_capacity(runs.len());
            let mut batches = 0;
            for run in runs {
                let start = batches;
                let mut offset = 0;
                while offset < run.num_rows() {
                    let len = SPILL_BATCH_ROWS.min(run.num_rows() - offset);
                    w.write(&run.slice(offset, len))?;
                    offset += len;
                    batches += 1;
                }
                ranges.push(start..batches);
            }
            w.finish()?;
            Ok(ranges)
        })();
        let runs = match written {
            Ok(r) => r,
            Err(e) => {
                let _ = std::fs::remove_file(&path);
                return Err(path_error(e, &path));
            }
        };
        let bytes = std::fs::metadata(&path)
            .map_err(|e| path_error(e, &path))?
            .len();
        self.files.push(SpillFile { path, bytes, runs });
        Ok(())
    }

    /// One stream per spilled run, in spill order; each reads its batches lazily.
    pub(crate) fn streams(&self) -> Vec<RecordBatchStream> {
        let mut out = Vec::with_capacity(self.run_count());
        for f in &self.files {
            for r in &f.runs {
                out.push(run_stream(f.path.clone(), r.clone()));
            }
        }
        out
    }

    /// Removes every spill file and the directory.
    pub(crate) fn clear(&mut self) -> Result<()> {
        self.files.clear();
        match self.dir.take() {
            Some(d) => {
                let path = d.path().to_path_buf();
                d.close().map_err(|e| path_error(e, &path))
            }
            None => Ok(()),
        }
    }
}

/// Batches `range` of the IPC file at `path`, opened on the first poll.
fn run_stream(path: PathBuf, range: Range<usize>) -> RecordBatchStream {
    type Reader = FileReader<BufReader<File>>;
    let state: (Option<Reader>, usize) = (None, range.start);
    futures::stream::unfold(state, move |(reader, next)| {
        let path = path.clone();
        let end = range.end;
        async move {
            if next >= end {
                return None;
            }
            let step = (|| -> Result<(Reader, RecordBatch)> {
                let mut reader = match reader {
                    Some(r) => r,
                    None => {
                        let file = File::open(&path)?;
                        let mut r = FileReader::try_new(BufReader::new(file), None)?;
                        r.set_index(next)?;
                        r
                    }
                };
                let batch = reader
                    .next()
                    .ok_or_else(|| Error::data_invalid("spill file ended early"))??;
                Ok((reader, batch))
            })();
            match step {
                Ok((reader, batch)) => Some((Ok(batch), (Some(reader), next + 1))),
                Err(e) => Some((Err(path_error(e, &path)), (None, end))),
            }
        }
    })
    .boxed()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, Int64Array, StringArray};
    use futures::TryStreamExt;

    use super::*;

    fn run(keys: std::ops::Range<i64>) -> RecordBatch {
        let k: ArrayRef = Arc::new(Int64Array::from_iter_values(keys.clone()));
        let s: ArrayRef = Arc::new(StringArray::from_iter_values(keys.map(|i| format!("v{i}"))));
        RecordBatch::try_from_iter([("k", k), ("s", s)]).unwrap()
    }

    #[tokio::test]
    async fn runs_read_back_whole_and_files_are_removed() {
        let parent = tempfile::tempdir().unwrap();
        for compression in [
            SpillCompression::None,
            SpillCompression::Lz4,
            SpillCompression::Zstd,
        ] {
            let mut s = SpillFiles::new(Some(parent.path().to_path_buf()), compression);
            let (a, b, c) = (run(0..10_000), run(5..7), run(100..101));
            s.spill(&[a.clone(), b.clone()]).unwrap();
            s.spill(std::slice::from_ref(&c)).unwrap();
            assert_eq!(s.run_count(), 3);
            assert!(s.disk_bytes() > 0);
            let mut got = Vec::new();
            for stream in s.streams() {
                let batches: Vec<RecordBatch> = stream.try_collect().await.unwrap();
                assert!(batches.iter().all(|b| b.num_rows() <= SPILL_BATCH_ROWS));
                got.push(arrow_select::concat::concat_batches(&a.schema(), &batches).unwrap());
            }
            assert_eq!(got, vec![a, b, c]);
            assert_eq!(std::fs::read_dir(parent.path()).unwrap().count(), 1);
            s.clear().unwrap();
            assert!(s.is_empty());
            assert_eq!(std::fs::read_dir(parent.path()).unwrap().count(), 0);
        }
    }

    #[tokio::test]
    async fn a_damaged_spill_file_is_an_error_naming_it() {
        let parent = tempfile::tempdir().unwrap();
        let mut s = SpillFiles::new(Some(parent.path().to_path_buf()), SpillCompression::Zstd);
        s.spill(&[run(0..10)]).unwrap();
        let path = s.files[0].path.clone();
        std::fs::write(&path, b"not arrow").unwrap();
        let err = s
            .streams()
            .remove(0)
            .try_collect::<Vec<_>>()
            .await
            .unwrap_err();
        assert!(err.to_string().contains("run-0.arrow"), "{err}");
        drop(s);
        assert_eq!(std::fs::read_dir(parent.path()).unwrap().count(), 0);
    }
}
