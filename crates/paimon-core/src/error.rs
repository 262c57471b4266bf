//! The one error type of `paimon-core`.
//!
//! An [`Error`] carries an [`ErrorKind`] for callers' decisions, a message for humans, context
//! pairs (`file`, `offset`, `expected`, `found`, ...) and an optional source. Foreign errors are
//! mapped to a kind here and nowhere else.

use std::fmt;

/// What went wrong, for callers that branch on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A table, snapshot, tag, schema or file does not exist.
    NotFound,
    /// Content on disk is corrupt, truncated or inconsistent.
    DataInvalid,
    /// A valid feature this reader does not (yet) support.
    Unsupported,
    /// The caller passed something impossible: unknown column, bad literal, bad option.
    InvalidArgument,
    /// A file that must be created only if absent already exists (a lost commit race).
    AlreadyExists,
    /// A commit conflicts with the table's current state (another commit removed or added
    /// the files it depends on, or kept winning the race).
    Conflict,
    /// Storage failed.
    Io,
    /// A bug in paimon-rs; please report it.
    Internal,
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            ErrorKind::NotFound => "not found",
            ErrorKind::DataInvalid => "invalid data",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::InvalidArgument => "invalid argument",
            ErrorKind::AlreadyExists => "already exists",
            ErrorKind::Conflict => "commit conflict",
            ErrorKind::Io => "I/O error",
            ErrorKind::Internal => "internal error",
        };
        f.write_str(s)
    }
}

/// The error of every fallible `paimon-core` call.
#[derive(Debug, thiserror::Error)]
#[error("{kind}: {message}{}", fmt_context(.context))]
pub struct Error {
    kind: ErrorKind,
    message: String,
    context: Vec<(&'static str, String)>,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

fn fmt_context(context: &[(&'static str, String)]) -> String {
    let mut out = String::new();
    for (k, v) in context {
        out.push_str(&format!(" ({k}: {v})"));
    }
    out
}

/// `Result` with [`Error`] as the default error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error of `kind`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
            context: Vec::new(),
            source: None,
        }
    }
    /// Content on disk is wrong.
    pub fn data_invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::DataInvalid, message)
    }
    /// Something does not exist.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotFound, message)
    }
    /// A feature is not supported.
    pub fn unsupported(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unsupported, message)
    }
    /// The caller asked for something impossible.
    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidArgument, message)
    }
    /// A paimon-rs bug.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Internal, message)
    }
    /// Storage failed.
    pub fn io(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Io, message)
    }
    /// Adds a context pair, such as `("file", path)`.
    #[must_use]
    pub fn with_context(mut self, key: &'static str, value: impl Into<String>) -> Self {
        self.context.push((key, value.into()));
        self
    }
    /// Sets the underlying cause.
    #[must_use]
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Box::new(source));
        self
    }
    /// The kind of this error.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
    /// The message without context.
    pub fn message(&self) -> &str {
        &self.message
    }
    /// The context pairs.
    pub fn context(&self) -> &[(&'static str, String)] {
        &self.context
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        let kind = if e.kind() == std::io::ErrorKind::NotFound {
            ErrorKind::NotFound
        } else {
            ErrorKind::Io
        };
        Error::new(kind, e.to_string()).with_source(e)
    }
}

impl From<object_store::Error> for Error {
    fn from(e: object_store::Error) -> Self {
        let kind = match e {
            object_store::Error::NotFound { .. } => ErrorKind::NotFound,
            object_store::Error::AlreadyExists { .. } => ErrorKind::AlreadyExists,
            object_store::Error::NotImplemented { .. } => ErrorKind::Unsupported,
            _ => ErrorKind::Io,
        };
        Error::new(kind, e.to_string()).with_source(e)
    }
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        Error::data_invalid(format!("invalid JSON: {e}")).with_source(e)
    }
}

impl From<parquet::errors::ParquetError> for Error {
    fn from(e: parquet::errors::ParquetError) -> Self {
        Error::data_invalid(format!("parquet: {e}")).with_source(e)
    }
}

impl From<arrow_schema::ArrowError> for Error {
    fn from(e: arrow_schema::ArrowError) -> Self {
        Error::data_invalid(format!("arrow: {e}")).with_source(e)
    }
}

impl From<apache_avro::Error> for Error {
    fn from(e: apache_avro::Error) -> Self {
        Error::data_invalid(format!("avro: {e}")).with_source(e)
    }
}

impl From<orc_rust::error::OrcError> for Error {
    fn from(e: orc_rust::error::OrcError) -> Self {
        Error::data_invalid(format!("orc: {e}")).with_source(e)
    }
}

impl From<tokio::task::JoinError> for Error {
    fn from(e: tokio::task::JoinError) -> Self {
        Error::internal(format!("task failed: {e}")).with_source(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_has_kind_message_and_context() {
        let e = Error::data_invalid("bad magic")
            .with_context("file", "a/b")
            .with_context("offset", "4");
        assert_eq!(
            e.to_string(),
            "invalid data: bad magic (file: a/b) (offset: 4)"
        );
        assert_eq!(e.kind(), ErrorKind::DataInvalid);
    }
}
