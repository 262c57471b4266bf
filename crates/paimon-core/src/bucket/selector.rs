//! Bucket selection: the fixed buckets that can hold rows matching the scan predicate.
//!
//! Mirrors Java `org.apache.paimon.operation.BucketSelectConverter` / `BucketSelector` and
//! paimon-cpp's `BucketSelectConverter` (Paimon 2.0). Per partition, conjuncts on partition
//! columns are resolved to constants first, so `(dt = 'a' AND k = 1) OR (dt = 'b' AND k = 2)`
//! selects one bucket in each partition. Every bucket key must then be pinned by `=`, `IN`, or an
//! OR of those on the same key (values intersected across conjuncts); candidate key rows are the
//! cartesian product (at most [`MAX_KEY_ROWS`]), encoded as Java `BinaryRow`s with the current
//! schema's key types and hashed with each manifest entry's own total bucket count.
//!
//! Invariant: never excludes a bucket holding a matching row. Anything uncertain (NaN literals,
//! too many combinations, a key not pinned) selects no buckets to drop. Divergence: a `±0.0`
//! float literal selects the buckets of both zeros (they hash differently but compare equal).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use super::function::{BucketFunction, BucketFunctionType};
use crate::expr::{eval_partition, BoundPredicate, LeafOp, Prune};
use crate::spec::binary_row::BinaryRow;
use crate::spec::types::DataField;
use crate::spec::{Datum, TableSchema};
use crate::Result;

/// Most candidate key rows before pruning is given up (Java `MAX_VALUES`).
pub const MAX_KEY_ROWS: usize = 1000;

/// Selected buckets of one (partition, total bucket count); `None` = keep every bucket.
pub type Selection = Option<Arc<HashSet<i32>>>;

/// Infers buckets from a predicate, per partition and per total bucket count.
#[derive(Debug)]
pub struct BucketSelector {
    key_fields: Vec<DataField>,
    function: BucketFunction,
    function_type: BucketFunctionType,
    predicate: BoundPredicate,
    partition_fields: Vec<DataField>,
    partition_ids: BTreeSet<i32>,
    rows: HashMap<Vec<u8>, Option<Arc<Vec<BinaryRow>>>>,
    buckets: HashMap<(Vec<u8>, i32), Selection>,
}

