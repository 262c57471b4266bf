//! The partial-update merge engine, with sequence groups and per-field aggregates.
//!
//! Mirrors Java `org.apache.paimon.mergetree.compact.PartialUpdateMergeFunction` (Paimon 2.0)
//! record by record. The records of a key arrive in ascending order; the row starts empty.
//!
//! - **Inserts** (`+I`/`+U`) without sequence groups overwrite every field whose new value is
//!   non-null (a null in a NOT NULL field is an error).
//! - **Sequence groups** `fields.<s1>[,<s2>…].sequence-group = <f1>,<f2>,…`: the fields of a
//!   group (and its sequence fields) are updated only by a record whose sequence fields are not
//!   all null and compare `>=` the row's current ones (lexicographic over the sequence fields,
//!   ascending, null lowest, as Java's generated `RecordComparator`). An update of a group writes
//!   all its sequence fields and sets each member to the record's value (null included) or, with
//!   an aggregate, to `agg(acc, value)`; an older record only reaches members with an aggregate,
//!   as `aggReversed(acc, value)`. Fields in no group keep the plain non-null overwrite (or their
//!   `last_non_null_value`/primary-key aggregate).
//! - **Retracts** (`-U`/`-D`): the first record of a key, if it is a retract, initialises the
//!   row with its values. Then: `ignore-delete` skips it; with sequence groups
//!   (`retractWithSequenceGroup`) a group whose sequence is `>=` has its sequence fields set and
//!   its members nulled (or `retract`ed by their aggregate; aggregates also retract older
//!   records), and a `-D` updating a sequence field listed in
//!   `partial-update.remove-record-on-sequence-group` resets the row to the record's values and
//!   marks it deleted; without groups `partial-update.remove-record-on-delete` makes `-D` reset
//!   the row to the record's values and mark it deleted; otherwise a retract is an error.
//! - The result is dropped when the last record marked it deleted or no insert was seen.
//! - Aggregates (`fields.<f>.aggregate-function`, `fields.default-aggregate-function`) must be
//!   `last_non_null_value` unless the field belongs to a sequence group; sequence fields have no
//!   aggregate and primary-key fields keep their value. Option conflicts are rejected as Java
//!   rejects them.

use std::collections::BTreeSet;

use arrow_array::Array;

use super::aggregate::{field_aggregator, AggFunction};
use super::field_agg::{compare_values, value, FieldAgg};
use super::merge_function::{is_retract, Record, SystemColumns, DELETE, INSERT};
use super::output::{Cell, Output, Pool, Scalar};
pub use crate::spec::options::SequenceGroup;
use crate::spec::options::{TableOptions, PARTIAL_UPDATE_REMOVE_RECORD_ON_SEQUENCE_GROUP};
use crate::spec::special_fields::KEY_FIELD_ID_START;
use crate::spec::types::DataField;
use crate::{Error, Result};

/// `partial-update.remove-record-on-sequence-group`.
pub const REMOVE_RECORD_ON_SEQUENCE_GROUP: &str = PARTIAL_UPDATE_REMOVE_RECORD_ON_SEQUENCE_GROUP;

/// Java's message for a retraction reaching a partial-update table that has no way to apply it.
pub const DELETE_REFUSED: &str = "By default, Partial update can not accept delete records, you \
    can choose one of the following solutions:\n\
    1. Configure 'ignore-delete' to ignore delete records.\n\
    2. Configure 'partial-update.remove-record-on-delete' to remove the whole row when receiving \
    delete records.\n\
    3. Configure 'sequence-group's to retract partial columns. Also configure \
    'partial-update.remove-record-on-sequence-group' to remove the whole row when receiving \
    deleted records of `specified sequence group`.";

/// Checks that every field a sequence group names exists among `fields` (the table schema).
pub fn check_group_fields(groups: &[SequenceGroup], fields: &[DataField]) -> Result<()> {
    for g in groups {
        for name in g.seq.iter().chain(&g.members) {
            if !fields.iter().any(|f| &f.name == name) {
                return Err(Error::data_invalid(format!(
                    "Field {name} can not be found in table schema"
                ))
                .with_context("option", g.key.clone()));
            }
        }
    }
    Ok(())
}

