//! Keys of bitmap and range-bitmap indexes and the literal conversions of every index kind
//! (`shared/spec/file-index.md` §3.1–3.3), plus the self-delimiting RoaringBitmap reader.

use std::cmp::Ordering;

use roaring::RoaringBitmap;

use crate::spec::bytes::ByteReader;
use crate::spec::datum::Datum;
use crate::spec::types::{DataType, TypeKind};
use crate::Result;

/// One index key, ordered as Java orders it (§3.2): integers signed, floats by total order
/// (NaN canonical and largest, −0.0 < +0.0), strings by unsigned bytes then length.
#[derive(Debug, Clone)]
pub enum Key {
    /// BOOLEAN
    Bool(bool),
    /// Integer types, DATE, TIME, TIMESTAMP (ms or µs), DECIMAL (unscaled).
    Long(i64),
    /// FLOAT
    Float(f32),
    /// DOUBLE
    Double(f64),
    /// CHAR / VARCHAR (UTF-8 bytes).
    Bytes(Vec<u8>),
}

impl Key {
    fn rank(&self) -> u8 {
        match self {
            Key::Bool(_) => 0,
            Key::Long(_) => 1,
            Key::Float(_) => 2,
            Key::Double(_) => 3,
            Key::Bytes(_) => 4,
        }
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Key::Bool(a), Key::Bool(b)) => a.cmp(b),
            (Key::Long(a), Key::Long(b)) => a.cmp(b),
            (Key::Float(a), Key::Float(b)) => a.total_cmp(b),
            (Key::Double(a), Key::Double(b)) => a.total_cmp(b),
            (Key::Bytes(a), Key::Bytes(b)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}
impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Key {}

/// How keys of one column are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyType {
    /// u8 0/1.
    Bool,
    /// i8.
    I8,
    /// i16 BE.
    I16,
    /// i32 BE.
    I32,
    /// i64 BE.
    I64,
    /// `floatToIntBits` BE.
    F32,
    /// `doubleToLongBits` BE.
    F64,
    /// i32 BE length + UTF-8.
    Str,
}

/// Which index's key rules apply (they differ for timestamps and decimals).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyRules {
    /// Bitmap keys.
    Bitmap,
    /// Range-bitmap keys.
    Range,
}

impl KeyType {
    /// The key type of a column of `t`, or `None` when the index kind cannot index it.
    pub fn of(t: &DataType, rules: KeyRules) -> Option<KeyType> {
        Some(match &t.kind {
            TypeKind::Boolean => KeyType::Bool,
            TypeKind::TinyInt => KeyType::I8,
            TypeKind::SmallInt => KeyType::I16,
            TypeKind::Int | TypeKind::Date | TypeKind::Time(_) => KeyType::I32,
            TypeKind::BigInt => KeyType::I64,
            TypeKind::Float => KeyType::F32,
            TypeKind::Double => KeyType::F64,
            TypeKind::Char(_) | TypeKind::VarChar(_) => KeyType::Str,
            TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => match rules {
                KeyRules::Bitmap if *p <= 9 => KeyType::I64,
                KeyRules::Range if *p <= 6 => KeyType::I64,
                _ => return None,
            },
            TypeKind::Decimal { precision, .. } if rules == KeyRules::Range && *precision <= 18 => {
                KeyType::I64
            }
            _ => return None,
        })
    }

    /// Reads one key.
    pub fn read(self, r: &mut ByteReader<'_>) -> Result<Key> {
        Ok(match self {
            KeyType::Bool => Key::Bool(r.u8()? != 0),
            KeyType::I8 => Key::Long(i64::from(r.u8()? as i8)),
            KeyType::I16 => Key::Long(i64::from(i16::from_be_bytes(r.array()?))),
            KeyType::I32 => Key::Long(i64::from(r.i32_be()?)),
            KeyType::I64 => Key::Long(r.i64_be()?),
            KeyType::F32 => Key::Float(f32::from_bits(r.u32_be()?)),
            KeyType::F64 => Key::Double(f64::from_bits(r.i64_be()? as u64)),
            KeyType::Str => {
                let len = r.i32_be()?;
                let len = usize::try_from(len)
                    .map_err(|_| r.invalid(format!("negative string key length {len}")))?;
                Key::Bytes(r.take(len)?.to_vec())
            }
        })
    }
}

/// The integer a literal maps to for a column of `file_type` (BSI values, bitmap and range
/// keys of non-float columns; `shared/spec/file-index.md` §3.1), or `None` when the literal's
/// kind does not fit the column.
pub fn literal_long(lit: &Datum, file_type: &DataType) -> Option<i64> {
    match (lit, &file_type.kind) {
        (Datum::TinyInt(v), k) if is_integer(k) => Some(i64::from(*v)),
        (Datum::SmallInt(v), k) if is_integer(k) => Some(i64::from(*v)),
        (Datum::Int(v), k) if is_integer(k) => Some(i64::from(*v)),
        (Datum::BigInt(v), k) if is_integer(k) => Some(*v),
        (Datum::Date(v), TypeKind::Date) | (Datum::Time(v), TypeKind::Time(_)) => {
            Some(i64::from(*v))
        }
        (Datum::Timestamp(t), TypeKind::Timestamp(p))
        | (Datum::LocalZonedTimestamp(t), TypeKind::LocalZonedTimestamp(p)) => {
            Some(if *p <= 3 { t.millis } else { t.to_micros() })
        }
        (Datum::Decimal(d), TypeKind::Decimal { precision, scale }) => {
            let d = d.rescale(*precision, *scale)?;
            i64::try_from(d.unscaled).ok()
        }
        _ => None,
    }
}

