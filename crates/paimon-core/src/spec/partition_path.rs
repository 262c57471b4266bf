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

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

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

/// Java `Character.isWhitespace`: space, line and paragraph separators except the
/// non-breaking ones, and `\t \n \u{b} \u{c} \r \u{1c}`–`\u{1f}`.
pub(crate) fn java_is_whitespace(c: char) -> bool {
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

/// Java `toString()` of the internal value (legacy partition names; the value renderings of
/// Java's `$files` statistics columns).
pub fn java_to_string(v: &Datum) -> String {
    legacy_string(v)
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

/// The SQL cast of a value to STRING (non-legacy partition names; Java
/// `CastExecutors.resolveToString`, as the partition columns of system tables render values).
pub fn cast_to_string(v: &Datum, data_type: &DataType) -> String {
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
    let two = format!("{v:.1e}");
    let two = (two.parse::<f64>().ok() == Some(v)).then_some(two);
    java_format(
        &format!("{v:e}"),
        two.as_deref(),
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
    let two = format!("{v:.1e}");
    let two = (two.parse::<f32>().ok() == Some(v)).then_some(two);
    java_format(
        &format!("{v:e}"),
        two.as_deref(),
        v == 0.0 || (1e-3..1e7).contains(&v.abs()),
    )
}

/// Rewrites Rust's shortest `{:e}` form (`-1.25e-5`) into Java's layout.
///
/// `two` is the closest two-digit decimal (`{:.1e}`) when it still rounds to the value: Java
/// (JDK 19+) picks it over a one-digit shortest form, giving `4.9E-324` rather than `5.0E-324`.
fn java_format(shortest: &str, two: Option<&str>, plain: bool) -> String {
    let sci = match two {
        Some(two) if !shortest.contains('.') => two,
        _ => shortest,
    };
    let (neg, body) = match sci.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, sci),
    };
    let (mantissa, exp) = body.split_once('e').unwrap_or((body, "0"));
    let exp: i64 = exp.parse().unwrap_or(0);
    let mut digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    while digits.len() > 1 && digits.ends_with('0') {
        digits.pop();
    }
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
    use crate::spec::binary_row::tests::table_rows;
    use crate::spec::datum::Decimal;
    use crate::test_util::java_fixtures;
    use std::collections::BTreeSet;

    fn t(s: &str) -> DataType {
        DataType::from_json(&serde_json::Value::String(s.into())).unwrap()
    }

    fn legacy(v: Datum, ty: &str) -> String {
        partition_value_string(Some(&v), &t(ty), DEFAULT_PARTITION_NAME, true)
    }

    fn sql(v: Datum, ty: &str) -> String {
        partition_value_string(Some(&v), &t(ty), DEFAULT_PARTITION_NAME, false)
    }

    /// 2024-01-01 (day 19723) at h:m:s.millis plus nanos.
    fn at(h: i64, m: i64, s: i64, millis: i64, nanos: u32) -> Datum {
        let ms = 19723 * MILLIS_PER_DAY + ((h * 60 + m) * 60 + s) * 1000 + millis;
        Datum::Timestamp(Timestamp { millis: ms, nanos })
    }

    #[test]
    fn escapes_each_special_char() {
        for (c, esc) in [
            ('"', "%22"),
            ('#', "%23"),
            ('%', "%25"),
            ('\'', "%27"),
            ('*', "%2A"),
            ('/', "%2F"),
            (':', "%3A"),
            ('=', "%3D"),
            ('?', "%3F"),
            ('\\', "%5C"),
            ('{', "%7B"),
            ('}', "%7D"),
            ('[', "%5B"),
            (']', "%5D"),
            ('^', "%5E"),
            ('\u{7f}', "%7F"),
            ('\u{0}', "%00"),
            ('\u{1}', "%01"),
            ('\n', "%0A"),
            ('\u{1f}', "%1F"),
        ] {
            assert_eq!(
                escape_path_name(&format!("a{c}b")),
                format!("a{esc}b"),
                "{c:?}"
            );
        }
        // Kept as is: space, other ASCII punctuation, non-ASCII.
        assert_eq!(
            escape_path_name("a b-c_d.e,f;g+h@i!j~k$l&m(n)o|p<q>"),
            "a b-c_d.e,f;g+h@i!j~k$l&m(n)o|p<q>"
        );
        assert_eq!(escape_path_name("é中"), "é中");
    }

    #[test]
    fn null_empty_and_whitespace_use_the_default_name() {
        let s = t("STRING");
        for v in [None, Some(""), Some(" "), Some("\t\n"), Some("\u{3000}")] {
            let d = v.map(|x| Datum::String(x.into()));
            assert_eq!(
                partition_value_string(d.as_ref(), &s, "__X__", true),
                "__X__",
                "{v:?}"
            );
            assert_eq!(
                partition_value_string(d.as_ref(), &s, "__X__", false),
                "__X__",
                "{v:?}"
            );
        }
        // U+00A0 is not whitespace for Java's Character.isWhitespace.
        assert_eq!(legacy(Datum::String("\u{a0}".into()), "STRING"), "\u{a0}");
        assert_eq!(legacy(Datum::String(" a ".into()), "STRING"), " a ");
    }

    #[test]
    fn legacy_and_sql_names_of_each_type() {
        assert_eq!(legacy(Datum::Boolean(true), "BOOLEAN"), "true");
        assert_eq!(legacy(Datum::TinyInt(-5), "TINYINT"), "-5");
        assert_eq!(legacy(Datum::BigInt(-1 << 40), "BIGINT"), "-1099511627776");
        let d = Datum::Decimal(Decimal {
            unscaled: 1230,
            precision: 10,
            scale: 2,
        });
        assert_eq!(legacy(d.clone(), "DECIMAL(10, 2)"), "12.30");
        assert_eq!(sql(d, "DECIMAL(10, 2)"), "12.30");
        // DATE: days in legacy mode, ISO date otherwise.
        assert_eq!(legacy(Datum::Date(19723), "DATE"), "19723");
        assert_eq!(sql(Datum::Date(19723), "DATE"), "2024-01-01");
        assert_eq!(sql(Datum::Date(-1), "DATE"), "1969-12-31");
        assert_eq!(sql(Datum::Date(0), "DATE"), "1970-01-01");
        // TIME: millis of day in legacy mode.
        assert_eq!(legacy(Datum::Time(37_230_500), "TIME(3)"), "37230500");
        assert_eq!(sql(Datum::Time(37_230_500), "TIME(3)"), "10:20:30.5");
        assert_eq!(sql(Datum::Time(37_230_000), "TIME(0)"), "10:20:30");
        assert_eq!(sql(Datum::Time(37_230_123), "TIME(3)"), "10:20:30.123");
        assert_eq!(legacy(Datum::Binary(b"ab".to_vec()), "BYTES"), "ab");
    }

    #[test]
    fn timestamps_as_local_date_time_and_sql() {
        let l = |v| legacy(v, "TIMESTAMP(9)");
        assert_eq!(l(at(10, 15, 0, 0, 0)), "2024-01-01T10:15");
        assert_eq!(l(at(0, 0, 0, 0, 0)), "2024-01-01T00:00");
        assert_eq!(l(at(10, 15, 30, 0, 0)), "2024-01-01T10:15:30");
        assert_eq!(l(at(10, 15, 30, 123, 0)), "2024-01-01T10:15:30.123");
        assert_eq!(l(at(10, 15, 0, 100, 0)), "2024-01-01T10:15:00.100");
        assert_eq!(
            l(at(10, 15, 30, 123, 456_000)),
            "2024-01-01T10:15:30.123456"
        );
        assert_eq!(l(at(10, 15, 30, 0, 1)), "2024-01-01T10:15:30.000000001");
        let pre_epoch = Datum::Timestamp(Timestamp {
            millis: -1,
            nanos: 0,
        });
        assert_eq!(l(pre_epoch.clone()), "1969-12-31T23:59:59.999");
        let ltz = Datum::LocalZonedTimestamp(Timestamp {
            millis: 0,
            nanos: 0,
        });
        assert_eq!(
            legacy(ltz, "TIMESTAMP(3) WITH LOCAL TIME ZONE"),
            "1970-01-01T00:00"
        );
        // Java LocalDate year forms.
        let far = Datum::Timestamp(Timestamp {
            millis: 253_402_300_800_000,
            nanos: 0,
        });
        assert_eq!(l(far), "+10000-01-01T00:00");
        let ad5 = Datum::Timestamp(Timestamp {
            millis: -62_009_366_400_000,
            nanos: 0,
        });
        assert_eq!(l(ad5), "0005-01-01T00:00");
        // SQL form: fraction trimmed of trailing zeros only while longer than the precision.
        assert_eq!(
            sql(at(10, 15, 0, 0, 0), "TIMESTAMP(3)"),
            "2024-01-01 10:15:00.000"
        );
        assert_eq!(
            sql(at(10, 15, 0, 0, 0), "TIMESTAMP(0)"),
            "2024-01-01 10:15:00"
        );
        assert_eq!(
            sql(at(10, 15, 0, 0, 0), "TIMESTAMP(6)"),
            "2024-01-01 10:15:00.000000"
        );
        assert_eq!(
            sql(at(10, 15, 0, 120, 0), "TIMESTAMP(0)"),
            "2024-01-01 10:15:00.12"
        );
        assert_eq!(
            sql(at(10, 15, 0, 120, 0), "TIMESTAMP(9)"),
            "2024-01-01 10:15:00.120000000"
        );
        assert_eq!(sql(pre_epoch, "TIMESTAMP(3)"), "1969-12-31 23:59:59.999");
    }

    #[test]
    fn java_double_and_float_to_string() {
        for (v, s) in [
            (1.0e10, "1.0E10"),
            (0.1, "0.1"),
            (100.0, "100.0"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (0.001, "0.001"),
            (0.000_99, "9.9E-4"),
            (1.0e-5, "1.0E-5"),
            (1_234_567.0, "1234567.0"),
            (9_999_999.0, "9999999.0"),
            (10_000_000.0, "1.0E7"),
            (12_345_678.9, "1.23456789E7"),
            (-15.1, "-15.1"),
            (123.456, "123.456"),
            (f64::MAX, "1.7976931348623157E308"),
            (f64::MIN_POSITIVE, "2.2250738585072014E-308"),
            (4.9e-324, "4.9E-324"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
        ] {
            assert_eq!(java_double_to_string(v), s, "{v:e}");
        }
        for (v, s) in [
            (1.1f32, "1.1"),
            (0.1, "0.1"),
            (1.0e10, "1.0E10"),
            (f32::MAX, "3.4028235E38"),
            (f32::from_bits(1), "1.4E-45"),
            (1.0e-10, "1.0E-10"),
            (16_777_216.0, "1.6777216E7"),
            (-0.0, "-0.0"),
            (0.7815346, "0.7815346"),
        ] {
            assert_eq!(java_float_to_string(v), s, "{v:e}");
        }
        assert_eq!(legacy(Datum::Double(1.0e10), "DOUBLE"), "1.0E10");
        assert_eq!(sql(Datum::Float(0.5), "FLOAT"), "0.5");
    }

    #[test]
    fn partition_paths_join_escaped_segments() {
        let fields = vec![
            DataField::new(0, "dt", t("STRING")),
            DataField::new(1, "h/r", t("INT")),
            DataField::new(2, "d", t("DATE")),
        ];
        let values = vec![
            Some(Datum::String("2024/01:02".into())),
            None,
            Some(Datum::Date(19723)),
        ];
        assert_eq!(
            partition_path(&fields, &values, DEFAULT_PARTITION_NAME, true).unwrap(),
            "dt=2024%2F01%3A02/h%2Fr=__DEFAULT_PARTITION__/d=19723/"
        );
        assert_eq!(
            partition_path(&fields, &values, DEFAULT_PARTITION_NAME, false).unwrap(),
            "dt=2024%2F01%3A02/h%2Fr=__DEFAULT_PARTITION__/d=2024-01-01/"
        );
        // A default name with special chars is escaped too.
        assert_eq!(
            partition_path(&fields[1..2], &[None], "a=b", true).unwrap(),
            "h%2Fr=a%3Db/"
        );
        assert_eq!(
            partition_path(&[], &[], DEFAULT_PARTITION_NAME, true).unwrap(),
            ""
        );
        assert!(partition_path(&fields, &values[..1], DEFAULT_PARTITION_NAME, true).is_err());
    }

    /// Leaf partition directories (relative, with trailing slash) of a fixture table.
    fn partition_dirs(table: &str, depth: usize) -> BTreeSet<String> {
        fn walk(dir: &std::path::Path, prefix: String, depth: usize, out: &mut BTreeSet<String>) {
            if depth == 0 {
                out.insert(prefix);
                return;
            }
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                let name = p.file_name().unwrap().to_str().unwrap().to_string();
                if p.is_dir() && name.contains('=') {
                    walk(&p, format!("{prefix}{name}/"), depth - 1, out);
                }
            }
        }
        let mut out = BTreeSet::new();
        walk(&java_fixtures().join(table), String::new(), depth, &mut out);
        out
    }

    #[test]
    fn java_directories_of_string_partitions() {
        // README values of the three "empty partition" tables (ORC manifests).
        let f0 = [DataField::new(0, "f0", t("STRING"))];
        let s = |v: &str| Some(Datum::String(v.into()));
        for (table, values, default) in [
            (
                "parquet/append_with_empty_partition.db/append_with_empty_partition",
                vec![s("2025"), s("2024"), None],
                DEFAULT_PARTITION_NAME,
            ),
            (
                "parquet/append_with_empty_partition_with_empty_value.db/\
                 append_with_empty_partition_with_empty_value",
                vec![s(""), s("2025"), s(" "), s("2024"), None],
                DEFAULT_PARTITION_NAME,
            ),
            (
                "parquet/append_with_empty_partition_with_specific_name.db/\
                 append_with_empty_partition_with_specific_name",
                vec![s("2025"), s("2024"), None],
                "__HIVE_DEFAULT_PARTITION__",
            ),
        ] {
            let computed: BTreeSet<String> = values
                .into_iter()
                .map(|v| partition_path(&f0, &[v], default, true).unwrap())
                .collect();
            assert_eq!(computed, partition_dirs(table, 1), "{table}");
        }
        let nested = [
            DataField::new(1, "dt", t("STRING NOT NULL")),
            DataField::new(2, "hr", t("INT NOT NULL")),
        ];
        let p = partition_path(&nested, &[s("2025-04-14"), Some(Datum::Int(10))], "x", true);
        let table = "parquet/pk_table_nested_type.db/pk_table_nested_type";
        assert_eq!(BTreeSet::from([p.unwrap()]), partition_dirs(table, 2));
    }

    #[test]
    fn java_directories_of_manifest_partitions() {
        // Partition rows decoded from Java-written Avro manifests name the real directories.
        for (table, names) in [
            (
                "parquet/pk_table_with_mor.db/pk_table_with_mor",
                ["p0", "p1"],
            ),
            (
                "parquet/append_table_with_alter_table.db/append_table_with_alter_table",
                ["key0", "key1"],
            ),
        ] {
            let fields: Vec<DataField> = names
                .iter()
                .enumerate()
                .map(|(i, n)| DataField::new(i as i32, *n, t("INT")))
                .collect();
            let types: Vec<DataType> = fields.iter().map(|f| f.data_type.clone()).collect();
            let computed: BTreeSet<String> = table_rows(table)
                .into_iter()
                .filter(|(name, _)| name == "._PARTITION")
                .map(|(_, row)| {
                    let values = row.decode(&types).unwrap();
                    partition_path(&fields, &values, DEFAULT_PARTITION_NAME, true).unwrap()
                })
                .collect();
            assert!(computed.len() >= 2, "{computed:?}");
            assert_eq!(computed, partition_dirs(table, 2), "{table}");
        }
    }
}
