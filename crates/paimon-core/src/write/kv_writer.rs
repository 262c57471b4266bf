//! [`KvWriter`]: the writer of one (partition, bucket) of a primary-key table (Java
//! `MergeTreeWriter` over `SortBufferWriteBuffer`).
//!
//! Every row gets the bucket's next sequence number on arrival and waits in the buffer (Arrow
//! memory). The buffers of all buckets share `write-buffer-size` (`TableWrite` asks the
//! largest to [`KvWriter::flush_memory`] when they exceed it, as Java's memory pool preempts
//! its largest owner). With `write-buffer-spillable` (the default) a buffer asked to free its
//! memory is sorted into runs (`kv_merge`) and spilled to a local file (`spill`); at
//! `prepare_commit` the spilled runs and the buffer are merged by key with the table's engine
//! into **one** sorted run of level-0 files, as Java's external sort buffer does. Without
//! spilling, or when the spill files reach `write-buffer-spill.max-disk-size`, or when one
//! more spill would put more than `local-sort.max-num-file-handles` runs into the merge, the
//! buffer (with what was spilled) is written out as its own sorted run of level-0 files
//! (Java `flushWriteBuffer`), so a commit can then hold several level-0 runs per bucket.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, Int8Type};
use arrow_array::{ArrayRef, Int64Array, Int8Array, RecordBatch};
use arrow_select::concat::concat_batches;

use super::file_writer::{FileSeries, OpenFile};
use super::kv_layout::KvLayout;
use super::kv_merge::{memory_streams, BufferMerge};
use super::spill::SpillFiles;
use crate::spec::manifest::DataFileMeta;
use crate::spec::options::WriteBufferOptions;
use crate::{Error, Result};

/// Buffered rows of one bucket.
pub(crate) struct KvWriter {
    layout: Arc<KvLayout>,
    merge: Arc<BufferMerge>,
    files: FileSeries,
    next_seq: i64,
    /// Buffered rows: table columns, `_SEQUENCE_NUMBER`, `_VALUE_KIND`.
    buffer: Vec<RecordBatch>,
    buffered_bytes: usize,
    /// `None` without `write-buffer-spillable`.
    spill: Option<SpillFiles>,
    options: WriteBufferOptions,
}

impl KvWriter {
    /// A writer whose first row gets `next_seq`; `spill` holds its spilled runs (`None`: the
    /// buffer is never spilled).
    pub(crate) fn new(
        layout: Arc<KvLayout>,
        merge: Arc<BufferMerge>,
        files: FileSeries,
        next_seq: i64,
        spill: Option<SpillFiles>,
        options: WriteBufferOptions,
    ) -> Self {
        KvWriter {
            layout,
            merge,
            files,
            next_seq,
            buffer: Vec::new(),
            buffered_bytes: 0,
            spill,
            options,
        }
    }

    /// Bytes of Arrow memory the buffer holds.
    pub(crate) fn buffered_bytes(&self) -> usize {
        self.buffered_bytes
    }

    /// Buffers `rows` (table columns) with their `kinds`.
    pub(crate) fn write(&mut self, rows: RecordBatch, kinds: Int8Array) -> Result<()> {
        let n = rows.num_rows() as i64;
        let seq = Int64Array::from_iter_values(self.next_seq..self.next_seq + n);
        self.next_seq += n;
        let mut columns = rows.columns().to_vec();
        columns.push(Arc::new(seq));
        columns.push(Arc::new(kinds));
        let batch = RecordBatch::try_new(self.merge.schema(), columns)?;
        self.buffered_bytes += batch.get_array_memory_size();
        self.buffer.push(batch);
        Ok(())
    }

    /// Sorts the buffer into runs and empties it.
    fn take_runs(&mut self) -> Result<Vec<RecordBatch>> {
        let Some(first) = self.buffer.first() else {
            return Ok(Vec::new());
        };
        let rows = concat_batches(&first.schema(), &self.buffer)?;
        self.buffer.clear();
        self.buffered_bytes = 0;
        self.merge.sorted_runs(&rows)
    }

