"""Shared helpers: the repository's fixtures, the `paimon` CLI as the reference reader."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

REPO = Path(__file__).resolve().parents[3]
JAVA = Path(os.environ.get("PAIMON_JAVA_FIXTURES", REPO / "testdata" / "java"))
WAREHOUSE = REPO / "examples" / "warehouse"


def cli_path():
    """The `paimon` binary: $PAIMON_CLI, else target/debug/paimon (CARGO_TARGET_DIR honoured)."""
    if os.environ.get("PAIMON_CLI"):
        return Path(os.environ["PAIMON_CLI"])
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return target / "debug" / "paimon"


@pytest.fixture(scope="session")
def cli():
    path = cli_path()
    if not path.exists():
        if os.environ.get("PAIMON_CLI"):
            pytest.fail(f"PAIMON_CLI={path} does not exist")
        pytest.skip(f"no paimon CLI at {path} (cargo build -p paimon-cli)")
    return path


def cli_read(cli, table, tmp_path, filter=None, columns=None, snapshot=None, tag=None):
    """Rows of `paimon read` (Parquet output) as a pyarrow.Table."""
    out = tmp_path / f"cli-{os.getpid()}-{len(list(tmp_path.iterdir()))}.parquet"
    args = [str(cli), "read", str(table), "--format", "parquet", "--output", str(out)]
    if filter:
        args += ["--where", filter]
    if columns:
        args += ["--select", ",".join(columns)]
    if snapshot is not None:
        args += ["--snapshot", str(snapshot)]
    if tag is not None:
        args += ["--tag", tag]
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return pq.read_table(out)


def cli_error(cli, *args):
    """(exit code, stderr) of a failing CLI command."""
    r = subprocess.run([str(cli), *map(str, args)], capture_output=True, text=True)
    assert r.returncode != 0
    return r.returncode, r.stderr.strip()


def rows(table: pa.Table):
    """Rows as sorted tuples of Python values (order-independent comparison)."""
    cols = [table.column(i).to_pylist() for i in range(table.num_columns)]
    return sorted(zip(*cols), key=repr) if cols else []


def expected_reads():
    """(table path, read) of every expected read in testdata/java/expected."""
    out = []
    for f in sorted((JAVA / "expected").rglob("*.json")):
        spec = json.loads(f.read_text())
        for i, read in enumerate(spec["snapshots"]):
            out.append(pytest.param(spec["table"], read, id=f"{spec['table']}#{i}"))
    return out


def java_table(name):
    """Directory of the Java fixture table `name` (`parquet/append_09`)."""
    fmt_dir, _, table = name.rpartition("/")
    base = JAVA / fmt_dir if fmt_dir else JAVA
    return base / f"{table}.db" / table


@pytest.fixture
def warehouse_copy(tmp_path):
    """A writable copy of examples/warehouse."""
    dst = tmp_path / "warehouse"
    shutil.copytree(WAREHOUSE, dst)
    return dst
