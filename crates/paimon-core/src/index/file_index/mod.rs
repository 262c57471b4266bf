#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

//! Data-file indexes ("file index", Java `org.apache.paimon.fileindex`, Paimon 2.0): pure
//! decoders over caller-supplied bytes and the evaluation of a bound predicate against them.
//!
//! Byte layouts and query rules are in `shared/spec/file-index.md`: the container
//! ([`format`]), and one payload per (column, index type): [`bloom`] (`bloom-filter`),
//! [`bitmap`] (V1 and V2), [`bsi`] and [`range_bitmap`]. [`evaluate`] walks a predicate as Java
//! `FileIndexPredicate` does and answers [`FileIndexResult`]: might match, cannot match, or the
//! rows that might match. Decoders fail closed ([`crate::ErrorKind::DataInvalid`]); callers fail
//! open on any error (the file is read whole).

pub mod bitmap;
pub mod bitmap_writer;
pub mod bloom;
pub mod bsi;
pub mod evaluate;
pub mod format;
pub mod java_order;
pub mod key;
pub mod range_bitmap;
pub mod result;
pub mod roaring_writer;
pub mod writer;

pub use evaluate::{evaluate, FileIndexEvaluation};
pub use format::FileIndexContainer;
pub use result::FileIndexResult;

/// The index types Paimon 2.0 writes (`FileIndexerFactory` identifiers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IndexKind {
    /// `bloom-filter`
    BloomFilter,
    /// `bitmap`
    Bitmap,
    /// `bsi` (bit-sliced index; deprecated in Java)
    Bsi,
    /// `range-bitmap`
    RangeBitmap,
}

impl IndexKind {
    /// The type name as stored in the container.
    pub fn name(self) -> &'static str {
        match self {
            IndexKind::BloomFilter => "bloom-filter",
            IndexKind::Bitmap => "bitmap",
            IndexKind::Bsi => "bsi",
            IndexKind::RangeBitmap => "range-bitmap",
        }
    }

    /// The kind named `name`, or `None` for a type this reader does not know (answered as
    /// "might match").
    pub fn from_name(name: &str) -> Option<IndexKind> {
        Some(match name {
            "bloom-filter" => IndexKind::BloomFilter,
            "bitmap" => IndexKind::Bitmap,
            "bsi" => IndexKind::Bsi,
            "range-bitmap" => IndexKind::RangeBitmap,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests;
