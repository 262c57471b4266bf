//! paimon-core errors as DataFusion errors that name the table.

use datafusion::common::DataFusionError;
use paimon_core::{Error, ErrorKind};

/// `e`, raised while planning or reading `table`, as a DataFusion error: argument and
/// unsupported-feature errors are plan errors, the rest execution errors; the message starts
/// with the table's name.
pub fn to_df_error(e: Error, table: &str) -> DataFusionError {
    let message = format!("paimon table {table}: {e}");
    match e.kind() {
        ErrorKind::InvalidArgument | ErrorKind::Unsupported | ErrorKind::NotFound => {
            DataFusionError::Plan(message)
        }
        _ => DataFusionError::Execution(message),
    }
}
