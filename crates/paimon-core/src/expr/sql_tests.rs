//! Tests of the SQL text form.

use super::*;
use crate::ErrorKind;

fn p(sql: &str) -> Predicate {
    parse_predicate(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

fn num(s: &str) -> Literal {
    Literal::Number(s.into())
}

#[test]
fn comparison_operators_and_sides() {
    assert_eq!(p("a = 1"), Predicate::eq("a", num("1")));
    assert_eq!(p("a <> 'x'"), Predicate::not_eq("a", Literal::string("x")));
    assert_eq!(p("a != 1.50"), Predicate::not_eq("a", num("1.50")));
    assert_eq!(p("a < -3"), Predicate::lt("a", num("-3")));
    assert_eq!(p("a <= +1e3"), Predicate::lt_eq("a", num("1e3")));
    assert_eq!(p("a > 1E-2"), Predicate::gt("a", num("1E-2")));
    assert_eq!(p("a >= 0"), Predicate::gt_eq("a", num("0")));
    // Literal on the left: operator flipped.
    assert_eq!(p("5 < a"), Predicate::gt("a", num("5")));
    assert_eq!(p("(5) >= (a)"), Predicate::lt_eq("a", num("5")));
    assert_eq!(p("a = NULL"), Predicate::eq("a", Literal::Null));
    assert_eq!(
        p("flag = TRUE"),
        Predicate::eq("flag", Literal::Boolean(true))
    );
    assert_eq!(
        p("a = 12345678901234567890.123456789"),
        Predicate::eq("a", num("12345678901234567890.123456789"))
    );
}

#[test]
fn in_null_between_like() {
    assert_eq!(
        p("id IN (1, 2, -3)"),
        Predicate::is_in("id", vec![num("1"), num("2"), num("-3")])
    );
    assert_eq!(
        p("id NOT IN ('a', NULL)"),
        Predicate::not_in("id", vec![Literal::string("a"), Literal::Null])
    );
    assert_eq!(p("x IS NULL"), Predicate::is_null("x"));
    assert_eq!(p("x IS NOT NULL"), Predicate::is_not_null("x"));
    assert_eq!(
        p("x BETWEEN 1 AND 5"),
        Predicate::between("x", num("1"), num("5"))
    );
    assert_eq!(
        p("x NOT BETWEEN 1 AND 5"),
        Predicate::Between {
            column: "x".into(),
            low: num("1"),
            high: num("5"),
            negated: true
        }
    );
    assert_eq!(p("s LIKE 'abc%'"), Predicate::starts_with("s", "abc"));
    assert_eq!(
        p("s NOT LIKE 'abc%'"),
        Predicate::starts_with("s", "abc").not()
    );
    assert_eq!(
        p("s LIKE 'abc'"),
        Predicate::eq("s", Literal::string("abc"))
    );
    assert_eq!(p("s LIKE 'it''s%'"), Predicate::starts_with("s", "it's"));
    for bad in [
        "s LIKE '%abc'",
        "s LIKE 'a%c%'",
        "s LIKE 'a_c%'",
        "s ILIKE 'a%'",
    ] {
        let e = parse_predicate(bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unsupported, "{bad}: {e}");
    }
}

#[test]
fn identifiers_and_typed_literals() {
    assert_eq!(p("\"My Col\" = 1"), Predicate::eq("\"My Col\"", num("1")));
    assert_eq!(p("\"a\"\"b\" = 1"), Predicate::eq("\"a\"\"b\"", num("1")));
    assert_eq!(p("MyCol = 1"), Predicate::eq("MyCol", num("1")));
    assert_eq!(
        p("dt = DATE '2024-01-01'"),
        Predicate::eq("dt", Literal::Date("2024-01-01".into()))
    );
    assert_eq!(
        p("ts >= TIMESTAMP '2024-01-01 10:00:00.123456'"),
        Predicate::gt_eq(
            "ts",
            Literal::Timestamp("2024-01-01 10:00:00.123456".into())
        )
    );
    assert_eq!(
        p("t < TIME '10:00:00'"),
        Predicate::lt("t", Literal::string("10:00:00"))
    );
    assert_eq!(p("d = DECIMAL '1.20'"), Predicate::eq("d", num("1.20")));
    assert_eq!(
        p("b = X'0A0b'"),
        Predicate::eq(
            "b",
            Literal::Typed(crate::spec::datum::Datum::Binary(vec![10, 11]))
        )
    );
    let e = parse_predicate("a.b = 1").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    assert!(e.to_string().contains("nested column"), "{e}");
}

#[test]
fn boolean_structure_and_parentheses() {
    let a = || Predicate::eq("a", num("1"));
    let b = || Predicate::eq("b", num("2"));
    let c = || Predicate::eq("c", num("3"));
    // AND binds tighter than OR.
    assert_eq!(p("a = 1 OR b = 2 AND c = 3"), a().or(b().and(c())));
    assert_eq!(p("(a = 1 OR b = 2) AND c = 3"), a().or(b()).and(c()));
    assert_eq!(
        p("a = 1 AND b = 2 AND c = 3"),
        Predicate::And(vec![a(), b(), c()])
    );
    assert_eq!(p("NOT a = 1"), a().not());
    assert_eq!(p("NOT (a = 1 OR NOT b = 2)"), a().or(b().not()).not());
    assert_eq!(p("((a = 1))"), a());
    assert_eq!(p("TRUE"), Predicate::AlwaysTrue);
    assert_eq!(p("flag"), Predicate::eq("flag", Literal::Boolean(true)));
    assert_eq!(
        p("flag IS NOT TRUE"),
        Predicate::is_not_null("flag")
            .and(Predicate::eq("flag", Literal::Boolean(true)))
            .not()
    );
    assert_eq!(
        p("dt = '2024-01-01' AND id IN (1, 2)"),
        Predicate::eq("dt", Literal::string("2024-01-01"))
            .and(Predicate::is_in("id", vec![num("1"), num("2")]))
    );
}

#[test]
fn syntax_errors_carry_the_parser_message() {
    for bad in ["a =", "a = 1 AND", "a = 1)", "a = 1 b", "(a = 1", ""] {
        let e = parse_predicate(bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{bad}: {e}");
        assert!(e.to_string().contains("invalid filter"), "{e}");
    }
    for unsupported in [
        "a = b",
        "1 = 1",
        "f(a) = 1",
        "a + 1 = 2",
        "a = CAST(1 AS INT)",
        "a",
    ] {
        match parse_predicate(unsupported) {
            Err(e) => assert_eq!(e.kind(), ErrorKind::Unsupported, "{unsupported}: {e}"),
            Ok(p) => assert_eq!(unsupported, "a", "{p}"),
        }
    }
}

#[test]
fn parsed_filters_bind_end_to_end() {
    use crate::spec::types::{DataField, DataType, TypeKind};
    let fields = vec![
        DataField::new(1, "ts", DataType::nullable(TypeKind::Timestamp(6))),
        DataField::new(2, "b", DataType::nullable(TypeKind::VarBinary(10))),
        DataField::new(3, "flag", DataType::nullable(TypeKind::Boolean)),
    ];
    let bound = p("ts >= TIMESTAMP '2024-01-01 10:00:00.123456' AND b = X'0A' AND flag")
        .bind_fields(&fields)
        .unwrap();
    assert_eq!(
        bound.to_string(),
        "(ts >= 2024-01-01T10:00:00.123456000 AND b = 0a AND flag = true)"
    );
    let e = p("ts = TIMESTAMP '2024-01-01 10:00:00.1234567'")
        .bind_fields(&fields)
        .unwrap_err();
    assert!(e.to_string().contains("precision 6"), "{e}");
    // NOT (flag IS TRUE) keeps the nulls.
    assert_eq!(
        p("NOT flag IS TRUE")
            .bind_fields(&fields)
            .unwrap()
            .to_string(),
        "(flag IS NULL OR flag <> true)"
    );
}
