//! OVERWRITE (Java `FileStoreCommitImpl#overwritePartition` and `OverwriteChangesProvider`):
//! which partitions an overwrite replaces, and per attempt the DELETE entries of every live
//! file and index file there (recomputed from the latest snapshot on each attempt, so a
//! concurrent commit cannot make them stale).
//!
//! - Dynamic (`dynamic-partition-overwrite`, default true, on a partitioned table): the
//!   partitions of the new files; no new files means nothing is overwritten.
//! - Static: a partition spec (column → value string, cast to the column type as Java does;
//!   `partition.default-name` means null; possibly partial); an empty spec, or an unpartitioned
//!   table, is the whole table. Every new file must lie inside the spec.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap, HashSet};

use crate::expr::{convert_literal, Literal};
use crate::mergetree::interval_partition::{compare_keys, keyed_files};
use crate::spec::binary_row::BinaryRow;
use crate::spec::manifest::{FileKind, IndexManifestEntry, ManifestEntry};
use crate::spec::types::{DataField, DataType};
use crate::spec::Datum;
use crate::{Error, Result};

/// The partitions an overwrite replaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OverwriteScope {
    /// These partitions (serialized `BinaryRow`s): dynamic partition overwrite.
    Partitions(HashSet<Vec<u8>>),
    /// The partitions matching a (possibly partial) static spec; empty = the whole table.
    Spec(HashMap<String, String>),
    /// The partitions matching any of these (possibly partial) specs (dropping partitions).
    AnySpec(Vec<HashMap<String, String>>),
}

/// One spec as (column position, value) pairs; `None` values match nulls.
type TypedSpec = Vec<(usize, Option<Datum>)>;

/// Decides whether a serialized partition row is overwritten.
pub(crate) struct PartitionMatcher<'a> {
    scope: &'a OverwriteScope,
    types: Vec<DataType>,
    specs: Vec<TypedSpec>,
}

impl<'a> PartitionMatcher<'a> {
    /// A matcher of `scope` over partition columns `fields`. Spec values are cast from their
    /// strings to the column types, and `default_name` (`partition.default-name`) means null,
    /// as Java's `InternalRowPartitionComputer#convertSpecToInternal` does.
    pub(crate) fn new(
        scope: &'a OverwriteScope,
        fields: &[DataField],
        default_name: &str,
    ) -> Result<Self> {
        let specs: &[HashMap<String, String>] = match scope {
            OverwriteScope::Partitions(_) => &[],
            OverwriteScope::Spec(spec) => std::slice::from_ref(spec),
            OverwriteScope::AnySpec(specs) => specs,
        };
        let mut typed = Vec::new();
        for spec in specs {
            let mut one = TypedSpec::new();
            for (k, v) in spec {
                let Some(i) = fields.iter().position(|f| &f.name == k) else {
                    return Err(Error::invalid_argument(format!(
                        "'{k}' in the overwrite partition spec is not a partition column"
                    )));
                };
                let value = if v == default_name {
                    None
                } else {
                    let ty = &fields[i].data_type;
                    convert_literal(&Literal::String(v.clone()), ty)
                        .map_err(|e| e.with_context("partition column", k.clone()))?
                };
                one.push((i, value));
            }
            typed.push(one);
        }
        Ok(PartitionMatcher {
            scope,
            types: fields.iter().map(|f| f.data_type.clone()).collect(),
            specs: typed,
        })
    }

    /// Whether `partition` is overwritten.
    pub(crate) fn matches(&self, partition: &[u8]) -> Result<bool> {
        if let OverwriteScope::Partitions(set) = self.scope {
            return Ok(set.contains(partition));
        }
        let values = BinaryRow::from_serialized(partition)?.decode(&self.types)?;
        Ok(self.specs.iter().any(|spec| {
            spec.iter().all(|(i, want)| match (values.get(*i), want) {
                (Some(None), None) => true,
                (Some(Some(got)), Some(want)) => got.compare(want) == Some(Ordering::Equal),
                _ => false,
            })
        }))
    }

