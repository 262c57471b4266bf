//! Universal compaction of one primary-key bucket: the files of a picked unit rewritten or
//! upgraded to its output level (Java `MergeTreeCompactTask#doCompact` with
//! `MergeTreeCompactRewriter`).
//!
//! - The unit's files are split into key-disjoint sections of sorted runs. Sections with
//!   several runs, and files below `target-file-size × compaction.small-file-ratio`, become
//!   rewrite candidates; any other file first flushes the candidates, then is upgraded. A
//!   candidate list that is one single-run section is upgraded file by file instead.
//! - Upgrade: a file is rewritten alone when the output is the top level and it may hold
//!   deletes (`_DELETE_ROW_COUNT` unknown or > 0), or with `compaction.force-rewrite-all-files`;
//!   else it moves to the output level unchanged (same name, `_FILE_SOURCE` kept).
//! - Rewrite: each section merged by the table's engine (lookup mode for lookup tables),
//!   retractions dropped only with `drop_delete` (Java: output ≥ the highest non-empty level),
//!   written at the output level with `_FILE_SOURCE = COMPACT`, sequence numbers kept.

use std::sync::Arc;

use futures::{StreamExt, TryStreamExt};

use super::pk::kv_file_batch;
use super::{as_compacted, output_writer};
use crate::arrow::arrow_schema;
use crate::catalog::Table;
use crate::mergetree::{LevelBatch, MergeFunction, MergePlan, SortMerge};
use crate::read::TableRead;
use crate::scan::{DataSplit, Split};
use crate::spec::manifest::DataFileMeta;
use crate::write::file_writer::FileSpec;
use crate::write::kv_layout::KvLayout;
use crate::Result;

/// What to compact: files of the bucket (indices into `split.files`) and where to.
pub(super) struct Job<'a> {
    /// The bucket: every live file with its deletion file.
    pub split: &'a DataSplit,
    /// Indices of the unit's files in `split.files`.
    pub files: Vec<usize>,
    /// Output level (≥ 1).
    pub output_level: i32,
    /// The table's top level.
    pub max_level: i32,
    /// Drop retractions from rewritten output.
    pub drop_delete: bool,
}

/// The writer settings of a compaction.
pub(super) struct Output<'a> {
    /// Data-file settings.
    pub spec: &'a Arc<FileSpec>,
    /// Key-value layout.
    pub kv: &'a Arc<KvLayout>,
}

/// Runs the job; returns (before, after).
pub(super) async fn compact_unit(
    table: &Table,
    out: &Output<'_>,
    job: &Job<'_>,
) -> Result<(Vec<DataFileMeta>, Vec<DataFileMeta>)> {
    let options = table.options();
    let plan = MergePlan::new(table.schema(), options, &table.schema().fields)?;
    let files: Vec<DataFileMeta> = job
        .files
        .iter()
        .filter_map(|&i| job.split.files.get(i).cloned())
        .collect();
    let target = out.spec.target_size as f64;
    let small = (target * options.compaction.small_file_ratio) as i64;
    let mut state = State {
        before: Vec::new(),
        after: Vec::new(),
    };
    let cx = Cx {
        table,
        out,
        job,
        plan: &plan,
        files: &files,
    };
    for step in task_steps(plan.sections(&files), &files, small) {
        match step {
            Step::Upgrade(f) => state.upgrade(&cx, f).await?,
            Step::Rewrite(sections) => state.rewrite(&cx, sections).await?,
        }
    }
    Ok((state.before, state.after))
}

/// One step of Java's `MergeTreeCompactTask#doCompact` over a unit's sections.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// `upgrade(file)`: the file (index into the unit's files) moves to the output level, or
    /// is rewritten alone when the upgrade rules say so.
    Upgrade(usize),
    /// `rewriteImpl`: these sections (runs of file indices) merged into new files.
    Rewrite(Vec<Vec<Vec<usize>>>),
}

