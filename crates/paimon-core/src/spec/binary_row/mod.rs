//! `BinaryRow`: Paimon's fixed-layout binary row, used for partitions, keys, stats bounds and
//! bucket keys in metadata.
//!
//! Mirrors Java `org.apache.paimon.data.BinaryRow` / `BinarySection` (reading) and
//! `BinaryRowWriter` / `AbstractBinaryWriter` (writing, see [`writer`]), Paimon 2.0; serialized
//! form from `org.apache.paimon.utils.SerializationUtils#serializeBinaryRow`.
//!
//! Serialized form (manifests):
//!
//! | bytes        | content                                      |
//! |--------------|----------------------------------------------|
//! | 0..4         | arity n, int32 **big-endian**                |
//! | 4..4+W       | null bits; byte 0 = RowKind header           |
//! | 4+W..4+F     | n slots of 8 bytes, little-endian            |
//! | 4+F..        | variable part, items padded to 8 bytes       |
//!
//! with `W = ((n + 63 + 8) / 64) * 8` and `F = W + 8n`. Offsets stored in slots are relative to
//! the row start (after the arity). The null bit of field `i` is bit `i + 8` of the row.
//!
//! Invariants checked on construction: the row holds at least the fixed part and its size is a
//! multiple of 8 (every Java writer pads to words). Values are validated lazily by [`BinaryRow::get`]:
//! a slot pointing outside the row is `DataInvalid`, never a panic. Decoding looks only at the
//! null bit of a field (older writers leave no reservation for null non-compact values).

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use std::fmt;
use std::hash::{Hash, Hasher};

use crate::hash::{murmur3_32_words, DEFAULT_SEED};
use crate::spec::bytes::ByteReader;
use crate::spec::datum::{Datum, Decimal, Timestamp};
use crate::spec::types::{DataType, TypeKind};
use crate::{Error, Result};

pub mod writer;

#[cfg(test)]
pub(crate) mod tests;

/// Largest precision of a DECIMAL stored inline as an `i64` (`Decimal.isCompact`).
pub const MAX_COMPACT_DECIMAL_PRECISION: u32 = 18;
/// Largest precision of a TIMESTAMP stored inline as epoch millis (`Timestamp.isCompact`).
pub const MAX_COMPACT_TIMESTAMP_PRECISION: u32 = 3;
/// Bytes a non-compact DECIMAL reserves in the variable part.
pub const DECIMAL_VAR_BYTES: usize = 16;
/// Largest length of a string or binary stored inline in its slot.
pub const MAX_INLINE_LEN: usize = 7;

const STRUCTURE: &str = "BinaryRow";

/// Bytes of the null-bit region (header included) of a row with `arity` fields.
pub fn null_bits_size(arity: usize) -> Option<usize> {
    Some(arity.checked_add(63 + 8)? / 64 * 8)
}

/// Bytes of the fixed part (null bits + slots) of a row with `arity` fields.
pub fn fixed_part_size(arity: usize) -> Option<usize> {
    null_bits_size(arity)?.checked_add(arity.checked_mul(8)?)
}

/// Whether a DECIMAL of `precision` is stored inline as an `i64`.
pub fn is_compact_decimal(precision: u32) -> bool {
    precision <= MAX_COMPACT_DECIMAL_PRECISION
}

/// Whether a TIMESTAMP of `precision` is stored inline as epoch millis.
pub fn is_compact_timestamp(precision: u32) -> bool {
    precision <= MAX_COMPACT_TIMESTAMP_PRECISION
}

/// An owned binary row: its arity and its bytes (without the serialized arity prefix).
///
/// Equality and hashing use the bytes only, like Java `BinaryRow.equals`.
#[derive(Clone)]
pub struct BinaryRow {
    arity: usize,
    bytes: Vec<u8>,
}

impl BinaryRow {
    /// Reads the serialized form: a 4-byte big-endian arity followed by the row bytes.
    pub fn from_serialized(buf: &[u8]) -> Result<BinaryRow> {
        let mut r = ByteReader::new(buf, "serialized BinaryRow");
        let arity = r.i32_be()?;
        let arity = usize::try_from(arity).map_err(|_| {
            r.invalid("negative arity")
                .with_context("found", arity.to_string())
        })?;
        let rest = r.take(r.remaining())?;
        Self::check_size(arity, rest.len())?;
        Ok(BinaryRow {
            arity,
            bytes: rest.to_vec(),
        })
    }

