//! Packing the files of one (partition, bucket) into splits.
//!
//! Append tables mirror Java `AppendOnlySplitGenerator` + `BinPacking.packForOrdered`: files
//! in sequence order are packed into bins of at most `source.split.target-size`, each file
//! weighing `max(file size, source.split.open-file-cost)`. Primary-key tables mirror Java
//! `MergeTreeSplitGenerator#splitForBatch`: raw-convertible buckets are packed file by file;
//! others are cut into key-disjoint sections ([`interval_partition`]) and whole sections are
//! packed, so one key never lands in two splits.

use crate::mergetree::interval_partition::{interval_partition, keyed_files};
use crate::spec::manifest::DataFileMeta;
use crate::spec::types::DataType;

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
        let w = file_weight(&f, sizing);
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

fn file_weight(f: &DataFileMeta, sizing: SplitSizing) -> u64 {
    u64::try_from(f.file_size)
        .unwrap_or(0)
        .max(sizing.open_file_cost)
}

/// Java `withoutDeleteRow`: an unknown delete count counts as none for planning.
fn without_delete_rows(f: &DataFileMeta) -> bool {
    f.delete_row_count.is_none_or(|c| c == 0)
}

/// Splits of a primary-key table's bucket and whether each is raw-convertible.
///
/// Every file above level 0 without delete rows, and deletion vectors on, or `first-row`, or
/// all files on one level: files are packed in order, every split raw-convertible. Otherwise
/// the files are interval-partitioned by their decoded key ranges (`key_types` = trimmed
/// primary-key types) into sections, whole sections are packed, and a split is
/// raw-convertible only when it is one file without delete rows. When key ranges cannot be
/// decoded the bucket stays one split.
pub fn primary_key_splits(
    files: Vec<DataFileMeta>,
    key_types: &[DataType],
    dv_or_first_row: bool,
    sizing: SplitSizing,
) -> Vec<(Vec<DataFileMeta>, bool)> {
    if files.is_empty() {
        return vec![];
    }
    let no_deletes = files.iter().all(|f| f.level != 0 && without_delete_rows(f));
    let one_level = files.windows(2).all(|w| w[0].level == w[1].level);
    if no_deletes && (dv_or_first_row || one_level) {
        return pack_ordered(files, sizing)
            .into_iter()
            .map(|b| (b, true))
            .collect();
    }
    let sections = match keyed_files(&files, key_types) {
        Ok(k) => interval_partition(k),
        Err(_) => return vec![(files, false)],
    };
    let mut slots: Vec<Option<DataFileMeta>> = files.into_iter().map(Some).collect();
    let mut out = Vec::new();
    let mut bin: Vec<DataFileMeta> = Vec::new();
    let mut bin_weight = 0u64;
    for section in sections {
        let section: Vec<DataFileMeta> = section
            .into_iter()
            .flatten()
            .filter_map(|i| slots.get_mut(i).and_then(Option::take))
            .collect();
        let w = section
            .iter()
            .fold(0u64, |acc, f| acc.saturating_add(file_weight(f, sizing)));
        if !bin.is_empty() && bin_weight.saturating_add(w) > sizing.target_size {
            out.push(std::mem::take(&mut bin));
            bin_weight = 0;
        }
        bin_weight = bin_weight.saturating_add(w);
        bin.extend(section);
    }
    if !bin.is_empty() {
        out.push(bin);
    }
    out.into_iter()
        .map(|b| {
            let raw = b.len() == 1 && b.iter().all(without_delete_rows);
            (b, raw)
        })
        .collect()
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

    fn pk_file(name: &str, level: i32, min: i32, max: i32) -> DataFileMeta {
        use crate::spec::binary_row::BinaryRow;
        use crate::spec::types::TypeKind;
        use crate::spec::Datum;
        let t = [DataType::not_null(TypeKind::Int)];
        let key = |k| {
            BinaryRow::encode(&[Some(Datum::Int(k))], &t)
                .unwrap()
                .serialize()
        };
        let mut f = file(name, 10, 0);
        f.level = level;
        f.min_key = key(min);
        f.max_key = key(max);
        f
    }

    /// paimon-rust #373: size-only packing put one key into two splits.
    #[test]
    fn pk_sections_keep_each_key_in_one_split() {
        use crate::spec::types::TypeKind;
        let sizing = SplitSizing {
            target_size: 20,
            open_file_cost: 10,
        };
        let t = [DataType::not_null(TypeKind::Int)];
        // level-0 files overlapping [0,50] and [40,60]; [100,200] on level 5 apart; -5..-1
        // sorts first by value (its bytes are larger).
        let files = vec![
            pk_file("a", 0, 0, 50),
            pk_file("c", 5, 100, 200),
            pk_file("b", 0, 40, 60),
            pk_file("d", 5, -5, -1),
        ];
        let splits = primary_key_splits(files, &t, false, sizing);
        let names: Vec<(Vec<&str>, bool)> = splits
            .iter()
            .map(|(b, raw)| (b.iter().map(|f| f.file_name.as_str()).collect(), *raw))
            .collect();
        assert_eq!(
            names,
            vec![
                (vec!["d"], true),
                (vec!["a", "b"], false),
                (vec!["c"], true),
            ]
        );
        // all above level 0 on one level: raw, packed by size
        let files = vec![pk_file("x", 3, 0, 10), pk_file("y", 3, 5, 20)];
        let splits = primary_key_splits(files, &t, false, sizing);
        assert_eq!(splits.len(), 1);
        assert!(splits[0].1);
    }
}
