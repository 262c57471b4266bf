//! Building primary-key BTree payloads (`pk-btree`) for a table's compacted files and
//! committing them as the table's new index state: per (partition, bucket, level > 0) the
//! files sorted by name form one source group (Java `PkSortedIndexFile`), their values of the
//! indexed column, read back or as compaction wrote them, in group-ordinal order (rows of the
//! earlier files + position in the file), are sorted by value (nulls last,
//! [`crate::index::pk_values`]) and built into one payload
//! ([`crate::index::pk_sorted::build`]) written to `<table>/index/`. The commit replaces every
//! earlier payload of the column and keeps all other index files (deletion vectors).

use std::collections::BTreeMap;

use arrow_array::{Array, ArrayRef};
use bytes::Bytes;
use futures::TryStreamExt;

use super::table_commit::{CommitChanges, TableCommit};
use crate::catalog::Table;
use crate::index::pk_sorted::{build, PkSortedBuildInput};
use crate::index::pk_values::PayloadValues;
use crate::index::source_meta::SourceFile;
use crate::io::join;
use crate::scan::manifest_reader::ManifestReader;
use crate::scan::{DataSplit, Split};
use crate::spec::manifest::{DataFileMeta, IndexManifestEntry};
use crate::spec::options::PkIndexFamily;
use crate::spec::snapshot::CommitKind;
use crate::{Error, Result};

/// What [`build_pk_btree_index`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexBuildReport {
    /// The snapshot holding the new index state.
    pub snapshot_id: i64,
    /// Payloads written (one per source group).
    pub payloads: usize,
    /// Rows indexed.
    pub rows: i64,
    /// Payload bytes written.
    pub bytes: i64,
}

/// One source group: a split of its bucket (for locations) and its files.
type Groups = BTreeMap<(Vec<u8>, i32, i32), (DataSplit, Vec<DataFileMeta>)>;

/// Builds the `pk-btree` payloads of one indexed column, one source group at a time.
pub(crate) struct PayloadBuilder {
    table: Table,
    field: crate::spec::types::DataField,
    options: crate::spec::options::BTreeBuildOptions,
    reader: crate::read::TableRead,
}

impl PayloadBuilder {
    /// A builder for `column` of `table` (listed in `pk-btree.index.columns`).
    pub(crate) fn new(table: &Table, column: &str) -> Result<Self> {
        let schema = table.schema();
        let options = table.options();
        if let Some(reason) = options.pk_index_unsupported_reason(schema) {
            return Err(Error::unsupported(format!("pk-btree index: {reason}")));
        }
        let defs = options.pk_index_definitions(schema)?;
        let def = defs
            .iter()
            .find(|d| d.column == column && d.family == PkIndexFamily::BTree)
            .ok_or_else(|| {
                Error::invalid_argument(format!(
                    "column '{column}' is not in pk-btree.index.columns"
                ))
            })?;
        let field = schema
            .field(column)
            .ok_or_else(|| Error::invalid_argument(format!("unknown column '{column}'")))?
            .clone();
        let scan = table
            .scan()
            .with_option("global-index.enabled", "false")
            .select([column])?
            .build()?;
        Ok(PayloadBuilder {
            table: table.clone(),
            field,
            options: def.btree_build_options()?,
            reader: scan.reader(),
        })
    }

    /// The indexed field.
    pub(crate) fn field(&self) -> &crate::spec::types::DataField {
        &self.field
    }

    /// Builds and writes the payload of one source group: `files` (sorted by name by the
    /// caller) of `level` of the bucket of `split`; returns its index entry. `written`: the
    /// indexed column of those files in the same order, when the caller has it (compaction,
    /// [`written_group_column`]); else the files are read.
    pub(crate) async fn build(
        &self,
        split: &DataSplit,
        level: i32,
        files: &[DataFileMeta],
        written: Option<ArrayRef>,
    ) -> Result<IndexManifestEntry> {
        let column = match written {
            Some(c) => c,
            None => group_column(&self.reader, split, files).await?,
        };
        let values = PayloadValues::sort(column)?;
        let file_name = format!("btree-global-index-{}.index", uuid::Uuid::new_v4());
        let input = PkSortedBuildInput {
            field: &self.field,
            options: &self.options,
            level,
            sources: files
                .iter()
                .map(|f| SourceFile {
                    file_name: f.file_name.clone(),
                    row_count: f.row_count,
                })
                .collect(),
            partition: split.partition.clone(),
            bucket: split.bucket,
            file_name,
            external_path: None,
        };
        let built = build(input, values.iter())?;
        let path = join(
            &join(self.table.location(), "index"),
            &built.entry.file_name,
        );
        self.table
            .file_io()
            .write(&path, Bytes::from(built.bytes))
            .await?;
        Ok(built.entry)
    }
}

