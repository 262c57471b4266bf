//! Everything besides a branch's retained snapshots that keeps files alive: tags of every branch,
//! the snapshots of other branches (they share data and manifests with `main`), and consumers
//! (streaming readers' next snapshots). Reading any of them fails closed: when a tag or branch
//! cannot be read, nothing is deleted (Java skips deletion on a tag read failure, pitfall
//! #5229/#5237; paimon-rust's `external_owners` also protects branches).

use serde::Deserialize;

use super::references::{Collector, Refs};
use crate::catalog::SnapshotManager;
use crate::io::{join, FileIO};
use crate::{Error, ErrorKind, Result};

/// Branch names under `<table>/branch/branch-<name>`.
pub(crate) async fn branch_names(io: &FileIO, table_root: &str) -> Result<Vec<String>> {
    let names = io.list_names(&join(table_root, "branch")).await?;
    Ok(names
        .into_iter()
        .filter_map(|n| n.strip_prefix("branch-").map(str::to_string))
        .filter(|n| !n.is_empty())
        .collect())
}

/// Files of the tags of `sm`'s branch.
async fn tags(sm: &SnapshotManager, c: &mut Collector) -> Result<Refs> {
    let mut refs = Refs::default();
    for name in sm.tag_names().await? {
        let tag = sm.tag(&name).await?;
        refs.extend(c.live(&tag.snapshot).await?);
    }
    Ok(refs)
}

/// Files of every tag of `main`, and every snapshot and tag of every other branch.
pub(crate) async fn tags_and_branches(
    io: &FileIO,
    table_root: &str,
    c: &mut Collector,
) -> Result<Refs> {
    let main = SnapshotManager::new(io.clone(), table_root, None);
    let mut refs = tags(&main, c).await?;
    for b in branch_names(io, table_root).await? {
        let sm = SnapshotManager::new(io.clone(), table_root, Some(&b));
        for s in sm.snapshots().await? {
            refs.extend(c.live(&s).await?);
        }
        refs.extend(tags(&sm, c).await?);
    }
    Ok(refs)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Consumer {
    next_snapshot: i64,
}

/// The smallest `nextSnapshot` of the consumers of the branch at `meta_root` (Java
/// `ConsumerManager#minNextSnapshot`); expiration keeps it and everything after.
pub(crate) async fn min_consumer_snapshot(io: &FileIO, meta_root: &str) -> Result<Option<i64>> {
    let dir = join(meta_root, "consumer");
    let mut min: Option<i64> = None;
    for name in io.list_names(&dir).await? {
        if !name.starts_with("consumer-") {
            continue;
        }
        let path = join(&dir, &name);
        let bytes = match io.read(&path).await {
            Ok(b) => b,
            Err(e) if e.kind() == ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        let c: Consumer = serde_json::from_slice(&bytes).map_err(|e| {
            Error::data_invalid(format!("invalid consumer JSON: {e}")).with_context("file", path)
        })?;
        min = Some(min.map_or(c.next_snapshot, |m| m.min(c.next_snapshot)));
    }
    Ok(min)
}
