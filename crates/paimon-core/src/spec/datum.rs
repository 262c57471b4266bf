//! A single typed value: partition values, stats bounds, bucket keys and predicate literals.
//!
//! Values use Paimon's internal representation (Java `InternalRow` getters): dates are days
//! since the epoch, times millis of day, timestamps epoch millis plus nano-of-millisecond,
//! decimals an unscaled `i128` with precision and scale. Null is `Option::None` around a
//! `Datum`, never a variant.

use std::cmp::Ordering;
use std::fmt;

use serde::{Deserialize, Serialize};

/// A timestamp as Paimon stores it: epoch millis and nano-of-millisecond (0..999_999).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Timestamp {
    /// Milliseconds since 1970-01-01T00:00 (wall clock for TIMESTAMP, instant for LTZ).
    pub millis: i64,
    /// Nanoseconds within the millisecond.
    pub nanos: u32,
}

impl Timestamp {
    /// From epoch microseconds.
    pub fn from_micros(micros: i64) -> Self {
        Timestamp {
            millis: micros.div_euclid(1000),
            nanos: (micros.rem_euclid(1000) * 1000) as u32,
        }
    }
    /// From epoch nanoseconds.
    pub fn from_nanos(nanos: i128) -> Option<Self> {
        let millis = i64::try_from(nanos.div_euclid(1_000_000)).ok()?;
        Some(Timestamp {
            millis,
            nanos: nanos.rem_euclid(1_000_000) as u32,
        })
    }
    /// Epoch microseconds (saturating).
    pub fn to_micros(self) -> i64 {
        self.millis
            .saturating_mul(1000)
            .saturating_add(i64::from(self.nanos / 1000))
    }
    /// Epoch nanoseconds.
    pub fn to_nanos(self) -> i128 {
        i128::from(self.millis) * 1_000_000 + i128::from(self.nanos)
    }
}

/// A decimal: unscaled value with precision and scale (at most 38 digits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Decimal {
    /// Unscaled value.
    pub unscaled: i128,
    /// Declared precision.
    pub precision: u32,
    /// Scale.
    pub scale: u32,
}

impl Decimal {
    /// Rescales to `scale` if exact and fits `precision`; `None` otherwise.
    pub fn rescale(self, precision: u32, scale: u32) -> Option<Decimal> {
        let unscaled = if scale >= self.scale {
            let f = 10i128.checked_pow(scale - self.scale)?;
            self.unscaled.checked_mul(f)?
        } else {
            let f = 10i128.checked_pow(self.scale - scale)?;
            if self.unscaled % f != 0 {
                return None;
            }
            self.unscaled / f
        };
        let limit = 10i128.checked_pow(precision)?;
        if unscaled.abs() >= limit {
            return None;
        }
        Some(Decimal {
            unscaled,
            precision,
            scale,
        })
    }
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let neg = self.unscaled < 0;
        let digits = self.unscaled.unsigned_abs().to_string();
        let scale = self.scale as usize;
        let s = if scale == 0 {
            digits
        } else if digits.len() > scale {
            format!(
                "{}.{}",
                &digits[..digits.len() - scale],
                &digits[digits.len() - scale..]
            )
        } else {
            format!("0.{}{}", "0".repeat(scale - digits.len()), digits)
        };
        if neg {
            write!(f, "-{s}")
        } else {
            f.write_str(&s)
        }
    }
}

/// One non-null value in Paimon's internal representation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Datum {
    /// BOOLEAN
    Boolean(bool),
    /// TINYINT
    TinyInt(i8),
    /// SMALLINT
    SmallInt(i16),
    /// INT
    Int(i32),
    /// BIGINT
    BigInt(i64),
    /// FLOAT
    Float(f32),
    /// DOUBLE
    Double(f64),
    /// DECIMAL
    Decimal(Decimal),
    /// CHAR / VARCHAR / STRING
    String(String),
    /// BINARY / VARBINARY / BYTES
    Binary(Vec<u8>),
    /// DATE: days since epoch.
    Date(i32),
    /// TIME: millis of day.
    Time(i32),
    /// TIMESTAMP (wall clock).
    Timestamp(Timestamp),
    /// TIMESTAMP WITH LOCAL TIME ZONE (instant).
    LocalZonedTimestamp(Timestamp),
}

impl Datum {
    /// Compares two values of the same kind with Java's natural order; `None` across kinds.
    ///
    /// Floats follow Java `Float.compare`: -0.0 < 0.0 and NaN is the largest value. Strings and
    /// binaries compare by unsigned bytes. Decimals compare numerically across scales.
    pub fn compare(&self, other: &Datum) -> Option<Ordering> {
        use Datum::*;
        Some(match (self, other) {
            (Boolean(a), Boolean(b)) => a.cmp(b),
            (TinyInt(a), TinyInt(b)) => a.cmp(b),
            (SmallInt(a), SmallInt(b)) => a.cmp(b),
            (Int(a), Int(b)) | (Date(a), Date(b)) | (Time(a), Time(b)) => a.cmp(b),
            (BigInt(a), BigInt(b)) => a.cmp(b),
            (Float(a), Float(b)) => java_float_cmp(f64::from(*a), f64::from(*b)),
            (Double(a), Double(b)) => java_float_cmp(*a, *b),
            (Decimal(a), Decimal(b)) => compare_decimal(a, b)?,
            (String(a), String(b)) => a.as_bytes().cmp(b.as_bytes()),
            (Binary(a), Binary(b)) => a.cmp(b),
            (Timestamp(a), Timestamp(b)) | (LocalZonedTimestamp(a), LocalZonedTimestamp(b)) => {
                a.cmp(b)
            }
            _ => return None,
        })
    }
}

