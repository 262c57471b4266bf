//! [`FileSink`]: a file written in parts as it is produced, for outputs too large to hold
//! whole (a `pk-btree` payload of a large level). Up to [`FileSink::PART`] bytes it is one
//! ordinary write when finished; beyond, a multipart upload of the store (on local disk
//! object_store's staging file, renamed into place when finished), parts uploaded as they
//! fill, at most two at once. Nothing is visible at the location before [`FileSink::finish`];
//! [`FileSink::abort`] gives up the upload and removes its parts (dropping the sink gives it
//! up too, but leaves the removal of uploaded parts to the store: object_store's local store
//! removes its staging file, S3 keeps them until the bucket's lifecycle rules do).

use std::sync::Arc;

use bytes::Bytes;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload, WriteMultipart};

use super::file_io::with_file;
use super::FileIO;
use crate::Result;

/// A file written in parts (see the [module docs](self)).
pub struct FileSink {
    store: Arc<dyn ObjectStore>,
    path: Path,
    location: String,
    pending: Vec<Bytes>,
    pending_len: usize,
    upload: Option<WriteMultipart>,
}

impl std::fmt::Debug for FileSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileSink")
            .field("location", &self.location)
            .field("pending_len", &self.pending_len)
            .field("uploading", &self.upload.is_some())
            .finish()
    }
}

impl FileIO {
    /// A sink writing the file at `location` in parts (replacing any file there when
    /// finished).
    pub fn sink(&self, location: &str) -> Result<FileSink> {
        let (store, path) = self.resolve(location)?;
        Ok(FileSink {
            store,
            path,
            location: location.to_string(),
            pending: Vec::new(),
            pending_len: 0,
            upload: None,
        })
    }
}

impl FileSink {
    /// Bytes held before a multipart upload starts, and the size of its parts (S3 needs at
    /// least 5 MiB but for the last).
    pub const PART: usize = 8 << 20;

    /// Appends `bytes`.
    pub async fn write(&mut self, bytes: Vec<u8>) -> Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        self.pending_len += bytes.len();
        self.pending.push(Bytes::from(bytes));
        if self.pending_len < Self::PART {
            return Ok(());
        }
        let upload = match &mut self.upload {
            Some(u) => u,
            None => {
                let u = self
                    .store
                    .put_multipart(&self.path)
                    .await
                    .map_err(|e| with_file(e, &self.location))?;
                self.upload
                    .insert(WriteMultipart::new_with_chunk_size(u, Self::PART))
            }
        };
        for b in self.pending.drain(..) {
            upload.put(b);
        }
        self.pending_len = 0;
        upload
            .wait_for_capacity(2)
            .await
            .map_err(|e| with_file(e, &self.location))
    }

    /// Writes what is pending and completes the file.
    pub async fn finish(mut self) -> Result<()> {
        let location = std::mem::take(&mut self.location);
        match self.upload.take() {
            Some(mut upload) => {
                for b in self.pending.drain(..) {
                    upload.put(b);
                }
                upload.finish().await.map_err(|e| with_file(e, &location))?;
            }
            None => {
                let payload = PutPayload::from_iter(self.pending.drain(..));
                self.store
                    .put(&self.path, payload)
                    .await
                    .map_err(|e| with_file(e, &location))?;
            }
        }
        Ok(())
    }

    /// Gives up the file: a started upload is aborted (its parts removed where the store
    /// allows), nothing is written at the location.
    pub async fn abort(mut self) {
        if let Some(upload) = self.upload.take() {
            // Best effort: the write already failed, and that error is the one reported.
            let _ = upload.abort().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn small_and_large_files_are_written_whole() {
        let dir = tempfile::tempdir().unwrap();
        let io = FileIO::new(Default::default());
        for (name, parts) in [("small", 3usize), ("large", 40)] {
            let location = format!("{}/{name}", dir.path().display());
            let mut sink = io.sink(&location).unwrap();
            let mut want = Vec::new();
            for i in 0..parts {
                // ~0.5 MiB parts of distinct bytes.
                let part: Vec<u8> = (0..(1 << 19) + i).map(|j| (i * 7 + j) as u8).collect();
                want.extend_from_slice(&part);
                sink.write(part).await.unwrap();
                assert!(
                    !io.exists(&location).await.unwrap(),
                    "visible before finish"
                );
            }
            sink.finish().await.unwrap();
            assert_eq!(io.read(&location).await.unwrap().as_ref(), want.as_slice());
        }
    }

    #[tokio::test]
    async fn an_aborted_sink_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let io = FileIO::new(Default::default());
        let location = format!("{}/gone", dir.path().display());
        let mut sink = io.sink(&location).unwrap();
        for _ in 0..20 {
            sink.write(vec![1u8; 1 << 20]).await.unwrap();
        }
        sink.abort().await;
        assert!(!io.exists(&location).await.unwrap());
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");
    }
}
