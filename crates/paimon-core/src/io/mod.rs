//! Storage access over the `object_store` crate. Knows nothing about Paimon.
//!
//! A [`FileIO`] turns location strings (`/abs/path`, `file:/abs/path`, `FILE:/abs/path`,
//! `s3://bucket/key`, `gs://…`, `az://…`) into reads against the right store. Local disk is
//! always available; S3, GCS and Azure are behind the cargo features `s3`, `gcs`, `azure` and
//! are configured from options (`s3.endpoint`, `s3.access-key`, `s3.secret-key`, `s3.region`,
//! …) and the usual environment variables. Small reads of local files are made on the calling
//! task, without the store's hand-off to a blocking thread (`local`). Large outputs are written
//! in parts through a [`FileSink`].

mod file_io;
mod local;
pub(crate) mod scratch;
mod sink;
mod storage;

pub use file_io::{join, FileIO, FileStatus, ListedFile, ReadStats};
pub use sink::FileSink;
pub use storage::is_local_location;
