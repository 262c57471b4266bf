//! Index files of compacted primary-key buckets, changed in the same `COMPACT` snapshot
//! (Java `MergeTreeCompactManager` with deletion vectors, and the automatic `pk-btree`
//! payloads of issue 12 item 3):
//!
//! - deletion vectors: a full compaction replaces every file of the bucket, so the bucket's
//!   deletion-vector index file is retired (the new top-level run has no deleted rows);
//! - `pk-btree` payloads: every payload of the bucket for a configured column is retired and
//!   the new top level is indexed again with the global-index builder
//!   ([`crate::commit::PayloadBuilder`]: its files sorted by name, `_SOURCE_META` naming them).

use arrow_array::RecordBatch;

use crate::catalog::Table;
use crate::commit::{previous_index, written_ordinals, CommitMessage, PayloadBuilder};
use crate::index::pk_values::{OrdinalMap, PayloadSorter, SortLimits};
use crate::index::source_meta::SourceMeta;
use crate::scan::DataSplit;
use crate::spec::manifest::{DataFileMeta, IndexManifestEntry};
use crate::spec::types::DataField;
use crate::Result;

use crate::commit::index_merge::DELETION_VECTORS;

/// The index state compaction starts from and the payload builders of the table.
pub(super) struct IndexChanges {
    previous: Vec<IndexManifestEntry>,
    builders: Vec<PayloadBuilder>,
    /// Payloads built at once: one per core, whatever the buckets compacted at once (twice
    /// the cores by default). A build sorts its level's values (at most its budget in memory,
    /// the rest spilled) and streams the payload out; it is CPU-bound: more at once would
    /// only hold more memory. One at a time made a full compaction ~10% slower on two cores.
    building: tokio::sync::Semaphore,
    /// Sorted runs the builds spilled.
    spills: std::sync::atomic::AtomicUsize,
}

/// The indexed columns' values as a compaction writes one bucket's output, in write order,
/// sorted as they come (by the builders' sorters), so that the output's payloads are built
/// without reading the files back (the payload is the same: [`written_ordinals`] gives the
/// rows their group ordinals, files by name).
#[derive(Default)]
pub(super) struct WrittenValues {
    /// Per `pk-btree` column: its field id, its position among the table columns of the
    /// written batches, and its values so far (a sorter from the first batch on).
    columns: Vec<(i32, usize, Option<PayloadSorter>)>,
    /// How each column's values are sorted (the builders').
    limits: SortLimits,
    /// About how many rows will be recorded (their room is reserved at once, within the
    /// budget).
    rows_hint: u64,
}

impl std::fmt::Debug for WrittenValues {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let rows: Vec<_> = self
            .columns
            .iter()
            .map(|(id, _, s)| (id, s.as_ref().map_or(0, PayloadSorter::rows)))
            .collect();
        f.debug_struct("WrittenValues")
            .field("rows", &rows)
            .finish()
    }
}

impl WrittenValues {
    /// Records the indexed columns of `batch` (table columns first), about to be written.
    /// Errors: a failed spill of the sorted values.
    pub(super) fn record(&mut self, batch: &RecordBatch) -> Result<()> {
        for (_, position, sorter) in &mut self.columns {
            let Some(c) = batch.columns().get(*position) else {
                continue;
            };
            self.limits
                .sorter_in(sorter, c.data_type(), self.rows_hint)?
                .push(c.as_ref())?;
        }
        Ok(())
    }

    /// The sorted values of field `id` with the map of their rows (the written files,
    /// `in_write_order`) to the group ordinals of `by_name` (the same files sorted by name);
    /// `None` when not recorded or not adding up. The recorded values are given up.
    fn take(
        &mut self,
        id: i32,
        in_write_order: &[DataFileMeta],
        by_name: &[DataFileMeta],
    ) -> Option<(PayloadSorter, OrdinalMap)> {
        let sorter = self.columns.iter_mut().find(|c| c.0 == id)?.2.take()?;
        let map = written_ordinals(sorter.rows(), in_write_order, by_name)?;
        Some((sorter, map))
    }
}

