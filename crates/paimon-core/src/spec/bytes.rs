//! A bounds-checked byte cursor shared by every binary decoder.
//!
//! Endianness is part of every method name (`i32_be`, `u64_le`): Paimon mixes byte orders
//! inside single structures (see `docs/format.md` "Byte order"). A short input is a
//! [`ErrorKind::DataInvalid`](crate::ErrorKind::DataInvalid) error naming the structure, the
//! offset, and how many bytes were needed and remained.

use crate::{Error, Result};

/// A cursor over a byte slice; never reads past the end.
#[derive(Debug, Clone)]
pub struct ByteReader<'a> {
    buf: &'a [u8],
    pos: usize,
    what: &'static str,
}

macro_rules! fixed {
    ($name:ident, $t:ty, $from:ident) => {
        #[doc = concat!("Reads a `", stringify!($t), "` (", stringify!($from), ").")]
        pub fn $name(&mut self) -> Result<$t> {
            Ok(<$t>::$from(self.array()?))
        }
    };
}

impl<'a> ByteReader<'a> {
    /// A reader over `buf`; `what` names the structure in errors.
    pub fn new(buf: &'a [u8], what: &'static str) -> Self {
        ByteReader { buf, pos: 0, what }
    }
    /// Current offset.
    pub fn position(&self) -> usize {
        self.pos
    }
    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }
    /// Whether every byte was consumed.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }
    /// An error "truncated" for a read of `n` bytes here.
    pub fn truncated(&self, n: usize) -> Error {
        Error::data_invalid(format!("{} truncated", self.what))
            .with_context("offset", self.pos.to_string())
            .with_context("needed", n.to_string())
            .with_context("remaining", self.remaining().to_string())
    }
    /// An error about this structure at the current offset.
    pub fn invalid(&self, message: impl std::fmt::Display) -> Error {
        Error::data_invalid(format!("{}: {message}", self.what))
            .with_context("offset", self.pos.to_string())
    }
    /// Moves to absolute offset `pos` (at most the length).
    pub fn seek(&mut self, pos: usize) -> Result<()> {
        if pos > self.buf.len() {
            return Err(self.truncated(pos.saturating_sub(self.pos)));
        }
        self.pos = pos;
        Ok(())
    }
    /// Takes the next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).ok_or_else(|| self.truncated(n))?;
        let out = self
            .buf
            .get(self.pos..end)
            .ok_or_else(|| self.truncated(n))?;
        self.pos = end;
        Ok(out)
    }
    /// Takes the next `N` bytes as an array.
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let s = self.take(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(s);
        Ok(out)
    }
    /// Reads one byte.
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.array::<1>()?[0])
    }
    fixed!(i16_le, i16, from_le_bytes);
    fixed!(i32_le, i32, from_le_bytes);
    fixed!(i64_le, i64, from_le_bytes);
    fixed!(u16_be, u16, from_be_bytes);
    fixed!(i32_be, i32, from_be_bytes);
    fixed!(i64_be, i64, from_be_bytes);
    fixed!(u32_le, u32, from_le_bytes);
    fixed!(u64_le, u64, from_le_bytes);
    fixed!(u32_be, u32, from_be_bytes);
    /// Reads an unsigned LEB128 varint of at most 64 bits.
    pub fn varint_u64(&mut self) -> Result<u64> {
        let mut out = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            out |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(out);
            }
        }
        Err(self.invalid("varint longer than 10 bytes"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixed_endianness() {
        let bytes = [0, 0, 0, 1, 1, 0, 0, 0, 0xac, 0x02];
        let mut r = ByteReader::new(&bytes, "test");
        assert_eq!(r.i32_be().unwrap(), 1);
        assert_eq!(r.i32_le().unwrap(), 1);
        assert_eq!(r.varint_u64().unwrap(), 300);
        assert!(r.is_empty());
    }

    #[test]
    fn short_input_is_an_error_naming_offset() {
        let mut r = ByteReader::new(&[1, 2, 3], "thing");
        r.u8().unwrap();
        let e = r.i32_be().unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid data: thing truncated (offset: 1) (needed: 4) (remaining: 2)"
        );
        assert!(r.take(usize::MAX).is_err());
    }
}
