//! Avro Object Container File decoding into [`Record`]s, for Paimon manifests.
//!
//! Java writes manifests through `org.apache.paimon.format.avro.AvroFileFormat` (Paimon 2.0):
//! an Avro OCF whose writer schema is a record (or, for 0.9 writers, `["null", record]`).
//! This is a small, bounds-checked reader of that container, written here rather than taken
//! from `apache_avro::Reader` because that reader allocates from untrusted lengths, reserves
//! arrays by declared count and can panic on crafted headers. `apache_avro::Codec` is still used
//! to decompress blocks.
//!
//! | part | layout |
//! |---|---|
//! | magic | `4F 62 6A 01` (`Obj\x01`) |
//! | metadata | Avro `map<bytes>`: `avro.schema` (JSON), `avro.codec` (`null`, `deflate`, `snappy`, `zstandard`, `bzip2`, `xz`) |
//! | sync marker | 16 bytes |
//! | block* | long row count, long byte size, `size` bytes (compressed rows), 16-byte sync marker |
//!
//! Rows are decoded with the writer schema; unions resolve to the written branch, so 0.9's
//! nullable records need no special case. Named-type references are resolved only to types
//! already fully defined, so recursive schemas are rejected (and decoding depth is bounded by
//! the schema depth, itself capped).

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::str::FromStr;
use std::sync::Arc;

use serde_json::Value as Json;

use super::record::{Record, Value};
use crate::spec::bytes::ByteReader;
use crate::{Error, Result};

/// The container magic.
pub(crate) const MAGIC: &[u8; 4] = b"Obj\x01";
/// Deepest schema nesting accepted (Paimon manifests nest 4 levels).
const MAX_SCHEMA_DEPTH: usize = 32;
/// Largest decompressed block accepted where the size is declared up front (snappy).
const MAX_BLOCK_BYTES: usize = 256 << 20;

/// A writer schema, reduced to what decoding needs.
#[derive(Debug, Clone)]
pub(super) enum Schema {
    Null,
    Boolean,
    Int,
    Long,
    Float,
    Double,
    Bytes,
    String,
    Record(Arc<[String]>, Vec<Schema>),
    Enum(Vec<String>),
    Array(Box<Schema>),
    Map(Box<Schema>),
    Union(Vec<Schema>),
    Fixed(usize),
}

fn schema_err(msg: impl std::fmt::Display) -> Error {
    Error::data_invalid(format!("avro schema: {msg}"))
}

fn primitive(name: &str) -> Option<Schema> {
    Some(match name {
        "null" => Schema::Null,
        "boolean" => Schema::Boolean,
        "int" => Schema::Int,
        "long" => Schema::Long,
        "float" => Schema::Float,
        "double" => Schema::Double,
        "bytes" => Schema::Bytes,
        "string" => Schema::String,
        _ => return None,
    })
}

/// Parses writer schemas; remembers named types once they are complete.
#[derive(Default)]
struct SchemaParser {
    named: HashMap<String, Schema>,
}

impl SchemaParser {
    fn parse(&mut self, json: &Json, depth: usize) -> Result<Schema> {
        if depth > MAX_SCHEMA_DEPTH {
            return Err(schema_err(format!("nested deeper than {MAX_SCHEMA_DEPTH}")));
        }
        match json {
            Json::String(name) => primitive(name)
                .or_else(|| self.named.get(name.as_str()).cloned())
                .ok_or_else(|| schema_err(format!("unknown or recursive type `{name}`"))),
            Json::Array(branches) => branches
                .iter()
                .map(|b| self.parse(b, depth + 1))
                .collect::<Result<Vec<_>>>()
                .map(Schema::Union),
            Json::Object(obj) => match obj.get("type") {
                Some(Json::String(t)) => self.parse_complex(t, obj, depth),
                Some(inner) => self.parse(inner, depth + 1),
                None => Err(schema_err("object without `type`")),
            },
            other => Err(schema_err(format!("unexpected JSON {other}"))),
        }
    }

