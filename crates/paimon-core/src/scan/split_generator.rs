//! Packing the files of one (partition, bucket) into splits.
//!
//! Append tables mirror Java `AppendOnlySplitGenerator` + `BinPacking.packForOrdered`: files
//! in sequence order are packed into bins of at most `source.split.target-size`, each file
//! weighing `max(file size, source.split.open-file-cost)`. Primary-key tables keep one bucket in
//! one split for now (so one key never lands in two splits); key-range sections come with the
//! merge-on-read reader.

use crate::spec::manifest::DataFileMeta;

/// Splitting parameters (from table options).
#[derive(Debug, Clone, Copy)]
pub struct SplitSizing {
    /// `source.split.target-size` in bytes.
    pub target_size: u64,
    /// `source.split.open-file-cost` in bytes.
    pub open_file_cost: u64,
}

/// Packs `files` in order into bins by weight (Java `BinPacking.packForOrdered`).
pub fn pack_ordered(files: Vec<DataFileMeta>, sizing: SplitSizing) -> Vec<Vec<DataFileMeta>> {
    let mut out = Vec::new();
    let mut bin: Vec<DataFileMeta> = Vec::new();
    let mut weight = 0u64;
    for f in files {
        let w = u64::try_from(f.file_size)
            .unwrap_or(0)
            .max(sizing.open_file_cost);
        if !bin.is_empty() && weight.saturating_add(w) > sizing.target_size {
            out.push(std::mem::take(&mut bin));
            weight = 0;
        }
        weight = weight.saturating_add(w);
        bin.push(f);
    }
    if !bin.is_empty() {
        out.push(bin);
    }
    out
}

/// Splits of an append table's bucket: files ordered by sequence number, then packed.
pub fn append_splits(mut files: Vec<DataFileMeta>, sizing: SplitSizing) -> Vec<Vec<DataFileMeta>> {
    files.sort_by(|a, b| {
        a.min_sequence_number
            .cmp(&b.min_sequence_number)
            .then_with(|| a.file_name.cmp(&b.file_name))
    });
    pack_ordered(files, sizing)
}

/// Splits of a primary-key table's bucket and whether each is raw-convertible.
///
/// Raw-convertible (Java `MergeTreeSplitGenerator`): every file above level 0 without delete
/// rows, and deletion vectors on, or `first-row`, or all files on one level.
pub fn primary_key_splits(
    files: Vec<DataFileMeta>,
    dv_or_first_row: bool,
) -> Vec<(Vec<DataFileMeta>, bool)> {
    if files.is_empty() {
        return vec![];
    }
    let no_deletes = files
        .iter()
        .all(|f| f.level != 0 && f.delete_row_count == Some(0));
    let one_level = files.windows(2).all(|w| w[0].level == w[1].level);
    let raw = no_deletes && (dv_or_first_row || one_level);
    vec![(files, raw)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, size: i64, seq: i64) -> DataFileMeta {
        let mut f: DataFileMeta = serde_json::from_value(serde_json::json!({
            "file_name": name, "file_size": size, "row_count": 1, "min_key": [], "max_key": [],
            "key_stats": {"min_values": [], "max_values": [], "null_counts": null},
            "value_stats": {"min_values": [], "max_values": [], "null_counts": null},
            "min_sequence_number": seq, "max_sequence_number": seq, "schema_id": 0, "level": 0,
            "extra_files": [], "creation_time": null, "delete_row_count": 0, "embedded_index": null,
            "file_source": null, "value_stats_cols": null, "external_path": null,
            "first_row_id": null, "write_cols": null
        }))
        .unwrap();
        f.level = 0;
        f
    }

    #[test]
    fn packs_by_weight_with_open_file_cost() {
        let sizing = SplitSizing {
            target_size: 100,
            open_file_cost: 30,
        };
        let files = vec![
            file("c", 10, 3),
            file("a", 60, 1),
            file("b", 50, 2),
            file("d", 200, 4),
        ];
        let bins = append_splits(files, sizing);
        let names: Vec<Vec<&str>> = bins
            .iter()
            .map(|b| b.iter().map(|f| f.file_name.as_str()).collect())
            .collect();
        // a(60) | b(50)+c(30 by open cost) | d(200 alone)
        assert_eq!(names, vec![vec!["a"], vec!["b", "c"], vec!["d"]]);
    }
}
