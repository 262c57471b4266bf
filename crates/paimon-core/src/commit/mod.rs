//! Committing: from new and removed files to a new snapshot (Java
//! `org.apache.paimon.operation.FileStoreCommitImpl`). The first piece of the writer's commit
//! path: manifest-list rows of new manifests (`manifest_meta`) and [`TableCommit`].

pub(crate) mod manifest_meta;
mod table_commit;

pub use table_commit::{CommitChanges, TableCommit, BATCH_COMMIT_IDENTIFIER};