/// Partial-update configuration and per-key state.
#[derive(Debug)]
pub struct PartialUpdate {
    ignore_delete: bool,
    remove_on_delete: bool,
    sequence_enabled: bool,
    /// Sequence-field positions of each group.
    groups: Vec<Vec<usize>>,
    group_of: Vec<Option<usize>>,
    delete_on_group: Vec<bool>,
    aggs: Vec<Option<FieldAgg>>,
    nullable: Vec<bool>,
    row: Vec<Cell>,
    processed: Vec<bool>,
    updated: Vec<bool>,
    meet_insert: bool,
    filled: bool,
    delete_row: bool,
}

fn conflict(a: &str, b: &str) -> Error {
    Error::data_invalid(format!(
        "{a} and {b} have conflicting behavior so should not be enabled at the same time."
    ))
}

fn pk_error(key: &str, field: &str) -> Error {
    Error::data_invalid(format!(
        "The sequence-group '{key}' contains primary key field '{field}', which is not allowed. \
         Primary key columns cannot be put in sequence-group."
    ))
}

/// Sequence-field positions per group, and the group of each column.
type PlacedGroups = (Vec<Vec<usize>>, Vec<Option<usize>>);

/// Group positions: `(groups, group_of)`; groups with a sequence field outside `fields` are
/// dropped (their members are not read either, see `MergePlan`).
fn place_groups(
    groups: &[SequenceGroup],
    fields: &[DataField],
    key_names: &[&str],
) -> Result<PlacedGroups> {
    let pos = |n: &str| fields.iter().position(|f| f.name == n);
    let mut placed = Vec::new();
    let mut group_of = vec![None; fields.len()];
    for g in groups {
        if let Some(pk) = g
            .members
            .iter()
            .chain(&g.seq)
            .find(|n| key_names.contains(&n.as_str()))
        {
            return Err(pk_error(&g.key, pk));
        }
        let Some(seq) = g.seq.iter().map(|n| pos(n)).collect::<Option<Vec<usize>>>() else {
            continue;
        };
        let idx = placed.len();
        for p in g.members.iter().filter_map(|n| pos(n)) {
            let slot = group_of
                .get_mut(p)
                .ok_or_else(|| Error::internal("group member out of range"))?;
            if slot.is_some() {
                return Err(Error::data_invalid(format!(
                    "Field {} is defined repeatedly by multiple groups: {}",
                    fields.get(p).map(|f| f.name.as_str()).unwrap_or_default(),
                    g.key
                )));
            }
            *slot = Some(idx);
        }
        for &s in &seq {
            if let Some(slot) = group_of.get_mut(s) {
                *slot = Some(idx);
            }
        }
        placed.push(seq);
    }
    Ok((placed, group_of))
}

/// Java `PartialUpdateMergeFunction#getAggFuncName` + factory for one field.
fn field_agg(
    options: &TableOptions,
    field: &DataField,
    is_key: bool,
    is_seq: bool,
    protected: bool,
) -> Result<Option<FieldAgg>> {
    if is_seq || field.id >= KEY_FIELD_ID_START {
        return Ok(None);
    }
    let name = if is_key {
        "primary-key"
    } else {
        match options.per_field.aggregate_function(&field.name) {
            Some(n) => n,
            None => return Ok(None),
        }
    };
    if !is_key && name != "last_non_null_value" && !protected {
        return Err(Error::data_invalid(format!(
            "Must use sequence group for aggregation functions but not found for field {}.",
            field.name
        )));
    }
    let f = AggFunction::from_name(name, options, field)?;
    field_aggregator(options, field, f).map(Some)
}

