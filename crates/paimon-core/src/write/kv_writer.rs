//! [`KvWriter`]: the writer of one (partition, bucket) of a primary-key table (Java
//! `MergeTreeWriter` over `SortBufferWriteBuffer`).
//!
//! Every row gets the bucket's next sequence number on arrival. Rows are buffered up to
//! `write-buffer-size` (Arrow memory); a full buffer, and `prepare_commit`, flush it: the rows
//! are sorted by (trimmed primary key in declared order, `sequence.field` columns,
//! `_SEQUENCE_NUMBER`) with arrow-row keys, each key group is reduced by the merge engine
//! (deduplicate: the last record wins, whatever its kind, with `ignore-delete` retractions
//! dropped first; partial-update and aggregation through `kv_merge`), and the survivors are
//! written as sorted level-0 files. Buffers are not
//! spilled to disk: a full buffer becomes a level-0 file, as Java does with
//! `write-buffer-spillable = false`, so one commit can hold several level-0 files per bucket.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, Int8Type};
use arrow_array::{ArrayRef, Int64Array, Int8Array, RecordBatch, UInt32Array};
use arrow_row::{RowConverter, Rows, SortField};
use arrow_schema::SortOptions;
use arrow_select::concat::{concat, concat_batches};
use arrow_select::take::{take, take_record_batch};

use super::file_writer::RollingWriter;
use super::kv_layout::KvLayout;
use super::kv_merge::BufferMerge;
use crate::mergetree::merge_function::is_retract;
use crate::spec::manifest::DataFileMeta;
use crate::{Error, Result};

/// Buffered rows of one bucket.
pub(crate) struct KvWriter {
    layout: Arc<KvLayout>,
    /// Partial-update / aggregation engines; `None` = deduplicate.
    merge: Option<Arc<BufferMerge>>,
    files: RollingWriter,
    next_seq: i64,
    ignore_delete: bool,
    buffer: Vec<RecordBatch>,
    seqs: Vec<ArrayRef>,
    kinds: Vec<ArrayRef>,
    buffered_bytes: usize,
    buffer_limit: usize,
}

impl KvWriter {
    /// A writer whose first row gets `next_seq`.
    pub(crate) fn new(
        layout: Arc<KvLayout>,
        merge: Option<Arc<BufferMerge>>,
        files: RollingWriter,
        next_seq: i64,
        ignore_delete: bool,
        buffer_limit: usize,
    ) -> Self {
        KvWriter {
            layout,
            merge,
            files,
            next_seq,
            ignore_delete,
            buffer: Vec::new(),
            seqs: Vec::new(),
            kinds: Vec::new(),
            buffered_bytes: 0,
            buffer_limit,
        }
    }

    /// Buffers `rows` (table columns) with their `kinds`; flushes a full buffer.
    pub(crate) async fn write(&mut self, rows: RecordBatch, kinds: Int8Array) -> Result<()> {
        let n = rows.num_rows() as i64;
        let seq = Int64Array::from_iter_values(self.next_seq..self.next_seq + n);
        self.next_seq += n;
        self.buffered_bytes += rows.get_array_memory_size();
        self.buffer.push(rows);
        self.seqs.push(Arc::new(seq));
        self.kinds.push(Arc::new(kinds));
        if self.buffered_bytes >= self.buffer_limit {
            self.flush_buffer().await?;
        }
        Ok(())
    }

