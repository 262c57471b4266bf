//! Memory sizes in option values, such as `source.split.target-size = 128 mb`.
//!
//! Mirrors Java `org.apache.paimon.options.MemorySize#parseBytes` (Paimon 2.0): leading ASCII
//! digits, optional whitespace, optional case-insensitive unit (`b`/`bytes`, `k`/`kb`/`kibibytes`,
//! `m`/`mb`/`mebibytes`, `g`/`gb`/`gibibytes`, `t`/`tb`/`tebibytes`, all powers of 1024); no unit
//! means bytes. The result must fit a Java `long` (non-negative, at most `i64::MAX`).

use std::fmt;
use std::str::FromStr;

use crate::{Error, Result};

/// A number of bytes parsed from an option value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MemorySize(u64);

/// (display name, accepted names, multiplier), Java `MemorySize.MemoryUnit`.
const UNITS: &[(&str, &[&str], u64)] = &[
    ("b", &["b", "bytes"], 1),
    ("kb", &["k", "kb", "kibibytes"], 1 << 10),
    ("mb", &["m", "mb", "mebibytes"], 1 << 20),
    ("gb", &["g", "gb", "gibibytes"], 1 << 30),
    ("tb", &["t", "tb", "tebibytes"], 1 << 40),
];

impl MemorySize {
    /// `n` bytes.
    pub const fn from_bytes(n: u64) -> Self {
        MemorySize(n)
    }

    /// `n` MiB.
    pub const fn from_mebibytes(n: u64) -> Self {
        MemorySize(n << 20)
    }

    /// The size in bytes.
    pub const fn bytes(self) -> u64 {
        self.0
    }

    /// Parses Java's memory-size syntax (`"128 mb"`, `"4mb"`, `"64KB"`, `"123"`); a bad
    /// text is [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument).
    pub fn parse(text: &str) -> Result<Self> {
        parse_bytes(text).map(MemorySize).map_err(|reason| {
            Error::invalid_argument(format!("invalid memory size '{text}': {reason}"))
        })
    }
}

/// Java `parseBytes`, returning the reason of a failure.
pub(crate) fn parse_bytes(text: &str) -> std::result::Result<u64, String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err("empty or whitespace-only value".into());
    }
    let digits_end = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(digits_end);
    if number.is_empty() {
        return Err("does not start with a number".into());
    }
    let value: u64 = number
        .parse()
        .ok()
        .filter(|v| *v <= i64::MAX as u64)
        .ok_or_else(|| format!("'{number}' does not fit a 64-bit number"))?;
    let unit = unit.trim().to_ascii_lowercase();
    let multiplier = if unit.is_empty() {
        1
    } else {
        UNITS
            .iter()
            .find(|(_, names, _)| names.contains(&unit.as_str()))
            .map(|(_, _, m)| *m)
            .ok_or_else(|| format!("unknown memory unit '{unit}' (expected b, kb, mb, gb or tb)"))?
    };
    value
        .checked_mul(multiplier)
        .filter(|b| *b <= i64::MAX as u64)
        .ok_or_else(|| "size overflows a 64-bit number of bytes".to_string())
}

impl FromStr for MemorySize {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        MemorySize::parse(s)
    }
}

impl fmt::Display for MemorySize {
    /// Formats with the largest unit that divides the size exactly (`"128 mb"`); the output
    /// parses back to the same value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (unit, _, m) = UNITS
            .iter()
            .rev()
            .find(|(_, _, m)| self.0 != 0 && self.0 % m == 0)
            .copied()
            .unwrap_or(("b", &[], 1));
        write!(f, "{} {unit}", self.0 / m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_java_syntax() {
        let cases = [
            ("128 mb", 128 << 20),
            ("4mb", 4 << 20),
            ("1 kb", 1024),
            ("64kb", 64 << 10),
            ("64KB", 64 << 10),
            ("123", 123),
            ("  7 b ", 7),
            ("3 bytes", 3),
            ("2k", 2048),
            ("1 kibibytes", 1024),
            ("5 M", 5 << 20),
            ("1 mebibytes", 1 << 20),
            ("1g", 1 << 30),
            ("2 GB", 2 << 30),
            ("1 gibibytes", 1 << 30),
            ("1t", 1 << 40),
            ("1 TB", 1 << 40),
            ("1 tebibytes", 1 << 40),
            ("0", 0),
        ];
        for (text, bytes) in cases {
            assert_eq!(MemorySize::parse(text).unwrap().bytes(), bytes, "{text}");
        }
    }

    #[test]
    fn rejects_bad_sizes() {
        for text in [
            "",
            "  ",
            "mb",
            "-1 mb",
            "1.5 mb",
            "12 zb",
            "1 mbb",
            "99999999999999999999",
        ] {
            let err = MemorySize::parse(text).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::InvalidArgument, "{text}");
        }
        // 2^23 TiB = 2^63 bytes does not fit a Java long.
        assert!(MemorySize::parse("8388608 tb").is_err());
        assert_eq!(
            MemorySize::parse("8388607 tb").unwrap().bytes(),
            8_388_607u64 << 40
        );
    }

    #[test]
    fn display_round_trips() {
        for text in ["128 mb", "4 mb", "1536 b", "0", "3 gb", "1025 kb"] {
            let m = MemorySize::parse(text).unwrap();
            assert_eq!(MemorySize::parse(&m.to_string()).unwrap(), m);
        }
        assert_eq!(MemorySize::from_mebibytes(128).to_string(), "128 mb");
        assert_eq!(MemorySize::from_bytes(1536).to_string(), "1536 b");
        assert_eq!(MemorySize::from_bytes(0).to_string(), "0 b");
    }
}