    fn parse_complex(
        &mut self,
        t: &str,
        obj: &serde_json::Map<String, Json>,
        depth: usize,
    ) -> Result<Schema> {
        let schema = match t {
            "record" | "error" => {
                let Some(Json::Array(fields)) = obj.get("fields") else {
                    return Err(schema_err("record without `fields` array"));
                };
                let mut names = Vec::new();
                let mut types = Vec::new();
                for f in fields {
                    let name = f.get("name").and_then(Json::as_str);
                    let (Some(name), Some(ty)) = (name, f.get("type")) else {
                        return Err(schema_err("record field without `name` or `type`"));
                    };
                    names.push(name.to_string());
                    types.push(self.parse(ty, depth + 1)?);
                }
                Schema::Record(names.into(), types)
            }
            "enum" => {
                let Some(Json::Array(symbols)) = obj.get("symbols") else {
                    return Err(schema_err("enum without `symbols`"));
                };
                let symbols = symbols.iter().map(|s| s.as_str().unwrap_or("").to_string());
                Schema::Enum(symbols.collect())
            }
            "array" => {
                let items = obj
                    .get("items")
                    .ok_or_else(|| schema_err("array without items"))?;
                Schema::Array(Box::new(self.parse(items, depth + 1)?))
            }
            "map" => {
                let values = obj
                    .get("values")
                    .ok_or_else(|| schema_err("map without values"))?;
                Schema::Map(Box::new(self.parse(values, depth + 1)?))
            }
            "fixed" => {
                let size = obj.get("size").and_then(Json::as_u64);
                let size = size.and_then(|s| usize::try_from(s).ok());
                Schema::Fixed(size.ok_or_else(|| schema_err("fixed without a valid size"))?)
            }
            other => primitive(other)
                .ok_or_else(|| schema_err(format!("unknown or recursive type `{other}`")))?,
        };
        self.remember(obj, &schema);
        Ok(schema)
    }

    /// Registers a completed named type under its full and short names.
    fn remember(&mut self, obj: &serde_json::Map<String, Json>, schema: &Schema) {
        let Some(name) = obj.get("name").and_then(Json::as_str) else {
            return;
        };
        let full = match obj.get("namespace").and_then(Json::as_str) {
            Some(ns) if !ns.is_empty() && !name.contains('.') => format!("{ns}.{name}"),
            _ => name.to_string(),
        };
        let short = full.rsplit('.').next().unwrap_or(&full).to_string();
        self.named.insert(short, schema.clone());
        self.named.insert(full, schema.clone());
    }
}

/// A zig-zag varint `long` (also `int`, union branch, counts and lengths).
pub(super) fn long(r: &mut ByteReader<'_>) -> Result<i64> {
    let n = r.varint_u64()?;
    Ok(((n >> 1) as i64) ^ -((n & 1) as i64))
}

/// A non-negative `long` length.
pub(super) fn length(r: &mut ByteReader<'_>) -> Result<usize> {
    let n = long(r)?;
    usize::try_from(n).map_err(|_| r.invalid(format!("negative length {n}")))
}

/// Reads the metadata map of the header.
fn read_metadata<'a>(r: &mut ByteReader<'a>) -> Result<HashMap<&'a str, &'a [u8]>> {
    let mut out = HashMap::new();
    loop {
        let count = long(r)?;
        if count == 0 {
            return Ok(out);
        }
        if count < 0 {
            long(r)?; // block byte size, unused
        }
        for _ in 0..count.unsigned_abs() {
            let key_len = length(r)?;
            let key = std::str::from_utf8(r.take(key_len)?)
                .map_err(|_| r.invalid("metadata key is not UTF-8"))?;
            let value_len = length(r)?;
            out.insert(key, r.take(value_len)?);
        }
    }
}

