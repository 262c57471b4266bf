//! The files a snapshot (or tag) refers to, by file name: manifest lists, manifests, the index
//! manifest, index files, the statistics file, data files (with their extra files) and changelog
//! files. Names are unique within a table (UUID-based), so sets of names are what expiration and
//! orphan clean-up compare (Java `OrphanFilesClean` also keys by name).
//!
//! Two modes: strict for what must be kept (any failure aborts: never delete without knowing
//! what is used) and tolerant for what may go (a missing file is
//! skipped, an undecodable one is kept and reported).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::io::FileIO;
use crate::scan::entry_merge::EntryMerger;
use crate::scan::manifest_reader::ManifestReader;
use crate::spec::manifest::{FileKind, ManifestEntry};
use crate::spec::snapshot::Snapshot;
use crate::{ErrorKind, Result};

/// File names referenced, by kind.
#[derive(Debug, Default, Clone)]
pub(crate) struct Refs {
    /// Manifest lists, manifests and index manifests (all in `manifest/`).
    pub(crate) manifests: HashSet<String>,
    /// Index files (deletion vectors, global index payloads).
    pub(crate) index_files: HashSet<String>,
    /// Statistics files (`statistics/`).
    pub(crate) statistics: HashSet<String>,
    /// Data and changelog files and their extra files.
    pub(crate) data: HashSet<String>,
    /// Full locations of files kept outside the table directory (`external_path`).
    pub(crate) external: HashSet<String>,
}

impl Refs {
    /// Adds everything in `other`.
    pub(crate) fn extend(&mut self, other: Refs) {
        self.manifests.extend(other.manifests);
        self.index_files.extend(other.index_files);
        self.statistics.extend(other.statistics);
        self.data.extend(other.data);
        self.external.extend(other.external);
    }

    /// Whether a file name is referenced in any kind.
    pub(crate) fn contains_name(&self, name: &str) -> bool {
        self.manifests.contains(name)
            || self.index_files.contains(name)
            || self.statistics.contains(name)
            || self.data.contains(name)
    }

    fn add_data(&mut self, e: &ManifestEntry) {
        self.data.insert(e.file.file_name.clone());
        self.data.extend(e.file.extra_files.iter().cloned());
        if let Some(p) = &e.file.external_path {
            self.external.insert(p.clone());
        }
    }
}

/// A file that could not be read while collecting what may be deleted; it is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    /// The file name (in `manifest/`).
    pub file: String,
    /// Why it could not be read.
    pub reason: String,
}

/// Reads metadata files once per name.
pub(crate) struct Collector {
    reader: ManifestReader,
    tolerant: bool,
    missing_ok: bool,
    manifests: HashMap<String, Arc<Vec<ManifestEntry>>>,
    /// Files that could not be read (tolerant mode only).
    pub(crate) unreadable: Vec<Unreadable>,
}

impl Collector {
    /// Any read or decode failure is an error.
    pub(crate) fn strict(io: FileIO, table_root: &str) -> Self {
        Self::new(io, table_root, false)
    }

    /// Switches between strict and tolerant reading (the manifest cache is kept).
    pub(crate) fn set_tolerant(&mut self, tolerant: bool) {
        self.tolerant = tolerant;
        self.missing_ok = tolerant;
    }

    /// Strict, except that a missing metadata file is skipped (orphan clean-up racing a
    /// concurrent expiration, as Java's `OrphanFilesClean`).
    pub(crate) fn skip_missing(mut self) -> Self {
        self.missing_ok = true;
        self
    }

    fn new(io: FileIO, table_root: &str, tolerant: bool) -> Self {
        Collector {
            reader: ManifestReader::new(io, table_root),
            tolerant,
            missing_ok: tolerant,
            manifests: HashMap::new(),
            unreadable: Vec::new(),
        }
    }

