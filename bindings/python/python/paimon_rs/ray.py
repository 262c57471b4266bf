"""Ray Data over paimon_rs: `paimon_rs.ray.read_table(table, ...)` plans on the driver and
reads the splits in Ray tasks (each task gets only pickled splits, never the Table).

Requires `ray[data]` (an optional dependency: `pip install paimon-rs[ray]`).
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence

import pyarrow as pa

try:
    import ray
    import ray.data
    from ray.data.block import BlockMetadata
    from ray.data.datasource import Datasource, ReadTask
except ImportError as e:  # pragma: no cover - exercised only without ray
    raise ImportError("paimon_rs.ray needs Ray Data: pip install 'ray[data]'") from e

from paimon_rs._native import Split, Table, read_split

__all__ = ["PaimonDatasource", "read_table"]


def _group(splits: Sequence[Split], n: int) -> List[List[Split]]:
    """Splits in at most `n` groups of similar row counts (largest first, to the lightest)."""
    n = max(1, min(n, len(splits)))
    groups: List[List[Split]] = [[] for _ in range(n)]
    rows = [0] * n
    for s in sorted(splits, key=lambda s: s.row_count, reverse=True):
        i = rows.index(min(rows))
        groups[i].append(s)
        rows[i] += s.row_count
    return [g for g in groups if g]


def _read_fn(splits: List[Split], schema: pa.Schema, storage: Optional[Dict[str, str]]):
    def read() -> Iterable[pa.Table]:
        out = [read_split(s, storage) for s in splits]
        if not out:
            yield schema.empty_table()
        for t in out:
            yield t

    return read


class PaimonDatasource(Datasource):
    """A Ray Data datasource over one planned scan of a paimon_rs Table."""

    def __init__(
        self,
        table: Table,
        *,
        filter: Optional[str] = None,
        columns: Optional[List[str]] = None,
        snapshot: Optional[int] = None,
        tag: Optional[str] = None,
        options: Optional[Mapping[str, str]] = None,
        storage_options: Optional[Mapping[str, str]] = None,
    ):
        scan = table.scan(
            filter=filter,
            columns=columns,
            snapshot=snapshot,
            tag=tag,
            options=dict(options or {}),
        )
        self._schema: pa.Schema = scan.schema
        self._splits: List[Split] = list(scan.plan().splits)
        self._storage = dict(storage_options) if storage_options else None

    def estimate_inmemory_data_size(self) -> Optional[int]:
        return sum(s.file_size for s in self._splits) or None

    def get_read_tasks(self, parallelism: int, per_task_row_limit: Optional[int] = None,
                       **_: Any) -> List[ReadTask]:
        tasks = []
        for group in _group(self._splits, parallelism):
            meta = BlockMetadata(
                num_rows=None,
                size_bytes=sum(s.file_size for s in group),
                input_files=tuple(f for s in group for f in s.files),
                exec_stats=None,
            )
            fn = _read_fn(group, self._schema, self._storage)
            tasks.append(_read_task(fn, meta, self._schema, per_task_row_limit))
        return tasks


def _read_task(fn, meta, schema, per_task_row_limit) -> ReadTask:
    try:
        return ReadTask(fn, meta, schema=schema, per_task_row_limit=per_task_row_limit)
    except TypeError:  # Ray < 2.52: no per_task_row_limit / schema arguments
        return ReadTask(fn, meta)


def read_table(table: Table, *, override_num_blocks: Optional[int] = None,
               **scan_args: Any) -> "ray.data.Dataset":
    """A Ray Dataset of `table` (scan arguments as `Table.scan`: filter, columns, snapshot, tag,
    options; `storage_options` for the workers)."""
    return ray.data.read_datasource(
        PaimonDatasource(table, **scan_args), override_num_blocks=override_num_blocks
    )
