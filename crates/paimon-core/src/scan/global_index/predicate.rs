//! The scan predicate projected onto indexed fields and its per-file evaluation (Java
//! `org.apache.paimon.predicate.PredicateProjectionConverter`,
//! `org.apache.paimon.globalindex.GlobalIndexEvaluator`; `docs/format.md` "Primary-key global
//! index"). Pure: leaves are answered by a caller-supplied [`LeafSource`].

use std::collections::HashSet;

use roaring::RoaringTreemap;

use crate::expr::{BoundPredicate, LeafOp};

/// A predicate over indexed fields only.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum IndexPredicate {
    /// One leaf on an indexed field.
    Leaf {
        /// Field id.
        field_id: i32,
        /// The condition.
        op: LeafOp,
    },
    /// All children.
    And(Vec<IndexPredicate>),
    /// Any child.
    Or(Vec<IndexPredicate>),
}

impl IndexPredicate {
    /// The distinct leaf operations on `field_id`.
    pub fn leaves_of(&self, field_id: i32, out: &mut Vec<LeafOp>) {
        match self {
            IndexPredicate::Leaf { field_id: f, op } if *f == field_id => {
                if !out.contains(op) {
                    out.push(op.clone());
                }
            }
            IndexPredicate::Leaf { .. } => {}
            IndexPredicate::And(cs) | IndexPredicate::Or(cs) => {
                cs.iter().for_each(|c| c.leaves_of(field_id, out));
            }
        }
    }

    /// The field ids of the leaves.
    pub fn field_ids(&self, out: &mut HashSet<i32>) {
        match self {
            IndexPredicate::Leaf { field_id, .. } => {
                out.insert(*field_id);
            }
            IndexPredicate::And(cs) | IndexPredicate::Or(cs) => {
                cs.iter().for_each(|c| c.field_ids(out));
            }
        }
    }
}

/// Projects `p` onto `indexed` field ids: a leaf is kept iff its field is indexed, AND keeps
/// its convertible children, OR only when every child converts; then normalizes (flattening,
/// and dropping `IS NOT NULL` beside a null-rejecting leaf on the same field inside an AND).
pub(crate) fn project(p: &BoundPredicate, indexed: &HashSet<i32>) -> Option<IndexPredicate> {
    let projected = match p {
        BoundPredicate::AlwaysTrue | BoundPredicate::AlwaysFalse => None,
        BoundPredicate::Leaf { field, op } => {
            indexed.contains(&field.id).then(|| IndexPredicate::Leaf {
                field_id: field.id,
                op: op.clone(),
            })
        }
        BoundPredicate::And(cs) => {
            let kept: Vec<_> = cs.iter().filter_map(|c| project(c, indexed)).collect();
            compound(kept, IndexPredicate::And)
        }
        BoundPredicate::Or(cs) => {
            let kept: Option<Vec<_>> = cs.iter().map(|c| project(c, indexed)).collect();
            compound(kept?, IndexPredicate::Or)
        }
    }?;
    Some(normalize(projected))
}

fn compound(
    mut kept: Vec<IndexPredicate>,
    make: fn(Vec<IndexPredicate>) -> IndexPredicate,
) -> Option<IndexPredicate> {
    match kept.len() {
        0 => None,
        1 => kept.pop(),
        _ => Some(make(kept)),
    }
}

fn null_rejecting(op: &LeafOp) -> bool {
    !matches!(op, LeafOp::IsNull | LeafOp::IsNotNull)
}

fn normalize(p: IndexPredicate) -> IndexPredicate {
    match p {
        IndexPredicate::And(cs) => {
            let mut flat = Vec::new();
            for c in cs.into_iter().map(normalize) {
                match c {
                    IndexPredicate::And(inner) => flat.extend(inner),
                    other => flat.push(other),
                }
            }
            let rejecting: HashSet<i32> = flat
                .iter()
                .filter_map(|c| match c {
                    IndexPredicate::Leaf { field_id, op } if null_rejecting(op) => Some(*field_id),
                    _ => None,
                })
                .collect();
            flat.retain(|c| {
                !matches!(c, IndexPredicate::Leaf { field_id, op: LeafOp::IsNotNull }
                    if rejecting.contains(field_id))
            });
            compound(flat, IndexPredicate::And).unwrap_or(IndexPredicate::And(Vec::new()))
        }
        IndexPredicate::Or(cs) => {
            let mut flat = Vec::new();
            for c in cs.into_iter().map(normalize) {
                match c {
                    IndexPredicate::Or(inner) => flat.extend(inner),
                    other => flat.push(other),
                }
            }
            compound(flat, IndexPredicate::Or).unwrap_or(IndexPredicate::Or(Vec::new()))
        }
        leaf => leaf,
    }
}

/// Answers one leaf for one data file: `None` when the leaf cannot be evaluated (no group for
/// the field, no reader for the family, an unsupported literal), else the file-local positions
/// (an error means the file's evaluation failed).
pub(crate) trait LeafSource {
    /// File-local positions of the rows that may satisfy `op` on `field_id`.
    fn leaf(&mut self, field_id: i32, op: &LeafOp) -> Option<Result<RoaringTreemap, String>>;
}

