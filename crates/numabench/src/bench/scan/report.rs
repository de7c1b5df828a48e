//! scan's report section: for each node, its ranges' read bandwidth
//! against their physical address, the node's median drawn across and
//! the slow ranges marked apart, with a table of every range; then one
//! row per node (ranges measured, coverage, spread, slow ranges).

use crate::output::ReadRecord;
use crate::report::html::{self, figure, Table};
use crate::report::load::Dataset;
use crate::report::plot::{lines, Series};
use crate::report::sections::section;
use crate::report::Section;
use numabench_schema::benchmark;
use numabench_schema::params::{ScanNodeRangesParams, ScanRangeParams};
use std::collections::BTreeMap;

const GIB: f64 = (1u64 << 30) as f64;

/// `shows` of the scan kind: every scan record (a `slow_range` is a copy
/// of its range's record, marked in the range table and the chart).
pub fn shows(r: &ReadRecord) -> bool {
    matches!(
        r.metric.as_str(),
        "range_bandwidth" | "node_ranges" | "slow_range"
    )
}

/// A range record's params (what it lacks reads as `None`).
fn range_params(r: &ReadRecord) -> ScanRangeParams {
    r.params_or_default()
}

/// Each node's range records, ordered by physical address.
fn ranges_per_node(data: &Dataset) -> BTreeMap<u64, Vec<&ReadRecord>> {
    let mut nodes: BTreeMap<u64, Vec<&ReadRecord>> = BTreeMap::new();
    for r in data
        .of(benchmark::SCAN)
        .filter(|r| r.metric == "range_bandwidth")
    {
        if let Some(node) = range_params(r).node.node.map(u64::from) {
            nodes.entry(node).or_default().push(r);
        }
    }
    for ranges in nodes.values_mut() {
        ranges.sort_by_key(|r| range_params(r).range_start);
    }
    nodes
}

/// The chart's curves for one node: every range at its start address
/// (GiB), the slow ones again as a curve of their own, and the node's
/// median as a flat line across.
pub fn node_series(ranges: &[&ReadRecord]) -> Vec<Series> {
    let at = |r: &ReadRecord| Some((range_params(r).range_start? as f64 / GIB, r.value));
    let points: Vec<(f64, f64)> = ranges.iter().filter_map(|r| at(r)).collect();
    let slow: Vec<(f64, f64)> = ranges
        .iter()
        .filter(|r| range_params(r).slow == Some(true))
        .filter_map(|r| at(r))
        .collect();
    let mut series = vec![Series {
        label: "range read GB/s".into(),
        points: points.clone(),
    }];
    if let (Some(median), Some(first), Some(last)) = (
        ranges.first().and_then(|r| range_params(r).node_median_gbs),
        points.first(),
        points.last(),
    ) {
        series.push(Series {
            label: "node median".into(),
            points: vec![(first.0, median), (last.0, median)],
        });
    }
    if !slow.is_empty() {
        series.push(Series {
            label: "slow range".into(),
            points: slow,
        });
    }
    series
}

fn ranges_table(ranges: &[&ReadRecord]) -> Table {
    let mut table = Table::new(&["range", "GB/s", "below median", "p (Holm)", "slow"]);
    for r in ranges {
        let params = range_params(r);
        table.push(vec![
            params.range.unwrap_or_default(),
            html::number(r.value),
            params
                .deficit
                .map(|deficit| format!("{:.1}%", deficit * 100.0))
                .unwrap_or_default(),
            params.p_value.map(html::number).unwrap_or_default(),
            match params.slow {
                Some(true) => "slow".into(),
                _ => String::new(),
            },
        ]);
    }
    table
}

fn nodes_table(data: &Dataset) -> Table {
    let mut table = Table::new(&[
        "node",
        "ranges",
        "measured",
        "of node",
        "median GB/s",
        "min",
        "max",
        "slow ranges",
    ]);
    for r in data
        .of(benchmark::SCAN)
        .filter(|r| r.metric == "node_ranges")
    {
        let params: ScanNodeRangesParams = r.params_or_default();
        let slow = params
            .slow_ranges
            .map(|names| match names.is_empty() {
                true => "none".to_string(),
                false => names.join(", "),
            })
            .unwrap_or_default();
        let number = |value: Option<u64>| value.map(|value| html::number(value as f64));
        table.push(vec![
            params
                .node
                .node
                .map(|node| node.to_string())
                .unwrap_or_default(),
            number(params.ranges).unwrap_or_default(),
            params
                .bytes_measured
                .map(|bytes| html::bytes(bytes as f64))
                .unwrap_or_default(),
            params
                .coverage
                .map(|share| format!("{:.0}%", share * 100.0))
                .unwrap_or_default(),
            html::number(r.stats.median),
            html::number(r.stats.min),
            html::number(r.stats.max),
            slow,
        ]);
    }
    table
}

pub fn build(data: &Dataset) -> Option<Section> {
    let nodes = ranges_per_node(data);
    let summary = nodes_table(data);
    if nodes.is_empty() && summary.is_empty() {
        return None;
    }
    let mut body = String::new();
    if !summary.is_empty() {
        body.push_str(&summary.to_html());
    }
    for (node, ranges) in &nodes {
        let svg = lines(
            &node_series(ranges),
            "physical address (GiB)",
            "read GB/s",
            false,
            &[],
        );
        body.push_str(&format!("<h3>node {node}</h3>"));
        body.push_str(&figure(
            &svg,
            "Read bandwidth of each physically contiguous range of the node's memory (median over rounds, the node's threads pinned); a slow range is more than 10% below the node's median and significantly so (Mann-Whitney, Holm-adjusted).",
            &ranges_table(ranges),
        ));
    }
    Some(section("scan", "Memory scan by physical range", body))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::sections::tests::{lines as dataset, record};

    fn range(start_gib: u64, gbs: f64, slow: bool) -> String {
        record(
            "scan",
            "range_bandwidth",
            gbs,
            "GB/s",
            &format!(
                r#"{{"node":1,"range":"r{start_gib}","range_start":{},"node_median_gbs":10.0,"deficit":{},"p_value":0.01,"slow":{slow}}}"#,
                start_gib << 30,
                1.0 - gbs / 10.0
            ),
        )
    }

    #[test]
    fn a_slow_range_is_drawn_apart_at_its_address_beside_the_median() {
        let data = dataset(&[
            range(2, 10.0, false),
            range(0, 10.2, false),
            range(1, 6.0, true),
            record(
                "scan",
                "node_ranges",
                10.0,
                "GB/s",
                r#"{"node":1,"ranges":3,"bytes_measured":3221225472,"coverage":0.5,"slow_ranges":["r1"]}"#,
            ),
        ]);
        let nodes = ranges_per_node(&data);
        let series = node_series(&nodes[&1]);
        assert_eq!(series[0].points, vec![(0.0, 10.2), (1.0, 6.0), (2.0, 10.0)]);
        assert_eq!(series[1].points, vec![(0.0, 10.0), (2.0, 10.0)]);
        assert_eq!(series[2].label, "slow range");
        assert_eq!(series[2].points, vec![(1.0, 6.0)]);
        let section = build(&data).unwrap();
        assert!(section.body.contains("<h3>node 1</h3>"), "{}", section.body);
        assert!(section.body.contains("<td>r1</td>"), "{}", section.body);
        assert!(section.body.contains("40.0%"), "{}", section.body);
    }

    #[test]
    fn no_scan_records_no_section() {
        let data = dataset(&[record("latency", "latency", 80.0, "ns", "{}")]);
        assert!(build(&data).is_none());
    }
}
