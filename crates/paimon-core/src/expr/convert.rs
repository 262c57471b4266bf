//! Exact conversion of predicate literals to a field's type.
//!
//! Follows SQL / Java Paimon semantics, but never rounds silently (Java
//! `org.apache.paimon.predicate.PredicateBuilder.convertJavaObject` and Flink's literal casts):
//! - numeric text (`"1.50"`, `"-3"`, `"1e3"`) is parsed as an exact decimal; integer columns
//!   take it only if it is integral and in range (`"1.0"` into INT is 1, `"1.5"` is an error);
//!   DECIMAL(p, s) columns take it only if it rescales exactly to scale `s` within precision `p`
//!   (`1.2` → `1.20`; `0.123` into DECIMAL(10, 2) is an error); FLOAT/DOUBLE parse it with
//!   correct rounding and reject overflow to infinity;
//! - a string literal is cast as SQL would: as is into CHAR/VARCHAR (no padding), its UTF-8
//!   bytes into BINARY/VARBINARY, parsed into numeric (`'5'`, `'NaN'` for floats), BOOLEAN
//!   (`'true'`/`'false'`), DATE (`YYYY-MM-DD`), TIME and TIMESTAMP columns;
//! - timestamps take up to 9 fraction digits; a value with non-zero digits beyond the column's
//!   precision is an error, not a truncation. For `TIMESTAMP WITH LOCAL TIME ZONE` columns the
//!   literal is read as UTC. A DATE literal into a TIMESTAMP column is midnight; a TIMESTAMP
//!   literal into a DATE column must be exactly midnight;
//! - a typed [`Datum`] literal must be of a compatible kind (numbers are converted exactly as
//!   above; a DOUBLE into a FLOAT column only if it round-trips).
//!
//! Every failure is `InvalidArgument` naming the literal and the target type.

use chrono::{NaiveDate, NaiveTime, Timelike};

use crate::expr::predicate::Literal;
use crate::spec::datum::{Datum, Decimal, Timestamp};
use crate::spec::types::{DataType, TypeKind};
use crate::{Error, Result};

/// Converts `lit` to a value of type `ty`; `Ok(None)` for a NULL literal.
pub(crate) fn convert_literal(lit: &Literal, ty: &DataType) -> Result<Option<Datum>> {
    let kind = &ty.kind;
    let fail = |why: &str| {
        Error::invalid_argument(format!("cannot convert literal {lit} to {ty}: {why}"))
            .with_context("literal", lit.to_string())
            .with_context("type", ty.to_string())
    };
    let datum = match lit {
        Literal::Null => return Ok(None),
        Literal::Boolean(b) => match kind {
            TypeKind::Boolean => Datum::Boolean(*b),
            _ => return Err(fail("a boolean literal needs a BOOLEAN column")),
        },
        Literal::Number(text) => number_to(text, kind, false).map_err(|w| fail(&w))?,
        Literal::String(s) => string_to(s, kind).map_err(|w| fail(&w))?,
        Literal::Date(s) => {
            let days = parse_date(s).map_err(|w| fail(&w))?;
            date_to(days, kind).map_err(|w| fail(&w))?
        }
        Literal::Timestamp(s) => {
            let ts = parse_timestamp(s).map_err(|w| fail(&w))?;
            timestamp_to(ts, kind).map_err(|w| fail(&w))?
        }
        Literal::Typed(d) => typed_to(d, kind).map_err(|w| fail(&w))?,
    };
    Ok(Some(datum))
}

type Why<T> = std::result::Result<T, String>;

/// An exact decimal number: `(-1)^negative × digits × 10^exp`, digits without leading zeros.
struct ExactNumber {
    negative: bool,
    digits: String,
    exp: i64,
}

