//! Partition directory names: `k1=v1/k2=v2/` from a partition's values.
//!
//! Mirrors Java `org.apache.paimon.utils.InternalRowPartitionComputer#generatePartValues`,
//! `PartitionPathUtils#generatePartitionPath` / `escapePathName` and the value-to-string rules
//! behind them (Paimon 2.0):
//!
//! - null, empty or whitespace-only (Java `Character.isWhitespace`) values become
//!   `partition.default-name`;
//! - with `partition.legacy-name = true` (the default) a value is Java `toString()` of its
//!   internal form: DATE = days since epoch, TIME = millis of day, TIMESTAMP =
//!   `LocalDateTime.toString()`, FLOAT/DOUBLE = `Float/Double.toString`, DECIMAL = plain string;
//! - with `legacy-name = false` it is the SQL cast to STRING: DATE `yyyy-MM-dd`, TIMESTAMP(p)
//!   `yyyy-MM-dd HH:mm:ss[.fraction]`;
//! - keys and values are escaped: chars below 0x20, 0x7F and `"#%'*/:=?\{}[]^` become `%XX`.
//!
//! Divergences: BINARY values render as their (lossy) UTF-8 text in both modes (legacy Java
//! prints a JVM object id, which no reader can reproduce); TIMESTAMP WITH LOCAL TIME ZONE in
//! non-legacy mode is rendered in UTC (Java uses the JVM default zone). `Double.toString` follows
//! the shortest-representation algorithm of JDK 19+; older JDKs can print a longer digit string
//! for rare values.

use crate::spec::datum::{Datum, Timestamp};
use crate::spec::types::{DataField, DataType, TypeKind};
use crate::{Error, Result};

/// Java's default `partition.default-name`.
pub const DEFAULT_PARTITION_NAME: &str = "__DEFAULT_PARTITION__";

const MILLIS_PER_DAY: i64 = 86_400_000;

/// The relative directory of a partition: `k1=v1/k2=v2/`, or `""` for an unpartitioned table.
///
/// `fields` are the partition fields in schema order and `values` their values.
pub fn partition_path(
    fields: &[DataField],
    values: &[Option<Datum>],
    default_name: &str,
    legacy_name: bool,
) -> Result<String> {
    if fields.len() != values.len() {
        return Err(
            Error::invalid_argument("partition fields and values differ in length")
                .with_context("fields", fields.len().to_string())
                .with_context("values", values.len().to_string()),
        );
    }
    let mut out = String::new();
    for (field, value) in fields.iter().zip(values) {
        let v = partition_value_string(value.as_ref(), &field.data_type, default_name, legacy_name);
        out.push_str(&escape_path_name(&field.name));
        out.push('=');
        out.push_str(&escape_path_name(&v));
        out.push('/');
    }
    Ok(out)
}

fn needs_escape(c: char) -> bool {
    (c as u32) < 0x20
        || c == '\u{7f}'
        || matches!(
            c,
            '"' | '#'
                | '%'
                | '\''
                | '*'
                | '/'
                | ':'
                | '='
                | '?'
                | '\\'
                | '{'
                | '}'
                | '['
                | ']'
                | '^'
        )
}

