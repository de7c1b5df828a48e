//! RFC 3339 UTC timestamps to the second (`2026-11-21T23:52:00Z`), as the
//! run metadata's `utc_time` carries them. The one formatter of every
//! numabench crate, the MPI monitor included.

use std::time::{SystemTime, UNIX_EPOCH};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// `time` as `YYYY-MM-DDTHH:MM:SSZ`, truncated to the second; a time
/// before 1970 (a clock set wrong) reads as the epoch.
pub fn utc_timestamp(time: SystemTime) -> String {
    let seconds = time
        .duration_since(UNIX_EPOCH)
        .map_or(0, |duration| duration.as_secs());
    let whole_seconds = i64::try_from(seconds).unwrap_or(i64::MAX);
    OffsetDateTime::from_unix_timestamp(whole_seconds)
        .ok()
        .and_then(|utc| utc.format(&Rfc3339).ok())
        .unwrap_or_else(|| "1970-01-01T00:00:00Z".to_string())
}

#[cfg(test)]
mod tests {
    //! The text is the one the hand-written formatters of the library and
    //! the MPI monitor produced (their tests' figures, computed with
    //! `date -u -d @SECONDS`).
    use super::*;
    use std::time::Duration;

    fn at(seconds: u64) -> String {
        utc_timestamp(UNIX_EPOCH + Duration::from_secs(seconds))
    }

    #[test]
    fn formats_the_epoch_leap_days_and_year_ends() {
        assert_eq!(utc_timestamp(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        assert_eq!(at(1_795_305_120), "2026-11-21T23:52:00Z");
        assert_eq!(at(1_709_208_000), "2024-02-29T12:00:00Z");
        assert_eq!(at(1_798_761_599), "2026-12-31T23:59:59Z");
    }

    #[test]
    fn fractions_of_a_second_are_not_written() {
        let time = UNIX_EPOCH + Duration::from_millis(1_709_208_000_750);
        assert_eq!(utc_timestamp(time), "2024-02-29T12:00:00Z");
    }

    #[test]
    fn a_clock_before_1970_reads_as_the_epoch() {
        let before = UNIX_EPOCH - Duration::from_secs(10);
        assert_eq!(utc_timestamp(before), "1970-01-01T00:00:00Z");
    }
}
