//! Deletion-vector maintenance of a compacted bucket (Java `BucketedDvMaintainer`): the
//! bucket's vectors minus those of the compaction's inputs, plus new marks, written as one new
//! index file (`writeSingleFile`) when anything changed.

use std::collections::{BTreeMap, HashMap};

use bytes::Bytes;

use super::lookup::Marks;
use crate::catalog::Table;
use crate::commit::index_merge::DELETION_VECTORS;
use crate::index::deletion_vector::MAGIC_V32;
use crate::index::dv_encode::{encode_index_file, DeletionVector};
use crate::io::join;
use crate::scan::{DataSplit, DeletionFile};
use crate::spec::manifest::{DataFileMeta, FileKind, IndexManifestEntry};
use crate::{Error, Result};

/// The bucket's deletion vectors after the compaction: existing ones minus the inputs',
/// plus `marks` (row positions per data file); a new index file (and its `ADD` entry) when they changed.
pub(super) async fn update_vectors(
    table: &Table,
    split: &DataSplit,
    inputs: &[DataFileMeta],
    marks: Marks,
) -> Result<Option<IndexManifestEntry>> {
    let bitmap64 = table.options().deletion_vectors_bitmap64;
    let mut vectors: BTreeMap<String, DeletionVector> = BTreeMap::new();
    let mut cache: HashMap<String, Bytes> = HashMap::new();
    for (f, df) in split.files.iter().zip(&split.deletion_files) {
        let Some(df) = df else { continue };
        let dv = read_vector(table, df, f, &mut cache).await?;
        vectors.insert(f.file_name.clone(), dv);
    }
    let mut modified = false;
    for f in inputs {
        modified |= vectors.remove(&f.file_name).is_some();
    }
    for (file, positions) in marks {
        if positions.is_empty() {
            continue;
        }
        let dv = vectors
            .entry(file.clone())
            .or_insert_with(|| DeletionVector::new(bitmap64));
        for pos in positions {
            modified |= dv
                .delete(pos)
                .map_err(|e| e.with_context("file", file.clone()))?;
        }
    }
    if !modified {
        return Ok(None);
    }
    let list: Vec<(String, DeletionVector)> = vectors.into_iter().collect();
    let (bytes, ranges) = encode_index_file(&list)?;
    let file_name = format!("index-{}-0", uuid::Uuid::new_v4());
    let dir = match table.options().index_file_in_data_file_dir {
        true => split.bucket_path.clone(),
        false => join(table.location(), "index"),
    };
    let size = i64::try_from(bytes.len()).unwrap_or(i64::MAX);
    table
        .file_io()
        .write(&join(&dir, &file_name), Bytes::from(bytes))
        .await?;
    Ok(Some(IndexManifestEntry {
        kind: FileKind::Add,
        partition: split.partition.clone(),
        bucket: split.bucket,
        index_type: DELETION_VECTORS.to_string(),
        file_name,
        file_size: size,
        row_count: i64::try_from(ranges.len()).unwrap_or(0),
        deletion_vectors: Some(ranges),
        external_path: None,
        global_index: None,
    }))
}

/// The deletion vector `df` of data file `f`, in the kind it was written with.
async fn read_vector(
    table: &Table,
    df: &DeletionFile,
    f: &DataFileMeta,
    cache: &mut HashMap<String, Bytes>,
) -> Result<DeletionVector> {
    let bytes = match cache.get(&df.path) {
        Some(b) => b.clone(),
        None => {
            let b = table.file_io().read(&df.path).await?;
            cache.insert(df.path.clone(), b.clone());
            b
        }
    };
    let invalid = || {
        Error::data_invalid("deletion vector offset out of range")
            .with_context("file", df.path.clone())
    };
    let offset = usize::try_from(df.offset).map_err(|_| invalid())?;
    let rows = u64::try_from(f.row_count).ok();
    let positions = crate::index::deletion_vector::decode_deletion_file(
        &bytes, offset, df.length, &df.path, rows,
    )?;
    let magic = bytes
        .get(offset + 4..offset + 8)
        .ok_or_else(invalid)?
        .try_into()
        .map(u32::from_be_bytes)
        .map_err(|_| invalid())?;
    DeletionVector::from_positions(&positions, magic != MAGIC_V32)
}
