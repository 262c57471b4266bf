//! K-way merge of sorted runs, streaming batch by batch.
//!
//! Mirrors Java `org.apache.paimon.mergetree.compact.SortMergeReaderWithMinHeap` /
//! `SortMergeReaderWithLoserTree` with `ReducerMergeFunctionWrapper` and `DropDeleteReader`
//! (`docs/format.md` "Merge-on-read"). Each run is a stream of decoded batches; the merge keeps
//! one current
//! batch per run with its keys converted once per batch to `arrow-row` comparable rows (Java's
//! natural key order: numbers by value, strings and binaries by unsigned bytes); a key that is a
//! single BIGINT column is compared as `i64` values instead (no conversion). Records are
//! ordered by (key, `sequence.field` values, `_SEQUENCE_NUMBER`).
//!
//! The loop never allocates per row: when the smallest head is strictly below every other
//! head, the whole stretch of its run below the next head is emitted at once (found by binary
//! search; every such key is a single record, emitted unchanged unless it is a retract); equal
//! heads form a key group that goes through the [`MergeFunction`]. Output cells are indices
//! into a batch pool, gathered by `interleave` per output batch.
//!
//! Every batch carries the LSM level of the file it was read from (Java `KeyValue#level`;
//! -1 for records not yet in a file). In lookup mode ([`SortMerge::with_lookup`], Java
//! `LookupMergeFunction`) a key group of several records is merged from its records of level
//! <= 0 plus only its record of the lowest level >= 1: lookup compaction folded the deeper
//! levels into that record already.

use std::cmp::Ordering;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, Int8Type};
use arrow_array::{Array, ArrayRef, Int64Array, Int8Array, RecordBatch};
use arrow_row::{RowConverter, Rows, SortField};
use arrow_schema::{SchemaRef, SortOptions};
use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};

use super::merge_function::{is_retract, MergeFunction, Record, SystemColumns};
use super::output::{Output, Pool};
use crate::arrow::RecordBatchStream;
use crate::{Error, Result};

/// One batch of a sorted run with the level of the file it came from.
#[derive(Debug, Clone)]
pub struct LevelBatch {
    /// The decoded rows (merge layout).
    pub batch: RecordBatch,
    /// LSM level of the source file; -1 for rows not yet in a file (Java's write buffer).
    pub level: i32,
}

/// A sorted run whose batches carry their file's level.
pub type LevelRun = BoxStream<'static, Result<LevelBatch>>;

/// Level of records that are not in a file (Java's write buffer, `KeyValue#level` = -1).
pub const UNLEVELLED: i32 = -1;

/// Column positions inside the batches being merged.
#[derive(Debug, Clone)]
pub struct Layout {
    /// Trimmed primary-key columns, in key order.
    pub key: Vec<usize>,
    /// `sequence.field` columns.
    pub user_seq: Vec<usize>,
    /// `sequence.field.sort-order = descending`.
    pub user_seq_desc: bool,
    /// `_SEQUENCE_NUMBER`.
    pub seqnum: usize,
    /// `_VALUE_KIND`.
    pub kind: usize,
}

/// Row converters shared by all runs of one merge; `key` is `None` for a single BIGINT key.
struct Converters {
    key: Option<RowConverter>,
    seq: Option<RowConverter>,
}

/// The keys of one batch in comparable form (the same variant for every cursor of a merge).
enum Keys {
    /// `arrow-row` rows of the key columns.
    Rows(Rows),
    /// A single BIGINT key column.
    Int(Int64Array),
}

/// One comparable key; nulls (`None`) sort first, as with `arrow-row`.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum Key<'a> {
    Row(arrow_row::Row<'a>),
    Int(Option<i64>),
}

impl Keys {
    fn at(&self, i: usize) -> Key<'_> {
        match self {
            Keys::Rows(r) => Key::Row(r.row(i)),
            Keys::Int(a) => Key::Int(a.is_valid(i).then(|| a.value(i))),
        }
    }
}

