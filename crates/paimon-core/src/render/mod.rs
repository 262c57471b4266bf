//! Rendering Arrow values as JSON with Paimon type semantics (used by the CLI's `jsonl` output
//! and by tests comparing rows with expected results).
//!
//! Integers and floats are numbers (NaN and infinities are strings), decimals strings with
//! exactly `scale` fraction digits, binaries base64, dates `YYYY-MM-DD`, timestamps
//! `YYYY-MM-DDTHH:MM:SS[.f]` with as many fraction digits as the type's precision (with local
//! time zone: UTC with a `Z`), arrays arrays, maps arrays of `[key, value]`, rows objects.

mod json;

pub use json::{batch_to_json_rows, datum_to_json, value_to_json};
