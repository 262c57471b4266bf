//! Lookup compaction of one bucket of a deletion-vector or first-row table (not `full`):
//! Java `ForceUpLevel0Compaction` with `LookupMergeTreeCompactRewriter`,
//! `LookupChangelogMergeFunctionWrapper` / `FirstRowMergeFunctionWrapper` and
//! `BucketedDvMaintainer`.
//!
//! - Pick: [`Picker`] (universal first, else level 0 forced up with a following level-1 run,
//!   extended by size ratio; Java 2.0 `forcePickL0`); the output level is never 0 and every
//!   level left out lies above it.
//! - Lookup: for each key of the inputs without an input record above level 0, the first
//!   visible record in the remaining levels, lowest level first (`LookupLevels`, deletion
//!   vectors applied), is marked deleted in its file's deletion vector
//!   (`notifyNewDeletion`); first-row tables drop such keys from the output instead. The
//!   pending keys are sorted once and merge-joined with each file's sorted key column.
//! - Rewrite: the keys of the inputs are merged in lookup mode over the inputs and the rows
//!   of the remaining levels the lookup marked (the lowest visible higher-level record is the
//!   `high` record; no other row of those levels can take part), retractions dropped
//!   (deletion-vector tables drop deletes at every level), and written at the output level
//!   with `_FILE_SOURCE = COMPACT`, sequence numbers kept; first-row tables merge the inputs
//!   alone (first record by sequence).
//! - Upgrade ([`upgrades`]): a deletion-vector table's unit that Java's `MergeTreeCompactTask`
//!   would not rewrite at all (every section one run, never two small files in a row) moves
//!   to the output level unchanged (same name, `_FILE_SOURCE` kept, deletion vectors kept) when
//!   `LookupMergeTreeCompactRewriter#upgradeStrategy` keeps every file: level-0 files without
//!   deletes going to the top level, or to a lower level of a `deduplicate` table without
//!   `sequence.field` (their keys are then looked up above the output level and DV-marked, as
//!   the lookup read does). Any other unit is rewritten whole (Java may upgrade part of it).
//! - Deletion vectors: the bucket's vectors minus the inputs', plus the new marks, each in
//!   its own kind (new ones per `deletion-vectors.bitmap64`), written as one new index file
//!   when anything changed (`writeSingleFile`; [`super::vectors`]).

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::RecordBatch;
use futures::StreamExt;

use super::index::WrittenValues;
use super::key_list::KeyList;
use super::key_set::{BatchKeys, KeySet};
use super::pk::kv_file_batch;
use super::rewrite::{task_steps, Step};
use super::universal::{level_sorted_runs, Picker};
use super::vectors::update_vectors;
use super::{as_compacted, output_writer};
use crate::catalog::Table;
use crate::mergetree::MergePlan;
use crate::read::TableRead;
use crate::scan::{DataSplit, Split};
use crate::spec::manifest::{DataFileMeta, IndexManifestEntry};
use crate::spec::options::{MergeEngine, FILE_FORMAT_PER_LEVEL};
use crate::spec::row_range::RowRange;
use crate::spec::special_fields::{row_index_field, sequence_number_field, value_kind_field};
use crate::spec::types::DataField;
use crate::write::file_writer::FileSpec;
use crate::write::kv_layout::KvLayout;
use crate::{Error, Result};

/// The lookup's marks: per data file, the row positions it found, ascending.
pub(super) type Marks = BTreeMap<String, Vec<u64>>;

/// What the lookup compaction of one bucket did.
pub(super) struct LookupOutcome {
    /// Input files (rewritten, or moved to `level` unchanged by an upgrade).
    pub before: Vec<DataFileMeta>,
    /// Files written at `level`.
    pub after: Vec<DataFileMeta>,
    /// The output level.
    pub level: i32,
    /// Levels whose payload sources changed (inputs' levels and the output level; for an
    /// upgrade, only those of moved `COMPACT` files).
    pub changed_levels: BTreeSet<i32>,
    /// The bucket's new deletion-vector index file, when the vectors changed.
    pub dv_entry: Option<IndexManifestEntry>,
}

