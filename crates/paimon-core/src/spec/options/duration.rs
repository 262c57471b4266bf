//! Java `org.apache.paimon.utils.TimeUtils#parseDuration`: a number and an optional unit
//! (`ms` when absent), e.g. `1 h`, `30min`, `7 d`, `500`.

use std::time::Duration;

use crate::{Error, Result};

/// Parses a Paimon duration (`d`/`day(s)`, `h`/`hour(s)`, `min`/`m`/`minute(s)`,
/// `s`/`sec(s)`/`second(s)`, `ms`/`milli(s)`/`millisecond(s)`, `us`/`micro(s)`/`microsecond(s)`,
/// `ns`/`nano(s)`/`nanosecond(s)`; case-insensitive, spaces allowed before the unit).
pub fn parse_duration(text: &str) -> Result<Duration> {
    let t = text.trim();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = t.split_at(digits);
    if number.is_empty() {
        return Err(Error::invalid_argument(format!(
            "duration '{text}' does not start with a number"
        )));
    }
    let n: u64 = number
        .parse()
        .map_err(|_| Error::invalid_argument(format!("duration '{text}': number out of range")))?;
    let unit = unit.trim().to_ascii_lowercase();
    let nanos_per: u64 = match unit.as_str() {
        "" | "ms" | "milli" | "millis" | "millisecond" | "milliseconds" => 1_000_000,
        "d" | "day" | "days" => 86_400_000_000_000,
        "h" | "hour" | "hours" => 3_600_000_000_000,
        "min" | "m" | "minute" | "minutes" => 60_000_000_000,
        "s" | "sec" | "secs" | "second" | "seconds" => 1_000_000_000,
        "us" | "µs" | "micro" | "micros" | "microsecond" | "microseconds" => 1_000,
        "ns" | "nano" | "nanos" | "nanosecond" | "nanoseconds" => 1,
        other => {
            return Err(Error::invalid_argument(format!(
                "duration '{text}': unknown time unit '{other}'"
            )))
        }
    };
    let nanos = n
        .checked_mul(nanos_per)
        .ok_or_else(|| Error::invalid_argument(format!("duration '{text}' is too large")))?;
    Ok(Duration::from_nanos(nanos))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_errors() {
        assert_eq!(parse_duration("1 h").unwrap(), Duration::from_secs(3600));
        assert_eq!(parse_duration("30min").unwrap(), Duration::from_secs(1800));
        assert_eq!(parse_duration("2 D").unwrap(), Duration::from_secs(172_800));
        assert_eq!(parse_duration("500").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("10 s").unwrap(), Duration::from_secs(10));
        assert!(parse_duration("h").is_err());
        assert!(parse_duration("1 fortnight").is_err());
    }
}
