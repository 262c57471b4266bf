#!/usr/bin/env bash
# Generates the pypaimon fixture tables (with their expected results) into
# target/pypaimon-fixtures by running scripts/gen-fixture-tables.py with the venv from
# scripts/setup-pypaimon.sh (testdata/README.md describes the tables and expected files).
#
# Skips the work when target/pypaimon-fixtures/fixtures.json already records the same
# seed, rows and generator version. Environment:
#   FIXTURE_SEED        generator seed (default: 20240601, the generator's default)
#   FIXTURE_ROWS        generator scale (default: 2000, the generator's default)
#   FIXTURES_OUT        output directory (default: <repo root>/target/pypaimon-fixtures)
# Extra arguments are passed to gen-fixture-tables.py (e.g. --no-verify).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
GENERATOR="$HERE/gen-fixture-tables.py"
SEED="${FIXTURE_SEED:-20240601}"
ROWS="${FIXTURE_ROWS:-2000}"
OUT="${FIXTURES_OUT:-$ROOT/target/pypaimon-fixtures}"

if [ ! -f "$GENERATOR" ]; then
    echo "error: generator not found at $GENERATOR" >&2
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
