//! Encoding values into a `BinaryRow` byte-identical to Java's writer.
//!
//! Mirrors Java `org.apache.paimon.data.BinaryRowWriter` and `AbstractBinaryWriter` (Paimon 2.0)
//! writing into a fresh, zeroed buffer, as the generated projections behind bucket keys
//! (`FixedBucketRowKeyExtractor`), partition rows and stats rows do:
//!
//! - header byte 0 (`+I`), null bits set for null fields, unused slot bytes zero;
//! - strings/binaries of at most 7 bytes inline (`0x80 | len` in slot byte 7), longer ones
//!   appended to the variable part, zero-padded to a multiple of 8, slot `(offset << 32) | len`;
//! - DECIMAL with precision > 18: 16 zeroed bytes reserved, filled with Java
//!   `BigInteger.toByteArray()` of the unscaled value, slot `(offset << 32) | nbytes`;
//! - TIMESTAMP with precision > 3: 8 bytes of epoch millis reserved, slot
//!   `(offset << 32) | nanoOfMillisecond`;
//! - a null non-compact DECIMAL/TIMESTAMP still reserves its 16/8 zero bytes and stores
//!   `offset << 32` in its slot (`codegen/GenerateUtils.scala#binaryWriterWriteNull`).
//!
//! Like Java, a compact TIMESTAMP (precision ≤ 3) keeps only the epoch millis: any
//! nano-of-millisecond in the value is dropped.

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use super::{
    fixed_part_size, is_compact_decimal, is_compact_timestamp, null_bits_size, BinaryRow,
    DECIMAL_VAR_BYTES, MAX_INLINE_LEN,
};
use crate::spec::datum::{Datum, Decimal, Timestamp};
use crate::spec::types::{DataType, TypeKind};
use crate::{Error, Result};

/// Java `BigInteger.toByteArray()`: minimal big-endian two's-complement bytes (at least one).
pub fn decimal_to_be_bytes(unscaled: i128) -> Vec<u8> {
    let full = unscaled.to_be_bytes();
    // A leading byte is redundant when it only repeats the sign bit of the byte after it.
    let redundant = full
        .windows(2)
        .take_while(|w| {
            matches!(w, [0x00, n] if n & 0x80 == 0) || matches!(w, [0xff, n] if n & 0x80 != 0)
        })
        .count();
    full.get(redundant..).unwrap_or(&full).to_vec()
}

/// A writer over one row buffer; fields may be written in any order, variable data is appended.
struct RowWriter {
    buf: Vec<u8>,
    null_bits: usize,
}

impl RowWriter {
    /// A writer over `buf`, cleared and zero-filled to the fixed part (its capacity is reused).
    fn with_buffer(arity: usize, mut buf: Vec<u8>) -> Result<Self> {
        let fixed = fixed_part_size(arity)
            .ok_or_else(|| Error::invalid_argument("BinaryRow arity too large"))?;
        buf.clear();
        buf.resize(fixed, 0);
        Ok(RowWriter {
            buf,
            null_bits: null_bits_size(arity).unwrap_or(0),
        })
    }

    fn set_null_bit(&mut self, pos: usize) {
        let bit = pos + 8;
        if let Some(b) = self.buf.get_mut(bit >> 3) {
            *b |= 1u8 << (bit & 7);
        }
    }

    fn slot_mut(&mut self, pos: usize) -> &mut [u8] {
        let start = self.null_bits + 8 * pos;
        // safety: `pos < arity` (callers iterate the fields) so the slot lies in the fixed part.
        #[allow(clippy::indexing_slicing)]
        &mut self.buf[start..start + 8]
    }

    fn write_slot(&mut self, pos: usize, bytes: &[u8]) {
        if let Some(dst) = self.slot_mut(pos).get_mut(..bytes.len()) {
            dst.copy_from_slice(bytes);
        }
    }