/// The pick: input file indices, output level, remaining file indices by level.
struct Pick {
    inputs: Vec<usize>,
    level: i32,
    remaining: BTreeMap<i32, Vec<usize>>,
}

/// The pick of `picker` over the bucket's files (Java `ForceUpLevel0Compaction`): inputs,
/// output level, and the files left out by level (all above the output level).
fn pick(files: &[DataFileMeta], picker: &mut Picker, num_levels: i32) -> Option<Pick> {
    let runs = level_sorted_runs(files);
    let unit = picker.pick(num_levels, &runs, files)?;
    let inputs: Vec<usize> = runs
        .iter()
        .take(unit.runs)
        .flat_map(|r| r.files.iter().copied())
        .collect();
    let mut remaining: BTreeMap<i32, Vec<usize>> = BTreeMap::new();
    for r in runs.iter().skip(unit.runs) {
        remaining.entry(r.level).or_default().extend(&r.files);
    }
    Some(Pick {
        inputs,
        level: unit.output_level,
        remaining,
    })
}

/// Compacts the level-0 files of the bucket of `split` (all its live files, with their
/// deletion files) as described in the [module docs](self); `None` without level-0 files.
pub(super) async fn compact_bucket(
    table: &Table,
    spec: &Arc<FileSpec>,
    kv: &Arc<KvLayout>,
    split: &DataSplit,
    picker: &mut Picker,
    written: &mut WrittenValues,
) -> Result<Option<LookupOutcome>> {
    let dv = table.options().deletion_vectors_enabled;
    let first_row = table.options().merge_engine == MergeEngine::FirstRow;
    let Some(pick) = pick(&split.files, picker, table.options().num_levels()) else {
        return Ok(None);
    };
    let schema = table.schema();
    let key_fields = schema.fields_of(&schema.trimmed_primary_keys())?;
    let keys = KeySet::new(&key_fields)?;
    if dv && !first_row {
        if let Some(moved) = upgrades(table, spec, split, &pick)? {
            return upgrade(table, split, pick, moved, (&key_fields, &keys)).await;
        }
    }
    // Keys of the inputs: all of them (to select the rewritten keys), and those with an
    // input record above level 0 (their `high` record is among the inputs; no lookup).
    // With nothing above the inputs there is nothing to look up or shadow: every input key is
    // rewritten, so no key sets are built (the first compaction of a bucket).
    if pick.remaining.is_empty() {
        let output = (spec, kv, &mut *written);
        let after = rewrite(table, output, split, (&pick, None), &keys, None).await?;
        return outcome(table, split, pick, after, Marks::new()).await;
    }
    let mut input_keys = keys.collector();
    let mut level1_keys = keys.collector();
    for &i in &pick.inputs {
        let level1 = split.files.get(i).is_some_and(|f| f.level >= 1);
        let mut rows = keyed_rows(table, split, i, &key_fields)?;
        while let Some(batch) = rows.next().await {
            let batch = batch?;
            if level1 {
                keys.collect(&batch, &mut level1_keys)?;
            }
            keys.collect(&batch, &mut input_keys)?;
        }
    }
    let (input_keys, level1_keys) = (input_keys.finish(), level1_keys.finish());
    // Lookup: first visible record of each key, lowest remaining level first.
    let pending = match dv || first_row {
        true => input_keys.difference(&level1_keys),
        // Without deletion vectors the shadowed records stay; lookup-mode reads skip them.
        false => KeyList::empty(keys.packed),
    };
    let (marks, shadowed) = lookup(table, split, &pick, (&key_fields, &keys), pending).await?;
    // First-row (Java `FirstRowMergeFunctionWrapper`): a level-0 key already present above
    // the output level is dropped; the others keep their first record, merged over the
    // inputs only.
    let (rewritten, high) = match first_row {
        true => (input_keys.difference(&shadowed), None),
        false => (input_keys, Some(&marks)),
    };
    let after = rewrite(
        table,
        (spec, kv, written),
        split,
        (&pick, high),
        &keys,
        Some(&rewritten),
    )
    .await?;
    outcome(table, split, pick, after, marks).await
}

