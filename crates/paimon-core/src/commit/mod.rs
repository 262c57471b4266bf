//! Committing: from new and removed files to a new snapshot (Java
//! `org.apache.paimon.operation.FileStoreCommitImpl`). The first piece of the writer's commit
//! path: manifest-list rows of new manifests (`manifest_meta`) and [`TableCommit`].

mod index_build;
pub(crate) mod manifest_meta;
mod message;
mod table_commit;

pub use index_build::{build_pk_btree_index, IndexBuildReport};
pub use message::CommitMessage;
pub use table_commit::{CommitChanges, TableCommit, BATCH_COMMIT_IDENTIFIER};