    /// Appends `n` zero bytes rounded up to a multiple of 8; returns the item's offset.
    fn reserve(&mut self, n: usize) -> Result<usize> {
        let offset = self.buf.len();
        let rounded = n
            .checked_add(7)
            .map(|x| x / 8 * 8)
            .filter(|r| {
                offset
                    .checked_add(*r)
                    .is_some_and(|e| e <= i32::MAX as usize)
            })
            .ok_or_else(|| Error::invalid_argument("BinaryRow larger than 2 GiB"))?;
        self.buf.resize(offset + rounded, 0);
        Ok(offset)
    }

    fn set_offset_and_size(&mut self, pos: usize, offset: usize, size: u64) {
        let v = ((offset as u64) << 32) | (size & 0xffff_ffff);
        self.write_slot(pos, &v.to_le_bytes());
    }

    fn write_var(&mut self, pos: usize, bytes: &[u8]) -> Result<()> {
        if bytes.len() <= MAX_INLINE_LEN {
            let slot = self.slot_mut(pos);
            if let Some(dst) = slot.get_mut(..bytes.len()) {
                dst.copy_from_slice(bytes);
            }
            if let Some(last) = slot.get_mut(7) {
                *last = 0x80 | bytes.len() as u8;
            }
            return Ok(());
        }
        let offset = self.reserve(bytes.len())?;
        if let Some(dst) = self.buf.get_mut(offset..offset + bytes.len()) {
            dst.copy_from_slice(bytes);
        }
        self.set_offset_and_size(pos, offset, bytes.len() as u64);
        Ok(())
    }

    fn write_big_decimal(&mut self, pos: usize, value: Option<i128>) -> Result<()> {
        let offset = self.reserve(DECIMAL_VAR_BYTES)?;
        match value {
            None => {
                self.set_null_bit(pos);
                self.set_offset_and_size(pos, offset, 0);
            }
            Some(unscaled) => {
                let bytes = decimal_to_be_bytes(unscaled);
                if let Some(dst) = self.buf.get_mut(offset..offset + bytes.len()) {
                    dst.copy_from_slice(&bytes);
                }
                self.set_offset_and_size(pos, offset, bytes.len() as u64);
            }
        }
        Ok(())
    }

    fn write_big_timestamp(&mut self, pos: usize, value: Option<Timestamp>) -> Result<()> {
        let offset = self.reserve(8)?;
        match value {
            None => {
                self.set_null_bit(pos);
                self.set_offset_and_size(pos, offset, 0);
            }
            Some(ts) => {
                if let Some(dst) = self.buf.get_mut(offset..offset + 8) {
                    dst.copy_from_slice(&ts.millis.to_le_bytes());
                }
                self.set_offset_and_size(pos, offset, u64::from(ts.nanos));
            }
        }
        Ok(())
    }