/// The first visible record of each `pending` key in the levels above the output level,
/// lowest level first (Java `LookupLevels`): the marks and the keys found.
///
/// A merge join: the pending keys sorted once, each file's rows walked in key order (a
/// primary-key file is one sorted run) with a cursor into them; a file is read only until its
/// rows pass the last pending key. A file whose rows are not in key order is an error (a join
/// over it would miss keys).
async fn lookup(
    table: &Table,
    split: &DataSplit,
    pick: &Pick,
    (key_fields, keys): (&[DataField], &KeySet),
    mut pending: KeyList,
) -> Result<(Marks, KeyList)> {
    let mut marks = Marks::new();
    let mut shadowed = KeyList::empty(keys.packed);
    for indices in pick.remaining.values() {
        if pending.is_empty() {
            break;
        }
        let mut found = vec![false; pending.len()];
        for &i in indices {
            let name = split.files.get(i).map(|f| f.file_name.clone());
            let name = name.ok_or_else(|| Error::internal("file index out of range"))?;
            let rows = keyed_rows(table, split, i, key_fields)?;
            let file_marks = marks.entry(name.clone()).or_default();
            join_file(rows, keys, &name, &pending, &mut found, file_marks).await?;
        }
        let (hit, kept) = pending.partition(&found);
        shadowed = shadowed.union(hit);
        pending = kept;
    }
    Ok((marks, shadowed))
}

/// Joins one file's visible rows (key columns, then the row position) with the sorted
/// `pending` keys: each match is marked (`marks`: the file's positions, `found`).
async fn join_file(
    mut rows: futures::stream::BoxStream<'static, Result<RecordBatch>>,
    keys: &KeySet,
    name: &str,
    pending: &KeyList,
    found: &mut [bool],
    marks: &mut Vec<u64>,
) -> Result<()> {
    let mut cursor = 0usize;
    let mut previous: Vec<u8> = Vec::new();
    let mut previous_packed: Option<u128> = None;
    while let Some(batch) = rows.next().await {
        let batch = batch?;
        let positions = batch
            .columns()
            .last()
            .and_then(|c| c.as_primitive_opt::<Int64Type>())
            .ok_or_else(|| Error::internal("row index column missing"))?
            .clone();
        let key_rows = match (keys.packed_rows(&batch)?, pending) {
            (BatchKeys::Packed(rows), KeyList::Packed { keys: pending, .. }) => {
                let join = PackedJoin {
                    name,
                    pending,
                    found: &mut *found,
                    marks: &mut *marks,
                };
                let at = (&mut cursor, &mut previous_packed);
                match join.batch(&rows, positions.values(), at)? {
                    true => continue,
                    false => return Ok(()),
                }
            }
            (BatchKeys::Packed(_), KeyList::Bytes(_)) => keys.rows(&batch)?,
            (BatchKeys::Rows(rows), _) => rows,
        };
        for (j, (row, pos)) in key_rows.iter().zip(positions.values()).enumerate() {
            let row = row.as_ref();
            let before = match j {
                0 => previous.as_slice(),
                _ => key_rows.row(j - 1).data(),
            };
            if (j > 0 || !previous.is_empty()) && row < before {
                return Err(Error::data_invalid(format!(
                    "data file {name} is not sorted by its primary key (row {pos})"
                )));
            }
            let probe = pending.probe(row)?;
            while pending.cmp_at(cursor, &probe) == Some(Ordering::Less) {
                cursor += 1;
            }
            let Some(order) = pending.cmp_at(cursor, &probe) else {
                // Past the last pending key: nothing more to find in this file.
                return Ok(());
            };
            if order == Ordering::Equal {
                if let Some(f) = found.get_mut(cursor) {
                    *f = true;
                }
                marks.push(u64::try_from(*pos).unwrap_or(0));
            }
        }
        if let Some(last) = key_rows.num_rows().checked_sub(1) {
            previous.clear();
            previous.extend_from_slice(key_rows.row(last).data());
        }
    }
    Ok(())
}

/// [`join_file`] over keys packed as `u128`s (see [`KeyList`]): integer compares, no rows.
struct PackedJoin<'a> {
    name: &'a str,
    pending: &'a [u128],
    found: &'a mut [bool],
    marks: &'a mut Vec<u64>,
}

