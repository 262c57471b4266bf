//! [`RowKind`]: the change a row carries (Java `org.apache.paimon.types.RowKind`), stored in
//! `_VALUE_KIND` of primary-key data files.

use std::fmt;
use std::str::FromStr;

use arrow_array::cast::AsArray;
use arrow_array::{Array, Int8Array, RecordBatch};

use crate::spec::options::TableOptions;
use crate::{Error, Result};

/// The kind of change of a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RowKind {
    /// `+I`: insertion.
    #[default]
    Insert,
    /// `-U`: the previous content of an updated row (a retraction).
    UpdateBefore,
    /// `+U`: the new content of an updated row.
    UpdateAfter,
    /// `-D`: deletion (a retraction).
    Delete,
}

impl RowKind {
    /// The byte stored in `_VALUE_KIND` (0..=3).
    pub fn to_byte(self) -> i8 {
        match self {
            RowKind::Insert => 0,
            RowKind::UpdateBefore => 1,
            RowKind::UpdateAfter => 2,
            RowKind::Delete => 3,
        }
    }

    /// Java's short string (`+I`, `-U`, `+U`, `-D`).
    pub fn short_string(self) -> &'static str {
        match self {
            RowKind::Insert => "+I",
            RowKind::UpdateBefore => "-U",
            RowKind::UpdateAfter => "+U",
            RowKind::Delete => "-D",
        }
    }
}

impl FromStr for RowKind {
    type Err = Error;

    /// Parses Java's short string (`+I`, `-U`, `+U`, `-D`), as the `rowkind.field` column holds.
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "+I" => Ok(RowKind::Insert),
            "-U" => Ok(RowKind::UpdateBefore),
            "+U" => Ok(RowKind::UpdateAfter),
            "-D" => Ok(RowKind::Delete),
            _ => Err(Error::invalid_argument(format!(
                "'{s}' is not a row kind (+I, -U, +U, -D)"
            ))),
        }
    }
}

impl fmt::Display for RowKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.short_string())
    }
}

/// The rows a write drops before they reach a writer (Java `RowKindFilter`): every `-D`/`-U`
/// with `ignore-delete`, `-U` with `ignore-update-before`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RowKindFilter {
    ignore_retracts: bool,
    ignore_update_before: bool,
}

impl RowKindFilter {
    /// The filter of `options`; `None` when it keeps everything.
    pub(crate) fn of(options: &TableOptions) -> Option<Self> {
        let filter = RowKindFilter {
            ignore_retracts: options.ignore_delete,
            ignore_update_before: options.write_buffer.ignore_update_before,
        };
        (filter.ignore_retracts || filter.ignore_update_before).then_some(filter)
    }

    /// Whether a row of kind byte `kind` is written.
    fn keeps(&self, kind: i8) -> bool {
        match kind {
            3 => !self.ignore_retracts,
            1 => !(self.ignore_retracts || self.ignore_update_before),
            _ => true,
        }
    }

    /// `batch` and `kinds` without the dropped rows; `None` when every row is kept.
    pub(crate) fn apply(
        &self,
        batch: &RecordBatch,
        kinds: &Int8Array,
    ) -> Result<Option<(RecordBatch, Int8Array)>> {
        if kinds.values().iter().all(|k| self.keeps(*k)) {
            return Ok(None);
        }
        let mask: arrow_array::BooleanArray = kinds
            .values()
            .iter()
            .map(|k| Some(self.keeps(*k)))
            .collect();
        let batch = arrow_select::filter::filter_record_batch(batch, &mask)?;
        let kinds =
            Int8Array::from_iter_values(kinds.values().iter().copied().filter(|k| self.keeps(*k)));
        Ok(Some((batch, kinds)))
    }
}

/// `_VALUE_KIND` bytes of `kinds`.
pub(crate) fn kind_array(kinds: &[RowKind]) -> Int8Array {
    Int8Array::from_iter_values(kinds.iter().map(|k| k.to_byte()))
}

/// Row kinds read from the `rowkind.field` column `name` of `batch` (string values `+I`, `-U`,
/// `+U`, `-D`; null or anything else is an error naming the row).
pub(crate) fn kinds_from_column(batch: &RecordBatch, name: &str) -> Result<Int8Array> {
    let column = batch.column_by_name(name).ok_or_else(|| {
        Error::invalid_argument(format!("the batch has no rowkind.field column '{name}'"))
    })?;
    let strings = column.as_string_opt::<i32>().ok_or_else(|| {
        Error::invalid_argument(format!(
            "rowkind.field column '{name}' is {}, not a string column",
            column.data_type()
        ))
    })?;
    let mut out = Vec::with_capacity(strings.len());
    for row in 0..strings.len() {
        let kind = match strings.is_null(row) {
            true => None,
            false => strings.value(row).parse::<RowKind>().ok(),
        };
        let kind = kind.ok_or_else(|| {
            Error::invalid_argument(format!(
                "rowkind.field column '{name}' has no valid row kind at row {row}"
            ))
            .with_context("column", name.to_string())
        })?;
        out.push(kind.to_byte());
    }
    Ok(Int8Array::from(out))
}
