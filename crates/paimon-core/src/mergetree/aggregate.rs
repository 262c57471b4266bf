//! The aggregation merge engine: one aggregate function per field.
//!
//! Mirrors Java `org.apache.paimon.mergetree.compact.aggregate.AggregateMergeFunction` and
//! `FieldAggregatorFactory` (Paimon 2.0, `docs/format.md` "Merge-on-read"). Function per
//! field (Java
//! `getAggFuncName`): `sequence.field` fields use `last_value`, primary-key fields keep their
//! value, otherwise `fields.<f>.aggregate-function`, `fields.default-aggregate-function`,
//! `last_non_null_value`. Supported: `sum`, `product`, `min`, `max`, `last_value`,
//! `last_non_null_value`, `first_value`, `first_non_null_value` (also by its legacy name
//! `first_not_null_value`), `bool_and`, `bool_or`, `listagg` (`fields.<f>.list-agg-delimiter`,
//! `fields.<f>.distinct`), `collect` (ARRAY, `fields.<f>.distinct`) and `merge_map` (MAP);
//! the functions themselves live in [`super::field_agg`] (shared with partial-update). Any
//! other name is an "unsupported aggregate" error. `count` existed only in Java 0.8
//! (`FieldCountAgg`, removed in 0.9 by apache/paimon#3932; Java 2.0 rejects the name): it is
//! read here with 0.8's semantics so that tables written then stay readable. Type checks are those of the Java factories (`sum`/`product` numeric,
//! `bool_*` BOOLEAN, `listagg` STRING, `collect` ARRAY, `merge_map` MAP, `count` an integer).
//!
//! A group of two or more records is folded record by record: `agg` for `+I`/`+U`, `retract`
//! for `-U`/`-D` (an error for functions without a retract, unless
//! `fields.<f>.ignore-retract`), and the result is always an insert. `ignore-delete` does not
//! apply here: Java drops retracts when *writing* (`TableWriteImpl` with `RowKindFilter`), so
//! retracts found in files are aggregated. `aggregation.remove-record-on-delete`: a `-D`
//! replaces the row by the `-D` record's own values (Java `initRow`, per-field state such as
//! `first_value`'s is not reset) and deletes the key if it is the group's last record.

use super::field_agg::FieldAgg;
use super::merge_function::{is_retract, Record, SystemColumns, DELETE, INSERT};
use super::output::{Cell, Output, Pool, Scalar};
use crate::spec::options::TableOptions;
use crate::spec::types::{DataField, TypeKind, MAX_LENGTH};
use crate::{Error, Result};

/// One field's aggregate function.
#[derive(Debug, Clone, PartialEq)]
pub enum AggFunction {
    /// Primary-key field: keep.
    Keep,
    /// `last_value`.
    LastValue,
    /// `last_non_null_value`.
    LastNonNull,
    /// `first_value`.
    FirstValue,
    /// `first_non_null_value`.
    FirstNonNull,
    /// `min`.
    Min,
    /// `max`.
    Max,
    /// `sum`.
    Sum,
    /// `product`.
    Product,
    /// `bool_and`.
    BoolAnd,
    /// `bool_or`.
    BoolOr,
    /// `listagg` (STRING).
    ListAgg {
        /// `fields.<f>.list-agg-delimiter` (default `,`).
        delimiter: String,
        /// `fields.<f>.distinct`: add only tokens not yet in the accumulator.
        distinct: bool,
    },
    /// `collect` (ARRAY), with `fields.<f>.distinct`.
    Collect {
        /// Remove repeated elements.
        distinct: bool,
    },
    /// `merge_map` (MAP).
    MergeMap,
    /// `count` (TINYINT, SMALLINT, INT, BIGINT): Java 0.8's `FieldCountAgg`, for tables written
    /// before 0.9 removed it.
    Count,
}

fn type_error(what: &str, field: &DataField) -> Error {
    Error::data_invalid(format!("{what} but was '{}'.", field.data_type))
        .with_context("field", field.name.clone())
}

impl AggFunction {
    /// The function of `field` under `options` (Java `AggregateMergeFunction#getAggFuncName`).
    pub fn for_field(
        options: &TableOptions,
        field: &DataField,
        is_key: bool,
        is_seq: bool,
    ) -> Result<Self> {
        if field.id >= crate::spec::special_fields::KEY_FIELD_ID_START {
            return Ok(AggFunction::Keep);
        }
        if is_seq {
            return Ok(AggFunction::LastValue);
        }
        if is_key {
            return Ok(AggFunction::Keep);
        }
        let name = options
            .per_field
            .aggregate_function(&field.name)
            .unwrap_or("last_non_null_value");
        Self::from_name(name, options, field)
    }

