#!/usr/bin/env python3
# Licensed under the Apache License, Version 2.0 (same licence as the project).
"""Write the small sample Paimon warehouse shipped in `examples/warehouse`.

The tables are written by pypaimon 2.1.0 (Apache Paimon's Python implementation) through its
public API: filesystem catalog, `Schema.from_pyarrow_schema`, batch write builder, commit.
Row content is deterministic (fixed seed); file names (UUIDs), snapshot times and commit users
are not, so re-running changes file names but not the rows.

Database `demo`:
  orders           append table partitioned by dt (3 dates), bucket-unaware, 3 commits
  customers_pk     primary-key table (id), bucket=4, 2 commits (the second updates keys)
  events_bucketed  append table, bucket=4, bucket-key=id, 2 commits

Usage: python make_sample_warehouse.py [--out examples/warehouse]
(run it with the interpreter printed by scripts/setup-pypaimon.sh)
"""

import argparse
import datetime as dt
import decimal
import importlib.metadata
import os
import random
import sys

import pyarrow as pa

from pypaimon_util import commit_batch, create_table, fresh_catalog

SEED = 20240601
DB = "demo"
TESTED_PYPAIMON = "2.1.0"
DATES = ["2024-01-01", "2024-01-02", "2024-01-03"]
CUSTOMERS = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan",
             "judy", "mallory", "niaj", "olivia", "peggy", "rupert", "sybil", "trent", "walter"]
CITIES = ["Amsterdam", "Berlin", "Lisbon", "Madrid", "Paris", "Prague", "Rome", "Vienna",
          "Zürich", "São Paulo"]
EVENTS = ["click", "view", "purchase", "signup", "logout"]

ORDERS = pa.schema([
    pa.field("order_id", pa.int64(), nullable=False),
    pa.field("dt", pa.string(), nullable=False),
    ("customer", pa.string()),
    ("amount", pa.decimal128(10, 2)),
    ("ts", pa.timestamp("us")),
])
CUSTOMERS_PK = pa.schema([
    pa.field("id", pa.int64(), nullable=False),
    ("name", pa.string()),
    ("city", pa.string()),
    ("score", pa.float64()),
])
EVENTS_SCHEMA = pa.schema([
    pa.field("id", pa.int64(), nullable=False),
    ("event", pa.string()),
    ("value", pa.int32()),
    ("ts", pa.timestamp("ms")),
])


def write(table, schema, rows):
    """One commit through pypaimon's public batch-write API."""
    commit_batch(table, rows, schema)


def create(catalog, name, schema, options, primary_keys=None, partition_keys=None):
    ident = "%s.%s" % (DB, name)
    create_table(catalog, ident, schema, options, primary_keys, partition_keys)
    return ident


def make_orders(rng, catalog):
    ident = create(catalog, "orders", ORDERS, {"bucket": "-1"}, partition_keys=["dt"])
    rows = []
    for order_id in range(1, 601):
        day = DATES[rng.randrange(len(DATES))]
        base = dt.datetime.fromisoformat(day)
        rows.append({
            "order_id": order_id,
            "dt": day,
            "customer": None if rng.random() < 0.03 else rng.choice(CUSTOMERS),
            "amount": decimal.Decimal(rng.randint(100, 99999)).scaleb(-2),
            "ts": base + dt.timedelta(seconds=rng.randrange(86400), microseconds=rng.randrange(10**6)),
        })
    for i in range(3):
        write(catalog.get_table(ident), ORDERS, rows[i * 200:(i + 1) * 200])
    return {"rows": len(rows), "commits": 3,
            "sum_amount": str(sum(r["amount"] for r in rows)),
            "rows_per_dt": ", ".join("%s: %d" % (d, sum(r["dt"] == d for r in rows))
                                    for d in DATES)}


def customer(rng, cid):
    return {"id": cid,
            "name": "%s-%d" % (rng.choice(CUSTOMERS), cid),
            "city": None if rng.random() < 0.05 else rng.choice(CITIES),
            "score": round(rng.uniform(0, 100), 3)}


def make_customers(rng, catalog):
    ident = create(catalog, "customers_pk", CUSTOMERS_PK, {"bucket": "4"}, primary_keys=["id"])
    first = [customer(rng, cid) for cid in range(1, 181)]
    write(catalog.get_table(ident), CUSTOMERS_PK, first)
    updated_ids = sorted(rng.sample(range(1, 181), 40))
    second = [customer(rng, cid) for cid in updated_ids] + \
             [customer(rng, cid) for cid in range(181, 201)]
    write(catalog.get_table(ident), CUSTOMERS_PK, second)
    latest = {r["id"]: r for r in first}
    latest.update({r["id"]: r for r in second})
    return {"rows": len(latest), "commits": 2, "updated_ids": updated_ids,
            "sum_score": round(sum(r["score"] for r in latest.values()), 3)}


def make_events(rng, catalog):
    ident = create(catalog, "events_bucketed", EVENTS_SCHEMA,
                   {"bucket": "4", "bucket-key": "id"})
    start = dt.datetime(2024, 1, 1)
    rows = [{"id": rng.randint(1, 50),
             "event": rng.choice(EVENTS),
             "value": None if rng.random() < 0.05 else rng.randint(-1000, 1000),
             "ts": start + dt.timedelta(milliseconds=rng.randrange(3 * 86400 * 1000))}
            for _ in range(300)]
    write(catalog.get_table(ident), EVENTS_SCHEMA, rows[:150])
    write(catalog.get_table(ident), EVENTS_SCHEMA, rows[150:])
    return {"rows": len(rows), "commits": 2,
            "rows_with_id_7": sum(r["id"] == 7 for r in rows)}


README = """# Sample Paimon warehouse

Written by `scripts/make_sample_warehouse.py` with **pypaimon {version}** (seed {seed});
do not edit by hand. Database `demo`, filesystem catalog layout (`demo.db/<table>/`).

| table | kind | commits | rows | facts |
|---|---|---|---|---|
| `orders` | append, partitioned by `dt` (STRING), bucket-unaware | {o[commits]} | {o[rows]} | rows per dt: {o[rows_per_dt]}; sum(amount) = {o[sum_amount]} |
| `customers_pk` | primary key `id`, `bucket=4`, deduplicate | {c[commits]} | {c[rows]} | second commit updates 40 keys and adds ids 181..200; sum(score) = {c[sum_score]} |
| `events_bucketed` | append, `bucket=4`, `bucket-key=id` | {e[commits]} | {e[rows]} | rows with id = 7: {e[rows_with_id_7]} |

Row content is deterministic; file names, snapshot times and commit users change on every run.
"""


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(here, "..", "examples", "warehouse"),
                    help="warehouse directory (replaced if it exists)")
    args = ap.parse_args()
    out = os.path.abspath(args.out)
    version = importlib.metadata.version("pypaimon")
    if version != TESTED_PYPAIMON:
        print("warning: written for pypaimon %s, running %s" % (TESTED_PYPAIMON, version),
              file=sys.stderr)
    catalog = fresh_catalog(out, DB, warehouse=None)
    rng = random.Random(SEED)
    facts = {"o": make_orders(rng, catalog), "c": make_customers(rng, catalog),
             "e": make_events(rng, catalog)}
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write(README.format(version=version, seed=SEED, **facts))
    size = sum(os.path.getsize(os.path.join(d, n)) for d, _, ns in os.walk(out) for n in ns)
    print("wrote %s (%d bytes)" % (out, size))
    return 0


if __name__ == "__main__":
    sys.exit(main())