    /// Frees the buffer's memory (Java `MergeTreeWriter#flushMemory`): spills it, or writes
    /// it out as level-0 files when it may not spill (see the module docs).
    pub(crate) async fn flush_memory(&mut self) -> Result<()> {
        let runs = self.take_runs()?;
        if runs.is_empty() {
            return Ok(());
        }
        let limit = self.options.max_num_file_handles;
        let max_disk = self.options.spill_max_disk_size.bytes();
        if let Some(spill) = &mut self.spill {
            // One more stream (the next buffer) must still fit into the final merge.
            let room = spill.run_count() + runs.len() < limit;
            if room && spill.disk_bytes() < max_disk {
                return spill.spill(&runs);
            }
        }
        self.write_runs(runs).await
    }

    /// Merges the spilled runs and `runs` into one sorted run of level-0 files; the spill
    /// files are removed whether or not this succeeds.
    async fn write_runs(&mut self, runs: Vec<RecordBatch>) -> Result<()> {
        let result = self.merge_and_write(runs).await;
        let cleared = match &mut self.spill {
            Some(s) => s.clear(),
            None => Ok(()),
        };
        result.and(cleared)
    }

    async fn merge_and_write(&mut self, runs: Vec<RecordBatch>) -> Result<()> {
        // The open file is a local: every flush is its own sorted run (its files never take
        // rows of a later flush), and no format writer outlives the flush.
        let mut current = None;
        let written = self.merge_into(&mut current, runs).await;
        if written.is_err() {
            // Its upload may have started: nothing of a failed flush is left behind.
            FileSeries::abort_open(&mut current).await;
        }
        written?;
        self.files.close_open(&mut current).await
    }

    /// Merges `runs` (and the spilled ones) into files, the last one left open in `current`.
    async fn merge_into(
        &mut self,
        current: &mut Option<OpenFile>,
        runs: Vec<RecordBatch>,
    ) -> Result<()> {
        let spilled = self.spill.as_ref().filter(|s| !s.is_empty());
        if spilled.is_none() && self.merge.is_final(&runs) {
            for run in &runs {
                self.write_merged(current, run).await?;
            }
        } else {
            let mut streams = spilled.map(SpillFiles::streams).unwrap_or_default();
            streams.extend(memory_streams(runs));
            let mut merge = self.merge.merge(streams)?;
            while let Some(b) = merge.next_batch().await? {
                self.write_merged(current, &b).await?;
            }
        }
        Ok(())
    }

    /// Writes merged rows (table columns, `_SEQUENCE_NUMBER`, `_VALUE_KIND`) in file layout.
    async fn write_merged(
        &mut self,
        current: &mut Option<OpenFile>,
        merged: &RecordBatch,
    ) -> Result<()> {
        let n = self.merge.table_columns();
        let column = |c: usize| -> Result<&ArrayRef> {
            merged
                .columns()
                .get(c)
                .ok_or_else(|| Error::internal("merged system column missing"))
        };
        let seqs = column(n)?
            .as_primitive_opt::<Int64Type>()
            .ok_or_else(|| Error::internal("merged _SEQUENCE_NUMBER is not BIGINT"))?
            .clone();
        let kinds = column(n + 1)?
            .as_primitive_opt::<Int8Type>()
            .ok_or_else(|| Error::internal("merged _VALUE_KIND is not TINYINT"))?
            .clone();
        let values = merged.project(&(0..n).collect::<Vec<_>>())?;
        let batch = self.layout.file_batch(&values, seqs, kinds)?;
        self.files.write_into(current, &batch).await
    }

    /// Drops the buffered and spilled rows (after a failed flush), removing the spill files,
    /// and forgets the files written since the last commit (they stay on storage, uncommitted:
    /// the caller writes those rows again, so a later commit must not list them).
    pub(crate) fn discard(&mut self) {
        self.buffer.clear();
        self.buffered_bytes = 0;
        self.files.take_done();
        if let Some(s) = &mut self.spill {
            // Best effort: the error is the flush error the caller already gets.
            let _ = s.clear();
        }
    }

    /// Merges the spilled runs and the buffer into level-0 files and returns the files written
    /// since the last call.
    pub(crate) async fn prepare_commit(&mut self) -> Result<Vec<DataFileMeta>> {
        let runs = self.take_runs()?;
        let spilled = self.spill.as_ref().is_some_and(|s| !s.is_empty());
        if !runs.is_empty() || spilled {
            self.write_runs(runs).await?;
        }
        Ok(self.files.take_done())
    }
}
