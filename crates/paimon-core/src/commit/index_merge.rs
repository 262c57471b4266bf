//! The index state after a commit: the previous index manifest's entries (all ADD) combined
//! with the commit's index ADD/DELETE entries per index type, as Java's
//! `org.apache.paimon.manifest.IndexManifestFileHandler#write` does:
//! - deletion vectors and `HASH` of bucketed tables: keyed by (partition, bucket), DELETEs first,
//!   then an ADD replaces the bucket's file;
//! - deletion vectors of bucket-unaware tables: keyed by file name, strict (re-adding a name,
//!   deleting an unknown one, or two vectors for one data file fail);
//! - global indexes: keyed by file name, DELETEs first; an ADD overlapping the row range of a
//!   retained file of the same field fails, unless both are source-backed (`_SOURCE_META`:
//!   pk-btree payloads of different buckets or levels share the ordinal range `[0, N)`).
//!
//! Output order: index types sorted by name, entries in first-insertion order (Java uses hash
//! order; readers do not depend on it).

use std::collections::{BTreeMap, HashSet};

use crate::spec::manifest::{FileKind, IndexManifestEntry};
use crate::{Error, ErrorKind, Result};

/// `DELETION_VECTORS` index type.
pub(crate) const DELETION_VECTORS: &str = "DELETION_VECTORS";
/// `HASH` (dynamic bucket) index type.
pub(crate) const HASH: &str = "HASH";

/// An insertion-ordered map (Java `LinkedHashMap` semantics for put/remove).
struct Ordered<K> {
    keys: Vec<K>,
    values: Vec<Option<IndexManifestEntry>>,
}

impl<K: PartialEq + Clone> Ordered<K> {
    fn new() -> Self {
        Ordered {
            keys: vec![],
            values: vec![],
        }
    }
    fn position(&self, k: &K) -> Option<usize> {
        self.keys
            .iter()
            .zip(&self.values)
            .position(|(key, v)| key == k && v.is_some())
    }
    fn contains(&self, k: &K) -> bool {
        self.position(k).is_some()
    }
    fn put(&mut self, k: K, v: IndexManifestEntry) {
        match self.position(&k).and_then(|i| self.values.get_mut(i)) {
            Some(slot) => *slot = Some(v),
            None => {
                self.keys.push(k);
                self.values.push(Some(v));
            }
        }
    }
    fn remove(&mut self, k: &K) {
        if let Some(slot) = self.position(k).and_then(|i| self.values.get_mut(i)) {
            *slot = None;
        }
    }
    fn into_values(self) -> Vec<IndexManifestEntry> {
        self.values.into_iter().flatten().collect()
    }
}

fn conflict(msg: String, e: &IndexManifestEntry) -> Error {
    Error::new(ErrorKind::Conflict, msg)
        .with_context("index file", e.file_name.clone())
        .with_context("bucket", e.bucket.to_string())
}

/// Combines `previous` (the previous index manifest) with `changes`; `bucket_unaware` selects
/// the strict by-name combination of deletion vectors.
pub(crate) fn combine(
    previous: Vec<IndexManifestEntry>,
    changes: &[IndexManifestEntry],
    bucket_unaware: bool,
) -> Result<Vec<IndexManifestEntry>> {
    let mut prev: BTreeMap<String, Vec<IndexManifestEntry>> = BTreeMap::new();
    for e in previous {
        if e.kind != FileKind::Add {
            return Err(
                Error::data_invalid("an index manifest holds a DELETE entry")
                    .with_context("index file", e.file_name),
            );
        }
        prev.entry(e.index_type.clone()).or_default().push(e);
    }
    let mut cur: BTreeMap<String, Vec<IndexManifestEntry>> = BTreeMap::new();
    for e in changes {
        cur.entry(e.index_type.clone()).or_default().push(e.clone());
    }
    let types: std::collections::BTreeSet<String> =
        prev.keys().chain(cur.keys()).cloned().collect();
    let mut out = Vec::new();
    for t in types {
        let p = prev.remove(&t).unwrap_or_default();
        let c = cur.remove(&t).unwrap_or_default();
        out.extend(match t.as_str() {
            DELETION_VECTORS if bucket_unaware => by_name_strict(p, c)?,
            DELETION_VECTORS | HASH => by_bucket(p, c),
            _ => global(p, c)?,
        });
    }
    Ok(out)
}

