#!/usr/bin/env bash
# Creates (idempotently) the virtualenv `.venv-python` in the repository root for testing the
# Python package `paimon_rs` (bindings/python), with pinned packages, and prints the path of its
# python interpreter. The extension itself is built by cargo (scripts/test-python.sh), so no
# maturin here (users: bindings/python/README.md). Kept apart from `.venv-pypaimon`: pypaimon
# 2.1.0 pins pyarrow < 20 and pandas < 3.
#
# Used by scripts/test-python.sh. Environment:
#   PYTHON                interpreter used to create the venv (default: python3)
#   PAIMON_RS_RAY         set to 1 to also install Ray Data (a large download; its test skips
#                         without, or when the install fails); .ci/run sets it
#   PAIMON_RS_DATAFUSION  1 (default) also installs PyPI datafusion 55; 0 leaves it out
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv-python"
PYTHON="${PYTHON:-python3}"
PY="$VENV/bin/python"
PINS=(pytest==8.4.2 pyarrow==21.0.0 pandas==2.3.3)
# The DataFusion-Python provider: datafusion 55 matches the binding's datafusion-ffi 55.
if [ "${PAIMON_RS_DATAFUSION:-1}" = 1 ]; then
    PINS+=(datafusion==55.0.0)
fi

if [ ! -x "$PY" ]; then
    echo "creating $VENV" >&2
    "$PYTHON" -m venv "$VENV"
fi
stamp="$VENV/.pins"
want="${PINS[*]} ray=${PAIMON_RS_RAY:-0}"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    echo "installing ${PINS[*]} into $VENV" >&2
    "$PY" -m pip install --quiet --disable-pip-version-check "${PINS[@]}" >&2
    ray_ok=1
    if [ "${PAIMON_RS_RAY:-0}" = 1 ]; then
        # Optional: when Ray cannot be installed here, its test skips (and the next run retries).
        if ! "$PY" -m pip install --quiet --disable-pip-version-check "ray[data]==2.60.0" >&2; then
            echo "warning: Ray Data could not be installed; its test will skip" >&2
            ray_ok=0
        fi
    fi
    if [ "$ray_ok" = 1 ]; then
        echo "$want" > "$stamp"
    fi
fi

echo "$PY"
