//! Avro manifests and manifest lists decoded straight into [`ManifestEntry`] and
//! [`ManifestFileMeta`], without the generic [`Record`](super::record::Record) tree.
//!
//! The generic path (`avro::read_records` → `Record` → `FieldReader`) allocates a value per
//! field and then finds fields by name, row by row. Here the writer schema's field names are
//! resolved once per file into *slots* (a plan parallel to the writer's fields), and each row is
//! decoded in one pass into the typed struct. The semantics are those of the generic path (Java
//! `FieldReaderFactory.RowReader`): fields are matched by name (the first of duplicate names
//! wins), missing optional fields read as `None`, fields unknown to this reader are skipped
//! without allocating, unions resolve to the written branch, and a missing or null required
//! field, a wrong type or a `_VERSION` other than Java's is `DataInvalid`. ORC and Parquet
//! manifests and index manifests still take the generic path; a test checks both paths give
//! the same entries for every manifest under `testdata/`.
//!
//! A caller may also pass a filter on (kind, partition, bucket, total buckets): when the writer
//! schema puts those fields before `_FILE` (as Java does), a rejected row's `_FILE` is skipped
//! without being materialised.

use super::avro::{self, length, long, Schema};
use super::data_file_meta::DataFileMeta;
use super::entry::{FileKind, ManifestEntry, MANIFEST_ENTRY_VERSION};
use super::stats::SimpleStats;
use crate::spec::bytes::ByteReader;
use crate::{Error, Result};

/// The head of a manifest row, seen by a row filter before `_FILE` is decoded.
#[derive(Debug, Clone, Copy)]
pub struct EntryHead<'a> {
    /// ADD or DELETE.
    pub kind: FileKind,
    /// Serialized partition `BinaryRow`.
    pub partition: &'a [u8],
    /// Bucket id.
    pub bucket: i32,
    /// `_TOTAL_BUCKETS` of the row.
    pub total_buckets: i32,
    /// `_FILE._SCHEMA_ID`, when it could be read ahead (`None`: unknown).
    pub schema_id: Option<i64>,
}

fn type_name(s: &Schema) -> &'static str {
    match s {
        Schema::Null => "null",
        Schema::Boolean => "boolean",
        Schema::Int => "int",
        Schema::Long => "long",
        Schema::Float => "float",
        Schema::Double => "double",
        Schema::Bytes | Schema::Fixed(_) => "bytes",
        Schema::String | Schema::Enum(_) => "string",
        Schema::Record(..) => "record",
        Schema::Array(_) => "array",
        Schema::Map(_) => "map",
        Schema::Union(_) => "union",
    }
}

/// A field of a structure, for error messages.
#[derive(Clone, Copy)]
struct At {
    what: &'static str,
    name: &'static str,
}

impl At {
    fn mismatch(self, expected: &str, found: &Schema) -> Error {
        Error::data_invalid(format!(
            "{}: field `{}` has the wrong type",
            self.what, self.name
        ))
        .with_context("field", self.name)
        .with_context("expected", expected)
        .with_context("found", type_name(found))
    }

    fn required<T>(self, v: Option<T>, present: bool) -> Result<T> {
        v.ok_or_else(|| {
            let msg = if present {
                format!("{}: required field `{}` is null", self.what, self.name)
            } else {
                format!("{}: missing required field `{}`", self.what, self.name)
            };
            Error::data_invalid(msg).with_context("field", self.name)
        })
    }
}

/// The schema of the written value: union branches followed.
fn resolve<'s>(mut s: &'s Schema, r: &mut ByteReader<'_>) -> Result<&'s Schema> {
    while let Schema::Union(branches) = s {
        let i = long(r)?;
        s = usize::try_from(i)
            .ok()
            .and_then(|i| branches.get(i))
            .ok_or_else(|| r.invalid(format!("union branch {i}")))?;
    }
    Ok(s)
}

fn int(r: &mut ByteReader<'_>) -> Result<i32> {
    let v = long(r)?;
    i32::try_from(v).map_err(|_| r.invalid(format!("int out of range {v}")))
}

fn read_long(s: &Schema, r: &mut ByteReader<'_>, at: At) -> Result<Option<i64>> {
    match resolve(s, r)? {
        Schema::Null => Ok(None),
        Schema::Int => Ok(Some(i64::from(int(r)?))),
        Schema::Long => Ok(Some(long(r)?)),
        other => Err(at.mismatch("long", other)),
    }
}

