//! Parquet row-group pruning from column-chunk statistics.
//!
//! A row group is skipped only when the bound predicate provably matches none of its rows
//! according to the chunk min/max/null counts (inclusive evaluation, `expr::eval_stats`).
//! Columns are matched to the predicate's field ids through the file's own schema by name, and
//! only when the file's type equals the current type; any other column is unknown. Nested
//! columns and timestamps are not used. Everything uncertain keeps the row group (fail open).

use std::collections::HashMap;
use std::sync::Arc;

use parquet::file::metadata::RowGroupMetaData;
use parquet::file::statistics::Statistics;

use crate::expr::{eval_stats, BoundPredicate, Prune, StatsSource};
use crate::spec::types::{DataField, TypeKind};
use crate::spec::{Datum, Decimal};

use super::file_reader::RowGroupFilter;

/// Predicate columns usable for statistics pruning of one file: field id → (physical column
/// name, type), for the predicate's fields whose file type equals the current type.
pub(crate) type PredicateColumns = HashMap<i32, (String, TypeKind)>;

/// The predicate's columns that statistics of a file written with `file_fields` may answer.
pub(crate) fn predicate_columns(
    predicate: &BoundPredicate,
    file_fields: &[DataField],
    current: &[DataField],
) -> PredicateColumns {
    let mut columns: PredicateColumns = HashMap::new();
    for id in predicate.field_ids() {
        let (Some(f), Some(c)) = (
            file_fields.iter().find(|f| f.id == id),
            current.iter().find(|c| c.id == id),
        ) else {
            continue;
        };
        if f.data_type.equals_ignore_nullable(&c.data_type) && usable(&f.data_type.kind) {
            columns.insert(id, (f.name.clone(), f.data_type.kind.clone()));
        }
    }
    columns
}

/// Builds the filter for one file, or `None` when no predicate column can be used.
pub fn row_group_filter(
    predicate: &BoundPredicate,
    file_fields: &[DataField],
    current: &[DataField],
) -> Option<RowGroupFilter> {
    let columns = predicate_columns(predicate, file_fields, current);
    if columns.is_empty() {
        return None;
    }
    let predicate = predicate.clone();
    Some(Arc::new(move |rg: &RowGroupMetaData| {
        let stats = ChunkStats {
            rg,
            columns: &columns,
        };
        !matches!(eval_stats(&predicate, &stats), Ok(Prune::CannotMatch))
    }))
}

fn usable(kind: &TypeKind) -> bool {
    matches!(
        kind,
        TypeKind::Boolean
            | TypeKind::TinyInt
            | TypeKind::SmallInt
            | TypeKind::Int
            | TypeKind::BigInt
            | TypeKind::Float
            | TypeKind::Double
            | TypeKind::Date
            | TypeKind::Char(_)
            | TypeKind::VarChar(_)
            | TypeKind::Decimal { .. }
    )
}

struct ChunkStats<'a> {
    rg: &'a RowGroupMetaData,
    columns: &'a HashMap<i32, (String, TypeKind)>,
}

impl ChunkStats<'_> {
    fn stats(&self, field_id: i32) -> Option<(&Statistics, &TypeKind)> {
        let (name, kind) = self.columns.get(&field_id)?;
        let col =
            self.rg.columns().iter().find(|c| {
                c.column_path().parts().len() == 1 && c.column_path().string() == *name
            })?;
        Some((col.statistics()?, kind))
    }

    fn bound(&self, field_id: i32, max: bool) -> Option<Datum> {
        // An inexact max is still an upper bound and an inexact min a lower bound.
        let (s, kind) = self.stats(field_id)?;
        datum(s, kind, max)
    }
}

fn pick<T: Copy>(min: Option<&T>, max: Option<&T>, want_max: bool) -> Option<T> {
    if want_max {
        max.copied()
    } else {
        min.copied()
    }
}

fn decimal_from_bytes(b: &[u8], precision: u32, scale: u32) -> Option<Datum> {
    if b.is_empty() || b.len() > 16 {
        return None;
    }
    let neg = b[0] & 0x80 != 0;
    let mut v: i128 = if neg { -1 } else { 0 };
    for x in b {
        v = (v << 8) | i128::from(*x);
    }
    Some(Datum::Decimal(Decimal {
        unscaled: v,
        precision,
        scale,
    }))
}

/// A bound stored as a Parquet INT32 as a datum of `kind`.
pub(crate) fn from_i32(x: i32, kind: &TypeKind) -> Option<Datum> {
    match kind {
        TypeKind::TinyInt => i8::try_from(x).ok().map(Datum::TinyInt),
        TypeKind::SmallInt => i16::try_from(x).ok().map(Datum::SmallInt),
        TypeKind::Int => Some(Datum::Int(x)),
        TypeKind::Date => Some(Datum::Date(x)),
        TypeKind::Decimal { precision, scale } => Some(Datum::Decimal(Decimal {
            unscaled: i128::from(x),
            precision: *precision,
            scale: *scale,
        })),
        _ => None,
    }
}

/// A bound stored as a Parquet INT64 as a datum of `kind`.
pub(crate) fn from_i64(x: i64, kind: &TypeKind) -> Option<Datum> {
    match kind {
        TypeKind::BigInt => Some(Datum::BigInt(x)),
        TypeKind::Decimal { precision, scale } => Some(Datum::Decimal(Decimal {
            unscaled: i128::from(x),
            precision: *precision,
            scale: *scale,
        })),
        _ => None,
    }
}

/// A bound stored as Parquet FLOAT / DOUBLE as a datum of `kind` (NaN is no bound).
pub(crate) fn from_f64(x: f64, single: bool, kind: &TypeKind) -> Option<Datum> {
    match kind {
        _ if x.is_nan() => None,
        #[allow(clippy::cast_possible_truncation)]
        TypeKind::Float if single => Some(Datum::Float(x as f32)),
        TypeKind::Double if !single => Some(Datum::Double(x)),
        _ => None,
    }
}