/// Builds the `pk-btree` payloads of `column` (listed in `pk-btree.index.columns`) for the
/// latest snapshot's compacted files and commits them as a new snapshot by `commit_user`.
pub async fn build_pk_btree_index(
    table: &Table,
    column: &str,
    commit_user: &str,
) -> Result<IndexBuildReport> {
    let builder = PayloadBuilder::new(table, column)?;
    let field = builder.field().clone();
    let plan = table
        .scan()
        .with_option("global-index.enabled", "false")
        .build()?
        .plan()
        .await?;
    let snapshot_id = plan
        .snapshot_id
        .ok_or_else(|| Error::not_found("the table has no snapshot to index"))?;
    let (mut payloads, mut rows, mut bytes) = (Vec::new(), 0, 0);
    for ((_, _, level), (split, mut files)) in groups(&plan.splits) {
        files.sort_by(|a, b| a.file_name.cmp(&b.file_name));
        let entry = builder.build(&split, level, &files, None).await?;
        rows += entry.row_count;
        bytes += entry.file_size;
        payloads.push(entry);
    }
    let count = payloads.len();
    let mut state = previous_index(table, snapshot_id).await?;
    state.retain(|e| {
        e.global_index
            .as_ref()
            .is_none_or(|g| g.index_field_id != field.id)
    });
    state.extend(payloads);
    let mut changes = CommitChanges::new(vec![], CommitKind::Append, commit_user);
    changes.index_entries = Some(state);
    let snapshot = TableCommit::new(table).commit(&changes).await?;
    Ok(IndexBuildReport {
        snapshot_id: snapshot.id,
        payloads: count,
        rows,
        bytes,
    })
}

/// The planned files above level 0, grouped by (partition, bucket, level).
fn groups(splits: &[Split]) -> Groups {
    let mut out = Groups::new();
    for s in splits {
        let d = s.as_data();
        for f in d.files.iter().filter(|f| f.level > 0) {
            let key = (d.partition.clone(), d.bucket, f.level);
            out.entry(key)
                .or_insert_with(|| (d.clone(), Vec::new()))
                .1
                .push(f.clone());
        }
    }
    out
}

/// The indexed column of the group's files read back, in group-ordinal order (files as
/// given, rows in file order); a file read short or long is an error.
async fn group_column(
    reader: &crate::read::TableRead,
    split: &DataSplit,
    files: &[DataFileMeta],
) -> Result<ArrayRef> {
    let mut parts = Vec::new();
    for f in files {
        let one = DataSplit {
            files: vec![f.clone()],
            deletion_files: vec![None],
            row_ranges: None,
            raw_convertible: true,
            ..split.clone()
        };
        let mut stream = reader.read(vec![Split::Data(one)])?;
        let mut rows = 0i64;
        while let Some(batch) = stream.try_next().await? {
            rows += batch.num_rows() as i64;
            parts.push(batch.column(0).clone());
        }
        if rows != f.row_count {
            return Err(Error::data_invalid(format!(
                "data file {} has {} rows but {rows} were read for its pk-btree payload",
                f.file_name, f.row_count
            )));
        }
    }
    concat_parts(&parts)
}

/// One array of `parts` (at least one).
fn concat_parts(parts: &[ArrayRef]) -> Result<ArrayRef> {
    match parts {
        [one] => Ok(one.clone()),
        _ => {
            let refs: Vec<&dyn Array> = parts.iter().map(|a| a.as_ref()).collect();
            Ok(arrow_select::concat::concat(&refs)?)
        }
    }
}