/// Parses SQL numeric text exactly: `[+-]digits[.digits][e[+-]digits]`.
fn parse_number(text: &str) -> Why<ExactNumber> {
    let t = text.trim();
    let (negative, rest) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let (mantissa, exp_text) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let (int_part, frac_part) = match mantissa.split_once('.') {
        Some((i, f)) => (i, f),
        None => (mantissa, ""),
    };
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (int_part.is_empty() && frac_part.is_empty())
        || !all_digits(int_part)
        || !all_digits(frac_part)
    {
        return Err(format!("'{text}' is not a number"));
    }
    let mut exp: i64 = match exp_text {
        None => 0,
        Some(e) => e
            .parse::<i64>()
            .ok()
            .filter(|e| e.unsigned_abs() < 1_000_000)
            .ok_or_else(|| format!("'{text}' has an invalid exponent"))?,
    };
    exp -= i64::try_from(frac_part.len()).map_err(|_| format!("'{text}' is too long"))?;
    let mut digits: String = format!("{int_part}{frac_part}")
        .trim_start_matches('0')
        .to_string();
    while exp < 0 && digits.ends_with('0') {
        digits.pop();
        exp += 1;
    }
    if digits.is_empty() {
        exp = 0;
    }
    Ok(ExactNumber {
        negative,
        digits,
        exp,
    })
}

impl ExactNumber {
    /// The value times `10^shift` as an `i128`, if integral and representable.
    fn scaled(&self, shift: i64) -> Why<i128> {
        if self.digits.is_empty() {
            return Ok(0);
        }
        let e = self.exp + shift;
        if e < 0 {
            return Err("the value is not exact at the target scale".into());
        }
        let too_large = || "the value is out of range".to_string();
        let base: i128 = self.digits.parse().map_err(|_| too_large())?;
        let factor = u32::try_from(e)
            .ok()
            .and_then(|e| 10i128.checked_pow(e))
            .ok_or_else(too_large)?;
        let v = base.checked_mul(factor).ok_or_else(too_large)?;
        Ok(if self.negative { -v } else { v })
    }

    fn integer(&self, min: i128, max: i128) -> Why<i128> {
        let v = self
            .scaled(0)
            .map_err(|w| w.replace("not exact at the target scale", "not an integer"))?;
        if v < min || v > max {
            return Err(format!("the value is out of range [{min}, {max}]"));
        }
        Ok(v)
    }
}

/// Numeric text into a numeric column. `lenient_float` (string casts) also accepts `NaN` and
/// `Infinity` for FLOAT/DOUBLE columns.
fn number_to(text: &str, kind: &TypeKind, lenient_float: bool) -> Why<Datum> {
    let t = text.trim();
    let check_float = |infinite: bool| -> Why<()> {
        if !lenient_float {
            parse_number(t)?;
        }
        if infinite && !t.to_ascii_lowercase().contains("inf") {
            return Err("the value overflows".into());
        }
        Ok(())
    };
    let not_a_number = || format!("'{t}' is not a number");
    Ok(match kind {
        TypeKind::Float => {
            let v: f32 = t.parse().map_err(|_| not_a_number())?;
            check_float(v.is_infinite())?;
            Datum::Float(v)
        }
        TypeKind::Double => {
            let v: f64 = t.parse().map_err(|_| not_a_number())?;
            check_float(v.is_infinite())?;
            Datum::Double(v)
        }
        TypeKind::Decimal { precision, scale } => {
            let n = parse_number(text)?;
            let unscaled = n.scaled(i64::from(*scale))?;
            let limit = 10i128
                .checked_pow(*precision)
                .ok_or("invalid decimal precision")?;
            if unscaled.abs() >= limit {
                return Err(format!("the value does not fit precision {precision}"));
            }
            Datum::Decimal(Decimal {
                unscaled,
                precision: *precision,
                scale: *scale,
            })
        }
        _ => {
            let n = parse_number(text)?;
            let int = |min: i128, max: i128| n.integer(min, max);
            // The range checks make the narrowing casts below exact.
            match kind {
                TypeKind::TinyInt => Datum::TinyInt(int(i8::MIN.into(), i8::MAX.into())? as i8),
                TypeKind::SmallInt => {
                    Datum::SmallInt(int(i16::MIN.into(), i16::MAX.into())? as i16)
                }
                TypeKind::Int => Datum::Int(int(i32::MIN.into(), i32::MAX.into())? as i32),
                TypeKind::BigInt => Datum::BigInt(int(i64::MIN.into(), i64::MAX.into())? as i64),
                _ => return Err("a numeric literal needs a numeric column".into()),
            }
        }
    })
}