fn read_int(s: &Schema, r: &mut ByteReader<'_>, at: At) -> Result<Option<i32>> {
    match resolve(s, r)? {
        Schema::Null => Ok(None),
        Schema::Int => Ok(Some(int(r)?)),
        other => Err(at.mismatch("int", other)),
    }
}

fn read_i8(s: &Schema, r: &mut ByteReader<'_>, at: At) -> Result<Option<i8>> {
    read_int(s, r, at)?
        .map(|i| {
            i8::try_from(i).map_err(|_| {
                Error::data_invalid(format!(
                    "{}: field `{}` out of TINYINT range",
                    at.what, at.name
                ))
                .with_context("field", at.name)
                .with_context("found", i.to_string())
            })
        })
        .transpose()
}

fn read_bytes<'a>(s: &Schema, r: &mut ByteReader<'a>, at: At) -> Result<Option<&'a [u8]>> {
    match resolve(s, r)? {
        Schema::Null => Ok(None),
        Schema::Bytes => {
            let n = length(r)?;
            Ok(Some(r.take(n)?))
        }
        Schema::Fixed(n) => Ok(Some(r.take(*n)?)),
        other => Err(at.mismatch("bytes", other)),
    }
}

/// A string or enum symbol, once resolved to its written branch.
fn string_of(s: &Schema, r: &mut ByteReader<'_>, at: At, expected: &str) -> Result<String> {
    match s {
        Schema::String => {
            let n = length(r)?;
            let s = std::str::from_utf8(r.take(n)?).map_err(|_| r.invalid("string not UTF-8"))?;
            Ok(s.to_string())
        }
        Schema::Enum(symbols) => {
            let i = long(r)?;
            let s = usize::try_from(i).ok().and_then(|i| symbols.get(i));
            Ok(s.ok_or_else(|| r.invalid(format!("enum index {i}")))?
                .clone())
        }
        other => Err(at.mismatch(expected, other)),
    }
}

fn read_string(s: &Schema, r: &mut ByteReader<'_>, at: At) -> Result<Option<String>> {
    match resolve(s, r)? {
        Schema::Null => Ok(None),
        other => string_of(other, r, at, "string").map(Some),
    }
}

fn read_strings(s: &Schema, r: &mut ByteReader<'_>, at: At) -> Result<Option<Vec<String>>> {
    match resolve(s, r)? {
        Schema::Null => Ok(None),
        Schema::Array(item) => {
            let mut out = Vec::new();
            avro::skip_blocks(r, |r| {
                let s = resolve(item, r)?;
                out.push(string_of(s, r, at, "array<string not null>")?);
                Ok(())
            })?;
            Ok(Some(out))
        }
        other => Err(at.mismatch("array", other)),
    }
}

fn read_null_counts(
    s: &Schema,
    r: &mut ByteReader<'_>,
    at: At,
) -> Result<Option<Vec<Option<i64>>>> {
    match resolve(s, r)? {
        Schema::Null => Ok(None),
        Schema::Array(item) => {
            let mut out = Vec::new();
            avro::skip_blocks(r, |r| {
                out.push(match resolve(item, r)? {
                    Schema::Null => None,
                    Schema::Int => Some(i64::from(int(r)?)),
                    Schema::Long => Some(long(r)?),
                    other => {
                        return Err(Error::data_invalid(format!(
                            "{}: `_NULL_COUNTS` element is {}, not long",
                            at.what,
                            type_name(other)
                        ))
                        .with_context("field", "_NULL_COUNTS"))
                    }
                });
                Ok(())
            })?;
            Ok(Some(out))
        }
        other => Err(at.mismatch("array", other)),
    }
}

/// Where each writer field of a record goes: the index of the target field it fills, or
/// `None` (skipped). Parallel to the writer record's fields.
#[derive(Debug, Default)]
struct Slots {
    slots: Vec<Option<usize>>,
    /// Bit `i`: target field `i` exists in the writer record.
    present: u64,
}

impl Slots {
    fn new(names: &[String], targets: &[&str]) -> Self {
        let mut present = 0u64;
        let slots = names
            .iter()
            .map(|n| {
                let t = targets.iter().position(|t| t == n)?;
                // The first of duplicate names wins, as in the generic path.
                if present & (1 << t) != 0 {
                    return None;
                }
                present |= 1 << t;
                Some(t)
            })
            .collect();
        Slots { slots, present }
    }

