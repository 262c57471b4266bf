//! Compaction at [`TableWrite::prepare_commit`](crate::write::TableWrite::prepare_commit)
//! when `write-only` is false (Java's default): Java `MergeTreeWriter#prepareCommit` flushes
//! the buffer into level-0 files, triggers one compaction of the bucket
//! (`MergeTreeCompactManager#triggerCompaction(false)`) and, in a batch write, waits for it
//! (`TableWriteImpl#prepareCommit` passes `waitCompaction = true`). The bucket's LSM is the
//! latest snapshot's live files plus the new files; the pick is [`Picker`]'s (universal, or
//! level 0 forced up for deletion-vector and first-row tables, whose readers skip level 0).
//! The commit message then carries both increments: the new files (an `APPEND` snapshot) and
//! the compaction's before/after files with its index changes (a `COMPACT` snapshot).
//!
//! Departures: the LSM is re-read from the latest snapshot at each `prepare_commit`, so
//! messages prepared but never committed are not seen by the next one; only buckets with
//! new files are considered (Java triggers every bucket writer it holds).

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

use super::index::IndexChanges;
use super::universal::Picker;
use super::{lookup, lookup_compaction, new_picker, rewrite, source_table, CompactBuilder};
use crate::blocking::map_blocking;
use crate::catalog::Table;
use crate::commit::CommitMessage;
use crate::scan::DataSplit;
use crate::write::file_writer::FileSpec;
use crate::write::kv_layout::KvLayout;
use crate::{Error, Result};

/// Compaction state kept by a writer across commits (Java's per-bucket strategy state:
/// the `lookup-compact = GENTLE` counters).
#[derive(Debug)]
pub(crate) struct CompactOnWrite {
    pickers: HashMap<(Vec<u8>, i32), Picker>,
    /// Where `pk-btree` payload builds spill (the writer's spill directory).
    spill_dir: Option<PathBuf>,
}

impl CompactOnWrite {
    /// Compaction state of a writer spilling under `spill_dir` (the system temp dir when
    /// `None`).
    pub(crate) fn new(spill_dir: Option<PathBuf>) -> Self {
        CompactOnWrite {
            pickers: HashMap::new(),
            spill_dir,
        }
    }

    /// Compacts the buckets of `messages` that have new files, adding each compaction's
    /// increment to its message, up to `parallelism` buckets at once. `dirs` are the bucket
    /// directories by (partition, bucket). On an error the first one (in message order) is
    /// returned after every bucket has finished; the messages are then not to be committed.
    pub(crate) async fn compact(
        &mut self,
        table: &Table,
        (spec, kv): (&Arc<FileSpec>, &Arc<KvLayout>),
        dirs: &BTreeMap<(Vec<u8>, i32), String>,
        messages: &mut [CommitMessage],
        parallelism: usize,
    ) -> Result<()> {
        if messages.iter().all(|m| m.new_files.is_empty()) {
            return Ok(());
        }
        let source = source_table(table)?;
        let (snapshot_id, buckets) = CompactBuilder::new(source.clone()).buckets(&source).await?;
        let index =
            IndexChanges::new(table, snapshot_id, parallelism, self.spill_dir.as_deref()).await?;
        let mut live: HashMap<(Vec<u8>, i32), DataSplit> = buckets
            .into_iter()
            .map(|(s, _)| ((s.partition.clone(), s.bucket), s))
            .collect();
        let mut jobs = Vec::new();
        for (slot, m) in messages.iter_mut().enumerate() {
            if m.new_files.is_empty() {
                continue;
            }
            let key = (m.partition.clone(), m.bucket);
            let mut split = match live.remove(&key) {
                Some(s) => s,
                None => DataSplit {
                    snapshot_id: snapshot_id.unwrap_or(0),
                    partition: m.partition.clone(),
                    partition_values: Vec::new(),
                    bucket: m.bucket,
                    total_buckets: m.total_buckets,
                    bucket_path: dirs.get(&key).cloned().ok_or_else(|| {
                        Error::internal("bucket directory of a written bucket missing")
                    })?,
                    files: Vec::new(),
                    deletion_files: Vec::new(),
                    raw_convertible: false,
                    row_ranges: None,
                },
            };
            split.files.extend(m.new_files.iter().cloned());
            split
                .deletion_files
                .extend(std::iter::repeat_n(None, m.new_files.len()));
            let picker = match self.pickers.remove(&key) {
                Some(p) => p,
                None => new_picker(source.options()),
            };
            let message = std::mem::take(m);
            jobs.push(BucketJob {
                slot,
                key,
                split,
                picker,
                message,
            });
        }
        let shared = Arc::new(Shared {
            source,
            spec: spec.clone(),
            kv: kv.clone(),
            index,
        });
        // Buckets are independent: each compacts on its own core (see `crate::blocking`).
        let outcomes = map_blocking(jobs, parallelism, move |mut job: BucketJob| {
            let shared = shared.clone();
            async move {
                let cx = (&shared.spec, &shared.kv);
                let result = compact_bucket(
                    &shared.source,
                    cx,
                    &shared.index,
                    &job.split,
                    &mut job.picker,
                    &mut job.message,
                )
                .await;
                (job, result)
            }
        })
        .await;
        let mut first_error = None;
        for outcome in outcomes {
            let Some((job, result)) = outcome else {
                first_error.get_or_insert(Error::internal("a bucket compaction was cancelled"));
                continue;
            };
            if let Err(e) = result {
                first_error.get_or_insert(e);
            }
            if let Some(m) = messages.get_mut(job.slot) {
                *m = job.message;
            }
            self.pickers.insert(job.key, job.picker);
        }
        first_error.map_or(Ok(()), Err)
    }
}

/// What one bucket's compaction needs of the others' (read-only, shared by the threads).
struct Shared {
    source: Table,
    spec: Arc<FileSpec>,
    kv: Arc<KvLayout>,
    index: IndexChanges,
}

/// One bucket's compaction: its message (taken out of the caller's list at `slot`, put back
/// with the compaction's increment) and its picker state.
struct BucketJob {
    slot: usize,
    key: (Vec<u8>, i32),
    split: DataSplit,
    picker: Picker,
    message: CommitMessage,
}

/// One bucket's compaction into its message.
async fn compact_bucket(
    source: &Table,
    (spec, kv): (&Arc<FileSpec>, &Arc<KvLayout>),
    index: &IndexChanges,
    split: &DataSplit,
    picker: &mut Picker,
    m: &mut CommitMessage,
) -> Result<()> {
    if lookup_compaction(source.options()) {
        let mut written = index.recorder(&source.schema().fields, super::rows_of(&split.files));
        let out = lookup::compact_bucket(source, spec, kv, split, picker, &mut written).await?;
        let Some(out) = out else {
            return Ok(());
        };
        m.compact_before = out.before;
        m.compact_after = out.after;
        let levels = (out.level, &out.changed_levels);
        return index
            .apply_lookup(m, split, levels, out.dv_entry, Some(written))
            .await;
    }
    let Some(job) = rewrite::plan_job(source, split, picker) else {
        return Ok(());
    };
    let output = rewrite::Output { spec, kv };
    let (before, after) = rewrite::compact_unit(source, &output, &job).await?;
    let mut changed: std::collections::BTreeSet<i32> = before.iter().map(|f| f.level).collect();
    changed.insert(job.output_level);
    m.compact_before = before;
    m.compact_after = after;
    index
        .retire_and_rebuild(m, split, (job.output_level, &changed), None)
        .await
}