    /// Fails when a new file lies outside a static spec (Java: "the changes in ... does not
    /// belong to this partition").
    pub(crate) fn check_inside(&self, entries: &[ManifestEntry]) -> Result<()> {
        for e in entries {
            if !self.matches(&e.partition)? {
                return Err(Error::invalid_argument(format!(
                    "Trying to overwrite partition {:?}, but the changes in file {} do not \
                     belong to this partition",
                    self.scope, e.file.file_name
                )));
            }
        }
        Ok(())
    }
}

/// DELETE entries for the live files of the matched partitions (real buckets only unless the
/// table is postpone), then the new entries.
pub(crate) fn overwrite_entries(
    matcher: &PartitionMatcher<'_>,
    live: &[ManifestEntry],
    new: &[ManifestEntry],
    postpone: bool,
) -> Result<Vec<ManifestEntry>> {
    let mut out = Vec::new();
    for e in live {
        if (postpone || e.bucket >= 0) && matcher.matches(&e.partition)? {
            out.push(ManifestEntry {
                kind: FileKind::Delete,
                ..e.clone()
            });
        }
    }
    out.extend(new.iter().cloned());
    Ok(out)
}

/// DELETE entries for the index files of the matched partitions, then the new index changes.
pub(crate) fn overwrite_index(
    matcher: &PartitionMatcher<'_>,
    live: &[IndexManifestEntry],
    new: &[IndexManifestEntry],
) -> Result<Vec<IndexManifestEntry>> {
    let mut out = Vec::new();
    for e in live {
        if matcher.matches(&e.partition)? {
            out.push(IndexManifestEntry {
                kind: FileKind::Delete,
                ..e.clone()
            });
        }
    }
    out.extend(new.iter().cloned());
    Ok(out)
}

