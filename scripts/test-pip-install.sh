#!/usr/bin/env bash
# `pip install ./bindings/python` as a user does it: a fresh clone of this repository's HEAD
# (committed files only) in a temporary folder, a fresh virtualenv, pip building the wheel
# through maturin from PyPI (PEP 517, isolated build environment, release profile), then the
# package's pytest suite against the installed wheel (not against target/python-dev).
#
# Slow: the release build of arrow, parquet and paimon-core (plus DataFusion with
# PAIMON_RS_DATAFUSION=1) from scratch: 13 min 40 s wall, 9.5 CPU-minutes without DataFusion on
# two cores shared with other builds (bindings/python/README.md), so it is not part of
# scripts/test.sh. Environment:
#   PYTHON                  interpreter for the venv (default: python3)
#   PAIMON_RS_DATAFUSION=1  build with the cargo feature `datafusion` and install the
#                           `datafusion` extra (PyPI datafusion 55); its tests run too
#   CARGO_TARGET_DIR        reuse a build directory (default: the clone's own, i.e. cold)
#   KEEP=1                  keep the temporary folder (printed)
# The tests that compare with the `paimon` CLI or pypaimon use $PAIMON_CLI / $PYPAIMON_PYTHON
# when set (scripts/test-python.sh sets both); otherwise they skip.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
tmp="$(mktemp -d)"
if [ "${KEEP:-0}" = 1 ]; then
    echo "keeping $tmp" >&2
else
    trap 'rm -rf "$tmp"' EXIT
fi

git clone -q "$ROOT" "$tmp/paimon-rs"
"$PYTHON" -m venv "$tmp/venv"
pip=("$tmp/venv/bin/python" -m pip --disable-pip-version-check)
spec="./bindings/python[test]"
args=()
if [ "${PAIMON_RS_DATAFUSION:-0}" = 1 ]; then
    spec="./bindings/python[test,datafusion]"
    args=(--config-settings=build-args=--features=datafusion)
fi
cd "$tmp/paimon-rs"
start=$SECONDS
"${pip[@]}" install "${args[@]}" "$spec"
echo "pip install took $((SECONDS - start)) s" >&2

# The installed wheel carries the stubs and the typed marker.
"$tmp/venv/bin/python" - <<'EOF'
import pathlib, paimon_rs
pkg = pathlib.Path(paimon_rs.__file__).parent
missing = [f for f in ("_native.pyi", "py.typed") if not (pkg / f).exists()]
assert not missing, f"not in the wheel: {missing}"
assert "site-packages" in str(pkg), pkg
print("installed", paimon_rs.__version__, "at", pkg, "datafusion:", paimon_rs.WITH_DATAFUSION)
EOF
# From outside the clone's bindings/python, so `import paimon_rs` is the installed wheel.
"$tmp/venv/bin/python" -m pytest "$tmp/paimon-rs/bindings/python/tests" -q -p no:cacheprovider \
    --rootdir "$tmp/paimon-rs/bindings/python" "$@"
