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
