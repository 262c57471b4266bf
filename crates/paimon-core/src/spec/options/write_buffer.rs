//! Options of a primary-key writer's sort buffer and of the row-kind filter applied before it
//! (Java `CoreOptions` `write-buffer-*`, `spill-compression`, `local-sort.max-num-file-handles`,
//! `ignore-update-before`, Paimon 2.0), parsed with the other table options.

use super::reader::{parse_int, OptionReader};
use super::MemorySize;
use crate::{Error, Result};

/// `write-buffer-spillable`, default true.
pub const WRITE_BUFFER_SPILLABLE: &str = "write-buffer-spillable";
/// `write-buffer-spill.max-disk-size`, default infinite (`Long.MAX_VALUE` bytes).
pub const WRITE_BUFFER_SPILL_MAX_DISK_SIZE: &str = "write-buffer-spill.max-disk-size";
/// `spill-compression`, default `zstd`.
pub const SPILL_COMPRESSION: &str = "spill-compression";
/// `local-sort.max-num-file-handles`, default 128.
pub const LOCAL_SORT_MAX_NUM_FILE_HANDLES: &str = "local-sort.max-num-file-handles";
/// `ignore-update-before`, default false.
pub const IGNORE_UPDATE_BEFORE: &str = "ignore-update-before";

/// How spilled runs are compressed (Java `CompressOptions`; the spill files are local scratch,
/// not a Paimon format, so only the choice between none / fast / strong is kept).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpillCompression {
    /// `none`.
    None,
    /// `lz4`, and `lzo` (not available here; LZ4 is the same kind of fast codec).
    Lz4,
    /// `zstd` (the default).
    Zstd,
}

fn parse_compression(v: &str) -> Result<SpillCompression> {
    match v.to_ascii_lowercase().as_str() {
        "none" => Ok(SpillCompression::None),
        "lz4" | "lzo" => Ok(SpillCompression::Lz4),
        "zstd" => Ok(SpillCompression::Zstd),
        _ => Err(Error::invalid_argument("expected none, lz4, lzo or zstd")),
    }
}

/// The write buffer's options; field docs name the key and its default.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteBufferOptions {
    /// `write-buffer-spillable` (true): a full buffer is sorted and spilled to a local file,
    /// and all spilled runs are merged into one level-0 file set at flush.
    pub spillable: bool,
    /// `write-buffer-spill.max-disk-size` (infinite): spilled bytes per writer beyond which a
    /// full buffer is flushed to level-0 files instead.
    pub spill_max_disk_size: MemorySize,
    /// `spill-compression` (zstd).
    pub spill_compression: SpillCompression,
    /// `local-sort.max-num-file-handles` (128): the most runs merged at once.
    pub max_num_file_handles: usize,
    /// `ignore-update-before` (false): `-U` rows are dropped before the buffer.
    pub ignore_update_before: bool,
}

impl WriteBufferOptions {
    pub(super) fn parse(r: &mut OptionReader<'_>) -> Result<Self> {
        let handles = |v: &str| -> Result<usize> {
            let n: i32 = parse_int(v)?;
            match usize::try_from(n) {
                Ok(n) if n >= 2 => Ok(n),
                _ => Err(Error::invalid_argument("must be at least 2")),
            }
        };
        Ok(WriteBufferOptions {
            spillable: r.bool(WRITE_BUFFER_SPILLABLE, true)?,
            spill_max_disk_size: r.get(
                WRITE_BUFFER_SPILL_MAX_DISK_SIZE,
                MemorySize::from_bytes(i64::MAX as u64),
            )?,
            spill_compression: r
                .parse_with(SPILL_COMPRESSION, &[], parse_compression)?
                .unwrap_or(SpillCompression::Zstd),
            max_num_file_handles: r
                .parse_with(LOCAL_SORT_MAX_NUM_FILE_HANDLES, &[], handles)?
                .unwrap_or(128),
            ignore_update_before: r.bool(IGNORE_UPDATE_BEFORE, false)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::spec::options::TableOptions;

    fn parse(pairs: &[(&str, &str)]) -> Result<WriteBufferOptions> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        TableOptions::from_map(&map).map(|o| o.write_buffer)
    }

    #[test]
    fn defaults_are_javas() {
        let d = TableOptions::default().write_buffer;
        assert!(d.spillable);
        assert_eq!(d.spill_max_disk_size.bytes(), i64::MAX as u64);
        assert_eq!(d.spill_compression, SpillCompression::Zstd);
        assert_eq!(d.max_num_file_handles, 128);
        assert!(!d.ignore_update_before);
    }

    #[test]
    fn values_parse_and_bad_ones_name_the_key() {
        let o = parse(&[
            (WRITE_BUFFER_SPILLABLE, "FALSE"),
            (WRITE_BUFFER_SPILL_MAX_DISK_SIZE, "10 mb"),
            (SPILL_COMPRESSION, "LZO"),
            (LOCAL_SORT_MAX_NUM_FILE_HANDLES, "4"),
            (IGNORE_UPDATE_BEFORE, "true"),
        ])
        .unwrap();
        assert!(!o.spillable);
        assert_eq!(o.spill_max_disk_size, MemorySize::from_mebibytes(10));
        assert_eq!(o.spill_compression, SpillCompression::Lz4);
        assert_eq!(o.max_num_file_handles, 4);
        assert!(o.ignore_update_before);
        for (k, v) in [
            (SPILL_COMPRESSION, "snappy"),
            (LOCAL_SORT_MAX_NUM_FILE_HANDLES, "1"),
            (WRITE_BUFFER_SPILLABLE, "yes"),
        ] {
            let e = parse(&[(k, v)]).unwrap_err();
            assert!(e.to_string().contains(k), "{e}");
        }
    }
}
