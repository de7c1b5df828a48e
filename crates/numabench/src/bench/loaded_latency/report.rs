//! Loaded latency against the bandwidth the traffic generators reached.

use crate::report::html::figure;
use crate::report::load::Dataset;
use crate::report::plot::{lines, Series};
use crate::report::sections::{curves, curves_table, memory_of, section};
use crate::report::Section;
use numabench_schema::benchmark;
use numabench_schema::params::LoadedLatencyParams;

/// Latency (ns) against `traffic_gbs`, one curve per memory, traffic mix
/// and file: a family of curves per memory node, one per mix.
pub fn loaded_curves(data: &Dataset) -> Vec<Series> {
    curves(
        data.of(benchmark::LOADED_LATENCY)
            .filter(|r| r.metric == "loaded_latency"),
        "traffic_gbs",
        |r| {
            format!(
                "{}, mix {} ({})",
                memory_of(r),
                r.params_or_default::<LoadedLatencyParams>()
                    .mix
                    .unwrap_or_else(|| "?".into()),
                r.file
            )
        },
    )
}

pub fn build(data: &Dataset) -> Option<Section> {
    let series = loaded_curves(data);
    if series.is_empty() {
        return None;
    }
    let svg = lines(
        &series,
        "traffic bandwidth (GB/s)",
        "loaded latency (ns)",
        false,
        &[],
    );
    Some(section(
        "loaded-latency",
        "Loaded latency against bandwidth",
        figure(
            &svg,
            "Median latency of one chasing thread while the other cores generate traffic (idle point at the lowest bandwidth).",
            &curves_table(&series, "traffic (GB/s)", "latency (ns)"),
        ),
    ))
}
