#!/usr/bin/env python3
# Licensed under the Apache License, Version 2.0 (same licence as the project).
"""Merge-engine tables written by pypaimon 2.1.0, with expected rows from a model of Java.

Writes into OUT/warehouse (database `me`) primary-key tables (bucket 1) with several commits,
so every bucket holds several level-0 sorted runs that a reader must merge:

- pu_groups: partial-update with sequence groups (`fields.g1.sequence-group = a,b`,
  `fields.g2.sequence-group = c`), `-U`/`-D` rows retracting groups, a field in no group.
- pu_agg: partial-update with aggregates inside groups (`sum`, `collect`, `max` with
  `ignore-retract`) and `fields.default-aggregate-function = last_non_null_value`.
- pu_remove: partial-update with `partial-update.remove-record-on-sequence-group = g1`.
- agg_collect_map: aggregation engine with `collect`, `collect` + `distinct`, `merge_map`,
  `sum`, with `-U` retractions; agg_collect_map_inserts: the same without retractions and
  without the map (pypaimon's reader can neither retract nor rebuild merged maps), read back
  with pypaimon as a cross-check.
- agg_count: aggregation with `count` (Java 0.8's `FieldCountAgg`; Java 0.9+ rejects the name,
  paimon-rs reads it with 0.8's semantics).

Row kinds come from the string column `rk` (`rowkind.field`). pypaimon's writer refuses
partial-update tables with sequence groups / aggregates and unknown aggregate names, so those
tables are written with only the immutable options (`merge-engine`,
`partial-update.remove-record-on-sequence-group`) set (each key at most once per commit, so the
writer's own merge never runs) and the other merge options are set afterwards with
`alter_table` (a new schema; readers use the latest schema's options). pypaimon's writer
also folds each buffered key through its partial-update function, which refuses `-U`/`-D` even
alone; every commit holds each key at most once, so the script replaces that fold by an
identity that asserts it (see `unique_keys_fold`). The expected rows
are computed by this script's own model of Java Paimon 2.0 (`PartialUpdateMergeFunction`,
`AggregateMergeFunction`, the `Field*Agg` classes), never by reading back. Where pypaimon's
reader supports the table (the aggregation engine), the script also asserts that pypaimon reads
the same rows (collections and maps compared as multisets, since Java's HashSet/HashMap order
is not specified). OUT/tables.json lists every table with its expected rows (or error).

Usage: python gen-merge-engine-tables.py OUT [--seed S]
"""

import argparse
import json
import random

import pyarrow as pa

from pypaimon_util import (
    commit_batch, create_table, fresh_catalog, set_options, unique_keys_fold, write_tables_json,
)

KEYS = 14
COMMITS = 4


