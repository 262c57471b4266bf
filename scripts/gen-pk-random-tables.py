#!/usr/bin/env python3
# Licensed under the Apache License, Version 2.0 (same licence as the project).
"""Random primary-key tables written by pypaimon 2.1.0, with expected reads from a model of Java.

For a seed, writes TABLES tables into OUT/warehouse (database `pkr`): primary key `k` INT
(plus partition `p` when partitioned), nullable value columns `v1` INT, `v2` STRING, `v3`
BIGINT with nulls, and the row-kind column `rk` (`rowkind.field`). Each table gets:

- a random merge engine: deduplicate (± `ignore-delete`), first-row (± `ignore-delete`),
  partial-update (plain, `ignore-delete` or `partial-update.remove-record-on-delete`),
  aggregation (`sum` / `max` / `last_non_null_value` per column; `max` columns get
  `ignore-retract` when the table has retractions);
- 1-4 buckets, sometimes a partition column;
- 2-5 commits of random upserts and (where the engine accepts them) `-U`/`-D` rows; every
  commit writes one file (one level-0 sorted run) per (partition, bucket) it touches;
- a layout: all files on level 0, or commit i moved to level 5 - i (the way
  scripts/make_bench_pk.py emulates compaction, rewriting `level` in the commit
  messages), sometimes keeping the last commit on level 0;
- deletion vectors (some tables): `deletion-vectors.enabled`, with or without
  `deletion-vectors.merge-on-read`; one or two extra snapshots mark random physical rows of
  random data files deleted. pypaimon 2.1.0 can write them: `TableDeleteByRowId` (its
  data-evolution delete) builds the 32-bit DV index file, merges earlier DVs of the bucket and
  returns a commit message whose `index_adds`/`index_deletes` the normal commit turns into a new
  index manifest; this script calls that builder directly with positions it chooses.

pypaimon quirks worked around:
- its writer folds each buffered key through its merge function, which refuses `-U`/`-D` for
  partial-update (and cannot be built with partial-update `ignore-delete` /
  `remove-record-on-delete`); every commit holds each key at most once, so the fold is
  replaced by an identity that asserts this (as in gen-merge-engine-tables.py);
- it records `_DELETE_ROW_COUNT = 0` for files holding `-U`/`-D` rows; Java records the number
  of retract rows and the reader's raw/merge decision depends on it, so the script writes the
  true count into the commit messages (as Java would);
- its writer refuses `fields.<f>.ignore-retract`, so that option is set with `alter_table`
  after the writes (readers use the latest schema's options); `ignore-delete` is set up front
  for some tables (the writer then drops retracts, like Java's `RowKindFilter`, and the model
  does too) and after the writes for others (the files keep retracts the reader must ignore).

Expected rows come from this script's model of Java Paimon 2.0 (never from reading back):
level-0 files are skipped when `deletion-vectors.enabled` without merge-on-read, or for
first-row without deletion vectors (`CoreOptions#batchScanSkipLevel0`); DV'd rows (physical
positions of the file as stored, i.e. sorted by `k`) are dropped first; a (partition, bucket)
whose visible files are all above level 0 without delete rows, and either has deletion vectors
on, is first-row, or has one level only, is read raw (every surviving row, duplicates
included: `MergeTreeSplitGenerator`); otherwise records are merged per key in sequence order
(a lone record is emitted as stored; retract results dropped). Tables with deletion vectors
are in lookup mode (`CoreOptions#needLookup`, `LookupMergeFunction`; first-row excepted): a
key of several records is merged from its level-0 records plus only its first record of the
lowest level >= 1. Predicates (key-only,
value-only, mixed) are evaluated on those final rows.

OUT/tables.json: {seed, tables: [{name, path, engine, options, options_set_after_writes,
layout, last_commit_on_level0, dv, commits, dv_rows, bucket_reads: {skipped, raw, merge},
expected, predicates: [{predicate, expected}]}]}.

Usage: python gen-pk-random-tables.py OUT [--seed S] [--tables N]
"""

import argparse
import dataclasses
import random

import pyarrow as pa

