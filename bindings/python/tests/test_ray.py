"""Ray Data over pickled splits (skipped when Ray is not installed: scripts/setup-python.sh
installs it only with PAIMON_RS_RAY=1; slow: starting Ray takes minutes on a loaded machine).

Ray runs in a child interpreter under a timeout, so a Ray start-up that hangs fails this test
instead of blocking the suite, and Ray's processes and signal handlers stay out of pytest's."""

import os
import subprocess
import sys
import textwrap

import pyarrow.parquet as pq
import pytest

import paimon_rs
from conftest import WAREHOUSE, rows

pytest.importorskip("ray")
pytest.importorskip("ray.data")

# One CPU, no dashboard, generous start-up waits: Ray's default 30 s for the GCS port was too
# short on a 2-core machine shared by several builds.
CHILD = textwrap.dedent(
    """
    import os, sys
    import pyarrow as pa, pyarrow.parquet as pq
    import ray
    import paimon_rs, paimon_rs.ray as pray

    warehouse, out = sys.argv[1], sys.argv[2]
    t = paimon_rs.Catalog(warehouse).get_table("demo.orders")
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    try:
        ds = pray.read_table(t, filter="amount > 10", columns=["order_id", "amount"],
                             override_num_blocks=3)
        blocks = ray.get(ds.to_arrow_refs())
        pq.write_table(pa.concat_tables(blocks), out)
        print("blocks", len(blocks))
    finally:
        ray.shutdown()
    """
)


@pytest.mark.slow
def test_ray_read_table_equals_local_read(tmp_path):
    t = paimon_rs.Catalog(str(WAREHOUSE)).get_table("demo.orders")
    want = t.scan(filter="amount > 10", columns=["order_id", "amount"]).to_arrow()
    out = tmp_path / "ray.parquet"
    env = dict(os.environ, RAY_gcs_server_port_wait_time_s="300",
               RAY_gcs_server_request_timeout_seconds="300")
    r = subprocess.run([sys.executable, "-c", CHILD, str(WAREHOUSE), str(out)], env=env,
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-4000:]
    got = pq.read_table(out)
    assert want.num_rows > 0
    assert rows(got.select(want.schema.names)) == rows(want)
