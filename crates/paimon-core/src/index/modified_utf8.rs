//! Java's *modified* UTF-8, the string format of `java.io.DataOutput#writeUTF`.
//!
//! Mirrors `org.apache.paimon.io.DataOutputSerializer#writeUTF` and
//! `org.apache.paimon.io.DataInputDeserializer#readUTF`: a `u16 BE` byte length, then one to
//! three bytes per UTF-16 code unit:
//!
//! - U+0001..U+007F: one byte;
//! - U+0000 and U+0080..U+07FF: two bytes (so NUL is `C0 80`);
//! - U+0800..U+FFFF: three bytes;
//! - a supplementary code point is its UTF-16 surrogate pair, each half as three bytes.
//!
//! The decoder accepts what Java's accepts (including a raw `00` byte and overlong two- and
//! three-byte forms) and additionally rejects unpaired surrogates, which no Rust `String` can
//! hold.

use crate::spec::bytes::ByteReader;
use crate::{Error, Result};

/// Largest encoded length `writeUTF` accepts.
pub const MAX_ENCODED_LEN: usize = u16::MAX as usize;

/// The modified-UTF-8 bytes of `s`, without the length prefix.
pub fn encode(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for unit in s.encode_utf16() {
        let c = u32::from(unit);
        if (0x0001..=0x007F).contains(&c) {
            out.push(c as u8);
        } else if c <= 0x07FF {
            out.push(0xC0 | (c >> 6) as u8);
            out.push(0x80 | (c & 0x3F) as u8);
        } else {
            out.push(0xE0 | (c >> 12) as u8);
            out.push(0x80 | ((c >> 6) & 0x3F) as u8);
            out.push(0x80 | (c & 0x3F) as u8);
        }
    }
    out
}

/// Appends `s` as `writeUTF` does: `u16 BE` length, then the bytes. An encoding longer than
/// 65535 bytes is an `InvalidArgument` error (Java: `UTFDataFormatException`).
pub fn write_utf(out: &mut Vec<u8>, s: &str) -> Result<()> {
    let bytes = encode(s);
    let len = u16::try_from(bytes.len()).map_err(|_| {
        Error::invalid_argument(format!(
            "string of {} modified UTF-8 bytes exceeds the {MAX_ENCODED_LEN}-byte limit of writeUTF",
            bytes.len()
        ))
    })?;
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(&bytes);
    Ok(())
}

/// Reads a `writeUTF` string (`u16 BE` length and bytes) from `r`.
pub fn read_utf(r: &mut ByteReader<'_>) -> Result<String> {
    let len = usize::from(r.u16_be()?);
    let start = r.position();
    let bytes = r.take(len)?;
    decode(bytes).map_err(|(at, what)| {
        r.invalid(format!("malformed modified UTF-8: {what}"))
            .with_context("string offset", start.to_string())
            .with_context("byte", at.to_string())
    })
}

/// Decodes modified-UTF-8 bytes (no length prefix). The error is (byte index, reason).
pub fn decode(bytes: &[u8]) -> std::result::Result<String, (usize, &'static str)> {
    let mut units: Vec<u16> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&c) = bytes.get(i) {
        let cont = |k: usize| -> std::result::Result<u16, (usize, &'static str)> {
            match bytes.get(i + k) {
                Some(b) if b & 0xC0 == 0x80 => Ok(u16::from(b & 0x3F)),
                Some(_) => Err((i + k, "bad continuation byte")),
                None => Err((i, "partial character at end")),
            }
        };
        match c >> 4 {
            0..=7 => {
                units.push(u16::from(c));
                i += 1;
            }
            12 | 13 => {
                units.push((u16::from(c & 0x1F) << 6) | cont(1)?);
                i += 2;
            }
            14 => {
                units.push((u16::from(c & 0x0F) << 12) | (cont(1)? << 6) | cont(2)?);
                i += 3;
            }
            _ => return Err((i, "invalid lead byte")),
        }
    }
    String::from_utf16(&units).map_err(|_| (bytes.len(), "unpaired surrogate"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_nul_bmp_and_supplementary() {
        assert_eq!(encode("a.parquet"), b"a.parquet");
        assert_eq!(encode("\0"), [0xC0, 0x80]);
        assert_eq!(encode("é"), [0xC3, 0xA9]);
        assert_eq!(encode("中"), [0xE4, 0xB8, 0xAD]);
        // U+1F600 = D83D DE00, each surrogate as three bytes (not the 4-byte UTF-8 form).
        assert_eq!(encode("😀"), [0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80]);
        for s in ["", "a\0b", "é中😀x", "𝄞\u{7FF}\u{800}\u{FFFF}"] {
            assert_eq!(decode(&encode(s)).unwrap(), s);
        }
    }

    #[test]
    fn java_leniency_and_rejections() {
        // Java's readUTF takes a raw 00 byte and overlong forms.
        assert_eq!(decode(&[0x00]).unwrap(), "\0");
        assert_eq!(decode(&[0xC1, 0x81]).unwrap(), "A");
        assert!(decode(&[0x80]).is_err());
        assert!(decode(&[0xF0, 0x9F, 0x98, 0x80]).is_err(), "4-byte UTF-8");
        assert!(decode(&[0xC3]).is_err());
        assert!(decode(&[0xE4, 0xB8]).is_err());
        assert!(decode(&[0xC3, 0x29]).is_err());
        assert!(decode(&[0xED, 0xA0, 0xBD]).is_err(), "lone high surrogate");
        let mut out = Vec::new();
        assert!(write_utf(&mut out, &"中".repeat(21_846)).is_err());
        write_utf(&mut out, &"中".repeat(21_845)).unwrap();
        assert_eq!(out.len(), 2 + MAX_ENCODED_LEN);
    }
}