impl PartialUpdate {
    /// The engine over merge columns `fields`; `keys` are the positions of all primary-key
    /// columns among them.
    pub fn new(options: &TableOptions, fields: &[DataField], keys: &[usize]) -> Result<Self> {
        let groups = options.per_field.sequence_groups();
        let key_names: Vec<&str> = keys
            .iter()
            .filter_map(|&k| fields.get(k).map(|f| f.name.as_str()))
            .collect();
        let (placed, group_of) = place_groups(groups, fields, &key_names)?;
        let seq_names: BTreeSet<&str> = groups
            .iter()
            .flat_map(|g| g.seq.iter().map(String::as_str))
            .collect();
        let protected: BTreeSet<&str> = groups
            .iter()
            .flat_map(|g| g.members.iter().map(String::as_str))
            .collect();
        let ignore_delete = options.ignore_delete;
        let remove_on_delete = options.partial_update_remove_record_on_delete;
        let on_group = options
            .partial_update_remove_record_on_sequence_group
            .as_deref();
        if remove_on_delete && ignore_delete {
            return Err(conflict(
                "ignore-delete",
                "partial-update.remove-record-on-delete",
            ));
        }
        if on_group.is_some() && ignore_delete {
            return Err(conflict("ignore-delete", REMOVE_RECORD_ON_SEQUENCE_GROUP));
        }
        if remove_on_delete && !groups.is_empty() {
            return Err(conflict(
                "sequence-group",
                "partial-update.remove-record-on-delete",
            ));
        }
        let mut delete_on_group = vec![false; fields.len()];
        if let Some(names) = on_group {
            for name in names.iter().map(String::as_str) {
                if !seq_names.contains(name) {
                    let v = names.join(",");
                    return Err(Error::data_invalid(format!(
                        "field '{v}' defined in '{REMOVE_RECORD_ON_SEQUENCE_GROUP}' option must \
                         be part of sequence groups"
                    )));
                }
                if let Some(p) = fields.iter().position(|f| f.name == name) {
                    delete_on_group[p] = true;
                }
            }
        }
        let aggs = fields
            .iter()
            .enumerate()
            .map(|(i, f)| {
                field_agg(
                    options,
                    f,
                    keys.contains(&i),
                    seq_names.contains(f.name.as_str()),
                    protected.contains(f.name.as_str()),
                )
            })
            .collect::<Result<Vec<_>>>()?;
        let n = fields.len();
        Ok(PartialUpdate {
            ignore_delete,
            remove_on_delete,
            sequence_enabled: !groups.is_empty(),
            groups: placed,
            group_of,
            delete_on_group,
            aggs,
            nullable: fields.iter().map(|f| f.data_type.nullable).collect(),
            row: vec![Cell::Null; n],
            processed: vec![false; n],
            updated: vec![false; n],
            meet_insert: false,
            filled: false,
            delete_row: false,
        })
    }

    /// The error merging a retraction would raise in this configuration, if any: Java's
    /// message when nothing applies it (no `ignore-delete`, sequence groups or
    /// `partial-update.remove-record-on-delete`), or the message of a sequence-group aggregate
    /// without a retract.
    pub fn check_retract(&self) -> Result<()> {
        if self.ignore_delete || self.remove_on_delete {
            return Ok(());
        }
        if !self.sequence_enabled {
            return Err(Error::data_invalid(DELETE_REFUSED));
        }
        match self.aggs.iter().flatten().find(|a| !a.supports_retract()) {
            Some(a) => Err(a.no_retract_error()),
            None => Ok(()),
        }
    }

