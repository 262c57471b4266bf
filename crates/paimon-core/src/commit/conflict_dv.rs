//! Deletion-vector pairing for conflict detection of bucket-unaware tables with deletion
//! vectors (Java `ConflictDetection#buildBaseEntriesWithDV` / `#buildDeltaEntriesWithDV`):
//! every data-file entry's identifier is extended with the name of its deletion-vector file,
//! so that two commits that both replace the vector of one file conflict (the second one's
//! DELETE of ⟨file, old vector⟩ no longer matches a live entry).

use std::collections::{BTreeSet, HashMap};

use crate::spec::manifest::{FileKind, IndexManifestEntry, ManifestEntry};
use crate::{Error, ErrorKind, Result};

/// An entry and the deletion-vector file its identifier carries.
pub(crate) type WithDv = (ManifestEntry, Option<String>);

fn conflict(msg: String) -> Error {
    Error::new(ErrorKind::Conflict, msg)
}

fn data_files(e: &IndexManifestEntry) -> impl Iterator<Item = &str> {
    e.deletion_vectors
        .iter()
        .flatten()
        .map(|d| d.data_file_name.as_str())
}

/// The base entries with the vector file of each data file in the base index state.
pub(crate) fn base_with_dv(
    base: &[ManifestEntry],
    base_index: &[IndexManifestEntry],
) -> Result<Vec<WithDv>> {
    let mut dv_of: HashMap<&str, &str> = HashMap::new();
    for e in base_index.iter().filter(|e| e.kind != FileKind::Delete) {
        for f in data_files(e) {
            if dv_of.insert(f, &e.file_name).is_some() {
                return Err(conflict(format!(
                    "One file should correspond to only one dv entry: {f}"
                )));
            }
        }
    }
    Ok(base
        .iter()
        .map(|e| {
            let dv = dv_of.get(e.file.file_name.as_str()).map(|s| s.to_string());
            (e.clone(), dv)
        })
        .collect())
}

/// The delta entries with their vector files, plus DELETE/ADD pairs for base files whose
/// vector this commit changes without touching the file itself.
pub(crate) fn delta_with_dv(
    base: &[WithDv],
    delta: &[ManifestEntry],
    delta_index: &[IndexManifestEntry],
) -> Result<Vec<WithDv>> {
    let mut dvs_of: HashMap<&str, Vec<&IndexManifestEntry>> = HashMap::new();
    for e in delta_index {
        for f in data_files(e) {
            dvs_of.entry(f).or_default().push(e);
        }
    }
    let mut untouched: BTreeSet<&str> = dvs_of.keys().copied().collect();
    let mut out = Vec::new();
    for e in delta {
        let name = e.file.file_name.as_str();
        match dvs_of.get(name) {
            Some(dvs) => {
                let [dv] = dvs.as_slice() else {
                    return Err(conflict(format!(
                        "Delta entry only can have one dv file: {name}"
                    )));
                };
                out.push((e.clone(), Some(dv.file_name.clone())));
                untouched.remove(name);
            }
            None => out.push((e.clone(), None)),
        }
    }
    for name in untouched {
        let Some((file, _)) = base
            .iter()
            .find(|(b, _)| b.kind == FileKind::Add && b.file.file_name == name)
        else {
            return Err(conflict(format!(
                "Trying to create deletion vector on file {name} which is not previously added."
            )));
        };
        let deleted = ManifestEntry {
            kind: FileKind::Delete,
            ..file.clone()
        };
        let dvs = dvs_of.get(name).map(Vec::as_slice).unwrap_or_default();
        for d in dvs {
            let entry = match d.kind {
                FileKind::Add => file.clone(),
                FileKind::Delete => deleted.clone(),
            };
            out.push((entry, Some(d.file_name.clone())));
        }
        if let [only] = dvs {
            if only.kind == FileKind::Add {
                // A first vector for the file: its entry without a vector goes.
                out.push((deleted.clone(), None));
            }
        }
    }
    Ok(out)
}
