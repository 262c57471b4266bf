//! File-local row ranges: the one type planning ([`DataSplit::row_ranges`]) and reading (row
//! selection, row positions of decoded batches) share.
//!
//! A [`RowRange`] is half-open, `start..end`, over 0-based row positions within one data file
//! (rows removed by deletion vectors included). Java's `org.apache.paimon.utils.Range` is
//! inclusive `[from, to]`; serialised splits keep that form (a 2-element array `[from, to]`,
//! see [`serde_split_ranges`]), so `DataSplit`s serialise exactly as before.
//!
//! [`DataSplit::row_ranges`]: crate::scan::DataSplit::row_ranges

use std::ops::Range;

/// Rows `start..end` (end exclusive) of one data file.
pub type RowRange = Range<u64>;

/// The range of rows `from..=to` (both inclusive, Java's convention); `to = u64::MAX` is
/// clamped to an exclusive end of `u64::MAX`.
pub fn from_inclusive(from: u64, to: u64) -> RowRange {
    from..to.saturating_add(1)
}

/// Row ranges of each file of a split (`None`: all rows of that file; outer `None`: of all).
pub type SplitRowRanges = Option<Vec<Option<Vec<RowRange>>>>;

/// `(from, to)`, both inclusive, or `None` for an empty range.
pub fn to_inclusive(range: &RowRange) -> Option<(u64, u64)> {
    (range.start < range.end).then(|| (range.start, range.end - 1))
}

/// Serde of `DataSplit::row_ranges` (per file, optional lists of ranges) in the inclusive
/// `[from, to]` form; an empty range cannot be serialised.
pub mod serde_split_ranges {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::{from_inclusive, to_inclusive, RowRange, SplitRowRanges};

    type Inclusive = Option<Vec<Option<Vec<(u64, u64)>>>>;

    /// Serialises `ranges` as inclusive pairs.
    pub fn serialize<S: Serializer>(
        ranges: &SplitRowRanges,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let pairs = |v: &Vec<RowRange>| -> Result<Vec<(u64, u64)>, S::Error> {
            v.iter()
                .map(|r| {
                    to_inclusive(r)
                        .ok_or_else(|| serde::ser::Error::custom(format!("empty row range {r:?}")))
                })
                .collect()
        };
        let inclusive: Inclusive = match ranges {
            None => None,
            Some(files) => Some(
                files
                    .iter()
                    .map(|f| f.as_ref().map(pairs).transpose())
                    .collect::<Result<_, _>>()?,
            ),
        };
        inclusive.serialize(serializer)
    }

    /// Reads inclusive pairs back into half-open ranges.
    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<SplitRowRanges, D::Error> {
        let inclusive = Inclusive::deserialize(deserializer)?;
        Ok(inclusive.map(|files| {
            files
                .into_iter()
                .map(|f| f.map(|v| v.into_iter().map(|(a, b)| from_inclusive(a, b)).collect()))
                .collect()
        }))
    }
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Holder {
        #[serde(with = "serde_split_ranges")]
        r: SplitRowRanges,
    }

    #[test]
    fn inclusive_conversions() {
        assert_eq!(from_inclusive(1, 3), 1..4);
        assert_eq!(from_inclusive(0, 0), 0..1);
        assert_eq!(from_inclusive(5, u64::MAX), 5..u64::MAX);
        assert_eq!(to_inclusive(&(1..4)), Some((1, 3)));
        assert_eq!(to_inclusive(&(4..4)), None);
    }

    #[test]
    fn split_ranges_serialise_as_inclusive_pairs() {
        let h = Holder {
            r: Some(vec![Some(vec![0..1, 2..10]), None]),
        };
        let json = serde_json::to_string(&h).unwrap();
        assert_eq!(json, r#"{"r":[[[0,0],[2,9]],null]}"#);
        assert_eq!(serde_json::from_str::<Holder>(&json).unwrap(), h);
        let none = Holder { r: None };
        assert_eq!(serde_json::to_string(&none).unwrap(), r#"{"r":null}"#);
        assert!(serde_json::to_string(&Holder {
            r: Some(vec![Some(vec![3..3])])
        })
        .is_err());
    }
}
