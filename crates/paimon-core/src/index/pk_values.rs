//! The values of one `pk-btree` source group in the order a payload takes them
//! ([`crate::index::pk_sorted::PkSortedWriter`]): the indexed column of the group's rows,
//! given as Arrow arrays in some order of the group's files, turned into (key, ordinal) pairs
//! with non-null keys ascending in Java's order (`KeySerializer`'s comparator), equal keys by
//! group ordinal (files by name, rows in file order), then the nulls by ordinal.
//!
//! [`PayloadSorter`] takes the arrays as they come (as a compaction writes them, or as the
//! files are read back) and sorts their entries within a memory budget
//! ([`crate::index::pk_sort`]: runs spilled to local scratch files and merged), so a build
//! holds the budget, not its level. Fixed-width columns whose Java order is an integer order
//! (integers, dates, booleans, timestamps, and floats by `Float.compare`) are sorted as one
//! `u128` per row, the order key in the high half and the ordinal in the low half, so a plain
//! integer sort gives the payload order and the key is rebuilt from its order key. Other
//! columns (strings, decimals) are sorted as [`Key`]s. Rows given in another order than the
//! group's (a compaction's files are written in key order, named otherwise) carry the
//! ordinal of their arrival, translated by an [`OrdinalMap`] as the sorted values are read.

use std::cmp::Ordering;
use std::io::{self, BufRead, Read, Write};
use std::path::PathBuf;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
};
use arrow_array::{Array, ArrowPrimitiveType, PrimitiveArray};
use arrow_schema::{DataType as ArrowType, TimeUnit};
use roaring::RoaringTreemap;

use super::btree::key::{compare, java_double_bits, java_float_bits};
use super::btree::Key;
use super::pk_sort::{read_exact_or_end, ExternalSort, SortEntry, Sorted};
use crate::{Error, Result};

/// A fixed-width type sorted as packed `u128`s, and how its key is rebuilt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Packed {
    Int8,
    Int16,
    Int32,
    Date32,
    Int64,
    Timestamp(TimeUnit),
    Float32,
    Float64,
    Boolean,
}

impl Packed {
    fn of(t: &ArrowType) -> Option<Self> {
        Some(match t {
            ArrowType::Int8 => Packed::Int8,
            ArrowType::Int16 => Packed::Int16,
            ArrowType::Int32 => Packed::Int32,
            ArrowType::Date32 => Packed::Date32,
            ArrowType::Int64 => Packed::Int64,
            ArrowType::Timestamp(
                unit @ (TimeUnit::Millisecond | TimeUnit::Microsecond | TimeUnit::Nanosecond),
                _,
            ) => Packed::Timestamp(*unit),
            ArrowType::Float32 => Packed::Float32,
            ArrowType::Float64 => Packed::Float64,
            ArrowType::Boolean => Packed::Boolean,
            _ => return None,
        })
    }

    /// The key whose order key is `order` (the inverse of [`pack_column`]'s mapping).
    fn key(self, order: u64) -> Key {
        let signed = (order ^ (1 << 63)) as i64;
        match self {
            Packed::Int8 => Key::TinyInt(signed as i8),
            Packed::Int16 => Key::SmallInt(signed as i16),
            Packed::Int32 | Packed::Date32 => Key::Int(signed as i32),
            Packed::Int64 => Key::BigInt(signed),
            Packed::Timestamp(unit) => timestamp(
                i128::from(signed)
                    * match unit {
                        TimeUnit::Millisecond => 1_000_000,
                        TimeUnit::Microsecond => 1_000,
                        _ => 1,
                    },
            ),
            Packed::Float32 => Key::Float(f32::from_bits(from_total_order_u32(order as u32))),
            Packed::Float64 => Key::Double(f64::from_bits(from_total_order_u64(order))),
            Packed::Boolean => Key::Boolean(order != 0),
        }
    }
}

/// A non-packed entry: a decimal or string key and its ordinal.
struct KeyEntry(Key, u64);

impl SortEntry for KeyEntry {
    fn memory(&self) -> usize {
        let heap = match &self.0 {
            Key::String(s) => s.capacity(),
            _ => 0,
        };
        std::mem::size_of::<Self>() + heap
    }

    fn order(&self, other: &Self) -> Ordering {
        compare(&self.0, &other.0).then(self.1.cmp(&other.1))
    }

