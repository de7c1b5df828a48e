//! Value parsers of the flags several commands share (sizes, CPU and node
//! lists, kernels, traffic mixes, intervals, durations, budgets, SIMD
//! levels): text to value, an error being the message clap prints after
//! "invalid value ... for '--FLAG'". A parser with one user lives beside its
//! flag, unless it shares a helper here (`plugin --timeout` reads a
//! duration as `--budget` does).

use numabench::bench::{Budget, TrafficMix};
use numabench::kernels::{kernel_by_name, KernelSpec, SimdLevel, KERNELS};
use numabench::parse::{parse_id_list, parse_size, DurationError, IdListError, SizeError};

pub(crate) fn parse_size_arg(text: &str) -> Result<u64, SizeError> {
    parse_size(text)
}

/// One comma-separated flag value, parsed whole so that an error names the
/// whole value (with clap's `value_delimiter` the parser sees one piece,
/// and `--size 1K,,2K` was reported as the invalid value '').
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed<T>(pub Vec<T>);

/// The items of every occurrence of a repeatable list flag, in order.
pub fn all_items<T: Clone>(lists: &[Listed<T>]) -> Vec<T> {
    lists
        .iter()
        .flat_map(|list| list.0.iter().cloned())
        .collect()
}

pub(crate) fn parse_sizes_arg(text: &str) -> Result<Listed<u64>, SizeError> {
    text.split(',')
        .map(parse_size_arg)
        .collect::<Result<_, _>>()
        .map(Listed)
}

/// A parsed CPU or node list (a newtype, so clap treats it as one value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdList(pub Vec<u32>);

pub(crate) fn parse_list_arg(text: &str) -> Result<IdList, IdListError> {
    parse_id_list(text).map(IdList)
}

pub(crate) fn parse_kernel_arg(text: &str) -> Result<&'static KernelSpec, String> {
    kernel_by_name(text).ok_or_else(|| {
        let valid: Vec<&str> = KERNELS.iter().map(|kernel| kernel.name).collect();
        format!("unknown kernel '{text}' (valid: {})", valid.join(", "))
    })
}

pub(crate) fn parse_mix_arg(text: &str) -> Result<TrafficMix, String> {
    TrafficMix::parse(text)
        .ok_or_else(|| format!("unknown traffic mix '{text}' (valid: reads, 3:1, 2:1, 1:1, writes, and with non-temporal writes 3:1-nt, 2:1-nt, 1:1-nt, nt-writes)"))
}

pub(crate) fn parse_interval_arg(text: &str) -> Result<std::time::Duration, DurationError> {
    numabench::parse::parse_interval(text)
}

/// A timeout: a number of seconds, minutes or hours (`90s`, `30m`, `2h`,
/// bare: seconds), from 1 s to 7 days.
pub(crate) fn parse_timeout_arg(text: &str) -> Result<std::time::Duration, String> {
    let seconds = parse_duration_seconds(text)
        .ok_or_else(|| format!("'{text}': not a duration like 90s, 30m or 2h"))?;
    if !(1.0..=7.0 * 86400.0).contains(&seconds) {
        return Err(format!("'{text}': must be between 1s and 7 days"));
    }
    Ok(std::time::Duration::from_secs_f64(seconds))
}

/// A time budget: `none` (everything runs) or a duration as for
/// [`parse_timeout_arg`], from 1 s to 7 days.
pub(crate) fn parse_budget_arg(text: &str) -> Result<Budget, String> {
    if text.trim().eq_ignore_ascii_case("none") {
        return Ok(Budget::Unlimited);
    }
    let seconds = parse_duration_seconds(text)
        .ok_or_else(|| format!("'{text}': not a duration like 90s, 10m or 2h, nor none"))?;
    if !(1.0..=7.0 * 86400.0).contains(&seconds) {
        return Err(format!(
            "'{text}': a budget must be between 1s and 7 days (or none, to run everything)"
        ));
    }
    Ok(Budget::Seconds(seconds))
}

/// Seconds of a duration written as a number with `s`, `m`/`min` or `h`
/// (bare: seconds); `None` for anything else (each caller says what it
/// takes).
fn parse_duration_seconds(text: &str) -> Option<f64> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let scale = match unit {
        "" | "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => return None,
    };
    let seconds = number.parse::<f64>().ok()? * scale;
    seconds.is_finite().then_some(seconds)
}

pub(crate) fn parse_simd_arg(text: &str) -> Result<SimdLevel, String> {
    let level = SimdLevel::from_name(text).ok_or_else(|| {
        format!("unknown SIMD level '{text}' (valid: avx512, avx2, sse2, scalar)")
    })?;
    if level > SimdLevel::detect() {
        return Err(format!(
            "this CPU does not support {text} (best: {})",
            SimdLevel::detect().name()
        ));
    }
    Ok(level)
}
