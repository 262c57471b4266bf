"""paimon_rs: Apache Paimon tables from Python, read and written by paimon-rs (Rust).

    import paimon_rs
    cat = paimon_rs.Catalog("/warehouse")
    t = cat.get_table("db.orders")
    tbl = t.scan(filter="dt = '2024-01-02' AND amount > 100", columns=["id", "amount"]).to_arrow()
    for batch in t.scan().to_reader(): ...
    plan = t.scan(filter="id = 7").plan()           # picklable splits
    parts = [t.read_split(s) for s in plan.splits]
    t.write(pyarrow_table)                           # one commit

Arrow data crosses the boundary through the Arrow C data and stream interfaces (no copies);
planning and reading run on a Rust runtime with the GIL released.
"""

from paimon_rs._native import (
    WITH_DATAFUSION,
    AlreadyExistsError,
    BatchIter,
    Catalog,
    ConflictError,
    DataInvalidError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    PaimonError,
    PaimonIOError,
    Plan,
    Scan,
    Split,
    Table,
    UnsupportedError,
    __version__,
    open_table,
    read_split,
)

__all__ = [
    "WITH_DATAFUSION",
    "AlreadyExistsError",
    "BatchIter",
    "Catalog",
    "ConflictError",
    "DataInvalidError",
    "InternalError",
    "InvalidArgumentError",
    "NotFoundError",
    "PaimonError",
    "PaimonIOError",
    "Plan",
    "Scan",
    "Split",
    "Table",
    "UnsupportedError",
    "__version__",
    "open_table",
    "read_split",
]