    /// A row of `arity` fields over `row` (the bytes after the arity prefix).
    pub fn from_bytes(arity: usize, row: Vec<u8>) -> Result<BinaryRow> {
        Self::check_size(arity, row.len())?;
        Ok(BinaryRow { arity, bytes: row })
    }

    fn check_size(arity: usize, len: usize) -> Result<()> {
        let fixed = fixed_part_size(arity).ok_or_else(|| {
            Error::data_invalid(format!("{STRUCTURE}: arity too large"))
                .with_context("arity", arity.to_string())
        })?;
        if len < fixed {
            return Err(
                Error::data_invalid(format!("{STRUCTURE} shorter than its fixed part"))
                    .with_context("arity", arity.to_string())
                    .with_context("expected at least", fixed.to_string())
                    .with_context("found", len.to_string()),
            );
        }
        if len % 8 != 0 {
            return Err(
                Error::data_invalid(format!("{STRUCTURE} size is not a multiple of 8"))
                    .with_context("arity", arity.to_string())
                    .with_context("found", len.to_string()),
            );
        }
        Ok(())
    }

    /// The row of arity 0 (`BinaryRow.EMPTY_ROW`): 8 zero bytes, 12 bytes serialized.
    pub fn empty() -> BinaryRow {
        BinaryRow {
            arity: 0,
            bytes: vec![0; 8],
        }
    }

    /// Number of fields.
    pub fn arity(&self) -> usize {
        self.arity
    }

    /// The row bytes (without the arity prefix).
    pub fn row_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The serialized form: big-endian arity, then the row bytes.
    pub fn serialize(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(4 + self.bytes.len());
        // Arity comes from a validated row whose fixed part fits in memory; Java stores it as int.
        out.extend_from_slice(&(self.arity as i32).to_be_bytes());
        out.extend_from_slice(&self.bytes);
        out
    }

    /// The RowKind header byte (0 = `+I`).
    pub fn row_kind_byte(&self) -> u8 {
        self.bytes.first().copied().unwrap_or(0)
    }

    /// Java `BinaryRow.hashCode`: MurmurHash3 x86_32 with seed 42 over the row bytes.
    pub fn hash_code(&self) -> i32 {
        murmur3_32_words(&self.bytes, DEFAULT_SEED)
    }

    fn check_pos(&self, pos: usize) -> Result<()> {
        if pos >= self.arity {
            return Err(Error::invalid_argument(format!(
                "{STRUCTURE} field position out of range"
            ))
            .with_context("position", pos.to_string())
            .with_context("arity", self.arity.to_string()));
        }
        Ok(())
    }

    /// Whether field `pos` is null.
    pub fn is_null_at(&self, pos: usize) -> Result<bool> {
        self.check_pos(pos)?;
        let bit = pos + 8;
        let byte = self
            .bytes
            .get(bit >> 3)
            .copied()
            .ok_or_else(|| self.corrupt(pos))?;
        Ok(byte & (1u8 << (bit & 7)) != 0)
    }

    fn corrupt(&self, pos: usize) -> Error {
        Error::internal(format!("{STRUCTURE} fixed part shorter than validated"))
            .with_context("position", pos.to_string())
    }

    /// The 8 raw slot bytes of field `pos`, borrowed from the row.
    fn slot_slice(&self, pos: usize) -> Result<&[u8]> {
        self.check_pos(pos)?;
        let start = null_bits_size(self.arity)
            .and_then(|w| w.checked_add(pos.checked_mul(8)?))
            .ok_or_else(|| self.corrupt(pos))?;
        let mut r = ByteReader::new(&self.bytes, STRUCTURE);
        r.seek(start)?;
        r.take(8)
    }

    /// The 8 raw slot bytes of field `pos`.
    fn slot_bytes(&self, pos: usize) -> Result<[u8; 8]> {
        let mut out = [0u8; 8];
        out.copy_from_slice(self.slot_slice(pos)?);
        Ok(out)
    }

