//! Bucket selection: the fixed buckets that can hold rows matching the scan predicate.
//!
//! Mirrors Java `org.apache.paimon.operation.BucketSelectConverter` / `BucketSelector` and
//! paimon-cpp's `BucketSelectConverter` (Paimon 2.0). Per partition, leaves on partition
//! columns are resolved to constants first, so `(dt = 'a' AND k = 1) OR (dt = 'b' AND k = 2)`
//! selects one bucket in each partition. Every bucket key must then be pinned by `=`, `IN`, or an
//! OR of those on the same key (values intersected across conjuncts, as Java does); candidate
//! key rows are the cartesian product (at most [`MAX_KEY_ROWS`]), encoded as Java `BinaryRow`s
//! with the current schema's key types and hashed with each manifest entry's own total bucket
//! count (lazily, cached per partition and count).
//!
//! Invariant: never excludes a bucket holding a matching row. Anything uncertain selects
//! nothing to drop ([`Selection`] `None`): a key not pinned, too many combinations, a NaN
//! literal (equal NaNs may have different bits, and `default` hashes raw bits), a literal that
//! does not convert exactly to the key type (e.g. a decimal that would need rounding or does not
//! fit the key's precision), or an encoding/hash error (pruning fails open).
//!
//! Decision for `±0.0` (neither Java nor C++ guards it): a float/double zero literal selects the
//! buckets of **both** zeros, which hash differently under `default` but may compare equal.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use super::function::{hive_supports, BucketFunction, BucketFunctionType};
use crate::expr::{eval_partition, BoundPredicate, LeafOp, Prune};
use crate::hash::FastHashMap;
use crate::spec::binary_row::BinaryRow;
use crate::spec::options::{stored_bucket_function, BucketFunctionKind, BucketMode, TableOptions};
use crate::spec::types::{DataField, DataType, TypeKind};
use crate::spec::{Datum, TableSchema};
use crate::{Error, Result};

/// Most candidate key rows before pruning is given up (Java `BucketSelectConverter.MAX_VALUES`).
pub const MAX_KEY_ROWS: usize = 1000;

/// Selected buckets of one (partition, total bucket count); `None` = keep every bucket.
pub type Selection = Option<Arc<HashSet<i32>>>;

/// Candidate key rows of one partition; `None` = cannot prune.
type KeyRows = Option<Arc<Vec<BinaryRow>>>;

/// The bucket function type of the `bucket-function.type` option.
pub fn function_type_of(kind: BucketFunctionKind) -> BucketFunctionType {
    match kind {
        BucketFunctionKind::Default => BucketFunctionType::Default,
        BucketFunctionKind::Mod => BucketFunctionType::Mod,
        BucketFunctionKind::Hive => BucketFunctionType::Hive,
    }
}

/// Infers buckets from a predicate, per partition and per total bucket count.
#[derive(Debug)]
pub struct BucketSelector {
    key_fields: Vec<DataField>,
    key_types: Vec<DataType>,
    function: BucketFunction,
    predicate: BoundPredicate,
    partition_fields: Vec<DataField>,
    partition_ids: BTreeSet<i32>,
    /// The predicate has no partition leaves: one answer serves every partition.
    partition_free: bool,
    rows: FastHashMap<Vec<u8>, KeyRows>,
    buckets: HashMap<i32, FastHashMap<Vec<u8>, Selection>>,
    /// The last answer of [`Self::select`] with its bucket count and partition bytes: a scan
    /// asks for the entries of one partition and count in a row, and comparing a few bytes is
    /// cheaper than two hash lookups.
    last: Option<(i32, Vec<u8>, Selection)>,
}

impl BucketSelector {
    /// The selector a scan of a table with `schema` and `options` uses for `predicate`, or
    /// `None` when inferred pruning does not apply: no predicate, a bucket mode other than
    /// fixed or postpone (whose real-bucket files have positive counts, as in Java), or no
    /// bucket keys. Errors as [`BucketSelector::try_new`].
    pub fn for_table(
        schema: &TableSchema,
        options: &TableOptions,
        predicate: Option<&BoundPredicate>,
    ) -> Result<Option<Self>> {
        let Some(predicate) = predicate else {
            return Ok(None);
        };
        if !matches!(options.bucket, BucketMode::Fixed(_) | BucketMode::Postpone) {
            return Ok(None);
        }
        Self::try_new(schema, function_type_of(options.bucket_function), predicate)
    }

