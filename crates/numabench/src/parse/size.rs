//! Byte sizes: `4096`, `4K`, `4k`, `64KiB`, `1M`, `1G`, `1GiB`, `2T`.
//!
//! Like numactl and likwid, a bare `K`/`M`/`G`/`T` and the `KiB`-style
//! suffixes are binary (powers of 1024): memory is allocated in pages, and
//! users who write `1G` for a buffer mean a gibibyte. `KB`/`MB`/`GB` (with
//! the B) are decimal powers of 1000, as SI says.

use thiserror::Error;

/// Why a size could not be parsed.
///
/// Always the user's fault (the text given).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SizeError {
    /// Nothing was given.
    #[error("empty size")]
    Empty,
    /// The text does not have the shape `<number>[suffix]`.
    #[error("malformed size '{text}': expected a whole number with an optional suffix K, M, G, T, KiB, MiB, GiB, TiB, KB, MB, GB or TB")]
    Malformed { text: String },
    /// The suffix is not one we know.
    #[error(
        "unknown size suffix in '{text}': use K, M, G, T, KiB, MiB, GiB, TiB, KB, MB, GB or TB"
    )]
    UnknownSuffix { text: String },
    /// The size does not fit in 64 bits.
    #[error("size '{text}' is too large")]
    Overflow { text: String },
    /// The size is zero, which no benchmark can use.
    #[error("size '{text}' is zero; a size must be at least 1 byte")]
    Zero { text: String },
}

crate::error::all_faulty!(Usage: SizeError);

/// Parses a size in bytes; zero is rejected.
pub fn parse_size(text: &str) -> Result<u64, SizeError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(SizeError::Empty);
    }
    let digits_end = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(trimmed.len());
    if digits_end == 0 {
        return Err(SizeError::Malformed {
            text: text.to_string(),
        });
    }
    let (digits, suffix) = trimmed.split_at(digits_end);
    let number: u64 = digits.parse().map_err(|_| SizeError::Overflow {
        text: text.to_string(),
    })?;
    let multiplier = suffix_multiplier(suffix.trim()).ok_or_else(|| SizeError::UnknownSuffix {
        text: text.to_string(),
    })?;
    let bytes = number
        .checked_mul(multiplier)
        .ok_or_else(|| SizeError::Overflow {
            text: text.to_string(),
        })?;
    if bytes == 0 {
        return Err(SizeError::Zero {
            text: text.to_string(),
        });
    }
    Ok(bytes)
}

fn suffix_multiplier(suffix: &str) -> Option<u64> {
    const KIB: u64 = 1 << 10;
    let power = |exponent: u32| KIB.pow(exponent);
    let decimal = |exponent: u32| 1000u64.pow(exponent);
    let value = match suffix.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => power(1),
        "m" | "mib" => power(2),
        "g" | "gib" => power(3),
        "t" | "tib" => power(4),
        "kb" => decimal(1),
        "mb" => decimal(2),
        "gb" => decimal(3),
        "tb" => decimal(4),
        _ => return None,
    };
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn accepts_the_documented_forms() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("4K"), Ok(4096));
        assert_eq!(parse_size("4k"), Ok(4096));
        assert_eq!(parse_size("64KiB"), Ok(65536));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("1GB"), Ok(1_000_000_000));
        assert_eq!(parse_size("2M"), Ok(2 << 20));
    }

    #[test]
    fn rejects_bad_sizes_with_the_bad_value_named() {
        assert_eq!(parse_size(""), Err(SizeError::Empty));
        assert!(matches!(parse_size("0"), Err(SizeError::Zero { .. })));
        assert!(matches!(parse_size("K"), Err(SizeError::Malformed { .. })));
        assert!(matches!(
            parse_size("-4K"),
            Err(SizeError::Malformed { .. })
        ));
        assert!(matches!(
            parse_size("4X"),
            Err(SizeError::UnknownSuffix { .. })
        ));
        assert!(matches!(
            parse_size("1.5G"),
            Err(SizeError::UnknownSuffix { .. })
        ));
        assert!(matches!(
            parse_size("99999999999T"),
            Err(SizeError::Overflow { .. })
        ));
        let message = parse_size("12Q").unwrap_err().to_string();
        assert!(message.contains("12Q"), "{message}");
    }

    proptest! {
        #[test]
        fn plain_numbers_round_trip(n in 1u64..u64::MAX) {
            prop_assert_eq!(parse_size(&n.to_string()), Ok(n));
        }

        #[test]
        fn binary_suffixes_multiply(n in 1u64..(1 << 20), which in 0usize..4) {
            let (short, long, factor) = [("K", "KiB", 1u64 << 10), ("M", "MiB", 1 << 20), ("G", "GiB", 1 << 30), ("T", "TiB", 1 << 40)][which];
            prop_assert_eq!(parse_size(&format!("{n}{short}")), Ok(n * factor));
            prop_assert_eq!(parse_size(&format!("{n}{long}")), Ok(n * factor));
        }

        #[test]
        fn never_panics(text in "\\PC{0,12}") {
            let _ = parse_size(&text);
        }
    }
}
