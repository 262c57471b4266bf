//! Merge engines: how the records of one key become one row (or none).
//!
//! Mirrors Java `DeduplicateMergeFunction`, `FirstRowMergeFunction`,
//! `PartialUpdateMergeFunction` ([`super::partial_update`]) and `AggregateMergeFunction`
//! ([`super::aggregate`]) (package `org.apache.paimon.mergetree.compact`, `docs/format.md`
//! "Merge-on-read"). A group reaches [`MergeFunction::merge`] only when it has at least two
//! records (a lone record is emitted unchanged, as Java's `ReducerMergeFunctionWrapper` does;
//! in lookup mode the records the engine sees may then be narrowed down to one),
//! sorted ascending by (sequence fields, `_SEQUENCE_NUMBER`). Merged rows carry the kind and
//! sequence number the engine's `getResult` gives them ([`SystemColumns`]). Results whose row
//! kind is a retract are dropped (`DropDeleteReader`), unless the merge keeps retractions
//! (Java's write buffer, compaction into a level below the highest, `forceKeepDelete`).

use super::aggregate::{AggFunction, Aggregator};
use super::output::{Output, Pool};
use super::partial_update::PartialUpdate;
use crate::spec::options::{MergeEngine, TableOptions};
use crate::spec::types::DataField;
use crate::{Error, Result};

/// `_VALUE_KIND` of `-D`.
pub const DELETE: i8 = 3;

/// Whether a `_VALUE_KIND` byte is a retract (`-U` or `-D`).
pub fn is_retract(kind: i8) -> bool {
    kind == 1 || kind == 3
}

/// Where merged rows carry `_SEQUENCE_NUMBER` and `_VALUE_KIND`: every merged row gets the
/// kind and sequence number of Java's `getResult` (deduplicate and first-row: the chosen
/// record as it is; partial-update: the last record's sequence number, `-D` when the row was
/// deleted or no insert was seen, else `+I`; aggregation: the last record's sequence number,
/// `-D` when `aggregation.remove-record-on-delete` deleted the row, else `+I`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SystemColumns {
    /// Position of `_SEQUENCE_NUMBER`.
    pub seqnum: usize,
    /// Position of `_VALUE_KIND`.
    pub kind: usize,
}

/// `_VALUE_KIND` of `+I`.
pub const INSERT: i8 = 0;

/// One record of a key group.
#[derive(Debug, Clone, Copy)]
pub struct Record {
    /// The merge cursor it came from.
    pub cursor: usize,
    /// Its pool source.
    pub src: usize,
    /// Its row in that source.
    pub row: usize,
    /// `_VALUE_KIND`.
    pub kind: i8,
    /// `_SEQUENCE_NUMBER`.
    pub seqnum: i64,
    /// LSM level of its file (-1: not in a file).
    pub level: i32,
}

/// A merge engine configured for one read.
#[derive(Debug)]
pub enum MergeFunction {
    /// Keep the last record.
    Deduplicate {
        /// Drop retracts instead of deleting.
        ignore_delete: bool,
    },
    /// Keep the first record.
    FirstRow {
        /// Skip retracts instead of failing.
        ignore_delete: bool,
    },
    /// Overwrite with non-null values of later records (sequence groups, aggregates).
    PartialUpdate(PartialUpdate),
    /// Per-field aggregate functions.
    Aggregate(Aggregator),
}

impl MergeFunction {
    /// The merge function of `options` over merge columns `fields` (read order); `keys` are the
    /// positions of all primary-key columns, `user_seq` of the `sequence.field` columns.
    pub fn new(
        options: &TableOptions,
        fields: &[DataField],
        keys: &[usize],
        user_seq: &[usize],
    ) -> Result<Self> {
        Ok(match options.merge_engine {
            MergeEngine::Deduplicate => MergeFunction::Deduplicate {
                ignore_delete: options.ignore_delete,
            },
            MergeEngine::FirstRow => MergeFunction::FirstRow {
                ignore_delete: options.ignore_delete,
            },
            MergeEngine::PartialUpdate => {
                MergeFunction::PartialUpdate(PartialUpdate::new(options, fields, keys)?)
            }
            MergeEngine::Aggregation => {
                let functions = fields
                    .iter()
                    .enumerate()
                    .map(|(i, f)| {
                        AggFunction::for_field(options, f, keys.contains(&i), user_seq.contains(&i))
                    })
                    .collect::<Result<Vec<_>>>()?;
                MergeFunction::Aggregate(Aggregator::new(options, fields, functions)?)
            }
        })
    }

    /// The error a record of retracting kind `kind` raises when it is merged with another
    /// record of its key, if any (Java raises it then; a writer can refuse the record first).
    pub fn check_retract(&self, kind: i8) -> Result<()> {
        match self {
            MergeFunction::Deduplicate { .. } => Ok(()),
            MergeFunction::FirstRow { ignore_delete } => match ignore_delete {
                true => Ok(()),
                false => Err(Error::data_invalid(
                    "the first-row merge engine got a retract record; set ignore-delete",
                )),
            },
            MergeFunction::PartialUpdate(p) => p.check_retract(),
            MergeFunction::Aggregate(a) => a.check_retract(kind),
        }
    }

    /// Whether results are assembled per column.
    pub fn per_column(&self) -> bool {
        matches!(
            self,
            MergeFunction::PartialUpdate(_) | MergeFunction::Aggregate(_)
        )
    }

    /// Merges a group of records (ascending order; one or more) into `out`, the result's kind
    /// and sequence number written to `sys`; retracting results are dropped unless `keep`.
    pub fn merge(
        &mut self,
        group: &[Record],
        pool: &Pool,
        out: &mut Output,
        sys: SystemColumns,
        keep: bool,
    ) -> Result<()> {
        match self {
            MergeFunction::Deduplicate { ignore_delete } => {
                let last = group
                    .iter()
                    .rev()
                    .find(|r| !(*ignore_delete && is_retract(r.kind)));
                if let Some(r) = last.filter(|r| keep || !is_retract(r.kind)) {
                    out.push_row(r.src, r.row);
                }
                Ok(())
            }
            MergeFunction::FirstRow { ignore_delete } => {
                for r in group {
                    if !is_retract(r.kind) {
                        out.push_row(r.src, r.row);
                        return Ok(());
                    }
                    if !*ignore_delete {
                        return Err(Error::data_invalid(
                            "the first-row merge engine got a retract record; set ignore-delete",
                        ));
                    }
                }
                Ok(())
            }
            MergeFunction::PartialUpdate(p) => p.merge(group, pool, out, sys, keep),
            MergeFunction::Aggregate(a) => a.merge(group, pool, out, sys, keep),
        }
    }
}