/// The steps of `MergeTreeCompactTask#doCompact` for `sections` of `files`: sections of
/// several runs, and files below `small` bytes, become rewrite candidates; any other file
/// flushes the candidates, then is upgraded; a candidate list that is one single-run
/// section is upgraded file by file instead of rewritten (`#rewrite`).
pub(super) fn task_steps(
    sections: Vec<Vec<Vec<usize>>>,
    files: &[DataFileMeta],
    small: i64,
) -> Vec<Step> {
    fn flush(candidates: Vec<Vec<Vec<usize>>>, steps: &mut Vec<Step>) {
        if let [section] = candidates.as_slice() {
            if let [run] = section.as_slice() {
                steps.extend(run.iter().map(|&f| Step::Upgrade(f)));
                return;
            }
        }
        if candidates.iter().any(|c| !c.is_empty()) {
            steps.push(Step::Rewrite(candidates));
        }
    }
    let mut steps = Vec::new();
    let mut candidates: Vec<Vec<Vec<usize>>> = Vec::new();
    for section in sections {
        if section.len() > 1 {
            candidates.push(section);
            continue;
        }
        for &f in section.iter().flatten() {
            if files.get(f).is_some_and(|x| x.file_size < small) {
                candidates.push(vec![vec![f]]);
            } else {
                flush(std::mem::take(&mut candidates), &mut steps);
                steps.push(Step::Upgrade(f));
            }
        }
    }
    flush(candidates, &mut steps);
    steps
}

/// What every step of one unit's compaction reads.
#[derive(Clone, Copy)]
struct Cx<'a> {
    table: &'a Table,
    out: &'a Output<'a>,
    job: &'a Job<'a>,
    plan: &'a MergePlan,
    files: &'a [DataFileMeta],
}

struct State {
    before: Vec<DataFileMeta>,
    after: Vec<DataFileMeta>,
}

impl State {
    /// Java `MergeTreeCompactTask#upgrade`.
    async fn upgrade(&mut self, cx: &Cx<'_>, f: usize) -> Result<()> {
        let Cx { table, job, .. } = *cx;
        let file = &cx.files[f];
        let may_hold_deletes = file.delete_row_count.is_none_or(|n| n > 0);
        if (job.output_level == job.max_level && may_hold_deletes)
            || table.options().compaction.force_rewrite_all_files
        {
            return self.rewrite(cx, vec![vec![vec![f]]]).await;
        }
        if file.level != job.output_level {
            self.before.push(file.clone());
            let mut up = file.clone();
            up.level = job.output_level;
            self.after.push(up);
        }
        Ok(())
    }

    /// Java `MergeTreeCompactRewriter#rewriteCompaction`: the sections merged one after
    /// another into one rolling writer.
    async fn rewrite(&mut self, cx: &Cx<'_>, sections: Vec<Vec<Vec<usize>>>) -> Result<()> {
        let Cx {
            table,
            out,
            job,
            plan,
            files,
        } = *cx;
        let schema = arrow_schema(&plan.fields)?;
        let values_schema = arrow_schema(&table.schema().fields)?;
        let n = table.schema().fields.len();
        let mut writer = output_writer(out.spec, job.split, 0);
        let batch_size = table.options().read_batch_size.get();
        for section in sections {
            let mut runs = Vec::with_capacity(section.len());
            for run in &section {
                self.before
                    .extend(run.iter().filter_map(|&f| files.get(f).cloned()));
                let mut streams = Vec::with_capacity(run.len());
                for &f in run {
                    streams.push(read_file(table, job, plan, files, f)?);
                }
                runs.push(futures::stream::iter(streams).flatten().boxed());
            }
            let function = MergeFunction::new(
                table.options(),
                &plan.fields,
                &plan.all_keys,
                &plan.layout.user_seq,
            )?;
            let mut merge =
                SortMerge::with_levels(&schema, plan.layout.clone(), function, runs, batch_size)?
                    .with_lookup(plan.lookup)
                    .with_keep_retracts(!job.drop_delete);
            while let Some(batch) = merge.next_batch().await? {
                if batch.num_rows() > 0 {
                    writer
                        .write(&kv_file_batch(&batch, n, &values_schema, out.kv)?)
                        .await?;
                }
            }
        }
        let written = writer.flush().await?;
        self.after.extend(as_compacted(written, job.output_level));
        Ok(())
    }
}

