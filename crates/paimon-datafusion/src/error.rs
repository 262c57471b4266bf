//! paimon-core errors as DataFusion errors that name the table.

use datafusion::common::DataFusionError;
use paimon_core::{Error, ErrorKind};

/// `e`, raised while planning or reading `table`, as a DataFusion error: argument and
/// unsupported-feature errors are plan errors, storage failures I/O errors (Ballista retries
/// a task that failed with one, on any executor; it fails the query on any other error), the
/// rest execution errors; the message starts with the table's name.
pub fn to_df_error(e: Error, table: &str) -> DataFusionError {
    let message = format!("paimon table {table}: {e}");
    match e.kind() {
        ErrorKind::InvalidArgument | ErrorKind::Unsupported | ErrorKind::NotFound => {
            DataFusionError::Plan(message)
        }
        ErrorKind::Io => DataFusionError::IoError(std::io::Error::other(message)),
        _ => DataFusionError::Execution(message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_failures_are_io_errors_naming_the_table() {
        let e = to_df_error(Error::io("connection reset"), "db.t");
        assert!(matches!(e, DataFusionError::IoError(_)), "{e:?}");
        assert!(e.to_string().contains("paimon table db.t"), "{e}");
        let e = to_df_error(Error::data_invalid("bad page"), "db.t");
        assert!(matches!(e, DataFusionError::Execution(_)), "{e:?}");
    }
}
