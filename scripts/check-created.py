#!/usr/bin/env python3
# Licensed under the Apache License, Version 2.0 (same licence as the project).
"""Loads the tables paimon-rs created or altered (written by the end-to-end test `catalog` into
target/created) with pypaimon and checks that pypaimon sees the schema we meant: the same
fields (ids, names, types, descriptions), primary keys, partition keys and options, and the
expected number of rows. Tables marked writable also get two rows written and committed by
pypaimon, which must then read them back.

Usage: python scripts/check-created.py [target/created]
Prints one line per table and 'N passed, N failed'; exits 1 on any mismatch or error.
"""

import json
import os
import sys


def read_count(table):
    rb = table.new_read_builder()
    splits = rb.new_scan().plan().splits()
    if not splits:
        return 0
    return rb.new_read().to_arrow(splits).num_rows


def write_two_rows(table):
    import pyarrow as pa
    builder = table.new_batch_write_builder()
    writer, committer = builder.new_write(), builder.new_commit()
    writer.write_arrow(pa.Table.from_pylist(
        [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}],
        schema=pa.schema([("id", pa.int64()), ("v", pa.string())])))
    committer.commit(writer.prepare_commit())
    writer.close()
    committer.close()


def normalize(v):
    """pypaimon's DataField.to_dict adds 'nullable' to nested types; drop it where the type
    string already says the same (Java writes no such key)."""
    if isinstance(v, list):
        return [normalize(x) for x in v]
    if not isinstance(v, dict):
        return v
    out = {k: normalize(x) for k, x in v.items()}
    if "nullable" in out and isinstance(out.get("type"), str) and \
            out["nullable"] == (not out["type"].endswith("NOT NULL")):
        del out["nullable"]
    return out


def check(catalog, t):
    table = catalog.get_table(t["table"])
    schema = table.table_schema
    fields = normalize([f.to_dict() for f in schema.fields])
    problems = []
    if fields != t["fields"]:
        problems.append("fields %s != %s" % (fields, t["fields"]))
    for key in ("primary_keys", "partition_keys"):
        if list(getattr(schema, key)) != t[key]:
            problems.append("%s %s != %s" % (key, getattr(schema, key), t[key]))
    if dict(schema.options) != t["options"]:
        problems.append("options %s != %s" % (schema.options, t["options"]))
    rows = read_count(table)
    if rows != t["rows"]:
        problems.append("%d rows, expected %d" % (rows, t["rows"]))
    if t.get("writable") and not problems:
        write_two_rows(table)
        rows = read_count(catalog.get_table(t["table"]))
        if rows != t["rows"] + 2:
            problems.append("after a pypaimon write: %d rows" % rows)
    return problems, rows


def main():
    from pypaimon import CatalogFactory
    root = sys.argv[1] if len(sys.argv) > 1 else "target/created"
    index = json.load(open(os.path.join(root, "tables.json")))
    catalog = CatalogFactory.create({"warehouse": os.path.realpath(index["warehouse"])})
    passed = failed = 0
    for t in index["tables"]:
        try:
            problems, rows = check(catalog, t)
            ok, detail = not problems, "; ".join(problems) or "%d rows" % rows
        except Exception as e:  # a table pypaimon cannot load is a failure
            ok, detail = False, "error: %s" % e
        passed += ok
        failed += not ok
        print("%-30s %s (%s)" % (t["table"], "ok" if ok else "MISMATCH", detail))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed or not passed else 0)


if __name__ == "__main__":
    main()
