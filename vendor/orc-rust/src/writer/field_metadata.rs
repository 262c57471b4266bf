// Licensed to the Apache Software Foundation (ASF) under one
// or more contributor license agreements.  See the NOTICE file
// distributed with this work for additional information
// regarding copyright ownership.  The ASF licenses this file
// to you under the Apache License, Version 2.0 (the
// "License"); you may not use this file except in compliance
// with the License.  You may obtain a copy of the License at
//
//   http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing,
// software distributed under the License is distributed on an
// "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY
// KIND, either express or implied.  See the License for the
// specific language governing permissions and limitations
// under the License.

//! ORC type details that an Arrow type cannot express, taken from the Arrow field's metadata:
//!
//! - [`ORC_ATTRIBUTE_PREFIX`]`<name>` = `<value>`: the ORC type attribute `<name>` (the
//!   `attributes` of `proto::Type`, ORC Java's `TypeDescription#setAttribute`), written sorted
//!   by name as ORC Java does (`TypeDescription#getAttributeNames`).
//! - [`ORC_TYPE_KEY`] = `char(n)` or `varchar(n)` on a `Utf8` / `LargeUtf8` field: the column is
//!   an ORC CHAR or VARCHAR with `maximumLength` n instead of a STRING. Its values are written
//!   as ORC Java's writers do: CHAR(n) values truncated to n characters or right-padded with
//!   spaces to n characters (`org.apache.orc.impl.writer.CharTreeWriter#writePadded`),
//!   VARCHAR(n) values truncated to n characters (`VarcharTreeWriter#writeTruncated`).
//!   Characters are Unicode scalar values (ORC's `Utf8Utils` counts UTF-8 lead bytes).

use std::borrow::Cow;

use arrow::{
    array::{Array, ArrayRef, AsArray, GenericStringArray, OffsetSizeTrait},
    datatypes::{DataType as ArrowDataType, Field},
};
use std::sync::Arc;

use crate::{
    error::{Result, UnexpectedSnafu},
    memory::EstimateMemory,
    proto,
};

use super::{column::ColumnStripeEncoder, ColumnEncoding, Stream};

/// Field metadata keys starting with this set ORC type attributes (the rest of the key is the
/// attribute name).
pub const ORC_ATTRIBUTE_PREFIX: &str = "ORC:attribute:";

/// Field metadata key choosing the ORC string type of a `Utf8` / `LargeUtf8` field:
/// `char(n)` or `varchar(n)`.
pub const ORC_TYPE_KEY: &str = "ORC:type";

/// An ORC string type with a maximum length (in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundedString {
    /// `char(n)`: values padded or truncated to exactly n characters.
    Char(u32),
    /// `varchar(n)`: values truncated to at most n characters.
    Varchar(u32),
}

impl BoundedString {
    /// The ORC type kind.
    pub fn kind(self) -> proto::r#type::Kind {
        match self {
            BoundedString::Char(_) => proto::r#type::Kind::Char,
            BoundedString::Varchar(_) => proto::r#type::Kind::Varchar,
        }
    }

    /// The maximum length.
    pub fn max_length(self) -> u32 {
        match self {
            BoundedString::Char(n) | BoundedString::Varchar(n) => n,
        }
    }
}

/// The ORC type attributes of `field`, sorted by name.
pub fn attributes(field: &Field) -> Vec<proto::StringPair> {
    let mut pairs: Vec<proto::StringPair> = field
        .metadata()
        .iter()
        .filter_map(|(k, v)| {
            let name = k.strip_prefix(ORC_ATTRIBUTE_PREFIX)?;
            Some(proto::StringPair {
                key: Some(name.to_owned()),
                value: Some(v.clone()),
            })
        })
        .collect();
    pairs.sort_by(|a, b| a.key.cmp(&b.key));
    pairs
}

/// The CHAR / VARCHAR type [`ORC_TYPE_KEY`] gives `field`, if any; an error names the field
/// when the value is not `char(n)` / `varchar(n)` with 0 < n < 2^31 or the field is not a
/// string.
pub fn bounded_string(field: &Field) -> Result<Option<BoundedString>> {
    let Some(value) = field.metadata().get(ORC_TYPE_KEY) else {
        return Ok(None);
    };
    let invalid = || {
        UnexpectedSnafu {
            msg: format!(
                "field '{}': {ORC_TYPE_KEY} '{value}' is not char(n) or varchar(n) on a string field",
                field.name()
            ),
        }
        .fail()
    };
    if !matches!(
        field.data_type(),
        ArrowDataType::Utf8 | ArrowDataType::LargeUtf8
    ) {
        return invalid();
    }
    let lower = value.trim().to_ascii_lowercase();
    let (make, rest): (fn(u32) -> BoundedString, &str) =
        if let Some(rest) = lower.strip_prefix("varchar(") {
            (BoundedString::Varchar, rest)
        } else if let Some(rest) = lower.strip_prefix("char(") {
            (BoundedString::Char, rest)
        } else {
            return invalid();
        };
    match rest
        .strip_suffix(')')
        .and_then(|n| n.trim().parse::<u32>().ok())
    {
        Some(n) if n > 0 && n <= i32::MAX as u32 => Ok(Some(make(n))),
        _ => invalid(),
    }
}

/// `s` cut to its first `n` characters (ORC `Utf8Utils#truncateBytesTo`).
pub fn truncate_chars(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((end, _)) => &s[..end],
        None => s,
    }
}

