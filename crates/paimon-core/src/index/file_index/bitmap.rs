//! The bitmap index, V1 and V2 (Java `BitmapFileIndex`, `BitmapFileIndexMeta`,
//! `BitmapFileIndexMetaV2`; `shared/spec/file-index.md` §5): per distinct value the rows holding
//! it, plus the null rows.

use roaring::RoaringBitmap;

use super::key::{literal_key, read_roaring, roaring_exact, Key, KeyRules, KeyType};
use super::result::{all_rows, FileIndexResult};
use crate::expr::LeafOp;
use crate::spec::bytes::ByteReader;
use crate::spec::datum::Datum;
use crate::spec::types::{DataType, TypeKind};
use crate::Result;

/// Where one value's rows are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Loc {
    /// Body offset, or `-1 - row` for a single row.
    offset: i32,
    /// V2: serialized length; V1: unknown (self-delimited).
    length: Option<i32>,
}

/// A decoded bitmap index over borrowed payload bytes.
#[derive(Debug, Clone)]
pub struct BitmapIndex<'a> {
    /// Format version (1 or 2).
    pub version: u8,
    /// Rows indexed.
    pub row_count: u32,
    /// Entries sorted by key.
    entries: Vec<(Key, Loc)>,
    nulls: Option<Loc>,
    body: &'a [u8],
}

impl<'a> BitmapIndex<'a> {
    /// Decodes a payload whose keys are stored as `key_type`.
    pub fn decode(bytes: &'a [u8], key_type: KeyType) -> Result<Self> {
        let mut r = ByteReader::new(bytes, "bitmap index");
        let version = r.u8()?;
        if version != 1 && version != 2 {
            return Err(r.invalid(format!("unsupported bitmap index version {version}")));
        }
        let row_count = r.i32_be()?;
        let row_count =
            u32::try_from(row_count).map_err(|_| r.invalid(format!("row count {row_count}")))?;
        let distinct = r.i32_be()?;
        let has_null = r.u8()? != 0;
        let nulls = if has_null {
            let offset = r.i32_be()?;
            let length = if version == 2 {
                Some(r.i32_be()?)
            } else {
                None
            };
            Some(Loc { offset, length })
        } else {
            None
        };
        let mut entries = Vec::new();
        let body_start = if version == 1 {
            for _ in 0..distinct.max(0) {
                let key = key_type.read(&mut r)?;
                let offset = r.i32_be()?;
                entries.push((
                    key,
                    Loc {
                        offset,
                        length: None,
                    },
                ));
            }
            r.position()
        } else {
            read_v2_blocks(&mut r, key_type, &mut entries)?
        };
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let body = bytes
            .get(body_start..)
            .ok_or_else(|| r.truncated(body_start))?;
        Ok(BitmapIndex {
            version,
            row_count,
            entries,
            nulls,
            body,
        })
    }

    /// The rows holding `key` (empty when absent).
    pub fn rows_of(&self, key: &Key) -> Result<RoaringBitmap> {
        match self.entries.binary_search_by(|(k, _)| k.cmp(key)) {
            Ok(i) => match self.entries.get(i) {
                Some((_, loc)) => self.bitmap_at(*loc),
                None => Ok(RoaringBitmap::new()),
            },
            Err(_) => Ok(RoaringBitmap::new()),
        }
    }

    /// The null rows.
    pub fn null_rows(&self) -> Result<RoaringBitmap> {
        match self.nulls {
            Some(loc) => self.bitmap_at(loc),
            None => Ok(RoaringBitmap::new()),
        }
    }

    fn bitmap_at(&self, loc: Loc) -> Result<RoaringBitmap> {
        let r = ByteReader::new(self.body, "bitmap index body");
        if loc.offset < 0 {
            let row = u32::try_from(-1i64 - i64::from(loc.offset))
                .map_err(|_| r.invalid("single-row offset"))?;
            if row >= self.row_count {
                return Err(r.invalid(format!("row {row} beyond row count {}", self.row_count)));
            }
            return Ok(std::iter::once(row).collect());
        }
        let start = loc.offset as usize;
        match loc.length {
            Some(len) => {
                let len = usize::try_from(len).map_err(|_| r.invalid("negative length"))?;
                let slice = self
                    .body
                    .get(start..start.saturating_add(len))
                    .ok_or_else(|| r.truncated(len))?;
                roaring_exact(slice, "bitmap index bitmap", self.row_count)
            }
            None => {
                let mut r = r;
                r.seek(start)?;
                read_roaring(&mut r, self.body, self.row_count)
            }
        }
    }