fn split(c: Vec<IndexManifestEntry>) -> (Vec<IndexManifestEntry>, Vec<IndexManifestEntry>) {
    c.into_iter().partition(|e| e.kind == FileKind::Delete)
}

fn by_bucket(p: Vec<IndexManifestEntry>, c: Vec<IndexManifestEntry>) -> Vec<IndexManifestEntry> {
    let key = |e: &IndexManifestEntry| (e.partition.clone(), e.bucket);
    let mut m = Ordered::new();
    for e in p {
        m.put(key(&e), e);
    }
    let (removed, added) = split(c);
    for e in &removed {
        m.remove(&key(e));
    }
    for e in added {
        m.put(key(&e), e);
    }
    m.into_values()
}

fn by_name_strict(
    p: Vec<IndexManifestEntry>,
    c: Vec<IndexManifestEntry>,
) -> Result<Vec<IndexManifestEntry>> {
    let mut m = Ordered::new();
    let mut dv_files: HashSet<String> = HashSet::new();
    let data_files = |e: &IndexManifestEntry| -> Vec<String> {
        e.deletion_vectors
            .iter()
            .flatten()
            .map(|d| d.data_file_name.clone())
            .collect()
    };
    for e in p {
        dv_files.extend(data_files(&e));
        m.put(e.file_name.clone(), e);
    }
    for e in c {
        let name = e.file_name.clone();
        if e.kind == FileKind::Add {
            if m.contains(&name) {
                return Err(conflict(format!("index file {name} is added twice"), &e));
            }
            for f in data_files(&e) {
                if !dv_files.insert(f.clone()) {
                    return Err(conflict(
                        format!("data file {f} already has a deletion vector"),
                        &e,
                    ));
                }
            }
            m.put(name, e);
        } else {
            if !m.contains(&name) {
                return Err(conflict(
                    format!("deleting index file {name} which does not exist"),
                    &e,
                ));
            }
            for f in data_files(&e) {
                if !dv_files.remove(&f) {
                    return Err(conflict(
                        format!("deleting the deletion vector of {f} which does not exist"),
                        &e,
                    ));
                }
            }
            m.remove(&name);
        }
    }
    Ok(m.into_values())
}