    /// Merges one group (ascending order) into `out` (Java `getResult`: the row is `+I` with
    /// the latest record's sequence number, written to `sys`; a row that was deleted or saw no
    /// insert is a `-D`, dropped unless `keep`).
    pub fn merge(
        &mut self,
        group: &[Record],
        pool: &Pool,
        out: &mut Output,
        sys: SystemColumns,
        keep: bool,
    ) -> Result<()> {
        self.row.fill(Cell::Null);
        self.meet_insert = false;
        self.filled = false;
        self.delete_row = false;
        self.aggs.iter_mut().flatten().for_each(FieldAgg::reset);
        for r in group {
            self.add(r, pool)?;
        }
        let deleted = self.delete_row || !self.meet_insert;
        if deleted && !keep {
            return Ok(());
        }
        // Java's `latestSequenceNumber`: the last record that `ignore-delete` did not skip.
        let seq = group
            .iter()
            .rev()
            .find(|r| !(self.ignore_delete && is_retract(r.kind)))
            .map_or(Cell::Scalar(Scalar::Int(0)), |r| Cell::At(r.src, r.row));
        let kind = if deleted { DELETE } else { INSERT };
        self.set(sys.seqnum, seq);
        self.set(sys.kind, Cell::Scalar(Scalar::Int(i64::from(kind))));
        out.push_cells(&mut self.row)
    }

    fn add(&mut self, r: &Record, pool: &Pool) -> Result<()> {
        self.delete_row = false;
        if is_retract(r.kind) {
            if !self.filled {
                self.init_row(r, pool)?;
                self.filled = true;
            }
            if self.ignore_delete {
                return Ok(());
            }
            if self.sequence_enabled {
                return self.retract_with_groups(r, pool);
            }
            if self.remove_on_delete {
                if r.kind == DELETE {
                    self.delete_row = true;
                    self.init_row(r, pool)?;
                }
                return Ok(());
            }
            return Err(Error::data_invalid(DELETE_REFUSED));
        }
        if self.group_of.iter().any(Option::is_some) {
            self.update_with_groups(r, pool)?;
        } else {
            self.update_non_null(r, pool)?;
        }
        self.meet_insert = true;
        self.filled = true;
        Ok(())
    }

    fn is_null(r: &Record, pool: &Pool, c: usize) -> Result<bool> {
        Ok(pool.column(r.src, c)?.is_null(r.row))
    }

    fn not_null_error(c: usize) -> Error {
        Error::data_invalid(format!("Field {c} can not be null"))
    }

    fn init_row(&mut self, r: &Record, pool: &Pool) -> Result<()> {
        for (c, cell) in self.row.iter_mut().enumerate() {
            if !self.nullable.get(c).copied().unwrap_or(true) && Self::is_null(r, pool, c)? {
                return Err(Self::not_null_error(c));
            }
            *cell = Cell::At(r.src, r.row);
        }
        Ok(())
    }

    fn update_non_null(&mut self, r: &Record, pool: &Pool) -> Result<()> {
        for (c, cell) in self.row.iter_mut().enumerate() {
            if !Self::is_null(r, pool, c)? {
                *cell = Cell::At(r.src, r.row);
            } else if !self.nullable.get(c).copied().unwrap_or(true) {
                return Err(Self::not_null_error(c));
            }
        }
        Ok(())
    }

    /// For field `i` of sequence group `g`: `None` when `i` was already processed for `r`, or
    /// when every sequence field of `g` is null in `r` (the group is skipped and its sequence
    /// fields marked processed); else the order of `r` against the row.
    fn pending_order(
        &mut self,
        r: &Record,
        i: usize,
        g: usize,
        pool: &Pool,
    ) -> Result<Option<std::cmp::Ordering>> {
        if self.processed.get(i).copied().unwrap_or(true) {
            return Ok(None);
        }
        let seq = self.groups.get(g).map(Vec::as_slice).unwrap_or_default();
        let input = Cell::At(r.src, r.row);
        let mut all_null = true;
        for &s in seq {
            all_null &= value(&input, pool, s)?.is_none();
        }
        if all_null {
            for &s in seq {
                if let Some(p) = self.processed.get_mut(s) {
                    *p = true;
                }
            }
            return Ok(None);
        }
        for &s in seq {
            let cur = self.row.get(s).unwrap_or(&Cell::Null);
            let ord = match (value(&input, pool, s)?, value(cur, pool, s)?) {
                (None, None) => continue,
                (None, Some(_)) => std::cmp::Ordering::Less,
                (Some(_), None) => std::cmp::Ordering::Greater,
                (Some(a), Some(b)) => compare_values(a, b)?,
            };
            if ord.is_ne() {
                return Ok(Some(ord));
            }
        }
        Ok(Some(std::cmp::Ordering::Equal))
    }