fn string_to(s: &str, kind: &TypeKind) -> Why<Datum> {
    Ok(match kind {
        TypeKind::Char(_) | TypeKind::VarChar(_) => Datum::String(s.to_string()),
        TypeKind::Binary(_) | TypeKind::VarBinary(_) => Datum::Binary(s.as_bytes().to_vec()),
        TypeKind::Boolean => match s.trim().to_ascii_lowercase().as_str() {
            "true" => Datum::Boolean(true),
            "false" => Datum::Boolean(false),
            _ => return Err(format!("'{s}' is not a boolean")),
        },
        TypeKind::TinyInt
        | TypeKind::SmallInt
        | TypeKind::Int
        | TypeKind::BigInt
        | TypeKind::Float
        | TypeKind::Double
        | TypeKind::Decimal { .. } => number_to(s, kind, true)?,
        TypeKind::Date => Datum::Date(parse_date(s)?),
        TypeKind::Time(p) => Datum::Time(parse_time_millis(s, *p)?),
        TypeKind::Timestamp(_) | TypeKind::LocalZonedTimestamp(_) => {
            timestamp_to(parse_timestamp(s)?, kind)?
        }
        _ => return Err("the column type takes no literals".into()),
    })
}

fn typed_to(d: &Datum, kind: &TypeKind) -> Why<Datum> {
    Ok(match d {
        Datum::Boolean(_) if *kind == TypeKind::Boolean => d.clone(),
        Datum::TinyInt(_) | Datum::SmallInt(_) | Datum::Int(_) | Datum::BigInt(_) => {
            number_to(&d.to_string(), kind, false)?
        }
        Datum::Decimal(dec) => number_to(&dec.to_string(), kind, false)?,
        Datum::Float(f) => float_into(f64::from(*f), kind)?,
        Datum::Double(f) => float_into(*f, kind)?,
        Datum::String(s) => string_to(s, kind)?,
        Datum::Binary(_) if matches!(kind, TypeKind::Binary(_) | TypeKind::VarBinary(_)) => {
            d.clone()
        }
        Datum::Date(days) => date_to(*days, kind)?,
        Datum::Time(ms) if matches!(kind, TypeKind::Time(_)) => {
            let p = if let TypeKind::Time(p) = kind { *p } else { 3 };
            check_fraction(i64::from(ms.rem_euclid(1000)) * 1_000_000, p.min(3))?;
            Datum::Time(*ms)
        }
        Datum::Timestamp(ts) | Datum::LocalZonedTimestamp(ts) => timestamp_to(*ts, kind)?,
        _ => return Err(format!("a {} value does not fit the column", kind_name(d))),
    })
}

fn kind_name(d: &Datum) -> &'static str {
    match d {
        Datum::Boolean(_) => "BOOLEAN",
        Datum::Binary(_) => "BINARY",
        Datum::Time(_) => "TIME",
        _ => "typed",
    }
}

fn float_into(v: f64, kind: &TypeKind) -> Why<Datum> {
    match kind {
        TypeKind::Double => Ok(Datum::Double(v)),
        TypeKind::Float => {
            let f = v as f32;
            if f64::from(f) == v || v.is_nan() {
                Ok(Datum::Float(f))
            } else {
                Err("the value is not exact as FLOAT".into())
            }
        }
        _ => Err("a floating-point value needs a FLOAT or DOUBLE column".into()),
    }
}

fn date_to(days: i32, kind: &TypeKind) -> Why<Datum> {
    let midnight = Timestamp {
        millis: i64::from(days) * 86_400_000,
        nanos: 0,
    };
    Ok(match kind {
        TypeKind::Date => Datum::Date(days),
        TypeKind::Timestamp(_) => Datum::Timestamp(midnight),
        TypeKind::LocalZonedTimestamp(_) => Datum::LocalZonedTimestamp(midnight),
        _ => return Err("a DATE literal needs a DATE or TIMESTAMP column".into()),
    })
}

