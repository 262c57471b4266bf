//! JSON text the way Java Paimon writes its metadata files: Jackson's `DefaultPrettyPrinter`
//! (`org.apache.paimon.utils.JsonSerdeUtil#toJson`), used for snapshots, schemas and tags.
//!
//! Objects put each entry on its own line, indented by two spaces per object level, with
//! `" : "` between key and value; arrays stay on one line (`[ 1, 2 ]`, objects inside them open
//! on the same line: `[ {` … `}, {` … `} ]`) and do not add an indentation level; empty
//! containers are `{ }` and `[ ]`; no trailing newline. Strings are escaped as Jackson does
//! (`"`, `\` and control characters; other characters as UTF-8). Key order is the map's order.

use serde_json::Value;

/// `value` as Jackson's default pretty printer writes it.
pub fn to_jackson_pretty(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, 0);
    out
}

fn write_value(out: &mut String, value: &Value, level: usize) {
    match value {
        Value::Object(map) if map.is_empty() => out.push_str("{ }"),
        Value::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push('\n');
                indent(out, level + 1);
                write_string(out, k);
                out.push_str(" : ");
                write_value(out, v, level + 1);
            }
            out.push('\n');
            indent(out, level);
            out.push('}');
        }
        Value::Array(items) if items.is_empty() => out.push_str("[ ]"),
        Value::Array(items) => {
            out.push_str("[ ");
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(out, v, level);
            }
            out.push_str(" ]");
        }
        Value::String(s) => write_string(out, s),
        // Numbers, booleans and null print as serde_json prints them (Jackson agrees for the
        // integers and literals metadata uses).
        other => out.push_str(&other.to_string()),
    }
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

/// Jackson's escaping (`CharTypes.sOutputEscapes128`): `"` and `\` escaped, control characters
/// as `\b \t \n \f \r` or `\u00XX`, everything else verbatim.
fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{08}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{0C}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn jackson_layout_of_objects_arrays_and_empties() {
        let v = json!({
            "version": 3,
            "fields": [{"id": 0, "name": "a\"b\\c\u{1}\n"}, {"id": 1}],
            "partitionKeys": [],
            "primaryKeys": ["id", "dt"],
            "options": {},
            "nested": {"x": null, "y": true}
        });
        let expected = "{\n  \"version\" : 3,\n  \"fields\" : [ {\n    \"id\" : 0,\n    \
                        \"name\" : \"a\\\"b\\\\c\\u0001\\n\"\n  }, {\n    \"id\" : 1\n  } ],\n  \
                        \"partitionKeys\" : [ ],\n  \"primaryKeys\" : [ \"id\", \"dt\" ],\n  \
                        \"options\" : { },\n  \"nested\" : {\n    \"x\" : null,\n    \
                        \"y\" : true\n  }\n}";
        assert_eq!(to_jackson_pretty(&v), expected);
    }

    /// Every schema file Java wrote, parsed and printed again, is byte-identical.
    #[test]
    fn java_schema_files_round_trip_byte_for_byte() {
        let mut checked = 0;
        let mut stack = vec![crate::test_util::java_fixtures()];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.parent().is_some_and(|d| d.ends_with("schema"))
                    && p.file_name()
                        .unwrap()
                        .to_str()
                        .unwrap()
                        .starts_with("schema-")
                {
                    let bytes = std::fs::read(&p).unwrap();
                    let v: Value = serde_json::from_slice(&bytes).unwrap();
                    let text = to_jackson_pretty(&v);
                    assert_eq!(text.as_bytes(), &bytes[..], "{}", p.display());
                    checked += 1;
                }
            }
        }
        assert!(checked > 50, "only {checked} schema files");
    }
}
