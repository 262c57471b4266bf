"""Splits pickle to compact bytes and are read in other processes; the runtime survives fork;
threads read concurrently with the GIL released."""

import multiprocessing as mp
import os
import pickle
import threading
import time
from concurrent.futures import ProcessPoolExecutor

import pyarrow as pa
import pytest

import paimon_rs
from conftest import WAREHOUSE, rows


def _read_bytes(data: bytes) -> pa.Table:
    # A worker with only the split's bytes: the table location travels inside.
    return paimon_rs.read_split(pickle.loads(data))


def _orders():
    return paimon_rs.Catalog(str(WAREHOUSE)).get_table("demo.orders")


def test_split_pickles_compactly_and_round_trips():
    t = _orders()
    plan = t.scan(filter="amount > 10", columns=["order_id", "amount"]).plan()
    assert plan.splits
    for s in plan.splits:
        data = pickle.dumps(s)
        back = pickle.loads(data)
        assert back == s and back.to_bytes() == s.to_bytes()
        assert paimon_rs.Split(s.to_bytes()) == s
        # Compact: far smaller than the files' metadata as JSON would be.
        assert len(data) < 4096, len(data)
        assert back.table_location == t.location and back.files
    with pytest.raises(paimon_rs.DataInvalidError):
        paimon_rs.Split(b"PRS1garbage")
    with pytest.raises(paimon_rs.DataInvalidError):
        paimon_rs.Split(b"not a split")


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_splits_read_in_process_pool(method):
    t = _orders()
    scan = t.scan(filter="amount > 10", columns=["order_id", "amount", "dt"])
    whole = scan.to_arrow()
    plan = scan.plan()
    assert len(plan.splits) > 1
    payloads = [pickle.dumps(s) for s in plan.splits]
    with ProcessPoolExecutor(2, mp_context=mp.get_context(method)) as pool:
        parts = list(pool.map(_read_bytes, payloads))
    assert rows(pa.concat_tables(parts)) == rows(whole)


def _child_read(q):
    q.put(_orders().scan().to_arrow().num_rows)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_forked_child_gets_its_own_runtime():
    n = _orders().scan().to_arrow().num_rows  # the parent's runtime exists now
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_child_read, args=(q,))
    p.start()
    p.join(60)
    if p.is_alive():
        p.kill()
        pytest.fail("forked child hung on the parent's runtime")
    assert p.exitcode == 0 and q.get(timeout=5) == n


def test_threads_read_concurrently_and_gil_is_released():
    t = paimon_rs.Catalog(str(WAREHOUSE)).get_table("demo.customers_pk")
    want = rows(t.scan().to_arrow())
    ticks = 0
    stop = threading.Event()

    def ticker():
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0.001)

    results, errors = [], []

    def reader():
        try:
            for _ in range(5):
                results.append(rows(t.scan().to_reader().read_all()))
                results.append(rows(t.scan().to_arrow()))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    tick = threading.Thread(target=ticker)
    tick.start()
    workers = [threading.Thread(target=reader) for _ in range(6)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(120)
    stop.set()
    tick.join()
    assert not any(w.is_alive() for w in workers), "deadlock"
    assert not errors, errors
    assert len(results) == 60 and all(r == want for r in results)
    assert ticks > 10


def test_split_of_another_table_is_refused():
    cat = paimon_rs.Catalog(str(WAREHOUSE))
    split = cat.get_table("demo.orders").scan().plan().splits[0]
    with pytest.raises(paimon_rs.InvalidArgumentError):
        cat.get_table("demo.customers_pk").read_split(split)
