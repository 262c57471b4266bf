//! The manifest-list row describing one manifest: counts, partition statistics, schema id and
//! bucket / level / row-id ranges over its entries, computed as Java's
//! `org.apache.paimon.manifest.ManifestFile.ManifestEntryWriter#result` does.

use std::cmp::Ordering;

use crate::spec::binary_row::writer::encode;
use crate::spec::binary_row::BinaryRow;
use crate::spec::manifest::{FileKind, ManifestEntry, ManifestFileMeta, SimpleStats};
use crate::spec::types::DataType;
use crate::spec::Datum;
use crate::Result;

/// Min, max and null count of one partition column.
#[derive(Default)]
struct ColumnStats {
    min: Option<Datum>,
    max: Option<Datum>,
    nulls: i64,
}

impl ColumnStats {
    fn add(&mut self, v: Option<Datum>) {
        let Some(v) = v else {
            self.nulls += 1;
            return;
        };
        if self
            .min
            .as_ref()
            .is_none_or(|m| v.compare(m) == Some(Ordering::Less))
        {
            self.min = Some(v.clone());
        }
        if self
            .max
            .as_ref()
            .is_none_or(|m| v.compare(m) == Some(Ordering::Greater))
        {
            self.max = Some(v);
        }
    }
}

/// Untruncated min / max / null counts of the entries' partitions (Java collects partition
/// stats in `full` mode); an unpartitioned table gets empty rows and no counts.
pub(crate) fn partition_stats(
    entries: &[ManifestEntry],
    partition_types: &[DataType],
) -> Result<SimpleStats> {
    let mut cols: Vec<ColumnStats> = partition_types.iter().map(|_| Default::default()).collect();
    for e in entries {
        let values = BinaryRow::from_serialized(&e.partition)?.decode(partition_types)?;
        for (c, v) in cols.iter_mut().zip(values) {
            c.add(v);
        }
    }
    let mins: Vec<Option<Datum>> = cols.iter().map(|c| c.min.clone()).collect();
    let maxs: Vec<Option<Datum>> = cols.iter().map(|c| c.max.clone()).collect();
    Ok(SimpleStats {
        min_values: encode(&mins, partition_types)?.serialize(),
        max_values: encode(&maxs, partition_types)?.serialize(),
        null_counts: Some(cols.iter().map(|c| Some(c.nulls)).collect()),
    })
}

/// The manifest-list row of a manifest named `file_name` of `file_size` bytes holding
/// `entries`; `schema_id` is used when there are no entries.
pub(crate) fn manifest_file_meta(
    file_name: String,
    file_size: i64,
    entries: &[ManifestEntry],
    partition_types: &[DataType],
    schema_id: i64,
) -> Result<ManifestFileMeta> {
    let count = |k| entries.iter().filter(|e| e.kind == k).count() as i64;
    let range = |f: &dyn Fn(&ManifestEntry) -> i32| {
        let it = entries.iter().map(f);
        (it.clone().min(), it.max())
    };
    let (min_bucket, max_bucket) = range(&|e| e.bucket);
    let (min_level, max_level) = range(&|e| e.file.level);
    let row_ids: Option<Vec<(i64, i64)>> = entries
        .iter()
        .map(|e| {
            let first = e.file.first_row_id?;
            Some((first, first + e.file.row_count - 1))
        })
        .collect();
    let (min_row_id, max_row_id) = match row_ids {
        Some(r) if !r.is_empty() => (r.iter().map(|x| x.0).min(), r.iter().map(|x| x.1).max()),
        _ => (None, None),
    };
    Ok(ManifestFileMeta {
        file_name,
        file_size,
        num_added_files: count(FileKind::Add),
        num_deleted_files: count(FileKind::Delete),
        partition_stats: partition_stats(entries, partition_types)?,
        schema_id: entries
            .iter()
            .map(|e| e.file.schema_id)
            .max()
            .unwrap_or(schema_id),
        min_bucket,
        max_bucket,
        min_level,
        max_level,
        min_row_id,
        max_row_id,
    })
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::spec::manifest::{decode_manifest, decode_manifest_list};
    use crate::spec::TableSchema;
    use crate::test_util::java_fixtures;

    fn manifest_dirs(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                if p.ends_with("manifest") && p.parent().unwrap().join("schema").is_dir() {
                    out.push(p.clone());
                }
                manifest_dirs(&p, out);
            }
        }
    }

    fn latest_schema(table: &Path) -> TableSchema {
        let mut ids: Vec<i64> = std::fs::read_dir(table.join("schema"))
            .unwrap()
            .filter_map(|e| {
                let n = e.unwrap().file_name().into_string().unwrap();
                n.strip_prefix("schema-")?.parse().ok()
            })
            .collect();
        ids.sort();
        let p = table.join(format!("schema/schema-{}", ids.last().unwrap()));
        TableSchema::from_json_bytes(&std::fs::read(p).unwrap()).unwrap()
    }

    /// Every manifest-list row Java wrote with bucket and level ranges (1.1+) is reproduced
    /// from the entries of the manifest it names.
    #[test]
    fn java_manifest_list_rows_are_reproduced() {
        let mut dirs = Vec::new();
        manifest_dirs(&java_fixtures(), &mut dirs);
        let mut checked = 0;
        for dir in dirs {
            let schema = latest_schema(dir.parent().unwrap());
            let types: Vec<DataType> = schema
                .partition_fields()
                .unwrap()
                .into_iter()
                .map(|f| f.data_type)
                .collect();
            for e in std::fs::read_dir(&dir).unwrap() {
                let p = e.unwrap().path();
                let name = p.file_name().unwrap().to_str().unwrap().to_string();
                let bytes = std::fs::read(&p).unwrap();
                if !name.starts_with("manifest-list-") || !bytes.starts_with(b"Obj\x01") {
                    continue;
                }
                for java in decode_manifest_list(&bytes, &name).unwrap() {
                    if java.min_bucket.is_none() {
                        continue; // written before 1.1
                    }
                    let m = std::fs::read(dir.join(&java.file_name)).unwrap();
                    let entries = decode_manifest(&m, &java.file_name).unwrap();
                    let ours = manifest_file_meta(
                        java.file_name.clone(),
                        java.file_size,
                        &entries,
                        &types,
                        -1,
                    )
                    .unwrap();
                    assert_eq!(ours, java, "{} in {}", java.file_name, p.display());
                    checked += 1;
                }
            }
        }
        assert!(checked > 100, "only {checked} rows");
    }
}