impl BucketSelector {
    /// A selector for `schema`'s bucket keys, or `None` when the table's bucket keys are empty.
    ///
    /// Errors when the bucket function cannot hash the key types (as paimon-cpp does).
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
        let function = BucketFunction::new(
            function_type,
            key_fields.iter().map(|f| f.data_type.clone()).collect(),
        )?;
        let partition_fields = schema.partition_fields()?;
        Ok(Some(BucketSelector {
            partition_ids: partition_fields.iter().map(|f| f.id).collect(),
            key_fields,
            function,
            function_type,
            predicate: predicate.clone(),
            partition_fields,
            rows: HashMap::new(),
            buckets: HashMap::new(),
        }))
    }

    /// Whether files written under `other` can be tested with this selector: the same ordered
    /// bucket-key field ids and types and the same bucket function.
    pub fn compatible_with(&self, other: &TableSchema, other_function: BucketFunctionType) -> bool {
        if other_function != self.function_type {
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

    /// The buckets to keep in `partition` (serialized row with decoded `values`) for an entry
    /// written with `total_buckets`; `None` keeps every bucket.
    pub fn select(
        &mut self,
        partition: &[u8],
        values: &[Option<Datum>],
        total_buckets: i32,
    ) -> Result<Selection> {
        if total_buckets <= 0 {
            return Ok(None);
        }
        let key = (partition.to_vec(), total_buckets);
        if let Some(s) = self.buckets.get(&key) {
            return Ok(s.clone());
        }
        let selection = match self.key_rows(partition, values)? {
            None => None,
            Some(rows) => {
                let mut set = HashSet::new();
                for r in rows.iter() {
                    set.insert(self.function.bucket(r, total_buckets)?);
                }
                Some(Arc::new(set))
            }
        };
        self.buckets.insert(key, selection.clone());
        Ok(selection)
    }

    fn key_rows(
        &mut self,
        partition: &[u8],
        values: &[Option<Datum>],
    ) -> Result<Option<Arc<Vec<BinaryRow>>>> {
        if let Some(r) = self.rows.get(partition) {
            return Ok(r.clone());
        }
        let resolved = self.resolve_partition(&self.predicate, values)?;
        let rows = match candidates(&resolved, &self.key_fields) {
            None => None,
            Some(per_key) => self.encode_rows(&per_key)?.map(Arc::new),
        };
        self.rows.insert(partition.to_vec(), rows.clone());
        Ok(rows)
    }

    /// Replaces leaves on partition columns by their truth value in this partition.
    fn resolve_partition(
        &self,
        p: &BoundPredicate,
        values: &[Option<Datum>],
    ) -> Result<BoundPredicate> {
        Ok(match p {
            BoundPredicate::And(children) => fold(children, values, self, true)?,
            BoundPredicate::Or(children) => fold(children, values, self, false)?,
            BoundPredicate::Leaf { field, .. } if self.partition_ids.contains(&field.id) => {
                match eval_partition(p, &self.partition_fields, values)? {
                    Prune::CannotMatch => BoundPredicate::AlwaysFalse,
                    Prune::MightMatch => BoundPredicate::AlwaysTrue,
                }
            }
            other => other.clone(),
        })
    }

    fn encode_rows(&self, per_key: &[Vec<Datum>]) -> Result<Option<Vec<BinaryRow>>> {
        let mut total = 1usize;
        for v in per_key {
            total = total.saturating_mul(v.len());
        }
        if total > MAX_KEY_ROWS {
            return Ok(None);
        }
        let types: Vec<_> = self
            .key_fields
            .iter()
            .map(|f| f.data_type.clone())
            .collect();
        let mut rows = Vec::with_capacity(total);
        let mut combo: Vec<Option<Datum>> = Vec::with_capacity(per_key.len());
        product(per_key, &mut combo, &mut |values| {
            rows.push(BinaryRow::encode(values, &types)?);
            Ok(())
        })?;
        Ok(Some(rows))
    }
}

fn fold(
    children: &[BoundPredicate],
    values: &[Option<Datum>],
    sel: &BucketSelector,
    is_and: bool,
) -> Result<BoundPredicate> {
    let mut out = Vec::new();
    for c in children {
        match sel.resolve_partition(c, values)? {
            BoundPredicate::AlwaysTrue if is_and => {}
            BoundPredicate::AlwaysFalse if !is_and => {}
            BoundPredicate::AlwaysTrue => return Ok(BoundPredicate::AlwaysTrue),
            BoundPredicate::AlwaysFalse => return Ok(BoundPredicate::AlwaysFalse),
            other => out.push(other),
        }
    }
    Ok(match out.len() {
        0 if is_and => BoundPredicate::AlwaysTrue,
        0 => BoundPredicate::AlwaysFalse,
        1 => out.pop().unwrap_or(BoundPredicate::AlwaysTrue),
        _ if is_and => BoundPredicate::And(out),
        _ => BoundPredicate::Or(out),
    })
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

/// Candidate values per key field (in key order), or `None` when some key is not pinned or a
/// literal makes hashing unsafe. An empty list means no row can match.
fn candidates(p: &BoundPredicate, keys: &[DataField]) -> Option<Vec<Vec<Datum>>> {
    if matches!(p, BoundPredicate::AlwaysFalse) {
        return Some(keys.iter().map(|_| Vec::new()).collect());
    }
    let mut per_id: HashMap<i32, Vec<Datum>> = HashMap::new();
    for conjunct in p.split_and() {
        let Some((id, vs)) = equalities(&conjunct) else {
            continue;
        };
        if !keys.iter().any(|k| k.id == id) {
            continue;
        }
        let vs = widen_zeros(vs)?;
        let merged = match per_id.remove(&id) {
            None => vs,
            Some(prev) => prev
                .into_iter()
                .filter(|a| vs.iter().any(|b| b == a))
                .collect(),
        };
        per_id.insert(id, dedup(merged));
    }
    keys.iter().map(|k| per_id.remove(&k.id)).collect()
}

/// Rejects NaN; adds the other zero for ±0.0 (equal in SQL, different hashes).
fn widen_zeros(vs: Vec<Datum>) -> Option<Vec<Datum>> {
    let mut out = Vec::with_capacity(vs.len());
    for v in vs {
        match v {
            Datum::Float(f) if f.is_nan() => return None,
            Datum::Double(f) if f.is_nan() => return None,
            Datum::Float(f) => match f == 0.0 {
                true => out.extend([Datum::Float(0.0), Datum::Float(-0.0)]),
                false => out.push(Datum::Float(f)),
            },
            Datum::Double(f) => match f == 0.0 {
                true => out.extend([Datum::Double(0.0), Datum::Double(-0.0)]),
                false => out.push(Datum::Double(f)),
            },
            other => out.push(other),
        }
    }
    Some(out)
}

fn dedup(vs: Vec<Datum>) -> Vec<Datum> {
    let mut out: Vec<Datum> = Vec::with_capacity(vs.len());
    for v in vs {
        // Bitwise identity for floats, so 0.0 and -0.0 both stay.
        let dup = out.iter().any(|o| match (o, &v) {
            (Datum::Float(a), Datum::Float(b)) => a.to_bits() == b.to_bits(),
            (Datum::Double(a), Datum::Double(b)) => a.to_bits() == b.to_bits(),
            (a, b) => a == b,
        });
        if !dup {
            out.push(v);
        }
    }
    out
}

impl BucketSelector {
    /// The bucket function type.
    pub fn function_type(&self) -> BucketFunctionType {
        self.function_type
    }
}
