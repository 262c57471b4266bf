#!/usr/bin/env python3
# Licensed under the Apache License, Version 2.0 (same licence as the project).
"""Point lookups and SQL against the other readers, on the 3M-row benchmark tables (database
`b`, tables `pk_l0` and `pk_l5`, written by pypaimon as the issues describe).

Ours is timed as a whole process (`paimon read ... --format jsonl`, `paimon sql ... --format
csv`); the peers in process (library calls only, after their imports), alternated rounds,
medians, ratios per row:

  point   `id = 1234567`: ours vs pypaimon-rust 0.4.0's read builder
  sql     `count(*), sum(v)` and the point query: ours vs pypaimon-rust's SQLContext
  plain   pk_l5 as plain Parquet files in DataFusion-Python (the limit of a SQL engine)

Before timing, the programs' own files (our binary; the peers' native libraries) are dropped
from the page cache and read back in one sequential pass, as after a reboot: a file the
linker or pip has just written stays cached in small pieces, and every process start then maps
its code piece by piece (on the 2-core bench machine a fresh `paimon` binary started 3-5 ms
slower per process until re-cached).

Usage: python scripts/bench-peers.py PAIMON WAREHOUSE [--python PEERS_PY] [--rounds N]
       [--only point,sql,plain]
PAIMON: a release `paimon` built with its default features (SQL); PEERS_PY: an interpreter
with pypaimon-rust==0.4.0 and datafusion==55.* (and pyarrow).
"""

import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

KEY = 1234567

PEER_POINT = r"""
import sys, time
import pyarrow as pa
from pypaimon_rust.datafusion import PaimonCatalog
wh, table = sys.argv[1:3]
t0 = time.perf_counter()
t = PaimonCatalog({'warehouse': wh}).get_table('b.' + table)
rb = t.new_read_builder()
rb = rb.with_filter({'method': 'equal', 'field': 'id', 'literals': [KEY]})
res = pa.Table.from_batches(rb.new_read().read(rb.new_scan().plan().splits()))
print('%.5f %d' % (time.perf_counter() - t0, res.num_rows))
""".replace("KEY", str(KEY))

PEER_SQL = r"""
import sys, time
import pyarrow as pa
from pypaimon_rust.datafusion import SQLContext
wh, q = sys.argv[1:3]
t0 = time.perf_counter()
ctx = SQLContext(); ctx.register_catalog('paimon', {'warehouse': wh})
res = pa.Table.from_batches(ctx.sql(q))
print('%.5f %d' % (time.perf_counter() - t0, res.num_rows))
"""

PLAIN = r"""
import sys, time
import pyarrow
import datafusion
folder, q = sys.argv[1:3]
t0 = time.perf_counter()
ctx = datafusion.SessionContext()
ctx.register_parquet('t', folder)
res = ctx.sql(q).to_arrow_table()
print('%.5f %d' % (time.perf_counter() - t0, res.num_rows))
"""


def recache(paths):
    """Drops `paths` from the page cache and reads each back sequentially (where the OS has
    `posix_fadvise`, as Linux; elsewhere nothing is done)."""
    if not hasattr(os, "posix_fadvise"):
        return
    os.sync()
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            while os.read(fd, 1 << 20):
                pass
        finally:
            os.close(fd)


def peer_libraries(py):
    """The native libraries of the peers' packages that are installed (pypaimon-rust,
    DataFusion, pyarrow)."""
    out = subprocess.run(
        [py, "-c", "import importlib, os\n"
         "for name in ('pypaimon_rust', 'datafusion', 'pyarrow'):\n"
         "    try: print(os.path.dirname(importlib.import_module(name).__file__))\n"
         "    except ImportError: pass"],
        capture_output=True, text=True, check=True).stdout.split()
    return [f for d in out for f in glob.glob(os.path.join(d, "**", "*.so*"), recursive=True)]


def warn_if_hot_functions_stale(binary):
    """Says so when the binary no longer defines most of `crates/paimon-cli/hot-functions.txt`
    (a compiler or dependency change renamed them): its lookups then run slower than they can
    (`scripts/hot-functions.py` rewrites the list). Silent where `nm` is missing."""
    check = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hot-functions.py")
    try:
        r = subprocess.run([sys.executable, check, binary, "--check"], capture_output=True,
                           text=True)
    except OSError:
        return
    if r.returncode != 0 and "listed functions" in r.stdout:
        print(f"warning: hot-functions.txt is stale for this binary ({r.stdout.strip()}); "
              "rerun scripts/hot-functions.py and rebuild", file=sys.stderr)


def timed(cmd):
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return time.perf_counter() - t0, out


def peer(py, script, *args):
    out = subprocess.run([py, "-c", script, *args], capture_output=True, text=True, check=True)
    seconds, rows = out.stdout.split()
    return float(seconds), int(rows)


def report(label, ours, theirs, peer_name):
    a, b = statistics.median(ours), statistics.median(theirs)
    print(f"{label:<34} ours {a * 1000:8.1f} ms  {peer_name} {b * 1000:8.1f} ms  "
          f"{peer_name}/ours {b / a:5.2f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("paimon")
    ap.add_argument("warehouse")
    ap.add_argument("--python", default="python3")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--only", default="point,sql,plain")
    a = ap.parse_args()
    wh = os.path.abspath(a.warehouse)
    only = set(a.only.split(","))
    binary = shutil.which(a.paimon) or a.paimon
    warn_if_hot_functions_stale(binary)
    recache([binary] + peer_libraries(a.python))
    if "point" in only:
        for t in ["pk_l0", "pk_l5"]:
            ours, theirs = [], []
            for _ in range(a.rounds):
                s, out = timed([a.paimon, "read", wh, f"b.{t}", "--where", f"id = {KEY}",
                                "--format", "jsonl"])
                assert out.count("\n") == 1, out
                ours.append(s)
                theirs.append(peer(a.python, PEER_POINT, wh, t)[0])
            report(f"point {t}", ours, theirs, "pypaimon-rust")
    if "sql" in only:
        for t in ["pk_l0", "pk_l5"]:
            for name, q in [("count(*), sum(v)", f"SELECT count(*), sum(v) FROM paimon.b.{t}"),
                            ("point", f"SELECT * FROM paimon.b.{t} WHERE id = {KEY}")]:
                ours, theirs = [], []
                for _ in range(a.rounds):
                    ours.append(timed([a.paimon, "sql", wh, q, "--format", "csv"])[0])
                    theirs.append(peer(a.python, PEER_SQL, wh, q)[0])
                report(f"sql {name} {t}", ours, theirs, "pypaimon-rust SQL")
    if "plain" in only:
        with tempfile.TemporaryDirectory() as folder:
            for f in glob.glob(os.path.join(wh, "b.db", "pk_l5", "bucket-*", "*.parquet")):
                bucket = os.path.basename(os.path.dirname(f))
                os.symlink(f, os.path.join(folder, f"{bucket}-{os.path.basename(f)}"))
            for name, cols in [("count(*), sum(v)", "count(*), sum(v)"),
                               ("4 aggregates", "count(*), sum(k), max(s), min(ts)")]:
                ours, theirs = [], []
                for _ in range(a.rounds):
                    ours.append(timed([a.paimon, "sql", wh,
                                       f"SELECT {cols} FROM paimon.b.pk_l5", "--format", "csv"])[0])
                    theirs.append(peer(a.python, PLAIN, folder + "/", f"SELECT {cols} FROM t")[0])
                report(f"plain pk_l5 {name}", ours, theirs, "DataFusion plain")


if __name__ == "__main__":
    main()
