//! Sorted, distinct primary keys in Arrow's row format (`arrow_row`, whose byte order is the
//! key order): lookup compaction's key sets and the pending side of its merge join.
//!
//! Keys of a fixed-width key schema whose row is at most 16 bytes (any single integer, date,
//! timestamp or float key, and small composite keys) are held as big-endian `u128`s: byte
//! strings of one length compare as those integers, so sorting, set operations and the join
//! compare integers, with one allocation for all the keys. Other keys are byte strings.

use std::cmp::Ordering;

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
    fn widths_fit_a_u128_or_not() {
        assert_eq!(packed_width([Some(9)]), Some(9));
        assert_eq!(packed_width([Some(9), Some(5)]), Some(14));
        assert_eq!(packed_width([Some(9), Some(9)]), None);
        assert_eq!(packed_width([Some(5), None]), None);
    }
}
