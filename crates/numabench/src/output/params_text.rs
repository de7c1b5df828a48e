//! `params` as one readable line for the terminal table. JSON, JSON Lines
//! and CSV keep every value; the table summarises what would be a wall of
//! text. The rule (also in docs/results.md, "Table rows"):
//! - integers, booleans, null and strings of at most [`MAX_STRING`]
//!   characters print as they are; longer strings are cut with `...`;
//!   other numbers print with about 3 significant digits;
//! - arrays of at most [`MAX_INLINE`] items print inline; longer ones as
//!   `[N values: first F, min A, max B]` (numbers) or `[N items]`;
//! - objects of at most [`MAX_INLINE`] scalar entries print inline as
//!   `{key:value,...}` (numbers shortened); larger ones as `{N keys}`;
//! - known shapes get their own summary: `observation` (run --observe) as
//!   peak and final bytes per node, migrations and sample count;
//!   `verification` (apps) as its verdict; `iteration_seconds` (apps) as
//!   the first iteration's time against the median of the others;
//!   `pages_after_placement`/`pages_after_run` (apps) as pages per node
//!   and the remote share; `convergence` (adaptive repetitions) as
//!   repetitions taken of the most, the interval reached and why it
//!   stopped, e.g. `3/5 ±0.4% converged`;
//! - left out: null values (nothing to say), and [`SHOWN_BY_COLUMNS`]:
//!   params the row already shows another way (`run_seconds` by the stats
//!   columns, `migration_cost_seconds` by `iteration_seconds`, ...), and
//!   `simd` where a `variant` names it (STREAM's loops: `avx2-nt` says
//!   `avx2`, `memcpy` says `libc`);
//! - the counters of a run (`threads_usage`, `tlp`, `numastat_delta`,
//!   `perf`, ...) as one `observed=` item at the end of the row
//!   ([`super::counters_text`]).

use super::counters_text;
use crate::units::{format_bytes, format_value};
use numabench_schema::params::ConvergenceParams;
use serde::Deserialize;
use serde_json::{Map, Value};

/// A record's `params` as table text (the record type is the schema
/// crate's, which knows no table): `record.params_text()` with this trait
/// in scope.
pub trait RecordText {
    /// `params` as compact `key=value` text for tables, long arrays and
    /// objects summarised ([`params_text`]).
    fn params_text(&self) -> String;
}

impl RecordText for numabench_schema::Record {
    fn params_text(&self) -> String {
        params_text(&self.params)
    }
}

/// Longest string printed whole.
pub const MAX_STRING: usize = 48;
/// Most array items or object entries printed inline.
pub const MAX_INLINE: usize = 4;

/// Params the table leaves out because the row already shows them:
/// `run_seconds` (each repetition's time) is what the stats columns
/// summarise; `migration_cost_seconds` is the first iteration against the
/// others, which `iteration_seconds` prints; `simd_calibration` backs
/// `simd` and `spmv_calibration` backs `spmv`; the process's context
/// switches are in `observed=`'s counters.
pub const SHOWN_BY_COLUMNS: [&str; 6] = [
    "run_seconds",
    "migration_cost_seconds",
    "simd_calibration",
    "spmv_calibration",
    "voluntary_switches",
    "involuntary_switches",
];

/// `key=value` pairs separated by spaces, summarised by the rule above.
pub fn params_text(params: &Map<String, Value>) -> String {
    params
        .iter()
        .filter(|(key, _)| !counters_text::SUMMARISED.contains(&key.as_str()))
        .filter(|(key, _)| !SHOWN_BY_COLUMNS.contains(&key.as_str()))
        .filter(|(key, _)| !(key.as_str() == "simd" && params.contains_key("variant")))
        .filter(|(_, value)| !value.is_null())
        .map(|(key, value)| format!("{key}={}", param_text(key, value)))
        .chain(counters_text::observed(params).map(|text| format!("observed={text}")))
        .collect::<Vec<_>>()
        .join(" ")
}

fn param_text(key: &str, value: &Value) -> String {
    let special = match key {
        "observation" => observation(value),
        "verification" => verification(value),
        "iteration_seconds" => iterations(value),
        "pages_after_placement" | "pages_after_run" => pages(value),
        "convergence" => convergence(value),
        _ => None,
    };
    special.unwrap_or_else(|| summary(value))
}

