//! Intervals such as `20ms`, `0.5s`, `100us`, or a bare number of
//! milliseconds.

use std::time::Duration;
use thiserror::Error;

/// Why an interval could not be parsed.
///
/// Always the user's fault (the text given).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DurationError {
    #[error(
        "malformed interval '{text}': expected a number with an optional unit us, ms or s (e.g. 20ms)"
    )]
    Malformed { text: String },
    #[error("interval '{text}' must be between 1 ms and 1 hour")]
    OutOfRange { text: String },
}

crate::error::all_faulty!(Usage: DurationError);

/// Parses an observation interval (1 ms to 1 hour).
pub fn parse_interval(text: &str) -> Result<Duration, DurationError> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let value: f64 = number.parse().map_err(|_| DurationError::Malformed {
        text: text.to_string(),
    })?;
    let seconds = match unit.trim() {
        "" | "ms" => value / 1e3,
        "us" => value / 1e6,
        "s" => value,
        _ => {
            return Err(DurationError::Malformed {
                text: text.to_string(),
            })
        }
    };
    if !(0.001..=3600.0).contains(&seconds) {
        return Err(DurationError::OutOfRange {
            text: text.to_string(),
        });
    }
    Ok(Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn accepts_units() {
        assert_eq!(parse_interval("20ms"), Ok(Duration::from_millis(20)));
        assert_eq!(parse_interval("20"), Ok(Duration::from_millis(20)));
        assert_eq!(parse_interval("0.5s"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_interval("2000us"), Ok(Duration::from_millis(2)));
        assert!(matches!(
            parse_interval("fast"),
            Err(DurationError::Malformed { .. })
        ));
        assert!(matches!(
            parse_interval("5m"),
            Err(DurationError::Malformed { .. })
        ));
        assert!(matches!(
            parse_interval("0"),
            Err(DurationError::OutOfRange { .. })
        ));
        assert!(matches!(
            parse_interval("2h"),
            Err(DurationError::Malformed { .. })
        ));
    }

    proptest! {
        #[test]
        fn milliseconds_round_trip(ms in 1u64..3_600_000) {
            prop_assert_eq!(parse_interval(&format!("{ms}ms")), Ok(Duration::from_millis(ms)));
        }

        #[test]
        fn never_panics(text in "\\PC{0,10}") {
            let _ = parse_interval(&text);
        }
    }
}
