"""Read benchmark of paimon_rs against peers, each operation in a fresh process.

Usage (from any folder):
    python bench_read.py WAREHOUSE TABLE [--repeat N] [--peers-python PY] [--cli PAIMON]

WAREHOUSE holds database `b` (as /work/bench-tables/pk/b.db). Runs, per repetition and tool,
`full` (every row to a pyarrow.Table) and `point` (`id = 1234567`):
  paimon_rs     this package (in the current interpreter's environment)
  pypaimon-rust pypaimon-rust's read builder (PEERS python, optional)
  pypaimon      pypaimon (PEERS python, optional; `full` takes tens of seconds)
  --cli PAIMON  the Rust library itself, warm: `paimon bench TABLE` (plan + read of every
                batch, median of 5 after a warm-up) beside paimon_rs's warm in-process median
Prints the median seconds and the ratios against paimon_rs measured in the same run.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys

KEY = 1234567

# pyarrow is imported before the clock starts on every side (the peers import it up front;
# paimon_rs would otherwise pay its import inside the first `to_arrow`).
PAIMON_RS = r"""
import sys, time
import pyarrow
import paimon_rs
wh, table, op = sys.argv[1:4]
t0 = time.perf_counter()
t = paimon_rs.Catalog(wh).get_table('b.' + table)
scan = t.scan(filter='id = %d' % KEY) if op == 'point' else t.scan()
res = scan.to_arrow()
print('RESULT %.4f %d' % (time.perf_counter() - t0, res.num_rows))
""".replace("KEY", str(KEY))

PEER = r"""
import sys, time
import pyarrow as pa
tool, wh, table, op = sys.argv[1:5]
t0 = time.perf_counter()
if tool == 'pypaimon':
    from pypaimon import CatalogFactory
    t = CatalogFactory.create({'warehouse': wh}).get_table('b.' + table)
    rb = t.new_read_builder()
    if op == 'point':
        rb = rb.with_filter(rb.new_predicate_builder().equal('id', KEY))
    res = rb.new_read().to_arrow(rb.new_scan().plan().splits())
else:
    from pypaimon_rust.datafusion import PaimonCatalog
    t = PaimonCatalog({'warehouse': wh}).get_table('b.' + table)
    rb = t.new_read_builder()
    if op == 'point':
        rb = rb.with_filter({'method': 'equal', 'field': 'id', 'literals': [KEY]})
    res = pa.Table.from_batches(rb.new_read().read(rb.new_scan().plan().splits()))
print('RESULT %.4f %d' % (time.perf_counter() - t0, res.num_rows))
""".replace("KEY", str(KEY))


def run(args):
    out = subprocess.run(args, capture_output=True, text=True)
    m = re.search(r"RESULT ([0-9.]+) (\d+)", out.stdout)
    if not m:
        raise SystemExit(f"{args[:3]} failed: {out.stderr[-2000:]}")
    return float(m.group(1)), int(m.group(2))


INPROC = r"""
import sys, time, statistics
import paimon_rs
wh, table, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
t = paimon_rs.Catalog(wh).get_table('b.' + table)
t.scan().to_arrow()  # warm-up
ts = []
for _ in range(n):
    t0 = time.perf_counter()
    rows = t.scan().to_arrow().num_rows
    ts.append(time.perf_counter() - t0)
print('RESULT %.4f %d' % (statistics.median(ts), rows))
"""


def run_cli_bench(cli, wh, table):
    out = subprocess.run([cli, "bench", os.path.join(wh, "b.db", table)],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"paimon bench failed: {out.stderr[-2000:]}")
    return out.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("warehouse")
    ap.add_argument("table")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--peers-python")
    ap.add_argument("--no-pypaimon-full", action="store_true")
    ap.add_argument("--cli")
    a = ap.parse_args()
    wh = os.path.abspath(a.warehouse)
    times = {}
    for _ in range(a.repeat):
        for op in ("full", "point"):
            times.setdefault(("paimon_rs", op), []).append(
                run([sys.executable, "-c", PAIMON_RS, wh, a.table, op]))
            if a.peers_python:
                for tool in ("pypaimon-rust", "pypaimon"):
                    if tool == "pypaimon" and op == "full" and (a.no_pypaimon_full or _ > 0):
                        continue
                    times.setdefault((tool, op), []).append(
                        run([a.peers_python, "-c", PEER, tool, wh, a.table, op]))
    for op in ("full", "point"):
        base = statistics.median(t for t, _ in times[("paimon_rs", op)])
        for (tool, o), vals in sorted(times.items()):
            if o != op:
                continue
            med = statistics.median(t for t, _ in vals)
            rows = {r for _, r in vals}
            print(f"{op:5} {tool:14} {med:8.3f} s  x{med / base:6.2f} of paimon_rs  "
                  f"rows {sorted(rows)}  n={len(vals)}")
    if a.cli:
        # Warm, in one process each: paimon_rs.to_arrow() against the library's own read.
        med, rows = run([sys.executable, "-c", INPROC, wh, a.table, "5"])
        print(f"warm in-process: paimon_rs to_arrow median {med:.3f} s, {rows} rows")
        print(run_cli_bench(a.cli, wh, a.table))


if __name__ == "__main__":
    main()
