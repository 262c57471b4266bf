//! Sorted, distinct primary keys in Arrow's row format (`arrow_row`, whose byte order is the
//! key order): lookup compaction's key sets and the pending side of its merge join.
//!
//! Keys of a fixed-width key schema whose row is at most 16 bytes (any single integer, date,
//! timestamp or float key, and small composite keys) are held as big-endian `u128`s: byte
//! strings of one length compare as those integers, so sorting, set operations and the join
//! compare integers, with one allocation for all the keys. Other keys are byte strings.
//! Integer key columns without nulls pack straight from their values ([`pack_integers`]), with
//! no row conversion.

use std::cmp::Ordering;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    ArrowPrimitiveType, Date32Type, Date64Type, Int16Type, Int32Type, Int64Type, Int8Type,
    Time32MillisecondType, Time32SecondType, Time64MicrosecondType, Time64NanosecondType,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef};
use arrow_schema::{DataType, TimeUnit};

use crate::{Error, Result};

/// Sorted, distinct keys (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum KeyList {
    /// Rows of `width` bytes as big-endian integers (zero-padded on the right).
    Packed { width: usize, keys: Vec<u128> },
    /// Rows as byte strings.
    Bytes(Vec<Vec<u8>>),
}

/// One row to compare with a [`KeyList`]'s keys, in the list's representation.
pub(super) enum Probe<'a> {
    Packed(u128),
    Bytes(&'a [u8]),
}

/// The row width of a fixed-width key schema that fits a `u128`, else `None`.
pub(super) fn packed_width(row_widths: impl IntoIterator<Item = Option<usize>>) -> Option<usize> {
    let mut total = 0;
    for w in row_widths {
        total += w?;
    }
    (total <= 16).then_some(total)
}

fn pack(width: usize, row: &[u8]) -> Result<u128> {
    match row.get(..width) {
        Some(bytes) if row.len() == width => {
            let mut b = [0u8; 16];
            b[..width].copy_from_slice(bytes);
            Ok(u128::from_be_bytes(b))
        }
        _ => Err(Error::internal(format!(
            "a key row of {} bytes in a key set of {width}-byte rows",
            row.len()
        ))),
    }
}

/// The rows of the integer key `columns` (one array per key column, all of one length) as
/// [`KeyList::Packed`] keys of `width`-byte rows, computed from the values: the bytes
/// `arrow_row` gives a valid integer (a `1` byte, then the value big-endian, a signed type's
/// sign bit flipped), concatenated and zero-padded as [`pack`] pads a row. `None` when a column
/// is not an integer (dates, times and timestamps are), holds a null, or the rows are not
/// `width` bytes wide.
pub(super) fn pack_integers(columns: &[ArrayRef], width: usize) -> Option<Vec<u128>> {
    let rows = columns.first()?.len();
    let mut out = vec![0u128; rows];
    let mut used = 0usize;
    for c in columns {
        if c.len() != rows || c.null_count() > 0 {
            return None;
        }
        used += 1 + append_integers(&mut out, c.as_ref())?;
    }
    if used != width || !(1..=16).contains(&used) {
        return None;
    }
    let pad = 8 * (16 - used as u32);
    for k in &mut out {
        *k = k.checked_shl(pad).unwrap_or(0);
    }
    Some(out)
}

