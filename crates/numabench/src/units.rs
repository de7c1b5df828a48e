//! Unit formatting in one place, so every table prints sizes and rates the
//! same way. Records always carry raw numbers in fixed units (`GB/s`,
//! `ns`, `s`, bytes); only human-facing text goes through here.

/// Formats a byte count with binary prefixes: `32 KiB`, `1.5 GiB`.
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 || value.fract() == 0.0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Formats a measured value with a sensible number of significant digits
/// for a table: `12.3`, `0.123`, `1234`.
pub fn format_value(value: f64) -> String {
    if !value.is_finite() {
        return value.to_string();
    }
    let magnitude = value.abs();
    if magnitude >= 1000.0 || magnitude == 0.0 {
        format!("{value:.0}")
    } else if magnitude >= 100.0 {
        format!("{value:.1}")
    } else if magnitude >= 1.0 {
        format!("{value:.2}")
    } else {
        format!("{value:.3}")
    }
}

/// Formats a fraction as a percentage: `0.953` becomes `95.3%`.
pub fn format_percent(fraction: f64) -> String {
    format!("{:.1}%", fraction * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_use_binary_prefixes() {
        assert_eq!(format_bytes(512), "512 B");
        assert_eq!(format_bytes(32 * 1024), "32 KiB");
        assert_eq!(format_bytes(3 << 29), "1.5 GiB");
    }

    #[test]
    fn values_keep_three_significant_digits() {
        assert_eq!(format_value(12.345), "12.35");
        assert_eq!(format_value(0.12345), "0.123");
        assert_eq!(format_value(1234.5), "1234");
        assert_eq!(format_percent(0.953), "95.3%");
    }
}
