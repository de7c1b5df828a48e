//! Latency against working-set size, log x axis, cache sizes marked, one
//! curve per CPU and memory placement; per-CPU ratios as a table.

use super::{cache_marks, curves, curves_table, memory_of, records_table, section, Section};
use crate::report::html::figure;
use crate::report::load::{Dataset, Rec};
use crate::report::plot::{lines, Series};

/// The curve a latency record belongs to: its CPU and where its memory was.
pub fn curve_label(r: &Rec) -> String {
    let cpu = r.text("cpu").unwrap_or_else(|| "?".into());
    format!("CPU {cpu}, memory {}", memory_of(r))
}

/// Latency (ns) against size, per CPU and memory placement.
pub fn latency_curves(data: &Dataset) -> Vec<Series> {
    curves(
        data.of("latency").filter(|r| r.metric == "latency"),
        "size_bytes",
        curve_label,
    )
}

pub fn build(data: &Dataset) -> Option<Section> {
    let series = latency_curves(data);
    let ratios: Vec<&Rec> = data
        .of("latency")
        .filter(|r| r.metric.ends_with("_vs_node_median"))
        .collect();
    if series.is_empty() && ratios.is_empty() {
        return None;
    }
    let mut body = String::new();
    if !series.is_empty() {
        let marks = cache_marks(data);
        let svg = lines(
            &series,
            "working set (bytes, log scale; kB = 1000 B)",
            "latency (ns)",
            true,
            &marks,
        );
        let caption = if marks.is_empty() {
            "Median load-to-use latency against working-set size (no topology file given: cache sizes not marked)."
        } else {
            "Median load-to-use latency against working-set size; dashed lines: cache sizes from the topology file."
        };
        body.push_str(&figure(
            &svg,
            caption,
            &curves_table(&series, "size (bytes)", "latency (ns)"),
        ));
    }
    if !ratios.is_empty() {
        body.push_str("<h3>Each CPU against its node's median</h3>");
        body.push_str(&records_table(ratios.into_iter()).to_html());
    }
    Some(section("latency", "Latency against working-set size", body))
}
