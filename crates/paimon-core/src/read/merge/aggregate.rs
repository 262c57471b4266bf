//! The aggregation merge engine: one aggregate function per field.
//!
//! Mirrors Java `org.apache.paimon.mergetree.compact.aggregate.AggregateMergeFunction` and the
//! `Field*Agg` classes (java-formats.md §4.3). Function per field: primary-key fields keep their
//! value, `sequence.field` fields use `last_value`, otherwise `fields.<f>.aggregate-function`,
//! `fields.default-aggregate-function`, `last_non_null_value`. Supported: `sum`, `product`,
//! `min`, `max`, `last_value`, `last_non_null_value`, `first_value`, `first_non_null_value`,
//! `bool_and`, `bool_or`, `listagg`, `collect` (ARRAY, `fields.<f>.distinct`) and `merge_map`
//! (MAP) (the last two fold record by record through [`super::field_agg::FieldAgg`], see
//! [`super::collection_agg`]); any other name is an "unsupported aggregate" error. `count`
//! existed only in Java 0.8 (`FieldCountAgg`, removed in 0.9 by apache/paimon#3932), so it is
//! rejected like Java 2.0 rejects it. Nulls
//! are ignored by every function except `last_value`/`first_value`. Retracts: skipped with
//! `ignore-delete` or `fields.<f>.ignore-retract`; `-D` clears the row with
//! `aggregation.remove-record-on-delete`; `sum` subtracts, `last_value` nulls,
//! `last_non_null_value` nulls when the retracted value is non-null, `collect` removes the
//! retracted elements and `merge_map` the retracted keys; others fail.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Decimal128Type, Float64Type, Int64Type};
use arrow_array::{
    Array, ArrayRef, BooleanArray, Decimal128Array, Float32Array, Float64Array, Int16Array,
    Int32Array, Int64Array, Int8Array, StringArray,
};
use arrow_cast::cast;
use arrow_schema::{DataType as ArrowType, SortOptions};
use arrow_select::interleave::interleave;

use super::field_agg::FieldAgg;
use super::merge_function::{is_retract, Record, DELETE};
use super::output::{Cell, Output, Pool};
use crate::spec::options::TableOptions;
use crate::spec::types::{DataField, TypeKind};
use crate::{Error, Result};

/// `fields.<f>.aggregate-function`, else `fields.default-aggregate-function`.
pub fn configured_function<'a>(options: &'a TableOptions, field: &str) -> Option<&'a str> {
    options
        .field_option(field, "aggregate-function")
        .or_else(|| {
            options
                .raw()
                .get("fields.default-aggregate-function")
                .map(String::as_str)
        })
}

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
    /// `listagg` with its delimiter.
    ListAgg(String),
    /// `collect` (ARRAY), with `fields.<f>.distinct`.
    Collect {
        /// Remove repeated elements.
        distinct: bool,
    },
    /// `merge_map` (MAP).
    MergeMap,
}

impl AggFunction {
    /// The function of `field` under `options`.
    pub fn for_field(
        options: &TableOptions,
        field: &DataField,
        is_key: bool,
        is_seq: bool,
    ) -> Result<Self> {
        if is_key || field.id >= crate::read::evolution::KEY_FIELD_ID_START {
            return Ok(AggFunction::Keep);
        }
        if is_seq {
            return Ok(AggFunction::LastValue);
        }
        let name = configured_function(options, &field.name).unwrap_or("last_non_null_value");
        Self::from_name(name, options, field)
    }