    /// Sorts, merges and writes the buffer as level-0 files.
    async fn flush_buffer(&mut self) -> Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let schema = self
            .buffer
            .first()
            .map(|b| b.schema())
            .ok_or_else(|| Error::internal("empty buffer"))?;
        let rows = concat_batches(&schema, &self.buffer)?;
        let seqs = concat(&self.seqs.iter().map(|a| a.as_ref()).collect::<Vec<_>>())?;
        let kinds = concat(&self.kinds.iter().map(|a| a.as_ref()).collect::<Vec<_>>())?;
        self.buffer.clear();
        self.seqs.clear();
        self.kinds.clear();
        self.buffered_bytes = 0;
        let (order, keys) = self.sort(&rows, &seqs)?;
        let batch = match &self.merge {
            Some(m) => {
                let merged = m.merge(&rows, [seqs, kinds], &order, &keys).await?;
                let n = rows.num_columns();
                let system = |c: usize| {
                    merged
                        .columns()
                        .get(c)
                        .cloned()
                        .ok_or_else(|| Error::internal("merged system column missing"))
                };
                let (seqs, kinds) = (system(n)?, system(n + 1)?);
                let values = RecordBatch::try_new(rows.schema(), merged.columns()[..n].to_vec())?;
                self.layout.file_batch(
                    &values,
                    seqs.as_primitive::<Int64Type>().clone(),
                    kinds.as_primitive::<Int8Type>().clone(),
                )?
            }
            None => {
                let winners = self.deduplicate(&order, &keys, &kinds);
                let rows = take_record_batch(&rows, &winners)?;
                let seqs = take(seqs.as_ref(), &winners, None)?;
                let kinds = take(kinds.as_ref(), &winners, None)?;
                self.layout.file_batch(
                    &rows,
                    seqs.as_primitive::<Int64Type>().clone(),
                    kinds.as_primitive::<Int8Type>().clone(),
                )?
            }
        };
        // Every flush is its own sorted run: its files never take rows of a later flush.
        self.files.write(&batch).await?;
        self.files.close_current().await
    }

    fn converter(&self, rows: &RecordBatch, cols: &[usize], desc: bool) -> Result<Rows> {
        let arrays: Vec<ArrayRef> = cols.iter().map(|&c| rows.column(c).clone()).collect();
        let fields = arrays
            .iter()
            .map(|a| {
                SortField::new_with_options(
                    a.data_type().clone(),
                    SortOptions {
                        descending: desc,
                        nulls_first: true,
                    },
                )
            })
            .collect();
        Ok(RowConverter::new(fields)?.convert_columns(&arrays)?)
    }

    /// Row order by (key, sequence fields, `_SEQUENCE_NUMBER`) and the key rows.
    fn sort(&self, rows: &RecordBatch, seqs: &ArrayRef) -> Result<(Vec<u32>, Rows)> {
        let keys = self.converter(rows, &self.layout.key_positions, false)?;
        let user = match self.layout.user_seq.is_empty() {
            true => None,
            false => {
                Some(self.converter(rows, &self.layout.user_seq, self.layout.user_seq_desc)?)
            }
        };
        let seq = seqs.as_primitive::<Int64Type>().values();
        let mut order: Vec<u32> = (0..rows.num_rows() as u32).collect();
        order.sort_unstable_by(|&a, &b| {
            let (a, b) = (a as usize, b as usize);
            keys.row(a)
                .cmp(&keys.row(b))
                .then_with(|| match &user {
                    Some(u) => u.row(a).cmp(&u.row(b)),
                    None => std::cmp::Ordering::Equal,
                })
                .then_with(|| seq.get(a).cmp(&seq.get(b)))
        });
        Ok((order, keys))
    }

    /// The deduplicate engine: per key group the last record (with `ignore-delete`, the last
    /// that is not a retraction; none when all are).
    fn deduplicate(&self, order: &[u32], keys: &Rows, kinds: &ArrayRef) -> UInt32Array {
        let kinds = kinds.as_primitive::<Int8Type>().values();
        let mut winners = Vec::with_capacity(order.len());
        let mut start = 0;
        while start < order.len() {
            let first = order.get(start).map_or(0, |&i| i as usize);
            let end = order
                .get(start..)
                .unwrap_or_default()
                .iter()
                .position(|&i| keys.row(i as usize) != keys.row(first))
                .map_or(order.len(), |n| start + n);
            let group = order.get(start..end).unwrap_or_default();
            let dropped = |i: u32| {
                self.ignore_delete && kinds.get(i as usize).is_some_and(|k| is_retract(*k))
            };
            if let Some(&i) = group.iter().rev().find(|&&i| !dropped(i)) {
                winners.push(i);
            }
            start = end;
        }
        UInt32Array::from(winners)
    }

    /// Flushes the buffer and returns the files written since the last call.
    pub(crate) async fn prepare_commit(&mut self) -> Result<Vec<DataFileMeta>> {
        self.flush_buffer().await?;
        self.files.flush().await
    }
}
