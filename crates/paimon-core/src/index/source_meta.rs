//! `_SOURCE_META` v1: the ordered data files a source-backed primary-key index payload covers.
//!
//! Mirrors Java `org.apache.paimon.index.pk.PrimaryKeyIndexSourceMeta` (`serialize` /
//! `deserialize`) and `PrimaryKeyIndexSourceFile`. Big-endian (`DataOutputSerializer`):
//!
//! | bytes | field |
//! |-------|-------|
//! | 4 | `i32` version, must be 1 |
//! | 4 | `i32` data level, > 0 |
//! | 4 | `i32` source file count, > 0 |
//! | per file | `writeUTF(fileName)` (`u16` length + modified UTF-8), `i64` row count ≥ 0 |
//!
//! No trailing bytes. A payload's group ordinals number the rows of these files in list order.

use crate::index::modified_utf8;
use crate::spec::bytes::ByteReader;
use crate::{Error, Result};

/// The only `_SOURCE_META` version.
pub const SOURCE_META_VERSION: i32 = 1;
/// Smallest encoding of one source file: a 2-byte name length and an 8-byte row count.
const MIN_FILE_BYTES: usize = 2 + 8;

/// One source data file of a payload (`PrimaryKeyIndexSourceFile`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SourceFile {
    /// Data file name, as in the manifest's `_FILE_NAME`.
    pub file_name: String,
    /// Physical rows of the file (before deletion vectors).
    pub row_count: i64,
}

impl SourceFile {
    /// A source file entry.
    pub fn new(file_name: impl Into<String>, row_count: i64) -> Self {
        SourceFile {
            file_name: file_name.into(),
            row_count,
        }
    }
}

/// Decoded `_SOURCE_META` (`PrimaryKeyIndexSourceMeta`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceMeta {
    data_level: i32,
    files: Vec<SourceFile>,
}

impl SourceMeta {
    /// Source metadata for `files` at `data_level`. As Java's constructor: the level must be
    /// positive and the list non-empty; row counts must not be negative.
    pub fn new(data_level: i32, files: Vec<SourceFile>) -> Result<Self> {
        if data_level <= 0 {
            return Err(Error::invalid_argument(format!(
                "primary-key index data level must be positive, got {data_level}"
            )));
        }
        if files.is_empty() {
            return Err(Error::invalid_argument(
                "a primary-key index must reference source files",
            ));
        }
        if let Some(f) = files.iter().find(|f| f.row_count < 0) {
            return Err(Error::invalid_argument(format!(
                "source file {} has negative row count {}",
                f.file_name, f.row_count
            )));
        }
        Ok(SourceMeta { data_level, files })
    }

    /// The data level (> 0) every source file is at.
    pub fn data_level(&self) -> i32 {
        self.data_level
    }

    /// Source files in payload order (the order of the group ordinals).
    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }

    /// Σ row counts, or `None` on overflow.
    pub fn total_row_count(&self) -> Option<i64> {
        self.files
            .iter()
            .try_fold(0i64, |acc, f| acc.checked_add(f.row_count))
    }

    /// The v1 bytes. A file name longer than 65535 modified-UTF-8 bytes is an error.
    pub fn encode(&self) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(12 + self.files.len() * 48);
        out.extend_from_slice(&SOURCE_META_VERSION.to_be_bytes());
        out.extend_from_slice(&self.data_level.to_be_bytes());
        let count = i32::try_from(self.files.len())
            .map_err(|_| Error::invalid_argument("too many source files"))?;
        out.extend_from_slice(&count.to_be_bytes());
        for f in &self.files {
            modified_utf8::write_utf(&mut out, &f.file_name)?;
            out.extend_from_slice(&f.row_count.to_be_bytes());
        }
        Ok(out)
    }

    /// Decodes v1 bytes; `file` names the index file in errors. Rejects (as `DataInvalid`) an
    /// unknown version, a level or count ≤ 0, a count the remaining bytes cannot hold (checked
    /// before anything is allocated), truncation, malformed names, negative row counts and
    /// trailing bytes.
    pub fn decode(bytes: &[u8], file: &str) -> Result<Self> {
        Self::decode_inner(bytes).map_err(|e| e.with_context("file", file.to_string()))
    }

    fn decode_inner(bytes: &[u8]) -> Result<Self> {
        let mut r = ByteReader::new(bytes, "_SOURCE_META");
        let version = r.i32_be()?;
        if version != SOURCE_META_VERSION {
            return Err(r
                .invalid("unsupported version")
                .with_context("expected", SOURCE_META_VERSION.to_string())
                .with_context("found", version.to_string()));
        }
        let data_level = r.i32_be()?;
        if data_level <= 0 {
            return Err(r
                .invalid("data level must be positive")
                .with_context("found", data_level.to_string()));
        }
        let count = r.i32_be()?;
        let max = r.remaining() / MIN_FILE_BYTES;
        let count = usize::try_from(count)
            .ok()
            .filter(|c| *c > 0)
            .ok_or_else(|| {
                r.invalid("source file count must be positive")
                    .with_context("found", count.to_string())
            })?;
        if count > max {
            return Err(r
                .invalid(format!(
                    "source file count {count} exceeds the {max} the remaining {} bytes can hold",
                    r.remaining()
                ))
                .with_context("found", count.to_string()));
        }
        let mut files = Vec::with_capacity(count);
        for _ in 0..count {
            let file_name = modified_utf8::read_utf(&mut r)?;
            let row_count = r.i64_be()?;
            if row_count < 0 {
                return Err(r
                    .invalid(format!("negative row count of source file {file_name}"))
                    .with_context("found", row_count.to_string()));
            }
            files.push(SourceFile {
                file_name,
                row_count,
            });
        }
        if !r.is_empty() {
            return Err(r
                .invalid("trailing bytes after the last source file")
                .with_context("remaining", r.remaining().to_string()));
        }
        Ok(SourceMeta { data_level, files })
    }
}

#[cfg(test)]
mod tests;