    fn has(&self, target: usize) -> bool {
        self.present & (1 << target) != 0
    }
}

/// The plan of a record-valued field, per union branch (a single branch when not a union).
#[derive(Debug)]
enum Branch<P> {
    Null,
    Record(P),
    Other,
}

#[derive(Debug)]
struct Nested<P> {
    union: bool,
    branches: Vec<Branch<P>>,
}

impl<P> Nested<P> {
    fn compile(s: Option<&Schema>, plan: impl Fn(&[String], &[Schema]) -> P) -> Self {
        let branch = |s: &Schema| match s {
            Schema::Null => Branch::Null,
            Schema::Record(names, types) => Branch::Record(plan(names, types)),
            _ => Branch::Other,
        };
        match s {
            Some(Schema::Union(bs)) => Nested {
                union: true,
                branches: bs.iter().map(branch).collect(),
            },
            Some(s) => Nested {
                union: false,
                branches: vec![branch(s)],
            },
            None => Nested {
                union: false,
                branches: Vec::new(),
            },
        }
    }

    /// The written branch: `None` for null, else the record's plan and field types.
    fn read<'s>(
        &self,
        s: &'s Schema,
        r: &mut ByteReader<'_>,
        at: At,
    ) -> Result<Option<(&P, &'s [Schema])>> {
        let (i, written) = match s {
            Schema::Union(bs) if self.union => {
                let i = long(r)?;
                let found = usize::try_from(i).ok().and_then(|i| Some((i, bs.get(i)?)));
                found.ok_or_else(|| r.invalid(format!("union branch {i}")))?
            }
            s => (0, s),
        };
        match (self.branches.get(i), written) {
            (Some(Branch::Null), _) => Ok(None),
            (Some(Branch::Record(p)), Schema::Record(_, types)) => Ok(Some((p, types))),
            _ => Err(at.mismatch("record", written)),
        }
    }
}

/// The writer field named `targets[t]` of a record, if any.
fn field_schema<'s>(slots: &Slots, types: &'s [Schema], t: usize) -> Option<&'s Schema> {
    let i = slots.slots.iter().position(|s| *s == Some(t))?;
    types.get(i)
}

const STATS_FIELDS: [&str; 3] = ["_MIN_VALUES", "_MAX_VALUES", "_NULL_COUNTS"];

#[derive(Debug)]
struct StatsPlan {
    slots: Slots,
}

fn stats_plan(names: &[String], _types: &[Schema]) -> StatsPlan {
    StatsPlan {
        slots: Slots::new(names, &STATS_FIELDS),
    }
}

fn read_stats(
    field: &Schema,
    plan: &Nested<StatsPlan>,
    r: &mut ByteReader<'_>,
    outer: At,
    what: &'static str,
) -> Result<Option<SimpleStats>> {
    let Some((p, types)) = plan.read(field, r, outer)? else {
        return Ok(None);
    };
    let (mut min, mut max, mut nulls) = (None, None, None);
    for (slot, ty) in p.slots.slots.iter().zip(types) {
        let at = |t: usize| At {
            what,
            name: STATS_FIELDS[t],
        };
        match *slot {
            Some(0) => min = read_bytes(ty, r, at(0))?.map(<[u8]>::to_vec),
            Some(1) => max = read_bytes(ty, r, at(1))?.map(<[u8]>::to_vec),
            Some(2) => nulls = read_null_counts(ty, r, at(2))?,
            _ => avro::skip(ty, r)?,
        }
    }
    let req = |t: usize| At {
        what,
        name: STATS_FIELDS[t],
    };
    Ok(Some(SimpleStats {
        min_values: req(0).required(min, p.slots.has(0))?,
        max_values: req(1).required(max, p.slots.has(1))?,
        null_counts: nulls,
    }))
}

