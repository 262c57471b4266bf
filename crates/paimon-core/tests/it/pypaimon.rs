//! Tables written by pypaimon 2.1.0 (`scripts/gen-fixtures.sh` runs
//! `scripts/gen-fixture-tables.py`) with the expected result of every query, computed by the
//! generator from its own model.

use std::path::PathBuf;

use paimon_core::catalog::Table;
use paimon_core::expr::{CompareOp, Literal, Predicate};

use serde_json::{Map, Value};

use crate::common::{column_names, generated_tables, json_rows};

/// The generated fixtures, or `None` (a failure under CI) when they were not generated.
pub fn pypaimon_fixtures() -> Option<PathBuf> {
    generated_tables(
        "PAIMON_PYPAIMON_FIXTURES",
        "pypaimon-fixtures",
        "fixtures.json",
        "pypaimon fixtures",
        "run scripts/gen-fixtures.sh",
    )
}

fn literal(v: &Value) -> Literal {
    match v {
        Value::Null => Literal::Null,
        Value::Bool(b) => Literal::Boolean(*b),
        Value::Number(n) => Literal::Number(n.to_string()),
        Value::String(s) => Literal::String(s.clone()),
        other => panic!("unexpected literal {other}"),
    }
}

/// The generator's JSON predicate language as a [`Predicate`].
pub fn predicate(p: &Value) -> Predicate {
    let op = p["op"].as_str().unwrap();
    let column = || p["column"].as_str().unwrap().to_string();
    let cmp = |op| Predicate::Compare {
        column: column(),
        op,
        value: literal(&p["value"]),
    };
    match op {
        "and" => Predicate::And(
            p["children"]
                .as_array()
                .unwrap()
                .iter()
                .map(predicate)
                .collect(),
        ),
        "or" => Predicate::Or(
            p["children"]
                .as_array()
                .unwrap()
                .iter()
                .map(predicate)
                .collect(),
        ),
        "eq" => cmp(CompareOp::Eq),
        "ne" => cmp(CompareOp::NotEq),
        "lt" => cmp(CompareOp::Lt),
        "le" => cmp(CompareOp::LtEq),
        "gt" => cmp(CompareOp::Gt),
        "ge" => cmp(CompareOp::GtEq),
        "in" => Predicate::In {
            column: column(),
            values: p["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(literal)
                .collect(),
            negated: false,
        },
        "between" => Predicate::Between {
            column: column(),
            low: literal(&p["values"][0]),
            high: literal(&p["values"][1]),
            negated: false,
        },
        "is_null" => Predicate::IsNull {
            column: column(),
            negated: false,
        },
        "is_not_null" => Predicate::IsNull {
            column: column(),
            negated: true,
        },
        "starts_with" => Predicate::StartsWith {
            column: column(),
            prefix: p["value"].as_str().unwrap().to_string(),
        },
        other => panic!("unknown predicate op {other}"),
    }
}

/// Normalises a value for comparison: timestamps to 9 fraction digits without zone, numbers
/// to f64.
fn norm(v: &Value) -> String {
    match v {
        Value::String(s) => {
            let s = s.strip_suffix('Z').unwrap_or(s);
            let b = s.as_bytes();
            let is_ts = b.len() >= 19 && b.get(10) == Some(&b'T') && b.get(4) == Some(&b'-');
            if is_ts {
                let (head, frac) = s.split_once('.').unwrap_or((s, ""));
                format!("{head}.{frac:0<9}")
            } else {
                s.to_string()
            }
        }
        Value::Number(n) => format!("{}", n.as_f64().unwrap()),
        other => other.to_string(),
    }
}

fn row_key(row: &Map<String, Value>, cols: &[String]) -> String {
    cols.iter()
        .map(|c| format!("{c}={}", norm(row.get(c).unwrap_or(&Value::Null))))
        .collect::<Vec<_>>()
        .join("|")
}

/// Runs every query of one expected-results file; returns how many were checked.
pub async fn check_table(root: &std::path::Path, expected: &Value) -> usize {
    let table = Table::open(
        root.join(expected["path"].as_str().unwrap())
            .to_str()
            .unwrap(),
    )
    .await
    .unwrap();
    let mut checked = 0;
    for q in expected["queries"].as_array().unwrap() {
        let name = q["name"].as_str().unwrap();
        let mut b = table.scan();
        if !q["predicate"].is_null() {
            b = b.with_predicate(predicate(&q["predicate"]));
        }
        let cols: Vec<String> = match q["projection"].as_array() {
            Some(p) => p.iter().map(|c| c.as_str().unwrap().to_string()).collect(),
            None => column_names(&table),
        };
        let scan = b
            .select(cols.clone())
            .and_then(|b| b.build())
            .unwrap_or_else(|e| panic!("{}: {name}: {e}", expected["table"]));
        let plan = scan.plan().await.unwrap();
        let read = scan.reader();
        let mut got: Vec<String> = json_rows(&read, plan.splits)
            .await
            .unwrap()
            .iter()
            .map(|r| row_key(r, &cols))
            .collect();
        let mut want: Vec<String> = q["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| row_key(r.as_object().unwrap(), &cols))
            .collect();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{}: query {name}", expected["table"]);
        checked += 1;
    }
    checked
}

fn expected_files(root: &std::path::Path) -> Vec<Value> {
    let index: Value =
        serde_json::from_slice(&std::fs::read(root.join("fixtures.json")).unwrap()).unwrap();
    let mut out = Vec::new();
    for t in index["tables"].as_array().unwrap() {
        let name = t
            .as_str()
            .map(str::to_string)
            .or_else(|| t["name"].as_str().map(str::to_string))
            .unwrap();
        let short = name.rsplit('.').next().unwrap();
        let p = root.join("expected").join(format!("{short}.json"));
        out.push(serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap());
    }
    out
}

#[tokio::test]
async fn pypaimon_append_tables_answer_every_query() {
    let Some(root) = pypaimon_fixtures() else {
        return;
    };
    let mut tables = 0;
    for exp in expected_files(&root) {
        let is_pk = exp["primary_keys"]
            .as_array()
            .is_some_and(|k| !k.is_empty());
        if is_pk {
            continue;
        }
        assert!(check_table(&root, &exp).await > 0);
        tables += 1;
    }
    assert!(tables >= 10, "only {tables} append tables found");
}

#[tokio::test]
async fn pypaimon_primary_key_tables_answer_every_query() {
    let Some(root) = pypaimon_fixtures() else {
        return;
    };
    let mut tables = Vec::new();
    for exp in expected_files(&root) {
        let is_pk = exp["primary_keys"]
            .as_array()
            .is_some_and(|k| !k.is_empty());
        if !is_pk {
            continue;
        }
        assert!(check_table(&root, &exp).await > 0);
        tables.push(exp["table"].as_str().unwrap_or_default().to_string());
    }
    assert!(tables.len() >= 4, "only PK tables {tables:?} found");
}
