//! Tests of binding: resolution by name to field id, normalisation, null folding.

use super::*;
use crate::expr::bound::BoundField;
use crate::expr::parse_predicate;
use crate::spec::types::DataType;
use crate::ErrorKind;

fn field(id: i32, name: &str, kind: TypeKind, nullable: bool) -> DataField {
    DataField::new(id, name, DataType::nullable(kind).with_nullable(nullable))
}

fn schema(fields: Vec<DataField>) -> TableSchema {
    TableSchema {
        version: 3,
        id: 0,
        highest_field_id: fields.iter().map(|f| f.id).max().unwrap_or(0),
        fields,
        partition_keys: vec![],
        primary_keys: vec![],
        options: Default::default(),
        comment: None,
        time_millis: 0,
    }
}

fn base() -> TableSchema {
    schema(vec![
        field(0, "id", TypeKind::BigInt, false),
        field(1, "name", TypeKind::VarChar(100), true),
        field(
            2,
            "Price",
            TypeKind::Decimal {
                precision: 10,
                scale: 2,
            },
            true,
        ),
        field(3, "dt", TypeKind::Date, true),
        field(
            4,
            "tags",
            TypeKind::Array(Box::new(DataType::nullable(TypeKind::Int))),
            true,
        ),
    ])
}

fn bind(sql: &str) -> Result<BoundPredicate> {
    parse_predicate(sql)?.bind(&base())
}

fn b(sql: &str) -> String {
    bind(sql)
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .to_string()
}

#[test]
fn binding_is_by_field_id_across_reorder_and_rename() {
    let s1 = base();
    // Schema 2: columns reordered, `name` renamed to `full_name`, a new column inserted first.
    let s2 = schema(vec![
        field(7, "extra", TypeKind::Int, true),
        field(3, "dt", TypeKind::Date, true),
        field(1, "full_name", TypeKind::VarChar(100), true),
        field(0, "id", TypeKind::BigInt, false),
    ]);
    let p1 = parse_predicate("name = 'x' AND id > 3")
        .unwrap()
        .bind(&s1)
        .unwrap();
    let p2 = parse_predicate("full_name = 'x' AND id > 3")
        .unwrap()
        .bind(&s2)
        .unwrap();
    let ids = |p: &BoundPredicate| {
        p.split_and()
            .into_iter()
            .map(|c| match c {
                BoundPredicate::Leaf { field, op } => (field.id, op),
                other => panic!("{other:?}"),
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&p1), ids(&p2));
    assert_eq!(p1.field_ids(), [0, 1].into());
    // The same name can mean another field in another schema: ids tell them apart.
    let err = parse_predicate("name = 'x'")
        .unwrap()
        .bind(&s2)
        .unwrap_err();
    assert!(err.to_string().contains("unknown column 'name'"), "{err}");
}

#[test]
fn unknown_and_ambiguous_columns_are_errors() {
    let e = bind("nope = 1").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("unknown column 'nope'"), "{e}");
    assert!(e.to_string().contains("id, name, Price"), "{e}");
    // Case-insensitive fallback when unique; quoted names are exact.
    assert_eq!(b("price = 1.5"), "Price = 1.50");
    assert_eq!(b("\"Price\" = 1.5"), "Price = 1.50");
    let e = bind("\"price\" = 1").unwrap_err();
    assert!(e.to_string().contains("unknown column '\"price\"'"), "{e}");
    let s = schema(vec![
        field(0, "a", TypeKind::Int, true),
        field(1, "A", TypeKind::Int, true),
    ]);
    let bound = parse_predicate("A = 1").unwrap().bind(&s).unwrap();
    assert_eq!(bound.field_ids(), [1].into());
    let e = parse_predicate("\"a\" = 1 AND b = 2")
        .unwrap()
        .bind(&s)
        .unwrap_err();
    assert!(e.to_string().contains("unknown column 'b'"));
    let s3 = schema(vec![
        field(0, "Ab", TypeKind::Int, true),
        field(1, "aB", TypeKind::Int, true),
    ]);
    let e = parse_predicate("ab = 1").unwrap().bind(&s3).unwrap_err();
    assert!(e.to_string().contains("ambiguous"), "{e}");
}

#[test]
fn literal_errors_name_the_column() {
    let e = bind("Price = 0.123").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("column: Price"), "{e}");
    assert!(e.to_string().contains("DECIMAL(10, 2)"), "{e}");
    let e = bind("id IN (1, 2.5)").unwrap_err();
    assert!(e.to_string().contains("not an integer"), "{e}");
    let e = bind("tags = 1").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    assert_eq!(b("tags IS NULL"), "tags IS NULL");
    let e = bind("id LIKE 'a%'").unwrap_err();
    assert!(
        e.to_string().contains("LIKE needs a character column"),
        "{e}"
    );
}

