#!/usr/bin/env python3
# Licensed under the Apache License, Version 2.0 (same licence as the project).
"""Write aggregation and partial-update benchmark tables for `paimon bench` with pypaimon 2.1.0.

Database `bench` in WAREHOUSE, two primary-key tables of N keys (default 1,000,000), 8 buckets,
each bucket holding three level-0 sorted runs (commit 1: every key; commits 2 and 3: a random
half of the keys each), so about three quarters of the keys are merged from two or three
records on read:

- `agg`: `merge-engine = aggregation`; columns `id BIGINT` (key), `total BIGINT` (`sum`),
  `amount DOUBLE` (`sum`), `hi INT` (`max`), `name STRING` (`last_non_null_value`, the
  default; a tenth of the updates leave it null).
- `pu`: `merge-engine = partial-update`; columns `id BIGINT` (key), `a INT`, `b STRING`
  (no group: non-null overwrite; updates leave about half of them null), `ver BIGINT`,
  `g1 DOUBLE`, `g2 STRING` with one sequence group `fields.ver.sequence-group = g1,g2` (a
  quarter of the updates carry an older `ver` and must not overwrite the group).

pypaimon's writer refuses sequence groups, so `pu` is created with `merge-engine` only and the
group is set afterwards with `alter_table` (readers use the latest schema's options). Every
commit holds each key once, so the writer's own per-key fold is replaced by the identity.
Deterministic content (numpy, fixed seed).

Usage (from the repository root; release build of the CLI):

    .venv-pypaimon/bin/python scripts/make_bench_agg.py target/bench-agg --rows 1000000
    cargo build --release -p paimon-cli
    $CARGO_TARGET_DIR/release/paimon bench target/bench-agg bench.agg --iterations 5
    $CARGO_TARGET_DIR/release/paimon bench target/bench-agg bench.pu --iterations 5

`paimon bench` prints the paimon-rs median against a direct arrow-rs read of the same files
(as a ratio); the machine is shared and noisy, so run each side several times and compare
medians.
"""

import argparse
import time

import numpy as np
import pyarrow as pa

from pypaimon_util import commit_batch, create_table, fresh_catalog, set_options, unique_keys_fold

BUCKETS = "8"

AGG = pa.schema([
    pa.field("id", pa.int64(), nullable=False),
    ("total", pa.int64()),
    ("amount", pa.float64()),
    ("hi", pa.int32()),
    ("name", pa.string()),
])

PU = pa.schema([
    pa.field("id", pa.int64(), nullable=False),
    ("a", pa.int32()),
    ("b", pa.string()),
    ("ver", pa.int64()),
    ("g1", pa.float64()),
    ("g2", pa.string()),
])


def names(ids, gen):
    return np.char.add(np.char.add("name-", (ids % 100_000).astype(str)), "-%d" % gen).astype(object)


def masked(values, rng, null_fraction):
    mask = rng.random(len(values)) < null_fraction
    return pa.array(values, mask=mask)


def agg_batch(ids, gen, rng):
    n = len(ids)
    null = 0.0 if gen == 0 else 0.1
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "total": pa.array(rng.integers(-1_000_000, 1_000_000, n, dtype=np.int64)),
        "amount": pa.array(rng.random(n) * 100.0),
        "hi": pa.array(rng.integers(0, 1_000_000, n, dtype=np.int32)),
        "name": masked(names(ids, gen), rng, null),
    }, schema=AGG)


def pu_batch(ids, gen, rng):
    n = len(ids)
    null = 0.0 if gen == 0 else 0.5
    # versions grow with the commit; a quarter of the updates are older than commit 1's
    ver = np.full(n, 10 * (gen + 1), dtype=np.int64)
    if gen > 0:
        ver[rng.random(n) < 0.25] = 5
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "a": masked(rng.integers(0, 1_000_000, n, dtype=np.int32), rng, null),
        "b": masked(names(ids, gen), rng, null),
        "ver": pa.array(ver),
        "g1": pa.array(rng.random(n)),
        "g2": pa.array(names(ids, gen + 7)),
    }, schema=PU)


def make(catalog, name, schema, options, batch, runs, later=None):
    ident = "bench." + name
    table = create_table(catalog, ident, schema, dict(options, bucket=BUCKETS),
                         primary_keys=["id"])
    rng = np.random.default_rng(20260601)
    start = time.time()
    for gen, ids in enumerate(runs):
        commit_batch(table, batch(ids, gen, rng))
    if later:
        set_options(catalog, ident, later)
    print("%s: %d records in %d commits, %.1fs" % (
        ident, sum(len(r) for r in runs), len(runs), time.time() - start))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("warehouse")
    ap.add_argument("--rows", type=int, default=1_000_000)
    args = ap.parse_args()
    catalog = fresh_catalog(args.warehouse, "bench", warehouse=None)
    # Each commit holds every key at most once (unchecked: a million keys per commit).
    unique_keys_fold(check=False)
    rng = np.random.default_rng(42)
    n = args.rows
    runs = [rng.permutation(n).astype(np.int64)]
    for _ in range(2):
        runs.append(rng.choice(n, n // 2, replace=False).astype(np.int64))
    make(catalog, "agg", AGG, {
        "merge-engine": "aggregation",
        "fields.total.aggregate-function": "sum",
        "fields.amount.aggregate-function": "sum",
        "fields.hi.aggregate-function": "max",
        "fields.name.aggregate-function": "last_non_null_value",
    }, agg_batch, runs)
    make(catalog, "pu", PU, {"merge-engine": "partial-update"}, pu_batch, runs,
         later={"fields.ver.sequence-group": "g1,g2"})


if __name__ == "__main__":
    main()
