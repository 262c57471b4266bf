//! Sorting a primary-key write buffer and merging it with the table's engine (Java
//! `SortBufferWriteBuffer`: the buffer sorted by (key, sequence fields, `_SEQUENCE_NUMBER`),
//! each key group reduced by the merge function through `ReducerMergeFunctionWrapper`).
//!
//! A buffer is sorted into **runs** holding each key at most once: the deduplicate engine
//! keeps one record per key (the last; with `ignore-delete` the last that is not a
//! retraction), which is exact because the last of the last records is the last record; the
//! other engines keep every record, the i-th version of every key going to run i. Runs, from
//! memory and spilled (`spill`), are merged by the read side's k-way merge
//! (`mergetree::SortMerge`) with the table's merge function in the mode that keeps
//! retractions: a lone record is written as it is (a `-D` too), a group takes the kind and
//! sequence number of Java's `getResult`. Each key group thus sees all its records in Java's
//! order, from however many runs.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, Int8Type};
use arrow_array::{ArrayRef, Int8Array, RecordBatch, UInt32Array};
use arrow_row::{RowConverter, Rows, SortField};
use arrow_schema::{Field, Schema, SchemaRef, SortOptions};
use arrow_select::take::take_record_batch;
use futures::StreamExt;

use super::kv_layout::KvLayout;
use crate::arrow::schema::arrow_field;
use crate::arrow::RecordBatchStream;
use crate::mergetree::merge_function::is_retract;
use crate::mergetree::{Layout, MergeFunction, SortMerge};
use crate::spec::options::{MergeEngine, TableOptions};
use crate::spec::schema::TableSchema;
use crate::spec::special_fields::{sequence_number_field, value_kind_field};
use crate::spec::types::DataField;
use crate::{Error, Result};

/// Rows per merged output batch.
const MERGE_BATCH_ROWS: usize = 4096;

/// The sort and merge of one table's buffers.
#[derive(Debug)]
pub(crate) struct BufferMerge {
    options: Arc<TableOptions>,
    fields: Vec<DataField>,
    /// Arrow schema of buffer runs: table columns, `_SEQUENCE_NUMBER`, `_VALUE_KIND`.
    schema: SchemaRef,
    all_keys: Vec<usize>,
    layout: Layout,
    deduplicate: bool,
}

impl BufferMerge {
    /// The merge for `schema`'s primary-key files.
    pub(crate) fn new(
        schema: &TableSchema,
        options: Arc<TableOptions>,
        kv: &KvLayout,
    ) -> Result<Self> {
        let mut fields = schema.fields.clone();
        fields.push(sequence_number_field());
        fields.push(value_kind_field());
        let all_keys: Vec<usize> = schema
            .primary_keys
            .iter()
            .filter_map(|k| schema.index_of(k))
            .collect();
        let n = schema.fields.len();
        let layout = Layout {
            key: kv.key_positions.clone(),
            user_seq: kv.user_seq.clone(),
            user_seq_desc: kv.user_seq_desc,
            seqnum: n,
            kind: n + 1,
        };
        // Fails early on bad engine options, as Java's factory does.
        MergeFunction::new(&options, &fields, &all_keys, &layout.user_seq)?;
        let arrow: Vec<Field> = fields.iter().map(arrow_field).collect::<Result<_>>()?;
        Ok(BufferMerge {
            deduplicate: options.merge_engine == MergeEngine::Deduplicate,
            options,
            fields,
            schema: Arc::new(Schema::new(arrow)),
            all_keys,
            layout,
        })
    }

    /// The Arrow schema of buffered rows and runs.
    pub(crate) fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// Number of table columns (the system columns follow them).
    pub(crate) fn table_columns(&self) -> usize {
        self.layout.seqnum
    }

