"""Bad input raises the mapped paimon_rs exception with the CLI's message, never a crash."""

import glob
import shutil

import pytest

import paimon_rs
from conftest import WAREHOUSE, cli_error, java_table


def test_unknown_table_is_not_found(cli):
    cat = paimon_rs.Catalog(str(WAREHOUSE))
    with pytest.raises(paimon_rs.NotFoundError) as e:
        cat.get_table("demo.nope")
    code, err = cli_error(cli, "read", WAREHOUSE, "demo.nope")
    assert code == 3 and err == f"error: {e.value}"
    with pytest.raises(paimon_rs.NotFoundError):
        paimon_rs.open_table(str(WAREHOUSE / "demo.db" / "nope"))
    assert issubclass(paimon_rs.NotFoundError, paimon_rs.PaimonError)


def test_bad_filter_and_column_are_invalid_arguments(cli):
    t = paimon_rs.Catalog(str(WAREHOUSE)).get_table("demo.orders")
    with pytest.raises(paimon_rs.InvalidArgumentError) as e:
        t.scan(filter="amount >")
    code, err = cli_error(cli, "read", t.location, "--where", "amount >")
    assert code == 2 and err == f"error: {e.value}"
    with pytest.raises(paimon_rs.InvalidArgumentError):
        t.scan(filter="no_such_column = 1")
    with pytest.raises(paimon_rs.InvalidArgumentError):
        t.scan(columns=["no_such_column"])
    with pytest.raises(paimon_rs.NotFoundError):
        t.scan(snapshot=999).to_arrow()
    with pytest.raises(ValueError):
        t.scan(snapshot=1, tag="x")


def _corrupt_copy(tmp_path):
    src = java_table("parquet/append_09")
    dst = tmp_path / "append_09"
    shutil.copytree(src, dst)
    files = sorted(glob.glob(str(dst / "**" / "*.parquet"), recursive=True))
    assert files
    for f in files:
        with open(f, "r+b") as fh:
            data = fh.read()
            fh.seek(0)
            # Keep the size (the manifest records it), break the footer and the magic.
            fh.write(b"\0" * len(data))
    return dst


def test_corrupt_file_raises_data_invalid(cli, tmp_path):
    t = paimon_rs.open_table(str(_corrupt_copy(tmp_path)))
    with pytest.raises(paimon_rs.DataInvalidError) as e:
        t.scan().to_arrow()
    code, err = cli_error(cli, "read", t.location)
    assert code == 4 and err.startswith("error: invalid data")
    # Mid-stream: the reader is created, the error surfaces while iterating, with its class.
    reader = t.scan().to_reader()
    with pytest.raises(paimon_rs.DataInvalidError):
        reader.read_all()
    assert "invalid data" in str(e.value)
