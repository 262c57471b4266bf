#!/usr/bin/env python3
# Licensed under the Apache License, Version 2.0 (same licence as the project).
"""Random fixed-bucket tables for the bucket-pruning property test, written by pypaimon 2.1.0.

For a seed, writes TABLES tables into OUT/warehouse (database `rnd`): random bucket-key types
(one or two keys among INT, BIGINT, STRING, DECIMAL(10,2), DECIMAL(20,4), DATE), random bucket
counts, append or primary-key, sometimes partitioned, 2-3 commits of random rows (primary-key
commits update earlier keys). OUT/tables.json lists {name, path, bucket_keys}. The Rust test
reads each table unpruned, then compares random equality/IN/OR predicates pruned vs unpruned.

Usage: python gen-random-bucket-tables.py OUT [--seed S] [--tables N]
"""

import argparse
import datetime
import decimal
import os
import random

import pyarrow as pa

from pypaimon_util import commit_batch, create_table, fresh_catalog, write_tables_json

KEY_TYPES = {
    "INT": (pa.int32(), lambda r: r.randint(-50, 50)),
    "BIGINT": (pa.int64(), lambda r: r.randint(-2**40, 2**40) if r.random() < 0.3 else r.randint(-60, 60)),
    "STRING": (pa.string(), lambda r: r.choice(["", "a", "bb", "seven77", "eight888", "a longer key value", "ü"]) + str(r.randint(0, 9))),
    "DECIMAL(10, 2)": (pa.decimal128(10, 2), lambda r: decimal.Decimal(r.randint(-9999, 9999)).scaleb(-2)),
    "DECIMAL(20, 4)": (pa.decimal128(20, 4), lambda r: decimal.Decimal(r.randint(-10**12, 10**12)).scaleb(-4)),
    "DATE": (pa.date32(), lambda r: datetime.date(1960, 1, 1) + datetime.timedelta(days=r.randint(0, 30000))),
}


def make_table(catalog, rng, idx):
    nkeys = 1 if rng.random() < 0.7 else 2
    key_types = [rng.choice(list(KEY_TYPES)) for _ in range(nkeys)]
    keys = ["k%d" % i for i in range(nkeys)]
    pk = rng.random() < 0.5
    partitioned = rng.random() < 0.4
    buckets = rng.choice([1, 2, 3, 4, 7, 8, 16])
    fields = [pa.field(k, KEY_TYPES[t][0], nullable=not pk) for k, t in zip(keys, key_types)]
    if partitioned:
        fields.append(pa.field("p", pa.string(), nullable=False))
    fields.append(pa.field("v", pa.int64()))
    schema = pa.schema(fields)
    options = {"bucket": str(buckets)}
    if not pk:
        options["bucket-key"] = ",".join(keys)
    primary = (keys + (["p"] if partitioned else [])) if pk else None
    name = "t%02d" % idx
    table = create_table(catalog, "rnd." + name, schema, options, primary_keys=primary,
                         partition_keys=["p"] if partitioned else None)
    seen = []
    for commit in range(rng.randint(2, 3)):
        rows = []
        for _ in range(rng.randint(40, 120)):
            if pk and seen and rng.random() < 0.3:
                row = dict(rng.choice(seen))
            else:
                row = {k: KEY_TYPES[t][1](rng) for k, t in zip(keys, key_types)}
                if partitioned:
                    row["p"] = rng.choice(["x", "y"])
            row["v"] = rng.randint(0, 10**6)
            rows.append(row)
        if pk:
            dedup = {}
            for r in rows:
                dedup[tuple(r[c] for c in primary)] = r
            rows = list(dedup.values())
        seen.extend(rows)
        commit_batch(table, rows, schema)
    return {"name": name, "path": "warehouse/rnd.db/" + name, "bucket_keys": keys,
            "key_types": key_types, "buckets": buckets, "primary_key": pk}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--tables", type=int, default=10)
    args = ap.parse_args()
    catalog = fresh_catalog(args.out, "rnd")
    rng = random.Random(args.seed)
    tables = [make_table(catalog, rng, i) for i in range(args.tables)]
    write_tables_json(args.out, tables, seed=args.seed)
    print("wrote", len(tables), "random tables to", os.path.abspath(args.out))


if __name__ == "__main__":
    main()
