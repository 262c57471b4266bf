#!/usr/bin/env python3
# Licensed under the Apache License, Version 2.0 (same licence as the project).
"""Write the primary-key benchmark tables for `paimon bench` with pypaimon 2.1.0.

Two tables in database `b` of the warehouse (default `./wh`, recreated), both with primary key
`id` and 8 buckets, columns id BIGINT NOT NULL, k INT, v DOUBLE, s STRING, ts TIMESTAMP(6):

  b.pk_l0  N rows, then an update of a random 10% of the ids: two level-0 sorted runs per
           bucket, so a read merges them (merge-on-read).
  b.pk_l5  N rows with `deletion-vectors.enabled`, committed directly on level 5 (the file
           metadata is rewritten to level 5 / source COMPACT before the commit, which emulates
           a full compaction pypaimon cannot run): every file is read raw, no merge.

The content is deterministic (numpy, seed 42), so figures taken on tables of the same N are
comparable.

Usage: .venv-pypaimon/bin/python scripts/make_bench_pk.py [N] [--warehouse DIR]
       (N defaults to 3000000), then e.g. `paimon bench wh/b.db/pk_l0`.
"""

import argparse
import dataclasses
import shutil
import time

import numpy as np
import pyarrow as pa
from pypaimon import CatalogFactory, Schema

SCHEMA = pa.schema([
    pa.field("id", pa.int64(), nullable=False),
    ("k", pa.int32()),
    ("v", pa.float64()),
    ("s", pa.string()),
    ("ts", pa.timestamp("us")),
])
BUCKETS = "8"


def batch(rng, ids, generation):
    """Rows for `ids`; `generation` shifts `ts` so an update differs from the row it replaces."""
    n = len(ids)
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "k": pa.array(rng.integers(0, 1000, n, dtype=np.int32)),
        "v": pa.array(rng.random(n)),
        "s": pa.array(np.char.add("name-", (ids % 100000).astype(str)).astype(object)),
        "ts": pa.array((1_700_000_000_000_000 + ids * 1000 + generation).astype("datetime64[us]")),
    }, schema=SCHEMA)


def commit(table, data):
    builder = table.new_batch_write_builder()
    write = builder.new_write()
    committer = builder.new_commit()
    write.write_arrow(data)
    committer.commit(write.prepare_commit())
    write.close()
    committer.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rows", nargs="?", type=int, default=3_000_000)
    ap.add_argument("--warehouse", default="wh")
    args = ap.parse_args()
    n = args.rows

    shutil.rmtree(args.warehouse, ignore_errors=True)
    catalog = CatalogFactory.create({"warehouse": args.warehouse})
    catalog.create_database("b", False)
    rng = np.random.default_rng(42)
    ids = rng.permutation(n).astype(np.int64)
    updated = rng.choice(n, n // 10, replace=False).astype(np.int64)

    # pk_l0: two level-0 sorted runs per bucket.
    schema = Schema.from_pyarrow_schema(SCHEMA, primary_keys=["id"], options={"bucket": BUCKETS})
    catalog.create_table("b.pk_l0", schema, False)
    t0 = time.time()
    commit(catalog.get_table("b.pk_l0"), batch(rng, ids, 0))
    t1 = time.time()
    commit(catalog.get_table("b.pk_l0"), batch(rng, updated, 1))
    t2 = time.time()
    print("pk_l0 write %.1fs + %.1fs" % (t1 - t0, t2 - t1))

    # pk_l5: deletion vectors enabled, every file on level 5 (emulated full compaction).
    options = {"bucket": BUCKETS, "deletion-vectors.enabled": "true"}
    schema = Schema.from_pyarrow_schema(SCHEMA, primary_keys=["id"], options=options)
    catalog.create_table("b.pk_l5", schema, False)
    table = catalog.get_table("b.pk_l5")
    write = table.new_batch_write_builder().new_write()
    write.write_arrow(batch(rng, ids, 0))
    messages = write.prepare_commit()
    write.close()
    for m in messages:
        m.new_files = [dataclasses.replace(f, level=5, file_source=1) for f in m.new_files]
    committer = table.new_batch_write_builder().new_commit()
    committer.commit(messages)
    committer.close()
    print("pk_l5 write %.1fs" % (time.time() - t2))


if __name__ == "__main__":
    main()
