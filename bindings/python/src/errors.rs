//! paimon-core errors as Python exceptions, one class per [`ErrorKind`], all under
//! `paimon_rs.PaimonError`. Messages are the error's `Display`, as the `paimon` CLI prints it.

use paimon_core::{Error, ErrorKind};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    paimon_rs,
    PaimonError,
    PyException,
    "Base class of every paimon-rs error."
);
create_exception!(
    paimon_rs,
    NotFoundError,
    PaimonError,
    "A table, database, snapshot, tag, schema or file does not exist."
);
create_exception!(
    paimon_rs,
    DataInvalidError,
    PaimonError,
    "Content on storage is corrupt, truncated or inconsistent."
);
create_exception!(
    paimon_rs,
    UnsupportedError,
    PaimonError,
    "A valid Paimon feature paimon-rs does not support (yet)."
);
create_exception!(
    paimon_rs,
    InvalidArgumentError,
    PaimonError,
    "The caller asked for something impossible: unknown column, bad filter, bad option."
);
create_exception!(
    paimon_rs,
    AlreadyExistsError,
    PaimonError,
    "Something that must be created only if absent already exists."
);
create_exception!(
    paimon_rs,
    ConflictError,
    PaimonError,
    "A commit conflicts with the table's current state."
);
create_exception!(paimon_rs, PaimonIOError, PaimonError, "Storage failed.");
create_exception!(
    paimon_rs,
    InternalError,
    PaimonError,
    "A bug in paimon-rs; please report it."
);

/// A paimon-core error as the matching Python exception.
pub fn to_py(e: Error) -> PyErr {
    let msg = e.to_string();
    match e.kind() {
        ErrorKind::NotFound => NotFoundError::new_err(msg),
        ErrorKind::DataInvalid => DataInvalidError::new_err(msg),
        ErrorKind::Unsupported => UnsupportedError::new_err(msg),
        ErrorKind::InvalidArgument => InvalidArgumentError::new_err(msg),
        ErrorKind::AlreadyExists => AlreadyExistsError::new_err(msg),
        ErrorKind::Conflict => ConflictError::new_err(msg),
        ErrorKind::Io => PaimonIOError::new_err(msg),
        _ => InternalError::new_err(msg),
    }
}

/// `Result<T, paimon_core::Error>` → `PyResult<T>`.
pub trait IntoPyResult<T> {
    /// Maps the error with [`to_py`].
    fn py(self) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for paimon_core::Result<T> {
    fn py(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}

/// Registers the exception classes in the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("PaimonError", py.get_type::<PaimonError>())?;
    m.add("NotFoundError", py.get_type::<NotFoundError>())?;
    m.add("DataInvalidError", py.get_type::<DataInvalidError>())?;
    m.add("UnsupportedError", py.get_type::<UnsupportedError>())?;
    m.add(
        "InvalidArgumentError",
        py.get_type::<InvalidArgumentError>(),
    )?;
    m.add("AlreadyExistsError", py.get_type::<AlreadyExistsError>())?;
    m.add("ConflictError", py.get_type::<ConflictError>())?;
    m.add("PaimonIOError", py.get_type::<PaimonIOError>())?;
    m.add("InternalError", py.get_type::<InternalError>())?;
    Ok(())
}
