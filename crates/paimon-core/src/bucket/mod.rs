//! Bucket assignment for fixed-bucket tables: the row hash and the bucket functions.
//!
//! Mirrors Java `org.apache.paimon.bucket` (`BucketFunction`, `DefaultBucketFunction`,
//! `ModBucketFunction`, `HiveBucketFunction`, `HiveHasher`) and
//! `org.apache.paimon.utils.MurmurHashUtils` (Paimon 2.0). The bucket-key row itself is a
//! [`BinaryRow`](crate::spec::binary_row::BinaryRow) built with
//! [`BinaryRow::encode`](crate::spec::binary_row::BinaryRow::encode).

pub mod function;
pub mod murmur;

pub use function::{BucketFunction, BucketFunctionType};
