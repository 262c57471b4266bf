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