/// The indexed column of a group from the values compaction wrote: `written` holds the rows
/// of `in_write_order` (the files as written, one after another), `by_name` the same files
/// sorted by name. `None` when the rows do not add up (the caller reads the files instead).
/// The recorded parts are dropped as soon as they are copied into one array, so that no more
/// than two copies of the column are held at once.
pub(crate) fn written_group_column(
    written: Vec<ArrayRef>,
    in_write_order: &[DataFileMeta],
    by_name: &[DataFileMeta],
) -> Result<Option<ArrayRef>> {
    let total: usize = written.iter().map(|a| a.len()).sum();
    let mut starts = std::collections::HashMap::with_capacity(in_write_order.len());
    let mut offset = 0usize;
    for f in in_write_order {
        let Ok(rows) = usize::try_from(f.row_count) else {
            return Ok(None);
        };
        starts.insert(f.file_name.as_str(), (offset, rows));
        offset += rows;
    }
    if written.is_empty() || offset != total || by_name.len() != in_write_order.len() {
        return Ok(None);
    }
    let all = concat_parts(&written)?;
    drop(written);
    if by_name
        .iter()
        .zip(in_write_order)
        .all(|(a, b)| a.file_name == b.file_name)
    {
        return Ok(Some(all));
    }
    let mut parts = Vec::with_capacity(by_name.len());
    for f in by_name {
        let Some(&(start, rows)) = starts.get(f.file_name.as_str()) else {
            return Ok(None);
        };
        parts.push(all.slice(start, rows));
    }
    concat_parts(&parts).map(Some)
}

/// The index entries of the snapshot (the index state the build starts from).
pub(crate) async fn previous_index(
    table: &Table,
    snapshot_id: i64,
) -> Result<Vec<IndexManifestEntry>> {
    let snapshot = table.snapshot_manager().snapshot(snapshot_id).await?;
    let Some(name) = snapshot.index_manifest else {
        return Ok(vec![]);
    };
    ManifestReader::new(table.file_io().clone(), table.location())
        .index_manifest(&name)
        .await
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;
    use arrow_array::Int64Array;

    use super::*;
    use crate::commit::test_support::file;

    fn values(column: &ArrayRef) -> Vec<i64> {
        column.as_primitive::<Int64Type>().values().to_vec()
    }

    #[test]
    fn written_values_follow_the_files_by_name() {
        // Written in order -2, -10, -1 (by name: -1, -10, -2), the values split across the
        // written batches differently from the files.
        let in_write_order = vec![
            file("d-2", 2, 5, 0, 0),
            file("d-10", 3, 5, 0, 0),
            file("d-1", 1, 5, 0, 0),
        ];
        let mut by_name = in_write_order.clone();
        by_name.sort_by(|a, b| a.file_name.cmp(&b.file_name));
        let written: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(vec![20, 21, 100])),
            Arc::new(Int64Array::from(vec![101, 102, 10])),
        ];
        let column = written_group_column(written.clone(), &in_write_order, &by_name)
            .unwrap()
            .unwrap();
        assert_eq!(values(&column), vec![10, 100, 101, 102, 20, 21]);
        // One file: the written values as they are.
        let one = vec![file("d-0", 6, 5, 0, 0)];
        let column = written_group_column(written.clone(), &one, &one)
            .unwrap()
            .unwrap();
        assert_eq!(values(&column), vec![20, 21, 100, 101, 102, 10]);
        // Written in name order: the written values as they are.
        let named = vec![file("d-1", 4, 5, 0, 0), file("d-2", 2, 5, 0, 0)];
        let column = written_group_column(written, &named, &named)
            .unwrap()
            .unwrap();
        assert_eq!(values(&column), vec![20, 21, 100, 101, 102, 10]);
    }

    #[test]
    fn written_values_that_do_not_add_up_are_not_used() {
        let files = vec![file("d-0", 4, 5, 0, 0), file("d-1", 3, 5, 0, 0)];
        let written: Vec<ArrayRef> = vec![Arc::new(Int64Array::from(vec![1, 2, 3, 4, 5, 6]))];
        assert!(written_group_column(written.clone(), &files, &files)
            .unwrap()
            .is_none());
        assert!(written_group_column(vec![], &files, &files)
            .unwrap()
            .is_none());
        let other = vec![file("d-0", 4, 5, 0, 0), file("d-9", 3, 5, 0, 0)];
        let seven: Vec<ArrayRef> = vec![Arc::new(Int64Array::from(vec![0; 7]))];
        assert!(written_group_column(seven.clone(), &files, &other)
            .unwrap()
            .is_none());
        assert!(written_group_column(seven.clone(), &files, &files[..1])
            .unwrap()
            .is_none());
    }
}