    fn take(&mut self, c: usize) -> Cell {
        self.row
            .get_mut(c)
            .map(|x| std::mem::replace(x, Cell::Null))
            .unwrap_or(Cell::Null)
    }

    fn set(&mut self, c: usize, cell: Cell) {
        if let Some(x) = self.row.get_mut(c) {
            *x = cell;
        }
    }

    fn update_with_groups(&mut self, r: &Record, pool: &Pool) -> Result<()> {
        self.processed.fill(false);
        let input = Cell::At(r.src, r.row);
        for i in 0..self.row.len() {
            let Some(g) = self.group_of.get(i).copied().flatten() else {
                let acc = self.take(i);
                let cell = match self.aggs.get_mut(i).and_then(Option::as_mut) {
                    Some(a) => a.agg(acc, input.clone(), pool, i)?,
                    None if !Self::is_null(r, pool, i)? => input.clone(),
                    None => acc,
                };
                self.set(i, cell);
                continue;
            };
            let Some(ord) = self.pending_order(r, i, g, pool)? else {
                continue;
            };
            let seq = self.groups.get(g).map(Vec::as_slice).unwrap_or_default();
            if ord.is_ge() && seq.contains(&i) {
                for &s in seq {
                    if let Some(x) = self.row.get_mut(s) {
                        *x = input.clone();
                    }
                    if let Some(p) = self.processed.get_mut(s) {
                        *p = true;
                    }
                }
                continue;
            }
            let Some(agg) = self.aggs.get_mut(i).and_then(Option::as_mut) else {
                if ord.is_ge() {
                    self.set(i, input.clone());
                }
                continue;
            };
            let acc = self.row.get_mut(i).map(std::mem::take).unwrap_or_default();
            let cell = if ord.is_ge() {
                agg.agg(acc, input.clone(), pool, i)?
            } else {
                agg.agg_reversed(acc, input.clone(), pool, i)?
            };
            self.set(i, cell);
        }
        Ok(())
    }

    fn retract_with_groups(&mut self, r: &Record, pool: &Pool) -> Result<()> {
        self.processed.fill(false);
        self.updated.fill(false);
        let input = Cell::At(r.src, r.row);
        for i in 0..self.row.len() {
            let Some(g) = self.group_of.get(i).copied().flatten() else {
                continue;
            };
            let Some(ord) = self.pending_order(r, i, g, pool)? else {
                continue;
            };
            let seq = self.groups.get(g).map(Vec::as_slice).unwrap_or_default();
            if ord.is_ge() && seq.contains(&i) {
                let mut delete = false;
                for &s in seq {
                    if !self.updated.get(s).copied().unwrap_or(true) {
                        if r.kind == DELETE && self.delete_on_group.get(s).copied().unwrap_or(false)
                        {
                            delete = true;
                            break;
                        }
                        if let Some(x) = self.row.get_mut(s) {
                            *x = input.clone();
                        }
                        if let Some(u) = self.updated.get_mut(s) {
                            *u = true;
                        }
                    }
                    if let Some(p) = self.processed.get_mut(s) {
                        *p = true;
                    }
                }
                if delete {
                    self.delete_row = true;
                    return self.init_row(r, pool);
                }
                continue;
            }
            let acc = self.row.get_mut(i).map(std::mem::take).unwrap_or_default();
            let cell = match self.aggs.get_mut(i).and_then(Option::as_mut) {
                Some(agg) => agg.retract(acc, input.clone(), pool, i)?,
                None if ord.is_ge() => Cell::Null,
                None => acc,
            };
            self.set(i, cell);
        }
        Ok(())
    }
}
