//! `_INDEX_META` of a BTree payload (`org.apache.paimon.globalindex.SortedIndexFileMeta`),
//! little-endian:
//!
//! `i32 firstKeyLen, firstKey, i32 lastKeyLen, lastKey, u8 hasNulls, [u8 formatVersion,
//! u8 nullKeyFlags]` — flags bit 0: first key null, bit 1: last key null (a null key is
//! written with length 0). Without the two trailing bytes (legacy form), both lengths 0 with
//! `hasNulls` mean both keys are null. Both keys null means the payload holds only nulls.

use std::cmp::Ordering;
use std::ops::Bound;

use super::key::{compare, Key, KeyType};
use crate::spec::bytes::ByteReader;
use crate::{Error, Result};

/// `FORMAT_VERSION_WITH_NULL_FLAGS`.
pub const FORMAT_VERSION_WITH_NULL_FLAGS: u8 = 1;
const FIRST_KEY_IS_NULL: u8 = 1;
const LAST_KEY_IS_NULL: u8 = 1 << 1;

/// Decoded `_INDEX_META`: serialized min/max keys and whether null rows exist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortedIndexFileMeta {
    /// Smallest non-null key (serialized), `None` if the payload holds only nulls.
    pub first_key: Option<Vec<u8>>,
    /// Largest non-null key (serialized).
    pub last_key: Option<Vec<u8>>,
    /// Whether some row is null.
    pub has_nulls: bool,
}

impl SortedIndexFileMeta {
    /// Decodes `_INDEX_META` as Java's `deserialize` does: key lengths are checked against
    /// the input (never allocated blindly), a format version other than 1 leaves the keys as
    /// read, and trailing bytes after the flags are ignored.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let mut r = ByteReader::new(bytes, "_INDEX_META");
        let first_len = r.i32_le()?;
        let first = read_key(&mut r, first_len)?;
        let last_len = r.i32_le()?;
        let last = read_key(&mut r, last_len)?;
        let has_nulls = r.u8()? == 1;
        let (mut first_key, mut last_key) = (Some(first), Some(last));
        if r.remaining() >= 2 {
            if r.u8()? == FORMAT_VERSION_WITH_NULL_FLAGS {
                let flags = r.u8()?;
                if flags & FIRST_KEY_IS_NULL != 0 {
                    first_key = None;
                }
                if flags & LAST_KEY_IS_NULL != 0 {
                    last_key = None;
                }
            }
        } else if first_len == 0 && last_len == 0 && has_nulls {
            first_key = None;
            last_key = None;
        }
        Ok(SortedIndexFileMeta {
            first_key,
            last_key,
            has_nulls,
        })
    }

    /// The bytes Java's `serialize` writes (always the form with null flags).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut flags = 0u8;
        for (k, flag) in [
            (&self.first_key, FIRST_KEY_IS_NULL),
            (&self.last_key, LAST_KEY_IS_NULL),
        ] {
            match k {
                Some(k) => {
                    out.extend_from_slice(&(k.len() as i32).to_le_bytes());
                    out.extend_from_slice(k);
                }
                None => {
                    out.extend_from_slice(&0i32.to_le_bytes());
                    flags |= flag;
                }
            }
        }
        out.push(u8::from(self.has_nulls));
        out.push(FORMAT_VERSION_WITH_NULL_FLAGS);
        out.push(flags);
        out
    }

    /// Whether the payload holds only null rows (both keys null).
    pub fn only_nulls(&self) -> bool {
        self.first_key.is_none() && self.last_key.is_none()
    }

    /// The typed (min, max) keys, validated as paimon-cpp does before trusting them for
    /// skipping: both present and of the key type's width with min ≤ max, or both absent
    /// with `has_nulls`. Anything else is `DataInvalid` (callers fall back to a scan).
    pub fn key_range(&self, key_type: &KeyType) -> Result<Option<(Key, Key)>> {
        match (&self.first_key, &self.last_key) {
            (Some(f), Some(l)) => {
                let (min, max) = (key_type.deserialize(f)?, key_type.deserialize(l)?);
                if compare(&min, &max) == Ordering::Greater {
                    return Err(Error::data_invalid(
                        "_INDEX_META first key is greater than its last key",
                    ));
                }
                Ok(Some((min, max)))
            }
            (None, None) if self.has_nulls => Ok(None),
            (None, None) => Err(Error::data_invalid(
                "_INDEX_META has neither keys nor nulls",
            )),
            _ => Err(Error::data_invalid("_INDEX_META has exactly one null key")),
        }
    }
}