/// Java `Double.compare`: -0.0 < 0.0, NaN greater than everything, NaN == NaN.
pub fn java_float_cmp(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.total_cmp(&b),
    }
}

fn compare_decimal(a: &Decimal, b: &Decimal) -> Option<Ordering> {
    if a.scale == b.scale {
        return Some(a.unscaled.cmp(&b.unscaled));
    }
    let (hi, lo, flip) = if a.scale > b.scale {
        (a, b, false)
    } else {
        (b, a, true)
    };
    let f = 10i128.checked_pow(hi.scale - lo.scale)?;
    let ord = match lo.unscaled.checked_mul(f) {
        Some(lo_scaled) => hi.unscaled.cmp(&lo_scaled),
        // The lower-scale value is too large to rescale: its magnitude dominates.
        None => 0.cmp(&lo.unscaled),
    };
    Some(if flip { ord.reverse() } else { ord })
}

impl fmt::Display for Datum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Datum::Boolean(v) => write!(f, "{v}"),
            Datum::TinyInt(v) => write!(f, "{v}"),
            Datum::SmallInt(v) => write!(f, "{v}"),
            Datum::Int(v) => write!(f, "{v}"),
            Datum::BigInt(v) => write!(f, "{v}"),
            Datum::Float(v) => write!(f, "{v}"),
            Datum::Double(v) => write!(f, "{v}"),
            Datum::Decimal(d) => write!(f, "{d}"),
            Datum::String(s) => f.write_str(s),
            Datum::Binary(b) => {
                for x in b {
                    write!(f, "{x:02x}")?;
                }
                Ok(())
            }
            Datum::Date(d) => {
                match chrono::NaiveDate::from_num_days_from_ce_opt(d.saturating_add(719_163)) {
                    Some(date) => write!(f, "{date}"),
                    None => write!(f, "{d}"),
                }
            }
            Datum::Time(ms) => write!(f, "{ms}"),
            Datum::Timestamp(ts) | Datum::LocalZonedTimestamp(ts) => {
                match chrono::DateTime::from_timestamp_millis(ts.millis) {
                    Some(dt) => {
                        let n = dt.naive_utc();
                        let nanos = (ts.millis.rem_euclid(1000) as u32) * 1_000_000 + ts.nanos;
                        write!(f, "{}.{:09}", n.format("%Y-%m-%dT%H:%M:%S"), nanos)
                    }
                    None => write!(f, "{}ms", ts.millis),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_rescale_is_exact_or_none() {
        let d = Decimal {
            unscaled: 1250,
            precision: 10,
            scale: 2,
        };
        assert_eq!(d.rescale(10, 3).unwrap().unscaled, 12500);
        assert_eq!(d.rescale(10, 1).unwrap().unscaled, 125);
        assert_eq!(d.rescale(10, 0), None);
        assert_eq!(d.rescale(3, 2), None);
        assert_eq!(d.to_string(), "12.50");
        assert_eq!(
            Decimal {
                unscaled: -5,
                precision: 5,
                scale: 3
            }
            .to_string(),
            "-0.005"
        );
    }

    #[test]
    fn java_order() {
        assert_eq!(
            Datum::Double(-0.0).compare(&Datum::Double(0.0)),
            Some(Ordering::Less)
        );
        assert_eq!(
            Datum::Double(f64::NAN).compare(&Datum::Double(f64::INFINITY)),
            Some(Ordering::Greater)
        );
        assert_eq!(
            Datum::String("é".into()).compare(&Datum::String("z".into())),
            Some(Ordering::Greater)
        );
        let a = Datum::Decimal(Decimal {
            unscaled: 150,
            precision: 5,
            scale: 2,
        });
        let b = Datum::Decimal(Decimal {
            unscaled: 15,
            precision: 5,
            scale: 1,
        });
        assert_eq!(a.compare(&b), Some(Ordering::Equal));
        assert_eq!(Datum::Int(1).compare(&Datum::BigInt(1)), None);
    }

    #[test]
    fn timestamp_conversions() {
        let t = Timestamp::from_micros(-1);
        assert_eq!((t.millis, t.nanos), (-1, 999_000));
        assert_eq!(t.to_micros(), -1);
        assert_eq!(
            Timestamp::from_nanos(1_500_000).unwrap(),
            Timestamp {
                millis: 1,
                nanos: 500_000
            }
        );
    }
}
