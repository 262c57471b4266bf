#!/usr/bin/env bash
# The whole test suite, as a newcomer and CI run it: sets up pypaimon 2.1.0 in a local venv,
# writes the pypaimon fixture tables (target/pypaimon-fixtures), random fixed-bucket tables
# (target/random-bucket-tables), the regression tables of peer bugs (target/regression-tables),
# merge-engine tables (target/merge-engine-tables) and random primary-key tables with deletion
# vectors (target/pk-random-tables), then runs every Rust test, has pypaimon read the tables our
# metadata encoders rewrote (target/reencoded) and the tables our catalog created
# (target/created), runs the doc tests and the example, and builds and tests the Python package
# (scripts/test-python.sh; PAIMON_RS_PYTHON=0 skips it). The binding's DataFusion-Python
# provider (cargo feature paimon-python/datafusion) is in every cargo build here, so the
# workspace is compiled once with it (measured: about 45 s more of a cold dev build on two
# cores); PAIMON_RS_DATAFUSION=0 leaves it out. PAIMON_RS_BALLISTA=1 builds and tests
# crates/paimon-ballista (distributed SQL; its own workspace).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-pypaimon.sh >/dev/null
bash scripts/gen-fixtures.sh
.venv-pypaimon/bin/python scripts/gen-random-bucket-tables.py target/random-bucket-tables >/dev/null
.venv-pypaimon/bin/python scripts/gen-regression-tables.py target/regression-tables >/dev/null
.venv-pypaimon/bin/python scripts/gen-merge-engine-tables.py target/merge-engine-tables >/dev/null
.venv-pypaimon/bin/python scripts/gen-pk-random-tables.py target/pk-random-tables >/dev/null
features=()
if [ "${PAIMON_RS_DATAFUSION:-1}" = 1 ]; then
    features=(--features paimon-python/datafusion)
fi
cargo test --workspace --all-targets "${features[@]}" "$@"
# The vendored orc-rust (outside the workspace, vendor/orc-rust/PATCHES.md): its unit tests,
# including the DECIMAL/STRUCT/LIST/MAP writer round trips, with the same target directory.
if [ "$#" -eq 0 ]; then
    cargo test --manifest-path vendor/orc-rust/Cargo.toml --lib \
        --target-dir "${CARGO_TARGET_DIR:-$PWD/target}"
fi
# pypaimon reads the tables whose metadata our encoders rewrote and the table our commits
# changed, and narrows its scans with pk-btree payloads we built (written by the `reencoded`,
# `commit` and `index_build` tests), and reads the tables our writer wrote (the `write` tests,
# target/written, including the tables compacted by the `compact` tests), checking rows and
# buckets; pyarrow.orc (ORC C++) also reads every ORC data file there.
if [ "$#" -eq 0 ]; then
    .venv-pypaimon/bin/python scripts/check-reencoded.py target/reencoded
    .venv-pypaimon/bin/python scripts/check-reencoded.py target/committed
    # pypaimon reads a table after snapshot expiration (`expire` test).
    .venv-pypaimon/bin/python scripts/check-reencoded.py target/expired
    .venv-pypaimon/bin/python scripts/check-indexed.py target/indexed
    # ... and with the payloads our compaction rebuilt (`compact` test); the compacted tables
    # (`compact_*`) are read with the written ones below.
    .venv-pypaimon/bin/python scripts/check-indexed.py target/compacted
    # pypaimon loads the tables our catalog created and altered (`catalog` test) and writes
    # to one of them.
    .venv-pypaimon/bin/python scripts/check-created.py target/created
    .venv-pypaimon/bin/python scripts/check-written.py target/written
fi
# Doc tests (the front-door examples in the API docs) and the runnable example.
cargo test --workspace --doc "${features[@]}" "$@"
cargo run --quiet -p paimon-core --example read_table >/dev/null
# Distributed SQL on Ballista: crates/paimon-ballista is its own workspace (own Cargo.lock, so
# Ballista's second versions of prost, zstd, rand... stay out of this one), built and tested
# here with the same target directory: the scheduler and two executors as processes on
# loopback (queries, system tables, a retried task, `paimon sql --ballista`: features
# `failpoints` and `ballista` of that crate, test-only), and standalone mode. Ballista's crates enable DataFusion features this workspace
# does not (its defaults, `proto`), so DataFusion compiles a second time: opt-in
# (PAIMON_RS_BALLISTA=1).
if [ "$#" -eq 0 ] && [ "${PAIMON_RS_BALLISTA:-0}" = 1 ]; then
    cargo test --manifest-path crates/paimon-ballista/Cargo.toml --all-features \
        --target-dir "${CARGO_TARGET_DIR:-$PWD/target}"
fi
# The Python package paimon_rs: its extension built by `cargo build` from the artifacts of the
# `cargo test` above (only the binding's cdylib compiles), then its pytest suite in .venv-python
# (reads equal to the CLI's, pickled splits in process pools, errors, writes read back by
# pypaimon).
if [ "$#" -eq 0 ] && [ "${PAIMON_RS_PYTHON:-1}" = 1 ]; then
    bash scripts/test-python.sh
fi