fn decode(schema: &Schema, r: &mut ByteReader<'_>) -> Result<Value> {
    Ok(match schema {
        Schema::Null => Value::Null,
        Schema::Boolean => match r.u8()? {
            0 => Value::Boolean(false),
            1 => Value::Boolean(true),
            b => return Err(r.invalid(format!("boolean byte {b}"))),
        },
        Schema::Int => {
            let v = long(r)?;
            Value::Int(i32::try_from(v).map_err(|_| r.invalid(format!("int out of range {v}")))?)
        }
        Schema::Long => Value::Long(long(r)?),
        Schema::Float => Value::Float(f32::from_bits(r.u32_le()?)),
        Schema::Double => Value::Double(f64::from_bits(r.u64_le()?)),
        Schema::Bytes => {
            let n = length(r)?;
            Value::Bytes(r.take(n)?.to_vec())
        }
        Schema::String => {
            let n = length(r)?;
            let s = std::str::from_utf8(r.take(n)?).map_err(|_| r.invalid("string not UTF-8"))?;
            Value::String(s.to_string())
        }
        Schema::Fixed(n) => Value::Bytes(r.take(*n)?.to_vec()),
        Schema::Enum(symbols) => {
            let i = long(r)?;
            let s = usize::try_from(i).ok().and_then(|i| symbols.get(i));
            Value::String(
                s.ok_or_else(|| r.invalid(format!("enum index {i}")))?
                    .clone(),
            )
        }
        Schema::Union(branches) => {
            let i = long(r)?;
            let b = usize::try_from(i).ok().and_then(|i| branches.get(i));
            decode(b.ok_or_else(|| r.invalid(format!("union branch {i}")))?, r)?
        }
        Schema::Record(names, types) => {
            let values = types.iter().map(|t| decode(t, r)).collect::<Result<_>>()?;
            Value::Record(Record::new(names.clone(), values))
        }
        Schema::Array(item) => Value::Array(decode_blocks(r, |r| decode(item, r))?),
        Schema::Map(value) => Value::Map(decode_blocks(r, |r| {
            let key = match decode(&Schema::String, r)? {
                Value::String(s) => s,
                _ => String::new(),
            };
            Ok((key, decode(value, r)?))
        })?),
    })
}

/// Skips one value of `schema` without allocating (strings are not checked for UTF-8).
pub(super) fn skip(schema: &Schema, r: &mut ByteReader<'_>) -> Result<()> {
    match schema {
        Schema::Null => {}
        Schema::Boolean => match r.u8()? {
            0 | 1 => {}
            b => return Err(r.invalid(format!("boolean byte {b}"))),
        },
        Schema::Int | Schema::Long | Schema::Enum(_) => {
            long(r)?;
        }
        Schema::Float => {
            r.take(4)?;
        }
        Schema::Double => {
            r.take(8)?;
        }
        Schema::Bytes | Schema::String => {
            let n = length(r)?;
            r.take(n)?;
        }
        Schema::Fixed(n) => {
            r.take(*n)?;
        }
        Schema::Union(branches) => {
            let i = long(r)?;
            let b = usize::try_from(i).ok().and_then(|i| branches.get(i));
            skip(b.ok_or_else(|| r.invalid(format!("union branch {i}")))?, r)?;
        }
        Schema::Record(_, types) => {
            for t in types {
                skip(t, r)?;
            }
        }
        Schema::Array(item) => skip_blocks(r, |r| skip(item, r))?,
        Schema::Map(value) => skip_blocks(r, |r| {
            let n = length(r)?;
            r.take(n)?;
            skip(value, r)
        })?,
    }
    Ok(())
}

