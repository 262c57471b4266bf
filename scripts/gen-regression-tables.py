#!/usr/bin/env python3
# Licensed under the Apache License, Version 2.0 (same licence as the project).
"""Regression tables for reader bugs seen in peer projects, written by pypaimon 2.1.0.

Peer bug (paimon-rust `merge_manifest_entries`): a compaction that only *upgrades* a file
(Java `MergeTreeCompactManager` "upgrade": level 0 -> level N, no rewrite) commits
DELETE(file, level 0) + ADD(file, level 5) of the same file name. A reader that nets manifest
entries by file name alone drops the file (or keeps it twice).

For each entry order, one primary-key table (one bucket) in OUT/warehouse, database `reg`:
  snapshot 1  APPEND   file A: ids 0..9,  v = "a<id>"   (level 0)
  snapshot 2  APPEND   file B: ids 5..14, v = "b<id>"   (level 0; newer sequence numbers)
  snapshot 3  COMPACT  A upgraded to level 5, the two entries in the table's order:
                upgrade_add_first:    ADD(A, 5) then DELETE(A, 0)  (pypaimon's commit order)
                upgrade_delete_first: DELETE(A, 0) then ADD(A, 5)  (Java's commit order)
The order matters to an order-sensitive merger that ignores the level: with ADD first it
sees "added twice" or deletes the upgraded file.

OUT/tables.json lists per table: path, the upgraded file name, and per snapshot the expected
rows ("id, v", sorted, from this script's own model) and the expected level of file A.

Usage: python gen-regression-tables.py OUT
"""

import dataclasses
import os
import sys

import pyarrow as pa

from pypaimon_util import commit_batch, create_table, fresh_catalog, write_tables_json

SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])


def write_level0(table, ids, prefix):
    """Commits one batch; returns the commit messages (one level-0 file)."""
    data = pa.table({"id": ids, "v": ["%s%d" % (prefix, i) for i in ids]}, schema=SCHEMA)
    return commit_batch(table, data)


def commit_upgrade(table, message, add_first):
    """Commits a COMPACT snapshot upgrading the message's one file from level 0 to level 5."""
    from pypaimon.manifest.schema.manifest_entry import ManifestEntry
    from pypaimon.table.row.generic_row import GenericRow

    [before] = message.new_files
    assert before.level == 0, before.level
    after = dataclasses.replace(before, level=5, file_source=1)
    partition = GenericRow(list(message.partition), table.partition_keys_fields)
    total = message.total_buckets if message.total_buckets is not None else table.total_buckets

    def entry(kind, meta):
        return ManifestEntry(kind=kind, partition=partition, bucket=message.bucket,
                             total_buckets=total, file=meta)

    entries = [entry(0, after), entry(1, before)]
    if not add_first:
        entries.reverse()
    commit = table.new_batch_write_builder().new_commit()
    # pypaimon's public commit refuses compact increments; the store commit writes the
    # snapshot exactly as Java would for a compaction (kind COMPACT, conflicts checked).
    commit.file_store_commit._try_commit(
        commit_kind="COMPACT", commit_identifier=2**63 - 1,
        commit_entries_plan=lambda _snapshot: entries, detect_conflicts=True)
    commit.close()
    return before.file_name


def make_table(catalog, name, add_first):
    table = create_table(catalog, "reg." + name, SCHEMA,
                         {"bucket": "1", "file.format": "parquet"}, primary_keys=["id"])
    model = {}
    snapshots = {}
    first = write_level0(table, list(range(0, 10)), "a")
    model.update({i: "a%d" % i for i in range(0, 10)})
    snapshots[1] = (dict(model), 0)
    write_level0(table, list(range(5, 15)), "b")
    model.update({i: "b%d" % i for i in range(5, 15)})
    snapshots[2] = (dict(model), 0)
    upgraded = commit_upgrade(table, first[0], add_first)
    snapshots[3] = (dict(model), 5)
    return {
        "name": name,
        "path": "warehouse/reg.db/" + name,
        "upgraded_file": upgraded,
        "entry_order": "add_first" if add_first else "delete_first",
        "snapshots": {
            str(s): {
                "rows": sorted("%d, %s" % (k, v) for k, v in rows.items()),
                "upgraded_file_level": level,
            }
            for s, (rows, level) in snapshots.items()
        },
    }


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = os.path.abspath(sys.argv[1])
    catalog = fresh_catalog(out, "reg")
    tables = [make_table(catalog, "upgrade_add_first", True),
              make_table(catalog, "upgrade_delete_first", False)]
    write_tables_json(out, tables)
    print("wrote %d tables to %s" % (len(tables), out))


if __name__ == "__main__":
    main()