fn head(c: &Cursor) -> Key<'_> {
    c.keys.at(c.pos)
}

struct Cursor {
    run: LevelRun,
    src: usize,
    level: i32,
    keys: Keys,
    seq: Option<Rows>,
    seqnums: Int64Array,
    kinds: Int8Array,
    pos: usize,
    len: usize,
}

/// Merges the sorted runs of one section.
pub struct SortMerge {
    layout: Layout,
    conv: Converters,
    function: MergeFunction,
    lookup: bool,
    sys: SystemColumns,
    keep: bool,
    runs: Vec<LevelRun>,
    cursors: Vec<Cursor>,
    pool: Pool,
    out: Output,
    group: Vec<Record>,
    batch_size: usize,
    started: bool,
}

fn sort_fields(batch_schema: &SchemaRef, cols: &[usize], desc: bool) -> Result<Vec<SortField>> {
    cols.iter()
        .map(|&c| {
            let f = batch_schema
                .fields()
                .get(c)
                .ok_or_else(|| Error::internal(format!("merge column {c} missing")))?;
            Ok(SortField::new_with_options(
                f.data_type().clone(),
                SortOptions {
                    descending: desc,
                    nulls_first: true,
                },
            ))
        })
        .collect()
}

fn columns(batch: &RecordBatch, cols: &[usize]) -> Result<Vec<ArrayRef>> {
    cols.iter()
        .map(|&c| {
            batch
                .columns()
                .get(c)
                .cloned()
                .ok_or_else(|| Error::internal(format!("merge column {c} missing")))
        })
        .collect()
}

impl SortMerge {
    /// A merge of `runs` (each sorted by key, each key at most once per run) whose batches
    /// have `schema`; their records are not in files (level -1).
    pub fn new(
        schema: &SchemaRef,
        layout: Layout,
        function: MergeFunction,
        runs: Vec<RecordBatchStream>,
        batch_size: usize,
    ) -> Result<Self> {
        let runs = runs
            .into_iter()
            .map(|r| {
                r.map_ok(|batch| LevelBatch {
                    batch,
                    level: UNLEVELLED,
                })
                .boxed()
            })
            .collect();
        Self::with_levels(schema, layout, function, runs, batch_size)
    }

    /// A merge of `runs` whose batches carry the levels of their files (see
    /// [`SortMerge::new`]).
    pub fn with_levels(
        schema: &SchemaRef,
        layout: Layout,
        function: MergeFunction,
        runs: Vec<LevelRun>,
        batch_size: usize,
    ) -> Result<Self> {
        let single_bigint = match layout.key.as_slice() {
            [k] => schema
                .fields()
                .get(*k)
                .is_some_and(|f| f.data_type() == &arrow_schema::DataType::Int64),
            _ => false,
        };
        let key = match single_bigint {
            true => None,
            false => Some(RowConverter::new(sort_fields(schema, &layout.key, false)?)?),
        };
        let seq = if layout.user_seq.is_empty() {
            None
        } else {
            Some(RowConverter::new(sort_fields(
                schema,
                &layout.user_seq,
                layout.user_seq_desc,
            )?)?)
        };
        let ncols = schema.fields().len();
        let per_column = function.per_column();
        let sys = SystemColumns {
            seqnum: layout.seqnum,
            kind: layout.kind,
        };
        Ok(SortMerge {
            layout,
            conv: Converters { key, seq },
            function,
            lookup: false,
            sys,
            keep: false,
            runs,
            cursors: Vec::new(),
            pool: Pool::new(schema)?,
            out: Output::new(ncols, per_column),
            group: Vec::new(),
            batch_size: batch_size.max(1),
            started: false,
        })
    }

    /// Lookup mode (Java `LookupMergeFunction`, for tables whose
    /// [`TableOptions::need_lookup`](crate::spec::options::TableOptions::need_lookup) holds,
    /// except first-row): see the [module docs](self).
    #[must_use]
    pub fn with_lookup(mut self, lookup: bool) -> Self {
        self.lookup = lookup;
        self
    }