/// Evaluates `p` on one file: `Ok(None)` = not evaluable (read the file normally), `Ok(Some)`
/// = a superset of the file-local positions of matching rows. AND skips non-evaluable
/// children (all of them non-evaluable: `None`) and stops once empty; OR is `None` as soon as
/// one child is.
pub(crate) fn evaluate(
    p: &IndexPredicate,
    src: &mut dyn LeafSource,
) -> Result<Option<RoaringTreemap>, String> {
    match p {
        IndexPredicate::Leaf { field_id, op } => src.leaf(*field_id, op).transpose(),
        IndexPredicate::And(cs) => {
            let mut acc: Option<RoaringTreemap> = None;
            for c in cs {
                let Some(r) = evaluate(c, src)? else { continue };
                let next = match acc {
                    None => r,
                    Some(a) => a & r,
                };
                let empty = next.is_empty();
                acc = Some(next);
                if empty {
                    break;
                }
            }
            Ok(acc)
        }
        IndexPredicate::Or(cs) => {
            let mut acc = RoaringTreemap::new();
            for c in cs {
                match evaluate(c, src)? {
                    None => return Ok(None),
                    Some(r) => acc |= r,
                }
            }
            Ok(Some(acc))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::expr::BoundField;
    use crate::spec::types::DataType;
    use crate::spec::Datum;

    fn leaf(id: i32, op: LeafOp) -> BoundPredicate {
        let data_type: DataType = serde_json::from_value(serde_json::json!("INT")).unwrap();
        BoundPredicate::Leaf {
            field: BoundField {
                id,
                name: format!("f{id}"),
                data_type,
            },
            op,
        }
    }

    fn ids(v: &[i32]) -> HashSet<i32> {
        v.iter().copied().collect()
    }

    #[test]
    fn projection_rules() {
        let eq1 = leaf(1, LeafOp::Eq(Datum::Int(5)));
        let tag = leaf(2, LeafOp::Eq(Datum::Int(1)));
        let nn1 = leaf(1, LeafOp::IsNotNull);
        let and = BoundPredicate::And(vec![eq1.clone(), tag.clone()]);
        let got = project(&and, &ids(&[1])).unwrap();
        assert!(matches!(got, IndexPredicate::Leaf { field_id: 1, .. }));
        let or = BoundPredicate::Or(vec![eq1.clone(), tag.clone()]);
        assert_eq!(project(&or, &ids(&[1])), None);
        assert!(project(&or, &ids(&[1, 2])).is_some());
        assert_eq!(project(&tag, &ids(&[1])), None);
        // IS NOT NULL beside a null-rejecting leaf on the same field is dropped.
        let and = BoundPredicate::And(vec![nn1.clone(), eq1.clone()]);
        let got = project(&and, &ids(&[1])).unwrap();
        assert!(matches!(
            got,
            IndexPredicate::Leaf {
                op: LeafOp::Eq(_),
                ..
            }
        ));
        let and = BoundPredicate::And(vec![nn1, leaf(1, LeafOp::IsNull)]);
        assert!(
            matches!(project(&and, &ids(&[1])), Some(IndexPredicate::And(cs)) if cs.len() == 2)
        );
    }

    struct Stub(HashMap<i32, Option<Vec<u64>>>, usize);

    impl LeafSource for Stub {
        fn leaf(&mut self, field_id: i32, _op: &LeafOp) -> Option<Result<RoaringTreemap, String>> {
            self.1 += 1;
            match self.0.get(&field_id)? {
                Some(v) => Some(Ok(v.iter().copied().collect())),
                None => Some(Err("boom".into())),
            }
        }
    }

    fn l(id: i32) -> IndexPredicate {
        IndexPredicate::Leaf {
            field_id: id,
            op: LeafOp::IsNull,
        }
    }

    #[test]
    fn and_or_null_semantics() {
        let mut s = Stub(
            HashMap::from([(1, Some(vec![1, 2, 3])), (2, Some(vec![2, 9])), (4, None)]),
            0,
        );
        let pos = |r: Option<RoaringTreemap>| r.map(|r| r.iter().collect::<Vec<_>>());
        let and = IndexPredicate::And(vec![l(1), l(2), l(3)]);
        assert_eq!(pos(evaluate(&and, &mut s).unwrap()), Some(vec![2]));
        let and = IndexPredicate::And(vec![l(3), l(5)]);
        assert_eq!(pos(evaluate(&and, &mut s).unwrap()), None);
        let or = IndexPredicate::Or(vec![l(1), l(2)]);
        assert_eq!(pos(evaluate(&or, &mut s).unwrap()), Some(vec![1, 2, 3, 9]));
        let or = IndexPredicate::Or(vec![l(1), l(3)]);
        assert_eq!(pos(evaluate(&or, &mut s).unwrap()), None);
        assert!(evaluate(&IndexPredicate::And(vec![l(1), l(4)]), &mut s).is_err());
        // Early stop once empty.
        let mut s = Stub(HashMap::from([(1, Some(vec![])), (2, Some(vec![1]))]), 0);
        let and = IndexPredicate::And(vec![l(1), l(2)]);
        assert_eq!(pos(evaluate(&and, &mut s).unwrap()), Some(vec![]));
        assert_eq!(s.1, 1);
    }
}
