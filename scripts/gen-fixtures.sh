#!/usr/bin/env bash
# Generates the pypaimon fixture tables (with their expected results) into
# target/pypaimon-fixtures by running the shared generator `generate.py`
# (`<repo>/../shared/fixtures/generate.py`) with the venv from scripts/setup-pypaimon.sh.
#
# Skips the work when target/pypaimon-fixtures/fixtures.json already records the same
# seed, rows and generator version. Environment:
#   PAIMON_SHARED_DIR   shared directory (default: <repo root>/../shared)
#   FIXTURE_SEED        generator seed (default: 20240601, the generator's default)
#   FIXTURE_ROWS        generator scale (default: 2000, the generator's default)
#   FIXTURES_OUT        output directory (default: <repo root>/target/pypaimon-fixtures)
# Extra arguments are passed to generate.py (e.g. --no-verify).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
SHARED="${PAIMON_SHARED_DIR:-$ROOT/../shared}"
GENERATOR="$SHARED/fixtures/generate.py"
SEED="${FIXTURE_SEED:-20240601}"
ROWS="${FIXTURE_ROWS:-2000}"
OUT="${FIXTURES_OUT:-$ROOT/target/pypaimon-fixtures}"

if [ ! -f "$GENERATOR" ]; then
    echo "error: generator not found at $GENERATOR (set PAIMON_SHARED_DIR)" >&2
    exit 1
fi

PY="$("$HERE/setup-pypaimon.sh")"
GEN_VERSION="$(sed -n 's/^GENERATOR_VERSION = \([0-9][0-9]*\).*/\1/p' "$GENERATOR")"

if [ -f "$OUT/fixtures.json" ] && "$PY" - "$OUT/fixtures.json" "$SEED" "$ROWS" "$GEN_VERSION" <<'PYEOF'
import json, sys
index = json.load(open(sys.argv[1]))
same = (str(index.get("seed")) == sys.argv[2] and str(index.get("rows")) == sys.argv[3]
        and str(index.get("generator_version")) == sys.argv[4])
sys.exit(0 if same else 1)
PYEOF
then
    echo "fixtures up to date in $OUT (seed $SEED, rows $ROWS)" >&2
    exit 0
fi

mkdir -p "$(dirname "$OUT")"
"$PY" "$GENERATOR" --out "$OUT" --seed "$SEED" --rows "$ROWS" --force "$@"
echo "fixtures written to $OUT" >&2