    /// The function called `name` (Java `FieldAggregatorFactory#create`) for `field`.
    pub fn from_name(name: &str, options: &TableOptions, field: &DataField) -> Result<Self> {
        let kind = &field.data_type.kind;
        Ok(match name.trim() {
            "primary-key" => AggFunction::Keep,
            "last_value" => AggFunction::LastValue,
            "last_non_null_value" => AggFunction::LastNonNull,
            "first_value" => AggFunction::FirstValue,
            "first_non_null_value" | "first_not_null_value" => AggFunction::FirstNonNull,
            "min" => AggFunction::Min,
            "max" => AggFunction::Max,
            "sum" | "product" if !kind.is_numeric() => {
                return Err(type_error(
                    &format!("Data type for {} column must be 'NumericType'", name.trim()),
                    field,
                ))
            }
            "sum" => AggFunction::Sum,
            "product" => AggFunction::Product,
            "bool_and" | "bool_or" if *kind != TypeKind::Boolean => {
                let which = if name.trim() == "bool_and" {
                    "and"
                } else {
                    "or"
                };
                return Err(type_error(
                    &format!("Data type for bool {which} column must be 'BooleanType'"),
                    field,
                ));
            }
            "bool_and" => AggFunction::BoolAnd,
            "bool_or" => AggFunction::BoolOr,
            "listagg" => match kind {
                TypeKind::VarChar(MAX_LENGTH) => AggFunction::ListAgg {
                    delimiter: options
                        .per_field
                        .list_agg_delimiter(&field.name)
                        .to_string(),
                    distinct: options.per_field.distinct(&field.name)?,
                },
                TypeKind::VarChar(n) => {
                    return Err(Error::data_invalid(format!(
                        "Data type for list agg column must be STRING (unbounded VARCHAR), but \
                         was VARCHAR({n})."
                    ))
                    .with_context("field", field.name.clone()))
                }
                _ => {
                    return Err(type_error(
                        "Data type for list agg column must be 'VarCharType'",
                        field,
                    ))
                }
            },
            "collect" => {
                if !matches!(kind, TypeKind::Array(_)) {
                    return Err(type_error(
                        "Data type for collect column must be 'Array'",
                        field,
                    ));
                }
                AggFunction::Collect {
                    distinct: options.per_field.distinct(&field.name)?,
                }
            }
            "merge_map" => {
                if !matches!(kind, TypeKind::Map(..)) {
                    return Err(type_error(
                        "Data type for merge map column must be 'MAP'",
                        field,
                    ));
                }
                AggFunction::MergeMap
            }
            "count" => {
                if !kind.is_integer() {
                    return Err(type_error(
                        "Data type for count column must be TINYINT, SMALLINT, INT or BIGINT",
                        field,
                    ));
                }
                AggFunction::Count
            }
            other => {
                return Err(
                    Error::unsupported(format!("unsupported aggregate function '{other}'"))
                        .with_context("field", field.name.clone()),
                )
            }
        })
    }

    /// The Java name of the function.
    pub fn name(&self) -> &'static str {
        match self {
            AggFunction::Keep => "primary-key",
            AggFunction::LastValue => "last_value",
            AggFunction::LastNonNull => "last_non_null_value",
            AggFunction::FirstValue => "first_value",
            AggFunction::FirstNonNull => "first_non_null_value",
            AggFunction::Min => "min",
            AggFunction::Max => "max",
            AggFunction::Sum => "sum",
            AggFunction::Product => "product",
            AggFunction::BoolAnd => "bool_and",
            AggFunction::BoolOr => "bool_or",
            AggFunction::ListAgg { .. } => "listagg",
            AggFunction::Collect { .. } => "collect",
            AggFunction::MergeMap => "merge_map",
            AggFunction::Count => "count",
        }
    }
}

/// The aggregator of `field` running `func` (Java `FieldAggregatorFactory#create`): checks
/// that `fields.<f>.ignore-retract` is not combined with `aggregation.remove-record-on-delete`
/// and wraps the function to ignore retracts when asked (`FieldIgnoreRetractAgg`).
pub fn field_aggregator(
    options: &TableOptions,
    field: &DataField,
    func: AggFunction,
) -> Result<FieldAgg> {
    let ignore_retract = options.per_field.ignore_retract(&field.name)?;
    if ignore_retract && options.aggregation_remove_record_on_delete {
        return Err(Error::data_invalid(format!(
            "aggregation.remove-record-on-delete and fields.{}.ignore-retract have conflicting \
             behavior so should not be enabled at the same time.",
            field.name
        )));
    }
    Ok(FieldAgg::new(func, ignore_retract, &field.name))
}

