#!/usr/bin/env python3
# Licensed under the Apache License, Version 2.0 (same licence as the project).
"""Writes golden.orc with pyarrow's ORC writer (Apache ORC C++), uncompressed: the reference
stream bytes for paimon-rs's patched orc-rust writer (test `orc_golden` in
crates/paimon-core/tests/it/orc_golden.rs, which writes the same values and compares the
streams).

Columns (ORC column ids): 1 `d38` DECIMAL(38, 10), 2 `d10` DECIMAL(10, 2), 3 `l`
ARRAY<INT> with its element column 4. The values are repeated in the Rust test; change both.

Run once with pyarrow 19.0.1 (the version of .venv-pypaimon):
    .venv-pypaimon/bin/python testdata/orc-golden/make.py
"""

import os
from decimal import Context, Decimal

import pyarrow as pa
import pyarrow.orc as orc

HERE = os.path.dirname(os.path.abspath(__file__))

MAX_38 = 10**38 - 1
D38_UNSCALED = [0, 1, -1, 123456789012345, MAX_38, -MAX_38, None, 2**126 + 7, -(2**126) - 7,
                10**30, None, -5]
D10_UNSCALED = [0, 1250, -1250, 9999999999, -9999999999, None, 7, 7, 7, 7, 7, -300]
LISTS = [[1, 2, 3], [], None, [None, 5], [-7], [100000, -100000, 7, 7, 7, 7], None, [],
         [0], [2147483647, -2147483648], [None], [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]]


def decimals(unscaled, precision, scale):
    values = [None if u is None else Decimal(u).scaleb(-scale, Context(prec=60)) for u in unscaled]
    return pa.array(values, type=pa.decimal128(precision, scale))


def main():
    table = pa.table({
        "d38": decimals(D38_UNSCALED, 38, 10),
        "d10": decimals(D10_UNSCALED, 10, 2),
        "l": pa.array(LISTS, type=pa.list_(pa.int32())),
    })
    orc.write_table(table, os.path.join(HERE, "golden.orc"), compression="uncompressed",
                    file_version="0.12")
    print("wrote golden.orc with pyarrow", pa.__version__)


if __name__ == "__main__":
    main()
