//! [`FileIndexResult`]: the answer of a file index (Java `FileIndexResult` /
//! `BitmapIndexResult`, `shared/spec/file-index.md` §8.1).

use roaring::RoaringBitmap;

/// What an index says about the rows of one data file.
#[derive(Debug, Clone, PartialEq)]
pub enum FileIndexResult {
    /// Some rows may match (nothing known).
    Remain,
    /// No row matches: the file can be skipped.
    Skip,
    /// Only these row positions (0-based, file-local) may match; empty = no row matches.
    Rows(RoaringBitmap),
}

impl FileIndexResult {
    /// Whether some row may match (Java `remain()`).
    pub fn remain(&self) -> bool {
        match self {
            FileIndexResult::Remain => true,
            FileIndexResult::Skip => false,
            FileIndexResult::Rows(b) => !b.is_empty(),
        }
    }

    /// Conjunction: `Remain ∧ x = x`, `Skip ∧ x = Skip`, rows ∧ rows = intersection.
    #[must_use]
    pub fn and(self, other: FileIndexResult) -> FileIndexResult {
        use FileIndexResult::*;
        match (self, other) {
            (Skip, _) | (_, Skip) => Skip,
            (Remain, x) | (x, Remain) => x,
            (Rows(a), Rows(b)) => Rows(a & b),
        }
    }

    /// Disjunction: `Remain ∨ x = Remain`, `Skip ∨ x = x`, rows ∨ rows = union.
    #[must_use]
    pub fn or(self, other: FileIndexResult) -> FileIndexResult {
        use FileIndexResult::*;
        match (self, other) {
            (Remain, _) | (_, Remain) => Remain,
            (Skip, x) | (x, Skip) => x,
            (Rows(a), Rows(b)) => Rows(a | b),
        }
    }
}

/// `[0, rows)` as a bitmap (`rows` is at most `u32::MAX + 1` by construction of callers).
pub(crate) fn all_rows(rows: u32) -> RoaringBitmap {
    let mut b = RoaringBitmap::new();
    b.insert_range(0..rows);
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn algebra_follows_java() {
        let rows = |v: &[u32]| FileIndexResult::Rows(v.iter().copied().collect());
        use FileIndexResult::*;
        assert_eq!(Remain.and(rows(&[1])), rows(&[1]));
        assert_eq!(rows(&[1, 2]).and(rows(&[2, 3])), rows(&[2]));
        assert_eq!(rows(&[1]).and(Skip), Skip);
        assert_eq!(rows(&[1]).or(Remain), Remain);
        assert_eq!(Skip.or(rows(&[1])), rows(&[1]));
        assert_eq!(rows(&[1]).or(rows(&[3])), rows(&[1, 3]));
        assert!(!rows(&[]).remain());
        assert!(Remain.remain());
        assert!(!Skip.remain());
    }
}
