//! Writing deletion vectors and their index files, byte for byte as Java Paimon 2.0 does.
//!
//! Mirrors Java `BitmapDeletionVector#serializeTo` (32-bit: `i32 BE` L, magic `0x5E43F2D0`
//! BE, the RoaringBitmap portable image as built by `add`, `i32 BE` CRC-32 of magic + bitmap;
//! recorded length `f2` = L), `Bitmap64DeletionVector#serializeTo` (64-bit: the same frame with
//! magic `0x6439D3D1` LE and `OptimizedRoaringBitmap64#serialize` after `runLengthEncode`: a
//! `u64 LE` count of the dense bitmap array, then per key from 0 a `u32 LE` key and the
//! run-optimized portable bitmap; `f2` = 4 + L + 4) and `DeletionFileWriter` (version byte 1,
//! then every vector in the order given, each recorded as (data file, offset, `f2`,
//! cardinality)). The reading side is [`super::deletion_vector`].

use roaring::{RoaringBitmap, RoaringTreemap};

use super::deletion_vector::{INDEX_FILE_VERSION, MAGIC_V32, MAGIC_V64};
use crate::spec::manifest::DeletionVectorMeta;
use crate::{Error, Result};

/// RoaringBitmap portable cookie without run containers.
const SERIAL_COOKIE_NO_RUN: u32 = 12346;
/// RoaringBitmap portable cookie with run containers (size − 1 in the high 16 bits).
const SERIAL_COOKIE: u32 = 12347;
/// Below this many containers a run-format image has no offset table.
const NO_OFFSET_THRESHOLD: usize = 4;
/// Most values an array container holds (Java `ArrayContainer.DEFAULT_MAX_SIZE`).
const ARRAY_MAX: usize = 4096;

/// One deletion vector, in the kind it was created or read with (Java keeps a restored
/// vector's kind; new vectors take `deletion-vectors.bitmap64`).
#[derive(Debug, Clone, PartialEq)]
pub enum DeletionVector {
    /// `BitmapDeletionVector`: positions up to `i32::MAX`.
    Bits32(RoaringBitmap),
    /// `Bitmap64DeletionVector`.
    Bits64(RoaringTreemap),
}

impl DeletionVector {
    /// An empty vector of the configured kind.
    pub fn new(bitmap64: bool) -> Self {
        match bitmap64 {
            true => DeletionVector::Bits64(RoaringTreemap::new()),
            false => DeletionVector::Bits32(RoaringBitmap::new()),
        }
    }

    /// A vector of `kind_of`'s kind holding `positions` (e.g. a decoded vector).
    pub fn from_positions(positions: &RoaringTreemap, bitmap64: bool) -> Result<Self> {
        let mut dv = DeletionVector::new(bitmap64);
        for p in positions {
            dv.delete(p)?;
        }
        Ok(dv)
    }

    /// Marks `position` deleted; whether it was new (Java `checkedDelete`). A 32-bit vector
    /// refuses positions above `i32::MAX`.
    pub fn delete(&mut self, position: u64) -> Result<bool> {
        match self {
            DeletionVector::Bits32(b) => {
                let p = u32::try_from(position)
                    .ok()
                    .filter(|p| i32::try_from(*p).is_ok())
                    .ok_or_else(|| {
                        Error::invalid_argument(format!(
                            "position {position} exceeds a 32-bit deletion vector; set \
                             'deletion-vectors.bitmap64'"
                        ))
                    })?;
                Ok(b.insert(p))
            }
            DeletionVector::Bits64(t) => Ok(t.insert(position)),
        }
    }

    /// Deleted positions.
    pub fn positions(&self) -> RoaringTreemap {
        match self {
            DeletionVector::Bits32(b) => RoaringTreemap::from_bitmaps([(0u32, b.clone())]),
            DeletionVector::Bits64(t) => t.clone(),
        }
    }

    /// Number of deleted positions.
    pub fn cardinality(&self) -> u64 {
        match self {
            DeletionVector::Bits32(b) => b.len(),
            DeletionVector::Bits64(t) => t.len(),
        }
    }

