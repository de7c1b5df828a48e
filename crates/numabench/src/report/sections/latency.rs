//! Latency against working-set size, log x axis, cache sizes marked, one
//! curve per measurement setting (host, file, cluster rank, chase order,
//! writer CPU, CPU and memory placement); per-CPU ratios as a table.

use super::{cache_marks, curves, curves_table, memory_of, records_table, section, Section};
use crate::output::ReadRecord;
use crate::report::html::figure;
use crate::report::load::Dataset;
use crate::report::plot::{lines, Series};
use numabench_schema::benchmark;
use numabench_schema::params::key;

/// The curve a latency record belongs to: its CPU and where its memory was.
pub fn curve_label(r: &ReadRecord) -> String {
    let cpu = r.text(key::CPU).unwrap_or_else(|| "?".into());
    format!("CPU {cpu}, memory {}", memory_of(r))
}

/// What tells latency measurements apart besides CPU and memory: the host
/// (a cluster record's `params.host`, else its file's metadata), the file,
/// the cluster rank, the chase order and the writer CPU (`--writer-cpu`).
fn setting(data: &Dataset, r: &ReadRecord) -> [(&'static str, String); 5] {
    let host = r.text(key::HOST).or_else(|| {
        data.metadata
            .iter()
            .find(|(file, _)| *file == r.file)
            .and_then(|(_, metadata)| metadata.get("host")?.as_str().map(str::to_string))
    });
    let writer = r
        .placement
        .requested
        .get("writer_cpu")
        .or_else(|| r.params.get("writer_cpu"))
        .filter(|v| !v.is_null())
        .map(|v| v.to_string());
    [
        ("host", host.unwrap_or_else(|| "?".into())),
        ("file", r.file.clone()),
        ("rank", r.text("rank").unwrap_or_default()),
        ("order", r.text("order").unwrap_or_default()),
        ("writer CPU", writer.unwrap_or_else(|| "none".into())),
    ]
}

/// Latency (ns) against size: one curve per setting, CPU and memory
/// placement, so records of different hosts, files, ranks, orders or
/// writers never merge into one curve. The label names CPU and memory,
/// then each part of the setting whose value differs between records.
pub fn latency_curves(data: &Dataset) -> Vec<Series> {
    let records: Vec<&ReadRecord> = data
        .of(benchmark::LATENCY)
        .filter(|r| r.metric == "latency")
        .collect();
    let settings: Vec<_> = records.iter().map(|r| setting(data, r)).collect();
    let varies = |part: usize| {
        settings
            .iter()
            .any(|setting| setting[part].1 != settings[0][part].1)
    };
    let varying: Vec<usize> = (0..5).filter(|&part| varies(part)).collect();
    curves(records.iter().copied(), key::SIZE_BYTES, |r| {
        let setting = setting(data, r);
        let mut label = curve_label(r);
        for &part in &varying {
            let (name, value) = &setting[part];
            label.push_str(&format!(", {name} {value}"));
        }
        label
    })
}

pub fn build(data: &Dataset) -> Option<Section> {
    let series = latency_curves(data);
    let ratios: Vec<&ReadRecord> = data
        .of(benchmark::LATENCY)
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
        body.push_str(
            &records_table(
                ratios.into_iter(),
                &[
                    key::CPU,
                    key::CPU_NODE,
                    key::MEM_NODE,
                    key::SIZE_BYTES,
                    "deviation_from_node_median",
                ],
            )
            .to_html(),
        );
    }
    Some(section("latency", "Latency against working-set size", body))
}