impl PackedJoin<'_> {
    /// Joins one batch's `keys` (with their row `positions`), going on from `cursor` (into
    /// the pending keys) and `previous` (the file's last key so far); false once past the last
    /// pending key (the rest of the file has nothing to find).
    fn batch(
        self,
        keys: &[u128],
        positions: &[i64],
        (cursor, previous): (&mut usize, &mut Option<u128>),
    ) -> Result<bool> {
        for (&key, pos) in keys.iter().zip(positions) {
            if previous.is_some_and(|p| key < p) {
                return Err(Error::data_invalid(format!(
                    "data file {} is not sorted by its primary key (row {pos})",
                    self.name
                )));
            }
            *previous = Some(key);
            while self.pending.get(*cursor).is_some_and(|p| *p < key) {
                *cursor += 1;
            }
            match self.pending.get(*cursor) {
                None => return Ok(false),
                Some(p) if *p == key => {
                    if let Some(f) = self.found.get_mut(*cursor) {
                        *f = true;
                    }
                    self.marks.push(u64::try_from(*pos).unwrap_or(0));
                }
                Some(_) => {}
            }
        }
        Ok(true)
    }
}

/// The input files (indices into `split.files`) that move to the output level when Java
/// would rewrite nothing of the unit, else `None`: `MergeTreeCompactTask`'s steps
/// ([`task_steps`]: no rewrite step), its `upgrade` (a file that may hold
/// deletes going to the top level is rewritten) and `LookupMergeTreeCompactRewriter`'s
/// strategy for level-0 files (deletes: rewrite; top level, or `deduplicate` without
/// `sequence.field`: kept; otherwise rewrite). Deletion-vector tables only.
fn upgrades(
    table: &Table,
    spec: &FileSpec,
    split: &DataSplit,
    pick: &Pick,
) -> Result<Option<Vec<usize>>> {
    let options = table.options();
    let max_level = options.num_levels() - 1;
    if options.compaction.force_rewrite_all_files
        || options.extra.contains_key(FILE_FORMAT_PER_LEVEL)
    {
        return Ok(None);
    }
    let files: Vec<DataFileMeta> = pick
        .inputs
        .iter()
        .filter_map(|&i| split.files.get(i).cloned())
        .collect();
    if files.len() != pick.inputs.len() {
        return Ok(None);
    }
    let plan = MergePlan::new(table.schema(), options, &table.schema().fields)?;
    let small = (spec.target_size as f64 * options.compaction.small_file_ratio) as i64;
    let steps = task_steps(plan.sections(&files), &files, small);
    if steps.iter().any(|s| matches!(s, Step::Rewrite(_))) {
        return Ok(None);
    }
    let keeps_level0 = pick.level == max_level
        || (options.merge_engine == MergeEngine::Deduplicate
            && options.sequence_field.as_ref().is_none_or(|s| s.is_empty()));
    let mut moved = Vec::new();
    for (&i, f) in pick.inputs.iter().zip(&files) {
        let may_hold_deletes = f.delete_row_count.is_none_or(|n| n > 0);
        if pick.level == max_level && may_hold_deletes {
            return Ok(None);
        }
        if f.level == pick.level {
            continue;
        }
        if f.level == 0 && (may_hold_deletes || !keeps_level0) {
            return Ok(None);
        }
        moved.push(i);
    }
    Ok(Some(moved))
}