    /// The serialized vector (size prefix to CRC) and its recorded length `f2`.
    pub fn encode(&self) -> Result<(Vec<u8>, i32)> {
        let mut body = Vec::new();
        match self {
            DeletionVector::Bits32(b) => {
                body.extend_from_slice(&MAGIC_V32.to_be_bytes());
                write_portable(b, false, &mut body);
            }
            DeletionVector::Bits64(t) => {
                body.extend_from_slice(&MAGIC_V64.to_le_bytes());
                let bitmaps: Vec<(u32, &RoaringBitmap)> = t.bitmaps().collect();
                // Java keeps a dense array of bitmaps from key 0 to the highest key.
                let count = bitmaps.last().map_or(0, |(k, _)| u64::from(*k) + 1);
                body.extend_from_slice(&count.to_le_bytes());
                let empty = RoaringBitmap::new();
                let mut next = bitmaps.iter().peekable();
                for key in 0..count {
                    let key = u32::try_from(key).map_err(|_| Error::internal("bitmap key"))?;
                    let bm = match next.peek() {
                        Some((k, bm)) if *k == key => {
                            next.next();
                            *bm
                        }
                        _ => &empty,
                    };
                    body.extend_from_slice(&key.to_le_bytes());
                    write_portable(bm, true, &mut body);
                }
            }
        }
        let size = i32::try_from(body.len())
            .map_err(|_| Error::invalid_argument("deletion vector larger than 2 GiB"))?;
        let mut out = Vec::with_capacity(body.len() + 8);
        out.extend_from_slice(&size.to_be_bytes());
        out.extend_from_slice(&body);
        out.extend_from_slice(&crc32fast::hash(&body).to_be_bytes());
        let recorded = match self {
            DeletionVector::Bits32(_) => size,
            DeletionVector::Bits64(_) => size
                .checked_add(8)
                .ok_or_else(|| Error::invalid_argument("deletion vector larger than 2 GiB"))?,
        };
        Ok((out, recorded))
    }
}

/// A whole deletion-vector index file holding `vectors` (data file name → vector, in this
/// order) and its ranges for the index manifest (Java `DeletionFileWriter`).
pub fn encode_index_file(
    vectors: &[(String, DeletionVector)],
) -> Result<(Vec<u8>, Vec<DeletionVectorMeta>)> {
    let mut out = vec![INDEX_FILE_VERSION];
    let mut ranges = Vec::with_capacity(vectors.len());
    for (file, dv) in vectors {
        let offset = i32::try_from(out.len())
            .map_err(|_| Error::invalid_argument("deletion vector index file over 2 GiB"))?;
        let (bytes, length) = dv.encode()?;
        out.extend_from_slice(&bytes);
        ranges.push(DeletionVectorMeta {
            data_file_name: file.clone(),
            offset,
            length,
            cardinality: Some(i64::try_from(dv.cardinality()).unwrap_or(i64::MAX)),
        });
    }
    Ok((out, ranges))
}

/// One container of a 32-bit Roaring bitmap as Java holds it.
enum Container {
    Array(Vec<u16>),
    Bitmap(Vec<u16>),
    /// `(start, length − 1)` pairs.
    Run(Vec<(u16, u16)>),
}

impl Container {
    /// The container of `values` (sorted, distinct): array up to 4096 values, else bitmap;
    /// with `run_optimize`, a run container when that is smaller (Java `runOptimize`).
    fn of(values: Vec<u16>, run_optimize: bool) -> Self {
        let size_as_other = match values.len() <= ARRAY_MAX {
            true => 2 * values.len(),
            false => 8192,
        };
        if run_optimize {
            let runs = runs_of(&values);
            if size_as_other > 2 + 4 * runs.len() {
                return Container::Run(runs);
            }
        }
        match values.len() <= ARRAY_MAX {
            true => Container::Array(values),
            false => Container::Bitmap(values),
        }
    }