fn timestamp_to(ts: Timestamp, kind: &TypeKind) -> Why<Datum> {
    match kind {
        TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => {
            let nanos_of_second = i64::from(ts.nanos) + ts.millis.rem_euclid(1000) * 1_000_000;
            check_fraction(nanos_of_second, *p)?;
            Ok(if matches!(kind, TypeKind::Timestamp(_)) {
                Datum::Timestamp(ts)
            } else {
                Datum::LocalZonedTimestamp(ts)
            })
        }
        TypeKind::Date => {
            if ts.nanos != 0 || ts.millis.rem_euclid(86_400_000) != 0 {
                return Err("a TIMESTAMP literal into a DATE column must be midnight".into());
            }
            i32::try_from(ts.millis.div_euclid(86_400_000))
                .map(Datum::Date)
                .map_err(|_| "the date is out of range".into())
        }
        _ => Err("a TIMESTAMP literal needs a TIMESTAMP or DATE column".into()),
    }
}

/// Errors when `nanos_of_second` has non-zero digits beyond `precision` fraction digits.
fn check_fraction(nanos_of_second: i64, precision: u32) -> Why<()> {
    let unit = 10i64.pow(9 - precision.min(9));
    if nanos_of_second % unit != 0 {
        return Err(format!(
            "the value has more fraction digits than precision {precision}"
        ));
    }
    Ok(())
}

/// `YYYY-MM-DD` → days since 1970-01-01.
pub(crate) fn parse_date(s: &str) -> Why<i32> {
    let d = NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d")
        .map_err(|e| format!("'{s}' is not a date YYYY-MM-DD ({e})"))?;
    let days = d.signed_duration_since(NaiveDate::default()).num_days();
    i32::try_from(days).map_err(|_| format!("'{s}' is out of range"))
}

/// `HH:MM[:SS[.fffffffff]]` → (time, nanos of second).
fn parse_time_parts(s: &str) -> Why<(NaiveTime, i64)> {
    let (hms, frac) = match s.split_once('.') {
        Some((a, b)) => (a, b),
        None => (s, ""),
    };
    let t = NaiveTime::parse_from_str(hms, "%H:%M:%S")
        .or_else(|_| NaiveTime::parse_from_str(hms, "%H:%M"))
        .map_err(|e| format!("'{s}' is not a time HH:MM:SS[.f] ({e})"))?;
    if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) || s.ends_with('.') {
        return Err(format!("'{s}' has an invalid fraction (at most 9 digits)"));
    }
    let nanos = if frac.is_empty() {
        0
    } else {
        let v: i64 = frac.parse().map_err(|_| format!("'{s}' bad fraction"))?;
        v * 10i64.pow(9 - frac.len() as u32)
    };
    Ok((t, nanos))
}

fn parse_time_millis(s: &str, precision: u32) -> Why<i32> {
    let (t, nanos) = parse_time_parts(s.trim())?;
    check_fraction(nanos, precision.min(3))?;
    let ms = i64::from(t.num_seconds_from_midnight()) * 1000 + nanos / 1_000_000;
    i32::try_from(ms).map_err(|_| format!("'{s}' is out of range"))
}

/// `YYYY-MM-DD[( |T)HH:MM[:SS[.fffffffff]]]` → wall-clock timestamp (read as UTC).
pub(crate) fn parse_timestamp(s: &str) -> Why<Timestamp> {
    let t = s.trim();
    let (date, time) = match t.find([' ', 'T']) {
        Some(i) => (&t[..i], Some(t[i + 1..].trim())),
        None => (t, None),
    };
    let days = i64::from(parse_date(date)?);
    let (secs, nanos) = match time {
        None => (0, 0),
        Some(tm) => {
            let (t, n) = parse_time_parts(tm)?;
            (i64::from(t.num_seconds_from_midnight()), n)
        }
    };
    let millis = days * 86_400_000 + secs * 1000 + nanos / 1_000_000;
    Ok(Timestamp {
        millis,
        nanos: (nanos % 1_000_000) as u32,
    })
}

#[cfg(test)]
#[path = "convert_tests.rs"]
mod tests;
