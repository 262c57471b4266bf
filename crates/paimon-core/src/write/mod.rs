//! Writing: Arrow record batches → data files → [`CommitMessage`](crate::commit::CommitMessage)s
//! for the committer (Java `org.apache.paimon.table.sink` and `org.apache.paimon.operation`
//! writes, Paimon 2.0).
//!
//! `table.new_write()` ([`WriteBuilder`]) → [`TableWrite`]: `write` checks each batch against
//! the table (`conform`), routes its rows to (partition, bucket) writers (`route`), and each
//! writer turns rows into rolling Parquet, ORC or Avro files (`file_writer`, `parquet`, `orc`, `avro`) with Java's names,
//! statistics (`stats`), data-file indexes (`file_index`: `file-index.*` bitmap and bloom-filter
//! columns, embedded or `<file>.index`) and `DataFileMeta`. Append tables write rows in arrival order with one
//! sequence number per row; primary-key tables buffer, sort and deduplicate per bucket
//! (`kv_writer`, sort and merge `kv_merge`, spilled runs `spill`, file layout `kv_layout`) and
//! continue the bucket's sequence numbers (`restore`). Dynamic-bucket tables (`bucket = -1`
//! with a primary key) choose each key's bucket from the table's `HASH` index and write that
//! index back (`dynamic_bucket`); cross-partition tables (a key without every partition
//! field) route by a key index bootstrapped from the table and retract moved keys
//! (`cross_partition`); postpone-bucket tables (`bucket = -2`) write unsorted rows to
//! `bucket-postpone` (`postpone`). `prepare_commit` closes the files; `table.new_commit().commit_messages(..)`
//! publishes them.
//!
//! ```no_run
//! # async fn demo(batch: arrow_array::RecordBatch) -> paimon_core::Result<()> {
//! let table = paimon_core::Table::open("/warehouse/demo.db/orders").await?;
//! let mut write = table.new_write().build()?;
//! write.write(&batch).await?;
//! let messages = write.prepare_commit().await?;
//! table.new_commit().commit_messages(&messages, write.commit_user()).await?;
//! # Ok(())
//! # }
//! ```

mod avro;
mod builder;
mod byte_bounds;
mod chunks;
mod conform;
mod cross_partition;
pub(crate) mod datum;
mod dynamic_bucket;
pub(crate) mod file_index;
pub(crate) mod file_writer;
pub(crate) mod key_hash;
pub(crate) mod kv_layout;
mod kv_merge;
mod kv_writer;
mod orc;
mod parallel_flush;
mod parquet;
mod parquet_dictionary;
mod parquet_int96;
mod parquet_levels;
mod parquet_twin;
mod postpone;
mod radix;
mod restore;
pub(crate) mod route;
mod route_ahead;
mod row_kind;
mod spill;
mod stats;
mod support;
mod table_write;

pub use builder::WriteBuilder;
pub use file_index::file_index_container;
pub use row_kind::RowKind;
pub use table_write::TableWrite;