    fn write(&self, out: &mut impl Write) -> io::Result<()> {
        match &self.0 {
            Key::Decimal(v) => {
                out.write_all(&[0])?;
                out.write_all(&v.to_le_bytes())?;
            }
            Key::String(s) => {
                let len = u32::try_from(s.len())
                    .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "key over 4 GiB"))?;
                out.write_all(&[1])?;
                out.write_all(&len.to_le_bytes())?;
                out.write_all(s)?;
            }
            other => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("unexpected sort key {other:?}"),
                ))
            }
        }
        out.write_all(&self.1.to_le_bytes())
    }

    fn read(input: &mut impl BufRead) -> io::Result<Option<Self>> {
        let mut tag = [0u8; 1];
        if !read_exact_or_end(input, &mut tag)? {
            return Ok(None);
        }
        let key = match tag[0] {
            0 => {
                let mut b = [0u8; 16];
                input.read_exact(&mut b)?;
                Key::Decimal(i128::from_le_bytes(b))
            }
            1 => {
                let mut len = [0u8; 4];
                input.read_exact(&mut len)?;
                let len = u64::from(u32::from_le_bytes(len));
                // Read as far as the run goes: a corrupt length is an error, not an allocation.
                let mut s = Vec::new();
                input.take(len).read_to_end(&mut s)?;
                if s.len() as u64 != len {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "corrupt sort run: string entry cut short",
                    ));
                }
                Key::String(s)
            }
            t => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("corrupt sort run: entry tag {t}"),
                ))
            }
        };
        let mut ordinal = [0u8; 8];
        input.read_exact(&mut ordinal)?;
        Ok(Some(KeyEntry(key, u64::from_le_bytes(ordinal))))
    }
}

/// How a group's sorter is made: the bytes of values it holds in memory, the spilled runs
/// it merges at once (`local-sort.max-num-file-handles`) and where it spills.
#[derive(Debug, Clone, Default)]
pub(crate) struct SortLimits {
    /// Bytes of values sorted in memory before a spill.
    pub(crate) budget: usize,
    /// Spilled runs merged at once.
    pub(crate) fan_in: usize,
    /// The directory spilled runs go under (the system temp dir when `None`).
    pub(crate) spill_dir: Option<PathBuf>,
}

impl SortLimits {
    /// The sorter in `slot`, made on first use for values of `data_type` with room for about
    /// `rows` of them reserved (within the budget).
    pub(crate) fn sorter_in<'a>(
        &self,
        slot: &'a mut Option<PayloadSorter>,
        data_type: &ArrowType,
        rows: u64,
    ) -> Result<&'a mut PayloadSorter> {
        Ok(match slot {
            Some(s) => s,
            None => {
                let mut s = PayloadSorter::new(data_type, self.budget, self.spill_dir.clone())?
                    .with_fan_in(self.fan_in);
                s.reserve(rows);
                slot.insert(s)
            }
        })
    }
}

enum Sort {
    Packed(Packed, ExternalSort<u128>),
    /// Values of this type as keys.
    Keys(ArrowType, ExternalSort<KeyEntry>),
}

/// Collects a group's values and sorts them for its payload (see the [module docs](self)).
pub(crate) struct PayloadSorter {
    sort: Sort,
    /// Arrival ordinals of the null values.
    nulls: RoaringTreemap,
    /// Rows given so far.
    rows: u64,
}

impl PayloadSorter {
    /// A sorter of values of Arrow type `data_type` holding at most about `budget` bytes of
    /// them in memory, spilling under `spill_dir` (the system temp dir when `None`).
    /// `Unsupported` for a type a payload cannot hold.
    pub(crate) fn new(
        data_type: &ArrowType,
        budget: usize,
        spill_dir: Option<PathBuf>,
    ) -> Result<Self> {
        let sort = match (Packed::of(data_type), data_type) {
            (Some(p), _) => Sort::Packed(p, ExternalSort::new(budget, spill_dir)),
            (None, ArrowType::Decimal128(_, _) | ArrowType::Utf8 | ArrowType::LargeUtf8) => {
                Sort::Keys(data_type.clone(), ExternalSort::new(budget, spill_dir))
            }
            (None, other) => {
                return Err(Error::unsupported(format!(
                    "building a pk-btree payload over a column of Arrow type {other}"
                )))
            }
        };
        Ok(PayloadSorter {
            sort,
            nulls: RoaringTreemap::new(),
            rows: 0,
        })
    }

    /// Merges at most `n` spilled runs at once (`local-sort.max-num-file-handles`; default
    /// 128).
    pub(crate) fn with_fan_in(mut self, n: usize) -> Self {
        self.sort = match self.sort {
            Sort::Packed(p, s) => Sort::Packed(p, s.with_fan_in(n)),
            Sort::Keys(t, s) => Sort::Keys(t, s.with_fan_in(n)),
        };
        self
    }

