//! The BTree global-index payload (Java `org.apache.paimon.globalindex.btree`, Paimon 2.0):
//! an SST file of (serialized key → row-id list) entries, a null bitmap and a 52-byte footer.
//!
//! File layout, front to back:
//! `[data block + trailer]* [null bitmap + CRC]? [bloom filter]? [index block + trailer] [footer]`.
//!
//! - [`footer`] — `BTreeFileFooter`;
//! - [`key`] — `KeySerializer` and Java's comparators;
//! - [`meta`] — `_INDEX_META` (`SortedIndexFileMeta`) for min/max skipping;
//! - [`null_bitmap`] — the Roaring64 portable null bitmap;
//! - [`reader`] — `BTreeIndexReader` queries;
//! - [`writer`] — `BTreeIndexWriter`, producing the same bytes.

pub mod footer;
pub mod key;
pub mod meta;
pub mod null_bitmap;
pub mod reader;
pub mod writer;

pub use footer::BTreeFooter;
pub use key::{Key, KeyType};
pub use meta::SortedIndexFileMeta;
pub use reader::{BTreeIndexReader, KeyRowIds};
pub use writer::BTreeIndexWriter;