/// Appends column `c`'s encoded values to `out`'s rows; its value width in bytes, `None` when
/// `c` is not an integer column.
fn append_integers(out: &mut [u128], c: &dyn Array) -> Option<usize> {
    /// A signed value's bits with the sign bit flipped: unsigned order is signed order.
    fn flip<const BYTES: u32>(bits: u64) -> u128 {
        let mask = u64::MAX >> (64 - 8 * BYTES);
        u128::from((bits ^ (1 << (8 * BYTES - 1))) & mask)
    }
    fn put<T: ArrowPrimitiveType>(
        out: &mut [u128],
        c: &dyn Array,
        bytes: u32,
        encode: impl Fn(T::Native) -> u128,
    ) -> Option<usize> {
        let values = c.as_primitive_opt::<T>()?.values();
        let valid = 1u128 << (8 * bytes);
        for (k, v) in out.iter_mut().zip(values.iter()) {
            *k = (*k << (8 * (bytes + 1))) | valid | encode(*v);
        }
        Some(bytes as usize)
    }
    let i64_bits = |v: i64| flip::<8>(v as u64);
    match c.data_type() {
        DataType::Int8 => put::<Int8Type>(out, c, 1, |v| flip::<1>(v as u64)),
        DataType::Int16 => put::<Int16Type>(out, c, 2, |v| flip::<2>(v as u64)),
        DataType::Int32 => put::<Int32Type>(out, c, 4, |v| flip::<4>(v as u64)),
        DataType::Int64 => put::<Int64Type>(out, c, 8, i64_bits),
        DataType::UInt8 => put::<UInt8Type>(out, c, 1, u128::from),
        DataType::UInt16 => put::<UInt16Type>(out, c, 2, u128::from),
        DataType::UInt32 => put::<UInt32Type>(out, c, 4, u128::from),
        DataType::UInt64 => put::<UInt64Type>(out, c, 8, u128::from),
        DataType::Date32 => put::<Date32Type>(out, c, 4, |v| flip::<4>(v as u64)),
        DataType::Date64 => put::<Date64Type>(out, c, 8, i64_bits),
        DataType::Time32(TimeUnit::Second) => {
            put::<Time32SecondType>(out, c, 4, |v| flip::<4>(v as u64))
        }
        DataType::Time32(TimeUnit::Millisecond) => {
            put::<Time32MillisecondType>(out, c, 4, |v| flip::<4>(v as u64))
        }
        DataType::Time64(TimeUnit::Microsecond) => {
            put::<Time64MicrosecondType>(out, c, 8, i64_bits)
        }
        DataType::Time64(TimeUnit::Nanosecond) => put::<Time64NanosecondType>(out, c, 8, i64_bits),
        DataType::Timestamp(TimeUnit::Second, _) => put::<TimestampSecondType>(out, c, 8, i64_bits),
        DataType::Timestamp(TimeUnit::Millisecond, _) => {
            put::<TimestampMillisecondType>(out, c, 8, i64_bits)
        }
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            put::<TimestampMicrosecondType>(out, c, 8, i64_bits)
        }
        DataType::Timestamp(TimeUnit::Nanosecond, _) => {
            put::<TimestampNanosecondType>(out, c, 8, i64_bits)
        }
        _ => None,
    }
}

/// Collects rows into a [`KeyList`].
#[derive(Debug)]
pub(super) struct KeyCollector(KeyList);

impl KeyCollector {
    /// A collector of rows of `width` bytes each (`None`: rows of any width).
    pub(super) fn new(width: Option<usize>) -> Self {
        KeyCollector(KeyList::empty(width))
    }

    /// Adds a row. Errors when the row is not of the collector's width.
    pub(super) fn push(&mut self, row: &[u8]) -> Result<()> {
        match &mut self.0 {
            KeyList::Packed { width, keys } => keys.push(pack(*width, row)?),
            KeyList::Bytes(keys) => keys.push(row.to_vec()),
        }
        Ok(())
    }

    /// Adds keys packed as this collector's (see [`pack_integers`]). Errors when the collector
    /// holds byte rows.
    pub(super) fn extend_packed(&mut self, packed: &[u128]) -> Result<()> {
        match &mut self.0 {
            KeyList::Packed { keys, .. } => keys.extend_from_slice(packed),
            KeyList::Bytes(_) => {
                return Err(Error::internal("packed keys given to a byte-row key set"))
            }
        }
        Ok(())
    }

    /// The rows sorted, duplicates dropped.
    pub(super) fn finish(mut self) -> KeyList {
        match &mut self.0 {
            KeyList::Packed { keys, .. } => {
                keys.sort_unstable();
                keys.dedup();
            }
            KeyList::Bytes(keys) => {
                keys.sort_unstable();
                keys.dedup();
            }
        }
        self.0
    }
}

impl KeyList {
    /// No keys, of rows of `width` bytes (`None`: any width).
    pub(super) fn empty(width: Option<usize>) -> Self {
        match width {
            Some(width) => KeyList::Packed {
                width,
                keys: Vec::new(),
            },
            None => KeyList::Bytes(Vec::new()),
        }
    }

    /// Keys held.
    pub(super) fn len(&self) -> usize {
        match self {
            KeyList::Packed { keys, .. } => keys.len(),
            KeyList::Bytes(keys) => keys.len(),
        }
    }

