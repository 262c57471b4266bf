//! Exact evaluation of a bound predicate on one partition's values.
//!
//! Mirrors Java `org.apache.paimon.partition.PartitionPredicate` (Paimon 2.0) evaluated on a
//! partition `BinaryRow`: leaves on partition fields are decided exactly (SQL semantics, Java
//! value order, a null partition value matches only `IS NULL`); leaves on other fields are
//! unknown and count as "might match". The accessor is by field id: `partition_fields[i]` is the
//! field whose value is `values[i]`, so schema evolution only changes the accessor.
//! Fails open: a value of an unexpected kind makes its leaf unknown.

use crate::expr::bound::{BoundField, BoundPredicate, LeafOp};
use crate::expr::visitors::{visit, BoundPredicateVisitor, Prune};
use crate::spec::datum::Datum;
use crate::spec::types::DataField;
use crate::{Error, Result};

/// `CannotMatch` iff no row of the partition with `values` can satisfy `pred`.
///
/// `partition_fields` and `values` are parallel (an `InvalidArgument` error otherwise).
pub fn eval_partition(
    pred: &BoundPredicate,
    partition_fields: &[DataField],
    values: &[Option<Datum>],
) -> Result<Prune> {
    if partition_fields.len() != values.len() {
        return Err(Error::invalid_argument(format!(
            "partition evaluator got {} values for {} partition fields",
            values.len(),
            partition_fields.len()
        )));
    }
    let mut ev = PartitionEvaluator {
        fields: partition_fields,
        values,
    };
    Ok(match visit(pred, &mut ev)? {
        Tri::False => Prune::CannotMatch,
        Tri::True | Tri::Unknown => Prune::MightMatch,
    })
}

/// Three-valued outcome: decided, or depends on non-partition data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tri {
    True,
    False,
    Unknown,
}

struct PartitionEvaluator<'a> {
    fields: &'a [DataField],
    values: &'a [Option<Datum>],
}

