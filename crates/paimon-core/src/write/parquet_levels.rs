//! Repetition and definition levels of one Parquet leaf of a (possibly nested) Arrow column,
//! equal to those arrow-rs' `ArrowWriter` writes for the same leaf, for the INT96 leaves that
//! `parquet_int96` writes through the lower-level column writer (arrow-rs computes its levels
//! in `parquet::arrow::arrow_writer::levels`, whose results `compute_leaves` wraps in the
//! opaque `ArrowLeafColumn`: nothing public exposes them).
//!
//! Parquet layout, as `ArrowSchemaConverter` emits it (and Java's `ParquetSchemaConverter`):
//! a nullable Arrow field is `optional` (one definition level); a List is a group around
//! `repeated group list` (one definition and one repetition level) whose `element` is the
//! item field; a Map likewise around `repeated group key_value` of `key` and `value` (the
//! entries struct itself is required); a Struct is a group of its fields.
//!
//! Per top-level row (Dremel): a null at a nullable node gives one entry with the definition
//! level of its parent; an empty list or map one entry at the list's own level (its
//! nullability counted, not the repeated level); each item of a list or map repeats at the
//! list's repetition level except the first, which inherits the level of the enclosing slot.
//! Slots under a null or past the offsets of a null list are never visited (as arrow-rs).
//! Invariant (tested against the levels arrow-rs writes): same levels, same values, same order.

use arrow_array::cast::AsArray;
use arrow_array::types::TimestampNanosecondType;
use arrow_array::Array;
use arrow_schema::{DataType as ArrowType, Field};

use crate::{Error, Result};

/// One step from a field to its child, in the order Parquet lists the leaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// The `n`-th field of a Struct.
    Child(usize),
    /// The items of a List.
    Item,
    /// The keys of a Map.
    Key,
    /// The values of a Map.
    Value,
}

/// The path (steps from the top-level field) and Arrow type of every Parquet leaf of a column
/// of type `t`, in schema order.
pub(crate) fn leaf_paths(t: &ArrowType) -> Result<Vec<(Vec<Step>, ArrowType)>> {
    let mut out = Vec::new();
    collect(t, &mut Vec::new(), &mut out)?;
    Ok(out)
}

fn collect(
    t: &ArrowType,
    prefix: &mut Vec<Step>,
    out: &mut Vec<(Vec<Step>, ArrowType)>,
) -> Result<()> {
    let mut descend = |step: Step, child: &ArrowType, out: &mut Vec<_>| {
        prefix.push(step);
        let r = collect(child, prefix, out);
        prefix.pop();
        r
    };
    match t {
        ArrowType::Struct(fs) => {
            for (n, f) in fs.iter().enumerate() {
                descend(Step::Child(n), f.data_type(), out)?;
            }
        }
        ArrowType::List(f) => descend(Step::Item, f.data_type(), out)?,
        ArrowType::Map(entries, _) => {
            let (k, v) = map_fields(entries)?;
            descend(Step::Key, k.data_type(), out)?;
            descend(Step::Value, v.data_type(), out)?;
        }
        ArrowType::LargeList(_)
        | ArrowType::FixedSizeList(..)
        | ArrowType::ListView(_)
        | ArrowType::LargeListView(_)
        | ArrowType::Union(..)
        | ArrowType::Dictionary(..)
        | ArrowType::RunEndEncoded(..) => {
            return Err(Error::unsupported(format!(
                "Arrow type {t} in a Parquet file with INT96 timestamps"
            )))
        }
        _ => out.push((prefix.clone(), t.clone())),
    }
    Ok(())
}

fn map_fields(entries: &Field) -> Result<(&Field, &Field)> {
    match entries.data_type() {
        ArrowType::Struct(kv) if kv.len() == 2 => Ok((kv[0].as_ref(), kv[1].as_ref())),
        _ => Err(Error::data_invalid(
            "map entries are not a (key, value) struct",
        )),
    }
}

/// The levels and non-null values (nanoseconds) of one TIMESTAMP(9) leaf.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct LeafLevels {
    /// Values of the entries at the maximum definition level, in order.
    pub values: Vec<i64>,
    /// One definition level per entry.
    pub defs: Vec<i16>,
    /// One repetition level per entry.
    pub reps: Vec<i16>,
}

