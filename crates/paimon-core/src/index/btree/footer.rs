//! The 52-byte footer of a BTree index file (`org.apache.paimon.globalindex.btree.BTreeFileFooter`,
//! Paimon 2.0), little-endian:
//!
//! | off | size | field |
//! |-----|------|-------|
//! | 0  | 8 | bloom filter offset (`i64`) |
//! | 8  | 4 | bloom filter size (`i32`) |
//! | 12 | 8 | bloom filter expected entries (`i64`); all three 0 = no bloom filter |
//! | 20 | 8 | index block offset |
//! | 28 | 4 | index block size (without its trailer) |
//! | 32 | 8 | null bitmap offset |
//! | 40 | 4 | null bitmap size (without its CRC); both 0 = no null rows |
//! | 44 | 4 | version = 1 |
//! | 48 | 4 | magic `0x50425449` (bytes `49 54 42 50`, "ITBP") |

use crate::index::sst::BlockHandle;
use crate::spec::bytes::ByteReader;
use crate::{Error, Result};

/// `BTreeFileFooter.MAGIC_NUMBER`.
pub const MAGIC: u32 = 0x5042_5449;
/// The footer version this reader knows (`BTreeFileFooter.CURRENT_VERSION`).
pub const VERSION: i32 = 1;
/// `BTreeFileFooter.ENCODED_LENGTH`.
pub const FOOTER_LEN: usize = 52;

/// The bloom filter's location (`org.apache.paimon.sst.BloomFilterHandle`); read, not used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BloomFilterHandle {
    /// File offset.
    pub offset: u64,
    /// Size in bytes.
    pub size: u32,
    /// Expected entries the filter was sized for.
    pub expected_entries: i64,
}

/// A decoded footer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BTreeFooter {
    /// The bloom filter, if written (`btree-index.bloom-filter.enabled`).
    pub bloom_filter: Option<BloomFilterHandle>,
    /// The index block.
    pub index_block: BlockHandle,
    /// The null bitmap (its size excludes the trailing CRC), if any row was null.
    pub null_bitmap: Option<BlockHandle>,
}

impl BTreeFooter {
    /// Decodes the last 52 bytes of a file. Java 2.0 reads but does not check the version;
    /// we reject every version but 1 (`Unsupported`: newer writers change the row-id lists),
    /// and a bad magic, negative offsets or sizes (`DataInvalid`).
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let mut r = ByteReader::new(bytes, "BTree footer");
        if bytes.len() != FOOTER_LEN {
            return Err(r
                .invalid("wrong length")
                .with_context("expected", FOOTER_LEN.to_string())
                .with_context("found", bytes.len().to_string()));
        }
        let bloom_offset = r.i64_le()?;
        let bloom_size = r.i32_le()?;
        let bloom_entries = r.i64_le()?;
        let index_offset = r.i64_le()?;
        let index_size = r.i32_le()?;
        let null_offset = r.i64_le()?;
        let null_size = r.i32_le()?;
        let version = r.i32_le()?;
        let magic = r.u32_le()?;
        if magic != MAGIC {
            return Err(
                Error::data_invalid("not a BTree index file (bad magic number)")
                    .with_context("offset", (FOOTER_LEN - 4).to_string())
                    .with_context("expected", format!("{MAGIC:#010x}"))
                    .with_context("found", format!("{magic:#010x}")),
            );
        }
        if version != VERSION {
            return Err(Error::unsupported(format!(
                "BTree index file footer version {version} (only {VERSION} is supported)"
            )));
        }
        let handle = |offset: i64, size: i32, what: &str| -> Result<BlockHandle> {
            match (u64::try_from(offset), u32::try_from(size)) {
                (Ok(offset), Ok(size)) => Ok(BlockHandle { offset, size }),
                _ => Err(
                    Error::data_invalid(format!("BTree footer: negative {what}"))
                        .with_context("offset", offset.to_string())
                        .with_context("size", size.to_string()),
                ),
            }
        };
        let bloom_filter = if bloom_offset == 0 && bloom_size == 0 && bloom_entries == 0 {
            None
        } else {
            let h = handle(bloom_offset, bloom_size, "bloom filter handle")?;
            Some(BloomFilterHandle {
                offset: h.offset,
                size: h.size,
                expected_entries: bloom_entries,
            })
        };
        let index_block = handle(index_offset, index_size, "index block handle")?;
        let null_bitmap = if null_offset == 0 && null_size == 0 {
            None
        } else {
            Some(handle(null_offset, null_size, "null bitmap handle")?)
        };
        Ok(BTreeFooter {
            bloom_filter,
            index_block,
            null_bitmap,
        })
    }

    /// The 52 footer bytes (`BTreeFileFooter#writeFooter`).
    pub fn encode(&self) -> [u8; FOOTER_LEN] {
        let mut out = Vec::with_capacity(FOOTER_LEN);
        let (bo, bs, be) = self
            .bloom_filter
            .map_or((0, 0, 0), |b| (b.offset, b.size, b.expected_entries));
        out.extend_from_slice(&bo.to_le_bytes());
        out.extend_from_slice(&bs.to_le_bytes());
        out.extend_from_slice(&be.to_le_bytes());
        out.extend_from_slice(&self.index_block.offset.to_le_bytes());
        out.extend_from_slice(&self.index_block.size.to_le_bytes());
        let n = self
            .null_bitmap
            .unwrap_or(BlockHandle { offset: 0, size: 0 });
        out.extend_from_slice(&n.offset.to_le_bytes());
        out.extend_from_slice(&n.size.to_le_bytes());
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&MAGIC.to_le_bytes());
        let mut a = [0u8; FOOTER_LEN];
        a.copy_from_slice(&out);
        a
    }
}
