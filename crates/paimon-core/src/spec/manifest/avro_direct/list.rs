//! Manifest-list rows (`ManifestFileMeta`) decoded directly from Avro.

use super::{avro, check_version, read_int, read_long, read_stats, read_string, rows, At};
use super::{field_schema, stats_plan, Nested, Schema, Slots, StatsPlan};
use crate::spec::bytes::ByteReader;
use crate::spec::manifest::file_meta::{ManifestFileMeta, MANIFEST_FILE_META_VERSION};
use crate::Result;

const META_FIELDS: [&str; 13] = [
    "_VERSION",
    "_FILE_NAME",
    "_FILE_SIZE",
    "_NUM_ADDED_FILES",
    "_NUM_DELETED_FILES",
    "_PARTITION_STATS",
    "_SCHEMA_ID",
    "_MIN_BUCKET",
    "_MAX_BUCKET",
    "_MIN_LEVEL",
    "_MAX_LEVEL",
    "_MIN_ROW_ID",
    "_MAX_ROW_ID",
];
const META_WHAT: &str = "ManifestFileMeta";

#[derive(Debug)]
struct MetaPlan {
    slots: Slots,
    partition_stats: Nested<StatsPlan>,
}

fn meta_plan(names: &[String], types: &[Schema]) -> MetaPlan {
    let slots = Slots::new(names, &META_FIELDS);
    MetaPlan {
        partition_stats: Nested::compile(field_schema(&slots, types, 5), stats_plan),
        slots,
    }
}

fn read_meta(p: &MetaPlan, types: &[Schema], r: &mut ByteReader<'_>) -> Result<ManifestFileMeta> {
    let mut version = None;
    let mut name = None;
    let mut stats = None;
    // _FILE_SIZE, _NUM_ADDED_FILES, _NUM_DELETED_FILES, _SCHEMA_ID, _MIN_ROW_ID, _MAX_ROW_ID
    let mut longs = [None; 6];
    // _MIN_BUCKET, _MAX_BUCKET, _MIN_LEVEL, _MAX_LEVEL
    let mut ints = [None; 4];
    for (slot, ty) in p.slots.slots.iter().zip(types) {
        let Some(t) = *slot else {
            avro::skip(ty, r)?;
            continue;
        };
        let at = At {
            what: META_WHAT,
            name: META_FIELDS[t],
        };
        match t {
            0 => version = read_int(ty, r, at)?,
            1 => name = read_string(ty, r, at)?,
            2..=4 => longs[t - 2] = read_long(ty, r, at)?,
            5 => {
                stats = read_stats(
                    ty,
                    &p.partition_stats,
                    r,
                    at,
                    "ManifestFileMeta._PARTITION_STATS",
                )?
            }
            6 => longs[3] = read_long(ty, r, at)?,
            7..=10 => ints[t - 7] = read_int(ty, r, at)?,
            11 | 12 => longs[t - 7] = read_long(ty, r, at)?,
            _ => avro::skip(ty, r)?,
        }
    }
    let has = |t: usize| p.slots.has(t);
    let at = |t: usize| At {
        what: META_WHAT,
        name: META_FIELDS[t],
    };
    check_version(version, has(0), META_WHAT, MANIFEST_FILE_META_VERSION)?;
    Ok(ManifestFileMeta {
        file_name: at(1).required(name, has(1))?,
        file_size: at(2).required(longs[0], has(2))?,
        num_added_files: at(3).required(longs[1], has(3))?,
        num_deleted_files: at(4).required(longs[2], has(4))?,
        partition_stats: at(5).required(stats, has(5))?,
        schema_id: at(6).required(longs[3], has(6))?,
        min_bucket: ints[0],
        max_bucket: ints[1],
        min_level: ints[2],
        max_level: ints[3],
        min_row_id: longs[4],
        max_row_id: longs[5],
    })
}

/// Decodes an Avro manifest list (`manifest/manifest-list-*`) directly; `file` names the file
/// in errors.
pub(crate) fn decode_manifest_list(bytes: &[u8], file: &str) -> Result<Vec<ManifestFileMeta>> {
    let mut out = Vec::new();
    rows(bytes, file, meta_plan, |p, types, r| {
        out.push(read_meta(p, types, r)?);
        Ok(())
    })?;
    Ok(out)
}
