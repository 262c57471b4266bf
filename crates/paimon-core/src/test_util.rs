//! Helpers shared by unit tests.

use std::path::PathBuf;

/// `testdata/java` of the repository (the Java-written fixtures, see `testdata/README.md`), or
/// `$PAIMON_JAVA_FIXTURES`.
///
/// Panics when missing: fixture tests never skip silently.
#[allow(dead_code)]
pub(crate) fn java_fixtures() -> PathBuf {
    let p = std::env::var_os("PAIMON_JAVA_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/java"));
    assert!(
        p.is_dir(),
        "Java fixtures not found at {} (set PAIMON_JAVA_FIXTURES)",
        p.display()
    );
    p
}

/// Bytes from hex digits; anything else (spaces, separators) is skipped.
#[allow(dead_code)]
pub(crate) fn hex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| c.is_ascii_hexdigit()).collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// A schema version 3, id 0, of `fields`: no keys, no options.
#[allow(dead_code)]
pub(crate) fn schema_of(fields: Vec<crate::spec::types::DataField>) -> crate::spec::TableSchema {
    let highest_field_id = fields.iter().map(|f| f.id).max().unwrap_or(0);
    crate::spec::TableSchema {
        version: 3,
        id: 0,
        fields,
        highest_field_id,
        partition_keys: vec![],
        primary_keys: vec![],
        options: Default::default(),
        comment: None,
        time_millis: 0,
    }
}
