//! Index files: deletion vectors (and, later, file indexes and the primary-key global index).

pub mod deletion_vector;
