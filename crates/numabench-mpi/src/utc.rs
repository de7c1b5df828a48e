//! RFC 3339 UTC timestamps for the metadata line (the monitor does not
//! link the numabench library, so it formats its own).

use std::time::{SystemTime, UNIX_EPOCH};

/// `time` as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn timestamp(time: SystemTime) -> String {
    let seconds = time
        .duration_since(UNIX_EPOCH)
        .map_or(0, |duration| duration.as_secs());
    let (mut days, rest) = (seconds / 86_400, seconds % 86_400);
    let mut year = 1970u64;
    loop {
        let length = if leap(year) { 366 } else { 365 };
        if days < length {
            break;
        }
        days -= length;
        year += 1;
    }
    let mut month = 1u64;
    loop {
        let length = month_days(year, month);
        if days < length {
            break;
        }
        days -= length;
        month += 1;
    }
    format!(
        "{year:04}-{month:02}-{:02}T{:02}:{:02}:{:02}Z",
        days + 1,
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

fn leap(year: u64) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

fn month_days(year: u64, month: u64) -> u64 {
    match month {
        2 if leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn formats_epoch_leap_days_and_year_ends() {
        assert_eq!(timestamp(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        // `date -u -d @1709208000` = 2024-02-29T12:00:00Z.
        let leap_day = UNIX_EPOCH + Duration::from_secs(1_709_208_000);
        assert_eq!(timestamp(leap_day), "2024-02-29T12:00:00Z");
        // `date -u -d @1798761599` = 2026-12-31T23:59:59Z.
        let year_end = UNIX_EPOCH + Duration::from_secs(1_798_761_599);
        assert_eq!(timestamp(year_end), "2026-12-31T23:59:59Z");
    }
}
