//! The data file format of one file, from its name.
//!
//! Mirrors Java `org.apache.paimon.io.DataFilePathFactory#formatIdentifier` (Paimon 2.0): the
//! format is the last extension, or the one before it when the last is a compression extension
//! written with `file.suffix.include.compression = true` (`data-<uuid>-0.zst.parquet` names the
//! format last; text formats such as `x.csv.gz` name it first). Only the formats this crate
//! reads are accepted.

use std::fmt;

use crate::{Error, Result};

/// A columnar or row data file format this crate reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileFormat {
    /// Apache Parquet.
    Parquet,
    /// Apache ORC.
    Orc,
    /// Apache Avro object container file.
    Avro,
}

const COMPRESSION_EXTENSIONS: &[&str] = &["zst", "gz", "bz2", "snappy", "lz4", "deflate", "zstd"];

impl FileFormat {
    /// The format of a data file from its name (or full path).
    pub fn from_file_name(name: &str) -> Result<FileFormat> {
        let base = name.rsplit('/').next().unwrap_or(name);
        let mut exts = base.rsplit('.');
        let last = exts.next().unwrap_or_default();
        let ident = if COMPRESSION_EXTENSIONS.contains(&last.to_ascii_lowercase().as_str()) {
            exts.next().unwrap_or_default()
        } else {
            last
        };
        if ident.len() == base.len() {
            return Err(Error::unsupported("data file name has no format extension")
                .with_context("file", name));
        }
        Self::from_identifier(ident).map_err(|e| e.with_context("file", name))
    }

    /// The format of a `file.format` option value (`parquet`, `orc`, `avro`).
    pub fn from_identifier(ident: &str) -> Result<FileFormat> {
        match ident.to_ascii_lowercase().as_str() {
            "parquet" => Ok(FileFormat::Parquet),
            "orc" => Ok(FileFormat::Orc),
            "avro" => Ok(FileFormat::Avro),
            other => Err(Error::unsupported(format!(
                "data file format '{other}' is not supported"
            ))),
        }
    }
}

impl fmt::Display for FileFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FileFormat::Parquet => "parquet",
            FileFormat::Orc => "orc",
            FileFormat::Avro => "avro",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_from_names() {
        let ok = [
            ("data-1a-0.parquet", FileFormat::Parquet),
            ("/t/bucket-0/data-1a-0.orc", FileFormat::Orc),
            ("data-1a-0.AVRO", FileFormat::Avro),
            ("data-1a-0.zst.parquet", FileFormat::Parquet),
            ("data-1a-0.orc.zst", FileFormat::Orc),
            ("changelog-1a-3.snappy.avro", FileFormat::Avro),
            ("data-1a-0.gz.orc", FileFormat::Orc),
        ];
        for (n, f) in ok {
            assert_eq!(FileFormat::from_file_name(n).unwrap(), f, "{n}");
        }
        for bad in ["data-1a-0.csv", "data-1a-0", "data-1a-0.blob", "x.zst"] {
            let e = FileFormat::from_file_name(bad).unwrap_err();
            assert!(e.to_string().contains(bad), "{e}");
        }
    }
}