/// The key a literal maps to in a column of `file_type`, or `None` when it cannot be looked up.
/// NaN is canonical, as Java's `floatToIntBits` makes it.
pub fn literal_key(lit: &Datum, file_type: &DataType) -> Option<Key> {
    Some(match (lit, &file_type.kind) {
        (Datum::Boolean(b), TypeKind::Boolean) => Key::Bool(*b),
        (Datum::Float(f), TypeKind::Float) => Key::Float(canonical_f32(*f)),
        (Datum::Double(f), TypeKind::Double) => Key::Double(canonical_f64(*f)),
        // CHAR(n) is left out: how its values are padded is not pinned down (fails open).
        (Datum::String(s), TypeKind::VarChar(_)) => Key::Bytes(s.as_bytes().to_vec()),
        _ => Key::Long(literal_long(lit, file_type)?),
    })
}

/// Whether `k` is TINYINT, SMALLINT, INT or BIGINT.
pub fn is_integer(k: &TypeKind) -> bool {
    matches!(
        k,
        TypeKind::TinyInt | TypeKind::SmallInt | TypeKind::Int | TypeKind::BigInt
    )
}

/// Java `Float.floatToIntBits` canonical NaN.
pub fn canonical_f32(f: f32) -> f32 {
    if f.is_nan() {
        f32::from_bits(0x7fc0_0000)
    } else {
        f
    }
}

/// Java `Double.doubleToLongBits` canonical NaN.
pub fn canonical_f64(f: f64) -> f64 {
    if f.is_nan() {
        f64::from_bits(0x7ff8_0000_0000_0000)
    } else {
        f
    }
}

/// Reads one self-delimiting portable RoaringBitmap (`shared/spec/file-index.md` §3.3) at the
/// reader's position and moves past it. Its positions must be below `rows`: the container
/// headers are checked first (keys ascending and in range), so memory stays proportional to
/// `rows` whatever the bytes say.
pub fn read_roaring(r: &mut ByteReader<'_>, whole: &[u8], rows: u32) -> Result<RoaringBitmap> {
    let rest = whole.get(r.position()..).ok_or_else(|| r.truncated(1))?;
    check_containers(rest, rows).map_err(|e| r.invalid(format!("corrupt RoaringBitmap: {e}")))?;
    let mut cursor = std::io::Cursor::new(rest);
    let bm = RoaringBitmap::deserialize_from(&mut cursor)
        .map_err(|e| r.invalid(format!("corrupt RoaringBitmap: {e}")))?;
    let used = usize::try_from(cursor.position()).map_err(|_| r.invalid("bitmap size"))?;
    r.take(used)?;
    if bm.max().is_some_and(|m| m >= rows) {
        return Err(r.invalid(format!("bitmap position beyond row count {rows}")));
    }
    Ok(bm)
}

/// Checks the container descriptions of a portable RoaringBitmap: strictly ascending keys, none
/// above the key of row `rows - 1`.
fn check_containers(bytes: &[u8], rows: u32) -> std::result::Result<(), String> {
    let mut r = ByteReader::new(bytes, "RoaringBitmap");
    let cookie = r.u32_le().map_err(|e| e.to_string())?;
    let n = if cookie == 0x303A {
        r.u32_le().map_err(|e| e.to_string())?
    } else if cookie & 0xFFFF == 0x303B {
        let n = (cookie >> 16) + 1;
        r.take(n.div_ceil(8) as usize).map_err(|e| e.to_string())?;
        n
    } else {
        return Err(format!("unknown cookie {cookie:#x}"));
    };
    let max_key = match rows.checked_sub(1) {
        Some(last) => i64::from(last >> 16),
        None => -1,
    };
    if i64::from(n) > max_key + 1 {
        return Err(format!("{n} containers for {rows} rows"));
    }
    let mut prev = -1i64;
    for _ in 0..n {
        let key = i64::from(u16::from_le_bytes(r.array().map_err(|e| e.to_string())?));
        r.take(2).map_err(|e| e.to_string())?;
        if key <= prev || key > max_key {
            return Err(format!(
                "container key {key} out of order or beyond {rows} rows"
            ));
        }
        prev = key;
    }
    Ok(())
}

/// Decodes exactly `bytes` as one RoaringBitmap of positions below `rows`.
pub fn roaring_exact(bytes: &[u8], what: &'static str, rows: u32) -> Result<RoaringBitmap> {
    let mut r = ByteReader::new(bytes, what);
    let bm = read_roaring(&mut r, bytes, rows)?;
    if !r.is_empty() {
        return Err(r.invalid("trailing bytes after the bitmap"));
    }
    Ok(bm)
}