fn summary(value: &Value) -> String {
    match value {
        Value::String(text) if text.chars().count() > MAX_STRING => {
            let cut: String = text.chars().take(MAX_STRING - 3).collect();
            format!("{cut}...")
        }
        Value::String(text) => text.clone(),
        Value::Number(number) if number.is_f64() => format_value(number.as_f64().unwrap_or(0.0)),
        Value::Array(items) if items.len() > MAX_INLINE => {
            let numbers: Vec<f64> = items.iter().filter_map(Value::as_f64).collect();
            if numbers.len() == items.len() {
                let min = numbers.iter().copied().fold(f64::INFINITY, f64::min);
                let max = numbers.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                format!(
                    "[{} values: first {}, min {}, max {}]",
                    items.len(),
                    format_value(numbers[0]),
                    format_value(min),
                    format_value(max)
                )
            } else {
                format!("[{} items]", items.len())
            }
        }
        Value::Array(items) if items.iter().all(is_scalar) => format!(
            "[{}]",
            items
                .iter()
                .map(|item| match item {
                    Value::String(_) => item.to_string(),
                    number => summary(number),
                })
                .collect::<Vec<_>>()
                .join(",")
        ),
        Value::Array(items) => format!("[{} items]", items.len()),
        Value::Object(entries)
            if entries.len() <= MAX_INLINE && entries.values().all(is_scalar) =>
        {
            let inner: Vec<String> = entries
                .iter()
                .map(|(key, value)| match value {
                    Value::Number(number) => {
                        format!("{key}:{}", format_value(number.as_f64().unwrap_or(0.0)))
                    }
                    other => format!("{key}:{}", summary(other)),
                })
                .collect();
            format!("{{{}}}", inner.join(","))
        }
        Value::Object(entries) => format!("{{{} keys}}", entries.len()),
        other => other.to_string(),
    }
}

/// `params.convergence` as `3/5 ±0.4% converged` (no interval with one
/// repetition), read through [`ConvergenceParams`].
fn convergence(value: &Value) -> Option<String> {
    let reached = ConvergenceParams::deserialize(value).ok()?;
    let interval = reached.ci95_rel.map_or(String::new(), |rel| {
        format!(" ±{}%", format_value(rel * 100.0))
    });
    Some(format!(
        "{}/{}{interval} {}",
        reached.repetitions,
        reached.max_repetitions,
        reached.stopped_by.name()
    ))
}

fn is_scalar(value: &Value) -> bool {
    !(value.is_array() || value.is_object())
}

/// `{"0": bytes, ...}` as `0:1.5 GiB,1:20 MiB`.
fn bytes_per_node(value: Option<&Value>) -> Option<String> {
    let nodes = value?.as_object()?;
    let text: Vec<String> = nodes
        .iter()
        .map(|(node, bytes)| Some(format!("{node}:{}", format_bytes(bytes.as_u64()?))))
        .collect::<Option<_>>()?;
    Some(if text.is_empty() {
        "none".to_string()
    } else {
        text.join(",")
    })
}

fn observation(value: &Value) -> Option<String> {
    let samples = value.get("samples")?.as_array()?.len();
    Some(format!(
        "peak {} final {}, {} migrations ({}), {samples} samples",
        bytes_per_node(value.get("peak_bytes_per_node"))?,
        bytes_per_node(value.get("final_bytes_per_node"))?,
        value.get("thread_migrations")?.as_u64()?,
        value.get("thread_migrations_source")?.as_str()?,
    ))
}

/// `{"pages_per_node": {...}, "remote_share": r, ...}` as
/// `0:768,1:10 pages, 1.3% remote`.
fn pages(value: &Value) -> Option<String> {
    let nodes = value.get("pages_per_node")?.as_object()?;
    let per_node: Vec<String> = nodes
        .iter()
        .map(|(node, pages)| Some(format!("{node}:{}", pages.as_u64()?)))
        .collect::<Option<_>>()?;
    let remote = value.get("remote_share")?.as_f64()?;
    Some(format!(
        "{} pages, {} remote",
        per_node.join(","),
        crate::units::format_percent(remote)
    ))
}

fn verification(value: &Value) -> Option<String> {
    Some(match value.get("passed")?.as_bool()? {
        true => "passed".to_string(),
        false => "FAILED".to_string(),
    })
}