    /// Whether no key is held.
    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `row` in this list's representation.
    pub(super) fn probe<'a>(&self, row: &'a [u8]) -> Result<Probe<'a>> {
        match self {
            KeyList::Packed { width, .. } => pack(*width, row).map(Probe::Packed),
            KeyList::Bytes(_) => Ok(Probe::Bytes(row)),
        }
    }

    /// Key `i` compared with `probe` (`None` past the last key).
    pub(super) fn cmp_at(&self, i: usize, probe: &Probe<'_>) -> Option<Ordering> {
        match (self, probe) {
            (KeyList::Packed { keys, .. }, Probe::Packed(p)) => keys.get(i).map(|k| k.cmp(p)),
            (KeyList::Bytes(keys), Probe::Bytes(p)) => keys.get(i).map(|k| k.as_slice().cmp(p)),
            // A probe is always made by the list it is compared with.
            _ => None,
        }
    }

    /// Whether `row` is one of the keys.
    pub(super) fn contains(&self, row: &[u8]) -> Result<bool> {
        Ok(match (self, self.probe(row)?) {
            (KeyList::Packed { keys, .. }, Probe::Packed(p)) => keys.binary_search(&p).is_ok(),
            (KeyList::Bytes(keys), _) => keys.binary_search_by(|k| k.as_slice().cmp(row)).is_ok(),
            _ => false,
        })
    }

    /// The keys not in `other` (a merge of the two sorted lists).
    pub(super) fn difference(&self, other: &KeyList) -> KeyList {
        fn minus<T: Ord + Clone>(a: &[T], b: &[T]) -> Vec<T> {
            let mut out = Vec::with_capacity(a.len());
            let mut j = 0;
            for k in a {
                while b.get(j).is_some_and(|o| o < k) {
                    j += 1;
                }
                if b.get(j) != Some(k) {
                    out.push(k.clone());
                }
            }
            out
        }
        match (self, other) {
            (KeyList::Packed { width, keys }, KeyList::Packed { keys: o, .. }) => KeyList::Packed {
                width: *width,
                keys: minus(keys, o),
            },
            (KeyList::Bytes(keys), KeyList::Bytes(o)) => KeyList::Bytes(minus(keys, o)),
            // Lists of one key schema share a representation; compared as bytes otherwise.
            _ => KeyList::Bytes(minus(&self.to_bytes(), &other.to_bytes())),
        }
    }

    /// The keys of both lists (sorted, distinct).
    pub(super) fn union(self, other: KeyList) -> KeyList {
        fn merge<T: Ord>(a: Vec<T>, b: Vec<T>) -> Vec<T> {
            let mut out = a;
            out.extend(b);
            out.sort_unstable();
            out.dedup();
            out
        }
        match (self, other) {
            (KeyList::Packed { width, keys }, KeyList::Packed { keys: o, .. }) => KeyList::Packed {
                width,
                keys: merge(keys, o),
            },
            (KeyList::Bytes(keys), KeyList::Bytes(o)) => KeyList::Bytes(merge(keys, o)),
            // Lists of one key schema share a representation; merged as bytes otherwise.
            (a, b) => KeyList::Bytes(merge(a.to_bytes(), b.to_bytes())),
        }
    }

    /// The keys as byte strings, in order.
    fn to_bytes(&self) -> Vec<Vec<u8>> {
        match self {
            KeyList::Packed { width, keys } => keys
                .iter()
                .map(|k| k.to_be_bytes().get(..*width).unwrap_or_default().to_vec())
                .collect(),
            KeyList::Bytes(keys) => keys.clone(),
        }
    }

    /// The keys split by `hit` (one flag per key): (the keys hit, the others).
    pub(super) fn partition(self, hit: &[bool]) -> (KeyList, KeyList) {
        fn split<T>(keys: Vec<T>, hit: &[bool]) -> (Vec<T>, Vec<T>) {
            let mut yes = Vec::new();
            let mut no = Vec::with_capacity(keys.len());
            for (i, k) in keys.into_iter().enumerate() {
                match hit.get(i).copied().unwrap_or(false) {
                    true => yes.push(k),
                    false => no.push(k),
                }
            }
            (yes, no)
        }
        match self {
            KeyList::Packed { width, keys } => {
                let (yes, no) = split(keys, hit);
                (
                    KeyList::Packed { width, keys: yes },
                    KeyList::Packed { width, keys: no },
                )
            }
            KeyList::Bytes(keys) => {
                let (yes, no) = split(keys, hit);
                (KeyList::Bytes(yes), KeyList::Bytes(no))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// Random byte rows of `width` bytes (or 1..=20 bytes with `None`), few distinct.
    fn rows(seed: u64, n: usize, width: Option<usize>) -> Vec<Vec<u8>> {
        let mut s = seed;
        let mut next = move || {
            s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (s >> 33) as usize
        };
        (0..n)
            .map(|_| {
                let w = width.unwrap_or_else(|| 1 + next() % 20);
                (0..w)
                    .map(|_| [0u8, 1, 0x7f, 0x80, 0xff][next() % 5])
                    .collect()
            })
            .collect()
    }

    fn collect(rows: &[Vec<u8>], width: Option<usize>) -> KeyList {
        let mut c = KeyCollector::new(width);
        for r in rows {
            c.push(r).unwrap();
        }
        c.finish()
    }

    fn bytes(list: &KeyList) -> Vec<Vec<u8>> {
        list.to_bytes()
    }

    #[test]
    fn packed_and_byte_lists_agree_with_byte_order() {
        for (seed, width) in [(1, Some(9)), (2, Some(16)), (3, Some(1)), (4, None)] {
            let a = rows(seed, 400, width);
            let b = rows(seed + 100, 300, width);
            let model_a: BTreeSet<Vec<u8>> = a.iter().cloned().collect();
            let model_b: BTreeSet<Vec<u8>> = b.iter().cloned().collect();
            let (la, lb) = (collect(&a, width), collect(&b, width));
            assert_eq!(bytes(&la), model_a.iter().cloned().collect::<Vec<_>>());
            assert_eq!(
                bytes(&la.difference(&lb)),
                model_a.difference(&model_b).cloned().collect::<Vec<_>>()
            );
            for r in a.iter().chain(&b) {
                assert_eq!(la.contains(r).unwrap(), model_a.contains(r), "{r:?}");
                let p = la.probe(r).unwrap();
                for (i, k) in model_a.iter().enumerate() {
                    assert_eq!(la.cmp_at(i, &p), Some(k.as_slice().cmp(r)));
                }
                assert_eq!(la.cmp_at(model_a.len(), &p), None);
            }
            let hit: Vec<bool> = (0..la.len()).map(|i| i % 3 == 0).collect();
            let all = bytes(&la);
            let (yes, no) = la.partition(&hit);
            let want_yes: Vec<_> = all.iter().step_by(3).cloned().collect();
            assert_eq!(bytes(&yes), want_yes);
            assert_eq!(yes.len() + no.len(), all.len());
            assert_eq!(bytes(&yes.union(no)), all);
        }
    }

    #[test]
    fn lists_of_both_kinds_combine_as_bytes() {
        let packed = collect(&[vec![1, 2], vec![3, 4]], Some(2));
        let loose = collect(&[vec![1, 2], vec![9]], None);
        assert_eq!(bytes(&packed.difference(&loose)), vec![vec![3, 4]]);
        assert_eq!(
            bytes(&packed.union(loose)),
            vec![vec![1, 2], vec![3, 4], vec![9]]
        );
    }

    #[test]
    fn packed_rows_of_another_width_are_an_error() {
        let mut c = KeyCollector::new(Some(9));
        assert!(c.push(&[0; 8]).is_err());
        let list = collect(&[vec![1; 9]], Some(9));
        assert!(list.contains(&[1; 10]).is_err());
        assert!(list.probe(&[1; 3]).is_err());
    }

    #[test]
    fn integer_columns_pack_as_their_rows_do() {
        use std::sync::Arc;

        use arrow_array::{
            Date32Array, Float64Array, Int32Array, Int64Array, Int8Array,
            TimestampMicrosecondArray, UInt16Array,
        };
        use arrow_row::{RowConverter, SortField};

        let ts = TimestampMicrosecondArray::from(vec![i64::MIN, -1, 0, 1, i64::MAX, 7])
            .with_timezone("UTC");
        let keys: Vec<Vec<ArrayRef>> = vec![
            vec![Arc::new(Int64Array::from(vec![
                i64::MIN,
                -1,
                0,
                1,
                i64::MAX,
                42,
            ]))],
            vec![
                Arc::new(Int32Array::from(vec![i32::MIN, -7, 0, 3, i32::MAX, -1])),
                Arc::new(Int8Array::from(vec![-128i8, -1, 0, 1, 127, 5])),
            ],
            vec![
                Arc::new(UInt16Array::from(vec![0u16, 1, 65535, 300, 2, 9])),
                Arc::new(Date32Array::from(vec![-3, 0, 19000, i32::MIN, i32::MAX, 1])),
            ],
            vec![Arc::new(ts)],
        ];
        for columns in keys {
            let fields = columns
                .iter()
                .map(|c| SortField::new(c.data_type().clone()))
                .collect();
            let rows = RowConverter::new(fields)
                .unwrap()
                .convert_columns(&columns)
                .unwrap();
            let width = rows.row(0).data().len();
            let want: Vec<u128> = rows
                .iter()
                .map(|r| pack(width, r.data()).unwrap())
                .collect();
            assert_eq!(pack_integers(&columns, width), Some(want), "{columns:?}");
            assert_eq!(pack_integers(&columns, width + 1), None);
        }
        let with_null: ArrayRef = Arc::new(Int64Array::from(vec![Some(1), None]));
        assert_eq!(pack_integers(&[with_null], 9), None);
        let float: ArrayRef = Arc::new(Float64Array::from(vec![1.0]));
        assert_eq!(pack_integers(&[float], 9), None);
        assert_eq!(pack_integers(&[], 0), None);
    }

    #[test]
    fn widths_fit_a_u128_or_not() {
        assert_eq!(packed_width([Some(9)]), Some(9));
        assert_eq!(packed_width([Some(9), Some(5)]), Some(14));
        assert_eq!(packed_width([Some(9), Some(9)]), None);
        assert_eq!(packed_width([Some(5), None]), None);
    }
}