    /// Reserves room for about `rows` more values, within the budget (a sorter told its
    /// size up front does not regrow its buffer).
    pub(crate) fn reserve(&mut self, rows: u64) {
        let rows = usize::try_from(rows).unwrap_or(usize::MAX);
        match &mut self.sort {
            Sort::Packed(_, s) => s.reserve(rows),
            Sort::Keys(_, s) => s.reserve(rows),
        }
    }

    /// Rows given so far.
    pub(crate) fn rows(&self) -> u64 {
        self.rows
    }

    /// Sorted runs spilled to disk so far.
    pub(crate) fn spilled_runs(&self) -> usize {
        match &self.sort {
            Sort::Packed(_, s) => s.spilled_runs(),
            Sort::Keys(_, s) => s.spilled_runs(),
        }
    }

    /// Adds the next rows, their ordinals following the rows given before. Errors: another
    /// type than the sorter's; a failed spill.
    pub(crate) fn push(&mut self, column: &dyn Array) -> Result<()> {
        let first = self.rows;
        match &mut self.sort {
            Sort::Packed(p, sort) => {
                if Packed::of(column.data_type()) != Some(*p) {
                    return Err(type_changed(column));
                }
                pack_column(column, first, sort, &mut self.nulls)?;
            }
            Sort::Keys(t, sort) => {
                if column.data_type() != t {
                    return Err(type_changed(column));
                }
                push_keys(column, first, sort, &mut self.nulls)?
            }
        }
        self.rows += column.len() as u64;
        Ok(())
    }

    /// The values in payload order, their arrival ordinals translated by `map` (`None`: the
    /// rows came in group order).
    pub(crate) fn finish(self, map: Option<OrdinalMap>) -> Result<PayloadValues> {
        let sorted = match self.sort {
            Sort::Packed(p, s) => Values::Packed(p, s.finish()?),
            Sort::Keys(_, s) => Values::Keys(s.finish()?),
        };
        let (map, nulls) = match map.filter(|m| !m.is_identity()) {
            Some(m) => {
                let mut nulls = RoaringTreemap::new();
                for o in &self.nulls {
                    nulls.insert(m.map(o)?);
                }
                (Some(m), nulls)
            }
            None => (None, self.nulls),
        };
        Ok(PayloadValues {
            sorted,
            map,
            nulls: nulls.into_iter(),
            lookahead: None,
            group: Vec::new(),
        })
    }
}

fn type_changed(column: &dyn Array) -> Error {
    Error::internal(format!(
        "pk-btree values of Arrow type {} given to a sorter of another type",
        column.data_type()
    ))
}

/// How rows given in another order than their group's get their group ordinals: runs of
/// consecutive arrival ordinals (the rows of one file) moved to another start.
#[derive(Debug, Clone)]
pub(crate) struct OrdinalMap {
    /// (first arrival ordinal, rows, first group ordinal), by arrival ordinal.
    pieces: Vec<(u64, u64, u64)>,
    /// Whether the pieces keep their order (the map only checks ordinals).
    in_order: bool,
}

impl OrdinalMap {
    /// A map of `pieces` (rows, first group ordinal) following one another in arrival order.
    pub(crate) fn new(pieces: impl IntoIterator<Item = (u64, u64)>) -> Self {
        let mut next = 0u64;
        let pieces: Vec<(u64, u64, u64)> = pieces
            .into_iter()
            .map(|(rows, to)| {
                let from = next;
                next += rows;
                (from, rows, to)
            })
            .collect();
        let in_order = pieces.windows(2).all(|w| w[0].2 + w[0].1 <= w[1].2);
        OrdinalMap { pieces, in_order }
    }

    /// Whether every row keeps its ordinal (the rows came in group order).
    fn is_identity(&self) -> bool {
        self.pieces.iter().all(|p| p.0 == p.2)
    }

    /// The group ordinal of arrival ordinal `o`.
    fn map(&self, o: u64) -> Result<u64> {
        let i = self.pieces.partition_point(|p| p.0 + p.1 <= o);
        match self.pieces.get(i) {
            Some(&(from, rows, to)) if o >= from && o - from < rows => Ok(to + (o - from)),
            _ => Err(Error::internal(format!(
                "pk-btree row {o} is outside the written files' rows"
            ))),
        }
    }
}

enum Values {
    Packed(Packed, Sorted<u128>),
    Keys(Sorted<KeyEntry>),
}

