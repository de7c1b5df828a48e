//! Latency against working-set size, log x axis, cache sizes marked, one
//! curve per measurement setting (host, file, cluster rank, chase order,
//! writer CPU, CPU and memory placement); per-CPU ratios as a table.

use crate::output::ReadRecord;
use crate::report::html::figure;
use crate::report::load::Dataset;
use crate::report::plot::{lines, Series};
use crate::report::sections::{
    cache_marks, curves, curves_table, memory_of, records_table, section,
};
use crate::report::Section;
use numabench_schema::benchmark;
use numabench_schema::params::{key, ClusterLabels, LatencyParams};

/// A latency record's params (what it lacks reads as `None`).
fn params_of(r: &ReadRecord) -> LatencyParams {
    r.params_or_default()
}

/// The curve a latency record belongs to: its CPU and where its memory was.
pub fn curve_label(r: &ReadRecord) -> String {
    let cpu = params_of(r)
        .cpu
        .map_or_else(|| "?".into(), |cpu| cpu.to_string());
    format!("CPU {cpu}, memory {}", memory_of(r))
}

/// What tells latency measurements apart besides CPU and memory: the host
/// (a cluster record's `params.host`, else its file's metadata), the file,
/// the cluster rank, the chase order and the writer CPU (`--writer-cpu`).
fn setting(data: &Dataset, r: &ReadRecord) -> [(&'static str, String); 5] {
    let labels = r.params_or_default::<ClusterLabels>();
    let host = labels.host.or_else(|| {
        data.metadata
            .iter()
            .find(|(file, _)| *file == r.file)
            .map(|(_, metadata)| metadata.host.clone())
    });
    let params = params_of(r);
    let writer = r
        .placement
        .requested_as()
        .and_then(|requested| requested.writer_cpu)
        .map(|cpu| cpu.to_string())
        .or_else(|| params.writer.map(|writer| writer.writer_cpu.to_string()));
    [
        ("host", host.unwrap_or_else(|| "?".into())),
        ("file", r.file.clone()),
        (
            "rank",
            labels.rank.map(|rank| rank.to_string()).unwrap_or_default(),
        ),
        ("order", params.chase.order.unwrap_or_default()),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::sections::tests::{fixture, record};

    #[test]
    fn latency_curves_follow_size_with_every_record_once() {
        let data = fixture(&["characterize.jsonl"]);
        let records: Vec<_> = data
            .of("latency")
            .filter(|r| r.metric == "latency")
            .collect();
        let series = latency_curves(&data);
        assert_eq!(series.len(), 1, "one CPU and one memory node: {series:?}");
        assert_eq!(series[0].label, "CPU 0, memory bind:0");
        assert_eq!(series[0].points.len(), records.len());
        assert!(
            series[0].points.windows(2).all(|w| w[0].0 < w[1].0),
            "sorted by size"
        );
        for r in records {
            assert!(series[0]
                .points
                .contains(&(r.typed_params().size_bytes().unwrap() as f64, r.value)));
        }
    }

    /// Latency curves were keyed on CPU and memory only: the same CPU and node
    /// measured on two hosts, in two files, in two orders or with and without a
    /// writer CPU fell into one curve (its points interleaved). Each of those
    /// now makes its own curve, and a single file keeps its short label.
    /// A version-1 metadata line of a run on host `h1`.
    const METADATA_H1: &str = r#"{"type":"metadata","tool":"numabench","version":"0.1.0","schema_version":1,"command_line":["numabench"],"host":"h1","kernel":"6.1","cpu_model":"cpu","topology":"","utc_time":"2026-11-28T00:00:00Z"}"#;

    #[test]
    fn latency_curves_keep_hosts_files_orders_and_writers_apart() {
        let point = |size: u64, value: f64, extra: &str| {
            record(
                "latency",
                "latency",
                value,
                "ns",
                &format!(r#"{{"size_bytes":{size},"cpu":0,"mem_node":0{extra}}}"#),
            )
        };
        let mut data = Dataset::default();
        data.load(
            "a.jsonl",
            &[
                METADATA_H1.to_string(),
                point(1024, 1.0, r#","order":"tlb-block""#),
                point(2048, 2.0, r#","order":"tlb-block""#),
                point(1024, 3.0, r#","order":"random""#),
                point(1024, 4.0, r#","order":"tlb-block","host":"h2","rank":1"#),
            ]
            .join("\n"),
        );
        data.load(
            "b.jsonl",
            &[
                METADATA_H1.to_string(),
                point(1024, 5.0, r#","order":"tlb-block""#),
                point(1024, 6.0, r#","order":"tlb-block","writer_cpu":1"#),
            ]
            .join("\n"),
        );
        assert!(data.notes.is_empty(), "{:?}", data.notes);
        let series = latency_curves(&data);
        let labels: Vec<&str> = series.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(series.len(), 5, "{labels:#?}");
        assert_eq!(
            series.iter().map(|s| s.points.len()).sum::<usize>(),
            6,
            "{labels:#?}"
        );
        let two = series.iter().find(|s| s.points.len() == 2).unwrap();
        assert_eq!(two.points, [(1024.0, 1.0), (2048.0, 2.0)]);
        assert!(two.label.contains("host h1") && two.label.contains("file a.jsonl"));
        assert!(
            labels.iter().any(|l| l.contains("writer CPU 1")),
            "{labels:#?}"
        );
        assert!(
            labels.iter().any(|l| l.contains("order random")),
            "{labels:#?}"
        );
    }
}
