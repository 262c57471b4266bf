#!/usr/bin/env python3
# Licensed under the Apache License, Version 2.0 (same licence as the project).
"""Write a multi-file append table for `paimon bench` with pypaimon 2.1.0.

Table `bench.append_wide` in WAREHOUSE: bucket-unaware append table, N rows written in FILES
commits (one Parquet file each), columns id BIGINT, k INT, v DOUBLE, s STRING, ts TIMESTAMP(6),
amount DECIMAL(12, 2). Deterministic content (numpy, fixed seed).

Usage: .venv-pypaimon/bin/python scripts/make_bench_append.py WAREHOUSE [--rows N] [--files F]
"""

import argparse

import numpy as np
import pyarrow as pa

from pypaimon_util import commit_batch, create_table, fresh_catalog

SCHEMA = pa.schema([
    pa.field("id", pa.int64(), nullable=False),
    ("k", pa.int32()),
    ("v", pa.float64()),
    ("s", pa.string()),
    ("ts", pa.timestamp("us")),
    ("amount", pa.decimal128(12, 2)),
])


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("warehouse")
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--files", type=int, default=16)
    args = ap.parse_args()
    catalog = fresh_catalog(args.warehouse, "bench", warehouse=None)
    table = create_table(catalog, "bench.append_wide", SCHEMA, {"bucket": "-1"})
    rng = np.random.default_rng(20240601)
    per = args.rows // args.files
    for f in range(args.files):
        ids = np.arange(f * per, (f + 1) * per, dtype=np.int64)
        words = np.array(["alpha", "beta", "gamma", "delta", "epsilon-long-value"])
        batch = pa.table({
            "id": ids,
            "k": rng.integers(0, 1000, per, dtype=np.int32),
            "v": rng.random(per),
            "s": words[rng.integers(0, len(words), per)],
            "ts": pa.array(1_700_000_000_000_000 + ids * 1000, pa.timestamp("us")),
            "amount": pa.array(rng.integers(0, 10_000_000, per), pa.int64()).cast(pa.decimal128(19, 0)).cast(pa.decimal128(12, 2)),
        }, schema=SCHEMA)
        commit_batch(table, batch)
    print("wrote", args.rows, "rows in", args.files, "commits to", args.warehouse)


if __name__ == "__main__":
    main()