fn global(
    p: Vec<IndexManifestEntry>,
    c: Vec<IndexManifestEntry>,
) -> Result<Vec<IndexManifestEntry>> {
    let mut m = Ordered::new();
    for e in p {
        m.put(e.file_name.clone(), e);
    }
    let (removed, added) = split(c);
    for e in &removed {
        m.remove(&e.file_name);
    }
    for kept in m.values.iter().flatten() {
        let Some(k) = &kept.global_index else {
            continue;
        };
        for a in &added {
            let Some(n) = &a.global_index else { continue };
            if k.source_meta.is_some() && n.source_meta.is_some() {
                continue;
            }
            let overlap =
                k.row_range_start <= n.row_range_end && n.row_range_start <= k.row_range_end;
            if k.index_field_id == n.index_field_id
                && (k.extra_field_ids != n.extra_field_ids || overlap)
            {
                return Err(conflict(
                    format!(
                        "global index file {} of field {} with row range [{}, {}] overlaps \
                         retained file {} [{}, {}]; remove the previous file first",
                        a.file_name,
                        n.index_field_id,
                        n.row_range_start,
                        n.row_range_end,
                        kept.file_name,
                        k.row_range_start,
                        k.row_range_end
                    ),
                    a,
                ));
            }
        }
    }
    for e in added {
        m.put(e.file_name.clone(), e);
    }
    Ok(m.into_values())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::manifest::{DeletionVectorMeta, GlobalIndexMeta};

    fn dv(kind: FileKind, bucket: i32, name: &str, data: &[&str]) -> IndexManifestEntry {
        IndexManifestEntry {
            kind,
            partition: vec![0; 8],
            bucket,
            index_type: DELETION_VECTORS.into(),
            file_name: name.into(),
            file_size: 10,
            row_count: data.len() as i64,
            deletion_vectors: Some(
                data.iter()
                    .map(|d| DeletionVectorMeta {
                        data_file_name: d.to_string(),
                        offset: 1,
                        length: 2,
                        cardinality: Some(1),
                    })
                    .collect(),
            ),
            external_path: None,
            global_index: None,
        }
    }

    fn names(v: &[IndexManifestEntry]) -> Vec<&str> {
        v.iter().map(|e| e.file_name.as_str()).collect()
    }

    #[test]
    fn bucketed_dv_replaced_per_bucket() {
        let prev = vec![
            dv(FileKind::Add, 0, "dv-a", &["d1"]),
            dv(FileKind::Add, 1, "dv-b", &["d2"]),
        ];
        let changes = [
            dv(FileKind::Add, 0, "dv-c", &["d1", "d3"]),
            dv(FileKind::Delete, 0, "dv-a", &["d1"]),
        ];
        let out = combine(prev, &changes, false).unwrap();
        assert_eq!(names(&out), ["dv-b", "dv-c"]);
        assert!(out.iter().all(|e| e.kind == FileKind::Add));
    }

    #[test]
    fn unaware_dv_is_strict() {
        let prev = vec![dv(FileKind::Add, 0, "dv-a", &["d1"])];
        let twice = [dv(FileKind::Add, 0, "dv-b", &["d1"])];
        let e = combine(prev.clone(), &twice, true).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Conflict);
        let unknown = [dv(FileKind::Delete, 0, "dv-x", &["d9"])];
        assert!(combine(prev.clone(), &unknown, true).is_err());
        let ok = [
            dv(FileKind::Delete, 0, "dv-a", &["d1"]),
            dv(FileKind::Add, 0, "dv-b", &["d1"]),
        ];
        assert_eq!(names(&combine(prev, &ok, true).unwrap()), ["dv-b"]);
    }

    #[test]
    fn global_index_ranges_of_one_field_must_not_overlap() {
        let g = |kind, name: &str, start, end| IndexManifestEntry {
            index_type: "btree".into(),
            global_index: Some(GlobalIndexMeta {
                row_range_start: start,
                row_range_end: end,
                index_field_id: 3,
                extra_field_ids: None,
                index_meta: None,
                source_meta: None,
            }),
            deletion_vectors: None,
            ..dv(kind, 0, name, &[])
        };
        let prev = vec![g(FileKind::Add, "g1", 0, 9)];
        let e = combine(prev.clone(), &[g(FileKind::Add, "g2", 5, 20)], false).unwrap_err();
        assert!(e.to_string().contains("g1"), "{e}");
        let out = combine(prev.clone(), &[g(FileKind::Add, "g2", 10, 20)], false).unwrap();
        assert_eq!(names(&out), ["g1", "g2"]);
        let replace = [
            g(FileKind::Delete, "g1", 0, 9),
            g(FileKind::Add, "g3", 0, 20),
        ];
        assert_eq!(names(&combine(prev, &replace, false).unwrap()), ["g3"]);
        // Source-backed payloads (per bucket and level) overlap freely (Java 2.0).
        let sourced = |name: &str| {
            let mut e = g(FileKind::Add, name, 0, 20);
            if let Some(m) = e.global_index.as_mut() {
                m.source_meta = Some(vec![1]);
            }
            e
        };
        let out = combine(vec![sourced("s1")], &[sourced("s2")], false).unwrap();
        assert_eq!(names(&out), ["s1", "s2"]);
    }

    /// Source-backed payloads (pk-btree) of other buckets keep their group-local ranges
    /// `[0, N-1]`: adding one for another bucket is no conflict.
    #[test]
    fn source_backed_payloads_of_other_buckets_coexist() {
        let g = |name: &str, bucket, end| IndexManifestEntry {
            index_type: "btree".into(),
            bucket,
            global_index: Some(GlobalIndexMeta {
                row_range_start: 0,
                row_range_end: end,
                index_field_id: 3,
                extra_field_ids: None,
                index_meta: None,
                source_meta: Some(vec![0, 0, 0, 1]),
            }),
            deletion_vectors: None,
            ..dv(FileKind::Add, bucket, name, &[])
        };
        let prev = vec![g("b0", 0, 99), g("b1", 1, 120)];
        let out = combine(prev, &[g("b2", 2, 130)], false).unwrap();
        assert_eq!(names(&out), ["b0", "b1", "b2"]);
    }
}