fn iterations(value: &Value) -> Option<String> {
    let times: Vec<f64> = value
        .as_array()?
        .iter()
        .map(Value::as_f64)
        .collect::<Option<_>>()?;
    let (first, rest) = times.split_first()?;
    if rest.is_empty() {
        return Some(format!("1 iteration: {} s", format_value(*first)));
    }
    let mut sorted = rest.to_vec();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    Some(format!(
        "{} iterations: first {} s, then median {} s",
        times.len(),
        format_value(*first),
        format_value(median)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(params: Value) -> String {
        params_text(params.as_object().unwrap())
    }

    #[test]
    fn short_values_print_as_they_are() {
        assert_eq!(
            text(
                json!({"size_bytes": 65536, "cpus": [0, 1], "policy": "as-is", "ok": true,
                        "user_seconds": 0.0009839999999999998})
            ),
            "size_bytes=65536 cpus=[0,1] policy=as-is ok=true user_seconds=0.001"
        );
    }

    #[test]
    fn short_float_arrays_are_shortened_and_run_times_left_to_the_columns() {
        assert_eq!(
            text(
                json!({"ratios": [0.561922107, 2.0, 0.25], "names": ["a", "b"],
                        "run_seconds": [0.5, 0.6]})
            ),
            r#"ratios=[0.562,2.00,0.250] names=["a","b"]"#
        );
    }

    /// A `variant` names its SIMD level, so `simd` leaves the row; alone,
    /// `simd` stays, and calibrations are left to what they back.
    #[test]
    fn a_variant_stands_for_its_simd_level() {
        assert_eq!(
            text(
                json!({"simd": {"copy": "libc"}, "variant": {"copy": "memcpy"},
                        "simd_calibration": {"copy": {"memcpy": 1.0}}})
            ),
            "variant={copy:memcpy}"
        );
        assert_eq!(
            text(json!({"simd": "avx2", "spmv": "loads", "spmv_calibration": {"loads": 2.0}})),
            "simd=avx2 spmv=loads"
        );
    }

    #[test]
    fn long_values_are_summarised() {
        let times: Vec<f64> = (0..100).map(|i| 0.5 - f64::from(i) * 0.001).collect();
        assert_eq!(
            text(json!({"per_thread_gbs": times})),
            "per_thread_gbs=[100 values: first 0.500, min 0.401, max 0.500]"
        );
        assert_eq!(
            text(json!({"iteration_seconds": [0.9, 0.2, 0.3, 0.1]})),
            "iteration_seconds=4 iterations: first 0.900 s, then median 0.200 s"
        );
        assert_eq!(
            text(json!({"calibration": {"avx512": 0.12278334489319549, "scalar": 1.5}})),
            "calibration={avx512:0.123,scalar:1.50}"
        );
        assert_eq!(
            text(json!({"verification": {"quantity": "zeta", "computed": 1.0, "passed": false}})),
            "verification=FAILED"
        );
        let long = "x".repeat(100);
        assert_eq!(
            text(json!({ "note": long })).len(),
            "note=".len() + MAX_STRING
        );
        assert_eq!(
            text(json!({"big": {"a":1,"b":2,"c":3,"d":4,"e":5}})),
            "big={5 keys}"
        );
    }

    #[test]
    fn adaptive_repetitions_show_what_they_reached() {
        let reached = |taken: u64, rel: Option<f64>, stopped_by: &str| {
            text(
                json!({"convergence": {"repetitions": taken, "max_repetitions": 5,
                "ci95_rel": rel, "ci95_target_rel": 0.01, "stopped_by": stopped_by}}),
            )
        };
        assert_eq!(
            reached(3, Some(0.00412), "converged"),
            "convergence=3/5 ±0.412% converged"
        );
        assert_eq!(
            reached(5, Some(0.0731), "maximum"),
            "convergence=5/5 ±7.31% maximum"
        );
        assert_eq!(reached(1, None, "maximum"), "convergence=1/5 maximum");
    }

    #[test]
    fn an_observation_is_its_peak_final_and_migrations() {
        let sample = json!({"t": 0.1, "bytes_per_node": {"0": 4096}, "thread_cpus": {"12": 0}});
        let observation = json!({
            "interval_ms": 10,
            "samples": vec![sample; 300],
            "thread_migrations": 3,
            "thread_migrations_source": "kernel",
            "cpu_changes_between_samples": 2,
            "node_changes_between_samples": 0,
            "final_bytes_per_node": {"0": 1048576},
            "peak_bytes_per_node": {"0": 3221225472u64, "1": 0},
        });
        assert_eq!(
            text(json!({ "observation": observation })),
            "observation=peak 0:3 GiB,1:0 B final 0:1 MiB, 3 migrations (kernel), 300 samples"
        );
    }
}
