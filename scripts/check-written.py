#!/usr/bin/env python3
# Licensed under the Apache License, Version 2.0 (same licence as the project).
"""Reads the tables paimon-rs wrote (end-to-end tests `write`, `write_pk`: target/written)
with pypaimon and compares every row with the `<table>.expected.parquet` the test left beside
the table. For fixed-bucket tables it also checks that every row sits in the bucket pypaimon's
own bucket function computes for it. A Java-compatible reader thereby checks our data files,
file metadata and bucket routing. Dynamic-bucket tables: every key sits in one bucket, and an
upsert by pypaimon (restoring our HASH index) keeps every key's bucket; cross-partition tables:
every key in one (partition, bucket). Postpone-bucket tables:
pypaimon plans nothing (as Java), and the Avro files hold the written rows; once compacted,
the rows read equal the expected ones, each in the bucket pypaimon computes for its split's
bucket count.

ORC tables: pyarrow.orc (Apache ORC C++) reads every `.orc` data file directly; for append
tables its rows (TIME as ORC int milliseconds) must equal the expected ones, including
`<table>.orc-expected.parquet` tables pypaimon cannot read (MULTISET columns). CHAR(n) values
of ORC tables are expected as stored, padded with spaces to n characters (ORC Java's writer
pads them; pypaimon 2.1.0 and pyarrow return the stored value, Java's reader trims it).

Usage: python scripts/check-written.py [target/written]
Prints one line per table and 'N passed, N failed'; exits 1 on any mismatch or error.
"""

import glob
import os
import sys


def canon(rows):
    return sorted(repr(sorted(r.items())) for r in rows)


def check_postpone(table, warehouse, name, want):
    """Postpone-bucket table: batch reads see nothing until a postpone compaction; the Avro
    files in `bucket-postpone` hold the written rows in order, sequence number -1."""
    import fastavro

    splits = table.new_read_builder().new_scan().plan().splits()
    if splits:
        return False, "%d splits planned from postpone files" % len(splits)
    root = os.path.join(warehouse, "written.db", name)
    got = []
    for f in sorted(glob.glob(os.path.join(root, "*", "bucket-postpone", "*"))):
        with open(f, "rb") as fh:
            for r in fastavro.reader(fh):
                if r["_SEQUENCE_NUMBER"] != -1:
                    return False, "sequence number %s in %s" % (r["_SEQUENCE_NUMBER"], f)
                got.append({k: v for k, v in r.items() if not k.startswith("_")})
    if canon(got) != canon(want.to_pylist()):
        return False, "postpone rows differ: %d in files, %d expected" % (len(got), want.num_rows)
    return True, "0 rows read, %d rows in postpone files" % len(got)


def check_dynamic(table, read, splits):
    """Dynamic-bucket table: every key read from exactly one bucket; pypaimon then upserts every
    key of a copy through its own HASH-index restore and must keep each key's bucket."""
    import shutil
    import tempfile
    from pypaimon import CatalogFactory

    keys = table.table_schema.primary_keys
    bucket_of = {}
    for split in splits:
        for row in read.to_arrow([split]).to_pylist():
            k = tuple(row[c] for c in keys)
            if k in bucket_of:
                return False, "key %s in buckets %d and %d" % (k, bucket_of[k], split.bucket)
            bucket_of[k] = split.bucket
    tmp = tempfile.mkdtemp()
    try:
        shutil.copytree(os.path.dirname(table.table_path), os.path.join(tmp, "written.db"))
        name = os.path.basename(table.table_path)
        copy = CatalogFactory.create({"warehouse": tmp}).get_table("written." + name)
        rows = read.to_arrow(splits)
        wb = copy.new_batch_write_builder()
        w = wb.new_write()
        w.write_arrow(rows)
        c = wb.new_commit()
        c.commit(w.prepare_commit())
        w.close()
        c.close()
        rb = copy.new_read_builder()
        read2 = rb.new_read()
        moved = 0
        for split in rb.new_scan().plan().splits():
            for row in read2.to_arrow([split]).to_pylist():
                k = tuple(row[c] for c in keys)
                moved += bucket_of.get(k) != split.bucket
        if moved:
            return False, "%d keys changed bucket after a pypaimon upsert" % moved
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return True, "%d keys in %d buckets, kept by a pypaimon upsert" % (
        len(bucket_of), len(set(bucket_of.values())))


