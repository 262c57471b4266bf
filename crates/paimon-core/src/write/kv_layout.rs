//! The physical layout of primary-key data files (Java `KeyValue#createKeyValueFields`):
//! `_KEY_<k>` for each trimmed primary-key column in declared order (NOT NULL, id
//! `1073741823 + id`; omitted with `data-file.thin-mode`), `_SEQUENCE_NUMBER`, `_VALUE_KIND`,
//! then every table column.

use arrow_array::{make_array, Array, ArrayRef, Int64Array, Int8Array, RecordBatch};
use arrow_schema::SchemaRef;

use super::file_writer::KeyColumns;
use super::parquet::{parquet_schema, retype};
use crate::arrow::schema::arrow_schema;
use crate::spec::options::TableOptions;
use crate::spec::schema::TableSchema;
use crate::spec::special_fields::{sequence_number_field, value_kind_field, KEY_FIELD_ID_START};
use crate::spec::types::{DataField, DataType};
use crate::{Error, Result};

/// Where a primary-key file's columns come from.
#[derive(Debug, Clone)]
pub(crate) struct KvLayout {
    /// Positions of the trimmed primary-key columns among the table columns, declared order.
    pub key_positions: Vec<usize>,
    /// Positions of the `sequence.field` columns among the table columns.
    pub user_seq: Vec<usize>,
    /// `sequence.field.sort-order = descending`.
    pub user_seq_desc: bool,
    /// Whether `_KEY_*` columns are written.
    pub key_columns: bool,
    /// Every column of the file, in order.
    pub fields: Vec<DataField>,
    /// Arrow schema of the file (Parquet ids set).
    pub schema: SchemaRef,
    /// Key and system columns within the file.
    pub file_key: KeyColumns,
}

fn position(schema: &TableSchema, name: &str) -> Result<usize> {
    schema
        .index_of(name)
        .ok_or_else(|| Error::data_invalid(format!("table has no column '{name}'")))
}

impl KvLayout {
    /// The layout of `schema`'s primary-key files.
    pub(crate) fn new(schema: &TableSchema, options: &TableOptions) -> Result<Self> {
        let trimmed = schema.trimmed_primary_keys();
        let key_positions = trimmed
            .iter()
            .map(|k| position(schema, k))
            .collect::<Result<Vec<_>>>()?;
        let user_seq = options
            .sequence_field
            .iter()
            .flatten()
            .map(|k| position(schema, k))
            .collect::<Result<Vec<_>>>()?;
        let key_columns = !options.data_file_thin_mode;
        let key_fields: Vec<DataField> = schema
            .fields_of(&trimmed)?
            .into_iter()
            .map(|f| {
                let data_type = DataType {
                    nullable: false,
                    ..f.data_type
                };
                DataField::new(
                    KEY_FIELD_ID_START + f.id,
                    format!("_KEY_{}", f.name),
                    data_type,
                )
            })
            .collect();
        let mut fields = Vec::new();
        if key_columns {
            fields.extend(key_fields.iter().cloned());
        }
        let system = fields.len();
        fields.push(sequence_number_field());
        fields.push(value_kind_field());
        fields.extend(schema.fields.iter().cloned());
        let values = system + 2;
        let file_positions = match key_columns {
            true => (0..key_fields.len()).collect(),
            false => key_positions.iter().map(|p| values + p).collect(),
        };
        let arrow = arrow_schema(&fields)?;
        Ok(KvLayout {
            key_positions,
            user_seq,
            user_seq_desc: options.sequence_field_sort_order
                == crate::spec::options::SortOrder::Descending,
            key_columns,
            schema: parquet_schema(&arrow, &fields),
            file_key: KeyColumns {
                positions: file_positions,
                types: key_fields.iter().map(|f| f.data_type.clone()).collect(),
                seq: system,
                kind: system + 1,
            },
            fields,
        })
    }

    /// Position of the first table column in the file.
    pub(crate) fn value_offset(&self) -> usize {
        self.file_key.kind + 1
    }

    /// The file batch of sorted, merged table rows with their sequence numbers and kinds.
    pub(crate) fn file_batch(
        &self,
        rows: &RecordBatch,
        seq: Int64Array,
        kinds: Int8Array,
    ) -> Result<RecordBatch> {
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(self.fields.len());
        if self.key_columns {
            for &p in &self.key_positions {
                columns.push(rows.column(p).clone());
            }
        }
        columns.push(std::sync::Arc::new(seq));
        columns.push(std::sync::Arc::new(kinds));
        columns.extend(rows.columns().iter().cloned());
        // The table rows carry top-level field ids only; the file schema also has the nested
        // ids of list elements and map keys/values (`parquet_schema`).
        let columns = columns
            .into_iter()
            .zip(self.schema.fields())
            .map(|(c, f)| match c.data_type() == f.data_type() {
                true => Ok(c),
                false => Ok(make_array(retype(c.to_data(), f.data_type())?)),
            })
            .collect::<Result<Vec<ArrayRef>>>()?;
        Ok(RecordBatch::try_new(self.schema.clone(), columns)?)
    }
}
