//! The `collect` (ARRAY) and `merge_map` (MAP) aggregate functions.
//!
//! Mirrors Java `org.apache.paimon.mergetree.compact.aggregate.FieldCollectAgg` and
//! `FieldMergeMapAgg` (Paimon 2.0):
//! - `collect`: `agg(acc, in)` is `acc ++ in`; a null side returns the other side unchanged
//!   unless `fields.<f>.distinct = true`, which removes repeated elements (nulls included; two
//!   nulls are equal). `retract(acc, in)` removes, for each element of `in`, one equal element
//!   of `acc`; a null `acc` stays null, a null or empty `in` leaves `acc` unchanged.
//! - `merge_map`: `agg(acc, in)` is `acc` with the entries of `in` put over it; a null side
//!   returns the other side. `retract(acc, in)` removes the keys of `in` from `acc`.
//!
//! Deliberate divergence: Java builds distinct collections in a `HashSet` and merged maps in a
//! `HashMap`, so its element/entry order follows Java hash codes. We keep the first-occurrence
//! order (accumulator first, then input), which is the order Java itself uses for distinct
//! collections of nested elements. The set of elements / entries is the same as Java's.
//! Element equality is arrow's total order equality (floats compare like Java `Float.equals`).

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, ListArray, MapArray, UInt32Array};
use arrow_buffer::OffsetBuffer;
use arrow_ord::ord::{make_comparator, DynComparator};
use arrow_schema::{DataType as ArrowType, SortOptions};
use arrow_select::concat::concat;
use arrow_select::take::take;

use super::field_agg::Val;
use crate::{Error, Result};

fn comparator(a: &dyn Array, b: &dyn Array) -> Result<DynComparator> {
    Ok(make_comparator(a, b, SortOptions::default())?)
}

fn list_values(v: Val<'_>) -> Result<ArrayRef> {
    let list =
        v.0.as_list_opt::<i32>()
            .ok_or_else(|| Error::data_invalid("collect needs an ARRAY column"))?;
    Ok(list.value(v.1))
}

fn map_entries(v: Val<'_>) -> Result<ArrayRef> {
    let map =
        v.0.as_map_opt()
            .ok_or_else(|| Error::data_invalid("merge_map needs a MAP column"))?;
    Ok(Arc::new(map.value(v.1)))
}

fn indices(idx: &[usize]) -> Result<UInt32Array> {
    idx.iter()
        .map(|&i| u32::try_from(i).map_err(|_| Error::data_invalid("collection too large")))
        .collect()
}

/// A one-row LIST array of type `dt` holding `values`.
fn one_list(dt: &ArrowType, values: ArrayRef) -> Result<ArrayRef> {
    let ArrowType::List(field) = dt else {
        return Err(Error::internal(format!("collect over {dt}")));
    };
    let offsets = OffsetBuffer::from_lengths([values.len()]);
    Ok(Arc::new(ListArray::try_new(
        field.clone(),
        offsets,
        values,
        None,
    )?))
}

/// A one-row MAP array of type `dt` holding `entries` (a struct array of key and value).
fn one_map(dt: &ArrowType, entries: &ArrayRef) -> Result<ArrayRef> {
    let ArrowType::Map(field, sorted) = dt else {
        return Err(Error::internal(format!("merge_map over {dt}")));
    };
    let offsets = OffsetBuffer::from_lengths([entries.len()]);
    Ok(Arc::new(MapArray::try_new(
        field.clone(),
        offsets,
        entries.as_struct().clone(),
        None,
        *sorted,
    )?))
}

/// `collect` of two non-null-or-null values; `dt` is the column type. `None` means "the
/// result is the accumulator (first) / input (second) unchanged": see [`Pick`].
pub fn collect_agg(
    dt: &ArrowType,
    acc: Option<Val<'_>>,
    input: Option<Val<'_>>,
    distinct: bool,
) -> Result<Picked> {
    let parts: Vec<ArrayRef> = match (acc, input) {
        (None, None) => return Ok(Picked::Null),
        (Some(_), None) if !distinct => return Ok(Picked::Acc),
        (None, Some(_)) if !distinct => return Ok(Picked::Input),
        (a, i) => [a, i]
            .into_iter()
            .flatten()
            .map(list_values)
            .collect::<Result<_>>()?,
    };
    let refs: Vec<&dyn Array> = parts.iter().map(|a| a.as_ref()).collect();
    let all = concat(&refs)?;
    if !distinct {
        return one_list(dt, all).map(Picked::Value);
    }
    let cmp = comparator(&all, &all)?;
    let mut keep: Vec<usize> = Vec::new();
    for i in 0..all.len() {
        if !keep.iter().any(|&k| cmp(k, i).is_eq()) {
            keep.push(i);
        }
    }
    let taken = take(&all, &indices(&keep)?, None)?;
    one_list(dt, taken).map(Picked::Value)
}

