#!/usr/bin/env python3
# Licensed under the Apache License, Version 2.0 (same licence as the project).
"""Writes bitmap global-index payloads (the `pk-bitmap` payload format, Java
`BitmapGlobalIndexFormat` version 1) with pypaimon 2.1.0's Java-compatible `BitmapIndexWriter`,
and `expected.json`: per file its key type, every key with its row ids, and the null rows.

Usage (from the repository root): .venv-pypaimon/bin/python testdata/pypaimon/pk_bitmap/generate.py
"""

import json
import os

from pypaimon.filesystem.local_file_io import LocalFileIO
from pypaimon.globalindex.bitmap.bitmap_index_writer import BitmapIndexWriter
from pypaimon.globalindex.key_serializer import create_serializer
from pypaimon.schema.data_types import AtomicType

HERE = os.path.dirname(os.path.abspath(__file__))


def rows_int():
    # Negative keys and keys above 255: little-endian key bytes sort differently from numbers.
    keys = [-300, -1, 0, 1, 2, 7, 255, 256, 1000, 70000]
    out = []
    for i in range(60):
        out.append(None if i % 11 == 4 else keys[(i * 7) % len(keys)])
    return out


def rows_string():
    words = ["", "a", "ab", "b", "apple", "zeta", "\u00e9t\u00e9", "B"]
    return [None if i % 9 == 8 else words[(i * 5) % len(words)] for i in range(40)]


def write(name, type_name, values, block_size):
    serializer = create_serializer(AtomicType(type_name))
    writer = BitmapIndexWriter(LocalFileIO(HERE), HERE, serializer,
                               dictionary_block_size=block_size)
    for row_id, v in enumerate(values):
        writer.write(v, row_id)
    result = writer.finish()[0]
    os.replace(os.path.join(HERE, result.file_name), os.path.join(HERE, name))
    entries = {}
    for row_id, v in enumerate(values):
        if v is not None:
            entries.setdefault(v, []).append(row_id)
    return {"file": name, "type": type_name, "dictionary_block_size": block_size,
            "rows": len(values), "entries": [[k, ids] for k, ids in entries.items()],
            "null_row_ids": [i for i, v in enumerate(values) if v is None]}


def main():
    files = [write("int.bitmap", "INT", rows_int(), 24),
             write("string.bitmap", "STRING", rows_string(), 32),
             write("int_one_block.bitmap", "INT", rows_int(), 16 * 1024)]
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump({"writer": "pypaimon 2.1.0 BitmapIndexWriter", "files": files}, f,
                  ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
