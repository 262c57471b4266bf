#!/usr/bin/env python3
# Licensed under the Apache License, Version 2.0 (same licence as the project).
"""Reads the tables whose metadata paimon-rs re-encoded (written by the end-to-end test
`reencoded` into target/reencoded) or committed (the commit tests, target/committed) with
pypaimon, and compares every row with the original table read by pypaimon. A Java-compatible
reader thereby checks the bytes of our manifest, manifest-list and snapshot encoders.

The tables are listed in `tables.json` and/or `tables-*.json` under the root: each entry names
the table, the original and rewritten warehouses and optionally `drop_where` (column -> value):
original rows whose columns print as those values are expected to be gone (an overwrite).

Usage: python scripts/check-reencoded.py [target/reencoded]
Prints one line per table and 'N passed, N failed'; exits 1 on any mismatch or error.
"""

import glob
import json
import os
import sys


def rows(warehouse, ident, drop_where=None):
    from pypaimon import CatalogFactory
    table = CatalogFactory.create({"warehouse": warehouse}).get_table(ident)
    rb = table.new_read_builder()
    got = rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist()
    if drop_where:
        got = [r for r in got
               if not all(str(r.get(k)) == v for k, v in drop_where.items())]
    return sorted(repr(sorted(r.items())) for r in got)


def tables(root):
    paths = glob.glob(os.path.join(root, "tables.json"))
    paths += sorted(glob.glob(os.path.join(root, "tables-*.json")))
    out = []
    for p in paths:
        for t in json.load(open(p))["tables"]:
            t["_index"] = os.path.basename(p)
            out.append(t)
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "target/reencoded"
    passed = failed = 0
    for t in tables(root):
        try:
            want = rows(os.path.realpath(t["original"]), t["table"],
                        t.get("drop_where"))
            got = rows(os.path.realpath(t["rewritten"]), t["table"])
            ok = got == want and (len(want) > 0 or bool(t.get("drop_where")))
            detail = "%d rows" % len(got)
        except Exception as e:  # a rewritten table pypaimon cannot read is a failure
            ok, detail = False, "error: %s" % e
        passed += ok
        failed += not ok
        name = t["table"]
        if "tables-" in t.get("_index", ""):
            name += " [%s]" % t["_index"][len("tables-"):-len(".json")]
        print("%-50s %s (%s)" % (name, "ok" if ok else "MISMATCH", detail))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed or not passed else 0)


if __name__ == "__main__":
    main()