const FILE_FIELDS: [&str; 20] = [
    "_FILE_NAME",
    "_FILE_SIZE",
    "_ROW_COUNT",
    "_MIN_KEY",
    "_MAX_KEY",
    "_KEY_STATS",
    "_VALUE_STATS",
    "_MIN_SEQUENCE_NUMBER",
    "_MAX_SEQUENCE_NUMBER",
    "_SCHEMA_ID",
    "_LEVEL",
    "_EXTRA_FILES",
    "_CREATION_TIME",
    "_DELETE_ROW_COUNT",
    "_EMBEDDED_FILE_INDEX",
    "_FILE_SOURCE",
    "_VALUE_STATS_COLS",
    "_EXTERNAL_PATH",
    "_FIRST_ROW_ID",
    "_WRITE_COLS",
];

#[derive(Debug)]
struct FilePlan {
    slots: Slots,
    key_stats: Nested<StatsPlan>,
    value_stats: Nested<StatsPlan>,
}

fn file_plan(names: &[String], types: &[Schema]) -> FilePlan {
    let slots = Slots::new(names, &FILE_FIELDS);
    FilePlan {
        key_stats: Nested::compile(field_schema(&slots, types, 5), stats_plan),
        value_stats: Nested::compile(field_schema(&slots, types, 6), stats_plan),
        slots,
    }
}

/// The fields of a `DataFileMeta` as read, before required fields are checked.
#[derive(Default)]
struct FileParts {
    file_name: Option<String>,
    longs: [Option<i64>; 7],
    min_key: Option<Vec<u8>>,
    max_key: Option<Vec<u8>>,
    key_stats: Option<SimpleStats>,
    value_stats: Option<SimpleStats>,
    level: Option<i32>,
    extra_files: Option<Vec<String>>,
    embedded_index: Option<Vec<u8>>,
    file_source: Option<i8>,
    value_stats_cols: Option<Vec<String>>,
    external_path: Option<String>,
    write_cols: Option<Vec<String>>,
}

/// `FileParts::longs` positions of the `long` fields, by target index.
fn long_slot(t: usize) -> Option<usize> {
    Some(match t {
        1 => 0,  // _FILE_SIZE
        2 => 1,  // _ROW_COUNT
        7 => 2,  // _MIN_SEQUENCE_NUMBER
        8 => 3,  // _MAX_SEQUENCE_NUMBER
        9 => 4,  // _SCHEMA_ID
        12 => 5, // _CREATION_TIME
        13 => 6, // _DELETE_ROW_COUNT
        _ => return None,
    })
}

mod list;

pub(crate) use list::decode_manifest_list;

const FILE_WHAT: &str = "ManifestEntry._FILE";

/// Reads `_FILE._SCHEMA_ID` ahead, skipping the fields before it; the caller rewinds.
/// `None` when the file is null, lacks the field or cannot be read (the row is then decoded
/// normally and reports its own error).
fn peek_schema_id(field: &Schema, plan: &Nested<FilePlan>, r: &mut ByteReader<'_>) -> Option<i64> {
    let at = At {
        what: FILE_WHAT,
        name: "_SCHEMA_ID",
    };
    let (p, types) = plan.read(field, r, at).ok()??;
    for (slot, ty) in p.slots.slots.iter().zip(types) {
        if *slot == Some(9) {
            return read_long(ty, r, at).ok()?;
        }
        avro::skip(ty, r).ok()?;
    }
    None
}

