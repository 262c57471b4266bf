"""Ray Data over pickled splits (skipped when Ray is not installed; slow: starts Ray)."""

import pytest

import paimon_rs
from conftest import WAREHOUSE, rows

ray = pytest.importorskip("ray")
pytest.importorskip("ray.data")


@pytest.mark.slow
def test_ray_read_table_equals_local_read():
    import paimon_rs.ray as pray

    t = paimon_rs.Catalog(str(WAREHOUSE)).get_table("demo.orders")
    want = t.scan(filter="amount > 10", columns=["order_id", "amount"]).to_arrow()
    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True)
    try:
        ds = pray.read_table(t, filter="amount > 10", columns=["order_id", "amount"],
                             override_num_blocks=3)
        got = ds.to_arrow_refs()
        import pyarrow as pa

        got = pa.concat_tables(ray.get(got))
        assert rows(got.select(want.schema.names)) == rows(want)
    finally:
        ray.shutdown()
