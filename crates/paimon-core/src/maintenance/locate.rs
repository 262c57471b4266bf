//! Finding a table's deletable files on storage: everything under `manifest/`, `index/`,
//! `statistics/` and bucket directories (`…/bucket-<n>/`), never snapshot, schema, tag, branch,
//! consumer or changelog metadata, and never a file outside those directories.

use std::collections::HashMap;

use crate::io::{FileIO, ListedFile};
use crate::Result;

/// Directories holding table-wide files that expiration and orphan clean-up may delete.
const FILE_DIRS: &[&str] = &["manifest", "index", "statistics"];

/// Directories never touched.
const PROTECTED_DIRS: &[&str] = &[
    "snapshot",
    "schema",
    "tag",
    "branch",
    "consumer",
    "changelog",
];

/// Files under `table_root` that may be deleted when unreferenced.
pub(crate) async fn deletable_files(io: &FileIO, table_root: &str) -> Result<Vec<ListedFile>> {
    let root = table_root.trim_end_matches('/');
    let all = io.list_files_recursive(root).await?;
    Ok(all
        .into_iter()
        .filter(|f| {
            let Some(rel) = f.location.strip_prefix(root) else {
                return false;
            };
            let parts: Vec<&str> = rel.trim_start_matches('/').split('/').collect();
            match parts.as_slice() {
                [dir, _file] if FILE_DIRS.contains(dir) => true,
                [first, .., parent, _file] => {
                    !PROTECTED_DIRS.contains(first)
                        && !FILE_DIRS.contains(first)
                        && parent.starts_with("bucket-")
                }
                _ => false,
            }
        })
        .collect())
}

/// Locations by file name.
pub(crate) fn by_name(files: &[ListedFile]) -> HashMap<&str, Vec<&ListedFile>> {
    let mut out: HashMap<&str, Vec<&ListedFile>> = HashMap::new();
    for f in files {
        out.entry(f.name.as_str()).or_default().push(f);
    }
    out
}