#[test]
fn not_is_pushed_into_leaves() {
    assert_eq!(b("NOT id < 3"), "id >= 3");
    assert_eq!(b("NOT (id = 3)"), "id <> 3");
    assert_eq!(b("NOT NOT id > 3"), "id > 3");
    assert_eq!(b("NOT id IN (1, 2)"), "id NOT IN (1, 2)");
    assert_eq!(b("NOT id NOT IN (1, 2)"), "id IN (1, 2)");
    assert_eq!(b("NOT name IS NULL"), "name IS NOT NULL");
    assert_eq!(b("NOT name LIKE 'ab%'"), "name NOT STARTS WITH 'ab'");
    assert_eq!(b("name NOT LIKE 'ab%'"), "name NOT STARTS WITH 'ab'");
    assert_eq!(
        b("NOT (id = 1 AND (name = 'a' OR dt > DATE '2024-01-01'))"),
        "(id <> 1 OR (name <> a AND dt <= 2024-01-01))"
    );
    assert_eq!(b("id BETWEEN 1 AND 5"), "(id >= 1 AND id <= 5)");
    assert_eq!(b("id NOT BETWEEN 1 AND 5"), "(id < 1 OR id > 5)");
    assert_eq!(b("NOT id NOT BETWEEN 1 AND 5"), "(id >= 1 AND id <= 5)");
}

#[test]
fn and_or_are_flattened_and_constants_folded() {
    assert_eq!(
        b("(id = 1 AND (id = 2 AND (id = 3))) AND name = 'x'"),
        "(id = 1 AND id = 2 AND id = 3 AND name = x)"
    );
    assert_eq!(
        b("id = 1 OR (id = 2 OR id = 3)"),
        "(id = 1 OR id = 2 OR id = 3)"
    );
    assert_eq!(b("id = 1 AND TRUE"), "id = 1");
    assert_eq!(b("id = 1 AND FALSE"), "FALSE");
    assert_eq!(b("id = 1 OR TRUE"), "TRUE");
    assert_eq!(b("NOT (id = 1 OR TRUE)"), "FALSE");
    assert_eq!(b("NOT FALSE"), "TRUE");
    let p = bind("(id = 1 OR id = 2) AND (name = 'a' OR FALSE)").unwrap();
    assert_eq!(p.split_and().len(), 2);
    assert!(matches!(&p.split_and()[1], BoundPredicate::Leaf { .. }));
}

#[test]
fn null_semantics_fold_to_constants() {
    // Comparisons with NULL are unknown, and so are their negations.
    assert_eq!(b("name = NULL"), "FALSE");
    assert_eq!(b("NOT (name = NULL)"), "FALSE");
    assert_eq!(b("name <> NULL OR id = 1"), "id = 1");
    assert_eq!(b("name IN ('a', NULL)"), "name = a");
    assert_eq!(b("name IN ('a', 'b', NULL, 'a')"), "name IN (a, b)");
    assert_eq!(b("name NOT IN ('a', NULL)"), "FALSE");
    assert_eq!(b("NOT name IN ('a', NULL)"), "FALSE");
    assert_eq!(b("name NOT IN ('a', 'a')"), "name <> a");
    assert_eq!(b("id BETWEEN NULL AND 5"), "FALSE");
    assert_eq!(b("id NOT BETWEEN NULL AND 5"), "id > 5");
    // IS NULL on a NOT NULL column.
    assert_eq!(b("id IS NULL"), "FALSE");
    assert_eq!(b("id IS NOT NULL"), "TRUE");
    assert_eq!(b("NOT id IS NULL"), "TRUE");
    assert_eq!(b("name LIKE '%'"), "name IS NOT NULL");
    assert_eq!(b("name NOT LIKE '%'"), "FALSE");
    let empty_in = Predicate::is_in("name", vec![]).bind(&base()).unwrap();
    assert_eq!(empty_in, BoundPredicate::AlwaysFalse);
    let empty_not_in = Predicate::not_in("name", vec![]).bind(&base()).unwrap();
    assert_eq!(empty_not_in, BoundPredicate::AlwaysTrue);
}

#[test]
fn leaves_carry_field_and_typed_literals() {
    let p = bind("Price >= 3 AND dt = '2024-01-01'").unwrap();
    let BoundPredicate::And(cs) = p else { panic!() };
    let BoundPredicate::Leaf { field, op } = &cs[0] else {
        panic!()
    };
    assert_eq!(
        field,
        &BoundField {
            id: 2,
            name: "Price".into(),
            data_type: base().fields[2].data_type.clone()
        }
    );
    assert_eq!(
        op,
        &LeafOp::GtEq(Datum::Decimal(crate::spec::datum::Decimal {
            unscaled: 300,
            precision: 10,
            scale: 2
        }))
    );
    assert_eq!(
        cs[1],
        BoundPredicate::leaf(
            BoundField {
                id: 3,
                name: "dt".into(),
                data_type: DataType::nullable(TypeKind::Date)
            },
            LeafOp::Eq(Datum::Date(19723))
        )
    );
    let fields_only = parse_predicate("dt = DATE '2024-01-01'")
        .unwrap()
        .bind_fields(&base().fields[3..4])
        .unwrap();
    assert_eq!(fields_only, cs[1]);
}
