//! Building primary-key BTree payloads (`pk-btree`) for a table's compacted files and
//! committing them as the table's new index state: per (partition, bucket, level > 0) the
//! files sorted by name form one source group (Java `PkSortedIndexFile`), their values of the
//! indexed column are read with their physical row positions (group ordinal = rows of the
//! earlier files + position), sorted by value (nulls last) and built into one payload
//! ([`crate::index::pk_sorted::build`]) written to `<table>/index/`. The commit replaces every
//! earlier payload of the column and keeps all other index files (deletion vectors).

use std::cmp::Ordering;
use std::collections::BTreeMap;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
};
use arrow_array::{Array, ArrayRef};
use arrow_schema::{DataType as ArrowType, TimeUnit};
use bytes::Bytes;
use futures::TryStreamExt;

use super::table_commit::{CommitChanges, TableCommit};
use crate::catalog::Table;
use crate::index::btree::key::compare;
use crate::index::btree::Key;
use crate::index::pk_sorted::{build, PkSortedBuildInput};
use crate::index::source_meta::SourceFile;
use crate::io::join;
use crate::scan::manifest_reader::ManifestReader;
use crate::scan::{DataSplit, Split};
use crate::spec::manifest::{DataFileMeta, IndexManifestEntry};
use crate::spec::options::PkIndexFamily;
use crate::spec::snapshot::CommitKind;
use crate::spec::special_fields::ROW_INDEX_NAME;
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
            .select([column, ROW_INDEX_NAME])?
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
    /// caller) of `level` of the bucket of `split`; returns its index entry.
    pub(crate) async fn build(
        &self,
        split: &DataSplit,
        level: i32,
        files: &[DataFileMeta],
    ) -> Result<IndexManifestEntry> {
        let values = group_values(&self.reader, split, files).await?;
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
        let built = build(input, values)?;
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
        let entry = builder.build(&split, level, &files).await?;
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

/// Every row of the group's files as (key, group ordinal), sorted by key, nulls last.
async fn group_values(
    reader: &crate::read::TableRead,
    split: &DataSplit,
    files: &[DataFileMeta],
) -> Result<Vec<(Option<Key>, u64)>> {
    let rows: i64 = files.iter().map(|f| f.row_count.max(0)).sum();
    let mut values = Vec::with_capacity(usize::try_from(rows).unwrap_or(0).min(1 << 27));
    let mut offset = 0u64;
    for f in files {
        let one = DataSplit {
            files: vec![f.clone()],
            deletion_files: vec![None],
            row_ranges: None,
            raw_convertible: true,
            ..split.clone()
        };
        let mut stream = reader.read(vec![Split::Data(one)])?;
        while let Some(batch) = stream.try_next().await? {
            let keys = keys_of(batch.column(0))?;
            let positions = batch.column(1).as_primitive::<Int64Type>();
            for (k, p) in keys.into_iter().zip(positions.values()) {
                values.push((k, offset + *p as u64));
            }
        }
        offset += u64::try_from(f.row_count).unwrap_or(0);
    }
    // Unstable, with the row id as tie-break: the same order as a stable sort of rows pushed
    // in row-id order, without its buffer.
    values.sort_unstable_by(|a, b| {
        match (&a.0, &b.0) {
            (Some(x), Some(y)) => compare(x, y),
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Greater,
            (Some(_), None) => Ordering::Less,
        }
        .then(a.1.cmp(&b.1))
    });
    Ok(values)
}

/// The BTree keys of one Arrow column (as the reader produces it for the column's type).
fn keys_of(array: &ArrayRef) -> Result<Vec<Option<Key>>> {
    macro_rules! prim {
        ($t:ty, $f:expr) => {
            array
                .as_primitive::<$t>()
                .iter()
                .map(|v| v.map($f))
                .collect()
        };
    }
    Ok(match array.data_type() {
        ArrowType::Int8 => prim!(Int8Type, Key::TinyInt),
        ArrowType::Int16 => prim!(Int16Type, Key::SmallInt),
        ArrowType::Int32 => prim!(Int32Type, Key::Int),
        ArrowType::Date32 => prim!(Date32Type, Key::Int),
        ArrowType::Int64 => prim!(Int64Type, Key::BigInt),
        ArrowType::Float32 => prim!(Float32Type, Key::Float),
        ArrowType::Float64 => prim!(Float64Type, Key::Double),
        ArrowType::Decimal128(_, _) => prim!(Decimal128Type, Key::Decimal),
        ArrowType::Boolean => array
            .as_boolean()
            .iter()
            .map(|v| v.map(Key::Boolean))
            .collect(),
        ArrowType::Utf8 => array
            .as_string::<i32>()
            .iter()
            .map(|v| v.map(|s| Key::String(s.as_bytes().to_vec())))
            .collect(),
        ArrowType::LargeUtf8 => array
            .as_string::<i64>()
            .iter()
            .map(|v| v.map(|s| Key::String(s.as_bytes().to_vec())))
            .collect(),
        ArrowType::Timestamp(TimeUnit::Millisecond, _) => {
            prim!(TimestampMillisecondType, |ms| timestamp(
                i128::from(ms) * 1_000_000
            ))
        }
        ArrowType::Timestamp(TimeUnit::Microsecond, _) => {
            prim!(TimestampMicrosecondType, |us| timestamp(
                i128::from(us) * 1_000
            ))
        }
        ArrowType::Timestamp(TimeUnit::Nanosecond, _) => {
            prim!(TimestampNanosecondType, |ns| timestamp(i128::from(ns)))
        }
        other => {
            return Err(Error::unsupported(format!(
                "building a pk-btree payload over a column of Arrow type {other}"
            )))
        }
    })
}

/// A timestamp key from epoch nanoseconds.
fn timestamp(nanos: i128) -> Key {
    let millis = nanos.div_euclid(1_000_000);
    Key::Timestamp {
        millis: millis as i64,
        nanos_of_milli: nanos.rem_euclid(1_000_000) as i32,
    }
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
