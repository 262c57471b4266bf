#!/usr/bin/env bash
# Creates (idempotently) the virtualenv `.venv-pypaimon` in the repository root with
# pypaimon 2.1.0 installed, and prints the path of its python interpreter.
#
# Used by CI and by scripts/gen-fixtures.sh. Environment:
#   PYTHON             interpreter used to create the venv (default: python3)
#   PYPAIMON_VERSION   pypaimon version to install (default: 2.1.0)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv-pypaimon"
PYTHON="${PYTHON:-python3}"
PYPAIMON_VERSION="${PYPAIMON_VERSION:-2.1.0}"
PY="$VENV/bin/python"

if [ ! -x "$PY" ]; then
    echo "creating $VENV" >&2
    "$PYTHON" -m venv "$VENV"
fi

installed="$("$PY" -c 'import importlib.metadata as m; print(m.version("pypaimon"))' 2>/dev/null || true)"
if [ "$installed" != "$PYPAIMON_VERSION" ]; then
    echo "installing pypaimon==$PYPAIMON_VERSION into $VENV" >&2
    "$PY" -m pip install --quiet --disable-pip-version-check "pypaimon==$PYPAIMON_VERSION" >&2
fi

echo "$PY"
