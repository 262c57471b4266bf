//! Which tables this writer can write correctly; everything else fails at `build()` with
//! `Unsupported` instead of writing data Java would read differently.

use super::avro::avro_writable;
use super::orc::orc_writable;
use crate::catalog::Table;
use crate::spec::options::{BucketMode, ChangelogProducer, FileFormat};
use crate::{Error, Result};

fn unsupported(what: &str, option: &str) -> Error {
    Error::unsupported(format!("writing {what} is not supported yet"))
        .with_context("option", option.to_string())
}

/// Rejects table layouts the writer does not produce.
pub(crate) fn check_supported(table: &Table) -> Result<()> {
    let schema = table.schema();
    let options = table.options();
    options.validate(schema)?;
    match &options.file_format {
        FileFormat::Parquet => {}
        FileFormat::Orc => {
            if let Some(f) = schema.fields.iter().find(|f| !orc_writable(&f.data_type)) {
                return Err(unsupported(
                    &format!("ORC files with a {} column ('{}')", f.data_type, f.name),
                    "file.format",
                ));
            }
        }
        FileFormat::Avro => {
            if let Some(f) = schema.fields.iter().find(|f| !avro_writable(&f.data_type)) {
                return Err(unsupported(
                    &format!("Avro files with a {} column ('{}')", f.data_type, f.name),
                    "file.format",
                ));
            }
        }
        other => {
            return Err(unsupported(
                &format!("file.format '{other}' (parquet, orc, avro)"),
                "file.format",
            ))
        }
    }
    if options.data_file_external_paths.is_some() {
        return Err(unsupported(
            "to external data paths",
            "data-file.external-paths",
        ));
    }
    if options.row_tracking_enabled || options.data_evolution_enabled {
        return Err(unsupported(
            "row-tracking / data-evolution tables",
            "row-tracking.enabled",
        ));
    }
    if !schema.has_primary_key() {
        return Ok(());
    }
    match options.bucket {
        BucketMode::Fixed(_) => {}
        // Cross-partition tables (a key without every partition field) keep a key index
        // (`write::cross_partition`).
        BucketMode::Dynamic => {}
        // Postpone files are read by no one until compacted: merge engines, deletion vectors
        // and changelog producers only matter to that compaction.
        BucketMode::Postpone => return Ok(()),
    }
    if options.changelog_producer != ChangelogProducer::None {
        return Err(unsupported("changelog files", "changelog-producer"));
    }
    Ok(())
}
