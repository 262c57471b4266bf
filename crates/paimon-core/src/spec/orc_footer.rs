//! A structural check of an ORC file's type tree before it reaches orc-rust.
//!
//! orc-rust 0.9 builds its schema by recursing through `Footer.types`; a corrupt footer whose
//! subtype ids point backwards (a cycle) makes it recurse until the stack overflows, which
//! aborts the process. This module decodes just enough of the tail to reject that:
//!
//! | bytes (from the end)      | content                                                        |
//! |---------------------------|----------------------------------------------------------------|
//! | 1                         | PostScript length P                                            |
//! | P                         | PostScript (protobuf): 1 footerLength, 2 compression, 3 blockSize, 5 metadataLength |
//! | footerLength              | Footer (protobuf, compressed in chunks with 3-byte headers)     |
//! | metadataLength            | Metadata (stripe statistics; not decoded here)                  |
//!
//! [`orc_postscript`] tells a ranged reader how many tail bytes to fetch
//! ([`OrcPostScript::tail_len`]); [`check_orc_type_tree`] accepts that tail alone.
//!
//! Footer field 4 is `repeated Type types`; Type field 2 is `repeated uint32 subtypes` (packed
//! or not). The tree is valid when every subtype id of type `i` lies in `(i, n)`: ids strictly
//! increase along every edge, so there is no cycle. Compression: NONE, ZLIB, SNAPPY, ZSTD (the
//! codecs Paimon writes); LZO and LZ4 footers are rejected as unsupported rather than trusted.

use std::io::Read;

use crate::spec::bytes::ByteReader;
use crate::{Error, Result};

/// Largest footer we decompress (64 MiB): far above any real footer.
const MAX_FOOTER: usize = 64 << 20;

/// The fields of an ORC PostScript this module needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrcPostScript {
    /// Length of the PostScript itself (the last byte of the file).
    pub postscript_len: u64,
    /// Length of the (compressed) Footer, just before the PostScript.
    pub footer_len: u64,
    /// Length of the (compressed) Metadata section (stripe statistics), before the Footer.
    pub metadata_len: u64,
    /// Compression kind (0 NONE, 1 ZLIB, 2 SNAPPY, 3 LZO, 4 LZ4, 5 ZSTD).
    pub compression: u64,
    /// Compression block size.
    pub block_size: u64,
}

impl OrcPostScript {
    /// Bytes from the end of the file that hold the Metadata, Footer, PostScript and its length
    /// byte: everything a reader needs before touching stripes.
    pub fn tail_len(&self) -> Option<u64> {
        self.metadata_len
            .checked_add(self.footer_len)?
            .checked_add(self.postscript_len)?
            .checked_add(1)
    }
}

fn footer_error(m: String, name: &str) -> Error {
    Error::data_invalid(format!("ORC footer: {m}")).with_context("file", name.to_string())
}

/// Decodes the PostScript at the end of `tail` (the last bytes of an ORC file, at least the
/// PostScript and its length byte); `name` labels errors.
pub fn orc_postscript(tail: &[u8], name: &str) -> Result<OrcPostScript> {
    let err = |m: String| footer_error(m, name);
    let (&ps_len, rest) = tail.split_last().ok_or_else(|| err("empty file".into()))?;
    let ps = rest
        .len()
        .checked_sub(usize::from(ps_len))
        .and_then(|start| rest.get(start..))
        .ok_or_else(|| err("postscript past the start".into()))?;
    let mut out = OrcPostScript {
        postscript_len: u64::from(ps_len),
        footer_len: 0,
        metadata_len: 0,
        compression: 0,
        block_size: 256 * 1024,
    };
    for_each_field(ps, |field, value| {
        match (field, value) {
            (1, Field::Varint(v)) => out.footer_len = v,
            (2, Field::Varint(v)) => out.compression = v,
            (3, Field::Varint(v)) => out.block_size = v,
            (5, Field::Varint(v)) => out.metadata_len = v,
            _ => {}
        }
        Ok(())
    })
    .map_err(|e| err(format!("postscript: {e}")))?;
    Ok(out)
}

/// The decompressed Footer (protobuf) of `file` (the whole file or any suffix of it holding the
/// Footer and PostScript); `name` labels errors.
pub fn orc_footer_bytes(file: &[u8], name: &str) -> Result<Vec<u8>> {
    let err = |m: String| footer_error(m, name);
    let ps = orc_postscript(file, name)?;
    let (compression, block) = (ps.compression, ps.block_size);
    let footer_len = usize::try_from(ps.footer_len).map_err(|_| err("footer length".into()))?;
    // The PostScript fits (orc_postscript checked it): it starts `postscript_len + 1` from the end.
    let ps_start = file.len().saturating_sub(ps.postscript_len as usize + 1);
    let footer_start = ps_start
        .checked_sub(footer_len)
        .ok_or_else(|| err("footer past the start".into()))?;
    let raw = file
        .get(footer_start..ps_start)
        .ok_or_else(|| err("footer past the start".into()))?;
    decompress(raw, compression, block).map_err(err)
}

