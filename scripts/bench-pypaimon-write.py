#!/usr/bin/env python3
# Licensed under the Apache License, Version 2.0 (same licence as the project).
"""pypaimon's side of `paimon bench-write`: the same generated rows (`id BIGINT NOT NULL`
primary key, `v BIGINT`, `s STRING`; ids a permutation of 0..rows, `v = 7 * id`,
`s = 's' + id % 1000`, ids in the same order) written into a new 8-bucket primary-key table in one commit, timed
from the first write to the end of the commit (imports, table creation and row generation
excluded, as on our side).

Usage: python scripts/bench-pypaimon-write.py DIR [--rows N] [--buckets B]
(an interpreter with pypaimon==2.1.0, pyarrow and numpy).
"""

import argparse
import math
import os
import time

import numpy as np
import pyarrow as pa
from pypaimon import CatalogFactory, Schema


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--rows", type=int, default=3_000_000)
    ap.add_argument("--buckets", type=int, default=8)
    ap.add_argument("--batch-rows", type=int, default=8192)
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=False)
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False),
                        pa.field("v", pa.int64()), pa.field("s", pa.string())])
    catalog = CatalogFactory.create({"warehouse": a.dir})
    catalog.create_database("b", False)
    catalog.create_table("b.pk", Schema.from_pyarrow_schema(
        schema, primary_keys=["id"], options={"bucket": str(a.buckets)}), False)
    table = catalog.get_table("b.pk")
    # The same permutation as `paimon bench-write`: the first step above 2654435761 coprime
    # with the row count.
    step = 2_654_435_762
    while math.gcd(step, max(a.rows, 1)) != 1:
        step += 1
    ids = (np.arange(a.rows, dtype=np.uint64) * np.uint64(step)) % np.uint64(a.rows)
    ids = ids.astype(np.int64)
    batches = []
    for start in range(0, a.rows, a.batch_rows):
        chunk = ids[start:start + a.batch_rows]
        batches.append(pa.record_batch([
            pa.array(chunk), pa.array(chunk * 7),
            pa.array(["s%d" % (i % 1000) for i in chunk.tolist()])], schema=schema))
    t0 = time.perf_counter()
    wb = table.new_batch_write_builder()
    w = wb.new_write()
    for b in batches:
        w.write_arrow_batch(b)
    messages = w.prepare_commit()
    wb.new_commit().commit(messages)
    w.close()
    print("pypaimon write + commit %.3f s  %.0f rows/s" % (
        time.perf_counter() - t0, a.rows / (time.perf_counter() - t0)))


if __name__ == "__main__":
    main()
