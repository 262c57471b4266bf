//! Table maintenance: snapshot expiration ([`ExpireSnapshots`], `Table::expire_snapshots`) and
//! orphan file clean-up ([`RemoveOrphanFiles`], `Table::remove_orphan_files`). Both decide by
//! file name what is referenced and fail safe: a file is deleted only when every snapshot, tag
//! and branch that could use it has been read.

mod expire;
mod locate;
mod orphan;
mod owners;
mod references;

pub use expire::{ExpireReport, ExpireSnapshots};
pub use orphan::{OrphanReport, RemoveOrphanFiles, DEFAULT_ORPHAN_AGE};
pub use references::Unreadable;
