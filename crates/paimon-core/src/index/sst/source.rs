//! Where payload bytes come from: the caller's ranged reads (no I/O in this module).

use bytes::Bytes;

use crate::{Error, Result};

/// Ranged reads over one payload file, supplied by the caller (whole bytes in memory, or a
/// blocking wrapper over ranged storage reads). Readers ask only for ranges inside `len()`.
pub trait PayloadSource: Send + Sync {
    /// Length of the whole file in bytes.
    fn len(&self) -> u64;
    /// Whether the file is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The `len` bytes at `offset`; fewer bytes than asked for is an error of the caller's
    /// choosing (readers re-check the length).
    fn read(&self, offset: u64, len: usize) -> Result<Bytes>;
}

impl PayloadSource for Bytes {
    fn len(&self) -> u64 {
        Bytes::len(self) as u64
    }

    fn read(&self, offset: u64, len: usize) -> Result<Bytes> {
        let start = usize::try_from(offset).ok();
        let end = start.and_then(|s| s.checked_add(len));
        match (start, end) {
            (Some(s), Some(e)) if e <= Bytes::len(self) => Ok(self.slice(s..e)),
            _ => Err(Error::data_invalid("read past the end of the payload")
                .with_context("offset", offset.to_string())
                .with_context("needed", len.to_string())
                .with_context("length", Bytes::len(self).to_string())),
        }
    }
}
