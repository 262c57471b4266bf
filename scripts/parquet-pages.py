#!/usr/bin/env python3
# Licensed under the Apache License, Version 2.0 (same licence as the project).
"""Lists the pages of one column of Parquet files: per file, the number of data pages, rows per
page and compressed bytes per page (page headers walked from the column chunk's start; Thrift
compact protocol decoded here, so only pyarrow is needed for the footer).

Usage: python scripts/parquet-pages.py COLUMN FILE...
Prints one line per file and a total: pages, rows, column bytes, mean rows and bytes per page.
"""

import sys

import pyarrow.parquet as pq


class Compact:
    def __init__(self, buf, pos=0):
        self.buf, self.pos = buf, pos

    def byte(self):
        b = self.buf[self.pos]
        self.pos += 1
        return b

    def varint(self):
        shift = result = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return result

    def zigzag(self):
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def value(self, t):
        if t in (1, 2):
            return t == 1
        if t == 3:
            return self.byte()
        if t in (4, 5, 6):
            return self.zigzag()
        if t == 7:
            self.pos += 8
            return None
        if t == 8:
            n = self.varint()
            self.pos += n
            return None
        if t in (9, 10):
            h = self.byte()
            size, et = h >> 4, h & 0x0F
            if size == 15:
                size = self.varint()
            return [self.value(et) if et not in (1, 2) else bool(self.byte()) for _ in range(size)]
        if t == 11:
            size = self.varint()
            if size:
                kv = self.byte()
                for _ in range(size):
                    self.value(kv >> 4)
                    self.value(kv & 0x0F)
            return None
        if t == 12:
            return self.struct()
        raise ValueError("thrift type %d" % t)

    def struct(self):
        fields, last = {}, 0
        while True:
            h = self.byte()
            if h == 0:
                return fields
            delta, t = h >> 4, h & 0x0F
            fid = last + delta if delta else self.zigzag()
            last = fid
            fields[fid] = self.value(t)


def pages(path, column):
    md = pq.ParquetFile(path).metadata
    data = open(path, "rb").read()
    out = []
    for g in range(md.num_row_groups):
        rg = md.row_group(g)
        for c in range(rg.num_columns):
            cc = rg.column(c)
            if cc.path_in_schema != column:
                continue
            start = cc.dictionary_page_offset or cc.data_page_offset
            end = start + cc.total_compressed_size
            pos = start
            while pos < end:
                r = Compact(data, pos)
                h = r.struct()
                size = h[3]
                if h[1] in (0, 3):  # DATA_PAGE, DATA_PAGE_V2
                    rows = h[8][3] if h[1] == 3 else h[5][1]
                    out.append((rows, r.pos - pos + size))
                pos = r.pos + size
    return out


def main():
    column, files = sys.argv[1], sys.argv[2:]
    total_pages = total_rows = total_bytes = 0
    for f in files:
        p = pages(f, column)
        rows, size = sum(x[0] for x in p), sum(x[1] for x in p)
        total_pages, total_rows, total_bytes = total_pages + len(p), total_rows + rows, \
            total_bytes + size
        print("%s: %d pages, %d rows, %d bytes" % (f, len(p), rows, size))
    if total_pages:
        print("total %s: %d pages, %d rows, %d bytes; %.0f rows and %.0f bytes per page"
              % (column, total_pages, total_rows, total_bytes, total_rows / total_pages,
                 total_bytes / total_pages))


if __name__ == "__main__":
    main()
