#!/usr/bin/env bash
# Builds the Python package paimon_rs (bindings/python) with maturin into `.venv-python` and runs
# its pytest suite against the repository's fixtures, the `paimon` CLI (the reference reader)
# and pypaimon 2.1.0 (`.venv-pypaimon`, which reads the tables written from Python).
#
# The extension is built in the dev profile into the shared CARGO_TARGET_DIR (default target/),
# so paimon-core and its dependencies compiled by `cargo test` are reused. Run by
# scripts/test.sh; extra arguments go to pytest (e.g. `-k pickle`). Environment:
#   PAIMON_RS_RAY=1          also install Ray Data and run the (slow) Ray test
#   PAIMON_RS_DATAFUSION=1   build with the DataFusion-Python provider (cargo feature
#                            `datafusion`, a long build) and run its tests (skipped otherwise)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
PY="$(bash scripts/setup-python.sh)"
VENV="$(dirname "$(dirname "$PY")")"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"

# The `paimon` binary as scripts/test.sh's `cargo test` builds it (same command and features, so
# nothing is rebuilt there; standalone it builds the workspace's tests too).
cargo test --quiet --workspace --all-targets --no-run
export PAIMON_CLI="$TARGET/debug/paimon"
export PYPAIMON_PYTHON="$ROOT/.venv-pypaimon/bin/python"
features=()
if [ "${PAIMON_RS_DATAFUSION:-0}" = 1 ]; then
    features=(-F datafusion)
fi
VIRTUAL_ENV="$VENV" "$VENV/bin/maturin" develop --quiet -m bindings/python/Cargo.toml "${features[@]}" >&2
"$PY" -m pytest bindings/python/tests -q -p no:cacheprovider "$@"
