//! Writers' messages to manifest entries, as Java's
//! `org.apache.paimon.operation.commit.ManifestEntryChanges#collect`: per message, in message
//! order, new files (ADD) then deleted files (DELETE) and the index changes (DELETE then ADD)
//! form the append part; compact-before (DELETE) then compact-after (ADD) and their index
//! changes the compact part. Changelog files are not produced by our writers and not handled.
//!
//! [`CommitMessage`] carries one pair of index-file lists (Java has one per increment): they
//! belong to the compact part when the message holds compaction changes, else to the append
//! part.

use std::collections::HashSet;

use super::index_merge::DELETION_VECTORS;
use super::CommitMessage;
use crate::spec::manifest::{DataFileMeta, FileKind, IndexManifestEntry, ManifestEntry};

/// The entries of a set of messages.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct EntryChanges {
    pub append: Vec<ManifestEntry>,
    pub append_index: Vec<IndexManifestEntry>,
    pub compact: Vec<ManifestEntry>,
    pub compact_index: Vec<IndexManifestEntry>,
}

impl EntryChanges {
    /// Collects `messages`.
    pub(crate) fn collect(messages: &[CommitMessage]) -> Self {
        let mut out = EntryChanges::default();
        for m in messages {
            let entry = |kind: FileKind, file: &DataFileMeta| ManifestEntry {
                kind,
                partition: m.partition.clone(),
                bucket: m.bucket,
                total_buckets: m.total_buckets,
                file: file.clone(),
            };
            out.append
                .extend(m.new_files.iter().map(|f| entry(FileKind::Add, f)));
            out.append
                .extend(m.deleted_files.iter().map(|f| entry(FileKind::Delete, f)));
            out.compact
                .extend(m.compact_before.iter().map(|f| entry(FileKind::Delete, f)));
            out.compact
                .extend(m.compact_after.iter().map(|f| entry(FileKind::Add, f)));
            let index = |kind: FileKind, e: &IndexManifestEntry| IndexManifestEntry {
                kind,
                partition: m.partition.clone(),
                bucket: m.bucket,
                ..e.clone()
            };
            let target = if m.compact_before.is_empty() && m.compact_after.is_empty() {
                &mut out.append_index
            } else {
                &mut out.compact_index
            };
            target.extend(
                m.deleted_index_files
                    .iter()
                    .map(|e| index(FileKind::Delete, e)),
            );
            target.extend(m.new_index_files.iter().map(|e| index(FileKind::Add, e)));
        }
        out
    }
}

/// Java `ConflictDetection#shouldBeOverwriteCommit`: an append part that deletes files or
/// changes deletion vectors is committed as OVERWRITE (with conflict checks).
pub(crate) fn should_be_overwrite(entries: &[ManifestEntry], index: &[IndexManifestEntry]) -> bool {
    entries.iter().any(|e| e.kind == FileKind::Delete)
        || index.iter().any(|e| e.index_type == DELETION_VECTORS)
}

/// Java `ManifestEntryChanges#changedPartitions`: partitions of the data changes and of the
/// deletion-vector changes.
pub(crate) fn changed_partitions(
    entries: &[ManifestEntry],
    index: &[IndexManifestEntry],
) -> HashSet<Vec<u8>> {
    entries
        .iter()
        .map(|e| e.partition.clone())
        .chain(
            index
                .iter()
                .filter(|e| e.index_type == DELETION_VECTORS)
                .map(|e| e.partition.clone()),
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str) -> DataFileMeta {
        crate::commit::test_support::file(name, 1, 0, 0, 0)
    }

    fn dv(name: &str) -> IndexManifestEntry {
        IndexManifestEntry {
            kind: FileKind::Add,
            partition: vec![],
            bucket: 0,
            index_type: DELETION_VECTORS.into(),
            file_name: name.into(),
            file_size: 1,
            row_count: 1,
            deletion_vectors: None,
            external_path: None,
            global_index: None,
        }
    }

    #[test]
    fn messages_become_append_and_compact_parts_in_java_order() {
        let mut a = CommitMessage::new(vec![1], 0, 2);
        a.new_files = vec![file("n1"), file("n2")];
        a.deleted_files = vec![file("d1")];
        a.new_index_files = vec![dv("dv-1")];
        let mut b = CommitMessage::new(vec![2], 1, 2);
        b.compact_before = vec![file("c1")];
        b.compact_after = vec![file("c2")];
        b.deleted_index_files = vec![dv("dv-0")];
        b.new_index_files = vec![dv("dv-2")];
        let c = EntryChanges::collect(&[a, b]);
        let names = |v: &[ManifestEntry]| {
            v.iter()
                .map(|e| (e.kind, e.file.file_name.clone(), e.bucket, e.total_buckets))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            names(&c.append),
            [
                (FileKind::Add, "n1".into(), 0, 2),
                (FileKind::Add, "n2".into(), 0, 2),
                (FileKind::Delete, "d1".into(), 0, 2)
            ]
        );
        assert_eq!(
            names(&c.compact),
            [
                (FileKind::Delete, "c1".into(), 1, 2),
                (FileKind::Add, "c2".into(), 1, 2)
            ]
        );
        assert_eq!(c.append_index.len(), 1);
        assert_eq!(c.append_index[0].partition, vec![1]);
        let kinds: Vec<_> = c.compact_index.iter().map(|e| e.kind).collect();
        assert_eq!(kinds, [FileKind::Delete, FileKind::Add]);
        assert_eq!(c.compact_index[1].bucket, 1);
        assert!(should_be_overwrite(&c.append, &[]));
        assert!(!should_be_overwrite(&c.append[..2], &[]));
        assert!(should_be_overwrite(&[], &c.append_index));
        assert_eq!(changed_partitions(&c.append, &c.compact_index).len(), 2);
    }
}