# ---------------------------------------------------------------- Java model: aggregates
class Agg:
    """One FieldAggregator: agg / agg_reversed / retract with Java's null rules."""

    def __init__(self, name, distinct=False, ignore_retract=False):
        self.name, self.distinct, self.ignore_retract = name, distinct, ignore_retract
        self.initialized = False

    def reset(self):
        self.initialized = False

    def agg(self, acc, x):
        n = self.name
        if n in ("primary-key", "last_value"):
            return x
        if n == "last_non_null_value":
            return acc if x is None else x
        if n == "first_value":
            if not self.initialized:
                self.initialized = True
                return x
            return acc
        if n == "collect":
            if acc is None and x is None:
                return None
            if (acc is None or x is None) and not self.distinct:
                return x if acc is None else acc
            out = []
            for e in (acc or []) + (x or []):
                if not self.distinct or e not in out:
                    out.append(e)
            return out
        if n == "count":  # Java 0.8 FieldCountAgg#agg
            if acc is None or x is None:
                return (0 if x is None else 1) if acc is None else acc
            return acc + 1
        if n == "merge_map":
            if acc is None or x is None:
                return x if acc is None else acc
            d = dict(acc)
            d.update(dict(x))
            return list(d.items())
        if acc is None or x is None:
            return x if acc is None else acc
        if n == "sum":
            return acc + x
        if n == "max":
            return max(acc, x)
        if n == "min":
            return min(acc, x)
        raise ValueError(n)

    def agg_reversed(self, acc, x):
        return self.agg(acc, x) if self.name == "collect" else self.agg(x, acc)

    def retract(self, acc, x):
        n = self.name
        if self.ignore_retract:
            return acc
        if n == "primary-key":
            return x
        if n == "last_value":
            return None
        if n == "last_non_null_value":
            return None if x is not None else acc
        if n == "sum":
            if acc is None or x is None:
                return -x if acc is None and x is not None else acc
            return acc - x
        if n == "count":  # Java 0.8 FieldCountAgg#retract
            if acc is None or x is None:
                return (0 if x is None else -1) if acc is None else acc
            return acc - 1
        if n == "collect":
            if acc is None:
                return None
            if not x:
                return acc
            rest, out = list(x), []
            for e in acc:
                if e in rest:
                    rest.remove(e)
                else:
                    out.append(e)
            return out
        if n == "merge_map":
            if acc is None:
                return None
            if not x:
                return acc
            keys = {k for k, _ in x}
            return [(k, v) for k, v in acc if k not in keys]
        raise RuntimeError("Aggregate function '%s' does not support retraction" % n)


def is_retract(rk):
    return rk in ("-U", "-D")


def seq_cmp(a, b):
    """Java RecordComparator over sequence values: ascending, null lowest."""
    for x, y in zip(a, b):
        if x is None and y is None:
            continue
        if x is None:
            return -1
        if y is None:
            return 1
        if x != y:
            return -1 if x < y else 1
    return 0


# ---------------------------------------------------------------- Java model: partial-update
def group_order(r, row, seq, processed):
    """None when every sequence field SEQ of a group is null in R (the group is skipped and its
    fields marked processed); else whether R's sequence is at least the row's."""
    if all(r[s] is None for s in seq):
        processed.update(seq)
        return None
    return seq_cmp([r[s] for s in seq], [row[s] for s in seq]) >= 0


def partial_update(records, cols, pk, groups, aggs, remove_on_group=()):
    """PartialUpdateMergeFunction over the records of one key (ascending); None = no row."""
    group_of = {}
    for gi, (seq, members) in enumerate(groups):
        for f in list(members) + list(seq):
            group_of[f] = gi
    for a in aggs.values():
        a.reset()
    row = {c: None for c in cols}
    meet_insert = filled = False
    delete_row = False
    for r in records:
        delete_row = False
        if is_retract(r["rk"]):
            if not filled:
                row = dict(r)
                filled = True
            processed, updated = set(), set()
            for f in cols:
                gi = group_of.get(f)
                if gi is None or f in processed:
                    continue
                seq = groups[gi][0]
                ge = group_order(r, row, seq, processed)
                if ge is None:
                    continue
                if ge and f in seq:
                    for s in seq:
                        if s not in updated:
                            if r["rk"] == "-D" and s in remove_on_group:
                                delete_row = True
                                row = dict(r)
                                break
                            row[s] = r[s]
                            updated.add(s)
                        processed.add(s)
                    if delete_row:
                        break
                elif f in aggs:
                    row[f] = aggs[f].retract(row[f], r[f])
                elif ge:
                    row[f] = None
            continue
        processed = set()
        for f in cols:
            gi = group_of.get(f)
            if gi is None:
                if f in aggs:
                    row[f] = aggs[f].agg(row[f], r[f])
                elif r[f] is not None:
                    row[f] = r[f]
                continue
            if f in processed:
                continue
            seq = groups[gi][0]
            ge = group_order(r, row, seq, processed)
            if ge is None:
                continue
            if ge and f in seq:
                for s in seq:
                    row[s] = r[s]
                    processed.add(s)
            elif ge:
                row[f] = aggs[f].agg(row[f], r[f]) if f in aggs else r[f]
            elif f in aggs:
                row[f] = aggs[f].agg_reversed(row[f], r[f])
        meet_insert = filled = True
    return row if meet_insert and not delete_row else None