impl SortedIndexFileMeta {
    /// Whether non-null keys within the bounds may exist, from the min/max keys alone (for
    /// skipping a payload before opening it). A payload of only nulls matches nothing.
    pub fn may_contain(
        &self,
        key_type: &KeyType,
        lower: Bound<&Key>,
        upper: Bound<&Key>,
    ) -> Result<bool> {
        let Some((min, max)) = self.key_range(key_type)? else {
            return Ok(false);
        };
        let above_max = match lower {
            Bound::Unbounded => false,
            Bound::Included(l) => compare(l, &max) == Ordering::Greater,
            Bound::Excluded(l) => compare(l, &max) != Ordering::Less,
        };
        let below_min = match upper {
            Bound::Unbounded => false,
            Bound::Included(u) => compare(u, &min) == Ordering::Less,
            Bound::Excluded(u) => compare(u, &min) != Ordering::Greater,
        };
        Ok(!above_max && !below_min)
    }
}

fn read_key(r: &mut ByteReader<'_>, len: i32) -> Result<Vec<u8>> {
    let n = usize::try_from(len).map_err(|_| {
        r.invalid("negative key length")
            .with_context("found", len.to_string())
    })?;
    Ok(r.take(n)?.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn current_and_legacy_forms() {
        let m = SortedIndexFileMeta {
            first_key: Some(3i32.to_le_bytes().to_vec()),
            last_key: Some(143i32.to_le_bytes().to_vec()),
            has_nulls: true,
        };
        let b = m.encode();
        assert_eq!(b.len(), 4 + 4 + 4 + 4 + 3);
        assert_eq!(SortedIndexFileMeta::decode(&b).unwrap(), m);
        // Legacy: no version/flags.
        assert_eq!(SortedIndexFileMeta::decode(&b[..17]).unwrap(), m);
        assert_eq!(
            m.key_range(&KeyType::Int).unwrap(),
            Some((Key::Int(3), Key::Int(143)))
        );
        let may = |l: Bound<&Key>, u: Bound<&Key>| m.may_contain(&KeyType::Int, l, u).unwrap();
        let (k2, k3, k143, k144) = (Key::Int(2), Key::Int(3), Key::Int(143), Key::Int(144));
        assert!(!may(Bound::Unbounded, Bound::Included(&k2)));
        assert!(may(Bound::Unbounded, Bound::Included(&k3)));
        assert!(!may(Bound::Unbounded, Bound::Excluded(&k3)));
        assert!(may(Bound::Included(&k143), Bound::Unbounded));
        assert!(!may(Bound::Excluded(&k143), Bound::Unbounded));
        assert!(!may(Bound::Included(&k144), Bound::Included(&k144)));
        assert!(may(Bound::Included(&k2), Bound::Included(&k144)));
        let nulls = SortedIndexFileMeta {
            first_key: None,
            last_key: None,
            has_nulls: true,
        };
        let b = nulls.encode();
        assert_eq!(b, [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 3]);
        assert_eq!(SortedIndexFileMeta::decode(&b).unwrap(), nulls);
        assert_eq!(SortedIndexFileMeta::decode(&b[..9]).unwrap(), nulls);
        assert!(nulls.only_nulls());
        assert_eq!(nulls.key_range(&KeyType::Int).unwrap(), None);
        let all = (Bound::Unbounded, Bound::Unbounded);
        assert!(!nulls.may_contain(&KeyType::Int, all.0, all.1).unwrap());
        // Legacy form with one empty string key is not "all null".
        let empty_first = [0, 0, 0, 0, 1, 0, 0, 0, b'a', 1];
        let m = SortedIndexFileMeta::decode(&empty_first).unwrap();
        assert_eq!(m.first_key, Some(vec![]));
    }

    #[test]
    fn malformed() {
        for bad in [
            &[][..],
            &[4, 0, 0, 0],
            &[0xff, 0xff, 0xff, 0xff, 0],
            &[0, 0, 0, 0],
        ] {
            assert!(SortedIndexFileMeta::decode(bad).is_err());
        }
        let wrong_width = SortedIndexFileMeta {
            first_key: Some(vec![1, 2]),
            last_key: Some(vec![1, 2]),
            has_nulls: false,
        };
        assert!(wrong_width.key_range(&KeyType::Int).is_err());
        let reversed = SortedIndexFileMeta {
            first_key: Some(9i32.to_le_bytes().to_vec()),
            last_key: Some(1i32.to_le_bytes().to_vec()),
            has_nulls: false,
        };
        assert!(reversed.key_range(&KeyType::Int).is_err());
        let one_null = SortedIndexFileMeta {
            first_key: None,
            last_key: Some(1i32.to_le_bytes().to_vec()),
            has_nulls: true,
        };
        assert!(one_null.key_range(&KeyType::Int).is_err());
        let nothing = SortedIndexFileMeta {
            first_key: None,
            last_key: None,
            has_nulls: false,
        };
        assert!(nothing.key_range(&KeyType::Int).is_err());
    }
}
