# Licensed under the Apache License, Version 2.0 (same licence as the project).
"""Shared pypaimon 2.1.0 writer helpers of the table generators in scripts/.

The scripts run as `python scripts/x.py`, so `sys.path` holds scripts/ and they
`import pypaimon_util`. pypaimon itself is imported lazily (the scripts' `--help` works
without it).
"""

import json
import os
import shutil

import pyarrow as pa


def fresh_catalog(root, database, warehouse="warehouse"):
    """Replaces ROOT by an empty directory and returns a filesystem catalog with DATABASE
    created, its warehouse at ROOT/WAREHOUSE (at ROOT itself when WAREHOUSE is None)."""
    from pypaimon import CatalogFactory
    root = os.path.abspath(root)
    if os.path.exists(root):
        shutil.rmtree(root)
    os.makedirs(root)
    path = root if warehouse is None else os.path.join(root, warehouse)
    catalog = CatalogFactory.create({"warehouse": path})
    catalog.create_database(database, False)
    return catalog


def create_table(catalog, ident, schema, options, primary_keys=None, partition_keys=None):
    """Creates table IDENT (`db.name`) from a pyarrow SCHEMA and returns it."""
    from pypaimon import Schema
    catalog.create_table(ident, Schema.from_pyarrow_schema(
        schema, partition_keys=partition_keys, primary_keys=primary_keys, options=options), False)
    return catalog.get_table(ident)


def set_options(catalog, ident, options):
    """Sets OPTIONS on table IDENT (a schema change) and returns the table re-read."""
    from pypaimon.schema.schema_change import SchemaChange
    catalog.alter_table(ident, [SchemaChange.set_option(k, v) for k, v in options.items()])
    return catalog.get_table(ident)


def commit_batch(table, data, schema=None, adjust=None):
    """One commit through pypaimon's public batch-write API. DATA is a pyarrow table, or a
    list of row dicts when SCHEMA is given. ADJUST, if given, may edit the commit messages in
    place before they are committed. Returns the committed messages."""
    if schema is not None:
        data = pa.Table.from_pylist(data, schema=schema)
    builder = table.new_batch_write_builder()
    writer, committer = builder.new_write(), builder.new_commit()
    writer.write_arrow(data)
    messages = writer.prepare_commit()
    if adjust is not None:
        adjust(messages)
    committer.commit(messages)
    writer.close()
    committer.close()
    return messages


def unique_keys_fold(check=True, no_merge_function=False):
    """pypaimon's writer folds every buffered key through its merge function, whose
    partial-update refuses `-U`/`-D` even for a lone record. When each commit holds every key
    at most once, the fold is the identity: replace it by an identity (checking that no key
    repeats when CHECK). With NO_MERGE_FUNCTION, build no merge function either (pypaimon
    refuses to build partial-update with `ignore-delete` / `remove-record-on-delete`; the data
    writer's default is never called then)."""
    from pypaimon.write.file_store_write import FileStoreWrite
    from pypaimon.write.writer.key_value_data_writer import KeyValueDataWriter

    def identity(self, data):
        if check:
            keys = data.column(0).to_pylist()
            assert len(keys) == len(set(keys)), "a commit repeats a key"
        return data

    KeyValueDataWriter._merge_pending_by_pk = identity
    if no_merge_function:
        FileStoreWrite._build_pk_merge_function = lambda self: None


def write_tables_json(out, tables, **header):
    """Writes OUT/tables.json: the HEADER fields (in order), then `tables`."""
    with open(os.path.join(out, "tables.json"), "w") as f:
        json.dump(dict(header, tables=tables), f, indent=1)