/// A value as ORC Java writes it into a column of type `t` (module doc).
pub fn written_value(s: &str, t: BoundedString) -> Cow<'_, str> {
    let n = t.max_length() as usize;
    let cut = truncate_chars(s, n);
    match t {
        BoundedString::Varchar(_) => Cow::Borrowed(cut),
        BoundedString::Char(_) => {
            let chars = cut.chars().count();
            if chars == n {
                Cow::Borrowed(cut)
            } else {
                let mut padded = String::with_capacity(cut.len() + (n - chars));
                padded.push_str(cut);
                padded.extend(std::iter::repeat(' ').take(n - chars));
                Cow::Owned(padded)
            }
        }
    }
}

/// `array` (a string array of offset type `O`) with every value as [`written_value`]; the same
/// array when no value changes.
fn written_array<O: OffsetSizeTrait>(array: &ArrayRef, t: BoundedString) -> ArrayRef {
    let strings = array.as_string::<O>();
    let n = t.max_length() as usize;
    // A VARCHAR value of at most n bytes has at most n characters.
    let unchanged = match t {
        BoundedString::Varchar(_) => strings.iter().flatten().all(|s| s.len() <= n),
        BoundedString::Char(_) => strings
            .iter()
            .flatten()
            .all(|s| matches!(written_value(s, t), Cow::Borrowed(b) if b.len() == s.len())),
    };
    if unchanged {
        return array.clone();
    }
    let values: GenericStringArray<O> = strings
        .iter()
        .map(|v| v.map(|s| written_value(s, t)))
        .collect();
    Arc::new(values)
}

/// Encodes a CHAR / VARCHAR column: the values as ORC Java writes them (module doc), then the
/// string encoder.
pub struct BoundedStringEncoder {
    inner: Box<dyn ColumnStripeEncoder>,
    string_type: BoundedString,
}

impl BoundedStringEncoder {
    pub fn new(inner: Box<dyn ColumnStripeEncoder>, string_type: BoundedString) -> Self {
        Self { inner, string_type }
    }
}

impl EstimateMemory for BoundedStringEncoder {
    fn estimate_memory_size(&self) -> usize {
        self.inner.estimate_memory_size()
    }
}

impl ColumnStripeEncoder for BoundedStringEncoder {
    fn encode_array(&mut self, array: &ArrayRef) -> Result<()> {
        let array = match array.data_type() {
            ArrowDataType::Utf8 => written_array::<i32>(array, self.string_type),
            ArrowDataType::LargeUtf8 => written_array::<i64>(array, self.string_type),
            other => {
                return UnexpectedSnafu {
                    msg: format!("CHAR/VARCHAR column of Arrow type {other}"),
                }
                .fail()
            }
        };
        self.inner.encode_array(&array)
    }

    fn column_encoding(&self) -> ColumnEncoding {
        self.inner.column_encoding()
    }

    fn finish(&mut self) -> Vec<Stream> {
        self.inner.finish()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn field(metadata: &[(&str, &str)]) -> Field {
        let metadata: HashMap<String, String> = metadata
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Field::new("c", ArrowDataType::Utf8, true).with_metadata(metadata)
    }

    #[test]
    fn test_attributes_sorted_and_prefixed_only() {
        let f = field(&[
            ("ORC:attribute:z", "1"),
            ("PARQUET:field_id", "7"),
            ("ORC:attribute:paimon.id", "7"),
        ]);
        let got: Vec<(String, String)> = attributes(&f)
            .into_iter()
            .map(|p| (p.key.unwrap(), p.value.unwrap()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("paimon.id".to_string(), "7".to_string()),
                ("z".to_string(), "1".to_string())
            ]
        );
        assert!(attributes(&field(&[])).is_empty());
    }

    #[test]
    fn test_bounded_string_parsing() {
        let t = |v: &str| bounded_string(&field(&[(ORC_TYPE_KEY, v)]));
        assert_eq!(t("char(5)").unwrap(), Some(BoundedString::Char(5)));
        assert_eq!(t("VARCHAR(12)").unwrap(), Some(BoundedString::Varchar(12)));
        assert_eq!(bounded_string(&field(&[])).unwrap(), None);
        for bad in [
            "char(0)",
            "char()",
            "char(x)",
            "string",
            "varchar(5",
            "char(2147483648)",
        ] {
            assert!(t(bad).is_err(), "{bad}");
        }
        let int = Field::new("i", ArrowDataType::Int32, true).with_metadata(HashMap::from([(
            ORC_TYPE_KEY.to_string(),
            "char(3)".to_string(),
        )]));
        assert!(bounded_string(&int).is_err());
    }

    #[test]
    fn test_written_values_as_orc_java() {
        let c = BoundedString::Char(4);
        let v = BoundedString::Varchar(4);
        assert_eq!(written_value("ab", c), "ab  ");
        assert_eq!(written_value("", c), "    ");
        assert_eq!(written_value("abcd", c), "abcd");
        assert_eq!(written_value("abcdef", c), "abcd");
        // characters, not bytes: 'é' is two bytes, '💯' four
        assert_eq!(written_value("é💯", c), "é💯  ");
        assert_eq!(written_value("é💯xyz", c), "é💯xy");
        assert_eq!(written_value("ab", v), "ab");
        assert_eq!(written_value("abcdef", v), "abcd");
        assert_eq!(written_value("é💯xyz", v), "é💯xy");
        assert_eq!(written_value("ab  ", v), "ab  ");
    }
}
