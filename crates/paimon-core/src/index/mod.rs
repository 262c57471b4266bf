//! Index files: deletion vectors, and the primary-key global index's pure decoders
//! (`_SOURCE_META`, the BTree/SST payload, `_INDEX_META`, the `pk-bitmap` payload
//! `bitmap_global`); data-file indexes (`file_index`); the `HASH` index files of dynamic-bucket
//! tables (`hash_index`).

pub mod bitmap_global;
pub mod btree;
pub mod deletion_vector;
pub mod dv_encode;
pub mod file_index;
pub mod hash_index;
pub mod modified_utf8;
pub(crate) mod pk_sort;
pub mod pk_sorted;
pub(crate) mod pk_values;
pub(crate) mod roaring64;
pub mod source_meta;
pub mod sst;