/// Walks the blocks of an array or map, `item` once per element.
pub(super) fn skip_blocks(
    r: &mut ByteReader<'_>,
    mut item: impl FnMut(&mut ByteReader<'_>) -> Result<()>,
) -> Result<()> {
    loop {
        let count = long(r)?;
        if count == 0 {
            return Ok(());
        }
        if count < 0 {
            long(r)?; // block byte size, unused
        }
        let count = count.unsigned_abs();
        if count > r.remaining() as u64 {
            return Err(r.invalid(format!("block of {count} items exceeds the input")));
        }
        for _ in 0..count {
            item(r)?;
        }
    }
}

/// Reads the blocks of an array or map; never reserves by a declared count.
fn decode_blocks<T>(
    r: &mut ByteReader<'_>,
    mut item: impl FnMut(&mut ByteReader<'_>) -> Result<T>,
) -> Result<Vec<T>> {
    let mut out = Vec::new();
    loop {
        let count = long(r)?;
        if count == 0 {
            return Ok(out);
        }
        if count < 0 {
            long(r)?; // block byte size, unused
        }
        let count = count.unsigned_abs();
        if count > r.remaining() as u64 {
            return Err(r.invalid(format!("block of {count} items exceeds the input")));
        }
        for _ in 0..count {
            out.push(item(r)?);
        }
    }
}

fn codec_err(codec: &str, e: impl std::fmt::Display) -> Error {
    Error::data_invalid(format!(
        "avro block: cannot decompress with codec `{codec}`: {e}"
    ))
}

/// Decompresses one block.
fn decompress<'a>(codec: &str, data: &'a [u8]) -> Result<Cow<'a, [u8]>> {
    if codec == "null" {
        return Ok(Cow::Borrowed(data));
    }
    if codec == "zstandard" {
        return zstd_block(data).map(Cow::Owned);
    }
    let parsed = apache_avro::Codec::from_str(codec)
        .map_err(|_| Error::unsupported(format!("avro codec `{codec}`")))?;
    if parsed == apache_avro::Codec::Snappy {
        check_snappy(data).map_err(|e| codec_err(codec, e))?;
    }
    let mut buf = data.to_vec();
    match parsed {
        // These two codecs unwrap their decoder's errors inside apache-avro 0.21.
        apache_avro::Codec::Bzip2(_) | apache_avro::Codec::Xz(_) => {
            let run = std::panic::AssertUnwindSafe(|| parsed.decompress(&mut buf));
            std::panic::catch_unwind(run)
                .map_err(|_| codec_err(codec, "corrupt compressed block"))?
                .map_err(|e| codec_err(codec, e))?
        }
        _ => parsed
            .decompress(&mut buf)
            .map_err(|e| codec_err(codec, e))?,
    }
    Ok(Cow::Owned(buf))
}

thread_local! {
    /// This thread's zstd decompression context, reused across blocks and files (Java's default
    /// manifest codec; creating a context per block costs more than decoding a small manifest).
    static ZSTD: RefCell<Option<zstd::zstd_safe::DCtx<'static>>> = const { RefCell::new(None) };
}

/// zstd-decompresses one block (one or more frames) with this thread's context; the output is
/// capped at [`MAX_BLOCK_BYTES`].
fn zstd_block(data: &[u8]) -> Result<Vec<u8>> {
    use zstd::zstd_safe::{get_error_name, DCtx, InBuffer, OutBuffer, ResetDirective};
    let err = |e: &str| codec_err("zstandard", e);
    ZSTD.with_borrow_mut(|slot| {
        let dctx = match slot {
            Some(d) => d,
            None => slot.insert(DCtx::try_create().ok_or_else(|| err("no context"))?),
        };
        dctx.reset(ResetDirective::SessionOnly)
            .map_err(|c| err(get_error_name(c)))?;
        let mut out: Vec<u8> =
            Vec::with_capacity(data.len().saturating_mul(4).clamp(256, MAX_BLOCK_BYTES));
        let mut input = InBuffer::around(data);
        loop {
            if out.len() == out.capacity() {
                if out.len() >= MAX_BLOCK_BYTES {
                    return Err(err("block larger than 256 MiB"));
                }
                let room = MAX_BLOCK_BYTES - out.len();
                out.reserve(out.len().max(256).min(room));
            }
            let (before_in, before_out) = (input.pos(), out.len());
            let mut ob = OutBuffer::around_pos(&mut out, before_out);
            let hint = dctx
                .decompress_stream(&mut ob, &mut input)
                .map_err(|c| err(get_error_name(c)))?;
            let wrote = ob.pos() > before_out;
            let done = input.pos() == data.len();
            if hint == 0 && done {
                return Ok(out);
            }
            if done && !wrote && input.pos() == before_in && out.len() < out.capacity() {
                return Err(err("truncated frame"));
            }
        }
    })
}

/// Snappy blocks are `varint(uncompressed len) ++ data ++ crc32 BE`; apache-avro slices and
/// allocates from these unchecked.
fn check_snappy(data: &[u8]) -> Result<()> {
    let body = data
        .len()
        .checked_sub(4)
        .ok_or_else(|| codec_err("snappy", "short block"))?;
    let mut r = ByteReader::new(data.get(..body).unwrap_or_default(), "snappy block");
    let len = r.varint_u64()?;
    if len > MAX_BLOCK_BYTES as u64 {
        return Err(r.invalid(format!("uncompressed size {len} over {MAX_BLOCK_BYTES}")));
    }
    Ok(())
}

