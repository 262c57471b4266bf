//! Paimon types and column lists written as SQL text: `BIGINT NOT NULL`, `DECIMAL(10, 2)`,
//! `TIMESTAMP(3) WITH LOCAL TIME ZONE`, `ARRAY<INT>`, `MAP<STRING, INT>`,
//! `ROW<a INT, b STRING COMMENT 'x'>` (also `ROW(a INT, ...)`), and
//! `id BIGINT NOT NULL, v STRING COMMENT 'value'` for columns.
//!
//! Mirrors the type grammar of Java `org.apache.paimon.types.DataTypeParser`. Field ids of
//! parsed ROW fields are 0; the schema builder assigns real ids (Java `ReassignFieldId`).
//! Errors are [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument) naming the text.

use serde_json::Value;

use crate::spec::types::{DataField, DataType, TypeKind};
use crate::{Error, Result};

/// Parses one type.
pub fn parse_type(text: &str) -> Result<DataType> {
    let t = text.trim();
    let upper = t.to_ascii_uppercase();
    for (name, open, close) in [
        ("ARRAY", '<', '>'),
        ("MULTISET", '<', '>'),
        ("MAP", '<', '>'),
        ("ROW", '<', '>'),
        ("ROW", '(', ')'),
    ] {
        let rest = &upper[name.len().min(upper.len())..];
        if upper.starts_with(name) && rest.trim_start().starts_with(open) {
            let start = name.len() + (rest.len() - rest.trim_start().len());
            let end = matching(t, start, open, close)
                .ok_or_else(|| bad(text, &format!("unbalanced '{open}'")))?;
            let (inner, suffix) = (&t[start + 1..end], &t[end + 1..]);
            let nullable = parse_nullability(suffix).ok_or_else(|| bad(text, "unexpected text"))?;
            let kind = nested_kind(name, inner, text)?;
            return Ok(DataType { nullable, kind });
        }
    }
    DataType::from_json(&Value::String(t.to_string())).map_err(|e| bad(text, e.message()))
}

/// Parses a comma-separated column list `name TYPE [COMMENT '...'], ...` into fields with id 0.
pub fn parse_fields(text: &str) -> Result<Vec<DataField>> {
    split_top_level(text, ',')
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .map(parse_field)
        .collect()
}

/// Parses `name TYPE [COMMENT '...']`; the name may be back-quoted.
pub fn parse_field(text: &str) -> Result<DataField> {
    let t = text.trim();
    let (name, rest) = if let Some(quoted) = t.strip_prefix('`') {
        let end = quoted
            .find('`')
            .ok_or_else(|| bad(text, "unclosed back quote"))?;
        (quoted[..end].to_string(), &quoted[end + 1..])
    } else {
        let end = t.find(char::is_whitespace).unwrap_or(t.len());
        (t[..end].to_string(), &t[end..])
    };
    if name.is_empty() || rest.trim().is_empty() {
        return Err(bad(text, "expected 'name TYPE'"));
    }
    let (type_text, comment) = split_comment(rest, text)?;
    let mut field = DataField::new(0, name, parse_type(type_text)?);
    field.description = comment;
    Ok(field)
}

fn nested_kind(name: &str, inner: &str, text: &str) -> Result<TypeKind> {
    let parts = split_top_level(inner, ',');
    let one = |parts: &[&str]| -> Result<Box<DataType>> {
        match parts {
            [p] => Ok(Box::new(parse_type(p)?)),
            _ => Err(bad(text, &format!("{name} takes one element type"))),
        }
    };
    Ok(match name {
        "ARRAY" => TypeKind::Array(one(&parts)?),
        "MULTISET" => TypeKind::Multiset(one(&parts)?),
        "MAP" => match parts.as_slice() {
            [k, v] => TypeKind::Map(Box::new(parse_type(k)?), Box::new(parse_type(v)?)),
            _ => return Err(bad(text, "MAP takes a key and a value type")),
        },
        _ => TypeKind::Row(parse_fields(inner)?),
    })
}

