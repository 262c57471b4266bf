#!/usr/bin/env python3
# Licensed under the Apache License, Version 2.0 (same licence as the project).
"""Interleaved A/B of point lookups by two or more `paimon` binaries, timed as whole processes
the way `scripts/bench-peers.py` times ours: the binaries are re-cached first (see that
script's notes: a freshly written binary starts slower until re-read), and before each of our
processes runs what runs before it there, pypaimon-rust's lookup process (`--between peer`), or
nothing (`--between none`, a 20 ms pause). Rounds alternate the binaries' order; medians and
first quartiles per table, and each binary's median against the first's.

On the 2-core bench VM a change of 5% needs 60+ rounds to show, and the two `--between`
settings have given opposite answers for the same pair of binaries: measure with `peer`
before claiming an issue-10 ratio.

Usage: python scripts/ab-lookups.py WAREHOUSE BIN [BIN...] [--rounds N] [--between peer|none]
       [--python PEERS_PY] [--tables pk_l0,pk_l5]
A binary may carry environment settings: `path|NAME=value;NAME2=value`.
"""

import argparse
import importlib.util
import os
import shutil
import statistics
import subprocess
import time


def bench_peers():
    """`scripts/bench-peers.py` as a module (its lookup script, key and re-caching)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-peers.py")
    spec = importlib.util.spec_from_file_location("bench_peers", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def variant(text):
    """A binary and its environment from `path|NAME=value;...`."""
    path, _, settings = text.partition("|")
    env = dict(os.environ)
    for setting in filter(None, settings.split(";")):
        name, _, value = setting.partition("=")
        env[name] = value
    return path, env


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("warehouse")
    ap.add_argument("binaries", nargs="+")
    ap.add_argument("--rounds", type=int, default=60)
    ap.add_argument("--between", choices=["peer", "none"], default="peer")
    ap.add_argument("--python", default="python3")
    ap.add_argument("--tables", default="pk_l0,pk_l5")
    a = ap.parse_args()
    bp = bench_peers()
    wh = os.path.abspath(a.warehouse)
    variants = [variant(b) for b in a.binaries]
    bp.recache(sorted({shutil.which(p) or p for p, _ in variants}))
    tables = a.tables.split(",")
    times = {(i, t): [] for i in range(len(variants)) for t in tables}
    for r in range(a.rounds):
        for t in tables:
            order = list(range(len(variants)))
            if r % 2:
                order.reverse()
            for i in order:
                path, env = variants[i]
                if a.between == "peer":
                    subprocess.run([a.python, "-c", bp.PEER_POINT, wh, t],
                                   capture_output=True, check=True)
                else:
                    time.sleep(0.02)
                t0 = time.perf_counter()
                out = subprocess.run([path, "read", wh, f"b.{t}", "--where", f"id = {bp.KEY}",
                                      "--format", "jsonl"],
                                     capture_output=True, text=True, env=env, check=True).stdout
                times[(i, t)].append((time.perf_counter() - t0) * 1000)
                assert out.count("\n") == 1, out
    for t in tables:
        first = statistics.median(times[(0, t)])
        for i, text in enumerate(a.binaries):
            x = times[(i, t)]
            median = statistics.median(x)
            print(f"{t}  {text[-40:]:40s}  median {median:6.2f} ms  "
                  f"p25 {statistics.quantiles(x, n=4)[0]:6.2f} ms  x{median / first:5.3f}")


if __name__ == "__main__":
    main()
