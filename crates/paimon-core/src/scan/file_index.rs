//! Planning-time file skipping by embedded data-file indexes (Java
//! `AppendOnlyFileStoreScan#testFileIndex`, `KeyValueFileStoreScan#filterByFileIndex`;
//! `shared/spec/file-index.md` §8.4).
//!
//! Only `_EMBEDDED_FILE_INDEX` is consulted (sidecar `*.index` files are read by `read/` when a
//! file is opened), after value statistics, and only "can any row match" matters. The
//! predicate is mapped to the file's own schema by field id. Any decoding error keeps the file
//! (fails open), with a warning naming it, and is counted.

use crate::expr::BoundPredicate;
use crate::index::file_index::{evaluate, FileIndexContainer};
use crate::spec::manifest::DataFileMeta;
use crate::spec::types::DataField;

use super::metrics::FileIndexMetrics;

/// Whether `file` may hold a row matching `predicate`, by its embedded index (true when it has
/// none or it cannot be decoded). `file_fields` is the file's own schema.
pub(crate) fn keep_by_embedded_index(
    file: &DataFileMeta,
    predicate: &BoundPredicate,
    file_fields: &[DataField],
    metrics: &mut FileIndexMetrics,
) -> bool {
    let Some(bytes) = &file.embedded_index else {
        return true;
    };
    metrics.files_evaluated += 1;
    let evaluation = FileIndexContainer::decode(bytes)
        .and_then(|c| evaluate(&c, predicate, file_fields, file.row_count));
    match evaluation {
        Ok(e) if !e.result.remain() => {
            metrics.files_skipped += 1;
            for k in e.kinds {
                *metrics
                    .files_skipped_by_kind
                    .entry(k.name().to_string())
                    .or_default() += 1;
            }
            false
        }
        Ok(_) => true,
        Err(err) => {
            tracing::warn!(file = %file.file_name, error = %err, "embedded file index unreadable; file kept");
            metrics.fallbacks += 1;
            true
        }
    }
}
