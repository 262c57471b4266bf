#!/usr/bin/env python3
# Licensed under the Apache License, Version 2.0 (same licence as the project).
"""Times pypaimon 2.1.0 answering `column = value` on a primary-key table with pk-btree
payloads, in process (import and catalog time excluded), with its index path and with
`global-index.enabled = false`; the peer figure for `paimon read ... --metrics`.

pypaimon 2.1.0 passes no executor to its payload reader (its index evaluation then fails and
silently falls back to a full scan), so a thread pool is supplied here, as
`scripts/check-indexed.py` does.

Usage: python scripts/bench-pk-index.py WAREHOUSE DB.TABLE COLUMN VALUE [RUNS]
Prints one line per mode: median seconds over RUNS (default 5), rows, indexed splits.
"""

import concurrent.futures
import statistics
import sys
import time


def patch_executor(workers):
    import pypaimon.globalindex.data_evolution_global_index_scanner as scanner
    import pypaimon.table.source.primary_key_sorted_index_scan as pk_scan
    executor = concurrent.futures.ThreadPoolExecutor(workers)
    original = scanner._create_inner_readers

    def with_executor(index_type, file_io, index_path, field, io_metas, executor_=None,
                      options=None):
        return original(index_type, file_io, index_path, field, io_metas,
                        executor_ or executor, options)
    pk_scan._create_inner_readers = with_executor


def run_once(table, column, value):
    t0 = time.perf_counter()
    rb = table.new_read_builder()
    rb = rb.with_filter(rb.new_predicate_builder().equal(column, value))
    splits = rb.new_scan().plan().splits()
    result = rb.new_read().to_arrow(splits)
    elapsed = time.perf_counter() - t0
    indexed = sum(type(s).__name__ == "IndexedSplit" for s in splits)
    rows = sum(1 for v in result.column(column).to_pylist() if v == value)
    return elapsed, rows, indexed


def main():
    from pypaimon import CatalogFactory
    warehouse, name, column, value = sys.argv[1:5]
    runs = int(sys.argv[5]) if len(sys.argv) > 5 else 5
    value = int(value)
    patch_executor(2)
    table = CatalogFactory.create({"warehouse": warehouse}).get_table(name)
    if not table.options.primary_key_btree_index_columns():
        # Payloads built for COLUMN on a table whose schema does not name it yet.
        table = table.copy({"pk-btree.index.columns": column})
    for mode, t in [("index", table), ("no-index", table.copy({"global-index.enabled": "false"}))]:
        times = []
        for _ in range(runs):
            elapsed, rows, indexed = run_once(t, column, value)
            times.append(elapsed)
        print("pypaimon %-8s %s = %d: median %.3f s of %d (min %.3f), %d rows, %d indexed splits"
              % (mode, column, value, statistics.median(times), runs, min(times), rows, indexed))


if __name__ == "__main__":
    main()