/// Every record of file `f` as stored (retractions included, its deletion vector applied) in
/// the merge layout, tagged with the file's level.
fn read_file(
    table: &Table,
    job: &Job<'_>,
    plan: &MergePlan,
    files: &[DataFileMeta],
    f: usize,
) -> Result<futures::stream::BoxStream<'static, Result<LevelBatch>>> {
    let mut file = files[f].clone();
    let level = file.level;
    let deletion = job
        .split
        .files
        .iter()
        .position(|x| x.file_name == file.file_name)
        .and_then(|i| job.split.deletion_files.get(i).cloned().flatten());
    // Read the file alone, raw: the merge happens here, over every run.
    file.delete_row_count = Some(file.delete_row_count.unwrap_or(0));
    let one = DataSplit {
        files: vec![file],
        deletion_files: vec![deletion],
        raw_convertible: true,
        row_ranges: None,
        ..job.split.clone()
    };
    let batches = TableRead::new(table)
        .with_output_fields(plan.fields.clone())
        .with_preserve_order(true)
        .read(vec![Split::Data(one)])?;
    Ok(batches
        .map_ok(move |batch| LevelBatch { batch, level })
        .boxed())
}

/// The unit `picker` chooses for the bucket of `split` and whether it drops retractions
/// (Java `MergeTreeCompactManager#triggerCompaction`: output ≠ 0 and output ≥ the highest
/// non-empty level, or deletion vectors). Partial-update and aggregation merges cannot keep
/// retract results, so a unit that would keep them and may hold retractions is widened to a
/// full compaction (a valid LSM step; Java keeps the narrower unit), and so is every unit of
/// a lookup table compacted here (`force-lookup` without deletion vectors).
pub(super) fn plan_job<'a>(
    table: &Table,
    split: &'a DataSplit,
    picker: &mut super::universal::Picker,
) -> Option<Job<'a>> {
    use crate::spec::options::MergeEngine;
    let options = table.options();
    let num_levels = options.num_levels();
    let max_level = num_levels - 1;
    let runs = super::universal::level_sorted_runs(&split.files);
    let unit = picker.pick(num_levels, &runs, &split.files)?;
    let highest = split.files.iter().map(|f| f.level).max().unwrap_or(-1);
    let out = unit.output_level;
    let drop_delete = out != 0 && (out >= highest || options.deletion_vectors_enabled);
    let files: Vec<usize> = runs
        .iter()
        .take(unit.runs)
        .flat_map(|r| r.files.iter().copied())
        .collect();
    let per_column = matches!(
        options.merge_engine,
        MergeEngine::PartialUpdate | MergeEngine::Aggregation
    );
    let may_retract = files.iter().any(|&i| {
        split
            .files
            .get(i)
            .is_none_or(|f| f.delete_row_count.is_none_or(|n| n > 0))
    });
    // Lookup tables without deletion vectors (`force-lookup`) would need Java's lookups into
    // the levels left out; a full compaction needs none.
    let lookup = options.need_lookup();
    if lookup || (!drop_delete && per_column && may_retract) {
        return Some(Job {
            split,
            files: (0..split.files.len()).collect(),
            output_level: max_level,
            max_level,
            drop_delete: true,
        });
    }
    Some(Job {
        split,
        files,
        output_level: out,
        max_level,
        drop_delete,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sized(sizes: &[i64]) -> Vec<DataFileMeta> {
        sizes
            .iter()
            .enumerate()
            .map(|(i, &size)| {
                let mut f = crate::commit::test_support::file(&format!("f{i}"), 1, 0, 0, 0);
                f.file_size = size;
                f
            })
            .collect()
    }

    #[test]
    fn steps_follow_merge_tree_compact_task() {
        let one = |f: usize| vec![vec![f]];
        // A lone small file is upgraded, not rewritten.
        assert_eq!(
            task_steps(vec![one(0)], &sized(&[1]), 10),
            vec![Step::Upgrade(0)]
        );
        // Two small files in a row are rewritten together.
        assert_eq!(
            task_steps(vec![one(0), one(1)], &sized(&[1, 1]), 10),
            vec![Step::Rewrite(vec![one(0), one(1)])]
        );
        // A large file flushes the candidate before it (one file: upgraded), then moves.
        assert_eq!(
            task_steps(vec![one(0), one(1), one(2)], &sized(&[1, 99, 1]), 10),
            vec![Step::Upgrade(0), Step::Upgrade(1), Step::Upgrade(2)]
        );
        // A section of several runs is rewritten, with the small file after it.
        let runs = vec![vec![0], vec![1]];
        assert_eq!(
            task_steps(
                vec![runs.clone(), one(2), one(3)],
                &sized(&[1, 1, 1, 99]),
                10
            ),
            vec![Step::Rewrite(vec![runs, one(2)]), Step::Upgrade(3)]
        );
    }
}
