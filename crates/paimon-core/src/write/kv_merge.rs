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
use arrow_cast::cast;
use arrow_row::{RowConverter, Rows, SortField};
use arrow_schema::{DataType, Field, Schema, SchemaRef, SortOptions};
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
        let (order, starts) = self.sort(rows)?;
        let mut runs: Vec<Vec<u32>> = Vec::new();
        let ends = starts.iter().skip(1).copied().chain([order.len() as u32]);
        for (start, end) in starts.iter().zip(ends) {
            let group = order.get(*start as usize..end as usize).unwrap_or_default();
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

    /// Row order by (key, sequence fields, `_SEQUENCE_NUMBER`) and the positions in that
    /// order where each key's group starts.
    fn sort(&self, rows: &RecordBatch) -> Result<(Vec<u32>, Vec<u32>)> {
        let seq = rows
            .columns()
            .get(self.layout.seqnum)
            .ok_or_else(|| Error::internal("buffer has no _SEQUENCE_NUMBER"))?
            .as_primitive_opt::<Int64Type>()
            .ok_or_else(|| Error::internal("_SEQUENCE_NUMBER is not BIGINT"))?
            .values()
            .clone();
        if let Some(sorted) = self.sort_by_integer_key(rows, &seq)? {
            return Ok(sorted);
        }
        let keys = Self::converter(rows, &self.layout.key, false)?;
        let user = match self.layout.user_seq.is_empty() {
            true => None,
            false => Some(Self::converter(
                rows,
                &self.layout.user_seq,
                self.layout.user_seq_desc,
            )?),
        };
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
        let starts = group_starts(&order, |a, b| keys.row(a as usize) == keys.row(b as usize));
        Ok((order, starts))
    }

    /// The common case sorted without the row format: one integer-like key column without
    /// nulls, no sequence fields, and sequence numbers rising with the row index (as the
    /// buffer assigns them), so (key, row index) pairs sort in (key, `_SEQUENCE_NUMBER`)
    /// order. `None` when the buffer is not of that shape.
    fn sort_by_integer_key(
        &self,
        rows: &RecordBatch,
        seq: &[i64],
    ) -> Result<Option<(Vec<u32>, Vec<u32>)>> {
        let ([key], true) = (self.layout.key.as_slice(), self.layout.user_seq.is_empty()) else {
            return Ok(None);
        };
        let Some(column) = rows.columns().get(*key) else {
            return Ok(None);
        };
        let integer_like = matches!(
            column.data_type(),
            DataType::Int8
                | DataType::Int16
                | DataType::Int32
                | DataType::Int64
                | DataType::Date32
                | DataType::Timestamp(_, _)
        );
        if !integer_like || column.null_count() > 0 || !seq.windows(2).all(|w| w[0] <= w[1]) {
            return Ok(None);
        }
        // Widening to i64 keeps the order of every type above (the row format's order).
        let widened = cast(column, &DataType::Int64)?;
        let Some(values) = widened.as_primitive_opt::<Int64Type>() else {
            return Ok(None);
        };
        // Sign-flipped keys sort as unsigned; the radix sort is stable, so pairs in row order
        // come out in (key, row) order.
        let mut pairs: Vec<(u64, u32)> = values
            .values()
            .iter()
            .map(|&k| (k as u64) ^ (1 << 63))
            .zip(0u32..)
            .collect();
        super::radix::sort_by_key(&mut pairs);
        let starts = (0..pairs.len() as u32)
            .filter(|&i| {
                i == 0
                    || pairs.get(i as usize - 1).map(|p| p.0) != pairs.get(i as usize).map(|p| p.0)
            })
            .collect();
        Ok(Some((pairs.into_iter().map(|(_, i)| i).collect(), starts)))
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

/// The positions in `order` where a run of equal keys (by `same`, on row indexes) starts.
fn group_starts(order: &[u32], same: impl Fn(u32, u32) -> bool) -> Vec<u32> {
    let mut starts = Vec::new();
    let mut first = None;
    for (position, &row) in order.iter().enumerate() {
        if first.is_none_or(|f| !same(f, row)) {
            starts.push(position as u32);
            first = Some(row);
        }
    }
    starts
}

/// In-memory runs as merge streams.
pub(crate) fn memory_streams(runs: Vec<RecordBatch>) -> Vec<RecordBatchStream> {
    runs.into_iter()
        .map(|b| futures::stream::once(async move { Ok(b) }).boxed())
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashMap};

    use arrow_array::{Int32Array, Int64Array, StringArray};

    use super::*;

    /// A table keyed by `key_type` (`BIGINT` or `STRING`) with a value `v INT`, and its merge.
    fn merge(key_type: &str, engine: &str) -> BufferMerge {
        let json = format!(
            r#"{{"version":3,"id":0,"fields":[{{"id":0,"name":"k","type":"{key_type} NOT NULL"}},{{"id":1,"name":"v","type":"INT"}}],"primaryKeys":["k"],"options":{{}}}}"#
        );
        let schema = TableSchema::from_json_bytes(json.as_bytes()).unwrap();
        let map: HashMap<String, String> = [("merge-engine".to_string(), engine.to_string())]
            .into_iter()
            .chain(
                (engine == "aggregation")
                    .then(|| ("fields.v.aggregate-function".into(), "sum".into())),
            )
            .collect();
        let options = Arc::new(TableOptions::from_map(&map).unwrap());
        let kv = KvLayout::new(&schema, &options).unwrap();
        BufferMerge::new(&schema, options, &kv).unwrap()
    }

    /// A buffer of `keys` (as BIGINT, or as zero-padded strings, which sort alike), values
    /// 0.., sequence numbers 100.., all `+I`.
    fn buffer(merge: &BufferMerge, keys: &[i64], strings: bool) -> RecordBatch {
        let key: ArrayRef = match strings {
            true => Arc::new(StringArray::from_iter_values(
                keys.iter().map(|k| format!("{k:08}")),
            )),
            false => Arc::new(Int64Array::from(keys.to_vec())),
        };
        let n = keys.len() as i64;
        RecordBatch::try_new(
            merge.schema(),
            vec![
                key,
                Arc::new(Int32Array::from_iter_values(0..n as i32)),
                Arc::new(Int64Array::from_iter_values(100..100 + n)),
                Arc::new(Int8Array::from(vec![0i8; keys.len()])),
            ],
        )
        .unwrap()
    }

    /// Each run's (value, sequence number) column pairs.
    fn contents(runs: &[RecordBatch]) -> Vec<Vec<(i32, i64)>> {
        runs.iter()
            .map(|r| {
                let v = r.column(1).as_primitive::<arrow_array::types::Int32Type>();
                let s = r.column(2).as_primitive::<Int64Type>();
                v.values()
                    .iter()
                    .copied()
                    .zip(s.values().iter().copied())
                    .collect()
            })
            .collect()
    }

    /// The model: the i-th run holds each key's i-th record in key order (deduplicate: one
    /// run of each key's last record).
    fn model(keys: &[i64], deduplicate: bool) -> Vec<Vec<(i32, i64)>> {
        let mut groups: BTreeMap<i64, Vec<(i32, i64)>> = BTreeMap::new();
        for (i, k) in keys.iter().enumerate() {
            groups
                .entry(*k)
                .or_default()
                .push((i as i32, 100 + i as i64));
        }
        let mut runs: Vec<Vec<(i32, i64)>> = Vec::new();
        for records in groups.values() {
            let kept = match deduplicate {
                true => records.last().map(|r| vec![*r]).unwrap_or_default(),
                false => records.clone(),
            };
            for (occurrence, r) in kept.into_iter().enumerate() {
                if runs.len() <= occurrence {
                    runs.push(Vec::new());
                }
                runs[occurrence].push(r);
            }
        }
        runs
    }

    #[test]
    fn integer_and_row_format_sorts_give_the_model_runs() {
        // Deterministic pseudo-random keys with many repeats, negative ones included.
        let keys: Vec<i64> = (0..5_000u64)
            .map(|i| ((i.wrapping_mul(2_654_435_761) >> 7) % 700) as i64 - 200)
            .collect();
        for engine in ["deduplicate", "aggregation"] {
            let int = merge("BIGINT", engine);
            let rows = buffer(&int, &keys, false);
            let seq = rows.column(2).as_primitive::<Int64Type>().values().clone();
            assert!(int.sort_by_integer_key(&rows, &seq).unwrap().is_some());
            let expected = model(&keys, engine == "deduplicate");
            assert_eq!(
                contents(&int.sorted_runs(&rows).unwrap()),
                expected,
                "{engine}"
            );
            // Non-negative keys only for the strings, whose padding sorts like the integers.
            let positive: Vec<i64> = keys.iter().map(|k| k + 200).collect();
            let string = merge("STRING", engine);
            let rows = buffer(&string, &positive, true);
            assert!(string.sort_by_integer_key(&rows, &seq).unwrap().is_none());
            assert_eq!(
                contents(&string.sorted_runs(&rows).unwrap()),
                expected,
                "{engine}"
            );
        }
    }

    #[test]
    fn falling_sequence_numbers_take_the_row_format_path() {
        let int = merge("BIGINT", "deduplicate");
        let mut rows = buffer(&int, &[3, 1, 3, 1], false);
        let mut columns = rows.columns().to_vec();
        columns[2] = Arc::new(Int64Array::from(vec![9, 8, 7, 6]));
        rows = RecordBatch::try_new(int.schema(), columns).unwrap();
        let seq = rows.column(2).as_primitive::<Int64Type>().values().clone();
        assert!(int.sort_by_integer_key(&rows, &seq).unwrap().is_none());
        // The highest sequence number of each key wins: rows 1 (key 1) and 0 (key 3).
        assert_eq!(
            contents(&int.sorted_runs(&rows).unwrap()),
            vec![vec![(1, 8), (0, 9)]]
        );
    }
}