def aggregation(records, cols, aggs):
    """AggregateMergeFunction over the records of one key."""
    for a in aggs.values():
        a.reset()
    row = {c: None for c in cols}
    for r in records:
        for c in cols:
            a = aggs[c]
            row[c] = a.retract(row[c], r[c]) if is_retract(r["rk"]) else a.agg(row[c], r[c])
    return row


def merge_all(commits, merge):
    """Groups records by key in commit order; a lone record is returned as stored."""
    by_key = {}
    for rows in commits:
        for r in rows:
            by_key.setdefault(r["k"], []).append(r)
    out = []
    for k in sorted(by_key):
        recs = by_key[k]
        row = (None if is_retract(recs[0]["rk"]) else dict(recs[0])) if len(recs) == 1 \
            else merge(recs)
        if row is not None:
            out.append(row)
    return out


# ---------------------------------------------------------------- writing
def write_table(catalog, name, schema, options, commits, final_options):
    ident = "me." + name
    table = create_table(catalog, ident, schema, options, primary_keys=["k"])
    for rows in commits:
        commit_batch(table, rows, schema)
    if final_options:
        set_options(catalog, ident, final_options)
    return catalog.get_table(ident)


def pypaimon_rows(table):
    rb = table.new_read_builder()
    splits = rb.new_scan().plan().splits()
    return rb.new_read().to_arrow(splits).to_pylist()


def normalise(row):
    out = {}
    for k, v in row.items():
        if isinstance(v, list):
            v = sorted((list(e) if isinstance(e, tuple) else e for e in v), key=json.dumps)
        out[k] = v
    return out


def to_json(row):
    return {k: ([list(e) for e in v] if isinstance(v, list) and v and isinstance(v[0], tuple)
                else v) for k, v in row.items()}