impl IndexChanges {
    /// The index entries of snapshot `snapshot_id` and a builder per `pk-btree` column, for
    /// a compaction of at most `buckets_at_once` buckets at once.
    pub(super) async fn new(
        table: &Table,
        snapshot_id: Option<i64>,
        buckets_at_once: usize,
        spill_dir: Option<&std::path::Path>,
    ) -> Result<Self> {
        let previous = match snapshot_id {
            Some(id) => previous_index(table, id).await?,
            None => Vec::new(),
        };
        let options = table.options();
        let columns = &options.pk_btree_index_columns;
        // `write-buffer-size` shared by the sorts held at once: a bucket compaction holds one
        // per column (recorded while writing, or read back for its build).
        let sorts = buckets_at_once.max(1).saturating_mul(columns.len().max(1));
        let budget =
            usize::try_from(options.write_buffer_size.bytes()).unwrap_or(usize::MAX) / sorts;
        let builders = columns
            .iter()
            .map(|c| {
                Ok(PayloadBuilder::new(table, c)?
                    .with_budget(budget)
                    .with_spill_dir(spill_dir.map(Into::into)))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(IndexChanges {
            previous,
            builders,
            building: tokio::sync::Semaphore::new(crate::blocking::default_parallelism()),
            spills: Default::default(),
        })
    }

    /// Sorted runs the payload builds spilled to disk so far.
    pub(super) fn sort_spills(&self) -> usize {
        self.spills.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// A recorder of the values of every `pk-btree` column, the written batches' table
    /// columns being `fields`, about `rows_hint` rows being written.
    pub(super) fn recorder(&self, fields: &[DataField], rows_hint: u64) -> WrittenValues {
        let columns = self
            .builders
            .iter()
            .filter_map(|b| {
                let id = b.field().id;
                let position = fields.iter().position(|f| f.id == id)?;
                Some((id, position, None))
            })
            .collect();
        WrittenValues {
            columns,
            limits: self
                .builders
                .first()
                .map_or_else(SortLimits::default, |b| b.limits().clone()),
            rows_hint,
        }
    }

    /// Builds the payloads of `files` (sorted by name) at `level`, a core's worth at a time;
    /// `written`: the values the compaction recorded while writing exactly the files of
    /// `in_write_order`.
    async fn build_payloads(
        &self,
        m: &mut CommitMessage,
        split: &DataSplit,
        (level, files): (i32, &[DataFileMeta]),
        mut written: Option<(WrittenValues, &[DataFileMeta])>,
    ) -> Result<()> {
        let _permit = self
            .building
            .acquire()
            .await
            .map_err(|e| crate::Error::internal(format!("payload build queue closed: {e}")))?;
        for b in &self.builders {
            let recorded = match &mut written {
                Some((w, in_write_order)) => w.take(b.field().id, in_write_order, files),
                None => None,
            };
            let (entry, spills) = b.build(split, level, files, recorded).await?;
            self.spills
                .fetch_add(spills, std::sync::atomic::Ordering::Relaxed);
            m.new_index_files.push(entry);
        }
        Ok(())
    }

    /// Adds the index changes of the fully compacted bucket of `m` (new files at `level`;
    /// `written`: their values as recorded while writing them).
    pub(super) async fn apply(
        &self,
        m: &mut CommitMessage,
        split: &DataSplit,
        level: i32,
        written: WrittenValues,
    ) -> Result<()> {
        let indexed = |e: &IndexManifestEntry| {
            e.global_index.as_ref().is_some_and(|g| {
                self.builders
                    .iter()
                    .any(|b| b.field().id == g.index_field_id)
            })
        };
        for e in &self.previous {
            if e.partition != m.partition || e.bucket != m.bucket {
                continue;
            }
            if e.index_type == DELETION_VECTORS || indexed(e) {
                m.deleted_index_files.push(e.clone());
            }
        }
        if m.compact_after.is_empty() {
            return Ok(());
        }
        let in_write_order = m.compact_after.clone();
        let mut files = in_write_order.clone();
        files.sort_by(|a, b| a.file_name.cmp(&b.file_name));
        self.build_payloads(m, split, (level, &files), Some((written, &in_write_order)))
            .await
    }

    /// Adds the deletion-vector changes of an append compaction of the bucket of `m` (Java
    /// `AppendDeleteFileMaintainer#persist`): when an input had a vector, the bucket's vector
    /// files are retired and the vectors of the files not compacted are written again into
    /// one new file.
    pub(super) async fn apply_append_dv(
        &self,
        m: &mut CommitMessage,
        split: &DataSplit,
        table: &Table,
    ) -> Result<()> {
        let input = |name: &str| m.compact_before.iter().any(|f| f.file_name == name);
        let with_dv = |want_input: bool| {
            split
                .files
                .iter()
                .zip(&split.deletion_files)
                .any(|(f, d)| d.is_some() && input(&f.file_name) == want_input)
        };
        if !with_dv(true) {
            return Ok(());
        }
        let survivors = with_dv(false);
        for e in &self.previous {
            if e.partition == m.partition
                && e.bucket == m.bucket
                && e.index_type == DELETION_VECTORS
            {
                m.deleted_index_files.push(e.clone());
            }
        }
        if survivors {
            let entry =
                super::vectors::update_vectors(table, split, &m.compact_before, Default::default());
            m.new_index_files.extend(entry.await?);
        }
        Ok(())
    }

    /// Adds the index changes of a lookup compaction of the bucket of `m` (new files at
    /// `level`, which holds nothing else now): the new deletion-vector file (an `ADD`
    /// replaces the bucket's file, Java `BucketedCombiner`); the payloads of the changed
    /// levels retired and `level` indexed again. Payloads of other levels stay: their files
    /// are unchanged (new deletion vectors on them are allowed by the read path's checks).
    /// `written`: the values recorded while writing the message's output files.
    pub(super) async fn apply_lookup(
        &self,
        m: &mut CommitMessage,
        split: &DataSplit,
        (level, changed): (i32, &std::collections::BTreeSet<i32>),
        dv: Option<IndexManifestEntry>,
        written: Option<WrittenValues>,
    ) -> Result<()> {
        m.new_index_files.extend(dv);
        self.retire_and_rebuild(m, split, (level, changed), written)
            .await
    }

    /// Retires the payloads of the `changed` levels and indexes `level` again from the
    /// message's compaction outputs written by compaction (Java indexes only
    /// `_FILE_SOURCE = COMPACT` files above level 0; upgraded level-0 files stay unindexed).
    /// `written`: the values recorded while writing the message's output files, used when
    /// those are exactly the files indexed.
    pub(super) async fn retire_and_rebuild(
        &self,
        m: &mut CommitMessage,
        split: &DataSplit,
        (level, changed): (i32, &std::collections::BTreeSet<i32>),
        written: Option<WrittenValues>,
    ) -> Result<()> {
        for e in &self.previous {
            if e.partition != m.partition || e.bucket != m.bucket {
                continue;
            }
            let Some(g) = &e.global_index else { continue };
            if !self
                .builders
                .iter()
                .any(|b| b.field().id == g.index_field_id)
            {
                continue;
            }
            // A payload whose level cannot be read is retired (readers ignore it anyway).
            let payload_level = g
                .source_meta
                .as_deref()
                .and_then(|b| SourceMeta::decode(b, &e.file_name).ok())
                .map(|s| s.data_level());
            if payload_level.is_none_or(|l| changed.contains(&l)) {
                m.deleted_index_files.push(e.clone());
            }
        }
        let in_write_order: Vec<_> = m
            .compact_after
            .iter()
            .filter(|f| f.level == level && f.file_source == Some(super::FILE_SOURCE_COMPACT))
            .cloned()
            .collect();
        if in_write_order.is_empty() {
            return Ok(());
        }
        // The recorded values belong to the output only when every output file is indexed.
        let written = written.filter(|_| in_write_order.len() == m.compact_after.len());
        let mut files = in_write_order.clone();
        files.sort_by(|a, b| a.file_name.cmp(&b.file_name));
        let written = written.map(|w| (w, in_write_order.as_slice()));
        self.build_payloads(m, split, (level, &files), written)
            .await
    }
}
