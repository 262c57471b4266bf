"""DataFusion-Python SQL over the FFI table provider equals our own reads."""

import importlib.metadata

import pyarrow.compute as pc
import pytest

import paimon_rs
from conftest import WAREHOUSE, cli_read, rows

datafusion = pytest.importorskip("datafusion")
pytestmark = pytest.mark.skipif(not paimon_rs.WITH_DATAFUSION,
                                reason="built without the datafusion feature")


def _ctx(*names):
    cat = paimon_rs.Catalog(str(WAREHOUSE))
    ctx = datafusion.SessionContext()
    for n in names:
        ctx.register_table(n.split(".")[1], cat.get_table(n))
    return ctx, cat


def test_filtered_query_equals_cli(cli, tmp_path):
    ctx, cat = _ctx("demo.orders")
    t = cat.get_table("demo.orders")
    got = ctx.sql(
        "SELECT order_id, amount FROM orders WHERE dt = '2024-01-02' AND amount > 100"
    ).to_arrow_table()
    want = cli_read(cli, t.location, tmp_path, filter="dt = '2024-01-02' AND amount > 100",
                    columns=["order_id", "amount"])
    assert got.num_rows > 0 and rows(got) == rows(want)


def test_aggregate_query_equals_our_read():
    ctx, cat = _ctx("demo.orders", "demo.customers_pk")
    orders = cat.get_table("demo.orders").scan().to_arrow()
    got = ctx.sql(
        "SELECT dt, count(*) AS n, sum(amount) AS total FROM orders GROUP BY dt ORDER BY dt"
    ).to_arrow_table().to_pylist()
    want = orders.group_by("dt").aggregate([("dt", "count"), ("amount", "sum")])
    want = sorted(zip(want["dt"].to_pylist(), want["dt_count"].to_pylist(),
                      want["amount_sum"].to_pylist()))
    assert [(r["dt"], r["n"], r["total"]) for r in got] == [
        (d, n, pytest.approx(s)) for d, n, s in want]
    pk = cat.get_table("demo.customers_pk").scan().to_arrow()
    n = ctx.sql("SELECT count(*) AS n FROM customers_pk").to_arrow_table()["n"][0].as_py()
    assert n == pk.num_rows


def test_other_datafusion_major_is_refused(monkeypatch):
    real = importlib.metadata.version

    def fake(name):
        return "54.1.0" if name == "datafusion" else real(name)

    monkeypatch.setattr(importlib.metadata, "version", fake)
    t = paimon_rs.Catalog(str(WAREHOUSE)).get_table("demo.orders")
    with pytest.raises(Exception) as e:
        datafusion.SessionContext().register_table("orders", t)
    assert "built for DataFusion 55" in str(e.value) and "54.1.0" in str(e.value)