def commits_of(rng, make_row):
    out = []
    for c in range(COMMITS):
        keys = sorted(rng.sample(range(KEYS), rng.randint(KEYS // 2, KEYS)))
        out.append([make_row(rng, k, c) for k in keys])
    return out


def maybe(rng, v, p=0.25):
    return None if rng.random() < p else v


def pu_groups(rng):
    schema = pa.schema([pa.field("k", pa.int32(), nullable=False), ("a", pa.int32()),
                        ("b", pa.string()), ("g1", pa.int64()), ("c", pa.int32()),
                        ("g2", pa.int64()), ("d", pa.int32()), ("rk", pa.string())])

    def row(rng, k, c):
        return {"k": k, "a": maybe(rng, rng.randint(0, 99)), "b": maybe(rng, rng.choice("xyz")),
                "g1": maybe(rng, rng.randint(0, 4)), "c": maybe(rng, rng.randint(0, 99)),
                "g2": maybe(rng, rng.randint(0, 4)), "d": maybe(rng, rng.randint(0, 99)),
                "rk": rng.choice(["+I", "+I", "+U", "-U", "-D"]) if c else "+I"}

    commits = commits_of(rng, row)
    groups = [(["g1"], ["a", "b"]), (["g2"], ["c"])]
    opts = {"merge-engine": "partial-update", "fields.g1.sequence-group": "a,b",
            "fields.g2.sequence-group": "c"}
    cols = [f.name for f in schema]
    expected = merge_all(commits, lambda recs: partial_update(
        recs, cols, ["k"], groups, {"k": Agg("primary-key")}))
    return schema, commits, opts, expected


def pu_agg(rng):
    schema = pa.schema([pa.field("k", pa.int32(), nullable=False), ("a", pa.int32()),
                        ("arr", pa.list_(pa.int32())), ("g1", pa.int64()), ("c", pa.int32()),
                        ("g2", pa.int64()), ("d", pa.int32()), ("rk", pa.string())])

    def row(rng, k, c):
        return {"k": k, "a": maybe(rng, rng.randint(-9, 99)),
                "arr": maybe(rng, [rng.randint(0, 5) for _ in range(rng.randint(0, 3))]),
                "g1": maybe(rng, rng.randint(0, 4), 0.15), "c": maybe(rng, rng.randint(0, 99)),
                "g2": maybe(rng, rng.randint(0, 4)), "d": maybe(rng, rng.randint(0, 99)),
                "rk": rng.choice(["+I", "+I", "+I", "-U"]) if c else "+I"}

    commits = commits_of(rng, row)
    groups = [(["g1"], ["a", "arr"]), (["g2"], ["c"])]
    opts = {"merge-engine": "partial-update", "fields.g1.sequence-group": "a,arr",
            "fields.g2.sequence-group": "c", "fields.a.aggregate-function": "sum",
            "fields.arr.aggregate-function": "collect", "fields.c.aggregate-function": "max",
            "fields.c.ignore-retract": "true",
            "fields.default-aggregate-function": "last_non_null_value"}
    cols = [f.name for f in schema]
    aggs = {"k": Agg("primary-key"), "a": Agg("sum"), "arr": Agg("collect"),
            "c": Agg("max", ignore_retract=True), "d": Agg("last_non_null_value"),
            "rk": Agg("last_non_null_value")}
    expected = merge_all(commits, lambda recs: partial_update(recs, cols, ["k"], groups, aggs))
    return schema, commits, opts, expected


def pu_remove(rng):
    schema = pa.schema([pa.field("k", pa.int32(), nullable=False), ("a", pa.int32()),
                        ("g1", pa.int64()), ("c", pa.int32()), ("g2", pa.int64()),
                        ("rk", pa.string())])

    def row(rng, k, c):
        return {"k": k, "a": maybe(rng, rng.randint(0, 99)), "g1": maybe(rng, rng.randint(0, 4)),
                "c": maybe(rng, rng.randint(0, 99)), "g2": maybe(rng, rng.randint(0, 4)),
                "rk": rng.choice(["+I", "+I", "-D"]) if c else "+I"}

    commits = commits_of(rng, row)
    groups = [(["g1"], ["a"]), (["g2"], ["c"])]
    opts = {"merge-engine": "partial-update", "fields.g1.sequence-group": "a",
            "fields.g2.sequence-group": "c",
            "partial-update.remove-record-on-sequence-group": "g1"}
    cols = [f.name for f in schema]
    expected = merge_all(commits, lambda recs: partial_update(
        recs, cols, ["k"], groups, {"k": Agg("primary-key")}, remove_on_group={"g1"}))
    return schema, commits, opts, expected


def agg_collect_map(rng, retracts=True):
    with_map = retracts  # pypaimon's reader fails on merged MAP values: no map when checked
    cols = [pa.field("k", pa.int32(), nullable=False), ("arr", pa.list_(pa.string())),
            ("darr", pa.list_(pa.int32()))]
    cols += [("m", pa.map_(pa.string(), pa.int32()))] if with_map else []
    schema = pa.schema(cols + [("s", pa.int64()), ("rk", pa.string())])

    def row(rng, k, c):
        retract = retracts and c > 0 and rng.random() < 0.2
        r = {"k": k,
             "arr": maybe(rng, [rng.choice(["p", "q", "r", None])
                                for _ in range(rng.randint(0, 3))]),
             "darr": maybe(rng, [rng.randint(0, 4) for _ in range(rng.randint(0, 3))]),
             "s": maybe(rng, rng.randint(-50, 50)), "rk": "-U" if retract else "+I"}
        if with_map:
            r["m"] = maybe(rng, [(kk, maybe(rng, rng.randint(0, 9), 0.2))
                                 for kk in rng.sample("uvwx", rng.randint(0, 3))])
        return r

    commits = commits_of(rng, row)
    opts = {"merge-engine": "aggregation", "fields.arr.aggregate-function": "collect",
            "fields.darr.aggregate-function": "collect", "fields.darr.distinct": "true",
            "fields.s.aggregate-function": "sum"}
    aggs = {"k": Agg("primary-key"), "arr": Agg("collect"), "darr": Agg("collect", True),
            "s": Agg("sum"), "rk": Agg("last_non_null_value")}
    if with_map:
        opts["fields.m.aggregate-function"] = "merge_map"
        aggs["m"] = Agg("merge_map")
    names = [f.name for f in schema]
    expected = merge_all(commits, lambda recs: aggregation(recs, names, aggs))
    return schema, commits, opts, expected


def agg_count(rng):
    """`count` (Java 0.8 `FieldCountAgg`, gone since 0.9) on INT and BIGINT, with nulls and
    retracts; a key written once keeps its stored value (no aggregation of a lone record)."""
    schema = pa.schema([pa.field("k", pa.int32(), nullable=False), ("v", pa.int32()),
                        ("w", pa.int64()), ("rk", pa.string())])

    def row(rng, k, c):
        retract = c > 0 and rng.random() < 0.2
        return {"k": k, "v": maybe(rng, rng.randint(0, 9)), "w": maybe(rng, rng.randint(0, 9)),
                "rk": "-U" if retract else "+I"}

    commits = commits_of(rng, row)
    opts = {"merge-engine": "aggregation", "fields.v.aggregate-function": "count",
            "fields.w.aggregate-function": "count"}
    aggs = {"k": Agg("primary-key"), "v": Agg("count"), "w": Agg("count"),
            "rk": Agg("last_non_null_value")}
    names = [f.name for f in schema]
    expected = merge_all(commits, lambda recs: aggregation(recs, names, aggs))
    return schema, commits, opts, expected


IMMUTABLE = ("merge-engine", "partial-update.remove-record-on-sequence-group")

TABLES = [
    # name, builder, whether pypaimon's writer accepts the final options up front
    ("pu_groups", pu_groups, False),
    ("pu_agg", pu_agg, False),
    ("pu_remove", pu_remove, False),
    ("agg_collect_map", agg_collect_map, True),
    # pypaimon's reader cannot retract: this one (inserts only) is cross-checked with it.
    ("agg_collect_map_inserts", lambda rng: agg_collect_map(rng, False), True),
    ("agg_count", agg_count, False),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    catalog = fresh_catalog(args.out, "me")
    # Each commit here holds every key at most once.
    unique_keys_fold()
    rng = random.Random(args.seed)
    listing = []
    for name, build, upfront in TABLES:
        schema, commits, opts, expected = build(rng)
        base = {"bucket": "1", "rowkind.field": "rk"}
        # Immutable options cannot change once there are snapshots: set them up front.
        first = {k: v for k, v in opts.items() if upfront or k in IMMUTABLE}
        later = {k: v for k, v in opts.items() if k not in first}
        table = write_table(catalog, name, schema, dict(base, **first), commits, later)
        entry = {"name": name, "path": "warehouse/me.db/" + name, "options": opts}
        if isinstance(expected, dict):
            entry["expected_error"] = expected["error"]
            entry["pypaimon_reader"] = "not checked (Java rejects the table)"
        else:
            entry["expected"] = [to_json(r) for r in expected]
            try:
                got = pypaimon_rows(table)
            except NotImplementedError as e:
                entry["pypaimon_reader"] = "unsupported: " + str(e).split(".")[0]
            else:
                want = sorted((normalise(r) for r in entry["expected"]), key=json.dumps)
                have = sorted((normalise(to_json(r)) for r in got), key=json.dumps)
                assert want == have, "pypaimon reads %s differently:\n%s\n%s" % (name, want, have)
                entry["pypaimon_reader"] = "supported, same rows"
        listing.append(entry)
    write_tables_json(args.out, listing, seed=args.seed, writer="pypaimon 2.1.0")
    for e in listing:
        print(e["name"], len(e.get("expected", [])), "rows;", "pypaimon reader:",
              e["pypaimon_reader"])


if __name__ == "__main__":
    main()
