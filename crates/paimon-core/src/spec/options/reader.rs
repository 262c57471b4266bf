//! Reads typed values out of a raw option map, once, remembering which keys it consumed.
//!
//! Mirrors the value conversions of Java `org.apache.paimon.options.OptionsUtils` (Paimon 2.0):
//! booleans are `true`/`false` in any case, integers are `Integer.parseInt`/`Long.parseLong`
//! (no trimming), enums match case-insensitively, and a key's fallback keys are consulted in
//! order when the key itself is absent (`Options#applyWithOption`). Every failure names the key
//! and the raw value.

use std::collections::{HashMap, HashSet};
use std::str::FromStr;

use crate::{Error, ErrorKind, Result};

/// A cursor over one option map; errors get `kind` (stored options: `DataInvalid`; overrides:
/// `InvalidArgument`).
pub(super) struct OptionReader<'a> {
    map: &'a HashMap<String, String>,
    kind: ErrorKind,
    consumed: HashSet<&'static str>,
}

impl<'a> OptionReader<'a> {
    pub(super) fn new(map: &'a HashMap<String, String>, kind: ErrorKind) -> Self {
        OptionReader {
            map,
            kind,
            consumed: HashSet::new(),
        }
    }

    /// The error kind used for bad values.
    pub(super) fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Whether `key` was read by a typed accessor.
    pub(super) fn consumed(&self, key: &str) -> bool {
        self.consumed.contains(key)
    }

    /// The raw value of `key`, else of its first present fallback key, with the key found.
    pub(super) fn raw_with(
        &mut self,
        key: &'static str,
        fallbacks: &[&'static str],
    ) -> Option<(&'static str, &'a str)> {
        self.consumed.insert(key);
        self.consumed.extend(fallbacks.iter().copied());
        std::iter::once(key)
            .chain(fallbacks.iter().copied())
            .find_map(|k| self.map.get(k).map(|v| (k, v.as_str())))
    }

    /// The raw value of `key`.
    pub(super) fn string(&mut self, key: &'static str) -> Option<String> {
        self.raw_with(key, &[]).map(|(_, v)| v.to_string())
    }

    /// An error for `value` of `key`, with `reason`.
    pub(super) fn invalid(&self, key: &str, value: &str, reason: &str) -> Error {
        Error::new(
            self.kind,
            format!("invalid value '{value}' for table option '{key}': {reason}"),
        )
        .with_context("option", key)
        .with_context("value", value)
    }

    /// `key` (or a fallback) parsed with `parse`; `None` when absent.
    pub(super) fn parse_with<T>(
        &mut self,
        key: &'static str,
        fallbacks: &[&'static str],
        parse: impl FnOnce(&str) -> Result<T>,
    ) -> Result<Option<T>> {
        match self.raw_with(key, fallbacks) {
            None => Ok(None),
            Some((found, value)) => parse(value)
                .map(Some)
                .map_err(|e| self.invalid(found, value, e.message())),
        }
    }

    /// `key` parsed through `FromStr`; `None` when absent.
    pub(super) fn opt<T: FromStr<Err = Error>>(&mut self, key: &'static str) -> Result<Option<T>> {
        self.parse_with(key, &[], T::from_str)
    }

    /// `key` parsed through `FromStr`, else `default`.
    pub(super) fn get<T: FromStr<Err = Error>>(
        &mut self,
        key: &'static str,
        default: T,
    ) -> Result<T> {
        Ok(self.opt(key)?.unwrap_or(default))
    }

    /// A Java boolean (`true`/`false`, any case), also looked up under `fallbacks`.
    pub(super) fn bool_with(
        &mut self,
        key: &'static str,
        fallbacks: &[&'static str],
        default: bool,
    ) -> Result<bool> {
        Ok(self
            .parse_with(key, fallbacks, parse_bool)?
            .unwrap_or(default))
    }

    /// A Java boolean, else `default`.
    pub(super) fn bool(&mut self, key: &'static str, default: bool) -> Result<bool> {
        self.bool_with(key, &[], default)
    }

    /// A Java `int`, `None` when absent.
    pub(super) fn i32(&mut self, key: &'static str) -> Result<Option<i32>> {
        self.parse_with(key, &[], parse_int)
    }

    /// A Java `long`, also looked up under `fallbacks`; `None` when absent.
    pub(super) fn i64_with(
        &mut self,
        key: &'static str,
        fallbacks: &[&'static str],
    ) -> Result<Option<i64>> {
        self.parse_with(key, fallbacks, parse_int)
    }

    /// A comma list: `None` when absent or blank; items trimmed when `trim`, empty items dropped.
    pub(super) fn list(&mut self, key: &'static str, trim: bool) -> Option<Vec<String>> {
        let (_, value) = self.raw_with(key, &[])?;
        if value.trim().is_empty() {
            return None;
        }
        let items = value
            .split(',')
            .map(|s| if trim { s.trim() } else { s })
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        Some(items)
    }
}

/// Java `OptionsUtils#convertToBoolean`.
pub(super) fn parse_bool(v: &str) -> Result<bool> {
    if v.eq_ignore_ascii_case("true") {
        Ok(true)
    } else if v.eq_ignore_ascii_case("false") {
        Ok(false)
    } else {
        Err(Error::invalid_argument("expected true or false (any case)"))
    }
}

/// Java `Integer.parseInt` / `Long.parseLong`: optional sign, ASCII digits, no whitespace.
pub(super) fn parse_int<T: FromStr>(v: &str) -> Result<T> {
    v.parse().map_err(|_| {
        Error::invalid_argument(format!(
            "expected a {}-bit integer",
            std::mem::size_of::<T>() * 8
        ))
    })
}