from pypaimon_util import (
    commit_batch, create_table, fresh_catalog, set_options, unique_keys_fold, write_tables_json,
)

KEYS = 24
VALUE_COLS = ("v1", "v2", "v3")


def is_retract(rk):
    return rk in ("-U", "-D")


# ---------------------------------------------------------------- Java model: merge functions
def agg_value(fn, acc, x):
    """FieldAggregator#agg for sum / max / last_non_null_value / primary-key."""
    if fn in ("primary-key", "last_value"):
        return x
    if fn == "last_non_null_value":
        return acc if x is None else x
    if acc is None or x is None:
        return x if acc is None else acc
    if fn == "sum":
        return acc + x
    if fn == "max":
        return max(acc, x)
    raise ValueError(fn)


def retract_value(fn, acc, x, ignore):
    """FieldAggregator#retract with Java's null rules."""
    if ignore:
        return acc
    if fn == "primary-key":
        return x
    if fn == "last_non_null_value":
        return None if x is not None else acc
    if fn == "sum":
        if acc is None or x is None:
            return -x if acc is None and x is not None else acc
        return acc - x
    raise RuntimeError("%s does not support retraction" % fn)


def merge_deduplicate(recs, t):
    latest = None
    for r in recs:
        if t["ignore_delete"] and is_retract(r["rk"]):
            continue
        latest = r
    return None if latest is None or is_retract(latest["rk"]) else dict(latest)


def merge_first_row(recs, t):
    for r in recs:
        if is_retract(r["rk"]):
            assert t["ignore_delete"], "first-row refuses retracts"
            continue
        return dict(r)
    return None


def merge_partial_update(recs, t):
    """PartialUpdateMergeFunction without sequence groups."""
    row, filled, meet_insert, delete_row = None, False, False, False
    for r in recs:
        delete_row = False
        if is_retract(r["rk"]):
            if not filled:
                row, filled = dict(r), True
            if t["ignore_delete"]:
                continue
            assert t["remove_on_delete"], "partial-update refuses retracts"
            if r["rk"] == "-D":
                delete_row, row = True, dict(r)
            continue
        if row is None:
            row = dict(r)
        else:
            for c, v in r.items():
                if v is not None:
                    row[c] = v
        meet_insert = filled = True
    return row if meet_insert and not delete_row else None


def merge_aggregation(recs, t):
    """AggregateMergeFunction: every field folded by its aggregate (the result is +I)."""
    row = {c: None for c in recs[0]}
    for r in recs:
        for c in row:
            fn, ignore = t["aggs"][c]
            if is_retract(r["rk"]):
                row[c] = retract_value(fn, row[c], r[c], ignore)
            else:
                row[c] = agg_value(fn, row[c], r[c])
    return row


MERGE = {"deduplicate": merge_deduplicate, "first-row": merge_first_row,
         "partial-update": merge_partial_update, "aggregation": merge_aggregation}


def skip_level0(t):
    """CoreOptions#batchScanSkipLevel0."""
    if t["dv"] != "none":
        return t["dv"] == "levels"
    return t["engine"] == "first-row"


def read_bucket(t, files, dvs):
    """The rows one (partition, bucket) yields to a batch read, and how it is read (`skipped`:
    no visible file, `raw` or `merge`)."""
    visible = [f for f in files if not (skip_level0(t) and f["level"] == 0)]
    if not visible:
        return [], "skipped"
    survivors = [[r for i, r in enumerate(f["rows"]) if i not in dvs.get(f["name"], ())]
                 for f in visible]
    raw = all(f["level"] != 0 and f["delete_rows"] == 0 for f in visible) and (
        t["dv"] != "none" or t["engine"] == "first-row"
        or len({f["level"] for f in visible}) == 1)
    if raw:
        return [dict(r) for rows in survivors for r in rows], "raw"
    by_key = {}
    for f, rows in sorted(zip(visible, survivors), key=lambda x: x[0]["commit"]):
        for r in rows:
            by_key.setdefault(r["k"], []).append((f["level"], r))
    lookup = t["dv"] != "none" and t["engine"] != "first-row"
    out = []
    for k in sorted(by_key):
        recs = by_key[k]
        if len(recs) == 1:
            row = None if is_retract(recs[0][1]["rk"]) else dict(recs[0][1])
        else:
            if lookup:
                high = min((lv for lv, _ in recs if lv > 0), default=None)
                chosen, seen = [], False
                for lv, r in recs:
                    if lv <= 0 or (lv == high and not seen):
                        seen = seen or lv > 0
                        chosen.append((lv, r))
                recs = chosen
            row = MERGE[t["engine"]]([r for _, r in recs], t)
        if row is not None:
            out.append(row)
    return out, "merge"