impl Values {
    fn next(&mut self) -> Result<Option<(Key, u64)>> {
        Ok(match self {
            Values::Packed(p, s) => s.next_entry()?.map(|e| (p.key((e >> 64) as u64), e as u64)),
            Values::Keys(s) => s.next_entry()?.map(|KeyEntry(k, o)| (k, o)),
        })
    }
}

/// A group's sorted values, read one at a time ([`PayloadValues::next_value`]).
pub(crate) struct PayloadValues {
    sorted: Values,
    map: Option<OrdinalMap>,
    /// Null group ordinals, ascending.
    nulls: roaring::treemap::IntoIter,
    /// The entry after the current group (out-of-order maps only).
    lookahead: Option<(Key, u64)>,
    /// The rest of the current group of equal keys, by group ordinal, last first.
    group: Vec<(Key, u64)>,
}

impl PayloadValues {
    /// Replaces `out` with the next at most `max` values of [`PayloadValues::next_value`]
    /// (none after the last): a packed column sorted in memory whose rows keep their order
    /// is read straight from its buffer.
    pub(crate) fn fill(&mut self, out: &mut Vec<(Option<Key>, u64)>, max: usize) -> Result<()> {
        out.clear();
        let in_order = self.map.as_ref().is_none_or(|m| m.in_order);
        if let (true, true, None, Values::Packed(p, sorted)) = (
            in_order,
            self.group.is_empty(),
            &self.lookahead,
            &mut self.sorted,
        ) {
            if let Some(buffer) = sorted.in_memory() {
                let p = *p;
                match &self.map {
                    None => out.extend(
                        buffer
                            .take(max)
                            .map(|e| (Some(p.key((e >> 64) as u64)), e as u64)),
                    ),
                    Some(m) => {
                        for e in buffer.take(max) {
                            out.push((Some(p.key((e >> 64) as u64)), m.map(e as u64)?));
                        }
                    }
                }
                if !out.is_empty() {
                    return Ok(());
                }
            }
        }
        while out.len() < max {
            match self.next_value()? {
                Some(v) => out.push(v),
                None => break,
            }
        }
        Ok(())
    }

    /// The next (key, group ordinal) in payload order (`None` key: a null value); `None`
    /// after the last.
    pub(crate) fn next_value(&mut self) -> Result<Option<(Option<Key>, u64)>> {
        if let Some((k, o)) = self.group.pop() {
            return Ok(Some((Some(k), o)));
        }
        let next = match self.lookahead.take() {
            Some(e) => Some(e),
            None => self.sorted.next()?,
        };
        let Some((key, o)) = next else {
            return Ok(self.nulls.next().map(|o| (None, o)));
        };
        let map = match &self.map {
            None => return Ok(Some((Some(key), o))),
            Some(m) if m.in_order => return Ok(Some((Some(key), m.map(o)?))),
            Some(m) => m,
        };
        // Equal keys arrive by arrival ordinal: gathered and put in group-ordinal order.
        let mut group = std::mem::take(&mut self.group);
        group.push((key, map.map(o)?));
        while let Some((k, o)) = self.sorted.next()? {
            if compare(&k, &group[0].0) != Ordering::Equal {
                self.lookahead = Some((k, o));
                break;
            }
            group.push((k, map.map(o)?));
        }
        if group.len() > 1 {
            group.sort_unstable_by_key(|e| std::cmp::Reverse(e.1));
        }
        let first = group.pop();
        self.group = group;
        Ok(first.map(|(k, o)| (Some(k), o)))
    }
}

/// Signed values in unsigned order.
fn signed(v: i64) -> u64 {
    (v as u64) ^ (1 << 63)
}