    /// A selector for `schema`'s bucket keys, or `None` when the table has no bucket keys.
    ///
    /// Errors as paimon-cpp does: `Unsupported` ("unsupported field type") for a key type the
    /// bucket-key row cannot hold (nested types and the like), `InvalidArgument` when the
    /// function cannot hash the keys (`mod` with several keys or a non-integer key).
    pub fn try_new(
        schema: &TableSchema,
        function_type: BucketFunctionType,
        predicate: &BoundPredicate,
    ) -> Result<Option<Self>> {
        let keys = schema.bucket_keys();
        if keys.is_empty() {
            return Ok(None);
        }
        let key_fields = schema.fields_of(&keys)?;
        if let Some(f) = key_fields
            .iter()
            .find(|f| !supported_key_type(&f.data_type))
        {
            return Err(Error::unsupported(format!(
                "bucket pruning: unsupported field type {} of bucket key '{}'",
                f.data_type, f.name
            )));
        }
        let key_types: Vec<DataType> = key_fields.iter().map(|f| f.data_type.clone()).collect();
        let function = BucketFunction::new(function_type, key_types.clone())?;
        let partition_fields = schema.partition_fields()?;
        let partition_ids: BTreeSet<i32> = partition_fields.iter().map(|f| f.id).collect();
        let partition_free = predicate.field_ids().is_disjoint(&partition_ids);
        Ok(Some(BucketSelector {
            key_fields,
            key_types,
            function,
            predicate: predicate.clone(),
            partition_fields,
            partition_ids,
            partition_free,
            rows: FastHashMap::default(),
            buckets: HashMap::new(),
            last: None,
        }))
    }

    /// The bucket function type.
    #[cfg(test)]
    pub fn function_type(&self) -> BucketFunctionType {
        self.function.kind()
    }

    /// `(pairs, buckets)`: how many (partition, total bucket count) pairs got a bucket set so
    /// far, and the sum of those sets' sizes (pairs that keep every bucket are not counted).
    pub fn selection_stats(&self) -> (u64, u64) {
        let sets = self.buckets.values().flat_map(|m| m.values()).flatten();
        sets.fold((0, 0), |(n, b), s| (n + 1, b + s.len() as u64))
    }

    /// Whether files written under `other` can be tested with this selector: the same ordered
    /// bucket-key field ids and types (nullability aside) and the same bucket function (read
    /// from `other`'s own options). Unrelated columns do not matter.
    pub fn compatible_with(&self, other: &TableSchema) -> bool {
        let other_function = match stored_bucket_function(&other.options) {
            Ok(kind) => function_type_of(kind),
            Err(_) => return false,
        };
        if other_function != self.function.kind() {
            return false;
        }
        let Ok(fields) = other.fields_of(&other.bucket_keys()) else {
            return false;
        };
        fields.len() == self.key_fields.len()
            && fields
                .iter()
                .zip(&self.key_fields)
                .all(|(a, b)| a.id == b.id && a.data_type.equals_ignore_nullable(&b.data_type))
    }

    /// The buckets to keep in `partition` (serialized row, decoded `values` in partition-key
    /// order) for an entry written with `total_buckets`; `None` keeps every bucket (also for a
    /// nonpositive count). An empty set means no row of the partition can match.
    pub fn select(
        &mut self,
        partition: &[u8],
        values: &[Option<Datum>],
        total_buckets: i32,
    ) -> Selection {
        if total_buckets <= 0 {
            return None;
        }
        let part: &[u8] = if self.partition_free { &[] } else { partition };
        if let Some((t, p, s)) = &self.last {
            if *t == total_buckets && p == part {
                return s.clone();
            }
        }
        let selection = match self.buckets.get(&total_buckets).and_then(|m| m.get(part)) {
            Some(s) => s.clone(),
            None => {
                let rows = self.key_rows(part, Some(values));
                let selection = self.hash_rows(rows.as_ref().map(|r| r.as_slice()), total_buckets);
                self.buckets
                    .entry(total_buckets)
                    .or_default()
                    .insert(part.to_vec(), selection.clone());
                selection
            }
        };
        self.last = Some((total_buckets, part.to_vec(), selection.clone()));
        selection
    }

    /// Buckets that hold every matching row of **any** partition for `total_buckets` (leaves on
    /// partition columns count as true): a superset of each partition's [`select`](Self::select).
    pub fn select_any_partition(&self, total_buckets: i32) -> Selection {
        if total_buckets <= 0 {
            return None;
        }
        let resolved = self.resolve(&self.predicate, None);
        let rows = candidates(&resolved, &self.key_fields).and_then(|c| self.encode_rows(&c));
        self.hash_rows(rows.as_deref(), total_buckets)
    }

    fn hash_rows(&self, rows: Option<&[BinaryRow]>, total_buckets: i32) -> Selection {
        let mut set = HashSet::new();
        for r in rows? {
            // Pruning fails open: a hash error keeps every bucket.
            set.insert(self.function.bucket(r, total_buckets).ok()?);
        }
        Some(Arc::new(set))
    }

