//! Helpers shared by unit tests.

use std::path::PathBuf;

/// `../shared/fixtures/java` beside the repository, or `$PAIMON_JAVA_FIXTURES`.
///
/// Panics when missing: fixture tests never skip silently.
#[allow(dead_code)]
pub(crate) fn java_fixtures() -> PathBuf {
    let p = std::env::var_os("PAIMON_JAVA_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/java")
        });
    assert!(
        p.is_dir(),
        "Java fixtures not found at {} (set PAIMON_JAVA_FIXTURES)",
        p.display()
    );
    p
}
