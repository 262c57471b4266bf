//! [`CommitMessage`]: what one writer task hands to the committer for one (partition, bucket),
//! as Java's `org.apache.paimon.table.sink.CommitMessageImpl` (a `DataIncrement` of new and
//! deleted files plus a `CompactIncrement` of files replaced by compaction).
//!
//! Writers (`table.new_write()`) produce messages; `table.new_commit().commit(messages)` turns
//! them into manifest entries (Java `ManifestEntryChanges`) and publishes one snapshot, so an
//! engine can write in many tasks and commit once.

use serde::{Deserialize, Serialize};

use crate::spec::manifest::{DataFileMeta, IndexManifestEntry};

/// The file changes of one writer for one (partition, bucket).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommitMessage {
    /// Serialized `BinaryRow` of the partition values (empty row for unpartitioned tables).
    pub partition: Vec<u8>,
    /// Bucket id (`-2` = postpone bucket, `0` for bucket-unaware append tables).
    pub bucket: i32,
    /// The partition's bucket count when written (`_TOTAL_BUCKETS` of the manifest entries).
    pub total_buckets: i32,
    /// Data files written by this task (Java `DataIncrement.newFiles`).
    pub new_files: Vec<DataFileMeta>,
    /// Data files this task removed without compaction (Java `DataIncrement.deletedFiles`).
    pub deleted_files: Vec<DataFileMeta>,
    /// Files replaced by a compaction (Java `CompactIncrement.compactBefore`).
    pub compact_before: Vec<DataFileMeta>,
    /// Files a compaction wrote (Java `CompactIncrement.compactAfter`).
    pub compact_after: Vec<DataFileMeta>,
    /// Index files (deletion vectors, global-index payloads) added for this bucket.
    pub new_index_files: Vec<IndexManifestEntry>,
    /// Index files of this bucket that are no longer valid.
    pub deleted_index_files: Vec<IndexManifestEntry>,
}

impl CommitMessage {
    /// An empty message for `(partition, bucket)` of a partition with `total_buckets` buckets.
    pub fn new(partition: Vec<u8>, bucket: i32, total_buckets: i32) -> Self {
        CommitMessage {
            partition,
            bucket,
            total_buckets,
            ..Default::default()
        }
    }

    /// True when the message changes nothing.
    pub fn is_empty(&self) -> bool {
        self.new_files.is_empty()
            && self.deleted_files.is_empty()
            && self.compact_before.is_empty()
            && self.compact_after.is_empty()
            && self.new_index_files.is_empty()
            && self.deleted_index_files.is_empty()
    }
}