/// Pushes the packed (order key, ordinal) of every non-null value of `column` (ordinals from
/// `first`), the null ordinals to `nulls`.
fn pack_column(
    column: &dyn Array,
    first: u64,
    sort: &mut ExternalSort<u128>,
    nulls: &mut RoaringTreemap,
) -> Result<()> {
    match column.data_type() {
        ArrowType::Int8 => pack::<Int8Type>(column, first, sort, nulls, |v| signed(i64::from(v))),
        ArrowType::Int16 => pack::<Int16Type>(column, first, sort, nulls, |v| signed(i64::from(v))),
        ArrowType::Int32 => pack::<Int32Type>(column, first, sort, nulls, |v| signed(i64::from(v))),
        ArrowType::Date32 => {
            pack::<Date32Type>(column, first, sort, nulls, |v| signed(i64::from(v)))
        }
        ArrowType::Int64 => pack::<Int64Type>(column, first, sort, nulls, signed),
        ArrowType::Timestamp(TimeUnit::Millisecond, _) => {
            pack::<TimestampMillisecondType>(column, first, sort, nulls, signed)
        }
        ArrowType::Timestamp(TimeUnit::Microsecond, _) => {
            pack::<TimestampMicrosecondType>(column, first, sort, nulls, signed)
        }
        ArrowType::Timestamp(TimeUnit::Nanosecond, _) => {
            pack::<TimestampNanosecondType>(column, first, sort, nulls, signed)
        }
        ArrowType::Float32 => pack::<Float32Type>(column, first, sort, nulls, |v| {
            u64::from(total_order_u32(java_float_bits(v)))
        }),
        ArrowType::Float64 => pack::<Float64Type>(column, first, sort, nulls, |v| {
            total_order_u64(java_double_bits(v))
        }),
        ArrowType::Boolean => {
            let a = column.as_boolean();
            for (i, v) in a.iter().enumerate() {
                let ordinal = first + i as u64;
                match v {
                    Some(v) => sort.push((u128::from(v) << 64) | u128::from(ordinal))?,
                    None => {
                        nulls.insert(ordinal);
                    }
                }
            }
            Ok(())
        }
        _ => Err(type_changed(column)),
    }
}

fn pack<T: ArrowPrimitiveType>(
    column: &dyn Array,
    first: u64,
    sort: &mut ExternalSort<u128>,
    nulls: &mut RoaringTreemap,
    order: impl Fn(T::Native) -> u64,
) -> Result<()> {
    let a: &PrimitiveArray<T> = column.as_primitive();
    let entry =
        |i: usize, v: T::Native| (u128::from(order(v)) << 64) | u128::from(first + i as u64);
    if a.null_count() == 0 {
        for (i, &v) in a.values().iter().enumerate() {
            sort.push(entry(i, v))?;
        }
        return Ok(());
    }
    for (i, v) in a.iter().enumerate() {
        match v {
            Some(v) => sort.push(entry(i, v))?,
            None => {
                nulls.insert(first + i as u64);
            }
        }
    }
    Ok(())
}

/// Pushes the keys of a column [`Packed`] does not take (decimals, strings).
fn push_keys(
    column: &dyn Array,
    first: u64,
    sort: &mut ExternalSort<KeyEntry>,
    nulls: &mut RoaringTreemap,
) -> Result<()> {
    let mut push = |i: usize, key: Option<Key>| -> Result<()> {
        let ordinal = first + i as u64;
        match key {
            Some(k) => sort.push(KeyEntry(k, ordinal)),
            None => {
                nulls.insert(ordinal);
                Ok(())
            }
        }
    };
    match column.data_type() {
        ArrowType::Decimal128(_, _) => {
            for (i, v) in column.as_primitive::<Decimal128Type>().iter().enumerate() {
                push(i, v.map(Key::Decimal))?;
            }
        }
        ArrowType::Utf8 => {
            for (i, v) in column.as_string::<i32>().iter().enumerate() {
                push(i, v.map(|s| Key::String(s.as_bytes().to_vec())))?;
            }
        }
        ArrowType::LargeUtf8 => {
            for (i, v) in column.as_string::<i64>().iter().enumerate() {
                push(i, v.map(|s| Key::String(s.as_bytes().to_vec())))?;
            }
        }
        _ => return Err(type_changed(column)),
    }
    Ok(())
}

/// IEEE-754 bits (NaN canonical) in `Float.compare` order: −0.0 before 0.0, NaN last.
fn total_order_u32(bits: u32) -> u32 {
    match bits & (1 << 31) {
        0 => bits | (1 << 31),
        _ => !bits,
    }
}

/// The bits [`total_order_u32`] maps to `order`.
fn from_total_order_u32(order: u32) -> u32 {
    match order & (1 << 31) {
        0 => !order,
        _ => order & !(1 << 31),
    }
}

/// [`total_order_u32`] for `Double.compare`.
fn total_order_u64(bits: u64) -> u64 {
    match bits & (1 << 63) {
        0 => bits | (1 << 63),
        _ => !bits,
    }
}

/// The bits [`total_order_u64`] maps to `order`.
fn from_total_order_u64(order: u64) -> u64 {
    match order & (1 << 63) {
        0 => !order,
        _ => order & !(1 << 63),
    }
}

/// A timestamp key from epoch nanoseconds.
fn timestamp(nanos: i128) -> Key {
    let millis = nanos.div_euclid(1_000_000);
    Key::Timestamp {
        millis: millis as i64,
        nanos_of_milli: nanos.rem_euclid(1_000_000) as i32,
    }
}

#[cfg(test)]
mod tests;