    /// The slot of field `pos` as a little-endian `u64`.
    fn slot(&self, pos: usize) -> Result<u64> {
        Ok(u64::from_le_bytes(self.slot_bytes(pos)?))
    }

    /// `len` bytes at row-relative `offset` of the variable part, for field `pos`.
    fn var_bytes(&self, pos: usize, offset: u64, len: u64) -> Result<&[u8]> {
        let range = usize::try_from(offset)
            .ok()
            .zip(usize::try_from(len).ok())
            .and_then(|(o, l)| Some(o..o.checked_add(l)?));
        range.and_then(|r| self.bytes.get(r)).ok_or_else(|| {
            Error::data_invalid(format!("{STRUCTURE}: variable-length field out of bounds"))
                .with_context("position", pos.to_string())
                .with_context("offset", offset.to_string())
                .with_context("length", len.to_string())
                .with_context("row size", self.bytes.len().to_string())
        })
    }

    /// Bytes of a string/binary field (inline when bit 63 of the slot is set).
    fn get_var(&self, pos: usize) -> Result<&[u8]> {
        let raw = self.slot_slice(pos)?;
        let slot = self.slot(pos)?;
        if slot & (1 << 63) != 0 {
            let len = ((slot >> 56) & 0x7f) as usize;
            return raw
                .get(..len)
                .filter(|_| len <= MAX_INLINE_LEN)
                .ok_or_else(|| {
                    Error::data_invalid(format!("{STRUCTURE}: inline length above 7"))
                        .with_context("position", pos.to_string())
                        .with_context("found", len.to_string())
                });
        }
        self.var_bytes(pos, slot >> 32, slot & 0xffff_ffff)
    }

    /// The raw bytes of a CHAR/VARCHAR/BINARY/VARBINARY/BLOB field; `None` when null.
    ///
    /// Strings come back as their stored UTF-8 bytes, undecoded.
    pub fn get_bytes(&self, pos: usize) -> Result<Option<&[u8]>> {
        if self.is_null_at(pos)? {
            return Ok(None);
        }
        self.get_var(pos).map(Some)
    }

    fn get_decimal(&self, pos: usize, precision: u32, scale: u32) -> Result<Decimal> {
        let slot = self.slot(pos)?;
        let unscaled = if is_compact_decimal(precision) {
            i128::from(slot as i64)
        } else {
            let len = slot & 0xffff_ffff;
            if len == 0 || len > DECIMAL_VAR_BYTES as u64 {
                return Err(Error::data_invalid(format!(
                    "{STRUCTURE}: decimal byte length must be 1..=16"
                ))
                .with_context("position", pos.to_string())
                .with_context("found", len.to_string()));
            }
            decimal_from_be_bytes(self.var_bytes(pos, slot >> 32, len)?)
        };
        Ok(Decimal {
            unscaled,
            precision,
            scale,
        })
    }

    fn get_timestamp(&self, pos: usize, precision: u32) -> Result<Timestamp> {
        let slot = self.slot(pos)?;
        if is_compact_timestamp(precision) {
            return Ok(Timestamp {
                millis: slot as i64,
                nanos: 0,
            });
        }
        let nanos = (slot & 0xffff_ffff) as u32;
        if nanos >= 1_000_000 {
            return Err(Error::data_invalid(format!(
                "{STRUCTURE}: nano-of-millisecond out of range"
            ))
            .with_context("position", pos.to_string())
            .with_context("found", nanos.to_string()));
        }
        let b = self.var_bytes(pos, slot >> 32, 8)?;
        let mut millis = [0u8; 8];
        millis.copy_from_slice(b);
        Ok(Timestamp {
            millis: i64::from_le_bytes(millis),
            nanos,
        })
    }

