//! Building primary-key BTree payloads (`pk-btree`) for a table's compacted files and
//! committing them as the table's new index state: per (partition, bucket, level > 0) the
//! files sorted by name form one source group (Java `PkSortedIndexFile`), their values of the
//! indexed column, read back or as compaction wrote them, with their group ordinals (rows of
//! the earlier files + position in the file), are sorted by value (nulls last) within a
//! memory budget ([`crate::index::pk_values::PayloadSorter`], Java's external sort of
//! `write-buffer-size`) and built into one payload
//! ([`crate::index::pk_sorted::PkSortedWriter`]) streamed to `<table>/index/` as it is
//! written ([`crate::io::FileSink`]). The commit replaces every earlier payload of the column
//! and keeps all other index files (deletion vectors).

use std::collections::BTreeMap;
use std::path::PathBuf;

use futures::TryStreamExt;

use super::table_commit::{CommitChanges, TableCommit};
use crate::catalog::Table;
use crate::index::pk_sorted::{PkSortedBuildInput, PkSortedWriter};
use crate::index::pk_values::{OrdinalMap, PayloadSorter, PayloadValues, SortLimits};
use crate::index::source_meta::SourceFile;
use crate::io::{join, FileSink};
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
    /// How a build sorts its values.
    limits: SortLimits,
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
            limits: SortLimits {
                budget: usize::try_from(options.write_buffer_size.bytes()).unwrap_or(usize::MAX),
                fan_in: options.write_buffer.max_num_file_handles,
                spill_dir: None,
            },
        })
    }

    /// Sorts at most about `bytes` of values in memory per build (by default the table's
    /// `write-buffer-size`, as Java's builder), spilled runs merged
    /// `local-sort.max-num-file-handles` at a time.
    pub(crate) fn with_budget(mut self, bytes: usize) -> Self {
        self.limits.budget = bytes;
        self
    }

    /// Spills its sorts under `dir` (the system temp dir when `None`).
    pub(crate) fn with_spill_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.limits.spill_dir = dir;
        self
    }

    /// How a build sorts its values.
    pub(crate) fn limits(&self) -> &SortLimits {
        &self.limits
    }

    /// The indexed field.
    pub(crate) fn field(&self) -> &crate::spec::types::DataField {
        &self.field
    }

    /// Builds and writes the payload of one source group: `files` (sorted by name by the
    /// caller) of `level` of the bucket of `split`; returns its index entry. `written`: the
    /// indexed column of those files as the caller recorded them (compaction) with the map of
    /// their arrival to group ordinals ([`written_ordinals`]); else the files are read.
    /// Also returns the sorted runs the sort spilled to disk.
    pub(crate) async fn build(
        &self,
        split: &DataSplit,
        level: i32,
        files: &[DataFileMeta],
        written: Option<(PayloadSorter, OrdinalMap)>,
    ) -> Result<(IndexManifestEntry, usize)> {
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
            file_name: file_name.clone(),
            external_path: None,
        };
        let writer = PkSortedWriter::new(input)?;
        let (sorter, map) = match written {
            Some((sorter, map)) => (sorter, Some(map)),
            None => (self.read_group(split, files).await?, None),
        };
        let spills = sorter.spilled_runs();
        if spills > 0 {
            tracing::debug!(
                "pk-btree payload {file_name}: {} rows sorted in {} spilled runs",
                sorter.rows(),
                spills
            );
        }
        let mut values = sorter.finish(map)?;
        let path = join(&join(self.table.location(), "index"), &file_name);
        let mut sink = self.table.file_io().sink(&path)?;
        match stream_payload(writer, &mut values, &mut sink).await {
            Ok(entry) => {
                sink.finish().await?;
                Ok((entry, spills))
            }
            Err(e) => {
                sink.abort().await;
                Err(e)
            }
        }
    }

    /// The indexed column of the group's files read back into a sorter, in group-ordinal
    /// order (files as given, rows in file order); a file read short or long is an error.
    async fn read_group(&self, split: &DataSplit, files: &[DataFileMeta]) -> Result<PayloadSorter> {
        let mut sorter: Option<PayloadSorter> = None;
        let rows_hint = files.iter().map(|f| f.row_count.max(0) as u64).sum();
        for f in files {
            let one = DataSplit {
                files: vec![f.clone()],
                deletion_files: vec![None],
                row_ranges: None,
                raw_convertible: true,
                ..split.clone()
            };
            let mut stream = self.reader.read(vec![Split::Data(one)])?;
            let mut rows = 0i64;
            while let Some(batch) = stream.try_next().await? {
                rows += batch.num_rows() as i64;
                let column = batch.column(0);
                self.limits
                    .sorter_in(&mut sorter, column.data_type(), rows_hint)?
                    .push(column.as_ref())?;
            }
            if rows != f.row_count {
                return Err(Error::data_invalid(format!(
                    "data file {} has {} rows but {rows} were read for its pk-btree payload",
                    f.file_name, f.row_count
                )));
            }
        }
        sorter.ok_or_else(|| Error::data_invalid("no rows were read for a pk-btree payload"))
    }
}

