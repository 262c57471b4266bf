//! Local scratch space of external sorts and write spills: a private directory created under
//! a chosen parent (the system temp dir by default) when first needed, removed when its
//! `TempDir` is dropped; local-file errors name the path.

use std::path::Path;

use crate::{Error, Result};

/// `e` naming the local file or directory `path`.
pub(crate) fn path_error(e: impl Into<Error>, path: &Path) -> Error {
    e.into().with_context("file", path.display().to_string())
}

/// A new private directory named `<prefix>…` under `parent` (`None`: the system temp dir).
pub(crate) fn scratch_dir(parent: Option<&Path>, prefix: &str) -> Result<tempfile::TempDir> {
    let parent = parent.map_or_else(std::env::temp_dir, Path::to_path_buf);
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(&parent)
        .map_err(|e| path_error(e, &parent))
}
