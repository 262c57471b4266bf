//! Late materialization of Parquet reads: the predicate's columns are decoded first and
//! evaluated (an arrow-rs [`RowFilter`]); the other projected columns are then decoded (and,
//! with an offset index, fetched) only for the rows that passed.
//!
//! Java Paimon 2.0 has no equivalent in its Parquet reader (it filters pages by the column
//! index, `org.apache.paimon.format.parquet.ParquetReaderFactory`, and rows afterwards). The
//! filter is the predicate that may be evaluated on every row of the file (see
//! [`super::table_read`]); the caller still applies its filter afterwards, so rows kept here are
//! a superset of the answer and never a wrong one.
//!
//! When it helps: decoding a predicate column twice is avoided by arrow-rs' predicate cache,
//! but evaluating a filter that keeps most rows costs a fragmented selection for nothing, and
//! scattered matches (an unsorted column, ~0.1% of rows) still need every page of every column
//! decompressed, so they gain nothing either. It is used only when the predicate is likely
//! selective ([`likely_selective`]: an equality, `IN`, `IS NULL` or prefix conjunct, or an OR
//! of such), some projected column is not a predicate column, and the file gave evidence that
//! matches cluster (the caller, [`super::parquet`]: the page index removed rows, or a key
//! search ran and left many rows); a full scan (no predicate) never uses it.

use std::collections::BTreeSet;

use arrow_schema::ArrowError;
use parquet::arrow::arrow_reader::{ArrowPredicateFn, RowFilter};
use parquet::arrow::ProjectionMask;
use parquet::schema::types::SchemaDescriptor;

use super::evolution::ReadMapping;
use super::file_reader::SelectiveRead;
use crate::expr::{filter_batch, BoundPredicate, LeafOp};
use crate::spec::types::DataField;

/// Whether `predicate` probably keeps few rows: one of its conjuncts is an equality, `IN`,
/// `IS NULL` or `LIKE 'prefix%'`, or an OR of such.
pub fn likely_selective(predicate: &BoundPredicate) -> bool {
    fn narrow(p: &BoundPredicate) -> bool {
        match p {
            BoundPredicate::Leaf { op, .. } => matches!(
                op,
                LeafOp::Eq(_) | LeafOp::In(_) | LeafOp::IsNull | LeafOp::StartsWith(_)
            ),
            BoundPredicate::Or(children) => !children.is_empty() && children.iter().all(narrow),
            BoundPredicate::And(children) => children.iter().any(narrow),
            BoundPredicate::AlwaysFalse => true,
            BoundPredicate::AlwaysTrue => false,
        }
    }
    predicate.split_and().iter().any(narrow)
}

/// The row filter of one file, or `None` when late materialization does not apply: not
/// allowed, not likely selective, no predicate column in the file, or every projected column
/// is a predicate column. `physical` are the file's top-level column names, `output_roots`
/// the top-level columns the read decodes.
pub(crate) fn row_filter(
    selective: &SelectiveRead,
    file_fields: &[DataField],
    physical: &[&str],
    parquet_schema: &SchemaDescriptor,
    output_roots: &[usize],
) -> Option<RowFilter> {
    if !selective.late_materialization || !likely_selective(&selective.predicate) {
        return None;
    }
    let ids: BTreeSet<i32> = selective.predicate.field_ids();
    let fields: Vec<DataField> = selective
        .current_fields
        .iter()
        .filter(|f| ids.contains(&f.id))
        .cloned()
        .collect();
    if fields.len() != ids.len() {
        return None;
    }
    let mapping = ReadMapping::new(&fields, file_fields, physical).ok()?;
    let roots = mapping.roots().to_vec();
    if roots.is_empty() || output_roots.iter().all(|r| roots.contains(r)) {
        return None;
    }
    let mask = ProjectionMask::roots(parquet_schema, roots);
    let predicate = selective.predicate.clone();
    let metrics = selective.metrics.clone();
    metrics.add_row_filter_file();
    let filter = ArrowPredicateFn::new(mask, move |batch| {
        let external = |e: crate::Error| ArrowError::ExternalError(Box::new(e));
        let projected = mapping.project(&batch).map_err(external)?;
        let mask = filter_batch(&predicate, &projected, &fields).map_err(external)?;
        metrics.add_rows_filtered((batch.num_rows() - mask.true_count()) as u64);
        Ok(mask)
    });
    Some(RowFilter::new(vec![Box::new(filter)]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::types::{DataType, TypeKind};

    fn bound(sql: &str) -> BoundPredicate {
        let schema = crate::test_util::schema_of(vec![
            DataField::new(0, "a", DataType::nullable(TypeKind::BigInt)),
            DataField::new(1, "b", DataType::nullable(TypeKind::BigInt)),
        ]);
        crate::expr::parse_predicate(sql)
            .unwrap()
            .bind(&schema)
            .unwrap()
    }

    #[test]
    fn selectivity_heuristic() {
        assert!(likely_selective(&bound("a = 1")));
        assert!(likely_selective(&bound("a IN (1, 2) AND b > 3")));
        assert!(likely_selective(&bound("a = 1 OR b IS NULL")));
        assert!(!likely_selective(&bound("a > 1")));
        assert!(!likely_selective(&bound("a = 1 OR b > 2")));
        assert!(!likely_selective(&bound("a <> 1")));
    }
}