/// Checks that `file`'s ORC type tree is acyclic and in range; `name` labels errors. `file`
/// may be the whole file or any suffix of it holding the Footer and PostScript.
pub fn check_orc_type_tree(file: &[u8], name: &str) -> Result<()> {
    let err = |m: String| footer_error(m, name);
    let footer = orc_footer_bytes(file, name)?;
    let mut subtypes: Vec<Vec<u64>> = Vec::new();
    for_each_field(&footer, |field, value| {
        if let (4, Field::Bytes(t)) = (field, value) {
            let mut subs = Vec::new();
            for_each_field(t, |f, v| {
                match (f, v) {
                    (2, Field::Varint(s)) => subs.push(s),
                    (2, Field::Bytes(packed)) => {
                        let mut r = ByteReader::new(packed, "ORC subtypes");
                        while !r.is_empty() {
                            subs.push(r.varint_u64()?);
                        }
                    }
                    _ => {}
                }
                Ok(())
            })?;
            subtypes.push(subs);
        }
        Ok(())
    })
    .map_err(|e| err(format!("footer: {e}")))?;
    let n = subtypes.len() as u64;
    for (i, subs) in subtypes.iter().enumerate() {
        if let Some(bad) = subs.iter().find(|s| **s <= i as u64 || **s >= n) {
            return Err(err(format!(
                "type {i} has subtype {bad} (types: {n}); the type tree must point forward"
            )));
        }
    }
    Ok(())
}

/// The byte ranges of the streams of one stripe whose column `keep` accepts, from the stripe's
/// (compressed) StripeFooter: field 1 `repeated Stream` with 1 kind, 2 column, 3 length; the
/// streams lie back to back from `stripe_offset` in footer order. Zero-length streams are left
/// out. Used to fetch a stripe's projected streams in one batch of ranged reads.
pub fn stripe_stream_ranges(
    stripe_footer: &[u8],
    ps: &OrcPostScript,
    stripe_offset: u64,
    keep: impl Fn(u64) -> bool,
) -> Result<Vec<std::ops::Range<u64>>> {
    let footer = decompress(stripe_footer, ps.compression, ps.block_size)
        .map_err(|m| Error::data_invalid(format!("ORC stripe footer: {m}")))?;
    let mut out = Vec::new();
    let mut offset = stripe_offset;
    for_each_field(&footer, |field, value| {
        if let (1, Field::Bytes(stream)) = (field, value) {
            let (mut column, mut len) = (0u64, 0u64);
            for_each_field(stream, |f, v| {
                match (f, v) {
                    (2, Field::Varint(c)) => column = c,
                    (3, Field::Varint(l)) => len = l,
                    _ => {}
                }
                Ok(())
            })?;
            let end = offset
                .checked_add(len)
                .ok_or_else(|| Error::data_invalid("ORC stream offset overflows"))?;
            if len > 0 && keep(column) {
                out.push(offset..end);
            }
            offset = end;
        }
        Ok(())
    })?;
    Ok(out)
}

fn decompress(raw: &[u8], compression: u64, block: u64) -> std::result::Result<Vec<u8>, String> {
    if compression == 0 {
        return Ok(raw.to_vec());
    }
    let block = usize::try_from(block).unwrap_or(MAX_FOOTER).min(MAX_FOOTER);
    let mut out = Vec::new();
    let mut r = ByteReader::new(raw, "ORC footer chunk");
    while !r.is_empty() {
        let h = r.array::<3>().map_err(|e| e.to_string())?;
        let header = u32::from(h[0]) | u32::from(h[1]) << 8 | u32::from(h[2]) << 16;
        let len = (header >> 1) as usize;
        let chunk = r.take(len).map_err(|e| e.to_string())?;
        if header & 1 == 1 {
            out.extend_from_slice(chunk);
        } else {
            let mut buf = Vec::new();
            match compression {
                1 => flate2::read::DeflateDecoder::new(chunk)
                    .take(block as u64 + 1)
                    .read_to_end(&mut buf)
                    .map(|_| ())
                    .map_err(|e| format!("zlib: {e}"))?,
                2 => {
                    let n = snap::raw::decompress_len(chunk).map_err(|e| format!("snappy: {e}"))?;
                    if n > block.max(1) {
                        return Err(format!("snappy chunk of {n} bytes exceeds the block size"));
                    }
                    buf = snap::raw::Decoder::new()
                        .decompress_vec(chunk)
                        .map_err(|e| format!("snappy: {e}"))?;
                }
                5 => zstd::stream::read::Decoder::new(chunk)
                    .map_err(|e| format!("zstd: {e}"))?
                    .take(block as u64 + 1)
                    .read_to_end(&mut buf)
                    .map(|_| ())
                    .map_err(|e| format!("zstd: {e}"))?,
                other => return Err(format!("compression kind {other} is not supported")),
            }
            out.extend_from_slice(&buf);
        }
        if out.len() > MAX_FOOTER {
            return Err("footer larger than 64 MiB".into());
        }
    }
    Ok(out)
}