/// `NOT NULL`, `NULL` or nothing → nullability; anything else → `None`.
fn parse_nullability(suffix: &str) -> Option<bool> {
    let words: Vec<String> = suffix
        .split_whitespace()
        .map(str::to_ascii_uppercase)
        .collect();
    match words
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] | ["NULL"] => Some(true),
        ["NOT", "NULL"] => Some(false),
        _ => None,
    }
}

/// Splits `TYPE COMMENT 'text'` at a top-level `COMMENT` keyword.
fn split_comment<'a>(rest: &'a str, text: &str) -> Result<(&'a str, Option<String>)> {
    let upper = rest.to_ascii_uppercase();
    let mut depth = 0i32;
    for (i, c) in rest.char_indices() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            '\'' => break,
            _ if depth == 0
                && c.is_whitespace()
                && upper[i..].trim_start().starts_with("COMMENT") =>
            {
                let after = upper[i..].trim_start();
                let from = rest.len() - after.len() + "COMMENT".len();
                let lit = rest[from..].trim();
                let body = lit
                    .strip_prefix('\'')
                    .and_then(|l| l.strip_suffix('\''))
                    .ok_or_else(|| bad(text, "COMMENT needs a quoted string"))?;
                return Ok((&rest[..i], Some(body.replace("''", "'"))));
            }
            _ => {}
        }
    }
    Ok((rest, None))
}

/// The index of the bracket closing the one at `open_at`.
fn matching(s: &str, open_at: usize, open: char, close: char) -> Option<usize> {
    let mut depth = 0i32;
    let mut quoted = false;
    for (i, c) in s.char_indices().skip_while(|(i, _)| *i < open_at) {
        match c {
            '\'' | '`' => quoted = !quoted,
            _ if quoted => {}
            c if c == open || c == '<' || c == '(' => depth += 1,
            c if c == close || c == '>' || c == ')' => {
                depth -= 1;
                if depth == 0 {
                    return (c == close).then_some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Splits on `sep` outside brackets and quotes.
fn split_top_level(s: &str, sep: char) -> Vec<&str> {
    let (mut out, mut depth, mut quoted, mut start) = (Vec::new(), 0i32, false, 0);
    for (i, c) in s.char_indices() {
        match c {
            '\'' | '`' => quoted = !quoted,
            _ if quoted => {}
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            c if c == sep && depth == 0 => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

fn bad(text: &str, why: &str) -> Error {
    Error::invalid_argument(format!("cannot parse type '{}': {why}", text.trim()))
        .with_context("type", text.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_and_nested_types() {
        for s in [
            "BIGINT NOT NULL",
            "DECIMAL(10, 2)",
            "TIMESTAMP(3)",
            "TIMESTAMP(3) WITH LOCAL TIME ZONE",
            "ARRAY<INT>",
            "MAP<STRING, ARRAY<INT NOT NULL>> NOT NULL",
            "MULTISET<STRING>",
        ] {
            assert_eq!(parse_type(s).unwrap().to_string(), s);
        }
        let row = parse_type("ROW<a INT, `b c` ROW<x STRING COMMENT 'it''s'>> NOT NULL").unwrap();
        assert!(!row.nullable);
        let TypeKind::Row(fields) = &row.kind else {
            panic!("not a row")
        };
        assert_eq!(fields[1].name, "b c");
        let TypeKind::Row(inner) = &fields[1].data_type.kind else {
            panic!("not a row")
        };
        assert_eq!(inner[0].description.as_deref(), Some("it's"));
        assert_eq!(
            parse_type("row(a int)").unwrap().to_string(),
            "ROW<`a` INT>"
        );
    }

    #[test]
    fn columns_and_errors() {
        let f =
            parse_fields("id BIGINT NOT NULL, v DECIMAL(5, 1) COMMENT 'value', m MAP<STRING, INT>")
                .unwrap();
        assert_eq!(f.len(), 3);
        assert_eq!(f[1].data_type.to_string(), "DECIMAL(5, 1)");
        assert_eq!(f[1].description.as_deref(), Some("value"));
        for bad in [
            "FOO",
            "ARRAY<INT",
            "MAP<INT>",
            "ARRAY<INT> NOT",
            "DECIMAL(50, 1)",
        ] {
            let e = parse_type(bad).unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::InvalidArgument, "{bad}");
        }
        assert!(parse_fields("id").is_err());
    }
}
