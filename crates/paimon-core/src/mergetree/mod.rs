//! Merge-on-read of primary-key splits.
//!
//! Mirrors Java `org.apache.paimon.operation.MergeFileSplitRead` (`docs/format.md`
//! "Merge-on-read"): the
//! files of a split are partitioned into key-disjoint sections of sorted runs
//! ([`interval_partition`]); sections are read one after another, each through a k-way
//! [`sort_merge::SortMerge`] whose key groups go through the table's merge engine
//! ([`merge_function`], [`aggregate`]). Files are decoded with the read fields plus the key,
//! sequence and system columns (`_SEQUENCE_NUMBER`, `_VALUE_KIND`), with schema evolution and
//! deletion vectors applied per file before merging; the residual predicate is applied by the
//! caller after the merge.

pub(crate) mod aggregate;
pub(crate) mod collection_agg;
mod compare;
pub(crate) mod field_agg;
pub(crate) mod interval_partition;
pub(crate) mod merge_function;
pub(crate) mod output;
pub(crate) mod partial_update;
pub(crate) mod sort_merge;

use crate::spec::manifest::DataFileMeta;
use crate::spec::options::{MergeEngine, SortOrder, TableOptions};
use crate::spec::schema::TableSchema;
use crate::spec::types::{DataField, DataType};
use crate::{Error, Result};

pub use merge_function::MergeFunction;
pub use sort_merge::{Layout, LevelBatch, SortMerge};

pub use crate::spec::special_fields::{sequence_number_field, value_kind_field};

/// What a merge read decodes from each file and where the merge finds its columns.
#[derive(Debug, Clone)]
pub struct MergePlan {
    /// Fields decoded from every file: the caller's read fields first (same positions), then
    /// missing key and sequence fields, then `_SEQUENCE_NUMBER` and `_VALUE_KIND`.
    pub fields: Vec<DataField>,
    /// Column positions for the merge.
    pub layout: Layout,
    /// Types of the trimmed primary key (to decode `_MIN_KEY`/`_MAX_KEY`).
    pub key_types: Vec<DataType>,
    /// Positions of all primary-key columns among `fields`.
    pub all_keys: Vec<usize>,
    /// Lookup mode ([`SortMerge::with_lookup`]): the table needs lookup (Java
    /// `CoreOptions#needLookup`) and its engine is not first-row (Java
    /// `LookupMergeFunction#wrap` leaves first-row alone).
    pub lookup: bool,
}

fn position_or_push(fields: &mut Vec<DataField>, f: &DataField) -> usize {
    match fields.iter().position(|x| x.id == f.id) {
        Some(p) => p,
        None => {
            fields.push(f.clone());
            fields.len() - 1
        }
    }
}

/// Partial-update: validates the sequence groups against the whole schema (Java checks them
/// when the merge function factory is built, whatever the projection) and adds the sequence
/// fields of every group with a read field (Java `Factory#adjustReadType`).
fn add_group_sequence_fields(
    schema: &TableSchema,
    options: &TableOptions,
    fields: &mut Vec<DataField>,
) -> Result<()> {
    let groups = options.per_field.sequence_groups();
    partial_update::check_group_fields(groups, &schema.fields)?;
    let pk = schema.fields_of(&schema.primary_keys)?;
    let keys: Vec<usize> = pk
        .iter()
        .filter_map(|k| schema.fields.iter().position(|f| f.id == k.id))
        .collect();
    partial_update::PartialUpdate::new(options, &schema.fields, &keys)?;
    for g in groups {
        let read = g
            .members
            .iter()
            .chain(&g.seq)
            .any(|n| fields.iter().any(|f| &f.name == n));
        if read {
            let seq: Vec<String> = g.seq.clone();
            for f in schema.fields_of(&seq)? {
                position_or_push(fields, &f);
            }
        }
    }
    Ok(())
}

impl MergePlan {
    /// The plan for reading `read_fields` of a table with `schema` and `options`.
    pub fn new(
        schema: &TableSchema,
        options: &TableOptions,
        read_fields: &[DataField],
    ) -> Result<Self> {
        let mut fields = read_fields.to_vec();
        let trimmed = schema.fields_of(&schema.trimmed_primary_keys())?;
        if trimmed.is_empty() {
            return Err(Error::data_invalid("primary-key table without trimmed key"));
        }
        let key: Vec<usize> = trimmed
            .iter()
            .map(|f| position_or_push(&mut fields, f))
            .collect();
        let all_keys = schema
            .fields_of(&schema.primary_keys)?
            .iter()
            .map(|f| position_or_push(&mut fields, f))
            .collect();
        let user_seq = match &options.sequence_field {
            Some(names) => {
                let names: Vec<String> = names.iter().map(|n| n.trim().to_string()).collect();
                schema
                    .fields_of(&names)?
                    .iter()
                    .map(|f| position_or_push(&mut fields, f))
                    .collect()
            }
            None => Vec::new(),
        };
        if options.merge_engine == MergeEngine::PartialUpdate {
            add_group_sequence_fields(schema, options, &mut fields)?;
        }
        let seqnum = position_or_push(&mut fields, &sequence_number_field());
        let kind = position_or_push(&mut fields, &value_kind_field());
        Ok(MergePlan {
            fields,
            layout: Layout {
                key,
                user_seq,
                user_seq_desc: options.sequence_field_sort_order == SortOrder::Descending,
                seqnum,
                kind,
            },
            key_types: trimmed.into_iter().map(|f| f.data_type).collect(),
            all_keys,
            lookup: options.need_lookup() && options.merge_engine != MergeEngine::FirstRow,
        })
    }

    /// Sections of sorted runs (file indices) of `files`; when a key range cannot be decoded
    /// every file becomes its own run of one section (still correct, just slower).
    pub fn sections(&self, files: &[DataFileMeta]) -> Vec<Vec<Vec<usize>>> {
        match interval_partition::keyed_files(files, &self.key_types) {
            Ok(k) => interval_partition::interval_partition(k),
            Err(e) => {
                tracing::warn!("cannot decode file key ranges, merging all files: {e}");
                vec![(0..files.len()).map(|i| vec![i]).collect()]
            }
        }
    }
}

#[cfg(test)]
mod engine_tests;
#[cfg(test)]
mod lookup_tests;
#[cfg(test)]
mod result_kind_tests;
#[cfg(test)]
mod tests;
