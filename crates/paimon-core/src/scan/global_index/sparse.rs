//! Lazy payload loading: the sync SST reader over a [`SparseSource`] that holds only the byte
//! ranges fetched so far. A read of a missing range fails and records it; the async driver
//! ([`run_loaded`]) fetches the recorded ranges through `FileIO` and retries, so a point lookup
//! reads the file's tail (footer, index block, null bitmap) and the data blocks it needs, not
//! the whole payload. After [`MAX_ROUNDS`] rounds the whole file is fetched.

use std::ops::Range;
use std::sync::{Arc, Mutex};

use bytes::Bytes;

use crate::index::sst::PayloadSource;
use crate::io::FileIO;
use crate::{Error, Result};

/// Bytes of the file's tail fetched first (footer, index block, null bitmap in most payloads).
const TAIL_BYTES: u64 = 64 << 10;

/// Fetch rounds before the whole file is read.
const MAX_ROUNDS: usize = 4;

/// Loaded ranges of one payload file and the ranges reads missed.
#[derive(Debug, Default)]
struct State {
    loaded: Vec<(u64, Bytes)>,
    missing: Vec<Range<u64>>,
}

/// A [`PayloadSource`] over the ranges fetched so far.
#[derive(Debug)]
pub(crate) struct SparseSource {
    len: u64,
    state: Mutex<State>,
}

impl SparseSource {
    fn new(len: u64) -> Self {
        SparseSource {
            len,
            state: Mutex::new(State::default()),
        }
    }

    fn add(&self, offset: u64, bytes: Bytes) {
        if let Ok(mut s) = self.state.lock() {
            s.loaded.push((offset, bytes));
        }
    }

    fn take_missing(&self) -> Vec<Range<u64>> {
        self.state
            .lock()
            .map(|mut s| std::mem::take(&mut s.missing))
            .unwrap_or_default()
    }
}

impl PayloadSource for SparseSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read(&self, offset: u64, len: usize) -> Result<Bytes> {
        let end = offset.saturating_add(len as u64);
        let mut s = self
            .state
            .lock()
            .map_err(|_| Error::internal("payload source lock poisoned"))?;
        for (start, bytes) in &s.loaded {
            let stop = start + bytes.len() as u64;
            if *start <= offset && end <= stop {
                let a = (offset - start) as usize;
                return Ok(bytes.slice(a..a + len));
            }
        }
        s.missing.push(offset..end);
        Err(Error::data_invalid("payload range not loaded yet")
            .with_context("offset", offset.to_string()))
    }
}

/// Runs `f` over a lazily loaded payload at `path` of `len` bytes: fetches the tail, then the
/// ranges `f` missed, retrying; the whole file after [`MAX_ROUNDS`] rounds.
pub(crate) async fn run_loaded<T>(
    io: &FileIO,
    path: &str,
    len: u64,
    source: &mut Option<Arc<SparseSource>>,
    mut f: impl FnMut(Arc<SparseSource>) -> Result<T>,
) -> Result<T> {
    let src = match source {
        Some(s) => s.clone(),
        None => {
            let s = Arc::new(SparseSource::new(len));
            let start = len.saturating_sub(TAIL_BYTES);
            s.add(start, io.read_range(path, start..len).await?);
            *source = Some(s.clone());
            s
        }
    };
    for _ in 0..MAX_ROUNDS {
        match f(src.clone()) {
            Ok(v) => return Ok(v),
            Err(e) => {
                let missing = src.take_missing();
                if missing.is_empty() {
                    return Err(e);
                }
                let got = io.read_ranges(path, &missing).await?;
                for (r, b) in missing.into_iter().zip(got) {
                    src.add(r.start, b);
                }
            }
        }
    }
    src.take_missing();
    src.add(0, io.read(path).await?);
    f(src)
}