    /// Keeps retractions when `keep` (`ReducerMergeFunctionWrapper` without `DropDeleteReader`:
    /// Java's write buffer, compaction without `dropDelete` into a level below the highest
    /// non-empty one, and reads with `forceKeepDelete`): lone records are emitted whatever
    /// their kind, and merged retractions (a deduplicated `-D`, a deleted partial-update or
    /// aggregation row) are emitted as the engine gives them ([`SystemColumns`]).
    #[must_use]
    pub fn with_keep_retracts(mut self, keep: bool) -> Self {
        self.keep = keep;
        self
    }

    /// Wraps a batch of a run into a cursor (keys converted once).
    fn cursor(&mut self, run: LevelRun, batch: LevelBatch) -> Result<Cursor> {
        let LevelBatch { batch, level } = batch;
        let keys = match &self.conv.key {
            Some(conv) => Keys::Rows(conv.convert_columns(&columns(&batch, &self.layout.key)?)?),
            None => {
                let cols = columns(&batch, &self.layout.key)?;
                let col = cols
                    .first()
                    .and_then(|c| c.as_primitive_opt::<Int64Type>())
                    .ok_or_else(|| Error::internal("merge key is not BIGINT"))?;
                Keys::Int(col.clone())
            }
        };
        let seq = match &self.conv.seq {
            Some(c) => Some(c.convert_columns(&columns(&batch, &self.layout.user_seq)?)?),
            None => None,
        };
        let col = |i: usize| {
            batch
                .columns()
                .get(i)
                .ok_or_else(|| Error::internal("system column missing"))
        };
        let seqnums = col(self.layout.seqnum)?
            .as_primitive_opt::<Int64Type>()
            .ok_or_else(|| Error::data_invalid("_SEQUENCE_NUMBER is not BIGINT"))?
            .clone();
        let kinds = col(self.layout.kind)?
            .as_primitive_opt::<Int8Type>()
            .ok_or_else(|| Error::data_invalid("_VALUE_KIND is not TINYINT"))?
            .clone();
        let len = batch.num_rows();
        let src = self.pool.push(batch);
        Ok(Cursor {
            run,
            src,
            level,
            keys,
            seq,
            seqnums,
            kinds,
            pos: 0,
            len,
        })
    }

    /// Reads the next non-empty batch of `run`; `None` at its end.
    async fn advance(&mut self, mut run: LevelRun) -> Result<Option<Cursor>> {
        while let Some(b) = run.next().await {
            let b = b?;
            if b.batch.num_rows() > 0 {
                return self.cursor(run, b).map(Some);
            }
        }
        Ok(None)
    }