    /// `Ok(None)` for a failure this mode tolerates (recorded when it is not a missing file).
    fn tolerate<T>(&mut self, file: &str, r: Result<T>) -> Result<Option<T>> {
        match r {
            Ok(v) => Ok(Some(v)),
            Err(e) if self.missing_ok && e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) if self.tolerant => {
                if e.kind() != ErrorKind::NotFound {
                    self.unreadable.push(Unreadable {
                        file: file.to_string(),
                        reason: e.to_string(),
                    });
                }
                Ok(None)
            }
            Err(e) => Err(e.with_context("referenced by", "a retained snapshot or tag")),
        }
    }

    /// Manifest names of list `name` (the list itself is added to `refs` only when readable,
    /// so an undecodable list is kept).
    async fn list(&mut self, name: &str, refs: &mut Refs) -> Result<Vec<String>> {
        let r = self.reader.manifest_list(name).await;
        let Some(metas) = self.tolerate(name, r)? else {
            return Ok(vec![]);
        };
        refs.manifests.insert(name.to_string());
        Ok(metas.into_iter().map(|m| m.file_name).collect())
    }

    async fn manifest(&mut self, name: &str, refs: &mut Refs) -> Result<Arc<Vec<ManifestEntry>>> {
        if let Some(m) = self.manifests.get(name) {
            refs.manifests.insert(name.to_string());
            return Ok(m.clone());
        }
        let r = self.reader.manifest(name).await;
        let Some(entries) = self.tolerate(name, r)? else {
            return Ok(Arc::default());
        };
        refs.manifests.insert(name.to_string());
        let entries = Arc::new(entries);
        self.manifests.insert(name.to_string(), entries.clone());
        Ok(entries)
    }

    async fn index_and_statistics(&mut self, s: &Snapshot, refs: &mut Refs) -> Result<()> {
        if let Some(name) = &s.index_manifest {
            let r = self.reader.index_manifest(name).await;
            if let Some(entries) = self.tolerate(name, r)? {
                refs.manifests.insert(name.clone());
                for e in entries.iter().filter(|e| e.kind == FileKind::Add) {
                    refs.index_files.insert(e.file_name.clone());
                    if let Some(p) = &e.external_path {
                        refs.external.insert(p.clone());
                    }
                }
            }
        }
        if let Some(stats) = &s.statistics {
            refs.statistics.insert(stats.clone());
        }
        Ok(())
    }

    /// Files a readable snapshot needs: its metadata and its **live** data files (base and
    /// delta netted), plus its changelog files.
    pub(crate) async fn live(&mut self, s: &Snapshot) -> Result<Refs> {
        let mut refs = Refs::default();
        let mut merger = EntryMerger::new();
        for list in [&s.base_manifest_list, &s.delta_manifest_list] {
            for m in self.list(list, &mut refs).await? {
                for e in self.manifest(&m, &mut refs).await?.iter() {
                    merger.push(e.clone())?;
                }
            }
        }
        for e in merger.into_live() {
            refs.add_data(&e);
        }
        self.changelog(s, &mut refs).await?;
        self.index_and_statistics(s, &mut refs).await?;
        Ok(refs)
    }

    /// Every file a snapshot mentions: metadata and every data file of any entry, added or
    /// deleted (candidates for deletion once no retained snapshot needs them).
    pub(crate) async fn mentioned(&mut self, s: &Snapshot) -> Result<Refs> {
        let mut refs = Refs::default();
        for list in [&s.base_manifest_list, &s.delta_manifest_list] {
            for m in self.list(list, &mut refs).await? {
                for e in self.manifest(&m, &mut refs).await?.iter() {
                    refs.add_data(e);
                }
            }
        }
        self.changelog(s, &mut refs).await?;
        self.index_and_statistics(s, &mut refs).await?;
        Ok(refs)
    }

    async fn changelog(&mut self, s: &Snapshot, refs: &mut Refs) -> Result<()> {
        if let Some(list) = &s.changelog_manifest_list {
            for m in self.list(list, refs).await? {
                for e in self.manifest(&m, refs).await?.iter() {
                    refs.add_data(e);
                }
            }
        }
        Ok(())
    }
}