enum Field<'a> {
    Varint(u64),
    Bytes(&'a [u8]),
}

/// Calls `f` for each field of a protobuf message; fixed-width fields are skipped.
fn for_each_field<'a>(
    msg: &'a [u8],
    mut f: impl FnMut(u64, Field<'a>) -> Result<()>,
) -> Result<()> {
    let mut r = ByteReader::new(msg, "protobuf message");
    while !r.is_empty() {
        let key = r.varint_u64()?;
        let (field, wire) = (key >> 3, key & 7);
        match wire {
            0 => f(field, Field::Varint(r.varint_u64()?))?,
            1 => {
                r.take(8)?;
            }
            2 => {
                let len = usize::try_from(r.varint_u64()?).map_err(|_| r.invalid("length"))?;
                f(field, Field::Bytes(r.take(len)?))?;
            }
            5 => {
                r.take(4)?;
            }
            other => return Err(r.invalid(format!("wire type {other}"))),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::java_fixtures;

    fn orc_files() -> Vec<std::path::PathBuf> {
        let mut out = Vec::new();
        let mut stack = vec![java_fixtures()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else if std::fs::read(&p).unwrap().starts_with(b"ORC") {
                    out.push(p);
                }
            }
        }
        out
    }

    #[test]
    fn every_java_orc_file_passes() {
        let files = orc_files();
        assert!(files.len() > 100, "{}", files.len());
        for p in files {
            check_orc_type_tree(&std::fs::read(&p).unwrap(), p.to_str().unwrap()).unwrap();
        }
    }

    #[test]
    fn the_tail_alone_passes_and_one_byte_less_does_not() {
        let mut with_metadata = 0;
        for p in orc_files() {
            let bytes = std::fs::read(&p).unwrap();
            let ps = orc_postscript(&bytes, "x").unwrap();
            assert!(ps.footer_len > 0 && ps.postscript_len > 0, "{p:?}");
            with_metadata += usize::from(ps.metadata_len > 0);
            let tail = ps.tail_len().unwrap() as usize;
            // header "ORC" + at least one byte of stripes come before the tail
            assert!(tail + 3 <= bytes.len(), "{p:?}");
            check_orc_type_tree(&bytes[bytes.len() - tail..], "tail").unwrap();
            let footer_only = ps.footer_len + ps.postscript_len + 1;
            check_orc_type_tree(&bytes[bytes.len() - footer_only as usize..], "f").unwrap();
            let short = &bytes[bytes.len() - footer_only as usize + 1..];
            assert!(check_orc_type_tree(short, "short").is_err(), "{p:?}");
        }
        assert!(with_metadata > 100, "{with_metadata}");
    }

    #[test]
    fn a_backward_subtype_is_rejected_and_garbage_never_panics() {
        // Footer: types [struct{subtypes [1]}, int], then the same with type 1 pointing at 0.
        let footer = |sub_of_1: Option<u8>| {
            let mut t0 = vec![0x08, 12, 0x12, 1, 1]; // kind=STRUCT, packed subtypes [1]
            let t1: Vec<u8> = match sub_of_1 {
                None => vec![0x08, 3],
                Some(s) => vec![0x08, 12, 0x12, 1, s],
            };
            let mut f = vec![0x22, t0.len() as u8];
            f.append(&mut t0);
            f.extend([0x22, t1.len() as u8]);
            f.extend(t1);
            f
        };
        let file = |footer: Vec<u8>| {
            let mut out = b"ORC".to_vec();
            let ps = vec![0x08, footer.len() as u8, 0x10, 0];
            out.extend(&footer);
            out.extend(&ps);
            out.push(ps.len() as u8);
            out
        };
        check_orc_type_tree(&file(footer(None)), "ok").unwrap();
        let e = check_orc_type_tree(&file(footer(Some(0))), "cyc").unwrap_err();
        assert!(e.to_string().contains("type 1 has subtype 0"), "{e}");
        let good = file(footer(None));
        for cut in 0..good.len() {
            let _ = check_orc_type_tree(&good[cut..], "x");
            let _ = check_orc_type_tree(&good[..cut], "x");
        }
    }
}

#[cfg(test)]
mod flip_tests {
    use crate::spec::manifest::decode_manifest;
    use crate::test_util::java_fixtures;

    /// Every single-byte flip in the tail (footer + postscript) of a real ORC manifest decodes
    /// or errors; none may abort the process (orc-rust used to overflow the stack on byte 1827
    /// of this file).
    #[test]
    fn flipping_footer_bytes_of_a_java_orc_manifest_never_aborts() {
        let p = java_fixtures().join("parquet/append_09.db/append_09/manifest/manifest-7008d4c0-b1b0-4237-ac6d-845b887efc92-0");
        let bytes = std::fs::read(p).unwrap();
        let from = bytes.len().saturating_sub(700);
        for i in from..bytes.len() {
            for mask in [0x01u8, 0x80, 0xff] {
                let mut b = bytes.clone();
                b[i] ^= mask;
                let _ = decode_manifest(&b, "flipped");
            }
        }
    }
}
