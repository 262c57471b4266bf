//! Avro maps read in file order.
//!
//! `apache_avro` decodes an Avro map into a `HashMap`, which loses the order of its entries;
//! Java reads them in file order. An Avro map block and an array block of `{key: string,
//! value}` records are the same bytes (a count, then key and value after key and value), so
//! the file's header is re-written with every map in its schema declared as such an array
//! (the data blocks are not touched), and the reader sees ordered entries (which
//! [`super::avro`] already reads as it reads Java's maps with non-string keys).

use std::io::{Cursor, Read};

use serde_json::{json, Value as Json};

use crate::spec::manifest::RowEncoder;
use crate::{Error, Result};

const MAGIC: &[u8; 4] = b"Obj\x01";
/// A header item longer than this is refused as corrupt (schemas are kilobytes).
const MAX_ITEM: u64 = 64 << 20;

/// `src` with its container header re-written so that maps are arrays of `{key, value}`
/// records; the data blocks are streamed unchanged.
pub(crate) fn ordered_maps<R: Read>(mut src: R) -> Result<std::io::Chain<Cursor<Vec<u8>>, R>> {
    let mut magic = [0u8; 4];
    read_exact(&mut src, &mut magic)?;
    if &magic != MAGIC {
        return Err(Error::data_invalid("not an Avro object container file"));
    }
    let mut items: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    loop {
        let mut count = read_long(&mut src)?;
        if count == 0 {
            break;
        }
        if count < 0 {
            count = count.checked_neg().ok_or_else(|| corrupt("block count"))?;
            read_long(&mut src)?;
        }
        for _ in 0..count {
            let key = read_bytes(&mut src)?;
            let value = read_bytes(&mut src)?;
            items.push((key, value));
        }
    }
    let mut marker = [0u8; 16];
    read_exact(&mut src, &mut marker)?;
    for (key, value) in &mut items {
        if key.as_slice() == b"avro.schema" {
            let schema: Json = serde_json::from_slice(value)
                .map_err(|e| Error::data_invalid(format!("Avro schema is not JSON: {e}")))?;
            let mut n = 0;
            *value = serde_json::to_vec(&maps_as_entries(schema, &mut n))
                .map_err(|e| Error::internal(format!("cannot write an Avro schema: {e}")))?;
        }
    }
    let mut header = RowEncoder::default();
    header.buf.extend_from_slice(MAGIC);
    if !items.is_empty() {
        header.long(items.len() as i64);
        for (key, value) in &items {
            header.bytes(key);
            header.bytes(value);
        }
    }
    header.long(0);
    header.buf.extend_from_slice(&marker);
    Ok(Cursor::new(header.buf).chain(src))
}

/// `schema` with every `{"type": "map", "values": V}` replaced by an array of
/// `{key: string, value: V}` records (named `paimon_map_entry_<n>`, unique in the schema).
fn maps_as_entries(schema: Json, n: &mut usize) -> Json {
    match schema {
        Json::Array(items) => {
            Json::Array(items.into_iter().map(|s| maps_as_entries(s, n)).collect())
        }
        Json::Object(obj) => {
            let mut obj: serde_json::Map<String, Json> = obj
                .into_iter()
                .map(|(k, v)| (k, maps_as_entries(v, n)))
                .collect();
            if obj.get("type").and_then(Json::as_str) != Some("map") {
                return Json::Object(obj);
            }
            let values = obj.remove("values").unwrap_or(Json::Null);
            *n += 1;
            json!({"type": "array", "items": {
            "type": "record", "name": format!("paimon_map_entry_{n}"), "fields": [
                {"name": "key", "type": "string"},
                {"name": "value", "type": values},
            ]}})
        }
        other => other,
    }
}

fn corrupt(what: &str) -> Error {
    Error::data_invalid(format!("corrupt Avro header: bad {what}"))
}

fn read_exact<R: Read>(src: &mut R, buf: &mut [u8]) -> Result<()> {
    src.read_exact(buf)
        .map_err(|e| Error::data_invalid(format!("truncated Avro header: {e}")))
}

/// A zigzag varint long.
fn read_long<R: Read>(src: &mut R) -> Result<i64> {
    let mut out = 0u64;
    for shift in (0..64).step_by(7) {
        let mut b = [0u8; 1];
        read_exact(src, &mut b)?;
        out |= u64::from(b[0] & 0x7f) << shift;
        if b[0] & 0x80 == 0 {
            return Ok((out >> 1) as i64 ^ -((out & 1) as i64));
        }
    }
    Err(corrupt("varint"))
}

fn read_bytes<R: Read>(src: &mut R) -> Result<Vec<u8>> {
    let len = u64::try_from(read_long(src)?).map_err(|_| corrupt("length"))?;
    if len > MAX_ITEM {
        return Err(corrupt("length"));
    }
    let mut out = vec![0u8; len as usize];
    read_exact(src, &mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_become_arrays_of_entries_at_any_depth() {
        let schema = json!({"type": "record", "name": "r", "fields": [
            {"name": "m", "type": ["null", {"type": "map", "values": "int"}]},
            {"name": "a", "type": {"type": "array", "items":
                {"type": "map", "values": {"type": "map", "values": "string"}}}},
            {"name": "x", "type": "long"}]});
        let mut n = 0;
        let out = maps_as_entries(schema, &mut n);
        assert_eq!(n, 3);
        assert_eq!(
            out["fields"][0]["type"][1],
            json!({"type": "array", "items": {"type": "record", "name": "paimon_map_entry_1",
                "fields": [{"name": "key", "type": "string"}, {"name": "value", "type": "int"}]}})
        );
        let inner = &out["fields"][1]["type"]["items"];
        assert_eq!(inner["type"], "array");
        assert_eq!(inner["items"]["fields"][1]["type"]["type"], "array");
        assert_eq!(out["fields"][2], json!({"name": "x", "type": "long"}));
        apache_avro::Schema::parse(&out).unwrap();
    }

    #[test]
    fn longs_round_trip() {
        for v in [0i64, 1, -1, 63, -64, 64, 300, -300, i64::MAX, i64::MIN] {
            let mut e = RowEncoder::default();
            e.long(v);
            assert_eq!(read_long(&mut &e.buf[..]).unwrap(), v, "{v}");
        }
    }

    #[test]
    fn corrupt_headers_are_errors() {
        for bad in [
            &b""[..],
            b"Obj",
            b"Obj\x02\x00",
            b"Obj\x01\x02\x16avro.schema",
            b"Obj\x01\x02\x16avro.schema\x04{}",
            b"Obj\x01\x02\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",
            b"Obj\x01\x00short",
        ] {
            let e = ordered_maps(bad).unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::DataInvalid, "{bad:?}: {e}");
        }
    }
}