/// The upgrade of `moved` (see [`upgrades`]): the files at the output level unchanged, the
/// keys of the level-0 ones looked up above it and DV-marked; the bucket's other deletion
/// vectors, the moved files' included, kept.
async fn upgrade(
    table: &Table,
    split: &DataSplit,
    pick: Pick,
    moved: Vec<usize>,
    key: (&[DataField], &KeySet),
) -> Result<Option<LookupOutcome>> {
    let before: Vec<DataFileMeta> = moved
        .iter()
        .filter_map(|&i| split.files.get(i).cloned())
        .collect();
    if before.is_empty() {
        return Ok(None);
    }
    let mut pending = key.1.collector();
    if !pick.remaining.is_empty() {
        for &i in &moved {
            if split.files.get(i).is_none_or(|f| f.level != 0) {
                continue;
            }
            let mut rows = keyed_rows(table, split, i, key.0)?;
            while let Some(batch) = rows.next().await {
                key.1.collect(&batch?, &mut pending)?;
            }
        }
    }
    let (marks, _) = lookup(table, split, &pick, key, pending.finish()).await?;
    let dv_entry = update_vectors(table, split, &[], marks).await?;
    let after = before
        .iter()
        .map(|f| {
            let mut up = f.clone();
            up.level = pick.level;
            up
        })
        .collect();
    // Payload sources are the `COMPACT` files above level 0: moving `APPEND` files changes
    // no level's sources, so no payload is retired for them.
    let compacted: Vec<&DataFileMeta> = before
        .iter()
        .filter(|f| f.file_source == Some(super::FILE_SOURCE_COMPACT))
        .collect();
    let mut changed_levels: BTreeSet<i32> = compacted.iter().map(|f| f.level).collect();
    if !compacted.is_empty() {
        changed_levels.insert(pick.level);
    }
    Ok(Some(LookupOutcome {
        before,
        after,
        level: pick.level,
        changed_levels,
        dv_entry,
    }))
}

/// The compaction's result: the inputs retired, `after` written at the pick's level, the
/// bucket's deletion vectors updated with `marks`.
async fn outcome(
    table: &Table,
    split: &DataSplit,
    pick: Pick,
    after: Vec<DataFileMeta>,
    marks: Marks,
) -> Result<Option<LookupOutcome>> {
    let before: Vec<DataFileMeta> = pick
        .inputs
        .iter()
        .filter_map(|&i| split.files.get(i).cloned())
        .collect();
    let dv_entry = match table.options().deletion_vectors_enabled {
        true => update_vectors(table, split, &before, marks).await?,
        false => None,
    };
    let mut changed_levels: BTreeSet<i32> = before.iter().map(|f| f.level).collect();
    changed_levels.insert(pick.level);
    Ok(Some(LookupOutcome {
        before,
        after: as_compacted(after, pick.level),
        level: pick.level,
        changed_levels,
        dv_entry,
    }))
}

/// The visible rows of file `i` of `split` (its deletion vector applied): key columns, then
/// the row's position in the file.
fn keyed_rows(
    table: &Table,
    split: &DataSplit,
    i: usize,
    key_fields: &[DataField],
) -> Result<futures::stream::BoxStream<'static, Result<RecordBatch>>> {
    let file = split
        .files
        .get(i)
        .cloned()
        .ok_or_else(|| Error::internal("file index out of range"))?;
    let one = DataSplit {
        files: vec![file],
        deletion_files: vec![split.deletion_files.get(i).cloned().flatten()],
        row_ranges: None,
        raw_convertible: true,
        ..split.clone()
    };
    let mut fields = key_fields.to_vec();
    fields.push(row_index_field());
    TableRead::new(table)
        .with_output_fields(fields)
        .with_preserve_order(true)
        .read(vec![Split::Data(one)])
}

