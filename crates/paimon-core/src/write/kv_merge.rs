//! Merging a sorted write buffer with the table's partial-update or aggregation engine (Java
//! applies the merge function to each key group when it flushes `SortBufferWriteBuffer`).
//!
//! The buffer, sorted by (key, sequence fields, `_SEQUENCE_NUMBER`), is cut into runs holding
//! each key at most once (the i-th version of every key goes to run i) and handed to the
//! read side's k-way merge (`mergetree::SortMerge`) with the table's merge function, so writes
//! and reads share one implementation. The merged row keeps the last record's
//! `_SEQUENCE_NUMBER` and kind. Retractions are refused before they reach the buffer
//! (`TableWrite`): the read-side merge drops lone retractions, which a writer must keep.

use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, UInt32Array};
use arrow_row::Rows;
use arrow_schema::{Field, Schema};
use arrow_select::concat::concat_batches;
use arrow_select::take::take_record_batch;
use futures::StreamExt;

use super::kv_layout::KvLayout;
use crate::arrow::schema::arrow_field;
use crate::arrow::RecordBatchStream;
use crate::mergetree::{Layout, MergeFunction, SortMerge};
use crate::spec::options::TableOptions;
use crate::spec::schema::TableSchema;
use crate::spec::special_fields::{sequence_number_field, value_kind_field};
use crate::spec::types::DataField;
use crate::{Error, Result};

/// The merge of one table's buffers.
#[derive(Debug)]
pub(crate) struct BufferMerge {
    options: Arc<TableOptions>,
    fields: Vec<DataField>,
    all_keys: Vec<usize>,
    layout: Layout,
}

impl BufferMerge {
    /// The merge for `schema`'s primary-key files (buffer = table columns, then
    /// `_SEQUENCE_NUMBER`, `_VALUE_KIND`).
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
        Ok(BufferMerge {
            options,
            fields,
            all_keys,
            layout,
        })
    }

    /// Merges `rows` (table columns), `seq` and `kinds`, sorted as `order`, grouped by `keys`.
    pub(crate) async fn merge(
        &self,
        rows: &RecordBatch,
        system: [ArrayRef; 2],
        order: &[u32],
        keys: &Rows,
    ) -> Result<RecordBatch> {
        let mut columns = rows.columns().to_vec();
        columns.extend(system);
        let fields: Vec<Field> = self.fields.iter().map(arrow_field).collect::<Result<_>>()?;
        let schema = Arc::new(Schema::new(fields));
        let all = RecordBatch::try_new(schema.clone(), columns)?;
        let mut runs: Vec<Vec<u32>> = Vec::new();
        let mut occurrence = 0;
        for (i, &row) in order.iter().enumerate() {
            let same = i > 0
                && order
                    .get(i - 1)
                    .is_some_and(|&p| keys.row(p as usize) == keys.row(row as usize));
            occurrence = if same { occurrence + 1 } else { 0 };
            if runs.len() <= occurrence {
                runs.push(Vec::new());
            }
            if let Some(run) = runs.get_mut(occurrence) {
                run.push(row);
            }
        }
        let streams = runs
            .into_iter()
            .map(|r| {
                let batch = take_record_batch(&all, &UInt32Array::from(r));
                let s: RecordBatchStream =
                    futures::stream::once(async move { batch.map_err(Error::from) }).boxed();
                s
            })
            .collect();
        let function = MergeFunction::new(
            &self.options,
            &self.fields,
            &self.all_keys,
            &self.layout.user_seq,
        )?;
        let mut merge = SortMerge::new(&schema, self.layout.clone(), function, streams, 4096)?;
        let mut out = Vec::new();
        while let Some(b) = merge.next_batch().await? {
            out.push(b);
        }
        Ok(concat_batches(&schema, &out)?)
    }
}