    /// The value of field `pos` read as `data_type`; `None` when null.
    ///
    /// Every atomic type is supported; nested types (ARRAY, MAP, MULTISET, ROW, VECTOR, VARIANT)
    /// give `Unsupported`. BLOB values are returned as [`Datum::Binary`].
    pub fn get(&self, pos: usize, data_type: &DataType) -> Result<Option<Datum>> {
        if self.is_null_at(pos)? {
            return Ok(None);
        }
        let slot = || self.slot_bytes(pos);
        let datum = match &data_type.kind {
            TypeKind::Boolean => Datum::Boolean(slot()?[0] != 0),
            TypeKind::TinyInt => Datum::TinyInt(slot()?[0] as i8),
            TypeKind::SmallInt => {
                let s = slot()?;
                Datum::SmallInt(i16::from_le_bytes([s[0], s[1]]))
            }
            TypeKind::Int => Datum::Int(self.slot(pos)? as i32),
            TypeKind::Date => Datum::Date(self.slot(pos)? as i32),
            TypeKind::Time(_) => Datum::Time(self.slot(pos)? as i32),
            TypeKind::BigInt => Datum::BigInt(self.slot(pos)? as i64),
            TypeKind::Float => Datum::Float(f32::from_bits(self.slot(pos)? as u32)),
            TypeKind::Double => Datum::Double(f64::from_bits(self.slot(pos)?)),
            TypeKind::Decimal { precision, scale } => {
                Datum::Decimal(self.get_decimal(pos, *precision, *scale)?)
            }
            TypeKind::Timestamp(p) => Datum::Timestamp(self.get_timestamp(pos, *p)?),
            TypeKind::LocalZonedTimestamp(p) => {
                Datum::LocalZonedTimestamp(self.get_timestamp(pos, *p)?)
            }
            TypeKind::Char(_) | TypeKind::VarChar(_) => {
                Datum::String(String::from_utf8_lossy(self.get_var(pos)?).into_owned())
            }
            TypeKind::Binary(_) | TypeKind::VarBinary(_) | TypeKind::Blob => {
                Datum::Binary(self.get_var(pos)?.to_vec())
            }
            TypeKind::Variant
            | TypeKind::Array(_)
            | TypeKind::Multiset(_)
            | TypeKind::Map(..)
            | TypeKind::Row(_)
            | TypeKind::Vector(..) => {
                return Err(Error::unsupported(format!(
                    "{STRUCTURE}: reading nested type {data_type} is not supported"
                ))
                .with_context("position", pos.to_string()))
            }
        };
        Ok(Some(datum))
    }

    /// All fields, read with `types` (one type per field).
    pub fn decode(&self, types: &[DataType]) -> Result<Vec<Option<Datum>>> {
        if types.len() != self.arity {
            return Err(
                Error::data_invalid(format!("{STRUCTURE} arity does not match its types"))
                    .with_context("expected", types.len().to_string())
                    .with_context("found", self.arity.to_string()),
            );
        }
        types
            .iter()
            .enumerate()
            .map(|(i, t)| self.get(i, t))
            .collect()
    }

    /// Builds a row byte-identical to Java `BinaryRowWriter` (see [`writer::encode`]).
    pub fn encode(values: &[Option<Datum>], types: &[DataType]) -> Result<BinaryRow> {
        writer::encode(values, types)
    }
}

/// A big-endian two's-complement integer of 1..=16 bytes (Java `new BigInteger(bytes)`).
fn decimal_from_be_bytes(bytes: &[u8]) -> i128 {
    let negative = bytes.first().is_some_and(|b| b & 0x80 != 0);
    let mut buf = if negative { [0xffu8; 16] } else { [0u8; 16] };
    let start = 16usize.saturating_sub(bytes.len());
    if let Some(dst) = buf.get_mut(start..) {
        dst.copy_from_slice(bytes.get(..16 - start).unwrap_or(bytes));
    }
    i128::from_be_bytes(buf)
}

impl PartialEq for BinaryRow {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
    }
}

impl Eq for BinaryRow {}

impl Hash for BinaryRow {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.bytes.hash(state);
    }
}

impl fmt::Debug for BinaryRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BinaryRow {{ arity: {}, bytes: ", self.arity)?;
        for (i, b) in self.bytes.iter().enumerate() {
            if i > 0 && i % 8 == 0 {
                f.write_str(" ")?;
            }
            write!(f, "{b:02x}")?;
        }
        f.write_str(" }")
    }
}
