#!/usr/bin/env bash
# Builds the Python package paimon_rs (bindings/python) and runs its pytest suite against the
# repository's fixtures, the `paimon` CLI (the reference reader) and pypaimon 2.1.0
# (`.venv-pypaimon`, which reads the tables written from Python). Run by scripts/test.sh after
# its `cargo test`; extra arguments go to pytest (e.g. `-k pickle`).
#
# The extension is built with plain `cargo build --workspace --all-targets`: the same command
# line, features and environment as test.sh's `cargo test --workspace --all-targets`, so
# everything but the binding's cdylib is already built (maturin would set PYO3_* variables and
# compile arrow, parquet, DataFusion and paimon-core a second time). The cdylib is copied as
# `paimon_rs/_native.abi3.so` beside the package's Python files into
# $CARGO_TARGET_DIR/python-dev, which goes first on PYTHONPATH of `.venv-python` (pinned
# pytest/pyarrow/pandas, scripts/setup-python.sh). Users build with maturin or pip instead
# (bindings/python/README.md). Environment:
#   PAIMON_RS_DATAFUSION     1 (default): with the DataFusion-Python provider (cargo feature
#                            `datafusion` of paimon-python, for the whole workspace as test.sh
#                            passes it, and PyPI datafusion 55 in the venv, 54 in
#                            `.venv-python-df54` for the version guard's test); 0: without, its
#                            tests skip
#   PAIMON_RS_RAY=1          also install Ray Data and run the (slow) Ray test
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
PY="$(bash scripts/setup-python.sh)"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"

features=()
if [ "${PAIMON_RS_DATAFUSION:-1}" = 1 ]; then
    features=(--features paimon-python/datafusion)
fi
# Also the `paimon` binary the tests compare with. No VIRTUAL_ENV or PATH change here: pyo3's
# build script reruns when they change.
cargo build --quiet --workspace --all-targets "${features[@]}"

lib="$TARGET/debug/lib_native.so"
if readelf -d "$lib" | grep -q 'NEEDED.*libpython'; then
    echo "error: $lib links libpython; an extension module must not" >&2
    exit 1
fi
dev="$TARGET/python-dev"
rm -rf "$dev"
mkdir -p "$dev"
cp -r bindings/python/python/paimon_rs "$dev/"
rm -f "$dev"/paimon_rs/*.so
cp "$lib" "$dev/paimon_rs/_native.abi3.so"

# A second venv with PyPI datafusion 54 (another major than our datafusion-ffi 55): the test
# of the version guard registers our provider there for real, in a child interpreter.
if [ "${PAIMON_RS_DATAFUSION:-1}" = 1 ]; then
    other="$ROOT/.venv-python-df54"
    if [ ! -x "$other/bin/python" ] || [ "$(cat "$other/.pins" 2>/dev/null)" != "datafusion==54.1.0" ]; then
        "${PYTHON:-python3}" -m venv "$other"
        "$other/bin/python" -m pip install --quiet --disable-pip-version-check \
            datafusion==54.1.0 pyarrow==21.0.0 >&2
        echo "datafusion==54.1.0" > "$other/.pins"
    fi
    export PAIMON_RS_OTHER_DATAFUSION_PYTHON="$other/bin/python"
fi

export PAIMON_CLI="$TARGET/debug/paimon"
export PYPAIMON_PYTHON="$ROOT/.venv-pypaimon/bin/python"
export PAIMON_RS_EXTENSION="$dev/paimon_rs/_native.abi3.so"
PYTHONPATH="$dev${PYTHONPATH:+:$PYTHONPATH}" \
    "$PY" -m pytest bindings/python/tests -q -p no:cacheprovider "$@"