    fn cardinality(&self) -> usize {
        match self {
            Container::Array(v) | Container::Bitmap(v) => v.len(),
            Container::Run(r) => r.iter().map(|(_, l)| usize::from(*l) + 1).sum(),
        }
    }

    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Container::Array(v) => v
                .iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            Container::Bitmap(v) => {
                let mut words = [0u64; 1024];
                for x in v {
                    if let Some(w) = words.get_mut(usize::from(*x) / 64) {
                        *w |= 1u64 << (x % 64);
                    }
                }
                words
                    .iter()
                    .for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
            }
            Container::Run(r) => {
                let n = u16::try_from(r.len()).unwrap_or(u16::MAX);
                out.extend_from_slice(&n.to_le_bytes());
                for (start, len) in r {
                    out.extend_from_slice(&start.to_le_bytes());
                    out.extend_from_slice(&len.to_le_bytes());
                }
            }
        }
    }

    fn size(&self) -> usize {
        match self {
            Container::Array(v) => 2 * v.len(),
            Container::Bitmap(_) => 8192,
            Container::Run(r) => 2 + 4 * r.len(),
        }
    }
}

/// Maximal runs of consecutive values as `(start, length − 1)`.
fn runs_of(values: &[u16]) -> Vec<(u16, u16)> {
    let mut runs: Vec<(u16, u16)> = Vec::new();
    for &v in values {
        match runs.last_mut() {
            Some((start, len)) if u32::from(*start) + u32::from(*len) + 1 == u32::from(v) => {
                *len += 1;
            }
            _ => runs.push((v, 0)),
        }
    }
    runs
}

/// Appends the RoaringBitmap portable image of `bitmap` (Java `RoaringBitmap#serialize`),
/// after Java's `runOptimize` when `run_optimize`.
fn write_portable(bitmap: &RoaringBitmap, run_optimize: bool, out: &mut Vec<u8>) {
    let mut containers: Vec<(u16, Container)> = Vec::new();
    let mut current: Option<(u16, Vec<u16>)> = None;
    for v in bitmap {
        let (high, low) = ((v >> 16) as u16, (v & 0xFFFF) as u16);
        match &mut current {
            Some((h, values)) if *h == high => values.push(low),
            _ => {
                if let Some((h, values)) = current.take() {
                    containers.push((h, Container::of(values, run_optimize)));
                }
                current = Some((high, vec![low]));
            }
        }
    }
    if let Some((h, values)) = current {
        containers.push((h, Container::of(values, run_optimize)));
    }
    let size = containers.len();
    let has_run = containers
        .iter()
        .any(|(_, c)| matches!(c, Container::Run(_)));
    let start = out.len();
    if has_run {
        let cookie = SERIAL_COOKIE | (u32::try_from(size - 1).unwrap_or(0) << 16);
        out.extend_from_slice(&cookie.to_le_bytes());
        let mut flags = vec![0u8; size.div_ceil(8)];
        for (i, (_, c)) in containers.iter().enumerate() {
            if matches!(c, Container::Run(_)) {
                if let Some(f) = flags.get_mut(i / 8) {
                    *f |= 1 << (i % 8);
                }
            }
        }
        out.extend_from_slice(&flags);
    } else {
        out.extend_from_slice(&SERIAL_COOKIE_NO_RUN.to_le_bytes());
        out.extend_from_slice(&u32::try_from(size).unwrap_or(0).to_le_bytes());
    }
    for (key, c) in &containers {
        out.extend_from_slice(&key.to_le_bytes());
        let card = u16::try_from(c.cardinality().saturating_sub(1)).unwrap_or(u16::MAX);
        out.extend_from_slice(&card.to_le_bytes());
    }
    if !has_run || size >= NO_OFFSET_THRESHOLD {
        let mut offset = out.len() - start + 4 * size;
        for (_, c) in &containers {
            out.extend_from_slice(&u32::try_from(offset).unwrap_or(u32::MAX).to_le_bytes());
            offset += c.size();
        }
    }
    for (_, c) in &containers {
        c.write(out);
    }
}

#[cfg(test)]
#[path = "dv_encode_tests.rs"]
mod tests;