/// Java `FileStoreCommitImpl#tryUpgrade` (`overwrite-upgrade`): when every new file of a
/// primary-key overwrite is at level 0 in a real bucket, each bucket whose files' key ranges do
/// not overlap has them committed at `max_level` (sorted by min key); other buckets keep
/// theirs.
pub(crate) fn try_upgrade(
    entries: Vec<ManifestEntry>,
    key_types: &[DataType],
    max_level: i32,
) -> Result<Vec<ManifestEntry>> {
    if entries.iter().any(|e| e.file.level > 0 || e.bucket < 0) {
        return Ok(entries);
    }
    let mut buckets: BTreeMap<(Vec<u8>, i32), Vec<ManifestEntry>> = BTreeMap::new();
    for e in entries {
        buckets
            .entry((e.partition.clone(), e.bucket))
            .or_default()
            .push(e);
    }
    let mut out = Vec::new();
    for (_, group) in buckets {
        let files: Vec<_> = group.iter().map(|e| e.file.clone()).collect();
        let mut keyed = keyed_files(&files, key_types)?;
        keyed.sort_by(|a, b| compare_keys(&a.min, &b.min));
        let disjoint = keyed
            .windows(2)
            .all(|w| matches!(w, [a, b] if compare_keys(&a.max, &b.min) == Ordering::Less));
        if !disjoint {
            out.extend(group);
            continue;
        }
        for k in keyed {
            if let Some(e) = group.get(k.index) {
                let mut e = e.clone();
                e.file.level = max_level;
                out.push(e);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::binary_row::writer::encode;
    use crate::spec::types::{DataType, TypeKind};
    use crate::spec::Datum;

    const DEFAULT: &str = crate::spec::partition_path::DEFAULT_PARTITION_NAME;

    fn fields() -> Vec<DataField> {
        let t = |kind| DataType {
            nullable: true,
            kind,
        };
        vec![
            DataField::new(0, "dt", t(TypeKind::VarChar(i32::MAX as u32))),
            DataField::new(1, "hh", t(TypeKind::Int)),
        ]
    }

    fn part(dt: &str, hh: Option<i32>) -> Vec<u8> {
        let types: Vec<_> = fields().into_iter().map(|f| f.data_type).collect();
        encode(
            &[Some(Datum::String(dt.into())), hh.map(Datum::Int)],
            &types,
        )
        .unwrap()
        .serialize()
    }

    #[test]
    fn static_spec_values_are_cast_to_the_column_types() {
        let f = vec![DataField::new(
            0,
            "d",
            DataType {
                nullable: true,
                kind: TypeKind::Date,
            },
        )];
        let row = encode(&[Some(Datum::Date(19723))], &[f[0].data_type.clone()])
            .unwrap()
            .serialize();
        let day = OverwriteScope::Spec([("d".to_string(), "2024-01-01".to_string())].into());
        assert!(PartitionMatcher::new(&day, &f, DEFAULT)
            .unwrap()
            .matches(&row)
            .unwrap());
        let bad = OverwriteScope::Spec([("d".to_string(), "someday".to_string())].into());
        assert!(PartitionMatcher::new(&bad, &f, DEFAULT).is_err());
    }

    #[test]
    fn static_spec_matches_partially_and_by_directory_value() {
        let f = fields();
        let spec = |pairs: &[(&str, &str)]| {
            OverwriteScope::Spec(
                pairs
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            )
        };
        let day = spec(&[("dt", "2024-01-01")]);
        let m = PartitionMatcher::new(&day, &f, DEFAULT).unwrap();
        assert!(m.matches(&part("2024-01-01", Some(3))).unwrap());
        assert!(!m.matches(&part("2024-01-02", Some(3))).unwrap());
        let hour = spec(&[("dt", "2024-01-01"), ("hh", "__DEFAULT_PARTITION__")]);
        let m = PartitionMatcher::new(&hour, &f, DEFAULT).unwrap();
        assert!(m.matches(&part("2024-01-01", None)).unwrap());
        assert!(!m.matches(&part("2024-01-01", Some(1))).unwrap());
        let all = spec(&[]);
        let m = PartitionMatcher::new(&all, &f, DEFAULT).unwrap();
        assert!(m.matches(&part("x", Some(1))).unwrap());
        let bad = spec(&[("nope", "1")]);
        assert!(PartitionMatcher::new(&bad, &f, DEFAULT).is_err());
    }

    #[test]
    fn disjoint_level_zero_buckets_are_upgraded_to_the_max_level() {
        use crate::commit::test_support::{entry, file, int_type};
        let e =
            |bucket, name: &str, min, max| entry(FileKind::Add, bucket, file(name, 1, 0, min, max));
        let entries = vec![
            e(0, "b", 20, 30),
            e(0, "a", 0, 10),
            e(1, "c", 0, 10),
            e(1, "d", 10, 20),
        ];
        let out = try_upgrade(entries.clone(), &[int_type()], 5).unwrap();
        let got: Vec<_> = out
            .iter()
            .map(|e| (e.file.file_name.as_str(), e.file.level))
            .collect();
        // Bucket 0 is disjoint (sorted by min key, upgraded); bucket 1 overlaps at key 10.
        assert_eq!(got, [("a", 5), ("b", 5), ("c", 0), ("d", 0)]);
        let mut high = entries.clone();
        high[0].file.level = 1;
        assert_eq!(try_upgrade(high.clone(), &[int_type()], 5).unwrap(), high);
    }

    #[test]
    fn dynamic_scope_is_the_set_of_partitions() {
        let f = fields();
        let scope = OverwriteScope::Partitions([part("a", Some(1))].into());
        let m = PartitionMatcher::new(&scope, &f, DEFAULT).unwrap();
        assert!(m.matches(&part("a", Some(1))).unwrap());
        assert!(!m.matches(&part("a", Some(2))).unwrap());
    }
}