    fn key_rows(&mut self, part: &[u8], values: Option<&[Option<Datum>]>) -> KeyRows {
        if let Some(r) = self.rows.get(part) {
            return r.clone();
        }
        let resolved = self.resolve(&self.predicate, values);
        let rows = candidates(&resolved, &self.key_fields)
            .and_then(|c| self.encode_rows(&c))
            .map(Arc::new);
        self.rows.insert(part.to_vec(), rows.clone());
        rows
    }

    /// Replaces leaves on partition columns by their truth value in the partition with
    /// `values`, or by `AlwaysTrue` without values (a broadening, as the tree has no `NOT`).
    fn resolve(&self, p: &BoundPredicate, values: Option<&[Option<Datum>]>) -> BoundPredicate {
        match p {
            BoundPredicate::And(cs) => {
                BoundPredicate::and_all(cs.iter().map(|c| self.resolve(c, values)))
            }
            BoundPredicate::Or(cs) => {
                BoundPredicate::or_all(cs.iter().map(|c| self.resolve(c, values)))
            }
            BoundPredicate::Leaf { field, .. } if self.partition_ids.contains(&field.id) => {
                // Exact on partition values; unsure (or an error) counts as true.
                match values.map(|v| eval_partition(p, &self.partition_fields, v)) {
                    Some(Ok(Prune::CannotMatch)) => BoundPredicate::AlwaysFalse,
                    _ => BoundPredicate::AlwaysTrue,
                }
            }
            other => other.clone(),
        }
    }

    /// Key rows of the cartesian product, or `None` above [`MAX_KEY_ROWS`] or on an encoding
    /// error.
    fn encode_rows(&self, per_key: &[Vec<Datum>]) -> Option<Vec<BinaryRow>> {
        let total = per_key
            .iter()
            .try_fold(1usize, |acc, v| acc.checked_mul(v.len()))?;
        if total > MAX_KEY_ROWS {
            return None;
        }
        let mut rows = Vec::with_capacity(total);
        let mut combo: Vec<Option<Datum>> = Vec::with_capacity(per_key.len());
        product(per_key, &mut combo, &mut |values| {
            rows.push(BinaryRow::encode(values, &self.key_types)?);
            Ok(())
        })
        .ok()?;
        Some(rows)
    }
}

/// Key types the bucket-key row can hold for pruning (paimon-cpp's list plus TIME): the types
/// `hive` hashes, plus the time types the other functions hash through `BinaryRow`.
fn supported_key_type(t: &DataType) -> bool {
    hive_supports(t)
        || matches!(
            t.kind,
            TypeKind::Time(_) | TypeKind::Timestamp(_) | TypeKind::LocalZonedTimestamp(_)
        )
}

fn product(
    per_key: &[Vec<Datum>],
    combo: &mut Vec<Option<Datum>>,
    emit: &mut dyn FnMut(&[Option<Datum>]) -> Result<()>,
) -> Result<()> {
    match per_key.split_first() {
        None => emit(combo),
        Some((first, rest)) => {
            for v in first {
                combo.push(Some(v.clone()));
                product(rest, combo, emit)?;
                combo.pop();
            }
            Ok(())
        }
    }
}

/// Equality values of one conjunct on a single field, if it is `=`, `IN` or an OR of those.
fn equalities(p: &BoundPredicate) -> Option<(i32, Vec<Datum>)> {
    match p {
        BoundPredicate::Leaf {
            field,
            op: LeafOp::Eq(v),
        } => Some((field.id, vec![v.clone()])),
        BoundPredicate::Leaf {
            field,
            op: LeafOp::In(vs),
        } => Some((field.id, vs.clone())),
        BoundPredicate::Or(children) => {
            let mut id = None;
            let mut all = Vec::new();
            for c in children {
                let (cid, vs) = equalities(c)?;
                if id.is_some_and(|i| i != cid) {
                    return None;
                }
                id = Some(cid);
                all.extend(vs);
            }
            Some((id?, all))
        }
        _ => None,
    }
}

/// Candidate values per key field (in key order, converted to the key types), or `None` when
/// some key is not pinned or a literal makes hashing unsafe. An empty list means no row can
/// match.
fn candidates(p: &BoundPredicate, keys: &[DataField]) -> Option<Vec<Vec<Datum>>> {
    if matches!(p, BoundPredicate::AlwaysFalse) {
        return Some(keys.iter().map(|_| Vec::new()).collect());
    }
    let mut per_id: HashMap<i32, Vec<Datum>> = HashMap::new();
    for conjunct in p.split_and() {
        let Some((id, vs)) = equalities(&conjunct) else {
            continue;
        };
        let Some(key) = keys.iter().find(|k| k.id == id) else {
            continue;
        };
        let vs = vs
            .into_iter()
            .map(|v| to_key_datum(v, &key.data_type))
            .collect::<Option<Vec<_>>>()?;
        let vs = widen_zeros(vs)?;
        let merged = match per_id.remove(&id) {
            None => vs,
            Some(prev) => prev
                .into_iter()
                .filter(|a| vs.iter().any(|b| same_value(a, b)))
                .collect(),
        };
        per_id.insert(id, dedup(merged));
    }
    keys.iter().map(|k| per_id.remove(&k.id)).collect()
}