# ---------------------------------------------------------------- predicates
def holds(p, row):
    op = p["op"]
    if op == "and":
        return all(holds(c, row) for c in p["children"])
    if op == "or":
        return any(holds(c, row) for c in p["children"])
    v = row[p["column"]]
    if op == "is_null":
        return v is None
    if op == "is_not_null":
        return v is not None
    if v is None:
        return False
    x = p["value"]
    return {"eq": v == x, "ne": v != x, "lt": v < x, "le": v <= x, "gt": v > x,
            "ge": v >= x}[op]


def random_predicates(rng, rows, partitioned):
    def some(col):
        vals = [r[col] for r in rows if r[col] is not None]
        return rng.choice(vals) if vals and rng.random() < 0.8 else None

    def value_pred():
        col = rng.choice(VALUE_COLS)
        x = some(col)
        if x is None or rng.random() < 0.15:
            return {"op": rng.choice(["is_null", "is_not_null"]), "column": col}
        return {"op": rng.choice(["eq", "eq", "lt", "ge", "ne"]), "column": col, "value": x}

    k = lambda: rng.randint(-1, KEYS)  # noqa: E731
    preds = [
        {"op": "eq", "column": "k", "value": k()},
        {"op": "lt", "column": "k", "value": k()},
        value_pred(),
        value_pred(),
        {"op": "and", "children": [{"op": "ge", "column": "k", "value": k()}, value_pred()]},
        {"op": "and", "children": [{"op": "le", "column": "k", "value": k()},
                                   {"op": "or", "children": [value_pred(), value_pred()]}]},
    ]
    if partitioned:
        preds.append({"op": "and", "children": [
            {"op": "eq", "column": "p", "value": rng.choice(["a", "b"])}, value_pred()]})
    return [{"predicate": p, "expected": [r for r in rows if holds(p, r)]} for p in preds]


# ---------------------------------------------------------------- random table definitions
def random_definition(rng, idx):
    engine = rng.choice(["deduplicate", "deduplicate", "first-row", "partial-update",
                         "partial-update", "aggregation", "aggregation"])
    t = {"name": "t%02d" % idx, "engine": engine, "ignore_delete": False, "late_options": {},
         "remove_on_delete": False, "aggs": None, "buckets": rng.randint(1, 4),
         "partitioned": rng.random() < 0.4, "commits": rng.randint(2, 5)}
    opts = {"merge-engine": engine, "rowkind.field": "rk", "bucket": str(t["buckets"])}
    deletes = True
    if engine == "deduplicate":
        deletes = rng.random() < 0.6
        t["ignore_delete"] = deletes and rng.random() < 0.4
    elif engine == "first-row":
        t["ignore_delete"] = deletes = rng.random() < 0.5
    elif engine == "partial-update":
        mode = rng.choice(["none", "ignore", "remove"])
        deletes = mode != "none"
        t["ignore_delete"], t["remove_on_delete"] = mode == "ignore", mode == "remove"
        if mode == "remove":
            opts["partial-update.remove-record-on-delete"] = "true"
    else:
        deletes = rng.random() < 0.7
        fns = {"v1": rng.choice(["sum", "max", "last_non_null_value"]),
               "v2": rng.choice(["max", "last_non_null_value"]),
               "v3": rng.choice(["sum", "max", "last_non_null_value"])}
        t["aggs"] = {"k": ("primary-key", False), "p": ("primary-key", False),
                     "rk": ("last_non_null_value", False)}
        for c, fn in fns.items():
            opts["fields.%s.aggregate-function" % c] = fn
            ignore = fn == "max" and deletes
            if ignore:  # pypaimon's writer refuses this option: set after the writes
                t["late_options"]["fields.%s.ignore-retract" % c] = "true"
            t["aggs"][c] = (fn, ignore)
    # pypaimon's writer (like Java's RowKindFilter) drops retracts of `ignore-delete` tables;
    # set the option after the writes for some tables, so the files keep them (as files
    # written before the option was set, or by Paimon <= 0.7) and the reader must ignore them.
    if t["ignore_delete"]:
        late = rng.random() < 0.6
        (t["late_options"] if late else opts)["ignore-delete"] = "true"
    t["deletes"] = deletes
    t["dv"] = rng.choice(["none", "none", "mor", "levels"])
    if t["dv"] != "none":
        opts["deletion-vectors.enabled"] = "true"
        if t["dv"] == "mor":
            opts["deletion-vectors.merge-on-read"] = "true"
    # Level-0 files are invisible to DV tables without merge-on-read and to first-row tables.
    must_level = t["dv"] == "levels" or (engine == "first-row" and t["dv"] == "none")
    t["layout"] = "levels" if must_level or rng.random() < 0.3 else "l0"
    t["last_on_l0"] = t["layout"] == "levels" and rng.random() < 0.4
    t["options"] = opts
    return t