    /// The function called `name` (Java `FieldAggregatorFactory#create`) for `field`.
    pub fn from_name(name: &str, options: &TableOptions, field: &DataField) -> Result<Self> {
        Ok(match name.trim() {
            "primary-key" => AggFunction::Keep,
            "last_value" => AggFunction::LastValue,
            "last_non_null_value" => AggFunction::LastNonNull,
            "first_value" => AggFunction::FirstValue,
            "first_non_null_value" => AggFunction::FirstNonNull,
            "min" => AggFunction::Min,
            "max" => AggFunction::Max,
            "sum" => AggFunction::Sum,
            "product" => AggFunction::Product,
            "bool_and" => AggFunction::BoolAnd,
            "bool_or" => AggFunction::BoolOr,
            "listagg" => AggFunction::ListAgg(
                options
                    .field_option(&field.name, "list-agg-delimiter")
                    .unwrap_or(",")
                    .to_string(),
            ),
            "collect" => {
                if !matches!(field.data_type.kind, TypeKind::Array(_)) {
                    return Err(Error::data_invalid(format!(
                        "Data type for collect column must be 'Array' but was '{}'.",
                        field.data_type
                    ))
                    .with_context("field", field.name.clone()));
                }
                AggFunction::Collect {
                    distinct: options.field_option(&field.name, "distinct") == Some("true"),
                }
            }
            "merge_map" => {
                if !matches!(field.data_type.kind, TypeKind::Map(..)) {
                    return Err(Error::data_invalid(format!(
                        "Data type for merge map column must be 'MAP' but was '{}'",
                        field.data_type
                    ))
                    .with_context("field", field.name.clone()));
                }
                AggFunction::MergeMap
            }
            "count" => {
                // Java removed `count` in 0.9 (apache/paimon#3932); 2.0 rejects the name.
                return Err(Error::unsupported(
                    "unsupported aggregate function 'count': Use unsupported aggregation: count \
                     or spell aggregate function incorrectly! (Paimon removed 'count' in 0.9)",
                )
                .with_context("field", field.name.clone()));
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
            AggFunction::ListAgg(_) => "listagg",
            AggFunction::Collect { .. } => "collect",
            AggFunction::MergeMap => "merge_map",
        }
    }

    fn handles_retract(&self) -> bool {
        matches!(
            self,
            AggFunction::Keep
                | AggFunction::Sum
                | AggFunction::LastValue
                | AggFunction::LastNonNull
                | AggFunction::Collect { .. }
                | AggFunction::MergeMap
        )
    }
}

/// Aggregation state for one read.
#[derive(Debug)]
pub struct Aggregator {
    functions: Vec<AggFunction>,
    ignore_retract: Vec<bool>,
    names: Vec<String>,
    ignore_delete: bool,
    remove_on_delete: bool,
    cells: Vec<Cell>,
    recs: Vec<Record>,
}

impl Aggregator {
    /// An aggregator over merge columns `fields` with `functions` (same order).
    pub fn new(options: &TableOptions, fields: &[DataField], functions: Vec<AggFunction>) -> Self {
        Aggregator {
            ignore_retract: fields
                .iter()
                .map(|f| options.field_option(&f.name, "ignore-retract") == Some("true"))
                .collect(),
            names: fields.iter().map(|f| f.name.clone()).collect(),
            cells: vec![Cell::Null; functions.len()],
            functions,
            ignore_delete: options.ignore_delete,
            remove_on_delete: options.aggregation_remove_record_on_delete,
            recs: Vec::new(),
        }
    }

    /// Merges one group (ascending order).
    pub fn merge(&mut self, group: &[Record], pool: &Pool, out: &mut Output) -> Result<()> {
        let start = match group
            .iter()
            .rposition(|r| self.remove_on_delete && r.kind == DELETE)
        {
            Some(i) => i + 1,
            None => 0,
        };
        let effective = group.get(start..).unwrap_or_default();
        if !effective
            .iter()
            .any(|r| !(self.ignore_delete && is_retract(r.kind)))
        {
            return Ok(());
        }
        for c in 0..self.functions.len() {
            self.recs.clear();
            let skip_retract = self.ignore_delete || self.ignore_retract[c];
            self.recs.extend(
                effective
                    .iter()
                    .filter(|r| !(skip_retract && is_retract(r.kind))),
            );
            let f = &self.functions[c];
            if !f.handles_retract() && self.recs.iter().any(|r| is_retract(r.kind)) {
                return Err(Error::unsupported(format!(
                    "aggregate function {f:?} cannot retract; set fields.<f>.ignore-retract"
                ))
                .with_context("field", self.names[c].clone()));
            }
            // Every record of the group is an ignored retract for this field: Java folds
            // nothing into the reset (null) accumulator.
            self.cells[c] = if self.recs.is_empty() {
                Cell::Null
            } else {
                field_cell(f, &self.recs, pool, c)?
            };
        }
        out.push_cells(&mut self.cells)
    }
}

fn is_null(pool: &Pool, r: &Record, c: usize) -> Result<bool> {
    Ok(pool.column(r.src, c)?.is_null(r.row))
}

fn field_cell(f: &AggFunction, recs: &[Record], pool: &Pool, c: usize) -> Result<Cell> {
    let at = |r: &Record| Cell::At(r.src, r.row);
    Ok(match f {
        AggFunction::Keep => recs.last().map(at).unwrap_or(Cell::Null),
        AggFunction::LastValue => match recs.last() {
            Some(r) if !is_retract(r.kind) => at(r),
            _ => Cell::Null,
        },
        AggFunction::LastNonNull => {
            let mut cell = Cell::Null;
            for r in recs {
                if !is_null(pool, r, c)? {
                    cell = if is_retract(r.kind) {
                        Cell::Null
                    } else {
                        at(r)
                    };
                }
            }
            cell
        }
        AggFunction::FirstValue => recs.first().map(at).unwrap_or(Cell::Null),
        AggFunction::FirstNonNull => {
            let mut cell = Cell::Null;
            for r in recs {
                if !is_null(pool, r, c)? {
                    cell = at(r);
                    break;
                }
            }
            cell
        }
        AggFunction::Min | AggFunction::Max => {
            let values = gather(recs, pool, c)?;
            let opts = SortOptions {
                descending: *f == AggFunction::Max,
                nulls_first: false,
            };
            let idx = arrow_ord::sort::sort_to_indices(&values, Some(opts), Some(1))?;
            match idx.values().first().map(|&i| i as usize) {
                Some(i) if !values.is_null(i) => recs.get(i).map(at).unwrap_or(Cell::Null),
                _ => Cell::Null,
            }
        }
        AggFunction::Sum | AggFunction::Product => {
            let values = gather(recs, pool, c)?;
            let retract: Vec<bool> = recs.iter().map(|r| is_retract(r.kind)).collect();
            Cell::Value(arith(&values, &retract, *f == AggFunction::Product)?)
        }
        AggFunction::BoolAnd | AggFunction::BoolOr => {
            let values = gather(recs, pool, c)?;
            let b = values
                .as_boolean_opt()
                .ok_or_else(|| Error::unsupported("bool_and/bool_or need a BOOLEAN field"))?;
            let r = if *f == AggFunction::BoolAnd {
                arrow_arith::aggregate::bool_and(b)
            } else {
                arrow_arith::aggregate::bool_or(b)
            };
            Cell::Value(Arc::new(BooleanArray::from(vec![r])))
        }
        AggFunction::Collect { .. } | AggFunction::MergeMap => {
            let mut agg = FieldAgg::new(f.clone(), false, "");
            let mut acc = Cell::Null;
            for r in recs {
                let input = at(r);
                acc = if is_retract(r.kind) {
                    agg.retract(acc, input, pool, c)?
                } else {
                    agg.agg(acc, input, pool, c)?
                };
            }
            acc
        }
        AggFunction::ListAgg(delim) => {
            let values = gather(recs, pool, c)?;
            let s = cast(&values, &ArrowType::Utf8)?;
            let parts: Vec<&str> = s.as_string::<i32>().iter().flatten().collect();
            let joined = (!parts.is_empty()).then(|| parts.join(delim));
            let a: ArrayRef = Arc::new(StringArray::from(vec![joined]));
            Cell::Value(cast(&a, values.data_type())?)
        }
    })
}

/// The values of column `c` of `recs`, in order.
fn gather(recs: &[Record], pool: &Pool, c: usize) -> Result<ArrayRef> {
    let mut arrays: Vec<&dyn Array> = Vec::with_capacity(recs.len());
    let mut idx = Vec::with_capacity(recs.len());
    for (i, r) in recs.iter().enumerate() {
        arrays.push(pool.column(r.src, c)?.as_ref());
        idx.push((i, r.row));
    }
    Ok(interleave(&arrays, &idx)?)
}

/// Sum (retracts subtract) or product of non-null values, null if all are null; integer
/// arithmetic wraps like Java's.
fn arith(values: &ArrayRef, retract: &[bool], product: bool) -> Result<ArrayRef> {
    let t = values.data_type().clone();
    let pairs = retract.iter().enumerate();
    match &t {
        ArrowType::Int8 | ArrowType::Int16 | ArrowType::Int32 | ArrowType::Int64 => {
            let v = cast(values, &ArrowType::Int64)?;
            let v = v.as_primitive::<Int64Type>();
            let mut acc: Option<i64> = None;
            for (i, &neg) in pairs.filter(|(i, _)| v.is_valid(*i)) {
                let x = v.value(i);
                acc = Some(match (acc, product) {
                    (None, _) if neg => x.wrapping_neg(),
                    (None, _) => x,
                    (Some(a), true) => a.wrapping_mul(x),
                    (Some(a), false) if neg => a.wrapping_sub(x),
                    (Some(a), false) => a.wrapping_add(x),
                });
            }
            Ok(match t {
                ArrowType::Int8 => Arc::new(Int8Array::from(vec![acc.map(|a| a as i8)])),
                ArrowType::Int16 => Arc::new(Int16Array::from(vec![acc.map(|a| a as i16)])),
                ArrowType::Int32 => Arc::new(Int32Array::from(vec![acc.map(|a| a as i32)])),
                _ => Arc::new(Int64Array::from(vec![acc])),
            })
        }
        ArrowType::Float32 | ArrowType::Float64 => {
            let v = cast(values, &ArrowType::Float64)?;
            let v = v.as_primitive::<Float64Type>();
            let mut acc: Option<f64> = None;
            for (i, &neg) in pairs.filter(|(i, _)| v.is_valid(*i)) {
                let x = if neg { -v.value(i) } else { v.value(i) };
                acc = Some(match acc {
                    None => x,
                    Some(a) if product => a * x,
                    Some(a) => a + x,
                });
            }
            Ok(match t {
                ArrowType::Float32 => Arc::new(Float32Array::from(vec![acc.map(|a| a as f32)])),
                _ => Arc::new(Float64Array::from(vec![acc])),
            })
        }
        ArrowType::Decimal128(p, s) => {
            let v = values.as_primitive::<Decimal128Type>();
            let mut acc: Option<i128> = None;
            let scale = 10i128.checked_pow(u32::try_from(*s).unwrap_or(0));
            for (i, &neg) in pairs.filter(|(i, _)| v.is_valid(*i)) {
                let x = if neg { -v.value(i) } else { v.value(i) };
                acc = match acc {
                    None => Some(x),
                    Some(a) if product => scale.and_then(|f| a.checked_mul(x).map(|m| m / f)),
                    Some(a) => a.checked_add(x),
                };
            }
            Ok(Arc::new(
                Decimal128Array::from(vec![acc]).with_precision_and_scale(*p, *s)?,
            ))
        }
        other => Err(Error::unsupported(format!(
            "sum/product over {other} is not supported"
        ))),
    }
}
