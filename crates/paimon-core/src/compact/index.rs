//! Index files of compacted primary-key buckets, changed in the same `COMPACT` snapshot
//! (Java `MergeTreeCompactManager` with deletion vectors, and the automatic `pk-btree`
//! payloads of issue 12 item 3):
//!
//! - deletion vectors: a full compaction replaces every file of the bucket, so the bucket's
//!   deletion-vector index file is retired (the new top-level run has no deleted rows);
//! - `pk-btree` payloads: every payload of the bucket for a configured column is retired and
//!   the new top level is indexed again with the global-index builder
//!   ([`crate::commit::PayloadBuilder`]: its files sorted by name, `_SOURCE_META` naming them).

use crate::catalog::Table;
use crate::commit::{previous_index, CommitMessage, PayloadBuilder};
use crate::index::source_meta::SourceMeta;
use crate::scan::DataSplit;
use crate::spec::manifest::IndexManifestEntry;
use crate::Result;

use crate::commit::index_merge::DELETION_VECTORS;

/// The index state compaction starts from and the payload builders of the table.
pub(super) struct IndexChanges {
    previous: Vec<IndexManifestEntry>,
    builders: Vec<PayloadBuilder>,
}

impl IndexChanges {
    /// The index entries of snapshot `snapshot_id` and a builder per `pk-btree` column.
    pub(super) async fn new(table: &Table, snapshot_id: Option<i64>) -> Result<Self> {
        let previous = match snapshot_id {
            Some(id) => previous_index(table, id).await?,
            None => Vec::new(),
        };
        let builders = table
            .options()
            .pk_btree_index_columns
            .iter()
            .map(|c| PayloadBuilder::new(table, c))
            .collect::<Result<Vec<_>>>()?;
        Ok(IndexChanges { previous, builders })
    }

    /// Adds the index changes of the fully compacted bucket of `m` (new files at `level`).
    pub(super) async fn apply(
        &self,
        m: &mut CommitMessage,
        split: &DataSplit,
        level: i32,
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
        let mut files = m.compact_after.clone();
        files.sort_by(|a, b| a.file_name.cmp(&b.file_name));
        for b in &self.builders {
            m.new_index_files.push(b.build(split, level, &files).await?);
        }
        Ok(())
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
            let entry = super::vectors::update_vectors(table, split, &m.compact_before, vec![]);
            m.new_index_files.extend(entry.await?);
        }
        Ok(())
    }

    /// Adds the index changes of a lookup compaction of the bucket of `m` (new files at
    /// `level`, which holds nothing else now): the new deletion-vector file (an `ADD`
    /// replaces the bucket's file, Java `BucketedCombiner`); the payloads of the changed
    /// levels retired and `level` indexed again. Payloads of other levels stay: their files
    /// are unchanged (new deletion vectors on them are allowed by the read path's checks).
    pub(super) async fn apply_lookup(
        &self,
        m: &mut CommitMessage,
        split: &DataSplit,
        level: i32,
        changed: &std::collections::BTreeSet<i32>,
        dv: Option<IndexManifestEntry>,
    ) -> Result<()> {
        m.new_index_files.extend(dv);
        self.retire_and_rebuild(m, split, level, changed).await
    }

    /// Retires the payloads of the `changed` levels and indexes `level` again from the
    /// message's compaction outputs written by compaction (Java indexes only
    /// `_FILE_SOURCE = COMPACT` files above level 0; upgraded level-0 files stay unindexed).
    pub(super) async fn retire_and_rebuild(
        &self,
        m: &mut CommitMessage,
        split: &DataSplit,
        level: i32,
        changed: &std::collections::BTreeSet<i32>,
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
        let mut files: Vec<_> = m
            .compact_after
            .iter()
            .filter(|f| f.level == level && f.file_source == Some(super::FILE_SOURCE_COMPACT))
            .cloned()
            .collect();
        if files.is_empty() {
            return Ok(());
        }
        files.sort_by(|a, b| a.file_name.cmp(&b.file_name));
        for b in &self.builders {
            m.new_index_files.push(b.build(split, level, &files).await?);
        }
        Ok(())
    }
}