    /// Replaces exhausted cursors with their runs' next batches; drops finished runs.
    async fn refill(&mut self) -> Result<()> {
        if !self.started {
            self.started = true;
            for run in std::mem::take(&mut self.runs) {
                if let Some(c) = self.advance(run).await? {
                    self.cursors.push(c);
                }
            }
        }
        let mut i = 0;
        while i < self.cursors.len() {
            if self.cursors[i].pos < self.cursors[i].len {
                i += 1;
                continue;
            }
            let c = self.cursors.swap_remove(i);
            if let Some(next) = self.advance(c.run).await? {
                self.cursors.push(next);
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<RecordBatch> {
        let batch = self.out.flush(&self.pool)?;
        let keep: Vec<usize> = self.cursors.iter().map(|c| c.src).collect();
        let moved = self.pool.retain(&keep);
        for (c, src) in self.cursors.iter_mut().zip(moved) {
            c.src = src;
        }
        Ok(batch)
    }

    /// The next merged batch; `None` when every run is exhausted.
    pub async fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        loop {
            if self.out.len() >= self.batch_size {
                return self.flush().map(Some);
            }
            self.refill().await?;
            if self.cursors.is_empty() {
                if self.out.is_empty() {
                    return Ok(None);
                }
                return self.flush().map(Some);
            }
            self.step()?;
        }
    }

    /// One step: a stretch of single records or one key group.
    fn step(&mut self) -> Result<()> {
        let mut m = 0;
        for j in 1..self.cursors.len() {
            if head(&self.cursors[j]) < head(&self.cursors[m]) {
                m = j;
            }
        }
        let mut tie = false;
        let mut second: Option<usize> = None;
        for j in (0..self.cursors.len()).filter(|&j| j != m) {
            match head(&self.cursors[j]).cmp(&head(&self.cursors[m])) {
                Ordering::Equal => tie = true,
                _ => {
                    if second.is_none_or(|s| head(&self.cursors[j]) < head(&self.cursors[s])) {
                        second = Some(j);
                    }
                }
            }
        }
        if tie {
            return self.merge_group(m);
        }
        let room = self.batch_size.saturating_sub(self.out.len()).max(1);
        let c = &self.cursors[m];
        let mut end = c.len;
        if let Some(s) = second {
            let bound = head(&self.cursors[s]);
            let (mut lo, mut hi) = (c.pos + 1, c.len);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if c.keys.at(mid) < bound {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            end = lo;
        }
        let end = end.min(c.pos + room);
        let keep = self.keep;
        for i in c.pos..end {
            if keep || !is_retract(c.kinds.value(i)) {
                self.out.push_row(c.src, i);
            }
        }
        self.cursors[m].pos = end;
        Ok(())
    }

    /// Merges all records of the key at the head of cursor `m`.
    fn merge_group(&mut self, m: usize) -> Result<()> {
        self.group.clear();
        let key = self.cursors[m].keys.at(self.cursors[m].pos);
        for (j, c) in self.cursors.iter().enumerate() {
            if c.keys.at(c.pos) == key {
                self.group.push(Record {
                    cursor: j,
                    src: c.src,
                    row: c.pos,
                    kind: c.kinds.value(c.pos),
                    seqnum: c.seqnums.value(c.pos),
                    level: c.level,
                });
            }
        }
        let cursors = &self.cursors;
        self.group.sort_by(|a, b| {
            let user = match (&cursors[a.cursor].seq, &cursors[b.cursor].seq) {
                (Some(x), Some(y)) => x.row(a.row).cmp(&y.row(b.row)),
                _ => Ordering::Equal,
            };
            user.then(a.seqnum.cmp(&b.seqnum))
        });
        if self.group.len() == 1 {
            let r = self.group[0];
            if self.keep || !is_retract(r.kind) {
                self.out.push_row(r.src, r.row);
            }
        } else if self.lookup {
            let merged = lookup_records(&self.group);
            self.function
                .merge(&merged, &self.pool, &mut self.out, self.sys, self.keep)?;
        } else {
            self.function
                .merge(&self.group, &self.pool, &mut self.out, self.sys, self.keep)?;
        }
        for r in &self.group {
            if let Some(c) = self.cursors.get_mut(r.cursor) {
                c.pos += 1;
            }
        }
        Ok(())
    }
}

/// The records of a key group (ascending order) that Java's `LookupMergeFunction#getResult`
/// hands to the engine: every record of level <= 0, plus the first record of the lowest
/// level >= 1 (`pickHighLevel`); order kept.
pub(crate) fn lookup_records(group: &[Record]) -> Vec<Record> {
    let high = group
        .iter()
        .enumerate()
        .filter(|(_, r)| r.level > 0)
        .fold(None::<(usize, i32)>, |best, (i, r)| match best {
            Some((_, level)) if level <= r.level => best,
            _ => Some((i, r.level)),
        })
        .map(|(i, _)| i);
    group
        .iter()
        .enumerate()
        .filter(|(i, r)| r.level <= 0 || Some(*i) == high)
        .map(|(_, r)| *r)
        .collect()
}