fn read_file(
    field: &Schema,
    plan: &Nested<FilePlan>,
    r: &mut ByteReader<'_>,
    outer: At,
) -> Result<Option<DataFileMeta>> {
    let Some((p, types)) = plan.read(field, r, outer)? else {
        return Ok(None);
    };
    let mut f = FileParts::default();
    let mut first_row_id = None;
    for (slot, ty) in p.slots.slots.iter().zip(types) {
        let Some(t) = *slot else {
            avro::skip(ty, r)?;
            continue;
        };
        let at = At {
            what: FILE_WHAT,
            name: FILE_FIELDS[t],
        };
        match (t, long_slot(t)) {
            (18, _) => first_row_id = read_long(ty, r, at)?,
            (_, Some(i)) => {
                let v = read_long(ty, r, at)?;
                if let Some(l) = f.longs.get_mut(i) {
                    *l = v;
                }
            }
            (0, _) => f.file_name = read_string(ty, r, at)?,
            (3, _) => f.min_key = read_bytes(ty, r, at)?.map(<[u8]>::to_vec),
            (4, _) => f.max_key = read_bytes(ty, r, at)?.map(<[u8]>::to_vec),
            (5, _) => {
                f.key_stats = read_stats(ty, &p.key_stats, r, at, "DataFileMeta._KEY_STATS")?;
            }
            (6, _) => {
                f.value_stats = read_stats(ty, &p.value_stats, r, at, "DataFileMeta._VALUE_STATS")?;
            }
            (10, _) => f.level = read_int(ty, r, at)?,
            (11, _) => f.extra_files = read_strings(ty, r, at)?,
            (14, _) => f.embedded_index = read_bytes(ty, r, at)?.map(<[u8]>::to_vec),
            (15, _) => f.file_source = read_i8(ty, r, at)?,
            (16, _) => f.value_stats_cols = read_strings(ty, r, at)?,
            (17, _) => f.external_path = read_string(ty, r, at)?,
            (19, _) => f.write_cols = read_strings(ty, r, at)?,
            _ => avro::skip(ty, r)?,
        }
    }
    let req = |t: usize| {
        (
            At {
                what: FILE_WHAT,
                name: FILE_FIELDS[t],
            },
            p.slots.has(t),
        )
    };
    let long = |f: &FileParts, t: usize, i: usize| {
        let (at, has) = req(t);
        at.required(f.longs[i], has)
    };
    Ok(Some(DataFileMeta {
        file_name: {
            let (at, has) = req(0);
            at.required(f.file_name.take(), has)?
        },
        file_size: long(&f, 1, 0)?,
        row_count: long(&f, 2, 1)?,
        min_key: {
            let (at, has) = req(3);
            at.required(f.min_key.take(), has)?
        },
        max_key: {
            let (at, has) = req(4);
            at.required(f.max_key.take(), has)?
        },
        key_stats: {
            let (at, has) = req(5);
            at.required(f.key_stats.take(), has)?
        },
        value_stats: {
            let (at, has) = req(6);
            at.required(f.value_stats.take(), has)?
        },
        min_sequence_number: long(&f, 7, 2)?,
        max_sequence_number: long(&f, 8, 3)?,
        schema_id: long(&f, 9, 4)?,
        level: {
            let (at, has) = req(10);
            at.required(f.level, has)?
        },
        extra_files: {
            let (at, has) = req(11);
            at.required(f.extra_files.take(), has)?
        },
        creation_time: f.longs[5],
        delete_row_count: f.longs[6],
        embedded_index: f.embedded_index.take(),
        file_source: f.file_source,
        value_stats_cols: f.value_stats_cols.take(),
        external_path: f.external_path.take(),
        first_row_id,
        write_cols: f.write_cols.take(),
    }))
}

const ENTRY_FIELDS: [&str; 6] = [
    "_VERSION",
    "_KIND",
    "_PARTITION",
    "_BUCKET",
    "_TOTAL_BUCKETS",
    "_FILE",
];
const ENTRY_WHAT: &str = "ManifestEntry";

#[derive(Debug)]
struct EntryPlan {
    slots: Slots,
    file: Nested<FilePlan>,
    /// Whether kind, partition, bucket and total buckets all come before `_FILE`.
    head_first: bool,
}

fn entry_plan(names: &[String], types: &[Schema]) -> EntryPlan {
    let slots = Slots::new(names, &ENTRY_FIELDS);
    let pos = |t: usize| slots.slots.iter().position(|s| *s == Some(t));
    let head_first = match pos(5) {
        Some(file) => (1..5).all(|t| pos(t).is_some_and(|p| p < file)),
        None => false,
    };
    EntryPlan {
        file: Nested::compile(field_schema(&slots, types, 5), file_plan),
        slots,
        head_first,
    }
}

fn entry_at(t: usize) -> At {
    At {
        what: ENTRY_WHAT,
        name: ENTRY_FIELDS[t],
    }
}

fn check_version(
    found: Option<i32>,
    present: bool,
    what: &'static str,
    expected: i32,
) -> Result<()> {
    let found = At {
        what,
        name: "_VERSION",
    }
    .required(found, present)?;
    if found != expected {
        return Err(
            Error::data_invalid(format!("{what}: unsupported _VERSION {found}"))
                .with_context("field", "_VERSION")
                .with_context("expected", expected.to_string())
                .with_context("found", found.to_string()),
        );
    }
    Ok(())
}