/// Writes the payload of `values` to `sink` as it is built, a part at a time; its entry.
async fn stream_payload(
    mut writer: PkSortedWriter<'_>,
    values: &mut PayloadValues,
    sink: &mut FileSink,
) -> Result<IndexManifestEntry> {
    let mut batch = Vec::with_capacity(4096);
    loop {
        values.fill(&mut batch, 4096)?;
        if batch.is_empty() {
            break;
        }
        for (key, ordinal) in &batch {
            writer.push(key.as_ref(), *ordinal)?;
        }
        if writer.pending() >= FileSink::PART {
            sink.write(writer.take_output()).await?;
        }
    }
    let (tail, entry) = writer.finish()?;
    sink.write(tail).await?;
    Ok(entry)
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
        let (entry, _) = builder.build(&split, level, &files, None).await?;
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

/// How the rows of `in_write_order` (files written one after another, `rows` in all) map to
/// the group ordinals of the same files sorted by name (`by_name`); `None` when they do not
/// add up (the caller reads the files instead).
pub(crate) fn written_ordinals(
    rows: u64,
    in_write_order: &[DataFileMeta],
    by_name: &[DataFileMeta],
) -> Option<OrdinalMap> {
    let mut starts = std::collections::HashMap::with_capacity(by_name.len());
    let mut offset = 0u64;
    for f in by_name {
        let n = u64::try_from(f.row_count).ok()?;
        starts.insert(f.file_name.as_str(), offset);
        offset += n;
    }
    if offset != rows || rows == 0 || by_name.len() != in_write_order.len() {
        return None;
    }
    let mut pieces = Vec::with_capacity(in_write_order.len());
    for f in in_write_order {
        // Each written file once.
        let start = starts.remove(f.file_name.as_str())?;
        pieces.push((u64::try_from(f.row_count).ok()?, start));
    }
    Some(OrdinalMap::new(pieces))
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

    use arrow_array::{ArrayRef, Int64Array};

    use super::*;
    use crate::commit::test_support::file;
    use crate::index::btree::Key;

    /// The (value, group ordinal) pairs a build takes from `written` arriving as
    /// `in_write_order`.
    fn payload_order(
        written: &[ArrayRef],
        in_write_order: &[DataFileMeta],
        by_name: &[DataFileMeta],
    ) -> Option<Vec<(i64, u64)>> {
        let rows = written.iter().map(|a| a.len() as u64).sum();
        let map = written_ordinals(rows, in_write_order, by_name)?;
        let mut sorter = PayloadSorter::new(written[0].data_type(), 1 << 20, None).unwrap();
        for a in written {
            sorter.push(a.as_ref()).unwrap();
        }
        let mut values = sorter.finish(Some(map)).unwrap();
        let mut out = Vec::new();
        while let Some((k, o)) = values.next_value().unwrap() {
            match k {
                Some(Key::BigInt(v)) => out.push((v, o)),
                other => panic!("{other:?}"),
            }
        }
        Some(out)
    }

    #[test]
    fn written_values_follow_the_files_by_name() {
        // Written in order -2, -10, -1 (by name: -1, -10, -2), the values split across the
        // written batches differently from the files; group ordinals: -1's row 0, -10's
        // rows 1..4, -2's rows 4..6.
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
        let got = payload_order(&written, &in_write_order, &by_name).unwrap();
        assert_eq!(
            got,
            vec![(10, 0), (20, 4), (21, 5), (100, 1), (101, 2), (102, 3)]
        );
        // Equal values across files arriving out of name order: by group ordinal.
        let same: Vec<ArrayRef> = vec![Arc::new(Int64Array::from(vec![7; 6]))];
        let got = payload_order(&same, &in_write_order, &by_name).unwrap();
        assert_eq!(got, (0..6).map(|o| (7, o)).collect::<Vec<_>>());
        // Written in name order: arrival ordinals as they are.
        let named = vec![file("d-1", 4, 5, 0, 0), file("d-2", 2, 5, 0, 0)];
        let got = payload_order(&written, &named, &named).unwrap();
        assert_eq!(
            got,
            vec![(10, 5), (20, 0), (21, 1), (100, 2), (101, 3), (102, 4)]
        );
    }

    #[test]
    fn written_values_that_do_not_add_up_are_not_used() {
        let files = vec![file("d-0", 4, 5, 0, 0), file("d-1", 3, 5, 0, 0)];
        assert!(written_ordinals(6, &files, &files).is_none());
        assert!(written_ordinals(0, &[], &[]).is_none());
        let other = vec![file("d-0", 4, 5, 0, 0), file("d-9", 3, 5, 0, 0)];
        assert!(written_ordinals(7, &files, &other).is_none());
        assert!(written_ordinals(7, &files, &files[..1]).is_none());
        let twice = vec![file("d-0", 4, 5, 0, 0), file("d-0", 3, 5, 0, 0)];
        assert!(written_ordinals(7, &twice, &files).is_none());
        assert!(written_ordinals(7, &files, &files).is_some());
    }
}