/// A bound stored as Parquet BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY as a datum of `kind`.
pub(crate) fn from_bytes(b: &[u8], kind: &TypeKind) -> Option<Datum> {
    match kind {
        TypeKind::Char(_) | TypeKind::VarChar(_) => std::str::from_utf8(b)
            .ok()
            .map(|s| Datum::String(s.to_string())),
        TypeKind::Decimal { precision, scale } => decimal_from_bytes(b, *precision, *scale),
        _ => None,
    }
}

fn datum(s: &Statistics, kind: &TypeKind, want_max: bool) -> Option<Datum> {
    match (s, kind) {
        (Statistics::Boolean(v), TypeKind::Boolean) => {
            pick(v.min_opt(), v.max_opt(), want_max).map(Datum::Boolean)
        }
        (Statistics::Int32(v), k) => from_i32(pick(v.min_opt(), v.max_opt(), want_max)?, k),
        (Statistics::Int64(v), k) => from_i64(pick(v.min_opt(), v.max_opt(), want_max)?, k),
        (Statistics::Float(v), k) => from_f64(
            f64::from(pick(v.min_opt(), v.max_opt(), want_max)?),
            true,
            k,
        ),
        (Statistics::Double(v), k) => from_f64(pick(v.min_opt(), v.max_opt(), want_max)?, false, k),
        (Statistics::ByteArray(v), k @ (TypeKind::Char(_) | TypeKind::VarChar(_))) => {
            from_bytes(if want_max { v.max_opt() } else { v.min_opt() }?.data(), k)
        }
        (Statistics::FixedLenByteArray(v), k @ TypeKind::Decimal { .. }) => {
            from_bytes(if want_max { v.max_opt() } else { v.min_opt() }?.data(), k)
        }
        _ => None,
    }
}

impl StatsSource for ChunkStats<'_> {
    fn row_count(&self) -> Option<i64> {
        Some(self.rg.num_rows())
    }
    fn min(&self, field_id: i32) -> Option<Datum> {
        self.bound(field_id, false)
    }
    fn max(&self, field_id: i32) -> Option<Datum> {
        self.bound(field_id, true)
    }
    fn null_count(&self, field_id: i32) -> Option<i64> {
        let (s, _) = self.stats(field_id)?;
        s.null_count_opt().and_then(|n| i64::try_from(n).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::types::DataType;
    use arrow_array::{Int64Array, RecordBatch, StringArray};
    use parquet::arrow::ArrowWriter;
    use parquet::file::metadata::ParquetMetaDataReader;
    use parquet::file::properties::WriterProperties;

    /// Ten row groups of ten rows: id 0..100, name "n<id/10>".
    fn file() -> (Vec<u8>, Vec<DataField>) {
        let fields = vec![
            DataField::new(0, "id", DataType::nullable(TypeKind::BigInt)),
            DataField::new(
                1,
                "name",
                DataType::nullable(TypeKind::VarChar(u32::MAX >> 1)),
            ),
        ];
        let schema = crate::arrow::arrow_schema(&fields).unwrap();
        let ids: Vec<i64> = (0..100).collect();
        let names: Vec<String> = ids.iter().map(|i| format!("n{}", i / 10)).collect();
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(Int64Array::from(ids)),
                Arc::new(StringArray::from(names)),
            ],
        )
        .unwrap();
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(10))
            .build();
        let mut buf = Vec::new();
        let mut w = ArrowWriter::try_new(&mut buf, schema, Some(props)).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        (buf, fields)
    }

    fn kept(sql: &str, current: &[DataField], file_fields: &[DataField]) -> Vec<usize> {
        let (bytes, _) = file();
        let meta = ParquetMetaDataReader::new()
            .parse_and_finish(&bytes::Bytes::from(bytes))
            .unwrap();
        let schema = crate::test_util::schema_of(current.to_vec());
        let pred = crate::expr::parse_predicate(sql)
            .unwrap()
            .bind(&schema)
            .unwrap();
        let Some(f) = row_group_filter(&pred, file_fields, current) else {
            return (0..meta.num_row_groups()).collect();
        };
        (0..meta.num_row_groups())
            .filter(|i| f(meta.row_group(*i)))
            .collect()
    }

    #[test]
    fn prunes_row_groups_by_min_max() {
        let (_, fields) = file();
        assert_eq!(kept("id = 42", &fields, &fields), vec![4]);
        assert_eq!(kept("id >= 95 OR id < 3", &fields, &fields), vec![0, 9]);
        assert_eq!(kept("name = 'n7'", &fields, &fields), vec![7]);
        assert_eq!(kept("id > 1000", &fields, &fields), Vec::<usize>::new());
        assert_eq!(kept("id IS NULL", &fields, &fields), Vec::<usize>::new());
        // A residual on an unknown-stats shape keeps everything.
        assert_eq!(kept("name LIKE 'n%' OR id = 5", &fields, &fields).len(), 10);
    }

    #[test]
    fn renamed_columns_use_the_file_name_and_retyped_columns_are_not_pruned() {
        let (_, file_fields) = file();
        let renamed = vec![
            DataField::new(0, "key", DataType::nullable(TypeKind::BigInt)),
            file_fields[1].clone(),
        ];
        assert_eq!(kept("key = 42", &renamed, &file_fields), vec![4]);
        let retyped = vec![
            DataField::new(0, "id", DataType::nullable(TypeKind::Double)),
            file_fields[1].clone(),
        ];
        assert_eq!(kept("id = 42", &retyped, &file_fields).len(), 10);
    }
}