thread_local! {
    /// The writer schema last parsed on this thread, with its JSON text: the manifests of a
    /// table share one schema, so planning parses it once per thread instead of per file.
    static LAST_SCHEMA: RefCell<Option<(Vec<u8>, Rc<Schema>)>> = const { RefCell::new(None) };
}

/// The parsed writer schema of `json` (its `avro.schema` bytes), from the one-entry cache when
/// the text is the same.
fn parse_schema(json: &[u8]) -> Result<Rc<Schema>> {
    let cached = LAST_SCHEMA.with_borrow(|c| {
        c.as_ref()
            .filter(|(text, _)| text.as_slice() == json)
            .map(|(_, s)| s.clone())
    });
    if let Some(s) = cached {
        return Ok(s);
    }
    let parsed: Json = serde_json::from_slice(json)?;
    let schema = Rc::new(SchemaParser::default().parse(&parsed, 0)?);
    LAST_SCHEMA.with_borrow_mut(|c| *c = Some((json.to_vec(), schema.clone())));
    Ok(schema)
}

/// Walks the blocks of an Avro container: `block(schema, rows, data)` gets each block's
/// declared row count (at most its byte length) and decompressed rows, and must consume `data`
/// exactly (checked here).
pub(super) fn for_each_block(
    bytes: &[u8],
    mut block: impl FnMut(&Schema, u64, &mut ByteReader<'_>) -> Result<()>,
) -> Result<()> {
    let mut r = ByteReader::new(bytes, "avro header");
    if r.take(4)? != MAGIC {
        return Err(r.invalid("not an Avro container (magic)"));
    }
    let meta = read_metadata(&mut r)?;
    let schema_json = meta
        .get("avro.schema")
        .ok_or_else(|| r.invalid("no `avro.schema` in metadata"))?;
    let schema = parse_schema(schema_json)?;
    let codec = match meta.get("avro.codec") {
        Some(c) => std::str::from_utf8(c).map_err(|_| r.invalid("codec name not UTF-8"))?,
        None => "null",
    };
    let sync: [u8; 16] = r.array()?;
    let mut r = ByteReader::new(bytes.get(r.position()..).unwrap_or_default(), "avro block");
    while !r.is_empty() {
        let count = long(&mut r)?;
        let size = length(&mut r)?;
        let data = r.take(size)?;
        if r.array::<16>()? != sync {
            return Err(r.invalid("sync marker mismatch"));
        }
        let data = decompress(codec, data)?;
        let count = u64::try_from(count).map_err(|_| r.invalid("negative row count"))?;
        if count > data.len() as u64 {
            return Err(r.invalid(format!("{count} rows in a block of {} bytes", data.len())));
        }
        let mut d = ByteReader::new(&data, "avro row");
        block(&schema, count, &mut d)?;
        if !d.is_empty() {
            return Err(d.invalid(format!(
                "{} bytes after the last row of a block",
                d.remaining()
            )));
        }
    }
    Ok(())
}

/// Decodes every row of an Avro container; each row must be a record.
pub(crate) fn read_records(bytes: &[u8]) -> Result<Vec<Record>> {
    let mut rows = Vec::new();
    for_each_block(bytes, |schema, count, d| {
        for _ in 0..count {
            match decode(schema, d)? {
                Value::Record(rec) => rows.push(rec),
                other => {
                    return Err(d.invalid(format!("row is {}, not a record", other.type_name())))
                }
            }
        }
        Ok(())
    })?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zz(v: i64) -> Vec<u8> {
        let mut n = ((v << 1) ^ (v >> 63)) as u64;
        let mut out = Vec::new();
        loop {
            let b = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                out.push(b);
                return out;
            }
            out.push(b | 0x80);
        }
    }

    fn container(schema: &str, codec: &str, rows: u64, body: &[u8]) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend(zz(2));
        for (k, v) in [("avro.schema", schema), ("avro.codec", codec)] {
            out.extend(zz(k.len() as i64));
            out.extend(k.as_bytes());
            out.extend(zz(v.len() as i64));
            out.extend(v.as_bytes());
        }
        out.extend(zz(0));
        out.extend([7u8; 16]);
        out.extend(zz(rows as i64));
        out.extend(zz(body.len() as i64));
        out.extend(body);
        out.extend([7u8; 16]);
        out
    }

    const SCHEMA: &str = r#"["null", {"type":"record","name":"r","fields":[
        {"name":"a","type":"int"},{"name":"b","type":["null","string"]},
        {"name":"c","type":{"type":"array","items":"long"}}]}]"#;

    #[test]
    fn decodes_hand_built_rows() {
        // row: union branch 1, a = -3, b = branch 1 "hi", c = [5, 6]
        let mut body = vec![2, 5, 2, 4, b'h', b'i', 4, 10, 12, 0];
        body.extend([2, 0, 0, 0]); // second row: a = 0, b = null, c = []
        let rows = read_records(&container(SCHEMA, "null", 2, &body)).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].get("a"), Some(&Value::Int(-3)));
        assert_eq!(rows[0].get("b"), Some(&Value::String("hi".into())));
        assert_eq!(
            rows[0].get("c"),
            Some(&Value::Array(vec![Value::Long(5), Value::Long(6)]))
        );
        assert_eq!(rows[1].get("b"), Some(&Value::Null));
        assert_eq!(rows[1].get("zzz"), None);
    }

    #[test]
    fn cached_schema_is_used_only_for_the_same_text() {
        // The same row bytes read as `a: int` and, under another schema, as `x: long`.
        const OTHER: &str = r#"{"type":"record","name":"r","fields":[{"name":"x","type":"long"}]}"#;
        let row = |schema: &str| read_records(&container(schema, "null", 1, &[6])).unwrap();
        for _ in 0..2 {
            assert_eq!(row(OTHER)[0].get("x"), Some(&Value::Long(3)));
            assert_eq!(row(OTHER)[0].get("a"), None);
            let err = read_records(&container(SCHEMA, "null", 1, &[6])).unwrap_err();
            assert!(err.to_string().contains("union"), "{err}");
        }
    }

    #[test]
    fn every_standard_codec_round_trips() {
        let plain = vec![2, 5, 2, 4, b'h', b'i', 4, 10, 12, 0];
        for name in ["null", "deflate", "snappy", "zstandard", "bzip2", "xz"] {
            let codec = apache_avro::Codec::from_str(name).unwrap();
            let mut body = plain.clone();
            codec.compress(&mut body).unwrap();
            let rows = read_records(&container(SCHEMA, name, 1, &body)).unwrap();
            assert_eq!(rows[0].get("a"), Some(&Value::Int(-3)), "{name}");
        }
    }

    #[test]
    fn zstd_blocks_grow_concatenate_and_reject_truncation() {
        let big: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        let mut two = zstd::encode_all(&big[..], 1).unwrap();
        two.extend(zstd::encode_all(&b"tail"[..], 1).unwrap());
        let out = zstd_block(&two).unwrap();
        assert_eq!(out.len(), big.len() + 4);
        assert_eq!(&out[..big.len()], &big[..]);
        assert_eq!(&out[big.len()..], b"tail");
        // The context is reused: a second block decodes the same.
        assert_eq!(zstd_block(&two).unwrap(), out);
        for cut in [1, two.len() / 2, two.len() - 1] {
            assert!(zstd_block(&two[..cut]).is_err(), "cut {cut}");
        }
        assert_eq!(zstd_block(&two).unwrap(), out, "usable after an error");
    }

    #[test]
    fn rejects_bad_counts_recursion_and_codecs() {
        let huge = container(SCHEMA, "null", 1, &[2, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0x0f]);
        assert!(read_records(&huge).is_err());
        let too_many_rows = container(SCHEMA, "null", 100, &[2, 0, 0, 0]);
        assert!(read_records(&too_many_rows).is_err());
        let recursive =
            r#"{"type":"record","name":"n","fields":[{"name":"x","type":["null","n"]}]}"#;
        let e = read_records(&container(recursive, "null", 1, &[0])).unwrap_err();
        assert!(e.to_string().contains("recursive"), "{e}");
        let e = read_records(&container(SCHEMA, "lz9", 1, &[2, 0, 0, 0])).unwrap_err();
        assert!(e.to_string().contains("lz9"), "{e}");
        for codec in ["snappy", "deflate", "zstandard", "bzip2", "xz"] {
            for body in [&[][..], &[1, 2][..], &[0xff; 40][..]] {
                assert!(read_records(&container(SCHEMA, codec, 1, body)).is_err());
            }
        }
    }
}
