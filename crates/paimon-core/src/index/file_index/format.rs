//! The file-index container (Java `FileIndexFormat`, `shared/spec/file-index.md` §2): a
//! big-endian head mapping (column, index type) to absolute payload offsets and lengths, then
//! the payloads.

use crate::index::modified_utf8::read_utf;
use crate::spec::bytes::ByteReader;
use crate::{Error, Result};

/// `FileIndexFormat.MAGIC`.
pub const MAGIC: i64 = 1_493_475_289_347_502;
/// The only container version.
pub const VERSION: i32 = 1;

/// One (column, index type) entry of the head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexEntry {
    /// Column name at write time (`m[k]` for a map key).
    pub column: String,
    /// Index type name (`bloom-filter`, `bitmap`, `bsi`, `range-bitmap`, or unknown).
    pub index_type: String,
    /// Absolute start of the payload, or -1 for an empty index.
    pub start: i32,
    /// Payload length.
    pub length: i32,
}

/// A decoded container over borrowed bytes.
#[derive(Debug, Clone)]
pub struct FileIndexContainer<'a> {
    bytes: &'a [u8],
    entries: Vec<IndexEntry>,
}

/// A payload of one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Payload<'a> {
    /// `start = -1`: the writer saw no rows (Java `EmptyFileIndexReader`).
    Empty,
    /// The payload bytes.
    Bytes(&'a [u8]),
}

impl<'a> FileIndexContainer<'a> {
    /// Decodes the head of `bytes` (the whole container); payload bounds are checked here.
    pub fn decode(bytes: &'a [u8]) -> Result<Self> {
        let mut r = ByteReader::new(bytes, "file index");
        let magic = r.i64_be()?;
        if magic != MAGIC {
            return Err(Error::data_invalid("file index: magic mismatch")
                .with_context("expected", format!("{MAGIC:#x}"))
                .with_context("found", format!("{magic:#x}")));
        }
        let version = r.i32_be()?;
        if version != VERSION {
            return Err(r.invalid(format!("unsupported version {version}")));
        }
        let head_len = r.i32_be()?;
        let head_len = usize::try_from(head_len)
            .ok()
            .filter(|&h| h >= 16 && h <= bytes.len())
            .ok_or_else(|| r.invalid(format!("head length {head_len} out of range")))?;
        let head = bytes.get(..head_len).ok_or_else(|| r.truncated(head_len))?;
        let mut r = ByteReader::new(head, "file index head");
        r.seek(16)?;
        let columns = r.i32_be()?;
        let mut entries = Vec::new();
        for _ in 0..columns.max(0) {
            let column = read_utf(&mut r)?;
            let n = r.i32_be()?;
            for _ in 0..n.max(0) {
                let index_type = read_utf(&mut r)?;
                let (start, length) = (r.i32_be()?, r.i32_be()?);
                let e = IndexEntry {
                    column: column.clone(),
                    index_type,
                    start,
                    length,
                };
                check_bounds(&e, head_len, bytes.len())?;
                entries.push(e);
            }
        }
        Ok(FileIndexContainer { bytes, entries })
    }

    /// Every entry, in head order.
    pub fn entries(&self) -> &[IndexEntry] {
        &self.entries
    }

    /// The entries of `column`.
    pub fn column(&self, column: &str) -> impl Iterator<Item = &IndexEntry> + '_ {
        let column = column.to_string();
        self.entries.iter().filter(move |e| e.column == column)
    }

    /// The payload of `entry` (bounds were checked when decoding).
    pub fn payload(&self, entry: &IndexEntry) -> Result<Payload<'a>> {
        if entry.start == -1 {
            return Ok(Payload::Empty);
        }
        let (s, l) = (entry.start as usize, entry.length as usize);
        self.bytes
            .get(s..s.saturating_add(l))
            .map(Payload::Bytes)
            .ok_or_else(|| Error::internal("file index payload out of bounds after check"))
    }
}

fn check_bounds(e: &IndexEntry, head_len: usize, total: usize) -> Result<()> {
    if e.start == -1 {
        return Ok(());
    }
    let ok = match (usize::try_from(e.start), usize::try_from(e.length)) {
        (Ok(s), Ok(l)) => s >= head_len && s.checked_add(l).is_some_and(|end| end <= total),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(Error::data_invalid("file index: payload out of bounds")
            .with_context("column", e.column.clone())
            .with_context("index type", e.index_type.clone())
            .with_context("start", e.start.to_string())
            .with_context("length", e.length.to_string())
            .with_context("size", total.to_string()))
    }
}