/// `v` as a value of `ty` when the conversion is exact; `None` otherwise (no pruning).
pub fn to_key_datum(v: Datum, ty: &DataType) -> Option<Datum> {
    use TypeKind as K;
    let int = |v: &Datum| -> Option<i128> {
        match v {
            Datum::TinyInt(x) => Some(i128::from(*x)),
            Datum::SmallInt(x) => Some(i128::from(*x)),
            Datum::Int(x) => Some(i128::from(*x)),
            Datum::BigInt(x) => Some(i128::from(*x)),
            _ => None,
        }
    };
    Some(match (&ty.kind, v) {
        (K::Boolean, v @ Datum::Boolean(_)) => v,
        (K::TinyInt, v) => Datum::TinyInt(i8::try_from(int(&v)?).ok()?),
        (K::SmallInt, v) => Datum::SmallInt(i16::try_from(int(&v)?).ok()?),
        (K::Int, v) => Datum::Int(i32::try_from(int(&v)?).ok()?),
        (K::BigInt, v) => Datum::BigInt(i64::try_from(int(&v)?).ok()?),
        (K::Float, v @ Datum::Float(_)) => v,
        (K::Float, Datum::Double(d)) => {
            let f = d as f32;
            (f64::from(f) == d || d.is_nan()).then_some(Datum::Float(f))?
        }
        (K::Double, v @ Datum::Double(_)) => v,
        (K::Double, Datum::Float(f)) => Datum::Double(f64::from(f)),
        (K::Decimal { precision, scale }, Datum::Decimal(d)) => {
            Datum::Decimal(d.rescale(*precision, *scale)?)
        }
        (K::Decimal { precision, scale }, v) => {
            let d = crate::spec::datum::Decimal {
                unscaled: int(&v)?,
                precision: 38,
                scale: 0,
            };
            Datum::Decimal(d.rescale(*precision, *scale)?)
        }
        (K::Date, v @ Datum::Date(_)) | (K::Time(_), v @ Datum::Time(_)) => v,
        (K::Char(_) | K::VarChar(_), v @ Datum::String(_)) => v,
        (K::Binary(_) | K::VarBinary(_), v @ Datum::Binary(_)) => v,
        (K::Timestamp(p), Datum::Timestamp(ts)) if fits_precision(ts.nanos, *p) => {
            Datum::Timestamp(ts)
        }
        (K::LocalZonedTimestamp(p), Datum::LocalZonedTimestamp(ts))
            if fits_precision(ts.nanos, *p) =>
        {
            Datum::LocalZonedTimestamp(ts)
        }
        _ => return None,
    })
}

/// Whether `nanos` (of the millisecond) has no digits beyond `precision` fraction digits.
fn fits_precision(nanos: u32, precision: u32) -> bool {
    let unit = 10u32
        .checked_pow(9u32.saturating_sub(precision))
        .unwrap_or(1);
    nanos % unit.max(1) == 0
}

/// Rejects NaN; adds the other zero for ±0.0 (different hashes, may compare equal).
fn widen_zeros(vs: Vec<Datum>) -> Option<Vec<Datum>> {
    let mut out = Vec::with_capacity(vs.len());
    for v in vs {
        match v {
            Datum::Float(f) if f.is_nan() => return None,
            Datum::Double(f) if f.is_nan() => return None,
            // Float literal patterns compare with `==`, so `0.0` also matches `-0.0`.
            Datum::Float(0.0) => out.extend([Datum::Float(0.0), Datum::Float(-0.0)]),
            Datum::Double(0.0) => {
                out.extend([Datum::Double(0.0), Datum::Double(-0.0)]);
            }
            other => out.push(other),
        }
    }
    Some(out)
}

/// Identity for intersecting and deduplicating candidates: bitwise for floats (so both zeros
/// stay), by value otherwise (literals already have the key type).
fn same_value(a: &Datum, b: &Datum) -> bool {
    match (a, b) {
        (Datum::Float(x), Datum::Float(y)) => x.to_bits() == y.to_bits(),
        (Datum::Double(x), Datum::Double(y)) => x.to_bits() == y.to_bits(),
        (x, y) => x == y,
    }
}

fn dedup(vs: Vec<Datum>) -> Vec<Datum> {
    let mut out: Vec<Datum> = Vec::with_capacity(vs.len());
    for v in vs {
        if !out.iter().any(|o| same_value(o, &v)) {
            out.push(v);
        }
    }
    out
}

#[cfg(test)]
#[path = "selector_tests.rs"]
mod tests;
