//! Tests of `BinaryRow` decoding and encoding.
use super::*;
