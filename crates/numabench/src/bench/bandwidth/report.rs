//! Bandwidth against working-set size, one curve per kernel (and threads,
//! memory placement).

use crate::output::ReadRecord;
use crate::report::html::figure;
use crate::report::load::Dataset;
use crate::report::plot::{lines, Series};
use crate::report::sections::{
    cache_marks, curves, curves_table, memory_of, records_table, section,
};
use crate::report::Section;
use numabench_schema::benchmark;
use numabench_schema::params::{key, BandwidthParams};

/// The curve of a bandwidth record: kernel, threads and memory.
pub fn curve_label(r: &ReadRecord) -> String {
    let params: BandwidthParams = r.params_or_default();
    let kernel = params
        .kernel
        .unwrap_or_else(|| r.metric.trim_end_matches("_bandwidth").to_string());
    let threads = params
        .threads
        .map_or_else(|| "?".into(), |count| count.to_string());
    format!("{kernel}, {threads} thread(s), {}", memory_of(r))
}

/// Bandwidth (GB/s) against size, per kernel.
pub fn bandwidth_curves(data: &Dataset) -> Vec<Series> {
    curves(
        data.of(benchmark::BANDWIDTH)
            .filter(|r| r.metric.ends_with("_bandwidth") && !r.typed_params().each_cpu()),
        key::SIZE_BYTES,
        curve_label,
    )
}

pub fn build(data: &Dataset) -> Option<Section> {
    let series = bandwidth_curves(data);
    let others: Vec<&ReadRecord> = data
        .of(benchmark::BANDWIDTH)
        .filter(|r| !r.metric.ends_with("_bandwidth") || r.typed_params().each_cpu())
        .collect();
    if series.is_empty() && others.is_empty() {
        return None;
    }
    let mut body = String::new();
    if !series.is_empty() {
        let svg = lines(
            &series,
            "working set (bytes, log scale; kB = 1000 B)",
            "bandwidth (GB/s)",
            true,
            &cache_marks(data),
        );
        body.push_str(&figure(
            &svg,
            "Best-repetition bandwidth against working-set size, per kernel (GB/s = 10^9 bytes/s).",
            &curves_table(&series, "size (bytes)", "bandwidth (GB/s)"),
        ));
    }
    if !others.is_empty() {
        body.push_str("<h3>Per-CPU bandwidth</h3>");
        body.push_str(
            &records_table(
                others.into_iter(),
                &[
                    key::CPU,
                    key::CPU_NODE,
                    key::MEM_NODE,
                    key::KERNEL,
                    key::THREADS,
                    key::SIZE_BYTES,
                ],
            )
            .to_html(),
        );
    }
    Some(section(
        "bandwidth",
        "Bandwidth against working-set size",
        body,
    ))
}