    /// Answers one leaf on a column of `file_type` (`shared/spec/file-index.md` §5.6).
    ///
    /// Complements are built over `[0, row_count)`: check `row_count` against the data file's
    /// first ([`evaluate`](super::evaluate) does).
    pub fn query(&self, op: &LeafOp, file_type: &DataType) -> Result<FileIndexResult> {
        let float = matches!(file_type.kind, TypeKind::Float | TypeKind::Double);
        let all = || all_rows(self.row_count);
        Ok(match op {
            LeafOp::Eq(v) => self.union_of(std::slice::from_ref(v), file_type)?,
            LeafOp::In(vs) => self.union_of(vs, file_type)?,
            LeafOp::NotEq(_) | LeafOp::NotIn(_) if float => FileIndexResult::Remain,
            LeafOp::NotEq(v) => {
                complement(self.union_of(std::slice::from_ref(v), file_type)?, all())
            }
            LeafOp::NotIn(vs) => complement(self.union_of(vs, file_type)?, all()),
            LeafOp::IsNull => FileIndexResult::Rows(self.null_rows()?),
            LeafOp::IsNotNull => FileIndexResult::Rows(all() - self.null_rows()?),
            _ => FileIndexResult::Remain,
        })
    }

    fn union_of(&self, lits: &[Datum], file_type: &DataType) -> Result<FileIndexResult> {
        let mut out = RoaringBitmap::new();
        for lit in lits {
            for lit in zero_twins(lit) {
                let Some(key) = literal_key(&lit, file_type) else {
                    return Ok(FileIndexResult::Remain);
                };
                out |= self.rows_of(&key)?;
            }
        }
        Ok(FileIndexResult::Rows(out))
    }
}

/// `all − rows` for a rows result; anything else unchanged.
fn complement(r: FileIndexResult, all: RoaringBitmap) -> FileIndexResult {
    match r {
        FileIndexResult::Rows(b) => FileIndexResult::Rows(all - b),
        other => other,
    }
}

/// The literal, and for a float zero also the zero of the other sign (row filters compare
/// floats by IEEE equality, indexes by bits: `shared/spec/file-index.md` §8.7).
pub(crate) fn zero_twins(lit: &Datum) -> Vec<Datum> {
    match lit {
        Datum::Float(f) if *f == 0.0 => vec![Datum::Float(0.0), Datum::Float(-0.0)],
        Datum::Double(f) if *f == 0.0 => vec![Datum::Double(0.0), Datum::Double(-0.0)],
        other => vec![other.clone()],
    }
}

/// Reads the V2 block directory and blocks after the null section; returns the body start.
fn read_v2_blocks(
    r: &mut ByteReader<'_>,
    key_type: KeyType,
    entries: &mut Vec<(Key, Loc)>,
) -> Result<usize> {
    let blocks = r.i32_be()?;
    let mut block_offsets = Vec::new();
    for _ in 0..blocks.max(0) {
        let _first = key_type.read(r)?;
        block_offsets.push(r.i32_be()?);
    }
    let body_offset = r.i32_be()?;
    let index_start = r.position();
    for off in block_offsets {
        // Blocks are written back to back; anything else (overlap, repeats) is corrupt, and
        // would let a small input name many entries.
        let expected = r.position() - index_start;
        if usize::try_from(off).ok() != Some(expected) {
            return Err(r.invalid(format!("index block at {off}, expected {expected}")));
        }
        let count = r.i32_be()?;
        for _ in 0..count.max(0) {
            let key = key_type.read(r)?;
            let (offset, length) = (r.i32_be()?, r.i32_be()?);
            entries.push((
                key,
                Loc {
                    offset,
                    length: Some(length),
                },
            ));
        }
    }
    let body_offset = usize::try_from(body_offset)
        .ok()
        .filter(|&b| b >= r.position() - index_start)
        .ok_or_else(|| r.invalid(format!("bitmap body offset {body_offset}")))?;
    Ok(index_start.saturating_add(body_offset))
}

/// The key type a bitmap index uses for a column of `t` (`None`: not indexable).
pub fn key_type(t: &DataType) -> Option<KeyType> {
    KeyType::of(t, KeyRules::Bitmap)
}