impl BoundPredicateVisitor for PartitionEvaluator<'_> {
    type Output = Tri;

    fn always_true(&mut self) -> Result<Tri> {
        Ok(Tri::True)
    }

    fn always_false(&mut self) -> Result<Tri> {
        Ok(Tri::False)
    }

    fn and(&mut self, children: Vec<Tri>) -> Result<Tri> {
        Ok(if children.contains(&Tri::False) {
            Tri::False
        } else if children.iter().all(|c| *c == Tri::True) {
            Tri::True
        } else {
            Tri::Unknown
        })
    }

    fn or(&mut self, children: Vec<Tri>) -> Result<Tri> {
        Ok(if children.contains(&Tri::True) {
            Tri::True
        } else if children.iter().all(|c| *c == Tri::False) {
            Tri::False
        } else {
            Tri::Unknown
        })
    }

    fn leaf(&mut self, field: &BoundField, op: &LeafOp) -> Result<Tri> {
        let Some(pos) = self.fields.iter().position(|f| f.id == field.id) else {
            return Ok(Tri::Unknown);
        };
        let value = self.values.get(pos).and_then(Option::as_ref);
        Ok(match op.eval(value) {
            Some(true) => Tri::True,
            Some(false) => Tri::False,
            None => Tri::Unknown,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{parse_predicate, Predicate};
    use crate::spec::schema::TableSchema;
    use crate::spec::types::{DataType, TypeKind};

    fn schema() -> TableSchema {
        let f = |id, name: &str, kind| DataField::new(id, name, DataType::nullable(kind));
        TableSchema {
            version: 3,
            id: 0,
            fields: vec![
                f(0, "id", TypeKind::BigInt),
                f(1, "dt", TypeKind::VarChar(u32::MAX >> 1)),
                f(2, "hr", TypeKind::Int),
            ],
            highest_field_id: 2,
            partition_keys: vec!["dt".into(), "hr".into()],
            primary_keys: vec![],
            options: Default::default(),
            comment: None,
            time_millis: 0,
        }
    }

    fn eval(sql: &str, dt: Option<&str>, hr: Option<i32>) -> Prune {
        let s = schema();
        let pred = parse_predicate(sql).unwrap().bind(&s).unwrap();
        let parts = s.partition_fields().unwrap();
        let values = [dt.map(|d| Datum::String(d.into())), hr.map(Datum::Int)];
        eval_partition(&pred, &parts, &values).unwrap()
    }

    use Prune::{CannotMatch as No, MightMatch as Yes};

    #[test]
    fn exact_on_partition_values() {
        let day = Some("2024-01-01");
        assert_eq!(eval("dt = '2024-01-01'", day, Some(1)), Yes);
        assert_eq!(eval("dt = '2024-01-02'", day, Some(1)), No);
        assert_eq!(eval("dt <> '2024-01-01'", day, Some(1)), No);
        assert_eq!(eval("hr > 1", day, Some(1)), No);
        assert_eq!(eval("hr >= 1", day, Some(1)), Yes);
        assert_eq!(eval("hr IN (2, 3)", day, Some(1)), No);
        assert_eq!(eval("hr NOT IN (2, 3)", day, Some(1)), Yes);
        assert_eq!(eval("hr BETWEEN 0 AND 1", day, Some(1)), Yes);
        assert_eq!(eval("hr NOT BETWEEN 0 AND 1", day, Some(1)), No);
        assert_eq!(eval("dt LIKE '2024-01%'", day, Some(1)), Yes);
        assert_eq!(eval("dt LIKE '2024-02%'", day, Some(1)), No);
        assert_eq!(eval("dt NOT LIKE '2024-01%'", day, Some(1)), No);
        assert_eq!(eval("NOT (dt = '2024-01-01' AND hr = 1)", day, Some(1)), No);
        assert_eq!(eval("dt = '2024-01-02' OR hr = 1", day, Some(1)), Yes);
    }

    #[test]
    fn null_partition_values_follow_sql() {
        assert_eq!(eval("hr IS NULL", Some("d"), None), Yes);
        assert_eq!(eval("hr IS NOT NULL", Some("d"), None), No);
        assert_eq!(eval("hr = 1", Some("d"), None), No);
        assert_eq!(eval("hr <> 1", Some("d"), None), No);
        assert_eq!(eval("NOT (hr = 1)", Some("d"), None), No);
        assert_eq!(eval("hr NOT IN (1, 2)", Some("d"), None), No);
        assert_eq!(eval("hr IS NULL", Some("d"), Some(3)), No);
    }

    #[test]
    fn non_partition_leaves_might_match() {
        let day = Some("2024-01-01");
        assert_eq!(eval("id = 5", day, Some(1)), Yes);
        assert_eq!(eval("id = 5 AND hr = 2", day, Some(1)), No);
        assert_eq!(eval("id = 5 OR hr = 2", day, Some(1)), Yes);
        assert_eq!(eval("NOT (id = 5 OR hr = 1)", day, Some(1)), No);
        assert_eq!(eval("FALSE", day, Some(1)), No);
        assert_eq!(eval("TRUE", day, Some(1)), Yes);
    }

    #[test]
    fn accessor_is_by_field_id_not_position() {
        // The partition row lists hr before dt; the predicate still finds each by id.
        let s = schema();
        let pred = Predicate::eq("dt", crate::expr::Literal::string("a"))
            .bind(&s)
            .unwrap();
        let parts = vec![s.fields[2].clone(), s.fields[1].clone()];
        let vals = [Some(Datum::Int(1)), Some(Datum::String("a".into()))];
        assert_eq!(eval_partition(&pred, &parts, &vals).unwrap(), Yes);
        let vals = [Some(Datum::Int(1)), Some(Datum::String("b".into()))];
        assert_eq!(eval_partition(&pred, &parts, &vals).unwrap(), No);
        assert!(eval_partition(&pred, &parts, &vals[..1]).is_err());
    }
}
