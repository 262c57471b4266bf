//! Committing: from new and removed files to a new snapshot (Java
//! `org.apache.paimon.operation.FileStoreCommitImpl`): writers' messages to manifest entries
//! (`changes`), the attempt and its retry loop (`attempt`, [`TableCommit`]), manifest merging
//! (`merge`), conflict detection (`conflict`), overwrite scopes (`overwrite`), the index state
//! (`index_merge`), metadata files (`writer`, `manifest_meta`).

mod attempt;
mod changes;
mod conflict;
mod conflict_dv;
mod index_build;
pub(crate) mod index_merge;
pub(crate) mod manifest_meta;
mod merge;
mod message;
mod overwrite;
mod table_commit;
#[cfg(test)]
pub(crate) mod test_support;
mod writer;

pub use index_build::{build_pk_btree_index, IndexBuildReport};
pub(crate) use index_build::{previous_index, written_ordinals, PayloadBuilder};
pub use message::CommitMessage;
pub use overwrite::OverwriteScope;
pub use table_commit::{CommitChanges, TableCommit, BATCH_COMMIT_IDENTIFIER};
