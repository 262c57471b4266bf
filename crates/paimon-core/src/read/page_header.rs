//! Parquet page headers, read from a page's first bytes (thrift compact protocol,
//! `parquet.thrift` `PageHeader`): the fields a page-level read dispatches on. The parquet
//! crate decodes headers only inside its own page reader, so the few readers here that look at
//! a page before (or instead of) arrow-rs ([`super::dictionary_skip`], [`super::point_pages`])
//! parse them with this one.
//!
//! Never panics: a header that is truncated, nested too deeply or malformed is `None`, and the
//! callers then leave the page to arrow-rs (which reports what is wrong with it).

use crate::spec::bytes::ByteReader;
use bytes::Bytes;

/// Parquet `PageType` values.
pub(crate) const DATA_PAGE: i32 = 0;
pub(crate) const DICTIONARY_PAGE: i32 = 2;
pub(crate) const DATA_PAGE_V2: i32 = 3;

/// Parquet `Encoding` values used by the page readers here.
pub(crate) const PLAIN: i32 = 0;
pub(crate) const PLAIN_DICTIONARY: i32 = 2;
pub(crate) const RLE: i32 = 3;
pub(crate) const DELTA_BINARY_PACKED: i32 = 5;
pub(crate) const RLE_DICTIONARY: i32 = 8;

/// What a page header says about its page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PageHeader {
    /// `PageType` (`DATA_PAGE`, `DICTIONARY_PAGE`, `DATA_PAGE_V2`, ...).
    pub(crate) page_type: i32,
    /// Size of the page's data after decompression (v2: levels included).
    pub(crate) uncompressed_size: usize,
    /// Size of the page's data as stored (v2: levels included).
    pub(crate) compressed_size: usize,
    /// Bytes of the header itself: the page's data starts right after it.
    pub(crate) header_len: usize,
    /// Values in the page (data pages: levels included, i.e. rows of a flat column).
    pub(crate) num_values: u32,
    /// Encoding of the values.
    pub(crate) encoding: i32,
    /// v1 data pages: encoding of the definition levels.
    pub(crate) def_encoding: i32,
    /// v2 data pages: bytes of definition levels (stored uncompressed before the values).
    pub(crate) def_len: usize,
    /// v2 data pages: bytes of repetition levels (stored first).
    pub(crate) rep_len: usize,
    /// v2 data pages: whether the values are compressed (`true` otherwise).
    pub(crate) is_compressed: bool,
}

impl PageHeader {
    /// The header at the start of `page`; `None` when it cannot be read.
    pub(crate) fn parse(page: &[u8]) -> Option<PageHeader> {
        let mut r = Compact(ByteReader::new(page, "parquet page header"));
        let mut h = PageHeader {
            page_type: -1,
            uncompressed_size: 0,
            compressed_size: 0,
            header_len: 0,
            num_values: 0,
            encoding: -1,
            def_encoding: RLE,
            def_len: 0,
            rep_len: 0,
            is_compressed: true,
        };
        let mut last = 0i16;
        while let Some((id, kind)) = r.field_header(&mut last)? {
            match (id, kind) {
                (1, I32) => h.page_type = r.i32()?,
                (2, I32) => h.uncompressed_size = usize::try_from(r.i32()?).ok()?,
                (3, I32) => h.compressed_size = usize::try_from(r.i32()?).ok()?,
                (5, STRUCT) => r.data_page(&mut h)?,
                (7, STRUCT) => r.dictionary_page(&mut h)?,
                (8, STRUCT) => r.data_page_v2(&mut h)?,
                _ => r.skip(kind, 0)?,
            }
        }
        h.header_len = r.0.position();
        (h.page_type >= 0).then_some(h)
    }

    /// Whether this is a data page (v1 or v2).
    pub(crate) fn is_data_page(&self) -> bool {
        self.page_type == DATA_PAGE || self.page_type == DATA_PAGE_V2
    }

    /// The page's data (what follows the header) in `page` (the page's bytes, header first),
    /// cut where `page` ends: a header claiming more bytes than the page holds gives data that
    /// fails to decompress, never a read out of bounds.
    pub(crate) fn data(&self, page: &Bytes) -> Option<Bytes> {
        let end = self.header_len.checked_add(self.compressed_size)?;
        (self.header_len <= page.len()).then(|| page.slice(self.header_len..end.min(page.len())))
    }

    /// Whether the values are indices into the chunk's dictionary.
    pub(crate) fn needs_dictionary(&self) -> bool {
        self.encoding == PLAIN_DICTIONARY || self.encoding == RLE_DICTIONARY
    }
}

/// Compact-protocol field types.
const BOOL_TRUE: u8 = 1;
const BOOL_FALSE: u8 = 2;
const BYTE: u8 = 3;
const I16: u8 = 4;
const I32: u8 = 5;
const I64: u8 = 6;
const DOUBLE: u8 = 7;
const BINARY: u8 = 8;
const LIST: u8 = 9;
const SET: u8 = 10;
const MAP: u8 = 11;
const STRUCT: u8 = 12;

/// Nesting a header may have (the real ones nest two levels: statistics in a page header).
const MAX_DEPTH: usize = 16;

