//! Evaluation of a bound predicate against one file's index container (Java
//! `FileIndexPredicate`, `shared/spec/file-index.md` §8.2–8.3).
//!
//! Leaves name fields by id; the container names columns as they were called when the file was
//! written, so each leaf is mapped through the file's own schema. A field the file does not
//! have, a type changed since (other than integer widening), an index type this reader does not
//! know or an operator the index cannot answer gives "might match".

use std::collections::BTreeSet;

use super::bitmap::{self, BitmapIndex};
use super::bloom::BloomFilter;
use super::bsi::BsiIndex;
use super::format::{FileIndexContainer, IndexEntry, Payload};
use super::key::is_integer;
use super::range_bitmap::{self, RangeBitmapIndex};
use super::result::FileIndexResult;
use super::IndexKind;
use crate::expr::{BoundField, BoundPredicate, LeafOp};
use crate::spec::types::{DataField, DataType, TypeKind};
use crate::{Error, Result};

/// The answer for one file, and which index kinds contributed to it (answered something other
/// than "might match").
#[derive(Debug, Clone, PartialEq)]
pub struct FileIndexEvaluation {
    /// The combined answer.
    pub result: FileIndexResult,
    /// The kinds that answered.
    pub kinds: BTreeSet<IndexKind>,
}

/// Evaluates `predicate` (bound to the table's current schema) against `container`, the index
/// of a file of `row_count` rows written with `file_fields`. Errors are decoding errors of a
/// payload the predicate needed, or an index of another row count; callers fail open.
pub fn evaluate(
    container: &FileIndexContainer<'_>,
    predicate: &BoundPredicate,
    file_fields: &[DataField],
    row_count: i64,
) -> Result<FileIndexEvaluation> {
    let mut w = Walker {
        c: container,
        fields: file_fields,
        row_count,
        kinds: BTreeSet::new(),
    };
    let result = w.walk(predicate)?;
    Ok(FileIndexEvaluation {
        result,
        kinds: w.kinds,
    })
}

struct Walker<'a, 'b> {
    c: &'a FileIndexContainer<'b>,
    fields: &'a [DataField],
    row_count: i64,
    kinds: BTreeSet<IndexKind>,
}

impl Walker<'_, '_> {
    fn walk(&mut self, p: &BoundPredicate) -> Result<FileIndexResult> {
        Ok(match p {
            BoundPredicate::AlwaysTrue => FileIndexResult::Remain,
            BoundPredicate::AlwaysFalse => FileIndexResult::Skip,
            BoundPredicate::And(children) => {
                let mut acc = FileIndexResult::Remain;
                for child in children {
                    acc = acc.and(self.walk(child)?);
                    if !acc.remain() {
                        break;
                    }
                }
                acc
            }
            BoundPredicate::Or(children) => {
                let mut acc = FileIndexResult::Skip;
                for child in children {
                    acc = acc.or(self.walk(child)?);
                }
                acc
            }
            BoundPredicate::Leaf { field, op } => self.leaf(field, op)?,
        })
    }

    fn leaf(&mut self, field: &BoundField, op: &LeafOp) -> Result<FileIndexResult> {
        let Some(file_field) = self.fields.iter().find(|f| f.id == field.id) else {
            return Ok(FileIndexResult::Remain);
        };
        if !compatible(&file_field.data_type, &field.data_type) {
            return Ok(FileIndexResult::Remain);
        }
        let mut acc = FileIndexResult::Remain;
        for entry in self.c.column(&file_field.name) {
            let Some(kind) = IndexKind::from_name(&entry.index_type) else {
                continue;
            };
            let answer = self
                .answer(entry, kind, op, &file_field.data_type)
                .map_err(|e| {
                    e.with_context("column", entry.column.clone())
                        .with_context("index type", entry.index_type.clone())
                        .with_context("start", entry.start.to_string())
                })?;
            if answer != FileIndexResult::Remain {
                self.kinds.insert(kind);
            }
            acc = acc.and(answer);
            if !acc.remain() {
                break;
            }
        }
        Ok(acc)
    }

    /// One index's answer to one leaf.
    fn answer(
        &self,
        entry: &IndexEntry,
        kind: IndexKind,
        op: &LeafOp,
        t: &DataType,
    ) -> Result<FileIndexResult> {
        let bytes = match self.c.payload(entry)? {
            Payload::Empty => return Ok(empty_answer(op)),
            Payload::Bytes(b) => b,
        };
        match kind {
            IndexKind::BloomFilter => Ok(BloomFilter::decode(bytes)?.query(op, t)),
            IndexKind::Bitmap => {
                let Some(kt) = bitmap::key_type(t) else {
                    return Ok(FileIndexResult::Remain);
                };
                let index = BitmapIndex::decode(bytes, kt)?;
                self.check_rows(index.row_count)?;
                index.query(op, t)
            }
            IndexKind::Bsi => {
                let index = BsiIndex::decode(bytes)?;
                self.check_rows(index.row_count)?;
                Ok(index.query(op, t))
            }
            IndexKind::RangeBitmap => {
                let Some(kt) = range_bitmap::key_type(t) else {
                    return Ok(FileIndexResult::Remain);
                };
                let index = RangeBitmapIndex::decode(bytes, kt)?;
                self.check_rows(index.row_count)?;
                Ok(index.query(op, t))
            }
        }
    }

    /// An index must cover exactly the file's rows (its positions address them).
    fn check_rows(&self, index_rows: u32) -> Result<()> {
        if i64::from(index_rows) == self.row_count {
            return Ok(());
        }
        Err(
            Error::data_invalid("file index row count differs from the data file's")
                .with_context("index rows", index_rows.to_string())
                .with_context("file rows", self.row_count.to_string()),
        )
    }
}

/// Java `EmptyFileIndexReader`: the writer saw no values.
fn empty_answer(op: &LeafOp) -> FileIndexResult {
    match op {
        LeafOp::Eq(_)
        | LeafOp::In(_)
        | LeafOp::Lt(_)
        | LeafOp::LtEq(_)
        | LeafOp::Gt(_)
        | LeafOp::GtEq(_)
        | LeafOp::StartsWith(_)
        | LeafOp::IsNotNull => FileIndexResult::Skip,
        _ => FileIndexResult::Remain,
    }
}

/// Whether a literal of `current` may be looked up in an index built on `file`: the same type,
/// or an integer type widened since.
fn compatible(file: &DataType, current: &DataType) -> bool {
    fn width(k: &TypeKind) -> u8 {
        match k {
            TypeKind::TinyInt => 1,
            TypeKind::SmallInt => 2,
            TypeKind::Int => 4,
            _ => 8,
        }
    }
    if file.kind == current.kind {
        return true;
    }
    is_integer(&file.kind) && is_integer(&current.kind) && width(&file.kind) <= width(&current.kind)
}
