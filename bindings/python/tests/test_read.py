"""Reads through Python equal the `paimon` CLI's reads and the Java fixtures' expected rows."""

import pyarrow as pa
import pytest

import paimon_rs
from conftest import WAREHOUSE, cli_read, expected_reads, java_table, rows


@pytest.mark.parametrize("name,read", expected_reads())
def test_java_fixture_equals_cli(cli, tmp_path, name, read):
    path = java_table(name)
    t = paimon_rs.open_table(str(path))
    kw = dict(filter=read.get("filter"), columns=read.get("select"), snapshot=read.get("snapshot"))
    scan = t.scan(**kw)
    got = scan.to_arrow()
    want = cli_read(cli, path, tmp_path, **kw)
    assert got.schema.names == want.schema.names
    assert rows(got) == rows(want)
    expected_count = read.get("row_count", len(read["rows"]) if "rows" in read else None)
    if expected_count is not None:
        assert got.num_rows == expected_count
    # The streaming reader and the splits read one by one give the same rows.
    streamed = scan.to_reader().read_all()
    assert streamed.schema == got.schema
    assert rows(streamed) == rows(got)
    plan = scan.plan()
    parts = [t.read_split(s) for s in plan.splits]
    assert rows(pa.concat_tables([got.slice(0, 0), *parts])) == rows(got)


def test_catalog_lists_and_opens():
    cat = paimon_rs.Catalog(str(WAREHOUSE))
    assert "demo" in cat.list_databases()
    assert sorted(cat.list_tables("demo")) == ["customers_pk", "events_bucketed", "orders"]
    t = cat.get_table("demo.orders")
    assert t.name == "demo.orders"
    assert t.partition_keys == ["dt"]
    schema = t.schema
    assert isinstance(schema, pa.Schema)
    # Paimon field ids travel in the field metadata.
    assert all(b"PARQUET:field_id" in (f.metadata or {}) for f in schema)
    assert isinstance(t.options, dict)
    snaps = t.snapshots()
    assert [s["id"] for s in snaps] == sorted(s["id"] for s in snaps) and snaps
    assert {"id", "schemaId", "commitKind"} <= set(snaps[-1])


def test_projection_filter_limit_pandas(cli, tmp_path):
    cat = paimon_rs.Catalog(str(WAREHOUSE))
    t = cat.get_table("demo.orders")
    f = "dt = '2024-01-02' AND amount > 100"
    got = t.scan(filter=f, columns=["order_id", "amount"]).to_arrow()
    want = cli_read(cli, t.location, tmp_path, filter=f, columns=["order_id", "amount"])
    assert got.num_rows > 0 and rows(got) == rows(want)
    assert got.schema.names == ["order_id", "amount"]
    df = t.scan(limit=10).to_pandas()
    assert 0 < len(df) <= 10
    assert list(df.columns) == t.schema.names


def test_time_travel_by_snapshot(cli, tmp_path):
    t = paimon_rs.Catalog(str(WAREHOUSE)).get_table("demo.customers_pk")
    for s in t.snapshots():
        got = t.scan(snapshot=s["id"]).to_arrow()
        assert rows(got) == rows(cli_read(cli, t.location, tmp_path, snapshot=s["id"]))


def test_plan_metrics_and_empty_result():
    t = paimon_rs.Catalog(str(WAREHOUSE)).get_table("demo.orders")
    plan = t.scan(filter="dt = '2099-01-01'").plan()
    assert len(plan) == 0 and plan.splits == []
    assert isinstance(plan.metrics, dict)
    empty = t.scan(filter="dt = '2099-01-01'").to_arrow()
    assert empty.num_rows == 0 and empty.schema.names == t.schema.names
    reader = t.scan(filter="dt = '2099-01-01'").to_reader()
    assert reader.read_all().num_rows == 0


def test_zero_copy_reader_is_streaming():
    t = paimon_rs.Catalog(str(WAREHOUSE)).get_table("demo.orders")
    reader = t.scan(options={"read.batch-size": "7"}).to_reader()
    assert isinstance(reader, pa.RecordBatchReader)
    batches = list(reader)
    assert len(batches) > 1 and all(b.num_rows <= 7 for b in batches)
    assert sum(b.num_rows for b in batches) == t.scan().to_arrow().num_rows


def test_time_travel_by_tag(cli, tmp_path, warehouse_copy):
    # A Java tag file is the tagged snapshot's JSON under tag/tag-<name>.
    loc = warehouse_copy / "demo.db" / "customers_pk"
    (loc / "tag").mkdir()
    (loc / "tag" / "tag-first").write_bytes((loc / "snapshot" / "snapshot-1").read_bytes())
    t = paimon_rs.Catalog(str(warehouse_copy)).get_table("demo.customers_pk")
    assert t.tags() == ["first"]
    got = t.scan(tag="first", filter="id > 3").to_arrow()
    assert rows(got) == rows(t.scan(snapshot=1, filter="id > 3").to_arrow())
    assert rows(got) == rows(cli_read(cli, loc, tmp_path, tag="first", filter="id > 3"))
    if len(t.snapshots()) > 1:
        assert rows(t.scan(tag="first").to_arrow()) != rows(t.scan().to_arrow())
    with pytest.raises(paimon_rs.NotFoundError):
        t.scan(tag="nope").to_arrow()
