//! Interval partition: the files of one bucket as key-disjoint sections of sorted runs.
//!
//! Mirrors Java `org.apache.paimon.mergetree.compact.IntervalPartition` (`docs/format.md`
//! "Merge-on-read"):
//! files are sorted by (min key, max key); a new section starts whenever a file's min key is
//! greater than every max key seen so far, so sections cover disjoint key ranges in key order.
//! Inside a section files are packed greedily into sorted runs of non-overlapping files (a file
//! joins the run whose last max key is smallest if it starts after that key, else opens a new
//! run). Keys are compared by their decoded values ([`compare_keys`]), never by bytes.

use std::cmp::Ordering;

use crate::spec::binary_row::BinaryRow;
use crate::spec::manifest::DataFileMeta;
use crate::spec::types::DataType;
use crate::spec::Datum;
use crate::{Error, Result};

/// A decoded primary key (trimmed key columns, in key order).
pub type Key = Vec<Option<Datum>>;

/// Compares two decoded keys lexicographically with Java's natural per-type order; nulls
/// (never present in valid keys) sort first.
pub fn compare_keys(a: &[Option<Datum>], b: &[Option<Datum>]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = match (x, y) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (Some(x), Some(y)) => x.compare(y).unwrap_or(Ordering::Equal),
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

/// A file with its decoded key range; `index` is its position in the caller's list.
#[derive(Debug, Clone)]
pub struct KeyedFile {
    /// Position of the file in the list handed to [`interval_partition`].
    pub index: usize,
    /// Decoded `_MIN_KEY`.
    pub min: Key,
    /// Decoded `_MAX_KEY`.
    pub max: Key,
}

/// Decodes the key range of every file with the trimmed primary-key types.
pub fn keyed_files(files: &[DataFileMeta], key_types: &[DataType]) -> Result<Vec<KeyedFile>> {
    files
        .iter()
        .enumerate()
        .map(|(index, f)| {
            let decode = |bytes: &[u8], what: &str| {
                BinaryRow::from_serialized(bytes)
                    .and_then(|r| r.decode(key_types))
                    .map_err(|e| {
                        e.with_context("file", f.file_name.clone())
                            .with_context("structure", what.to_string())
                    })
            };
            let min = decode(&f.min_key, "_MIN_KEY")?;
            let max = decode(&f.max_key, "_MAX_KEY")?;
            if min.len() != key_types.len() {
                return Err(
                    Error::data_invalid("key arity differs from the primary key")
                        .with_context("file", f.file_name.clone()),
                );
            }
            Ok(KeyedFile { index, min, max })
        })
        .collect()
}

/// Sections (disjoint key ranges, ascending) of sorted runs; each run lists file indices in
/// key order.
pub fn interval_partition(mut files: Vec<KeyedFile>) -> Vec<Vec<Vec<usize>>> {
    files.sort_by(|a, b| {
        compare_keys(&a.min, &b.min)
            .then_with(|| compare_keys(&a.max, &b.max))
            .then_with(|| a.index.cmp(&b.index))
    });
    let mut sections = Vec::new();
    let mut section: Vec<KeyedFile> = Vec::new();
    let mut bound: Option<Key> = None;
    for f in files {
        if let Some(b) = &bound {
            if !section.is_empty() && compare_keys(&f.min, b) == Ordering::Greater {
                sections.push(partition_section(std::mem::take(&mut section)));
                bound = None;
            }
        }
        let bigger = match &bound {
            None => true,
            Some(b) => compare_keys(&f.max, b) == Ordering::Greater,
        };
        if bigger {
            bound = Some(f.max.clone());
        }
        section.push(f);
    }
    if !section.is_empty() {
        sections.push(partition_section(section));
    }
    sections
}

/// Packs the (sorted) files of one section into sorted runs.
fn partition_section(files: Vec<KeyedFile>) -> Vec<Vec<usize>> {
    // (last max key, file indices)
    let mut runs: Vec<(Key, Vec<usize>)> = Vec::new();
    for f in files {
        let smallest = runs
            .iter()
            .enumerate()
            .min_by(|a, b| compare_keys(&a.1 .0, &b.1 .0))
            .map(|(i, _)| i);
        match smallest {
            Some(i) if compare_keys(&f.min, &runs[i].0) == Ordering::Greater => {
                runs[i].0 = f.max;
                runs[i].1.push(f.index);
            }
            _ => runs.push((f.max, vec![f.index])),
        }
    }
    runs.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kf(index: usize, min: i32, max: i32) -> KeyedFile {
        KeyedFile {
            index,
            min: vec![Some(Datum::Int(min))],
            max: vec![Some(Datum::Int(max))],
        }
    }

    #[test]
    fn sections_and_runs() {
        // [0,10] [5,15] [11,20] | [30,40] | [41,50] [41,45]
        let files = vec![
            kf(0, 0, 10),
            kf(1, 5, 15),
            kf(2, 11, 20),
            kf(3, 30, 40),
            kf(4, 41, 50),
            kf(5, 41, 45),
        ];
        let s = interval_partition(files);
        assert_eq!(
            s,
            vec![
                vec![vec![0, 2], vec![1]],
                vec![vec![3]],
                vec![vec![5], vec![4]],
            ]
        );
    }

    #[test]
    fn keys_compare_by_value_not_bytes() {
        // -1 < 2 even though its bytes are larger
        let a = vec![Some(Datum::Int(-1))];
        let b = vec![Some(Datum::Int(2))];
        assert_eq!(compare_keys(&a, &b), Ordering::Less);
        let s = vec![Some(Datum::String("ab".into())), Some(Datum::Int(5))];
        let t = vec![Some(Datum::String("ab".into())), Some(Datum::Int(3))];
        assert_eq!(compare_keys(&s, &t), Ordering::Greater);
    }
}
