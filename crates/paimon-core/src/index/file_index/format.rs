//! The file-index container (Java `FileIndexFormat`, `shared/spec/file-index.md` §2): a
//! big-endian head mapping (column, index type) to absolute payload offsets and lengths, then
//! the payloads. [`encode`] writes one (Java `FileIndexFormat.Writer`).

use crate::index::modified_utf8::{read_utf, write_utf};
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

/// A decoded container: the head's entries, and either the whole container (borrowed) or the
/// payloads a caller fetched by range ([`FileIndexContainer::decode_head`] +
/// [`FileIndexContainer::add_payload`]).
#[derive(Debug, Clone)]
pub struct FileIndexContainer<'a> {
    entries: Vec<IndexEntry>,
    data: Data<'a>,
}

#[derive(Debug, Clone)]
enum Data<'a> {
    Whole(&'a [u8]),
    /// (start, bytes) of the payloads loaded so far.
    Parts(Vec<(i32, Vec<u8>)>),
}

/// A payload of one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Payload<'a> {
    /// `start = -1`: the writer saw no rows (Java `EmptyFileIndexReader`).
    Empty,
    /// The payload bytes.
    Bytes(&'a [u8]),
}

/// The head length of a container from its first 16 bytes (magic and version checked).
pub fn head_length(prefix: &[u8]) -> Result<usize> {
    let mut r = ByteReader::new(prefix, "file index");
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
    usize::try_from(head_len)
        .ok()
        .filter(|&h| h >= 16)
        .ok_or_else(|| r.invalid(format!("head length {head_len} out of range")))
}

impl<'a> FileIndexContainer<'a> {
    /// Decodes the head of `bytes` (the whole container); payload bounds are checked here.
    pub fn decode(bytes: &'a [u8]) -> Result<Self> {
        Ok(FileIndexContainer {
            entries: parse_head(bytes, bytes.len() as u64)?,
            data: Data::Whole(bytes),
        })
    }

    /// Every entry, in head order.
    pub fn entries(&self) -> &[IndexEntry] {
        &self.entries
    }

    /// The entries of `column`.
    pub fn column<'s>(&'s self, column: &'s str) -> impl Iterator<Item = &'s IndexEntry> + 's {
        self.entries.iter().filter(move |e| e.column == column)
    }

    /// The payload of `entry` (bounds were checked when decoding); an error when it was not
    /// loaded.
    pub fn payload(&self, entry: &IndexEntry) -> Result<Payload<'_>> {
        if entry.start == -1 {
            return Ok(Payload::Empty);
        }
        let found = match &self.data {
            Data::Whole(bytes) => {
                let (s, l) = (entry.start as usize, entry.length as usize);
                bytes.get(s..s.saturating_add(l))
            }
            Data::Parts(parts) => parts
                .iter()
                .find(|(start, b)| *start == entry.start && b.len() == entry.length as usize)
                .map(|(_, b)| b.as_slice()),
        };
        found.map(Payload::Bytes).ok_or_else(|| {
            Error::data_invalid("file index payload not available")
                .with_context("column", entry.column.clone())
                .with_context("index type", entry.index_type.clone())
        })
    }
}

impl FileIndexContainer<'static> {
    /// Decodes only the head: `head` holds at least the first [`head_length`] bytes of a
    /// container of `total` bytes (`u64::MAX` when unknown: payload bounds are then checked
    /// by the ranged reads). Payloads are added with [`add_payload`](Self::add_payload).
    pub fn decode_head(head: &[u8], total: u64) -> Result<Self> {
        Ok(FileIndexContainer {
            entries: parse_head(head, total)?,
            data: Data::Parts(Vec::new()),
        })
    }

    /// Adds the payload bytes that start at absolute offset `start`.
    pub fn add_payload(&mut self, start: i32, bytes: Vec<u8>) {
        if let Data::Parts(parts) = &mut self.data {
            parts.push((start, bytes));
        }
    }
}

/// One column's payloads for [`encode`]: (column name, [(index type name, payload)]).
pub type ColumnPayloads<'a> = (&'a str, Vec<(&'a str, &'a [u8])>);

/// Writes a container of `columns`, in the given order (Java writes its `HashMap` order; see
/// [`super::writer`]): the head with absolute payload offsets, then the payloads in head order.
pub fn encode(columns: &[ColumnPayloads<'_>]) -> Result<Vec<u8>> {
    let mut names = Vec::new();
    let mut entries = 0usize;
    for (column, types) in columns {
        write_utf(&mut names, column)?;
        for (t, _) in types {
            write_utf(&mut names, t)?;
            entries += 1;
        }
    }
    let head_len = 8 + 4 + 4 + 4 + 8 * entries + 4 * columns.len() + 4 + names.len();
    let to_i32 = |n: usize| {
        i32::try_from(n).map_err(|_| Error::invalid_argument("file index larger than 2 GiB"))
    };
    let mut out = Vec::with_capacity(head_len);
    out.extend_from_slice(&MAGIC.to_be_bytes());
    out.extend_from_slice(&VERSION.to_be_bytes());
    out.extend_from_slice(&to_i32(head_len)?.to_be_bytes());
    out.extend_from_slice(&to_i32(columns.len())?.to_be_bytes());
    let mut start = head_len;
    for (column, types) in columns {
        write_utf(&mut out, column)?;
        out.extend_from_slice(&to_i32(types.len())?.to_be_bytes());
        for (t, payload) in types {
            write_utf(&mut out, t)?;
            out.extend_from_slice(&to_i32(start)?.to_be_bytes());
            out.extend_from_slice(&to_i32(payload.len())?.to_be_bytes());
            start += payload.len();
        }
    }
    out.extend_from_slice(&0i32.to_be_bytes()); // redundant length
    for (_, types) in columns {
        types.iter().for_each(|(_, p)| out.extend_from_slice(p));
    }
    Ok(out)
}

/// Parses the head from `bytes` (at least the head) of a container of `total` bytes.
fn parse_head(bytes: &[u8], total: u64) -> Result<Vec<IndexEntry>> {
    let head_len = head_length(bytes)?;
    if head_len as u64 > total {
        return Err(Error::data_invalid(format!(
            "file index: head length {head_len} beyond size {total}"
        )));
    }
    let head = bytes.get(..head_len).ok_or_else(|| {
        Error::data_invalid("file index head truncated")
            .with_context("needed", head_len.to_string())
            .with_context("available", bytes.len().to_string())
    })?;
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
            check_bounds(&e, head_len, total)?;
            entries.push(e);
        }
    }
    Ok(entries)
}

fn check_bounds(e: &IndexEntry, head_len: usize, total: u64) -> Result<()> {
    if e.start == -1 {
        return Ok(());
    }
    let ok = match (u64::try_from(e.start), u64::try_from(e.length)) {
        (Ok(s), Ok(l)) => s >= head_len as u64 && s.checked_add(l).is_some_and(|end| end <= total),
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