def commit_rows(rng, t, c):
    rows = []
    for p in (["a", "b"] if t["partitioned"] else [None]):
        for k in sorted(rng.sample(range(KEYS), rng.randint(KEYS // 3, KEYS))):
            rk = "+I"
            if c > 0 and t["deletes"] and rng.random() < 0.3:
                rk = rng.choice(["-U", "-D", "-D"])
            elif c > 0 and rng.random() < 0.3:
                rk = "+U"
            r = {"k": k, "v1": maybe(rng, rng.randint(-20, 20)),
                 "v2": maybe(rng, rng.choice(["x", "yy", "z", "ab"])),
                 "v3": maybe(rng, rng.randint(-1000, 1000)), "rk": rk}
            if p is not None:
                r["p"] = p
            rows.append(r)
    return rows


def maybe(rng, v, p=0.3):
    return None if rng.random() < p else v


# ---------------------------------------------------------------- writing
def schema_of(t):
    fields = [pa.field("k", pa.int32(), nullable=False)]
    if t["partitioned"]:
        fields.append(pa.field("p", pa.string(), nullable=False))
    fields += [("v1", pa.int32()), ("v2", pa.string()), ("v3", pa.int64()), ("rk", pa.string())]
    return pa.schema(fields)


def write_data(catalog, rng, t):
    """Writes the commits; returns the files of the model (one per partition, bucket, commit)."""
    from pypaimon.write.row_key_extractor import FixedBucketRowKeyExtractor
    schema = schema_of(t)
    ident = "pkr." + t["name"]
    table = create_table(catalog, ident, schema, t["options"],
                         primary_keys=["k", "p"] if t["partitioned"] else ["k"],
                         partition_keys=["p"] if t["partitioned"] else None)
    extractor = FixedBucketRowKeyExtractor(table.table_schema)
    files = []
    for c in range(t["commits"]):
        rows = commit_rows(rng, t, c)
        data = pa.Table.from_pylist(rows, schema=schema)
        parts, buckets = extractor.extract_partition_bucket_batch(data.to_batches()[0])
        groups = {}
        for r, part, b in zip(rows, parts, buckets):
            # The writer drops retracts when `ignore-delete` is set (RowKindFilter).
            if not ("ignore-delete" in t["options"] and is_retract(r["rk"])):
                groups.setdefault((tuple(part), b), []).append(r)
        level = 0 if t["layout"] == "l0" or (t["last_on_l0"] and c == t["commits"] - 1) \
            else 5 - c

        def relevel(msgs):
            for m in msgs:
                assert len(m.new_files) == 1, "one file per bucket and commit"
                f = m.new_files[0]
                frows = sorted(groups.pop((tuple(m.partition), m.bucket)), key=lambda r: r["k"])
                assert f.row_count == len(frows), (f.row_count, len(frows))
                deletes = sum(is_retract(r["rk"]) for r in frows)
                # pypaimon records 0 even for files with retract rows; Java records the count.
                assert f.delete_row_count in (0, deletes), f.delete_row_count
                m.new_files = [dataclasses.replace(f, level=level, delete_row_count=deletes,
                                                   file_source=1 if level else f.file_source)]
                files.append({"partition": tuple(m.partition), "bucket": m.bucket,
                              "name": f.file_name, "level": level, "commit": c, "rows": frows,
                              "delete_rows": deletes, "seq": (f.min_sequence_number,
                                                              f.max_sequence_number)})
            assert not groups, "rows without a file"

        commit_batch(table, data, adjust=relevel)
    if t["late_options"]:
        table = set_options(catalog, ident, t["late_options"])
    return table, files


def write_deletion_vectors(rng, table, files):
    """One or two snapshots marking random physical rows of random files deleted."""
    from pypaimon.write.table_delete import TableDeleteByRowId
    dvs = {}
    for _ in range(rng.randint(1, 2)):
        chosen = rng.sample(files, max(1, len(files) // 2))
        by_bucket = {}
        for f in chosen:
            n = len(f["rows"])
            pos = set(rng.sample(range(n), rng.randint(1, max(1, n // 2))))
            by_bucket.setdefault((f["partition"], f["bucket"]), {})[f["name"]] = pos
            dvs.setdefault(f["name"], set()).update(pos)
        snapshot = table.snapshot_manager().get_latest_snapshot().id
        deleter = TableDeleteByRowId(table)
        msgs = [deleter._build_commit_message(part, b, fp, snapshot)
                for (part, b), fp in sorted(by_bucket.items())]
        committer = table.new_batch_write_builder().new_commit()
        committer.commit([m for m in msgs if m is not None])
        committer.close()
    return dvs


def make_table(catalog, rng, idx):
    t = random_definition(rng, idx)
    table, files = write_data(catalog, rng, t)
    # The model merges in commit order: pypaimon must number each bucket's commits upwards.
    ordered = sorted(files, key=lambda f: (f["partition"], f["bucket"], f["commit"]))
    for a, b in zip(ordered, ordered[1:]):
        if (a["partition"], a["bucket"]) == (b["partition"], b["bucket"]):
            assert a["seq"][1] < b["seq"][0], "sequence numbers must grow across commits"
    dvs = write_deletion_vectors(rng, table, files) if t["dv"] != "none" else {}
    expected, reads = [], {"skipped": 0, "raw": 0, "merge": 0}
    for key in sorted({(f["partition"], f["bucket"]) for f in files}):
        rows, how = read_bucket(t, [f for f in files if (f["partition"], f["bucket"]) == key],
                                dvs)
        expected += rows
        reads[how] += 1
    return {"name": t["name"], "path": "warehouse/pkr.db/" + t["name"], "engine": t["engine"],
            "options": dict(t["options"], **t["late_options"]),
            "options_set_after_writes": t["late_options"], "layout": t["layout"], "last_commit_on_level0":
            t["last_on_l0"], "dv": t["dv"], "commits": t["commits"],
            "dv_rows": sum(len(v) for v in dvs.values()), "bucket_reads": reads,
            "expected": expected,
            "predicates": random_predicates(rng, expected, t["partitioned"])}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--tables", type=int, default=16)
    args = ap.parse_args()
    catalog = fresh_catalog(args.out, "pkr")
    # Every commit holds each key at most once.
    unique_keys_fold(no_merge_function=True)
    rng = random.Random(args.seed)
    tables = [make_table(catalog, rng, i) for i in range(args.tables)]
    write_tables_json(args.out, tables, seed=args.seed, writer="pypaimon 2.1.0")
    for t in tables:
        print(t["name"], t["engine"], t["layout"], "dv=" + t["dv"], len(t["expected"]), "rows",
              t["dv_rows"], "dv'd", "buckets:", t["bucket_reads"])


if __name__ == "__main__":
    main()