def check_cross_partition(table, read, splits):
    """Cross-partition table (key without every partition field): every key read from exactly
    one (partition, bucket); pypaimon does not write such tables, so no upsert."""
    keys = [k for k in table.table_schema.primary_keys
            if k not in table.table_schema.partition_keys]
    seen = set()
    places = set()
    for split in splits:
        for row in read.to_arrow([split]).to_pylist():
            k = tuple(row[c] for c in keys)
            if k in seen:
                return False, "key %s read twice" % (k,)
            seen.add(k)
            places.add((tuple(split.partition.values) if hasattr(split.partition, "values")
                        else repr(split.partition), split.bucket))
    return True, "%d keys in %d (partition, bucket)s" % (len(seen), len(places))


def char_padded(value, paimon_type):
    """`value` of `paimon_type` (schema JSON) with every CHAR(n) string right-padded with spaces
    to n characters, at any depth: how an ORC file stores it."""
    import re
    if value is None:
        return None
    if isinstance(paimon_type, str):
        m = re.match(r"\s*CHAR\((\d+)\)", paimon_type)
        return value.ljust(int(m.group(1))) if m else value
    kind = paimon_type["type"].split()[0]
    if kind == "ROW":
        return {f["name"]: char_padded(value.get(f["name"]), f["type"])
                for f in paimon_type["fields"]}
    if kind == "ARRAY":
        return [char_padded(v, paimon_type["element"]) for v in value]
    if kind == "MAP":
        return [(char_padded(k, paimon_type["key"]), char_padded(v, paimon_type["value"]))
                for k, v in value]
    return value


def orc_stored_rows(table_dir, rows):
    """`rows` with CHAR values as an ORC table stores them (`char_padded`); unchanged for other
    formats."""
    import json
    with open(os.path.join(table_dir, "schema", "schema-0")) as fh:
        schema = json.load(fh)
    if schema["options"].get("file.format") != "orc":
        return rows
    types = {f["name"]: f["type"] for f in schema["fields"]}
    return [{k: char_padded(v, types[k]) if k in types else v for k, v in r.items()}
            for r in rows]


def check(warehouse, name, expected_path):
    import pyarrow.parquet as pq
    from pypaimon import CatalogFactory
    from pypaimon.write.row_key_extractor import FixedBucketRowKeyExtractor

    table = CatalogFactory.create({"warehouse": warehouse}).get_table("written." + name)
    bucket = int(table.table_schema.options.get("bucket", "-1"))
    rb = table.new_read_builder()
    splits = rb.new_scan().plan().splits()
    if bucket == -2 and not splits:
        return check_postpone(table, warehouse, name, pq.read_table(expected_path))
    read = rb.new_read()
    got = read.to_arrow(splits)
    want = pq.read_table(expected_path)
    want_rows = orc_stored_rows(table.table_path, want.to_pylist())
    if canon(got.to_pylist()) != canon(want_rows):
        return False, "rows differ: %d read, %d expected" % (got.num_rows, want.num_rows)
    checked = 0
    pks = table.table_schema.primary_keys
    if bucket == -1 and pks and any(p not in pks for p in table.table_schema.partition_keys):
        return check_cross_partition(table, read, splits)
    if bucket == -1 and pks:
        return check_dynamic(table, read, splits)
    if bucket == -2:
        # Postpone rows compacted into real buckets: each split's own bucket count.
        import copy
        import fastavro
        total = {}  # data file name -> _TOTAL_BUCKETS of its manifest entries
        for f in glob.glob(os.path.join(table.table_path, "manifest", "manifest-*")):
            if os.path.basename(f).startswith("manifest-list-"):
                continue
            with open(f, "rb") as fh:
                for r in fastavro.reader(fh):
                    total[r["_FILE"]["_FILE_NAME"]] = r["_TOTAL_BUCKETS"]
        schema = copy.copy(table.table_schema)
        schema.options = dict(schema.options, bucket="1")
        extractor = FixedBucketRowKeyExtractor(schema)
        for split in splits:
            counts = {total[f.file_name] for f in split.files}
            if len(counts) != 1:
                return False, "files of bucket %d with bucket counts %s" % (split.bucket, counts)
            extractor.num_buckets = counts.pop()
            part = read.to_arrow([split])
            for b in part.to_batches():
                _, buckets = extractor.extract_partition_bucket_batch(b)
                wrong = [x for x in buckets if x != split.bucket]
                if wrong:
                    return False, "rows of bucket %d/%d hash to %s" % (
                        split.bucket, extractor.num_buckets, sorted(set(wrong)))
                checked += len(buckets)
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