/// Java `PartitionPathUtils.escapePathName`: special chars become `%XX` (uppercase hex).
pub fn escape_path_name(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if needs_escape(c) {
            out.push_str(&format!("%{:02X}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Java `Character.isWhitespace`.
fn java_is_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t'..='\r'
            | '\u{1c}'..='\u{1f}'
            | ' '
            | '\u{1680}'
            | '\u{2000}'..='\u{2006}'
            | '\u{2008}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

/// The unescaped string of one partition value; the default name for null, empty or
/// whitespace-only results.
pub fn partition_value_string(
    value: Option<&Datum>,
    data_type: &DataType,
    default_name: &str,
    legacy_name: bool,
) -> String {
    let s = match value {
        None => return default_name.to_string(),
        Some(v) if legacy_name => legacy_string(v),
        Some(v) => cast_to_string(v, data_type),
    };
    if s.chars().all(java_is_whitespace) {
        default_name.to_string()
    } else {
        s
    }
}

/// Java `toString()` of the internal value (legacy partition names).
fn legacy_string(v: &Datum) -> String {
    match v {
        Datum::Float(f) => java_float_to_string(*f),
        Datum::Double(d) => java_double_to_string(*d),
        Datum::Date(d) | Datum::Time(d) => d.to_string(),
        Datum::Timestamp(ts) | Datum::LocalZonedTimestamp(ts) => local_date_time_string(ts),
        Datum::Binary(b) => String::from_utf8_lossy(b).into_owned(),
        other => other.to_string(),
    }
}

/// The SQL cast of a value to STRING (non-legacy partition names).
fn cast_to_string(v: &Datum, data_type: &DataType) -> String {
    match v {
        Datum::Float(f) => java_float_to_string(*f),
        Datum::Double(d) => java_double_to_string(*d),
        Datum::Date(d) => {
            let (y, m, day) = civil_from_days(i64::from(*d));
            format!("{}-{m:02}-{day:02}", sql_year(y))
        }
        Datum::Time(ms) => {
            let p = match data_type.kind {
                TypeKind::Time(p) => p,
                _ => 0,
            };
            sql_time_string(*ms, p)
        }
        Datum::Timestamp(ts) | Datum::LocalZonedTimestamp(ts) => {
            let p = match data_type.kind {
                TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => p,
                _ => 9,
            };
            sql_timestamp_string(ts, p)
        }
        Datum::Binary(b) => String::from_utf8_lossy(b).into_owned(),
        other => other.to_string(),
    }
}

/// (year, month, day) of days since 1970-01-01 in the proleptic Gregorian calendar.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    // Howard Hinnant's days_from_civil inverse.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Java `LocalDate.toString` year: 4 digits, sign for negative, `+` above 9999.
fn java_year(y: i64) -> String {
    if y.abs() < 1000 {
        if y < 0 {
            format!("-{:04}", -y)
        } else {
            format!("{y:04}")
        }
    } else if y > 9999 {
        format!("+{y}")
    } else {
        y.to_string()
    }
}

fn sql_year(y: i64) -> String {
    if y < 0 {
        format!("-{:04}", -y)
    } else {
        format!("{y:04}")
    }
}

/// Splits a timestamp into days, millis of day and nano of second.
fn split_timestamp(ts: &Timestamp) -> (i64, i64, u32) {
    let days = ts.millis.div_euclid(MILLIS_PER_DAY);
    let ms_of_day = ts.millis.rem_euclid(MILLIS_PER_DAY);
    let nano_of_second = (ms_of_day % 1000) as u32 * 1_000_000 + ts.nanos;
    (days, ms_of_day, nano_of_second)
}

/// Java `LocalDateTime.toString()` of a timestamp taken as UTC wall clock.
pub fn local_date_time_string(ts: &Timestamp) -> String {
    let (days, ms_of_day, nano) = split_timestamp(ts);
    let (y, mo, d) = civil_from_days(days);
    let secs = ms_of_day / 1000;
    let (h, mi, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    let mut out = format!("{}-{mo:02}-{d:02}T{h:02}:{mi:02}", java_year(y));
    if s > 0 || nano > 0 {
        out.push_str(&format!(":{s:02}"));
        if nano > 0 {
            if nano % 1_000_000 == 0 {
                out.push_str(&format!(".{:03}", nano / 1_000_000));
            } else if nano % 1000 == 0 {
                out.push_str(&format!(".{:06}", nano / 1000));
            } else {
                out.push_str(&format!(".{nano:09}"));
            }
        }
    }
    out
}

/// Paimon `DateTimeUtils.formatTimestamp(ts, precision)`: `yyyy-MM-dd HH:mm:ss[.f]`, the 9-digit
/// fraction losing trailing zeros only while longer than the precision.
fn sql_timestamp_string(ts: &Timestamp, precision: u32) -> String {
    let (days, ms_of_day, nano) = split_timestamp(ts);
    let (y, mo, d) = civil_from_days(days);
    let secs = ms_of_day / 1000;
    let (h, mi, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    let mut fraction = format!("{nano:09}");
    while fraction.len() > precision as usize && fraction.ends_with('0') {
        fraction.pop();
    }
    let mut out = format!("{}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}", sql_year(y));
    if !fraction.is_empty() {
        out.push('.');
        out.push_str(&fraction);
    }
    out
}

/// Paimon `DateTimeUtils` TIME to string: `HH:mm:ss` and, for precision > 0, millis digits up to
/// the precision, stopping early when the rest is zero.
fn sql_time_string(ms: i32, precision: u32) -> String {
    let t = i64::from(ms).rem_euclid(MILLIS_PER_DAY);
    let secs = t / 1000;
    let mut out = format!("{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
    if precision > 0 {
        out.push('.');
        let mut frac = t % 1000;
        let mut p = precision;
        while p > 0 {
            out.push(char::from(b'0' + (frac / 100) as u8));
            frac = frac % 100 * 10;
            if frac == 0 {
                break;
            }
            p -= 1;
        }
    }
    out
}

/// Java `Double.toString(d)`: shortest round-trip digits, plain between 10^-3 and 10^7,
/// computerized scientific notation (`1.0E10`) otherwise.
pub fn java_double_to_string(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    java_format(
        &format!("{v:e}"),
        v == 0.0 || (1e-3..1e7).contains(&v.abs()),
    )
}

/// Java `Float.toString(f)`, like [`java_double_to_string`] with float precision.
pub fn java_float_to_string(v: f32) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    java_format(
        &format!("{v:e}"),
        v == 0.0 || (1e-3..1e7).contains(&v.abs()),
    )
}

/// Rewrites Rust's shortest `{:e}` form (`-1.25e-5`) into Java's layout.
fn java_format(sci: &str, plain: bool) -> String {
    let (neg, body) = match sci.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, sci),
    };
    let (mantissa, exp) = body.split_once('e').unwrap_or((body, "0"));
    let exp: i64 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let sign = if neg { "-" } else { "" };
    if !plain {
        let (first, rest) = digits.split_at(1.min(digits.len()));
        let rest = if rest.is_empty() { "0" } else { rest };
        return format!("{sign}{first}.{rest}E{exp}");
    }
    if exp >= 0 {
        let int_len = exp as usize + 1;
        let padded = format!("{digits:0<int_len$}");
        let (int_part, frac) = padded.split_at(int_len);
        let frac = if frac.is_empty() { "0" } else { frac };
        format!("{sign}{int_part}.{frac}")
    } else {
        let zeros = "0".repeat((-exp - 1) as usize);
        format!("{sign}0.{zeros}{digits}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
}