/// Merges the inputs' keys over the inputs and, with `high` (the lookup's marks), the
/// remaining levels' records it found (lookup mode, deletion vectors applied) and writes them
/// at the output level (their indexed values recorded in `written`); `input_keys` `None`:
/// every merged key.
///
/// Of the remaining levels only the marked rows are read: a lookup-mode merge takes, of a
/// key's records above level 0, only the one on the lowest level, which for a key without an
/// input record above level 0 is exactly the lookup's mark, and for the others an input record
/// (a lower level than any remaining one). The other rows could only be masked out.
async fn rewrite(
    table: &Table,
    (spec, kv, written): (&Arc<FileSpec>, &Arc<KvLayout>, &mut WrittenValues),
    split: &DataSplit,
    (pick, high): (&Pick, Option<&Marks>),
    keys: &KeySet,
    input_keys: Option<&KeyList>,
) -> Result<Vec<DataFileMeta>> {
    let mut chosen: Vec<(usize, Option<Vec<RowRange>>)> =
        pick.inputs.iter().map(|&i| (i, None)).collect();
    if let Some(marks) = high {
        for &i in pick.remaining.values().flatten() {
            let rows = split.files.get(i).and_then(|f| marks.get(&f.file_name));
            if let Some(rows) = rows.filter(|r| !r.is_empty()) {
                let mut rows = rows.clone();
                rows.sort_unstable();
                chosen.push((i, Some(row_runs(&rows))));
            }
        }
    }
    let merged = DataSplit {
        files: chosen
            .iter()
            .filter_map(|(i, _)| split.files.get(*i).cloned())
            .collect(),
        deletion_files: chosen
            .iter()
            .map(|(i, _)| split.deletion_files.get(*i).cloned().flatten())
            .collect(),
        row_ranges: Some(chosen.iter().map(|(_, r)| r.clone()).collect()),
        raw_convertible: false,
        ..split.clone()
    };
    let schema = table.schema();
    let n = schema.fields.len();
    let key_positions: Vec<usize> = schema
        .fields_of(&schema.trimmed_primary_keys())?
        .iter()
        .filter_map(|k| schema.fields.iter().position(|f| f.id == k.id))
        .collect();
    let mut fields = schema.fields.clone();
    fields.push(sequence_number_field());
    fields.push(value_kind_field());
    let read = TableRead::new(table)
        .with_output_fields(fields)
        .with_preserve_order(true);
    let mut batches = read.read(vec![Split::Data(merged)])?;
    let mut writer = output_writer(spec, split, 0);
    let values_schema = crate::arrow::arrow_schema(&schema.fields)?;
    while let Some(batch) = batches.next().await {
        let mut batch = batch?;
        if let Some(set) = input_keys {
            let mask = keys.mask(&batch, &key_positions, set)?;
            batch = arrow_select::filter::filter_record_batch(&batch, &mask)?;
        }
        if batch.num_rows() == 0 {
            continue;
        }
        written.record(&batch)?;
        writer
            .write(&kv_file_batch(&batch, n, &values_schema, kv)?)
            .await?;
    }
    writer.flush().await
}