/// A row filter on the head of a manifest row; `true` keeps the row.
pub type HeadFilter<'f> = &'f mut dyn FnMut(&EntryHead<'_>) -> bool;

/// Decodes one manifest row; `None` when `keep` rejected it.
fn read_entry(
    p: &EntryPlan,
    types: &[Schema],
    r: &mut ByteReader<'_>,
    keep: &mut Option<HeadFilter<'_>>,
) -> Result<Option<ManifestEntry>> {
    let (mut version, mut kind, mut partition, mut bucket, mut total) =
        (None, None, None, None, None);
    let mut file = None;
    let mut fields = p.slots.slots.iter().zip(types);
    while let Some((slot, ty)) = fields.next() {
        let Some(t) = *slot else {
            avro::skip(ty, r)?;
            continue;
        };
        let at = entry_at(t);
        match t {
            0 => version = read_int(ty, r, at)?,
            1 => kind = read_i8(ty, r, at)?,
            2 => partition = read_bytes(ty, r, at)?,
            3 => bucket = read_int(ty, r, at)?,
            4 => total = read_int(ty, r, at)?,
            _ => {
                if let (true, Some(keep), Some(k), Some(part), Some(b), Some(tb)) =
                    (p.head_first, keep.as_mut(), kind, partition, bucket, total)
                {
                    // A bad kind byte is reported below, not filtered.
                    if let Ok(kind) = FileKind::from_byte(k) {
                        let start = r.position();
                        let schema_id = peek_schema_id(ty, &p.file, r);
                        r.seek(start)?;
                        let head = EntryHead {
                            kind,
                            partition: part,
                            bucket: b,
                            total_buckets: tb,
                            schema_id,
                        };
                        if !keep(&head) {
                            avro::skip(ty, r)?;
                            for (_, ty) in fields.by_ref() {
                                avro::skip(ty, r)?;
                            }
                            return Ok(None);
                        }
                    }
                }
                file = read_file(ty, &p.file, r, at)?;
            }
        }
    }
    let has = |t: usize| p.slots.has(t);
    check_version(version, has(0), ENTRY_WHAT, MANIFEST_ENTRY_VERSION)?;
    let kind = FileKind::from_byte(entry_at(1).required(kind, has(1))?)?;
    Ok(Some(ManifestEntry {
        kind,
        partition: entry_at(2).required(partition, has(2))?.to_vec(),
        bucket: entry_at(3).required(bucket, has(3))?,
        total_buckets: entry_at(4).required(total, has(4))?,
        file: entry_at(5).required(file, has(5))?,
    }))
}

/// Decodes every row of an Avro container with the record plan `plan` compiles from the
/// writer schema (compiled once per file, at the first block). Errors name `file`, and the row
/// when they come from one.
fn rows<P>(
    bytes: &[u8],
    file: &str,
    plan: impl Fn(&[String], &[Schema]) -> P,
    mut row: impl FnMut(&P, &[Schema], &mut ByteReader<'_>) -> Result<()>,
) -> Result<()> {
    let mut compiled: Option<Nested<P>> = None;
    let mut index = 0usize;
    let mut failed_row = None;
    let result = avro::for_each_block(bytes, |schema, count, d| {
        let nested = compiled.get_or_insert_with(|| Nested::compile(Some(schema), &plan));
        let at = At {
            what: "Avro row",
            name: "(root)",
        };
        for _ in 0..count {
            failed_row = Some(index);
            match nested.read(schema, d, at)? {
                Some((p, types)) => row(p, types, d)?,
                None => return Err(d.invalid("row is null, not a record")),
            }
            failed_row = None;
            index += 1;
        }
        Ok(())
    });
    result.map_err(|e| {
        let e = e.with_context("file", file);
        match failed_row {
            Some(i) => e.with_context("row", i.to_string()),
            None => e,
        }
    })
}

/// Decodes an Avro manifest (`manifest/manifest-*`) directly; rows `keep` rejects (when the
/// schema allows deciding before `_FILE`) are left out. `file` names the file in errors.
pub(crate) fn decode_manifest(
    bytes: &[u8],
    file: &str,
    mut keep: Option<HeadFilter<'_>>,
) -> Result<Vec<ManifestEntry>> {
    let mut out = Vec::new();
    rows(bytes, file, entry_plan, |p, types, r| {
        out.extend(read_entry(p, types, r, &mut keep)?);
        Ok(())
    })?;
    Ok(out)
}
