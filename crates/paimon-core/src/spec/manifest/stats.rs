//! `SimpleStats`: min/max rows and null counts of a set of columns.
//!
//! Mirrors Java `org.apache.paimon.stats.SimpleStats` (Paimon 2.0): record
//! `{_MIN_VALUES: BYTES NOT NULL, _MAX_VALUES: BYTES NOT NULL, _NULL_COUNTS: ARRAY<BIGINT null> null}`.
//! Min/max are serialized `BinaryRow`s (4-byte BE arity + row bytes) kept raw here; which
//! columns they cover depends on `_VALUE_STATS_COLS`/`_WRITE_COLS` (Java `SimpleStatsEvolution`,
//! `docs/format.md` "Value statistics"), and another module decodes them.

use serde::{Deserialize, Serialize};

use super::record::{FieldReader, Value};
use crate::{Error, Result};

/// Column statistics of a file or manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SimpleStats {
    /// Serialized `BinaryRow` of per-column minimums (null field = unknown).
    pub min_values: Vec<u8>,
    /// Serialized `BinaryRow` of per-column maximums (null field = unknown).
    pub max_values: Vec<u8>,
    /// Per-column null counts (element `None` = unknown); `None` when not recorded.
    pub null_counts: Option<Vec<Option<i64>>>,
}

impl SimpleStats {
    /// Reads the stats record.
    pub(crate) fn from_fields(mut r: FieldReader) -> Result<Self> {
        let min_values = r.req_bytes("_MIN_VALUES")?;
        let max_values = r.req_bytes("_MAX_VALUES")?;
        let null_counts = match r.opt_array("_NULL_COUNTS")? {
            None => None,
            Some(items) => Some(
                items
                    .into_iter()
                    .map(|v| match v {
                        Value::Null => Ok(None),
                        Value::Long(n) => Ok(Some(n)),
                        Value::Int(n) => Ok(Some(i64::from(n))),
                        other => Err(Error::data_invalid(format!(
                            "{}: `_NULL_COUNTS` element is {}, not long",
                            r.what(),
                            other.type_name()
                        ))
                        .with_context("field", "_NULL_COUNTS")),
                    })
                    .collect::<Result<Vec<_>>>()?,
            ),
        };
        Ok(SimpleStats {
            min_values,
            max_values,
            null_counts,
        })
    }
}
