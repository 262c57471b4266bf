#!/usr/bin/env python3
# Licensed under the Apache License, Version 2.0 (same licence as the project).
"""Writes two small primary-key tables with pypaimon 2.1.0 into `warehouse/` beside this file:

Both have columns dt STRING, id BIGINT, v STRING and the row-kind column rk (`rowkind.field`).

- `db.dynamic`: `bucket = -1` (dynamic bucket), partitioned by `dt`, primary key (dt, id),
  `dynamic-bucket.target-row-num = 5`, three commits of upserts and deletes, so several buckets
  per partition and HASH index files replaced across commits;
- `db.postpone`: `bucket = -2` (postpone bucket), one commit of two batches (files in
  `bucket-postpone`, which batch reads skip until compacted).

and `expected.json`: the live rows of `db.dynamic` after each commit (from the script's own
model, not read back), and the rows written into `db.postpone`.

Usage (from the repository root):
    .venv-pypaimon/bin/python testdata/pypaimon/dynamic_bucket/generate.py
"""

import json
import os
import shutil

import pyarrow as pa
from pypaimon import CatalogFactory, Schema

HERE = os.path.dirname(os.path.abspath(__file__))
WAREHOUSE = os.path.join(HERE, "warehouse")

ARROW = pa.schema([
    pa.field("dt", pa.string(), nullable=False),
    pa.field("id", pa.int64(), nullable=False),
    pa.field("v", pa.string()),
    pa.field("rk", pa.string()),
])

# (rows, deleted keys) per commit; a row is (dt, id, v).
COMMITS = [
    ([("a", i, "a%d-0" % i) for i in range(12)] + [("b", i, "b%d-0" % i) for i in range(7)], []),
    ([("a", i, "a%d-1" % i) for i in range(8, 20)] + [("b", 3, "b3-1")], [("a", 1), ("b", 5)]),
    ([("b", i, "b%d-2" % i) for i in range(5, 16)] + [("a", 2, "a2-2")], [("a", 19)]),
]


def write(table, rows, kinds):
    wb = table.new_batch_write_builder()
    w = wb.new_write()
    c = wb.new_commit()
    kinds = kinds or ["+I"] * len(rows)
    data = pa.Table.from_pylist(
        [{"dt": r[0], "id": r[1], "v": r[2], "rk": k} for r, k in zip(rows, kinds)],
        schema=ARROW)
    w.write_arrow(data)
    c.commit(w.prepare_commit())
    w.close()
    c.close()


def main():
    shutil.rmtree(WAREHOUSE, ignore_errors=True)
    catalog = CatalogFactory.create({"warehouse": WAREHOUSE})
    catalog.create_database("db", False)
    schema = Schema.from_pyarrow_schema(
        ARROW, partition_keys=["dt"], primary_keys=["dt", "id"],
        options={"bucket": "-1", "dynamic-bucket.target-row-num": "5", "rowkind.field": "rk"})
    catalog.create_table("db.dynamic", schema, False)
    table = catalog.get_table("db.dynamic")
    model = {}
    snapshots = []
    for rows, deletes in COMMITS:
        batch = list(rows) + [(dt, i, None) for dt, i in deletes]
        kinds = ["+I"] * len(rows) + ["-D"] * len(deletes)
        write(table, batch, kinds)
        for dt, i, v in rows:
            model[(dt, i)] = v
        for key in deletes:
            model.pop(key, None)
        snapshots.append(sorted([dt, i, v, "+I"] for (dt, i), v in model.items()))

    schema = Schema.from_pyarrow_schema(
        ARROW, partition_keys=["dt"], primary_keys=["dt", "id"], options={"bucket": "-2", "rowkind.field": "rk"})
    catalog.create_table("db.postpone", schema, False)
    postpone = catalog.get_table("db.postpone")
    written = [("a", i, "p%d" % i) for i in range(6)] + [("b", 1, "p-b")]
    write(postpone, written, None)

    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump({"writer": "pypaimon 2.1.0", "dynamic": snapshots,
                   "postpone_written": [list(r) for r in written]}, f)
        f.write("\n")


if __name__ == "__main__":
    main()
