#!/usr/bin/env python3
# Licensed under the Apache License, Version 2.0 (same licence as the project).
"""Reads the tables paimon-rs wrote (end-to-end tests `write`, `write_pk`: target/written)
with pypaimon and compares every row with the `<table>.expected.parquet` the test left beside
the table. For fixed-bucket tables it also checks that every row sits in the bucket pypaimon's
own bucket function computes for it. A Java-compatible reader thereby checks our data files,
file metadata and bucket routing.

Usage: python scripts/check-written.py [target/written]
Prints one line per table and 'N passed, N failed'; exits 1 on any mismatch or error.
"""

import glob
import os
import sys


def canon(rows):
    return sorted(repr(sorted(r.items())) for r in rows)


def check(warehouse, name, expected_path):
    import pyarrow.parquet as pq
    from pypaimon import CatalogFactory
    from pypaimon.write.row_key_extractor import FixedBucketRowKeyExtractor

    table = CatalogFactory.create({"warehouse": warehouse}).get_table("written." + name)
    rb = table.new_read_builder()
    splits = rb.new_scan().plan().splits()
    read = rb.new_read()
    got = read.to_arrow(splits)
    want = pq.read_table(expected_path)
    if canon(got.to_pylist()) != canon(want.to_pylist()):
        return False, "rows differ: %d read, %d expected" % (got.num_rows, want.num_rows)
    bucket = int(table.table_schema.options.get("bucket", "-1"))
    checked = 0
    if bucket > 0:
        extractor = FixedBucketRowKeyExtractor(table.table_schema)
        for split in splits:
            part = read.to_arrow([split])
            for b in part.to_batches():
                _, buckets = extractor.extract_partition_bucket_batch(b)
                wrong = [x for x in buckets if x != split.bucket]
                if wrong:
                    return False, "rows of bucket %d hash to %s" % (split.bucket, sorted(set(wrong)))
                checked += len(buckets)
    return len(want) > 0, "%d rows, %d bucket checks" % (got.num_rows, checked)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "target/written"
    db = os.path.join(root, "warehouse", "written.db")
    warehouse = os.path.realpath(os.path.join(root, "warehouse"))
    passed = failed = 0
    for expected in sorted(glob.glob(os.path.join(db, "*.expected.parquet"))):
        name = os.path.basename(expected)[: -len(".expected.parquet")]
        try:
            ok, detail = check(warehouse, name, expected)
        except Exception as e:  # a table pypaimon cannot read is a failure
            ok, detail = False, "error: %s" % e
        passed += ok
        failed += not ok
        print("%-40s %s (%s)" % (name, "ok" if ok else "MISMATCH", detail))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed or not passed else 0)


if __name__ == "__main__":
    main()