    /// The buffer (table columns, then `_SEQUENCE_NUMBER`, `_VALUE_KIND`) as sorted runs
    /// holding each key at most once (see the module docs).
    pub(crate) fn sorted_runs(&self, rows: &RecordBatch) -> Result<Vec<RecordBatch>> {
        let (order, keys) = self.sort(rows)?;
        let mut runs: Vec<Vec<u32>> = Vec::new();
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
            if self.deduplicate {
                if runs.is_empty() {
                    runs.push(Vec::new());
                }
                if let (Some(&i), Some(run)) = (self.last_kept(group, rows)?, runs.first_mut()) {
                    run.push(i);
                }
            } else {
                for (occurrence, &i) in group.iter().enumerate() {
                    if runs.len() <= occurrence {
                        runs.push(Vec::new());
                    }
                    if let Some(run) = runs.get_mut(occurrence) {
                        run.push(i);
                    }
                }
            }
            start = end;
        }
        runs.into_iter()
            .filter(|r| !r.is_empty())
            .map(|r| Ok(take_record_batch(rows, &UInt32Array::from(r))?))
            .collect()
    }

    /// The deduplicate engine's record of a group: the last (with `ignore-delete`, the last
    /// that is not a retraction; none when all are).
    fn last_kept<'a>(&self, group: &'a [u32], rows: &RecordBatch) -> Result<Option<&'a u32>> {
        let kinds = rows
            .columns()
            .get(self.layout.kind)
            .ok_or_else(|| Error::internal("buffer has no _VALUE_KIND"))?
            .as_primitive_opt::<Int8Type>()
            .ok_or_else(|| Error::internal("_VALUE_KIND is not TINYINT"))?
            .values();
        let ignore = self.options.ignore_delete;
        Ok(group
            .iter()
            .rev()
            .find(|&&i| !(ignore && kinds.get(i as usize).is_some_and(|k| is_retract(*k)))))
    }

    fn converter(rows: &RecordBatch, cols: &[usize], desc: bool) -> Result<Rows> {
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
    fn sort(&self, rows: &RecordBatch) -> Result<(Vec<u32>, Rows)> {
        let keys = Self::converter(rows, &self.layout.key, false)?;
        let user = match self.layout.user_seq.is_empty() {
            true => None,
            false => Some(Self::converter(
                rows,
                &self.layout.user_seq,
                self.layout.user_seq_desc,
            )?),
        };
        let seq = rows
            .columns()
            .get(self.layout.seqnum)
            .ok_or_else(|| Error::internal("buffer has no _SEQUENCE_NUMBER"))?
            .as_primitive_opt::<Int64Type>()
            .ok_or_else(|| Error::internal("_SEQUENCE_NUMBER is not BIGINT"))?
            .values()
            .clone();
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

    /// Refuses, before anything is buffered, retractions the table's engine could not merge
    /// with the key's other records (Java accepts them and fails when it merges them, at
    /// flush, read or compaction): the engine's message as `InvalidArgument`.
    pub(crate) fn check_retracts(&self, kinds: &Int8Array) -> Result<()> {
        let present = |k: i8| kinds.values().contains(&k);
        let retracts: Vec<i8> = [1, 3].into_iter().filter(|&k| present(k)).collect();
        if retracts.is_empty() {
            return Ok(());
        }
        let function = MergeFunction::new(
            &self.options,
            &self.fields,
            &self.all_keys,
            &self.layout.user_seq,
        )?;
        for kind in retracts {
            function.check_retract(kind).map_err(|e| {
                let mut err = Error::invalid_argument(e.message().to_string())
                    .with_context("merge-engine", self.options.merge_engine.to_string())
                    .with_context("row kind", if kind == 1 { "-U" } else { "-D" }.to_string());
                if let Some((_, field)) = e.context().iter().find(|(k, _)| *k == "field") {
                    err = err.with_context("field", field.clone());
                }
                err
            })?;
        }
        Ok(())
    }

    /// Whether `runs` need no merge: a single deduplicated run is its own result.
    pub(crate) fn is_final(&self, runs: &[RecordBatch]) -> bool {
        self.deduplicate && runs.len() <= 1
    }

    /// The merge of sorted runs (each key at most once per run), keeping retractions.
    pub(crate) fn merge(&self, runs: Vec<RecordBatchStream>) -> Result<SortMerge> {
        let function = MergeFunction::new(
            &self.options,
            &self.fields,
            &self.all_keys,
            &self.layout.user_seq,
        )?;
        Ok(SortMerge::new(
            &self.schema,
            self.layout.clone(),
            function,
            runs,
            MERGE_BATCH_ROWS,
        )?
        .with_keep_retracts(true))
    }
}

/// In-memory runs as merge streams.
pub(crate) fn memory_streams(runs: Vec<RecordBatch>) -> Vec<RecordBatchStream> {
    runs.into_iter()
        .map(|b| futures::stream::once(async move { Ok(b) }).boxed())
        .collect()
}