/// The shape both retractions share: a null accumulator stays null; a null or empty
/// retraction leaves the accumulator unchanged; otherwise `remove(acc, retract)`, given both
/// sides decoded by `decode`, computes the one-row result.
fn retract_by(
    acc: Option<Val<'_>>,
    input: Option<Val<'_>>,
    decode: fn(Val<'_>) -> Result<ArrayRef>,
    remove: impl FnOnce(&ArrayRef, &ArrayRef) -> Result<ArrayRef>,
) -> Result<Picked> {
    let (Some(a), Some(r)) = (acc, input) else {
        return Ok(if acc.is_none() {
            Picked::Null
        } else {
            Picked::Acc
        });
    };
    let a = decode(a)?;
    let r = decode(r)?;
    if r.is_empty() {
        return Ok(Picked::Acc);
    }
    remove(&a, &r).map(Picked::Value)
}

/// `collect` retraction.
pub fn collect_retract(
    dt: &ArrowType,
    acc: Option<Val<'_>>,
    input: Option<Val<'_>>,
) -> Result<Picked> {
    retract_by(acc, input, list_values, |acc_values, retract| {
        let cmp = comparator(acc_values, retract)?;
        let mut remaining: Vec<usize> = (0..retract.len()).collect();
        let mut keep = Vec::new();
        for i in 0..acc_values.len() {
            match remaining.iter().position(|&j| cmp(i, j).is_eq()) {
                Some(p) => {
                    remaining.remove(p);
                }
                None => keep.push(i),
            }
        }
        let taken = take(acc_values, &indices(&keep)?, None)?;
        one_list(dt, taken)
    })
}

/// `merge_map` of two values.
pub fn merge_map_agg(
    dt: &ArrowType,
    acc: Option<Val<'_>>,
    input: Option<Val<'_>>,
) -> Result<Picked> {
    let (Some(a), Some(i)) = (acc, input) else {
        return Ok(match (acc, input) {
            (None, None) => Picked::Null,
            (None, _) => Picked::Input,
            _ => Picked::Acc,
        });
    };
    let a = map_entries(a)?;
    let i = map_entries(i)?;
    let n_acc = a.len();
    let all = concat(&[a.as_ref(), i.as_ref()])?;
    let keys = all.as_struct().column(0).clone();
    let cmp = comparator(&keys, &keys)?;
    let mut keep: Vec<usize> = Vec::new();
    for k in 0..n_acc {
        let newer = (n_acc..keys.len()).rev().find(|&j| cmp(k, j).is_eq());
        keep.push(newer.unwrap_or(k));
    }
    for j in n_acc..keys.len() {
        let seen = (0..n_acc).any(|k| cmp(k, j).is_eq()) || (n_acc..j).any(|p| cmp(p, j).is_eq());
        if !seen {
            keep.push(j);
        }
    }
    let taken = take(&all, &indices(&keep)?, None)?;
    one_map(dt, &taken).map(Picked::Value)
}

/// `merge_map` retraction.
pub fn merge_map_retract(
    dt: &ArrowType,
    acc: Option<Val<'_>>,
    input: Option<Val<'_>>,
) -> Result<Picked> {
    retract_by(acc, input, map_entries, |a, r| {
        let (ak, rk) = (a.as_struct().column(0), r.as_struct().column(0));
        let cmp = comparator(ak, rk)?;
        let keep: Vec<usize> = (0..a.len())
            .filter(|&k| !(0..r.len()).any(|j| cmp(k, j).is_eq()))
            .collect();
        let taken = take(a, &indices(&keep)?, None)?;
        one_map(dt, &taken)
    })
}

/// The outcome of a collection function.
#[derive(Debug)]
pub enum Picked {
    /// Null.
    Null,
    /// The accumulator unchanged.
    Acc,
    /// The input unchanged.
    Input,
    /// A computed one-row array.
    Value(ArrayRef),
}
