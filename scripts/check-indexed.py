#!/usr/bin/env python3
# Licensed under the Apache License, Version 2.0 (same licence as the project).
"""Has pypaimon 2.1.0 read a table whose pk-btree payloads paimon-rs built (the end-to-end
test `index_build` leaves it in target/indexed): for each value, `column = value` read through
pypaimon's primary-key index path must narrow splits with our payloads (IndexedSplit) and
return exactly the rows of a full pypaimon scan filtered in Python.

pypaimon 2.1.0 passes no executor to its payload reader (its index evaluation then fails and
silently falls back to a full scan), so one is supplied here, as the fixture generator does.

Usage: python scripts/check-indexed.py [target/indexed]
Prints one line per query and 'N passed, N failed'; exits 1 on any failure.
"""

import concurrent.futures
import json
import os
import sys


def patch_executor():
    import pypaimon.globalindex.data_evolution_global_index_scanner as scanner
    import pypaimon.table.source.primary_key_sorted_index_scan as pk_scan
    executor = concurrent.futures.ThreadPoolExecutor(2)
    original = scanner._create_inner_readers

    def with_executor(index_type, file_io, index_path, field, io_metas, executor_=None,
                      options=None):
        return original(index_type, file_io, index_path, field, io_metas,
                        executor_ or executor, options)
    pk_scan._create_inner_readers = with_executor


def main():
    from pypaimon import CatalogFactory
    root = sys.argv[1] if len(sys.argv) > 1 else "target/indexed"
    patch_executor()
    passed = failed = 0
    for t in json.load(open(os.path.join(root, "tables.json")))["tables"]:
        table = CatalogFactory.create({"warehouse": os.path.realpath(t["warehouse"])}) \
            .get_table(t["table"])
        rb = table.new_read_builder()
        everything = rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist()
        column = t["column"]
        for v in t["values"]:
            rb = table.new_read_builder()
            rb = rb.with_filter(rb.new_predicate_builder().equal(column, v))
            splits = rb.new_scan().plan().splits()
            indexed = sum(type(s).__name__ == "IndexedSplit" for s in splits)
            got = [r for r in rb.new_read().to_arrow(splits).to_pylist() if r[column] == v]
            want = [r for r in everything if r[column] == v]
            ok = indexed > 0 and sorted(map(repr, got)) == sorted(map(repr, want))
            passed += ok
            failed += not ok
            print("%-28s %s = %-4r %s (%d rows, %d indexed splits)"
                  % (t["table"], column, v, "ok" if ok else "MISMATCH", len(got), indexed))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed or not passed else 0)


if __name__ == "__main__":
    main()