/// Aggregation state for one read (Java `AggregateMergeFunction`).
#[derive(Debug)]
pub struct Aggregator {
    aggs: Vec<FieldAgg>,
    nullable: Vec<bool>,
    names: Vec<String>,
    remove_on_delete: bool,
    cells: Vec<Cell>,
}

impl Aggregator {
    /// An aggregator over merge columns `fields` with `functions` (same order).
    pub fn new(
        options: &TableOptions,
        fields: &[DataField],
        functions: Vec<AggFunction>,
    ) -> Result<Self> {
        let aggs = fields
            .iter()
            .zip(functions)
            .map(|(f, func)| field_aggregator(options, f, func))
            .collect::<Result<Vec<_>>>()?;
        Ok(Aggregator {
            nullable: fields.iter().map(|f| f.data_type.nullable).collect(),
            names: fields.iter().map(|f| f.name.clone()).collect(),
            cells: vec![Cell::Null; aggs.len()],
            aggs,
            remove_on_delete: options.aggregation_remove_record_on_delete,
        })
    }

    /// The error merging a retraction of kind `kind` would raise, if any: a `-D` with
    /// `aggregation.remove-record-on-delete` replaces the row; any other retraction is
    /// retracted from every field, and the first function without a retract fails (Java's
    /// message).
    pub fn check_retract(&self, kind: i8) -> Result<()> {
        if self.remove_on_delete && kind == DELETE {
            return Ok(());
        }
        match self.aggs.iter().find(|a| !a.supports_retract()) {
            Some(a) => Err(a.no_retract_error()),
            None => Ok(()),
        }
    }

    /// Merges one group (ascending order), like Java's `reset` then `add` per record then
    /// `getResult`: each record is folded into the row with `agg` (or `retract` for `-U`/`-D`).
    /// `ignore-delete` plays no part here (Java drops retracts when writing). With
    /// `aggregation.remove-record-on-delete`, a `-D` replaces the row by its own values (Java
    /// `initRow`) and, if it is the last record, the key is deleted (a `-D` result, dropped
    /// unless `keep`). The result is `+I` (or that `-D`) with the last record's sequence
    /// number, written to `sys` (Java `getResult`).
    pub fn merge(
        &mut self,
        group: &[Record],
        pool: &Pool,
        out: &mut Output,
        sys: SystemColumns,
        keep: bool,
    ) -> Result<()> {
        self.aggs.iter_mut().for_each(FieldAgg::reset);
        self.cells.iter_mut().for_each(|c| *c = Cell::Null);
        let mut deleted = false;
        for r in group {
            let input = Cell::At(r.src, r.row);
            deleted = self.remove_on_delete && r.kind == DELETE;
            if deleted {
                for (c, cell) in self.cells.iter_mut().enumerate() {
                    if !self.nullable.get(c).copied().unwrap_or(true)
                        && pool.column(r.src, c)?.is_null(r.row)
                    {
                        return Err(Error::data_invalid(format!("Field {c} can not be null"))
                            .with_context(
                                "field",
                                self.names.get(c).cloned().unwrap_or_default(),
                            ));
                    }
                    *cell = input.clone();
                }
                continue;
            }
            let retract = is_retract(r.kind);
            for (c, (agg, cell)) in self.aggs.iter_mut().zip(&mut self.cells).enumerate() {
                let acc = std::mem::take(cell);
                *cell = if retract {
                    agg.retract(acc, input.clone(), pool, c)?
                } else {
                    agg.agg(acc, input.clone(), pool, c)?
                };
            }
        }
        if deleted && !keep {
            return Ok(());
        }
        // Java `getResult`: the last record's sequence number and the row's kind.
        if let (Some(last), Some(cell)) = (group.last(), self.cells.get_mut(sys.seqnum)) {
            *cell = Cell::At(last.src, last.row);
        }
        if let Some(cell) = self.cells.get_mut(sys.kind) {
            let kind = if deleted { DELETE } else { INSERT };
            *cell = Cell::Scalar(Scalar::Int(i64::from(kind)));
        }
        out.push_cells(&mut self.cells)
    }
}

#[cfg(test)]
#[path = "agg_tests.rs"]
mod agg_tests;