/// A reader of compact-protocol values.
struct Compact<'a>(ByteReader<'a>);

impl Compact<'_> {
    fn byte(&mut self) -> Option<u8> {
        self.0.u8().ok()
    }

    fn varint(&mut self) -> Option<u64> {
        self.0.varint_u64().ok()
    }

    /// A zigzag varint i32.
    fn i32(&mut self) -> Option<i32> {
        let v = u32::try_from(self.varint()?).ok()?;
        Some((v >> 1) as i32 ^ -((v & 1) as i32))
    }

    /// The next field's (id, type), `Some(None)` at the struct's end, `None` when malformed.
    fn field_header(&mut self, last: &mut i16) -> Option<Option<(i16, u8)>> {
        let b = self.byte()?;
        if b == 0 {
            return Some(None);
        }
        let delta = i16::from(b >> 4);
        let id = match delta {
            0 => i16::try_from(self.i32()?).ok()?,
            d => last.checked_add(d)?,
        };
        *last = id;
        Some(Some((id, b & 0x0f)))
    }

    /// Skips a value of type `kind` (a struct field's value: booleans are in the type).
    fn skip(&mut self, kind: u8, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        match kind {
            BOOL_TRUE | BOOL_FALSE => {}
            BYTE => {
                self.byte()?;
            }
            I16 | I32 | I64 => {
                self.varint()?;
            }
            DOUBLE => {
                self.0.take(8).ok()?;
            }
            BINARY => {
                let n = usize::try_from(self.varint()?).ok()?;
                self.0.take(n).ok()?;
            }
            LIST | SET => {
                let b = self.byte()?;
                let n = match b >> 4 {
                    15 => self.varint()?,
                    n => u64::from(n),
                };
                for _ in 0..n {
                    self.element(b & 0x0f, depth)?;
                }
            }
            MAP => {
                let n = self.varint()?;
                if n > 0 {
                    let kinds = self.byte()?;
                    for _ in 0..n {
                        self.element(kinds >> 4, depth)?;
                        self.element(kinds & 0x0f, depth)?;
                    }
                }
            }
            STRUCT => {
                let mut last = 0i16;
                while let Some((_, k)) = self.field_header(&mut last)? {
                    self.skip(k, depth + 1)?;
                }
            }
            _ => return None,
        }
        Some(())
    }

    /// Skips a collection element (booleans take a byte there).
    fn element(&mut self, kind: u8, depth: usize) -> Option<()> {
        match kind {
            BOOL_TRUE | BOOL_FALSE => self.byte().map(|_| ()),
            k => self.skip(k, depth + 1),
        }
    }

    /// A struct field's boolean (encoded in its type).
    fn bool_field(kind: u8) -> Option<bool> {
        match kind {
            BOOL_TRUE => Some(true),
            BOOL_FALSE => Some(false),
            _ => None,
        }
    }

    /// `DataPageHeader` { 1: num_values, 2: encoding, 3: definition_level_encoding,
    /// 4: repetition_level_encoding, 5: statistics }.
    fn data_page(&mut self, h: &mut PageHeader) -> Option<()> {
        let mut last = 0i16;
        while let Some((id, kind)) = self.field_header(&mut last)? {
            match (id, kind) {
                (1, I32) => h.num_values = u32::try_from(self.i32()?).ok()?,
                (2, I32) => h.encoding = self.i32()?,
                (3, I32) => h.def_encoding = self.i32()?,
                _ => self.skip(kind, 1)?,
            }
        }
        Some(())
    }

    /// `DictionaryPageHeader` { 1: num_values, 2: encoding, 3: is_sorted }.
    fn dictionary_page(&mut self, h: &mut PageHeader) -> Option<()> {
        let mut last = 0i16;
        while let Some((id, kind)) = self.field_header(&mut last)? {
            match (id, kind) {
                (1, I32) => h.num_values = u32::try_from(self.i32()?).ok()?,
                (2, I32) => h.encoding = self.i32()?,
                _ => self.skip(kind, 1)?,
            }
        }
        Some(())
    }

    /// `DataPageHeaderV2` { 1: num_values, 2: num_nulls, 3: num_rows, 4: encoding,
    /// 5: definition_levels_byte_length, 6: repetition_levels_byte_length, 7: is_compressed,
    /// 8: statistics }.
    fn data_page_v2(&mut self, h: &mut PageHeader) -> Option<()> {
        let mut last = 0i16;
        while let Some((id, kind)) = self.field_header(&mut last)? {
            match (id, kind) {
                (1, I32) => h.num_values = u32::try_from(self.i32()?).ok()?,
                (4, I32) => h.encoding = self.i32()?,
                (5, I32) => h.def_len = usize::try_from(self.i32()?).ok()?,
                (6, I32) => h.rep_len = usize::try_from(self.i32()?).ok()?,
                (7, BOOL_TRUE | BOOL_FALSE) => h.is_compressed = Self::bool_field(kind)?,
                _ => self.skip(kind, 1)?,
            }
        }
        Some(())
    }
}

#[cfg(test)]
mod tests;
