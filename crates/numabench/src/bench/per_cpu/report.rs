//! `characterize`'s per-CPU steps: each CPU's local latency and read
//! bandwidth as bars, and its ratio to its node's median.

use crate::output::ReadRecord;
use crate::report::html::{figure, number, Table};
use crate::report::load::Dataset;
use crate::report::plot::bars;
use crate::report::sections::{records_table, section};
use crate::report::Section;
use numabench_schema::benchmark;
use numabench_schema::params::EachCpuParams;

/// (CPU label, value) of the per-CPU records of one metric, in CPU order.
pub fn per_cpu_bars(data: &Dataset, metric: &str) -> Vec<(String, f64)> {
    let mut rows: Vec<(f64, String, f64)> = data
        .of(benchmark::PER_CPU)
        .filter(|r| r.metric == metric)
        .filter_map(|r| {
            let cpu = r.params_or_default::<EachCpuParams>().cpu?;
            Some((f64::from(cpu), format!("CPU {cpu}"), r.value))
        })
        .collect();
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    rows.into_iter()
        .map(|(_, label, value)| (label, value))
        .collect()
}

pub fn build(data: &Dataset) -> Option<Section> {
    data.of(benchmark::PER_CPU).next()?;
    let mut body = String::new();
    for (metric, axis) in [
        ("latency", "latency (ns)"),
        ("read_bandwidth", "read bandwidth (GB/s)"),
    ] {
        let rows = per_cpu_bars(data, metric);
        if rows.is_empty() {
            continue;
        }
        let (labels, values): (Vec<String>, Vec<f64>) = rows.iter().cloned().unzip();
        let mut table = Table::new(&["CPU", axis]);
        for (label, value) in &rows {
            table.push(vec![label.clone(), number(*value)]);
        }
        body.push_str(&figure(
            &bars(&labels, &values, axis, "CPU"),
            &format!("Each CPU's local {axis}, one pinned thread, memory on its own node."),
            &table,
        ));
    }
    let ratios: Vec<&ReadRecord> = data
        .of(benchmark::PER_CPU)
        .filter(|r| r.metric.ends_with("_vs_node_median"))
        .collect();
    if !ratios.is_empty() {
        body.push_str("<h3>Each CPU against its node's median</h3>");
        body.push_str(
            &records_table(
                ratios.into_iter(),
                &[
                    "cpu",
                    "cpu_node",
                    "mem_node",
                    "kernel",
                    "size_bytes",
                    "deviation_from_node_median",
                ],
            )
            .to_html(),
        );
    }
    Some(section("per-cpu", "Every CPU on its own", body))
}
