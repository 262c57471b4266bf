//! `paimon demo` end to end at a small size: it builds its warehouse, runs its five queries
//! and checks every answer against its own model (a wrong answer is a non-zero exit).

use std::process::Command;

#[test]
fn demo_runs_and_every_answer_matches_its_model() {
    let dir = tempfile::tempdir().unwrap();
    let warehouse = dir.path().join("wh");
    let out = Command::new(env!("CARGO_BIN_EXE_paimon"))
        .args(["demo", warehouse.to_str().unwrap(), "--rows", "20000"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "stdout: {text}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("all 5 answers match the model"), "{text}");
    // The mechanisms the queries explain fired.
    for needle in [
        "by bucket (1 bucket(s) kept)",
        "files narrowed to",
        "merged by key into",
        "7 of 8 files pruned at planning",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
    // A second run replaces the previous demo warehouse; a foreign directory is refused.
    let again = Command::new(env!("CARGO_BIN_EXE_paimon"))
        .args(["demo", warehouse.to_str().unwrap(), "--rows", "200"])
        .output()
        .unwrap();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    std::fs::write(dir.path().join("other.txt"), "x").unwrap();
    let refused = Command::new(env!("CARGO_BIN_EXE_paimon"))
        .args(["demo", dir.path().to_str().unwrap(), "--rows", "200"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
}