    fn write_null(&mut self, pos: usize, data_type: &DataType) -> Result<()> {
        match data_type.kind {
            TypeKind::Decimal { precision, .. } if !is_compact_decimal(precision) => {
                self.write_big_decimal(pos, None)
            }
            TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p)
                if !is_compact_timestamp(p) =>
            {
                self.write_big_timestamp(pos, None)
            }
            _ => {
                self.set_null_bit(pos);
                Ok(())
            }
        }
    }

    fn write_timestamp(&mut self, pos: usize, ts: &Timestamp, precision: u32) -> Result<()> {
        if is_compact_timestamp(precision) {
            self.write_slot(pos, &ts.millis.to_le_bytes());
            return Ok(());
        }
        if ts.nanos >= 1_000_000 {
            return Err(
                Error::invalid_argument("timestamp nano-of-millisecond out of range")
                    .with_context("position", pos.to_string())
                    .with_context("found", ts.nanos.to_string()),
            );
        }
        self.write_big_timestamp(pos, Some(*ts))
    }

    fn write_decimal(&mut self, pos: usize, d: &Decimal, precision: u32, scale: u32) -> Result<()> {
        let fits = 10i128
            .checked_pow(precision)
            .is_some_and(|limit| d.unscaled.unsigned_abs() < limit.unsigned_abs());
        if d.scale != scale || !fits {
            return Err(Error::invalid_argument(format!(
                "decimal {d} does not fit DECIMAL({precision}, {scale})"
            ))
            .with_context("position", pos.to_string()));
        }
        if is_compact_decimal(precision) {
            // safety of the cast: |unscaled| < 10^18 < 2^63.
            self.write_slot(pos, &(d.unscaled as i64).to_le_bytes());
            return Ok(());
        }
        self.write_big_decimal(pos, Some(d.unscaled))
    }

    fn write(&mut self, pos: usize, value: &Datum, data_type: &DataType) -> Result<()> {
        match (&data_type.kind, value) {
            (TypeKind::Boolean, Datum::Boolean(v)) => self.write_slot(pos, &[u8::from(*v)]),
            (TypeKind::TinyInt, Datum::TinyInt(v)) => self.write_slot(pos, &v.to_le_bytes()),
            (TypeKind::SmallInt, Datum::SmallInt(v)) => self.write_slot(pos, &v.to_le_bytes()),
            (TypeKind::Int, Datum::Int(v))
            | (TypeKind::Date, Datum::Date(v))
            | (TypeKind::Time(_), Datum::Time(v)) => self.write_slot(pos, &v.to_le_bytes()),
            (TypeKind::BigInt, Datum::BigInt(v)) => self.write_slot(pos, &v.to_le_bytes()),
            (TypeKind::Float, Datum::Float(v)) => self.write_slot(pos, &v.to_bits().to_le_bytes()),
            (TypeKind::Double, Datum::Double(v)) => {
                self.write_slot(pos, &v.to_bits().to_le_bytes())
            }
            (TypeKind::Decimal { precision, scale }, Datum::Decimal(d)) => {
                self.write_decimal(pos, d, *precision, *scale)?
            }
            (TypeKind::Timestamp(p), Datum::Timestamp(ts))
            | (TypeKind::LocalZonedTimestamp(p), Datum::LocalZonedTimestamp(ts)) => {
                self.write_timestamp(pos, ts, *p)?
            }
            (TypeKind::Char(_) | TypeKind::VarChar(_), Datum::String(s)) => {
                self.write_var(pos, s.as_bytes())?
            }
            (TypeKind::Binary(_) | TypeKind::VarBinary(_) | TypeKind::Blob, Datum::Binary(b)) => {
                self.write_var(pos, b)?
            }
            _ if data_type.is_nested() => {
                return Err(Error::unsupported(format!(
                    "writing nested type {data_type} into a BinaryRow is not supported"
                ))
                .with_context("position", pos.to_string()))
            }
            _ => {
                return Err(Error::invalid_argument(format!(
                    "value {value:?} does not match type {data_type}"
                ))
                .with_context("position", pos.to_string()))
            }
        }
        Ok(())
    }
}

/// Encodes `values` (one per field, `None` = null) with `types` exactly as Java
/// `BinaryRowWriter` would into a fresh buffer.
///
/// Errors (`InvalidArgument`) when the lengths differ, a value does not match its type (kind,
/// decimal scale or precision overflow, nanos ≥ 10^6), or a nested type is given (`Unsupported`).
pub fn encode(values: &[Option<Datum>], types: &[DataType]) -> Result<BinaryRow> {
    let mut row = BinaryRow::empty();
    encode_into(values, types, &mut row)?;
    Ok(row)
}

/// [`encode`] into `row`, reusing its buffer (one allocation for many rows, e.g. the bucket
/// key of every written row).
pub fn encode_into(
    values: &[Option<Datum>],
    types: &[DataType],
    row: &mut BinaryRow,
) -> Result<()> {
    if values.len() != types.len() {
        return Err(
            Error::invalid_argument("BinaryRow values and types differ in length")
                .with_context("values", values.len().to_string())
                .with_context("types", types.len().to_string()),
        );
    }
    let mut w = RowWriter::with_buffer(types.len(), std::mem::take(&mut row.bytes))?;
    for (pos, (value, data_type)) in values.iter().zip(types).enumerate() {
        match value {
            None => w.write_null(pos, data_type)?,
            Some(v) => w.write(pos, v, data_type)?,
        }
    }
    row.arity = types.len();
    row.bytes = w.buf;
    Ok(())
}
