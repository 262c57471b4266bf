//! The data-file index options a writer needs (Java `FileIndexOptions`, Paimon 2.0):
//! `file-index.<type>.columns` (comma list), per-index options
//! `file-index.<type>.<column>.<key>`, and `file-index.in-manifest-threshold` (default 500 B:
//! containers up to that size are embedded in the manifest, larger ones go to a
//! `<data-file>.index` file).
//!
//! Parsing never fails (readers must open any table); what Java would reject when writing
//! (an empty column name, an option for an undeclared column, a bad threshold) is kept in
//! [`FileIndexOptions::invalid`] and refused by the writer.

use std::collections::{BTreeMap, HashMap};

use super::MemorySize;

/// `file-index.in-manifest-threshold`.
pub const FILE_INDEX_IN_MANIFEST_THRESHOLD: &str = "file-index.in-manifest-threshold";
const PREFIX: &str = "file-index.";
const COLUMNS_SUFFIX: &str = ".columns";

/// One (column, index type) to index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileIndexColumn {
    /// Column name (`m[k]` for a map key).
    pub column: String,
    /// Index type name (`bitmap`, `bloom-filter`, `bsi`, `range-bitmap`, …).
    pub index_type: String,
    /// The index's own options (`file-index.<type>.<column>.<key>` → `key`).
    pub options: BTreeMap<String, String>,
}

/// The `file-index.*` write options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileIndexOptions {
    /// Every (column, type), ordered by type then by position in its column list.
    pub columns: Vec<FileIndexColumn>,
    /// `file-index.in-manifest-threshold` in bytes.
    pub in_manifest_threshold: u64,
    /// What Java's `FileIndexOptions` would throw on, if anything.
    pub invalid: Option<String>,
}

impl Default for FileIndexOptions {
    fn default() -> Self {
        FileIndexOptions {
            columns: Vec::new(),
            in_manifest_threshold: 500,
            invalid: None,
        }
    }
}

impl FileIndexOptions {
    /// Reads the `file-index.*` keys of `map`.
    pub fn from_map(map: &HashMap<String, String>) -> Self {
        let mut out = FileIndexOptions::default();
        let sorted: BTreeMap<&String, &String> = map.iter().collect();
        let mut per_index: Vec<(&str, &str, &str, &str)> = Vec::new();
        for (key, value) in &sorted {
            let Some(rest) = key.strip_prefix(PREFIX) else {
                continue;
            };
            if let Some(index_type) = rest.strip_suffix(COLUMNS_SUFFIX) {
                for name in value.split(',') {
                    if name.trim().is_empty() {
                        out.invalid.get_or_insert(format!(
                            "Wrong option in {key}, should not have empty column"
                        ));
                        continue;
                    }
                    out.columns.push(FileIndexColumn {
                        column: name.trim().to_string(),
                        index_type: index_type.to_string(),
                        options: BTreeMap::new(),
                    });
                }
            } else if key.as_str() == FILE_INDEX_IN_MANIFEST_THRESHOLD {
                match MemorySize::parse(value) {
                    Ok(m) => out.in_manifest_threshold = m.bytes(),
                    Err(e) => {
                        out.invalid.get_or_insert(format!("{key}: {e}"));
                    }
                }
            } else {
                let parts: Vec<&str> = rest.split('.').collect();
                if let [t, c, k] = parts.as_slice() {
                    per_index.push((t, c, k, value.as_str()));
                }
            }
        }
        for (t, c, k, v) in per_index {
            match out
                .columns
                .iter_mut()
                .find(|e| e.index_type == t && e.column == c)
            {
                Some(e) => {
                    e.options.insert(k.to_string(), v.to_string());
                }
                None => {
                    out.invalid.get_or_insert(format!(
                        "Wrong file index option 'file-index.{t}.{c}.{k}': column '{c}' is not declared in 'file-index.{t}.columns'"
                    ));
                }
            }
        }
        out
    }

    /// Whether any column is indexed.
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(pairs: &[(&str, &str)]) -> FileIndexOptions {
        let map = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        FileIndexOptions::from_map(&map)
    }

    #[test]
    fn columns_options_and_threshold() {
        let o = parse(&[
            ("file-index.bitmap.columns", "a, b"),
            ("file-index.bloom-filter.columns", "a"),
            ("file-index.bloom-filter.a.fpp", "0.01"),
            ("file-index.in-manifest-threshold", "1B"),
            ("file-index.read.enabled", "true"),
        ]);
        assert_eq!(o.invalid, None);
        assert_eq!(o.in_manifest_threshold, 1);
        let cols: Vec<_> = o
            .columns
            .iter()
            .map(|c| (c.index_type.as_str(), c.column.as_str(), c.options.len()))
            .collect();
        assert_eq!(
            cols,
            [
                ("bitmap", "a", 0),
                ("bitmap", "b", 0),
                ("bloom-filter", "a", 1)
            ]
        );
        assert_eq!(FileIndexOptions::default().in_manifest_threshold, 500);
    }

    #[test]
    fn java_rejections_are_kept_not_raised() {
        assert!(parse(&[("file-index.bitmap.columns", "a,,b")])
            .invalid
            .is_some());
        let o = parse(&[("file-index.bitmap.x.version", "1")]);
        assert!(o.invalid.unwrap().contains("not declared"));
    }
}
