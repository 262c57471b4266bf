"""Tables written from Python read back equal, and pypaimon 2.1.0 reads the same rows."""

import os
import subprocess
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import paimon_rs
from conftest import REPO, rows

SCHEMA = pa.schema(
    [
        pa.field("id", pa.int64(), nullable=False),
        pa.field("dt", pa.string()),
        pa.field("v", pa.float64()),
        pa.field("s", pa.string()),
    ]
)


def _batch(ids, dt, v_off=0.0):
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "dt": pa.array([dt] * len(ids)),
            "v": pa.array([i * 1.5 + v_off for i in ids]),
            "s": pa.array([None if i % 7 == 0 else f"s{i}" for i in ids]),
        },
        schema=SCHEMA,
    )


def _pypaimon_python():
    p = Path(os.environ.get("PYPAIMON_PYTHON", REPO / ".venv-pypaimon" / "bin" / "python"))
    return p if p.exists() else None


@pytest.fixture
def written(tmp_path):
    root = tmp_path / "root"
    cat = paimon_rs.Catalog(str(root / "warehouse"))
    cat.create_database("written")
    return root, cat


def _expect(root, name, table):
    pq.write_table(table, root / "warehouse" / "written.db" / f"{name}.expected.parquet")


def test_write_append_pk_and_overwrite_then_pypaimon_reads(written):
    root, cat = written
    # Append table, partitioned; data given as a Table, a RecordBatchReader and a pandas frame.
    t = cat.create_table("written.py_append", SCHEMA, partition_keys=["dt"])
    first = _batch(range(0, 100), "2024-01-01")
    assert t.write(first) == 1
    second = _batch(range(100, 150), "2024-01-02")
    assert t.write(pa.RecordBatchReader.from_batches(SCHEMA, second.to_batches(max_chunksize=7))) == 2
    third = _batch(range(150, 160), "2024-01-02")
    assert t.write(third.to_pandas()) == 3
    want = pa.concat_tables([first, second, third])
    assert rows(t.scan().to_arrow()) == rows(want)
    _expect(root, "py_append", want)
    assert t.write(SCHEMA.empty_table()) is None

    # Primary-key table: the second write upserts half the keys.
    pk = cat.create_table(
        "written.py_pk", SCHEMA, primary_keys=["id", "dt"], partition_keys=["dt"],
        options={"bucket": "2"},
    )
    pk.write(_batch(range(0, 80), "2024-01-01"))
    pk.write(_batch(range(40, 120), "2024-01-01", v_off=1000.0))
    want_pk = pa.concat_tables([_batch(range(0, 40), "2024-01-01"),
                                _batch(range(40, 120), "2024-01-01", v_off=1000.0)])
    assert rows(pk.scan().to_arrow()) == rows(want_pk)
    _expect(root, "py_pk", want_pk)

    # Overwrite: dynamic (the written partition), then a static partition spec.
    ow = cat.create_table("written.py_overwrite", SCHEMA, partition_keys=["dt"])
    ow.write(pa.concat_tables([_batch(range(0, 10), "a"), _batch(range(10, 20), "b")]))
    ow.write(_batch(range(100, 105), "a"), overwrite=True)
    assert rows(ow.scan().to_arrow()) == rows(
        pa.concat_tables([_batch(range(100, 105), "a"), _batch(range(10, 20), "b")]))
    ow.write(_batch(range(200, 202), "b"), overwrite=True, partition={"dt": "b"})
    want_ow = pa.concat_tables([_batch(range(100, 105), "a"), _batch(range(200, 202), "b")])
    assert rows(ow.scan().to_arrow()) == rows(want_ow)
    _expect(root, "py_overwrite", want_ow)
    kinds = [s["commitKind"] for s in ow.snapshots()]
    assert kinds == ["APPEND", "OVERWRITE", "OVERWRITE"]

    py = _pypaimon_python()
    if py is None:
        if os.environ.get("CI"):
            pytest.fail("pypaimon venv missing (bash scripts/setup-pypaimon.sh)")
        pytest.skip("no .venv-pypaimon")
    r = subprocess.run([str(py), str(REPO / "scripts" / "check-written.py"), str(root)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "3 passed, 0 failed" in r.stdout, r.stdout


def test_write_errors(written):
    _, cat = written
    t = cat.create_table("written.errs", SCHEMA)
    with pytest.raises(paimon_rs.AlreadyExistsError):
        cat.create_table("written.errs", SCHEMA)
    with pytest.raises(paimon_rs.InvalidArgumentError):
        t.write(pa.table({"nope": [1]}))
    with pytest.raises(ValueError):
        t.write(_batch([1], "x"), partition={"dt": "x"})
    assert t.snapshots() == []


def test_batches_hold_8192_rows_unless_read_batch_size_is_set(written):
    _, cat = written
    t = cat.create_table("written.batches", SCHEMA)
    t.write(_batch(range(20_000), "2024-01-01"))
    sizes = [b.num_rows for b in t.scan().to_reader()]
    assert sum(sizes) == 20_000 and max(sizes) == 8192, sizes
    sizes = [b.num_rows for b in t.scan(options={"read.batch-size": "1000"}).to_reader()]
    assert sum(sizes) == 20_000 and max(sizes) == 1000, sizes
    cat.create_table("written.batches_opt", SCHEMA, options={"read.batch-size": "3000"})
    t3 = cat.get_table("written.batches_opt")
    t3.write(_batch(range(20_000), "2024-01-01"))
    assert max(b.num_rows for b in t3.scan().to_reader()) == 3000