/// Sorted row positions as ranges of consecutive rows.
fn row_runs(rows: &[u64]) -> Vec<RowRange> {
    let mut out: Vec<RowRange> = Vec::new();
    for &r in rows {
        match out.last_mut() {
            Some(last) if last.end == r => last.end = r + 1,
            Some(last) if last.end > r => {}
            _ => out.push(r..r + 1),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::options::TableOptions;

    fn file(name: &str, level: i32) -> DataFileMeta {
        crate::commit::test_support::file(name, 1, level, 0, 0)
    }

    #[test]
    fn picks_level0_and_level1_up_to_below_the_next_level() {
        let options = TableOptions::from_map(&std::collections::HashMap::from([(
            "deletion-vectors.enabled".to_string(),
            "true".to_string(),
        )]))
        .unwrap();
        let mut picker = Picker::new(&options, 12, 0);
        let sized = |name: &str, level: i32, size: i64| {
            let mut f = file(name, level);
            f.file_size = size;
            f
        };
        let files = vec![sized("a", 0, 1), sized("b", 5, 1000), sized("c", 0, 1)];
        let p = pick(&files, &mut picker, 6).unwrap();
        assert_eq!((p.inputs.len(), p.level), (2, 4));
        let files = vec![
            sized("a", 0, 1),
            sized("b", 1, 10),
            sized("c", 3, 1000),
            sized("d", 5, 10000),
        ];
        let p = pick(&files, &mut picker, 6).unwrap();
        assert_eq!((p.inputs, p.level), (vec![0, 1], 2));
        assert_eq!(p.remaining.keys().copied().collect::<Vec<_>>(), vec![3, 5]);
        let files = vec![file("a", 0), file("b", 1)];
        assert_eq!(pick(&files, &mut picker, 6).unwrap().level, 5);
        assert!(pick(&[file("b", 2)], &mut picker, 6).is_none());
        // Size ratio absorbs a small level-3 run after level 0 and 1 (2.0 forcePickL0).
        let files = vec![
            sized("a", 0, 10),
            sized("b", 1, 10),
            sized("c", 3, 15),
            sized("d", 5, 1000),
        ];
        assert_eq!(pick(&files, &mut picker, 6).unwrap().level, 4);
    }

    /// `join_file` over batches of (key, position) rows of one BIGINT-keyed file: the marked
    /// positions and the pending keys found, by the packed join and by the row join.
    fn join(batches: &[(&[i64], &[i64])], pending: &[i64]) -> Result<(Vec<u64>, Vec<bool>)> {
        let packed = join_as(batches, pending, true);
        let rows = join_as(batches, pending, false);
        match (&packed, &rows) {
            (Ok(p), Ok(r)) => assert_eq!(p, r),
            (Err(p), Err(r)) => assert_eq!(p.to_string(), r.to_string()),
            _ => panic!("the joins disagree: {packed:?} {rows:?}"),
        }
        packed
    }

    /// `join_file` with the file's keys packed from their values (`packed`) or as rows.
    fn join_as(
        batches: &[(&[i64], &[i64])],
        pending: &[i64],
        packed: bool,
    ) -> Result<(Vec<u64>, Vec<bool>)> {
        use crate::spec::types::{DataType, TypeKind};
        let fields = [DataField::new(0, "k", DataType::not_null(TypeKind::BigInt))];
        let mut keys = KeySet::new(&fields).unwrap();
        keys.pack_values = packed;
        let schema = Arc::new(arrow_schema::Schema::new(vec![
            arrow_schema::Field::new("k", arrow_schema::DataType::Int64, false),
            arrow_schema::Field::new("_pos", arrow_schema::DataType::Int64, false),
        ]));
        let stream = batches
            .iter()
            .map(|(k, p)| {
                let cols: Vec<arrow_array::ArrayRef> = vec![
                    Arc::new(arrow_array::Int64Array::from(k.to_vec())),
                    Arc::new(arrow_array::Int64Array::from(p.to_vec())),
                ];
                Ok(RecordBatch::try_new(schema.clone(), cols).unwrap())
            })
            .collect::<Vec<_>>();
        let mut collector = keys.collector();
        for k in pending {
            let col: arrow_array::ArrayRef = Arc::new(arrow_array::Int64Array::from(vec![*k]));
            let rows = keys.converter.convert_columns(&[col]).unwrap();
            collector.push(rows.row(0).data()).unwrap();
        }
        let pending = collector.finish();
        assert!(matches!(pending, KeyList::Packed { width: 9, .. }));
        let mut found = vec![false; pending.len()];
        let mut marks = Vec::new();
        let stream = futures::stream::iter(stream).boxed();
        futures::executor::block_on(join_file(
            stream, &keys, "f", &pending, &mut found, &mut marks,
        ))?;
        Ok((marks, found))
    }

    #[test]
    fn row_runs_merge_consecutive_positions() {
        assert_eq!(row_runs(&[]), Vec::<RowRange>::new());
        assert_eq!(row_runs(&[3]), vec![3..4]);
        assert_eq!(row_runs(&[0, 1, 2, 5, 7, 8]), vec![0..3, 5..6, 7..9]);
        // A repeated position stays one row.
        assert_eq!(row_runs(&[4, 4, 5]), vec![4..6]);
    }

    #[test]
    fn join_marks_every_pending_key_of_a_sorted_file() {
        // Two batches; -3 and 7 are present, 4 and 100 not; negative keys order first.
        let (marks, found) = join(
            &[(&[-5, -3, 0, 2], &[0, 1, 2, 3]), (&[3, 7, 9], &[4, 5, 6])],
            &[7, -3, 4, 100],
        )
        .unwrap();
        let positions = marks;
        assert_eq!(positions, [1, 5]);
        // Sorted pending order: -3, 4, 7, 100.
        assert_eq!(found, [true, false, true, false]);
    }

    #[test]
    fn join_stops_past_the_last_pending_key_and_refuses_unsorted_files() {
        // Nothing after 2 is read: the unsorted tail is never seen.
        let (marks, _) = join(&[(&[1, 2, 3], &[0, 1, 2]), (&[0], &[3])], &[2]).unwrap();
        assert_eq!(marks.len(), 1);
        // Out of order inside a batch and across batches.
        for batches in [
            vec![(&[1i64, 5, 3][..], &[0i64, 1, 2][..])],
            vec![(&[1i64, 5][..], &[0i64, 1][..]), (&[4i64][..], &[2i64][..])],
        ] {
            let e = join(&batches, &[9]).unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::DataInvalid, "{e}");
            assert!(e.message().contains("not sorted by its primary key"), "{e}");
        }
    }
}
