//! ADD/DELETE netting of manifest entries into the live file set.
//!
//! Mirrors Java `org.apache.paimon.manifest.FileEntry#mergeEntries` (Paimon 2.0): entries are
//! identified by (partition, bucket, level, file name, extra files, embedded index, external
//! path). An ADD inserts; a DELETE removes the matching earlier ADD, or is kept pending when the
//! ADD is not among the entries read. A second ADD of the same identity is corruption.

use std::collections::HashMap;

use crate::spec::manifest::{FileKind, ManifestEntry};
use crate::{Error, Result};

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Identity {
    partition: Vec<u8>,
    bucket: i32,
    level: i32,
    file_name: String,
    extra_files: Vec<String>,
    embedded_index: Option<Vec<u8>>,
    external_path: Option<String>,
}

impl Identity {
    pub(crate) fn of(e: &ManifestEntry) -> Self {
        Identity {
            partition: e.partition.clone(),
            bucket: e.bucket,
            level: e.file.level,
            file_name: e.file.file_name.clone(),
            extra_files: e.file.extra_files.clone(),
            embedded_index: e.file.embedded_index.clone(),
            external_path: e.file.external_path.clone(),
        }
    }
}

/// Incremental merger: feed entries in manifest order, then take the live ADDs.
#[derive(Debug, Default)]
pub struct EntryMerger {
    slots: Vec<Option<ManifestEntry>>,
    index: HashMap<Identity, usize>,
}

impl EntryMerger {
    /// An empty merger.
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies one entry.
    pub fn push(&mut self, entry: ManifestEntry) -> Result<()> {
        let id = Identity::of(&entry);
        match entry.kind {
            FileKind::Add => {
                if let Some(&i) = self.index.get(&id) {
                    if matches!(self.slots.get(i), Some(Some(e)) if e.kind == FileKind::Add) {
                        return Err(Error::data_invalid(format!(
                            "file {} is added twice (bucket {}, level {})",
                            entry.file.file_name, entry.bucket, entry.file.level
                        )));
                    }
                }
                self.index.insert(id, self.slots.len());
                self.slots.push(Some(entry));
            }
            FileKind::Delete => match self.index.remove(&id) {
                Some(i) => {
                    if let Some(slot) = self.slots.get_mut(i) {
                        *slot = None;
                    }
                }
                None => {
                    // A DELETE of a file added in manifests not read here; nothing to remove.
                }
            },
        }
        Ok(())
    }

    /// The live ADD entries in the order they were added.
    pub fn into_live(self) -> Vec<ManifestEntry> {
        self.slots
            .into_iter()
            .flatten()
            .filter(|e| e.kind == FileKind::Add)
            .collect()
    }
}

/// Merges a whole list of entries.
#[cfg(test)]
pub fn merge_entries(
    entries: impl IntoIterator<Item = ManifestEntry>,
) -> Result<Vec<ManifestEntry>> {
    let mut m = EntryMerger::new();
    for e in entries {
        m.push(e)?;
    }
    Ok(m.into_live())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::manifest::{DataFileMeta, SimpleStats};

    fn entry(kind: FileKind, name: &str, level: i32) -> ManifestEntry {
        let stats = SimpleStats {
            min_values: vec![],
            max_values: vec![],
            null_counts: None,
        };
        ManifestEntry {
            kind,
            partition: vec![0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            bucket: 0,
            total_buckets: 1,
            file: DataFileMeta {
                file_name: name.into(),
                file_size: 1,
                row_count: 1,
                min_key: vec![],
                max_key: vec![],
                key_stats: stats.clone(),
                value_stats: stats,
                min_sequence_number: 0,
                max_sequence_number: 0,
                schema_id: 0,
                level,
                extra_files: vec![],
                creation_time: None,
                delete_row_count: None,
                embedded_index: None,
                file_source: None,
                value_stats_cols: None,
                external_path: None,
                first_row_id: None,
                write_cols: None,
            },
        }
    }

    #[test]
    fn delete_removes_only_the_same_level() {
        let live = merge_entries(vec![
            entry(FileKind::Add, "a", 0),
            entry(FileKind::Add, "b", 0),
            entry(FileKind::Delete, "a", 0),
            // The same name moved to level 5 (upgrade) is a different identity.
            entry(FileKind::Add, "b", 5),
            entry(FileKind::Delete, "b", 0),
        ])
        .unwrap();
        let names: Vec<_> = live
            .iter()
            .map(|e| (e.file.file_name.as_str(), e.file.level))
            .collect();
        assert_eq!(names, vec![("b", 5)]);
    }

    #[test]
    fn double_add_is_corruption_but_re_add_after_delete_is_fine() {
        assert!(merge_entries(vec![
            entry(FileKind::Add, "a", 0),
            entry(FileKind::Add, "a", 0)
        ])
        .is_err());
        let live = merge_entries(vec![
            entry(FileKind::Add, "a", 0),
            entry(FileKind::Delete, "a", 0),
            entry(FileKind::Add, "a", 0),
        ])
        .unwrap();
        assert_eq!(live.len(), 1);
        assert!(merge_entries(vec![entry(FileKind::Delete, "x", 0)])
            .unwrap()
            .is_empty());
    }
}
