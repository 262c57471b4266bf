//! [`FileSink`]: a file written in parts as it is produced, for outputs too large to hold
//! whole (data files, `pk-btree` payloads). Up to [`FileSink::PART`] bytes it is one ordinary
//! write when finished; beyond, a multipart upload of the store (on local disk
//! object_store's staging file, renamed into place when finished), in parts of exactly
//! [`FileSink::PART`] bytes but the last (zero-copy slices of the written buffers), at most
//! two uploading at once. Nothing is visible at the location before [`FileSink::finish`]. A
//! failed part, a failed completion and [`FileSink::abort`] abort the upload, its parts
//! removed where the store allows, before returning; dropping the sink gives it up too, but
//! leaves the removal of uploaded parts to the store (object_store's local store removes its
//! staging file in the background, S3 keeps them until the bucket's lifecycle rules do).

use std::collections::VecDeque;
use std::sync::Arc;

use bytes::Bytes;
use object_store::path::Path;
use object_store::{MultipartUpload, ObjectStore, ObjectStoreExt, PutPayload};
use tokio::task::JoinSet;

use super::file_io::with_file;
use super::FileIO;
use crate::Result;

/// A file written in parts (see the [module docs](self)).
pub struct FileSink {
    store: Arc<dyn ObjectStore>,
    path: Path,
    location: String,
    /// Bytes not uploaded yet, in order.
    pending: VecDeque<Bytes>,
    pending_len: usize,
    /// Bytes written so far.
    len: u64,
    upload: Option<Upload>,
}

/// A started multipart upload and its parts in flight.
struct Upload {
    upload: Box<dyn MultipartUpload>,
    parts: JoinSet<object_store::Result<()>>,
}

impl Upload {
    /// Starts uploading `part` once fewer than `in_flight` parts are uploading (outside a
    /// Tokio runtime, parts are uploaded one at a time).
    async fn put(&mut self, part: PutPayload, in_flight: usize) -> object_store::Result<()> {
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                self.wait(in_flight.saturating_sub(1)).await?;
                self.parts.spawn_on(self.upload.put_part(part), &runtime);
                Ok(())
            }
            Err(_) => self.upload.put_part(part).await,
        }
    }

    /// Waits until at most `in_flight` parts are uploading; the first failed part's error.
    async fn wait(&mut self, in_flight: usize) -> object_store::Result<()> {
        while self.parts.len() > in_flight {
            match self.parts.join_next().await {
                Some(Ok(done)) => done?,
                Some(Err(e)) => {
                    return Err(object_store::Error::JoinError { source: e });
                }
                None => break,
            }
        }
        Ok(())
    }

    /// Stops the parts in flight and aborts the upload (its parts removed where the store
    /// allows). Best effort: the caller reports the error that made it give up.
    async fn abort(mut self) {
        self.parts.shutdown().await;
        let _ = self.upload.abort().await;
    }
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
            pending: VecDeque::new(),
            pending_len: 0,
            len: 0,
            upload: None,
        })
    }
}

impl FileSink {
    /// Bytes held before a multipart upload starts, and the size of every part but the last
    /// (S3 needs at least 5 MiB, some stores equal sizes).
    pub const PART: usize = 8 << 20;

    /// Parts uploading at once.
    const IN_FLIGHT: usize = 2;

    /// Appends `bytes`.
    pub async fn write(&mut self, bytes: impl Into<Bytes>) -> Result<()> {
        let bytes = bytes.into();
        if bytes.is_empty() {
            return Ok(());
        }
        self.pending_len += bytes.len();
        self.len += bytes.len() as u64;
        self.pending.push_back(bytes);
        while self.pending_len >= Self::PART {
            let part = self.take_part(Self::PART);
            if let Err(e) = self.put(part).await {
                return Err(self.give_up(e).await);
            }
        }
        Ok(())
    }

    /// Bytes written so far: the file's size once finished.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether nothing was written yet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first `len` pending bytes (zero-copy slices of the written buffers).
    fn take_part(&mut self, len: usize) -> PutPayload {
        let mut part = Vec::new();
        let mut left = len;
        while left > 0 {
            let Some(mut b) = self.pending.pop_front() else {
                break;
            };
            if b.len() > left {
                self.pending.push_front(b.split_off(left));
            }
            left -= b.len();
            part.push(b);
        }
        self.pending_len -= len - left;
        PutPayload::from_iter(part)
    }

    /// Uploads `part`, starting the upload first if needed.
    async fn put(&mut self, part: PutPayload) -> object_store::Result<()> {
        let upload = match &mut self.upload {
            Some(u) => u,
            None => {
                let upload = self.store.put_multipart(&self.path).await?;
                self.upload.insert(Upload {
                    upload,
                    parts: JoinSet::new(),
                })
            }
        };
        upload.put(part, Self::IN_FLIGHT).await
    }

    /// Aborts a started upload after `e`; returns `e` naming the file.
    async fn give_up(&mut self, e: object_store::Error) -> crate::Error {
        if let Some(upload) = self.upload.take() {
            upload.abort().await;
        }
        with_file(e, &self.location)
    }

    /// Writes what is pending and completes the file.
    pub async fn finish(mut self) -> Result<()> {
        if self.upload.is_none() {
            let payload = PutPayload::from_iter(self.pending.drain(..));
            self.store
                .put(&self.path, payload)
                .await
                .map_err(|e| with_file(e, &self.location))?;
            return Ok(());
        }
        match self.complete_upload().await {
            Ok(()) => Ok(()),
            Err(e) => Err(self.give_up(e).await),
        }
    }

    /// Uploads what is pending as the last part, waits for every part and completes the
    /// started upload.
    async fn complete_upload(&mut self) -> object_store::Result<()> {
        if self.pending_len > 0 {
            let part = self.take_part(self.pending_len);
            self.put(part).await?;
        }
        if let Some(u) = &mut self.upload {
            u.wait(0).await?;
            u.upload.complete().await?;
        }
        Ok(())
    }

    /// Gives up the file: a started upload is aborted (its parts removed where the store
    /// allows), nothing is written at the location.
    pub async fn abort(mut self) {
        if let Some(upload) = self.upload.take() {
            upload.abort().await;
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

    #[test]
    fn large_files_are_written_outside_a_runtime() {
        let dir = tempfile::tempdir().unwrap();
        let io = FileIO::new(Default::default());
        let location = format!("{}/plain", dir.path().display());
        let want: Vec<u8> = (0..20 << 20).map(|i: u32| (i % 251) as u8).collect();
        futures::executor::block_on(async {
            let mut sink = io.sink(&location).unwrap();
            for part in want.chunks(3 << 20) {
                sink.write(part.to_vec()).await.unwrap();
            }
            sink.finish().await.unwrap();
        });
        assert_eq!(std::fs::read(&location).unwrap(), want);
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