impl LeafLevels {
    /// Entries below the maximum definition level (parquet-mr's and arrow-rs' null count).
    pub fn nulls(&self) -> usize {
        self.defs.len() - self.values.len()
    }
}

/// Where a slot sits: the definition level of its parent, its repetition level and the
/// repetition level of the innermost enclosing list.
#[derive(Clone, Copy)]
struct Slot {
    def: i16,
    rep: i16,
    depth: i16,
}

/// Appends the levels of the leaf at `path` of every row of `array` (the column `field`) to
/// `out`; the leaf must be a nanosecond timestamp.
pub(crate) fn append_leaf_levels(
    field: &Field,
    array: &dyn Array,
    path: &[Step],
    out: &mut LeafLevels,
) -> Result<()> {
    let top = Slot {
        def: 0,
        rep: 0,
        depth: 0,
    };
    for i in 0..array.len() {
        visit(field.is_nullable(), array, i, path, top, out)?;
    }
    Ok(())
}

fn visit(
    nullable: bool,
    array: &dyn Array,
    i: usize,
    path: &[Step],
    at: Slot,
    out: &mut LeafLevels,
) -> Result<()> {
    if nullable && array.is_null(i) {
        out.defs.push(at.def);
        out.reps.push(at.rep);
        return Ok(());
    }
    let at = Slot {
        def: at.def + i16::from(nullable),
        ..at
    };
    let Some((step, rest)) = path.split_first() else {
        let ts = array
            .as_primitive_opt::<TimestampNanosecondType>()
            .ok_or_else(|| Error::data_invalid("INT96 leaf is not a nanosecond timestamp"))?;
        out.values.push(ts.value(i));
        out.defs.push(at.def);
        out.reps.push(at.rep);
        return Ok(());
    };
    let shape = || Error::data_invalid("array does not match its Parquet leaf path");
    match step {
        Step::Child(n) => {
            let s = array.as_struct_opt().ok_or_else(shape)?;
            let (f, c) = s
                .fields()
                .get(*n)
                .zip(s.columns().get(*n))
                .ok_or_else(shape)?;
            visit(f.is_nullable(), c.as_ref(), i, rest, at, out)
        }
        Step::Item => {
            let l = array.as_list_opt::<i32>().ok_or_else(shape)?;
            let ArrowType::List(f) = l.data_type() else {
                return Err(shape());
            };
            let o = l.value_offsets();
            let range = offsets(o, i).ok_or_else(shape)?;
            items(f.is_nullable(), l.values().as_ref(), range, rest, at, out)
        }
        Step::Key | Step::Value => {
            let m = array.as_map_opt().ok_or_else(shape)?;
            let (k, v) = m.entries_fields();
            let range = offsets(m.value_offsets(), i).ok_or_else(shape)?;
            match step {
                Step::Key => items(k.is_nullable(), m.keys().as_ref(), range, rest, at, out),
                _ => items(v.is_nullable(), m.values().as_ref(), range, rest, at, out),
            }
        }
    }
}

/// The item range of list slot `i`.
fn offsets(o: &[i32], i: usize) -> Option<std::ops::Range<usize>> {
    let start = usize::try_from(*o.get(i)?).ok()?;
    let end = usize::try_from(*o.get(i + 1)?).ok()?;
    (start <= end).then_some(start..end)
}

/// The items `range` of a list or map slot at `at` (already past its own nullability).
fn items(
    nullable: bool,
    values: &dyn Array,
    range: std::ops::Range<usize>,
    rest: &[Step],
    at: Slot,
    out: &mut LeafLevels,
) -> Result<()> {
    if range.is_empty() {
        out.defs.push(at.def);
        out.reps.push(at.rep);
        return Ok(());
    }
    if range.end > values.len() {
        return Err(Error::data_invalid("list offsets exceed the list values"));
    }
    let depth = at.depth + 1;
    for (n, k) in range.enumerate() {
        let slot = Slot {
            def: at.def + 1,
            rep: if n == 0 { at.rep } else { depth },
            depth,
        };
        visit(nullable, values, k, rest, slot, out)?;
    }
    Ok(())
}

#[cfg(test)]
pub(super) mod tests;