def plain(value):
    """A value from a pyarrow row with TIME as int milliseconds (how ORC files hold it)."""
    import datetime
    if hasattr(value, "to_pydatetime"):  # a pandas Timestamp (ORC C++ reads nanoseconds)
        return value.to_pydatetime()
    if isinstance(value, datetime.time):
        return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 \
            + value.microsecond // 1000
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    return value


def check_orc_files(root, name, expected_path):
    """pyarrow.orc reads every ORC data file of the table; an append table's rows must equal
    the expected rows (every file is live: these tables are written in one commit)."""
    import json
    import pyarrow as pa
    import pyarrow.orc as orc
    import pyarrow.parquet as pq

    table_dir = os.path.join(root, name)
    files = sorted(glob.glob(os.path.join(table_dir, "**", "*.orc"), recursive=True))
    tables = [orc.ORCFile(f).read() for f in files]
    rows = sum(t.num_rows for t in tables)
    with open(os.path.join(table_dir, "schema", "schema-0")) as fh:
        if json.load(fh)["primaryKeys"]:
            return True, "%d ORC files, %d rows read by pyarrow.orc" % (len(files), rows)
    want = pq.read_table(expected_path)

    def same_units(t):
        # ORC C++ reads timestamps as nanoseconds; compare in the expected unit.
        t = t.select(want.column_names)
        for i, field in enumerate(want.schema):
            if pa.types.is_timestamp(field.type) and t.schema.field(i).type != field.type:
                t = t.set_column(i, field.name, t.column(i).cast(field.type))
        return t

    got = [plain(r) for t in tables for r in same_units(t).to_pylist()]
    want_rows = orc_stored_rows(table_dir, want.to_pylist())
    if canon(got) != canon([plain(r) for r in want_rows]):
        return False, "pyarrow.orc rows differ: %d read, %d expected" % (rows, want.num_rows)
    return True, "%d ORC files, %d rows equal by pyarrow.orc" % (len(files), rows)


def is_orc_table(db, name):
    import json
    with open(os.path.join(db, name, "schema", "schema-0")) as fh:
        return json.load(fh)["options"].get("file.format") == "orc"


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
    expected = glob.glob(os.path.join(db, "*.expected.parquet"))
    expected += glob.glob(os.path.join(db, "*.orc-expected.parquet"))
    for path in sorted(expected):
        name = os.path.basename(path).split(".")[0]
        if not is_orc_table(db, name):
            continue
        try:
            ok, detail = check_orc_files(db, name, path)
        except Exception as e:
            ok, detail = False, "error: %s" % e
        passed += ok
        failed += not ok
        print("%-40s %s (%s)" % (name + " [orc]", "ok" if ok else "MISMATCH", detail))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed or not passed else 0)


if __name__ == "__main__":
    main()
