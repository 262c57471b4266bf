//! A primary key's columns as comparable keys for lookup compaction: `arrow_row` rows, or
//! `u128`s when the key's rows are at most 16 bytes ([`KeyList`]), packed straight from
//! integer columns' values.

use arrow_array::{BooleanArray, RecordBatch};
use arrow_row::{RowConverter, SortField};
use arrow_schema::DataType as ArrowType;

use super::key_list::{pack_integers, packed_width, KeyCollector, KeyList};
use crate::spec::types::DataField;
use crate::{Error, Result};

/// One batch's keys: packed as `u128`s ([`KeyList::Packed`]) or as rows.
pub(super) enum BatchKeys {
    /// Packed keys ([`pack_integers`]).
    Packed(Vec<u128>),
    /// `arrow_row` rows.
    Rows(arrow_row::Rows),
}

/// Key columns as comparable rows.
pub(super) struct KeySet {
    pub(super) converter: RowConverter,
    width: usize,
    /// The row width when the keys' rows pack into a `u128` ([`KeyList`]).
    pub(super) packed: Option<usize>,
    /// Whether integer key columns are packed from their values, not converted to rows
    /// (always; tests compare the two).
    pub(super) pack_values: bool,
}

impl KeySet {
    /// The key set of the key columns `key_fields`.
    pub(super) fn new(key_fields: &[DataField]) -> Result<Self> {
        let arrow = crate::arrow::arrow_schema(key_fields)?;
        let sort = arrow
            .fields()
            .iter()
            .map(|f| SortField::new(f.data_type().clone()))
            .collect();
        // `arrow_row` encodes a fixed-width value as a validity byte and its bytes.
        let packed = packed_width(arrow.fields().iter().map(|f| match f.data_type() {
            ArrowType::Boolean => Some(2),
            t @ (ArrowType::Int8
            | ArrowType::Int16
            | ArrowType::Int32
            | ArrowType::Int64
            | ArrowType::UInt8
            | ArrowType::UInt16
            | ArrowType::UInt32
            | ArrowType::UInt64
            | ArrowType::Float32
            | ArrowType::Float64
            | ArrowType::Date32
            | ArrowType::Date64
            | ArrowType::Time32(_)
            | ArrowType::Time64(_)
            | ArrowType::Timestamp(_, _)) => t.primitive_width().map(|w| w + 1),
            _ => None,
        }));
        Ok(KeySet {
            converter: RowConverter::new(sort)?,
            width: key_fields.len(),
            packed,
            pack_values: true,
        })
    }

    /// An empty collector of these keys.
    pub(super) fn collector(&self) -> KeyCollector {
        KeyCollector::new(self.packed)
    }

    /// The keys of `batch`, whose first columns are the key columns.
    pub(super) fn rows(&self, batch: &RecordBatch) -> Result<arrow_row::Rows> {
        let cols = batch
            .columns()
            .get(..self.width)
            .ok_or_else(|| Error::internal("key columns missing"))?;
        Ok(self.converter.convert_columns(cols)?)
    }

    /// The keys of `batch` (key columns first) as packed keys when this key set packs and
    /// its columns are integers without nulls, else as rows.
    pub(super) fn packed_rows(&self, batch: &RecordBatch) -> Result<BatchKeys> {
        let cols = batch
            .columns()
            .get(..self.width)
            .ok_or_else(|| Error::internal("key columns missing"))?;
        self.keys_of(cols)
    }

    pub(super) fn keys_of(&self, cols: &[arrow_array::ArrayRef]) -> Result<BatchKeys> {
        let packed = self.packed.filter(|_| self.pack_values);
        if let Some(packed) = packed.and_then(|w| pack_integers(cols, w)) {
            return Ok(BatchKeys::Packed(packed));
        }
        Ok(BatchKeys::Rows(self.converter.convert_columns(cols)?))
    }

    /// Adds the keys of `batch` (key columns first) to `collector`.
    pub(super) fn collect(&self, batch: &RecordBatch, collector: &mut KeyCollector) -> Result<()> {
        match self.packed_rows(batch)? {
            BatchKeys::Packed(keys) => collector.extend_packed(&keys),
            BatchKeys::Rows(rows) => rows.iter().try_for_each(|r| collector.push(r.as_ref())),
        }
    }

    /// Rows of `batch` (key columns at `positions`) whose key is in `set`.
    pub(super) fn mask(
        &self,
        batch: &RecordBatch,
        positions: &[usize],
        set: &KeyList,
    ) -> Result<BooleanArray> {
        let cols: Vec<_> = positions
            .iter()
            .map(|&p| {
                batch
                    .columns()
                    .get(p)
                    .cloned()
                    .ok_or_else(|| Error::internal("key column missing"))
            })
            .collect::<Result<_>>()?;
        match (self.keys_of(&cols)?, set) {
            (BatchKeys::Packed(keys), KeyList::Packed { keys: set, .. }) => Ok(keys
                .iter()
                .map(|k| Some(set.binary_search(k).is_ok()))
                .collect()),
            (BatchKeys::Packed(_), _) => {
                let rows = self.converter.convert_columns(&cols)?;
                rows.iter()
                    .map(|r| set.contains(r.as_ref()).map(Some))
                    .collect()
            }
            (BatchKeys::Rows(rows), _) => rows
                .iter()
                .map(|r| set.contains(r.as_ref()).map(Some))
                .collect(),
        }
    }
}
